// npm run pretrain -- [--sizes tiny,small] [--worlds files,retail] [--tasks 600] [--steps 1500] [--seed 0]
//                     [--out models] [--eval 40] [--batch 16] [--lr 3e-3] [--vocab 1024] [--batching packed|padded]
// Supervised starter policies for both roles (Act tokens and Rehearse tokens) from the built-in worlds'
// reference conversations, written as model folders, then evaluated on held-out tasks in real and
// rehearsal mode. Deterministic from the seed. Each step's rows are packed (engine/packing.ts: shared
// prompt prefixes computed once, no padding between rows; same loss and gradients as `--batching padded`,
// the padded-bucket batches of before; `npm run bench:sft` compares the two).

import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { evaluate, type EvalResult } from '../agent/evaluate';
import { COMPACT_CHAT_TEMPLATE, PROTOCOL_TOKENS } from '../agent/chatTemplate';
import { rolloutSettings } from '../agent/profile';
import { sftExamples } from '../agent/sft';
import { packedSftBatches, pickSftRows, referenceSftBatch, SFT_PROFILE, sftBuckets, sftTokenRows } from '../bench/sft-reference';
import { countParams, makeConfig, type PresetName } from '../engine/decoder';
import { writeModelFolder, loadModelFolder } from '../engine/modelFolder';
import { modelDims } from '../engine/packing';
import { Rng } from '../engine/rng';
import { nodeRuntime } from '../engine/runtime-node';
import { samplerFromFolder } from '../engine/sampler';
import { BPETokenizer, DEFAULT_SPECIAL_TOKENS, trainBPE } from '../engine/tokenizer';
import { Model } from '../engine/trainer-core';
import { getWorld } from '../envs/worlds/index';
import type { Task } from '../envs/types';
import { cliArgs, defineCli } from './args';
import { progress } from './util';

const cli = defineCli({
  name: 'pretrain',
  summary: 'Supervised starter policies (Act and Rehearse tokens) from the built-in worlds, written as model folders and evaluated.',
  options: {
    sizes: { type: 'list', help: 'model presets', default: ['tiny', 'small'], choices: ['tiny', 'small', 'base'] },
    worlds: { type: 'list', help: 'worlds', default: ['files', 'retail'] },
    tasks: { type: 'int', help: 'train tasks per world', default: 600, min: 1 },
    steps: { type: 'int', help: 'optimizer steps', default: 1500, min: 0 },
    seed: { type: 'int', help: 'seed', default: 0 },
    out: { type: 'string', help: 'output folder', default: 'models' },
    eval: { type: 'int', help: 'held-out tasks per world', default: 40, min: 0 },
    batch: { type: 'int', help: 'rows per step', default: 16, min: 1 },
    lr: { type: 'number', help: 'peak learning rate', default: 3e-3, min: 0 },
    vocab: { type: 'int', help: 'tokenizer vocabulary', default: 1024, min: 64 },
    context: { type: 'int', help: 'context size (tokens)', default: 1024, min: 32 },
    prefix: { type: 'string', help: 'folder name prefix', default: 'envace' },
    init: { type: 'string', help: 'continue from this folder (its tokenizer and weights; optimizer moments start fresh)' },
    batching: { type: 'string', help: 'packed rows, or padded length buckets (the reference)', default: 'packed', choices: ['packed', 'padded'] },
    'no-run': { type: 'boolean', help: 'parse only' },
  },
});

const args = cliArgs(cli);
const sizes = args.sizes as PresetName[];
const worlds = args.worlds;
const nTasks = args.tasks;
const steps = args.steps;
const seed = args.seed;
const outDir = args.out;
const nEval = args.eval;
const batchSize = args.batch;
const peakLr = args.lr;
const vocab = args.vocab;
const maxContext = args.context;
const prefix = args.prefix;
const initDir = args.init;
const BUCKETS = sftBuckets(maxContext);
const profile = SFT_PROFILE;

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
  const rows = sftTokenRows(examples, tok, maxContext);
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
      // Rows of similar length share a step (kept from the padded batching, so both draw the same rows).
      const pick = pickSftRows(rows, rng, batchSize, BUCKETS);
      const T = Math.max(...pick.map((r) => r.ids.length));
      const lr = peakLr * schedule(s, steps);
      const r = args.batching === 'padded' ? await model.trainStep(referenceSftBatch(pick, BUCKETS), { lr })
        : await model.trainStepPacked(packedSftBatches(pick, modelDims(cfg)), { lr });
      ema = Number.isNaN(ema) ? r.loss : 0.95 * ema + 0.05 * r.loss;
      if (s % 10 === 0 || s === steps - 1) curve.push({ step: s, loss: r.loss });
      bar.tick(`loss ${ema.toFixed(3)} longest row ${T}`);
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

if (!args['no-run']) main().catch((e) => { console.error(e); process.exit(1); });
