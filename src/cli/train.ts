// npm run train -- [--config configs/NAME.json] [--seed 1] [--steps N] [--variant envace] [--world files]
//                  [--model models/envace-small] [--out runs/NAME] [--error-reward R] [--judge-on J] [--resume]
// Flags override the config file. Writes metrics.jsonl (one line per step), evals.jsonl, checkpoints/, and
// the trained model folder.

import { mkdir, readFile, writeFile, appendFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ERROR_REWARDS, JUDGE_ON } from '../agent/rollout';
import { loadModelFolder, writeModelFolder } from '../engine/modelFolder';
import { nodeRuntime } from '../engine/runtime-node';
import { getWorld, worldNames } from '../envs/worlds/index';
import { profileFromConfig, rolloutSettings } from '../agent/profile';
import { samplerFromFolder } from '../engine/sampler';
import type { ModelFolder } from '../engine/modelFolder';
import { screenTasks, type ScreenResult } from '../rl/screen';
import { DEFAULT_TRAIN_CONFIG } from '../rl/trainer';
import { VARIANT_NAMES } from '../rl/advantages';
import { FileCheckpointStore } from '../rl/checkpoint-node';
import { ConfigError, makeTrainer, type RunSpec } from '../rl/session';
import type { EvalMetrics, GrpoTrainer } from '../rl/trainer';
import { cliArgs, defineCli, type CliValues } from './args';
import { progress } from './util';

export const TRAIN_CLI = defineCli({
  name: 'train',
  summary: 'Role-Wise GRPO training of a model folder on a built-in world (flags override the --config file).',
  options: {
    config: { type: 'string', help: 'JSON training config (TrainConfig fields, plus model and world)' },
    model: { type: 'string', help: 'starting model folder (default: the config\'s, else models/envace-small)' },
    world: { type: 'string', help: 'built-in world', choices: worldNames() },
    variant: { type: 'string', help: 'training variant', choices: VARIANT_NAMES },
    seed: { type: 'int', help: 'run seed', min: 0 },
    steps: { type: 'int', help: 'training steps', min: 0 },
    'error-reward': { type: 'string', help: 'reward of an episode a fatal error ended', choices: ERROR_REWARDS },
    'judge-on': { type: 'string', help: 'what the checklist judge reads in imagined rollouts', choices: JUDGE_ON },
    'real-fraction': { type: 'number', help: 'share of training tool calls executed in the real environment instead of rehearsed (0 = EnvACE, 1 = real)', min: 0, max: 1 },
    lr: { type: 'number', help: 'learning rate', min: 0 },
    'eval-every': { type: 'int', help: 'evaluate every this many steps (0 = only before and after)', min: 0 },
    screen: { type: 'int', help: 'screen this many train tasks first (K rollouts each, real environment) and train only on the frontier ones (rewards differ); written to OUT/screen.json', min: 1 },
    'screen-k': { type: 'int', help: 'rollouts per task when screening', default: 4, min: 2 },
    out: { type: 'string', help: 'output folder (default runs/<variant>-<seed>)' },
    resume: { type: 'boolean', help: 'continue from the checkpoint in --out' },
  },
});

/** The run spec the arguments describe: the config file's, then each flag given on top. */
export function specFromArgs(base: RunSpec & { model?: string }, a: CliValues<typeof TRAIN_CLI.options>): RunSpec & { model?: string } {
  const spec = { ...base };
  if (a.seed !== undefined) spec.seed = a.seed;
  if (a.steps !== undefined) spec.steps = a.steps;
  if (a.variant !== undefined) spec.variant = a.variant as RunSpec['variant'];
  if (a.world !== undefined) spec.world = a.world;
  if (a.model !== undefined) spec.model = a.model;
  if (a['error-reward'] !== undefined) spec.errorReward = a['error-reward'] as RunSpec['errorReward'];
  if (a['judge-on'] !== undefined) spec.judgeOn = a['judge-on'] as RunSpec['judgeOn'];
  if (a['real-fraction'] !== undefined) spec.realFraction = a['real-fraction'];
  if (a.lr !== undefined) spec.lr = a.lr;
  if (a['eval-every'] !== undefined) spec.evalEvery = a['eval-every'];
  return spec;
}

