// npm run fidelity -- --model DIR --world files|retail [--probes N] [--seed S] [--hints on|off|both] [--json]
//
// Rehearsal fidelity on the world's fixed probe set (src/bench/fidelity-probe.ts): exact match, field F1
// and error agreement for recall and inference probes, per tool and overall, with the Rehearse prompt's
// hints on and off. Greedy unless --temperature is given. Progress on stderr; --json prints one object.

import { formatForTokenizerConfig } from '../agent/chatTemplate';
import { profileFromConfig } from '../agent/profile';
import { PROBE_COUNT, PROBE_POOL_TASKS, runFidelityProbe, worldProbeSet, type ConditionJson, type StatsJson } from '../bench/fidelity-probe';
import { loadModelFolder } from '../engine/modelFolder';
import { nodeRuntime } from '../engine/runtime-node';
import { samplerFromFolder } from '../engine/sampler';
import { worldNames } from '../envs/worlds/index';
import { cliArgs, defineCli } from './args';
import { progress } from './util';

const def = defineCli({
  name: 'fidelity',
  summary: 'Rehearse-role fidelity on a fixed probe set of held-out expert calls, split into recall and inference probes.',
  options: {
    model: { type: 'string', help: 'model folder', required: true },
    world: { type: 'string', help: 'built-in world', choices: worldNames(), default: 'files' },
    probes: { type: 'int', help: 'probes to select (half recall, half inference where the pool allows)', default: PROBE_COUNT, min: 1 },
    tasks: { type: 'int', help: 'held-out tasks the probes are drawn from', default: PROBE_POOL_TASKS, min: 1 },
    seed: { type: 'int', help: 'probe selection and sampling seed', default: 0, min: 0 },
    hints: { type: 'string', help: 'Rehearse prompt hints', choices: ['on', 'off', 'both'], default: 'both' },
    temperature: { type: 'number', help: 'sampling temperature (0 = greedy)', default: 0, min: 0 },
    'top-p': { type: 'number', help: 'nucleus sampling', default: 1, min: 0, max: 1 },
    'rehearse-tokens': { type: 'int', help: "Rehearse token budget (default: the model's profile)", min: 1 },
    batch: { type: 'int', help: 'prompts per generate() call', default: 32, min: 1 },
    results: { type: 'boolean', help: 'include every probe result (imagined text, fidelity) in the JSON' },
    json: { type: 'boolean', help: 'print one JSON object on stdout' },
  },
});

function pct(x: number | null): string { return x === null ? '   –  ' : `${(100 * x).toFixed(1).padStart(5)}%`; }
function f1(x: number | null): string { return x === null ? '  –  ' : x.toFixed(3); }
function line(name: string, s: StatsJson): string {
  return `  ${name.padEnd(30)} n ${String(s.n).padStart(4)}  exact ${pct(s.exact)}  F1 ${f1(s.field_f1)}  error agree ${pct(s.error_agree)}`;
}
function printCondition(title: string, c: ConditionJson): void {
  const out = (s: string) => process.stdout.write(`${s}\n`);
  out(title);
  for (const k of ['overall', 'recall', 'inference'] as const) {
    out(line(k, c[k]));
    if (k !== 'overall') for (const [tool, s] of Object.entries(c[k].per_tool)) out(line(`  ${tool}`, s));
  }
}

async function main(): Promise<void> {
  const a = cliArgs(def);
  const t0 = Date.now();
  const folder = await loadModelFolder(a.model);
  const profile = profileFromConfig(folder.rawConfig);
  const format = formatForTokenizerConfig(folder.tokenizerConfig);
  const gen = await samplerFromFolder(folder, nodeRuntime(), { name: 'rehearse' });
  try {
    const set = await worldProbeSet({
      world: a.world, profile, format, maxContext: gen.maxContext, countTokens: (s) => gen.countTokens(s),
      seed: a.seed, count: a.probes, poolTasks: a.tasks,
    });
    const conds = a.hints === 'both' ? 2 : 1;
    const bar = progress(conds * set.probes.length, `fidelity ${a.world}`);
    let shown = 0;
    const report = await runFidelityProbe(gen, set, {
      hints: a.hints as 'on' | 'off' | 'both', maxNewTokens: a['rehearse-tokens'] ?? profile.rehearse.maxNewTokens ?? 256,
      temperature: a.temperature, topP: a['top-p'], seed: a.seed, format, batchSize: a.batch,
      onProgress: (done) => { while (shown < done) { shown++; bar.tick(); } },
    });
    bar.done();
    const seconds = Math.round((Date.now() - t0) / 100) / 10;
    const { results, ...summary } = report;
    const body = { model: a.model, ...summary, ...(a.results ? { results } : {}), seconds };
    if (a.json) { process.stdout.write(`${JSON.stringify(body, null, 2)}\n`); return; }
    const p = report.probes;
    process.stdout.write(`${a.model} on ${a.world}: ${p.n} probes (${p.recall} recall, ${p.inference} inference; pool ${p.pool.calls} calls of ${p.pool.tasks} held-out tasks: ${p.pool.recall} recall / ${p.pool.inference} inference), set ${p.fingerprint}\n`);
    if (report.hints_on) printCondition('hints on (the rollout prompt)', report.hints_on);
    if (report.hints_off) printCondition('hints off', report.hints_off);
    printCondition('copying the first shown hint (no model)', report.copy_first_hint);
    if (report.hints_effect) {
      const fmt = (e: { mean: number; ci95: [number, number] } | null) => (e ? `${e.mean.toFixed(3)} [${e.ci95[0].toFixed(3)}, ${e.ci95[1].toFixed(3)}]` : '–');
      const h = report.hints_effect;
      process.stdout.write(`what the hints add (field F1, on − off, 95% CI over tasks): overall ${fmt(h.overall)}; recall ${fmt(h.recall)}; inference ${fmt(h.inference)}\n`);
    }
    process.stdout.write(`(${seconds} s)\n`);
  } finally {
    await gen.release();
  }
}

main().catch((e) => {
  process.stderr.write(`fidelity: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
