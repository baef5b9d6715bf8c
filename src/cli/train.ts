// npm run train -- --config configs/NAME.json [--seed 1] [--out runs/NAME] [--model models/envace-small]
//                  [--world files] [--steps N] [--variant envace] [--resume]
// Writes metrics.jsonl (one line per step), evals.jsonl, checkpoints/, and the trained model folder.

import { mkdir, readFile, writeFile, appendFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadModelFolder, writeModelFolder } from '../engine/modelFolder';
import { nodeRuntime } from '../engine/runtime-node';
import { FileCheckpointStore } from '../rl/checkpoint-node';
import { ConfigError, makeTrainer, type RunSpec } from '../rl/session';
import type { EvalMetrics, GrpoTrainer } from '../rl/trainer';
import { arg, flag, progress } from './util';

export interface RunOptions {
  spec: RunSpec & { model?: string }; out: string; resume?: boolean; quiet?: boolean; label?: string;
  /** The step-0 evaluation when the caller already has it: greedy evaluation of the same starting model on
   * the same held-out tasks does not depend on the variant or the seed, so an ablation computes it once. */
  before?: EvalMetrics;
}
export interface RunResult { before: EvalMetrics; after: EvalMetrics; secondsPerStep: number; trainer: GrpoTrainer }

/** Runs one training run to completion (used by train and ablation). */
export async function runTraining(o: RunOptions): Promise<RunResult> {
  const modelDir = o.spec.model ?? 'models/envace-small';
  const folder = await loadModelFolder(modelDir);
  await mkdir(o.out, { recursive: true });
  const store = new FileCheckpointStore(join(o.out, 'checkpoints'));
  const log = (s: string) => { if (!o.quiet) process.stderr.write(s + '\n'); };
  const { model: _m, ...spec } = o.spec;
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
    bar.tick(`R ${m.reward.toFixed(3)} act ${m.rewardAct.toFixed(2)} reh ${m.rewardRehearse.toFixed(2)} F1 ${m.fidelityF1.toFixed(2)} ${m.secondsPerStep.toFixed(1)}s/step${m.skipped ? ' SKIPPED' : ''}`);
    if (c.evalEvery > 0 && trainer.step % c.evalEvery === 0 && trainer.step < c.steps) await evalLine();
  }
  bar.done();
  await trainer.saveCheckpoint();
  const after = trainer.evals.length && trainer.evals[trainer.evals.length - 1].step === trainer.step ? trainer.evals[trainer.evals.length - 1] : await evalLine();
  await trainer.saveCheckpoint();
  await writeModelFolder(join(o.out, 'model'), {
    config: folder.config, params: trainer.actParams(), tokenizer: folder.tokenizerJson,
    chatTemplate: folder.tokenizerConfig.chat_template as string | undefined,
    meta: { ...(folder.rawConfig.envace as object), rl: { variant: c.variant, seed: c.seed, steps: c.steps, from: modelDir } },
  });
  const h = trainer.history;
  const secondsPerStep = h.length ? h.reduce((s, m) => s + m.secondsPerStep, 0) / h.length : 0;
  return { before, after, secondsPerStep, trainer };
}

async function main() {
  const cfgPath = arg('config');
  let spec: RunSpec & { model?: string } = {};
  if (cfgPath) {
    try { spec = JSON.parse(await readFile(cfgPath, 'utf8')); } catch (e) {
      console.error(`cannot read config ${cfgPath}: ${(e as Error).message}`);
      process.exit(2);
    }
  }
  for (const k of ['seed', 'steps'] as const) if (arg(k) !== undefined) spec[k] = Number(arg(k));
  if (arg('variant')) spec.variant = arg('variant') as RunSpec['variant'];
  if (arg('world')) spec.world = arg('world');
  if (arg('model')) spec.model = arg('model');
  const out = arg('out') ?? join('runs', `${spec.variant ?? 'envace'}-${spec.seed ?? 1}`);
  try {
    const r = await runTraining({ spec, out, resume: flag('resume') });
    console.log(JSON.stringify({ out, before: r.before, after: r.after, secondsPerStep: Number(r.secondsPerStep.toFixed(2)) }, null, 2));
  } catch (e) {
    if (e instanceof ConfigError) { console.error(e.message); process.exit(2); }
    throw e;
  }
}

const isMain = /(^|[\/])train.ts$/.test(process.argv[1] ?? '');
if (isMain) main().catch((e) => { console.error(e); process.exit(1); });
