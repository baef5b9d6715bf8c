// npm run mechanism -- --out runs/ablation-powered-files [--probes 64] [--eval-tasks 32] [--act-tasks 30]
//                      [--agreement-tasks 16] [--agreement-k 4] [--results docs/results/ablation-powered-files]
// The mechanism of an ablation (issue 20 §2, src/bench/mechanism.ts): the starting model and every trained run in
// --out, each from its final checkpoint, measured alike: rehearsal fidelity (recall, inference, hints off, on the
// policy's own path), teacher-forced Act accuracy, the simulator gate's figures, success. One JSON per run
// (mechanism.json in its folder, and MECHANISM-VARIANT-seedS.json under --results), skipped on a rerun; then a
// table of each variant's changes. `npm run ablation -- … --summary-only` puts them into summary.json.

import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { profileFromConfig, rolloutSettings } from '../agent/profile';
import { measureAgreement } from '../bench/agreement';
import { teacherForcedActAccuracy } from '../bench/act-accuracy';
import { MECHANISM_FORMAT, mechanismMarkdown, mechanismRows, type MechanismMeasure, type MechanismOptions, type MechanismRecord } from '../bench/mechanism';
import { loadModelFolder } from '../engine/modelFolder';
import { createNodeRuntime, nodeRuntime } from '../engine/runtime-node';
import { samplerFromFolder } from '../engine/sampler';
import { getWorld } from '../envs/worlds/index';
import { VARIANTS } from '../rl/advantages';
import { FileCheckpointStore } from '../rl/checkpoint-node';
import { makeTrainer, type RunSpec } from '../rl/session';
import { BASE, folderResults, MECHANISM_FILE, MECHANISM_START, readMechanism, restoreFromResults, runFolder } from './ablation';
import { cliArgs, defineCli } from './args';

export const MECHANISM_CLI = defineCli({
  name: 'mechanism',
  summary: "Fidelity, Act accuracy and agreement of an ablation's starting model and of every trained run's end, measured alike.",
  options: {
    out: { type: 'string', help: 'the ablation folder (npm run ablation --out)', required: true },
    probes: { type: 'int', help: 'fidelity probes (recall and inference, hints on and off; selection seed 0)', default: 64, min: 1 },
    'eval-tasks': { type: 'int', help: 'evaluation tasks (test split, greedy) for success and on-path fidelity', default: 32, min: 1 },
    'act-tasks': { type: 'int', help: 'test tasks for teacher-forced Act accuracy', default: 30, min: 1 },
    'agreement-tasks': { type: 'int', help: 'train tasks for the agreement figures (0 = none)', default: 16, min: 0 },
    'agreement-k': { type: 'int', help: 'rollouts per task and mode for the agreement figures', default: 4, min: 2 },
    results: { type: 'string', help: 'also write each record here as mechanism-VARIANT-seedS.json' },
  },
});

/**
 * The starting model (runDir null), a run's final checkpoint, or an imported run's model folder (`npm run ablation
 * --import`: no checkpoint; a shared-model variant's one folder holds both roles), measured.
 */
async function measure(spec: RunSpec & { model: string }, runDir: string | null, o: MechanismOptions, imported?: string): Promise<MechanismMeasure> {
  const separate = (VARIANTS as Record<string, { models?: string }>)[spec.variant ?? '']?.models === 'per-role';
  if (imported && separate) throw new Error(`${imported}: an imported per-role run has no checkpoint with its Rehearse model`);
  const folder = await loadModelFolder(imported ?? spec.model);
  const { model: _m, ...rest } = spec;
  const trainer = makeTrainer(folder, nodeRuntime(), { ...rest, evalProbes: o.probes, evalTasks: o.evalTasks, evalK: 1 }, {
    runId: 'run', ...(runDir && !imported ? { store: new FileCheckpointStore(join(runDir, 'checkpoints')) } : {}),
  });
  if (runDir && !imported && !(await trainer.resume())) throw new Error(`${runDir}: no checkpoint to measure`);
  const e = await trainer.evaluate();
  // The Act role is the exported model (every variant); its Rehearse role is the same weights except for per-role.
  const act = imported ? folder : runDir ? await loadModelFolder(join(runDir, 'model')) : folder;
  const settings = rolloutSettings(profileFromConfig(act.rawConfig));
  const gen = await samplerFromFolder(act, createNodeRuntime({ threads: 1 }), { mode: 'fast' });
  try {
    const world = getWorld(spec.world ?? 'files');
    const acc = await teacherForcedActAccuracy(world.tasks({ split: 'test', count: o.actTasks }), gen, settings);
    const agree = o.agreementTasks > 0 && !(runDir && separate)
      ? await measureAgreement(world.tasks({ split: 'train', count: o.agreementTasks }), gen, { k: o.agreementK, temperature: 1, seed: 0, probes: 0, rollout: settings })
      : null;
    return {
      success: e.success, fidelityF1: e.fidelityF1, recallF1: e.recallF1 ?? null, inferenceF1: e.inferenceF1 ?? null, noHintsF1: e.noHintsF1 ?? null,
      actExact: acc.exact, actTurns: acc.turns,
      agreement: agree ? {
        reward_gap: agree.reward_gap.mean, task_correlation: agree.task_correlation.mean, sign_agreement: agree.sign_agreement.mean,
        error_agreement: agree.error_agreement.mean, parse_error_rate: agree.parse_error_rate.mean,
      } : null,
    };
  } finally {
    await gen.release();
  }
}

