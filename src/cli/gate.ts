// npm run gate -- --models A,B --worlds files,files-folder,files-all [--tasks 32 --k 4 --seed 0 --probes 64] --out DIR
// The simulator gate for several models at several worlds (the files world's visibility levels, say), one agreement
// measurement per pair (src/bench/agreement.ts, the same protocol as `npm run agreement`), each written to
// DIR/<model>@<world>.json as soon as it is done, then DIR/gate.json and DIR/gate.md: every gate figure with its
// 95% interval, and which targets each pair meets. Resumable: a pair whose JSON has the same protocol is read back.

import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { profileFromConfig, rolloutSettings } from '../agent/profile';
import { agreementChecks, AGREEMENT_TARGETS, measureAgreement, type AgreementReport } from '../bench/agreement';
import type { Estimate } from '../bench/stats';
import { loadModelFolder } from '../engine/modelFolder';
import { createNodeRuntime } from '../engine/runtime-node';
import { samplerFromFolder } from '../engine/sampler';
import { getWorld, worldNames } from '../envs/worlds/index';
import { AGREEMENT_CLI } from './agreement';
import { cliArgs, defineCli } from './args';

export const GATE_CLI = defineCli({
  name: 'gate',
  summary: 'The simulator gate (npm run agreement) for several models × worlds, resumable, with one summary table.',
  options: {
    models: { type: 'list', help: 'model folders', required: true },
    worlds: { type: 'list', help: 'built-in worlds (e.g. files,files-folder,files-all: the visibility levels)', required: true, choices: worldNames() },
    // The measurement's own options, as npm run agreement takes them.
    tasks: AGREEMENT_CLI.options.tasks, offset: AGREEMENT_CLI.options.offset, k: AGREEMENT_CLI.options.k,
    temperature: AGREEMENT_CLI.options.temperature, seed: AGREEMENT_CLI.options.seed, probes: AGREEMENT_CLI.options.probes,
    out: { type: 'string', help: 'results folder', required: true },
  },
});

const FIGURES = ['real_reward', 'rehearsal_reward', 'reward_gap', 'task_correlation', 'sign_agreement', 'parse_error_rate', 'recall_exact',
  'error_agreement', 'error_agreement_on_path', 'error_recall', 'error_precision'] as const;

type Pair = Omit<AgreementReport, 'tasks'> & { model: string; world: string; meets: ReturnType<typeof agreementChecks> };

