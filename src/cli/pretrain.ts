// npm run pretrain -- [--sizes tiny,small] [--worlds files,retail] [--tasks 600] [--steps 1500] [--seed 0]
//                     [--out models] [--eval 40] [--batch 16] [--lr 3e-3] [--vocab 1024]
// Supervised starter policies for both roles (Act tokens and Rehearse tokens) from the built-in worlds'
// reference conversations, written as model folders, then evaluated on held-out tasks in real and
// rehearsal mode. Deterministic from the seed.

import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { evaluate, type EvalResult } from '../agent/evaluate';
import { COMPACT_CHAT_TEMPLATE, PROTOCOL_TOKENS } from '../agent/chatTemplate';
import { rolloutSettings, TINY_PROFILE, type PromptProfile } from '../agent/profile';
import { sftExamples, type SftExample } from '../agent/sft';
import { countParams, makeConfig, type PresetName } from '../engine/decoder';
import { writeModelFolder, loadModelFolder } from '../engine/modelFolder';
import { Rng } from '../engine/rng';
import { nodeRuntime } from '../engine/runtime-node';
import { samplerFromFolder } from '../engine/sampler';
import { BPETokenizer, DEFAULT_SPECIAL_TOKENS, trainBPE } from '../engine/tokenizer';
import { Model, makeLmBatch } from '../engine/trainer-core';
import { getWorld } from '../envs/worlds/index';
import type { Task } from '../envs/types';
import { arg, flag, progress } from './util';

const sizes = (arg('sizes') ?? 'tiny,small').split(',') as PresetName[];
const worlds = (arg('worlds') ?? 'files,retail').split(',');
const nTasks = Number(arg('tasks') ?? 600);
const steps = Number(arg('steps') ?? 1500);
const seed = Number(arg('seed') ?? 0);
const outDir = arg('out') ?? 'models';
const nEval = Number(arg('eval') ?? 40);
const batchSize = Number(arg('batch') ?? 16);
const peakLr = Number(arg('lr') ?? 3e-3);
const vocab = Number(arg('vocab') ?? 1024);
const maxContext = Number(arg('context') ?? 1024);
const prefix = arg('prefix') ?? 'envace';
// Continue from an existing folder (its tokenizer and weights; optimizer moments start fresh).
const initDir = arg('init');
const BUCKETS = [128, 256, 512, 1024, 2048].filter((b) => b <= maxContext);

const profile: PromptProfile = { ...TINY_PROFILE, rehearse: { ...TINY_PROFILE.rehearse, maxNewTokens: 320 } };

