// npm run rehearse-budget -- --model DIR [--world W ...] [--pool N] [--write] [--json]
// The Rehearse token budget a model folder needs for its worlds (src/agent/rehearse-budget.ts): the longest real
// result of each world's training pool in the folder's tokens, plus the margin. --write stores the largest into the
// folder's profile (config.json → envace.profile.rehearse.maxNewTokens).

import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { profileFromConfig } from '../agent/profile';
import { longestRealResult, rehearseBudget } from '../agent/rehearse-budget';
import { loadModelFolder } from '../engine/modelFolder';
import { getWorld, worldNames } from '../envs/worlds/index';
import { TRAIN_TASK_POOL } from '../rl/trainer';
import { cliArgs, defineCli } from './args';

export const REHEARSE_BUDGET_CLI = defineCli({
  name: 'rehearse-budget',
  summary: 'The Rehearse token budget a model folder needs: the longest real result of its worlds\' training pools, plus a margin.',
  options: {
    model: { type: 'string', help: 'model folder', required: true },
    world: { type: 'string', help: 'built-in world (default: the folder\'s envace.worlds, else every world)', choices: worldNames() },
    pool: { type: 'int', help: 'training tasks scanned per world (the trainer draws from the first this-many)', default: TRAIN_TASK_POOL, min: 1 },
    write: { type: 'boolean', help: 'store the budget in the folder\'s profile (config.json) when it is larger than the stored one (a larger stored budget is kept: it also fits)' },
    json: { type: 'boolean', help: 'print the JSON object only' },
  },
});

async function main() {
  const a = cliArgs(REHEARSE_BUDGET_CLI);
  const folder = await loadModelFolder(a.model);
  const meta = (folder.rawConfig.envace ?? {}) as { worlds?: string[] };
  const worlds = a.world ? [a.world] : meta.worlds?.length ? meta.worlds : worldNames();
  const count = (t: string) => folder.tokenizer.encode(t).length;
  const perWorld = worlds.map((w) => {
    const l = longestRealResult(getWorld(w).tasks({ split: 'train', count: a.pool }), count);
    return { world: w, longest: l.tokens, task: l.taskId, tool: l.tool, results: l.results, budget: rehearseBudget(l.tokens) };
  });
  const budget = Math.max(...perWorld.map((p) => p.budget));
  const profile = profileFromConfig(folder.rawConfig);
  const before = profile.rehearse.maxNewTokens;
  const out = { model: a.model, pool: a.pool, worlds: perWorld, budget, profileBudget: before ?? null, written: false };
  if (a.write && !(before !== undefined && before >= budget)) {
    const path = join(a.model, 'config.json');
    const raw = JSON.parse(await readFile(path, 'utf8'));
    raw.envace ??= {};
    // A folder without a stored profile was trained with the default one; store it whole so nothing else changes.
    raw.envace.profile ??= profile;
    raw.envace.profile.rehearse = { ...raw.envace.profile.rehearse, maxNewTokens: budget };
    await writeFile(path, JSON.stringify(raw, null, 2) + '\n');
    out.written = true;
  }
  if (a.json) console.log(JSON.stringify(out));
  else {
    for (const p of perWorld) console.log(`${p.world}: longest real result ${p.longest} tokens (${p.tool}, ${p.task}; ${p.results} results) -> budget ${p.budget}`);
    console.log(`budget ${budget} (profile had ${before ?? 'none'})${out.written ? `; written to ${a.model}/config.json` : ''}`);
  }
}

const isMain = /(^|[\/])rehearse-budget.ts$/.test(process.argv[1] ?? '');
if (isMain) main().catch((e) => { console.error(e instanceof Error ? e.message : e); process.exit(1); });