export interface RunOptions {
  spec: RunSpec & { model?: string }; out: string; resume?: boolean; quiet?: boolean; label?: string;
  /** The step-0 evaluation when the caller already has it: greedy evaluation of the same starting model on
   * the same held-out tasks does not depend on the variant or the seed, so an ablation computes it once. */
  before?: EvalMetrics;
  /** Screen this many train tasks (k rollouts each) and train on the frontier ones (src/rl/screen.ts). */
  screen?: { candidates: number; k: number };
}
export interface RunResult { before: EvalMetrics; after: EvalMetrics; secondsPerStep: number; trainer: GrpoTrainer; cpuMinutes: number }

/** CPU-minutes of this process since `from` (all threads; a resumed run counts only its own part). */
const cpuMinutes = (from: NodeJS.CpuUsage) => { const u = process.cpuUsage(from); return Number(((u.user + u.system) / 60e6).toFixed(2)); };

/** Runs one training run to completion (used by train and ablation). */
export async function runTraining(o: RunOptions): Promise<RunResult> {
  const modelDir = o.spec.model ?? 'models/envace-small';
  const cpu0 = process.cpuUsage();
  const folder = await loadModelFolder(modelDir);
  await mkdir(o.out, { recursive: true });
  const store = new FileCheckpointStore(join(o.out, 'checkpoints'));
  const log = (s: string) => { if (!o.quiet) process.stderr.write(s + '\n'); };
  const { model: _m, ...spec } = o.spec;
  if (o.screen) spec.poolSeeds = await screenedPool(folder, spec, o.screen, o.out, log);
  const trainer = makeTrainer(folder, nodeRuntime(), spec, { runId: 'run', store, log });
  const c = trainer.cfg;
  let resumed = false;
  if (o.resume) resumed = await trainer.resume();
  if (!resumed) {
    await writeFile(join(o.out, 'config.json'), JSON.stringify({ model: modelDir, ...o.spec, resolved: c }, null, 2) + '\n');
    await writeFile(join(o.out, 'metrics.jsonl'), '');
    await writeFile(join(o.out, 'evals.jsonl'), '');
  } else log(`resumed at step ${trainer.step}`);
  const evalLine = async () => {
    const e = await trainer.evaluate();
    await appendFile(join(o.out, 'evals.jsonl'), JSON.stringify(e) + '\n');
    log(`  eval @${e.step}: success ${(100 * e.success).toFixed(1)}% checklist ${e.checklist.toFixed(3)} fidelity F1 ${e.fidelityF1.toFixed(3)} exact ${(100 * e.fidelityExact).toFixed(1)}%`);
    return e;
  };
  let before = trainer.evals.find((e) => e.step === 0);
  if (!before && o.before) {
    before = o.before;
    trainer.evals.push(before);
    await appendFile(join(o.out, 'evals.jsonl'), JSON.stringify(before) + '\n');
  }
  before ??= await evalLine();
  const bar = progress(c.steps - trainer.step, o.label ?? `${c.variant} seed ${c.seed}`);
  while (trainer.step < c.steps) {
    const m = await trainer.trainStep();
    await appendFile(join(o.out, 'metrics.jsonl'), JSON.stringify(m) + '\n');
    bar.tick(`R ${m.reward.toFixed(3)} inf ${m.informativeGroups}/${m.groups} act ${m.rewardAct.toFixed(2)} reh ${m.rewardRehearse.toFixed(2)} F1 ${m.fidelityF1.toFixed(2)} ${m.secondsPerStep.toFixed(1)}s/step${m.skipped ? ' SKIPPED' : ''}`);
    if (c.evalEvery > 0 && trainer.step % c.evalEvery === 0 && trainer.step < c.steps) await evalLine();
  }
  bar.done();
  await trainer.saveCheckpoint();
  const after = trainer.evals.length && trainer.evals[trainer.evals.length - 1].step === trainer.step ? trainer.evals[trainer.evals.length - 1] : await evalLine();
  await trainer.saveCheckpoint();
  await writeModelFolder(join(o.out, 'model'), {
    config: folder.config, params: trainer.actParams(), tokenizer: folder.tokenizerJson,
    chatTemplate: folder.tokenizerConfig.chat_template as string | undefined,
    meta: { ...(folder.rawConfig.envace as object), rl: { variant: c.variant, seed: c.seed, steps: c.steps, from: modelDir, config: c, cpuMinutes: cpuMinutes(cpu0) } },
  });
  const h = trainer.history;
  const secondsPerStep = h.length ? h.reduce((s, m) => s + m.secondsPerStep, 0) / h.length : 0;
  return { before, after, secondsPerStep, trainer, cpuMinutes: cpuMinutes(cpu0) };
}