async function main() {
  const a = cliArgs(GATE_CLI);
  await mkdir(a.out, { recursive: true });
  const protocol = { tasks: a.tasks, offset: a.offset, k: a.k, temperature: a.temperature, seed: a.seed, probes: a.probes };
  const pairs: Pair[] = [];
  for (const model of a.models) {
    for (const world of a.worlds) {
      const file = join(a.out, `${basename(model)}@${world}.json`);
      if (existsSync(file)) {
        const old = JSON.parse(await readFile(file, 'utf8')) as Pair & { gateProtocol?: typeof protocol };
        if (JSON.stringify(old.gateProtocol) === JSON.stringify(protocol)) { pairs.push(old); process.stderr.write(`${file}: read back\n`); continue; }
      }
      const folder = await loadModelFolder(model);
      const policy = await samplerFromFolder(folder, createNodeRuntime({ threads: 1 }), { mode: 'fast' });
      try {
        process.stderr.write(`${basename(model)} @ ${world} …\n`);
        const tasks = getWorld(world).tasks({ split: 'train', count: a.tasks, offset: a.offset });
        const r = await measureAgreement(tasks, policy, {
          k: a.k, temperature: a.temperature, seed: a.seed, probes: a.probes, rollout: rolloutSettings(profileFromConfig(folder.rawConfig)),
        });
        const { tasks: _perTask, ...rest } = r;
        const pair: Pair & { gateProtocol: typeof protocol } = { model, world, ...rest, meets: agreementChecks(r), gateProtocol: protocol };
        await writeFile(file, JSON.stringify(pair, null, 1) + '\n');
        pairs.push(pair);
      } finally {
        await policy.release();
      }
    }
  }
  // The summary covers every pair measured into this folder with this protocol (earlier invocations included), so
  // models that belong to different worlds (files and retail starters) share one table.
  for (const f of (await readdir(a.out)).filter((x) => x.endsWith('.json') && x.includes('@')).sort()) {
    const p = JSON.parse(await readFile(join(a.out, f), 'utf8')) as Pair & { gateProtocol?: typeof protocol };
    if (JSON.stringify(p.gateProtocol) === JSON.stringify(protocol) && !pairs.some((q) => q.model === p.model && q.world === p.world)) pairs.push(p);
  }
  pairs.sort((x, y) => (x.model === y.model ? worldNames().indexOf(x.world) - worldNames().indexOf(y.world) : x.model < y.model ? -1 : 1));
  const summary = {
    command: `npm run gate -- --models M,… --worlds W,… --tasks ${a.tasks} --offset ${a.offset} --k ${a.k} --temperature ${a.temperature} --seed ${a.seed} --probes ${a.probes} --out ${a.out}`,
    protocol: { ...protocol, split: 'train', note: 'per (model, world): the same training tasks and seeds in the real environment and in rehearsal mode, k rollouts each; 95% intervals by bootstrap over tasks; recall from greedy probes' },
    targets: AGREEMENT_TARGETS,
    pairs: pairs.map((p) => ({ model: p.model, world: p.world, ...Object.fromEntries(FIGURES.map((f) => [f, p[f]])), truncated_rehearse_rows: p.truncated_rehearse_rows, rehearse_rows: p.rehearse_rows, error_calls: p.error_calls, error_calls_on_path: p.error_calls_on_path, error_classes_on_path: p.error_classes_on_path, meets: p.meets })),
  };
  await writeFile(join(a.out, 'gate.json'), JSON.stringify(summary, null, 1) + '\n');
  const f = (e: Estimate) => (Number.isFinite(e.mean) ? `${e.mean.toFixed(2)} [${e.ci95[0].toFixed(2)}, ${e.ci95[1].toFixed(2)}]` : '–');
  const mark = (p: Pair, k: keyof Pair['meets']) => (p.meets[k] === true ? ' ✓' : '');
  const md = [
    `# Simulator gate: ${[...new Set(pairs.map((p) => basename(p.model)))].join(', ')}`, '',
    `\`npm run gate -- --models … --worlds … --out DIR\` (this table: every pair measured into DIR with one protocol): the first ${a.tasks} training tasks from ${a.offset}, ${a.k} rollouts per task in each mode at T ${a.temperature}, seed ${a.seed}, ${a.probes} greedy recall probes; 95% bootstrap intervals over tasks. ✓ = target met.`, '',
    `Targets: ${Object.entries(AGREEMENT_TARGETS).map(([k, v]) => `${k} ${v}`).join(' · ')}`, '',
    '| model | world | truncated | parse errors | recall exact | error agreement (all calls) | error agreement (real path) | real reward | rehearsal reward | gap | task correlation | sign agreement |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...pairs.map((p) => `| ${basename(p.model)} | ${p.world} | ${p.truncated_rehearse_rows} / ${p.rehearse_rows}${mark(p, 'truncated_rehearse_rows')} | ${f(p.parse_error_rate)}${mark(p, 'parse_error_rate')} | ${f(p.recall_exact)}${mark(p, 'recall_exact')} | ${f(p.error_agreement)}${mark(p, 'error_agreement')} | ${f(p.error_agreement_on_path)}${mark(p, 'error_agreement_on_path')} | ${f(p.real_reward)} | ${f(p.rehearsal_reward)} | ${f(p.reward_gap)}${mark(p, 'reward_gap')} | ${f(p.task_correlation)}${mark(p, 'task_correlation')} | ${f(p.sign_agreement)}${mark(p, 'sign_agreement')} |`),
    '',
  ].join('\n');
  await writeFile(join(a.out, 'gate.md'), md);
  console.log(md);
}

const isMain = /(^|[\/])gate.ts$/.test(process.argv[1] ?? '');
if (isMain) main().catch((e) => { console.error(e instanceof Error ? e.message : e); process.exit(1); });