async function main() {
  const log = (s: string) => process.stderr.write(s + '\n');
  const trainTasks = worlds.flatMap((w) => getWorld(w).tasks({ split: 'train', count: nTasks }));
  const testTasks = worlds.flatMap((w) => getWorld(w).tasks({ split: 'test', count: nEval }));
  log(`worlds ${worlds.join(',')}: ${trainTasks.length} train tasks, ${testTasks.length} held-out tasks`);

  // Pass 1 (character-count budget) gives the tokenizer corpus.
  const init = initDir ? await loadModelFolder(initDir) : undefined;
  const tokJson = init ? init.tokenizerJson : trainBPE((await sftExamples(trainTasks, { rollout: rolloutSettings(profile) })).examples.map((e) => e.prompt + e.target),
    { vocabSize: vocab, specialTokens: DEFAULT_SPECIAL_TOKENS, addedTokens: PROTOCOL_TOKENS });
  const tok = new BPETokenizer(tokJson);
  log(`tokenizer: ${tok.vocabSize} tokens`);

  // Pass 2 with the real token budget: the prompts the model will actually see at this context size.
  const { examples, incomplete } = await sftExamples(trainTasks, { rollout: rolloutSettings(profile), maxContext, countTokens: (s) => tok.encode(s).length });
  const rows = tokenize(examples, tok, maxContext);
  const acts = rows.filter((r) => r.role === 'act').length;
  log(`examples: ${rows.length} (${acts} act, ${rows.length - acts} rehearse), ${examples.length - rows.length} over ${maxContext} tokens dropped, ${incomplete.length} tasks cut by the context`);

  const summary: Record<string, unknown> = {};
  for (const size of sizes) {
    const name = `${prefix}-${size}`;
    const cfg = init ? init.config : makeConfig(size, { vocab_size: tok.vocabSize, max_position_embeddings: maxContext });
    const model = new Model(cfg, nodeRuntime(), init?.params, { seed, adam: { weightDecay: 0.01, maxGradNorm: 1 } });
    const priorSteps = Number((init?.rawConfig.envace as { steps?: number } | undefined)?.steps ?? 0);
    log(`\n${name}: ${countParams(cfg)} parameters, ${steps} steps of ${batchSize} rows`);
    const rng = new Rng(seed + 17);
    const bar = progress(steps, name);
    const t0 = Date.now();
    let ema = NaN;
    const curve: { step: number; loss: number }[] = [];
    for (let s = 0; s < steps; s++) {
      // Rows of similar length share a batch, so short rows don't pay for the longest one's padding.
      const anchor = rows[rng.int(rows.length)];
      const T = bucket(anchor.ids.length);
      const pool = rows.filter((r) => bucket(r.ids.length) === T);
      const pick = Array.from({ length: batchSize }, () => pool[rng.int(pool.length)]);
      const batch = makeLmBatch(pick.map((r) => r.ids), T, { pad: 0, weights: pick.map((r) => r.weights) });
      const lr = peakLr * schedule(s, steps);
      const r = await model.trainStep(batch, { lr });
      ema = Number.isNaN(ema) ? r.loss : 0.95 * ema + 0.05 * r.loss;
      if (s % 10 === 0 || s === steps - 1) curve.push({ step: s, loss: r.loss });
      bar.tick(`loss ${ema.toFixed(3)} T=${T}`);
    }
    bar.done();
    const secs = (Date.now() - t0) / 1000;
    const dir = join(outDir, name);
    await writeModelFolder(dir, {
      config: cfg, params: model.params, tokenizer: tokJson, chatTemplate: COMPACT_CHAT_TEMPLATE,
      meta: { size, seed, steps: priorSteps + steps, init: initDir, batch: batchSize, lr: peakLr, worlds, trainTasks: trainTasks.length, examples: rows.length, finalLoss: ema, trainSeconds: Math.round(secs), profile },
    });
    const evals = await evaluateFolder(dir, testTasks, log);
    await writeFile(join(dir, 'eval.json'), JSON.stringify({ heldOutTasks: testTasks.length, curve, evals }, null, 2) + '\n');
    summary[name] = { params: countParams(cfg), finalLoss: Number(ema.toFixed(4)), trainSeconds: Math.round(secs), evals };
  }
  console.log(JSON.stringify(summary, null, 2));
}

interface TokRow { role: string; ids: number[]; weights: number[] }

/** Prompt tokens are context (weight 0); target tokens are learned (weight 1), in both roles. */
function tokenize(examples: SftExample[], tok: BPETokenizer, maxContext: number): TokRow[] {
  const out: TokRow[] = [];
  for (const e of examples) {
    const p = tok.encode(e.prompt), t = tok.encode(e.target);
    const ids = [...p, ...t];
    if (ids.length > maxContext) continue;
    out.push({ role: e.role, ids, weights: [...p.map(() => 0), ...t.map(() => 1)] });
  }
  return out;
}

function bucket(n: number): number { return BUCKETS.find((b) => b >= n) ?? BUCKETS[BUCKETS.length - 1]; }

/** Linear warm-up over 5% of the steps, then cosine decay to 10% of the peak. */
function schedule(s: number, total: number): number {
  const warm = Math.max(1, Math.floor(total * 0.05));
  if (s < warm) return (s + 1) / warm;
  const p = (s - warm) / Math.max(1, total - warm);
  return 0.1 + 0.9 * 0.5 * (1 + Math.cos(Math.PI * p));
}

/** Greedy held-out evaluation, per world, in real and in rehearsal mode. */
export async function evaluateFolder(dir: string, tasks: Task[], log: (s: string) => void) {
  const folder = await loadModelFolder(dir);
  const sampler = await samplerFromFolder(folder, nodeRuntime());
  const out: Record<string, Record<string, EvalResult>> = {};
  for (const w of [...new Set(tasks.map((t) => t.world))]) {
    const ts = tasks.filter((t) => t.world === w);
    out[w] = {};
    for (const mode of ['real', 'rehearsal'] as const) {
      const { result } = await evaluate(ts, sampler, { mode, rollout: rolloutSettings(profile) });
      out[w][mode] = result;
      log(`  ${w} ${mode}: success ${(100 * result.success).toFixed(1)}%  checklist ${result.checklist.toFixed(3)}  fidelity exact ${(100 * result.fidelity.exactRate).toFixed(1)}% F1 ${result.fidelity.meanF1.toFixed(3)} (${result.fidelity.calls} calls)`);
    }
  }
  await sampler.release();
  return out;
}

if (!flag('no-run')) main().catch((e) => { console.error(e); process.exit(1); });