async function main() {
  const a = cliArgs(MECHANISM_CLI);
  const o: MechanismOptions = { probes: a.probes, evalTasks: a['eval-tasks'], actTasks: a['act-tasks'], agreementTasks: a['agreement-tasks'], agreementK: a['agreement-k'] };
  // Runs finished on another machine are known from the results folder (their records included).
  if (a.results) await restoreFromResults(a.out, a.results);
  const runs = (await folderResults(a.out)).filter((r) => r.realFraction === undefined);
  const trained = runs.filter((r) => r.variant !== BASE);
  if (!trained.length) throw new Error(`${a.out}: no finished trained run (result.json) to measure`);
  if (a.results) await mkdir(a.results, { recursive: true });
  const save = async (dir: string, r: MechanismRecord) => {
    const text = JSON.stringify(r, null, 1) + '\n';
    await writeFile(join(dir, r.variant === 'start' ? MECHANISM_START : MECHANISM_FILE), text);
    if (a.results) await writeFile(join(a.results, `mechanism-${r.variant}-seed${r.seed}.json`), text);
  };
  // config.json is the run's spec as given, plus the trainer's resolved config (which is derived, not an input).
  const specOf = async (dir: string) => {
    if (!existsSync(join(dir, 'config.json'))) throw new Error(`${dir}: no config.json, so nothing to measure (a run restored from --results keeps its result, not its model); measure it where it was trained`);
    const { resolved: _r, ...spec } = JSON.parse(await readFile(join(dir, 'config.json'), 'utf8')) as RunSpec & { model: string; resolved?: unknown };
    return spec;
  };
  const record = async (variant: string, seed: number, step: number, spec: RunSpec & { model: string }, runDir: string | null, imported?: string) => {
    const t0 = process.cpuUsage();
    process.stderr.write(`${variant} seed ${seed}: measuring…\n`);
    const m = await measure(spec, runDir, o, imported);
    const u = process.cpuUsage(t0);
    return { format: MECHANISM_FORMAT, variant, seed, step, options: o, measure: m, cpuSeconds: Math.round((u.user + u.system) / 1e6) } as MechanismRecord;
  };
  // A run restored from --results without its record has no model here to measure: it is left out, and said so.
  const measurable = (r: { variant: string; seed: number }) => existsSync(join(runFolder(a.out, r.variant, r.seed), 'config.json'));
  let start = await readMechanism(join(a.out, MECHANISM_START), o);
  if (!start) {
    const first = trained.find(measurable);
    if (!first) throw new Error(`${a.out}: no trained run with its config.json here to measure the starting model from`);
    await save(a.out, (start = await record('start', 0, 0, await specOf(runFolder(a.out, first.variant, first.seed)), null)));
  }
  const ends: MechanismRecord[] = [];
  for (const r of trained) {
    const dir = runFolder(a.out, r.variant, r.seed);
    let m = await readMechanism(join(dir, MECHANISM_FILE), o);
    if (!m && !measurable(r)) {
      process.stderr.write(`${r.variant} seed ${r.seed}: not measured (its result came from --results without its model or a mechanism record)\n`);
      continue;
    }
    if (!m) await save(dir, (m = await record(r.variant, r.seed, r.steps, await specOf(dir), dir, r.imported)));
    ends.push(m);
  }
  const baseOf = (seed: number) => runs.find((r) => r.variant === BASE && r.seed === seed);
  const rows = mechanismRows(start.measure, ends.map((m) => {
    const run = trained.find((r) => r.variant === m.variant && r.seed === m.seed)!;
    const b = baseOf(m.seed);
    return { variant: m.variant, seed: m.seed, measure: m.measure, dHeldOut: b ? run.report.success.mean - b.report.success.mean : null };
  }));
  const md = mechanismMarkdown(start.measure, rows, o);
  await writeFile(join(a.out, 'mechanism.md'), md);
  console.log(md);
}

const isMain = /(^|[\/])mechanism.ts$/.test(process.argv[1] ?? '');
if (isMain) main().catch((e) => { console.error(e); process.exit(1); });