/**
 * The frontier seeds of the run's pool: read from OUT/screen.json when a screening with the same settings is
 * there (a resumed run trains on the same pool), else computed with the starting model and written there.
 */
async function screenedPool(folder: ModelFolder, spec: RunSpec, o: { candidates: number; k: number }, out: string, log: (s: string) => void): Promise<number[]> {
  const path = join(out, 'screen.json');
  const world = getWorld(spec.world ?? 'files');
  const cfg = { ...DEFAULT_TRAIN_CONFIG, ...spec };
  const seeds = world.seeds({ split: 'train', difficulty: spec.difficulty, count: o.candidates });
  const prior = await readFile(path, 'utf8').then((t) => JSON.parse(t) as ScreenFile, () => null);
  if (prior && prior.candidates === o.candidates && prior.k === o.k && prior.seed === cfg.seed && prior.temperature === cfg.temperature && prior.world === world.name) {
    log(`screened pool from ${path}: ${prior.keptSeeds.length} of ${prior.candidates} tasks`);
    return prior.keptSeeds;
  }
  const policy = await samplerFromFolder(folder, nodeRuntime(), { mode: 'fast' });
  const bar = progress(seeds.length, `screen ${world.name}`);
  let shown = 0;
  try {
    const tasks = seeds.map((s) => world.task(s));
    const r = await screenTasks(tasks, policy, {
      k: o.k, temperature: cfg.temperature, seed: cfg.seed,
      rollout: { ...rolloutSettings(profileFromConfig(folder.rawConfig)), errorReward: cfg.errorReward },
      onProgress: (done) => { while (shown < done) { shown++; bar.tick(); } },
    });
    const kept = new Set(r.kept);
    const keptSeeds = seeds.filter((_, i) => kept.has(tasks[i].id));
    if (keptSeeds.length === 0) throw new Error(`screening kept none of ${seeds.length} tasks: every group's rewards were equal`);
    const file: ScreenFile = { world: world.name, ...r, keptSeeds };
    await writeFile(path, JSON.stringify(file, null, 1) + '\n');
    log(`screened ${seeds.length} tasks in ${r.seconds.toFixed(0)} s: ${keptSeeds.length} on the frontier`);
    return keptSeeds;
  } finally {
    bar.done();
    await policy.release();
  }
}

type ScreenFile = ScreenResult & { world: string; keptSeeds: number[] };

async function main() {
  const a = cliArgs(TRAIN_CLI);
  let base: RunSpec & { model?: string } = {};
  if (a.config) {
    try { base = JSON.parse(await readFile(a.config, 'utf8')); } catch (e) {
      console.error(`cannot read config ${a.config}: ${(e as Error).message}`);
      process.exit(2);
    }
  }
  const spec = specFromArgs(base, a);
  const out = a.out ?? join('runs', `${spec.variant ?? 'envace'}-${spec.seed ?? 1}`);
  try {
    const r = await runTraining({ spec, out, resume: a.resume, screen: a.screen ? { candidates: a.screen, k: a['screen-k'] } : undefined });
    console.log(JSON.stringify({ out, before: r.before, after: r.after, secondsPerStep: Number(r.secondsPerStep.toFixed(2)), cpuMinutes: r.cpuMinutes }, null, 2));
  } catch (e) {
    if (e instanceof ConfigError) { console.error(e.message); process.exit(2); }
    throw e;
  }
}

const isMain = /(^|[\/])train.ts$/.test(process.argv[1] ?? '');
if (isMain) main().catch((e) => { console.error(e); process.exit(1); });
