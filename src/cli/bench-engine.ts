// Engine benchmark: one run, one JSON object on stdout (progress on stderr).
//   npm run bench:engine -- --json [--steps 500] [--quick]
// Measures on the `small` preset: training ms/step at 16×256 (vs the same model in TF.js), sampling
// tokens/s at batch 1 and 16 (256-token prompts, 128 new tokens; vs transformers.js generate on the same
// folder), ORT MatMul peak GFLOP/s and the training MFU against it, and RSS across the training steps.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, basename, dirname } from 'node:path';
import { trainBPE, BPETokenizer } from '../engine/tokenizer';
import { syntheticCorpus } from '../engine/corpus';
import { makeConfig, initParams, countParams, headDim, type LlamaConfig } from '../engine/decoder';
import { Model, makeLmBatch } from '../engine/trainer-core';
import { nodeRuntime } from '../engine/runtime-node';
import { Rng } from '../engine/rng';
import { loadModelFolder, writeModelFolder } from '../engine/modelFolder';
import { createOrtKVModel, Sampler } from '../engine/sampler';
import type { GenerateRequest } from '../engine/generator';
import { benchTfjsTrain, initTfjs, TfjsLlama } from '../bench/tfjs-reference';
import { matmulPeakGflops } from '../bench/train-reference';
import { progress } from './engine';
import { cliArgs } from './args';
import { BENCH_ENGINE_CLI } from './defs';

// Arguments are validated before any work (exit 2 listing every problem).
const args = cliArgs(BENCH_ENGINE_CLI);
const quick = args.quick;
const STEPS = args.steps ?? (quick ? 20 : 500);
const TFJS_STEPS = args['tfjs-steps'] ?? (quick ? 1 : 3);
const B = 16, T = 256, PROMPT = 256, NEW = quick ? 32 : 128;
const log = (s: string) => process.stderr.write(s + '\n');
const rssMb = () => Math.round(process.memoryUsage().rss / 2 ** 20);
const r1 = (x: number) => Math.round(x * 10) / 10;
// Sampling runs take seconds on a shared box where load swings a lot; the median of a few is steadier.
const REPS = quick ? 1 : 3;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];


/**
 * Model FLOPs of one training step (forward ×3): projections, MLP, attention scores and mixing over the
 * full T×T (the graph computes it unmasked), and the LM head. The one-hot embedding matmul is an
 * implementation choice, not model work, so it is left out (this understates our MFU slightly).
 */
function trainFlops(cfg: LlamaConfig, B: number, T: number): number {
  const d = cfg.hidden_size, f = cfg.intermediate_size, V = cfg.vocab_size, L = cfg.num_hidden_layers;
  const perToken = L * (2 * 4 * d * d + 2 * 3 * d * f + 2 * 2 * T * d) + 2 * d * V;
  return 3 * perToken * B * T;
}

/** |loss_tfjs − loss_engine| for identical weights and tokens: shows the peer computes the same model. */
async function crossCheckTfjs(): Promise<number> {
  await initTfjs('wasm');
  const cfg = makeConfig('tiny'), b = 2, t = 32;
  const params = initParams(cfg, 9);
  const rng = new Rng(4);
  const seqs = Array.from({ length: b }, () => Array.from({ length: t + 1 }, () => rng.int(cfg.vocab_size)));
  const lb = makeLmBatch(seqs, t);
  const m = new Model(cfg, nodeRuntime(), params);
  const ours = (await m.score(lb)).loss;
  await m.dispose();
  const ref = new TfjsLlama(cfg, t);
  ref.setFromEngine(params);
  const theirs = await ref.evalLoss(Int32Array.from(lb.inputIds), Int32Array.from(lb.targetIds), b);
  ref.dispose();
  return Number(Math.abs(ours - theirs).toExponential(2));
}

async function main(): Promise<void> {
  const out: Record<string, unknown> = Object.create(null);
  const corpus = syntheticCorpus(1_000_000, 3);
  const cfg0 = makeConfig('small');
  const tokJson = trainBPE(corpus, { vocabSize: cfg0.vocab_size });
  const tok = new BPETokenizer(tokJson);
  const cfg = makeConfig('small', { vocab_size: tok.vocabSize });
  const stream = Int32Array.from(tok.encode(corpus));
  Object.assign(out, {
    model: 'small', params: countParams(cfg), hidden_size: cfg.hidden_size, layers: cfg.num_hidden_layers,
    vocab_size: cfg.vocab_size, batch: B, seq: T, steps: STEPS, quick, node: process.version,
  });

  log('matmul peak…');
  const peak = await matmulPeakGflops(nodeRuntime());
  out.matmul_peak_gflops = r1(peak);

  log(`training ${STEPS} steps of ${B}×${T}…`);
  const model = new Model(cfg, nodeRuntime(), undefined, { seed: 0 });
  const rng = new Rng(2);
  const batch = () => makeLmBatch(Array.from({ length: B }, () => {
    const s = rng.int(stream.length - T - 1);
    return Array.from(stream.subarray(s, s + T + 1));
  }), T, { pad: 0 });
  await model.trainStep(batch(), { lr: 1e-3 }); // builds sessions; not timed
  const rssStart = rssMb();
  const t0 = performance.now();
  let loss = 0;
  for (let s = 0; s < STEPS; s++) {
    loss = (await model.trainStep(batch(), { lr: 1e-3 })).loss;
    progress(s + 1, STEPS, t0, `loss ${loss.toFixed(3)} rss ${rssMb()} MB`);
  }
  const trainMs = (performance.now() - t0) / STEPS;
  out.train_ms_per_step = r1(trainMs);
  out.train_final_loss = Math.round(loss * 1000) / 1000;
  out.rss_mb_start = rssStart;
  out.rss_mb_end = rssMb();
  out.train_flops_per_step = trainFlops(cfg, B, T);
  out.train_gflops = r1(trainFlops(cfg, B, T) / (trainMs / 1000) / 1e9);
  out.train_mfu = Math.round((trainFlops(cfg, B, T) / (trainMs / 1000) / 1e9 / peak) * 1000) / 1000;
  const trained = model.params;
  await model.dispose();

  if (!args['skip-tfjs']) {
    out.tfjs_loss_abs_diff_vs_engine = await crossCheckTfjs();
    log(`TF.js reference: ${TFJS_STEPS} step(s)…`);
    const tf = await benchTfjsTrain(cfg, B, T, TFJS_STEPS);
    out.tfjs_backend = tf.backend;
    out.tfjs_train_ms_per_step = r1(tf.msPerStep);
    out.train_speedup_vs_tfjs = r1(tf.msPerStep / trainMs);
  }

  // Sampling: a folder from the trained weights; 16 distinct corpus windows as prompts so neither side
  // benefits from shared prefills; EOS disabled on both sides so every row makes exactly NEW tokens.
  const dir = join(mkdtempSync(join(tmpdir(), 'bench-engine-')), 'small');
  await writeModelFolder(dir, { config: cfg, params: trained, tokenizer: tokJson });
  const folder = await loadModelFolder(dir);
  const prompts = Array.from({ length: B }, (_, i) => {
    const s = 1000 + i * 7919;
    return tok.decode(stream.subarray(s, s + PROMPT));
  });
  const req = (p: string, n: number): GenerateRequest => ({ prompt: p, maxNewTokens: n, temperature: 0, topP: 1, topK: 0, stop: [], seed: 0 });
  const kv = await createOrtKVModel(nodeRuntime(), folder.config, folder.params, { mode: 'fast' });
  const sampler = new Sampler(kv, folder.tokenizer, { maxContext: cfg.max_position_embeddings, eosTokenIds: [], padTokenId: folder.ids.pad });
  await sampler.generate([req(prompts[0], 4)]);
  const ours: Record<string, number> = Object.create(null);
  for (const bs of [1, B]) {
    const rates: number[] = [];
    for (let k = 0; k < REPS; k++) {
      const t1 = performance.now();
      const g = await sampler.generate(prompts.slice(0, bs).map((p) => req(p, NEW)));
      const toks = g.reduce((a, x) => a + x.outputIds.length, 0);
      rates.push(toks / ((performance.now() - t1) / 1000));
    }
    ours[`batch${bs}`] = r1(median(rates));
    log(`ours batch ${bs}: ${rates.map(r1).join(', ')} tok/s`);
  }
  await kv.release();
  out.sample_tokens_per_s = ours;
  out.sample_new_tokens = NEW;
  out.sample_prompt_tokens = PROMPT;
  out.sample_reps_median_of = REPS;

  if (!args['skip-transformersjs']) {
    const { AutoTokenizer, AutoModelForCausalLM, env } = await import('@huggingface/transformers');
    env.allowRemoteModels = false;
    env.allowLocalModels = true;
    env.localModelPath = dirname(dir);
    const hfTok = await AutoTokenizer.from_pretrained(basename(dir));
    const hfModel = await AutoModelForCausalLM.from_pretrained(basename(dir), { dtype: 'fp32', device: 'cpu' });
    const run = async (ps: string[], n: number) => {
      const inputs = hfTok(ps, { padding: true });
      const t1 = performance.now();
      const res = await hfModel.generate({ ...inputs, max_new_tokens: n, min_new_tokens: n, do_sample: false }) as { dims: number[] };
      const made = (res.dims[1] - (inputs.input_ids as { dims: number[] }).dims[1]) * ps.length;
      return made / ((performance.now() - t1) / 1000);
    };
    await run([prompts[0]], 4);
    const theirs: Record<string, number> = Object.create(null);
    for (const bs of [1, B]) {
      const rates: number[] = [];
      for (let k = 0; k < REPS; k++) rates.push(await run(prompts.slice(0, bs), NEW));
      theirs[`batch${bs}`] = r1(median(rates));
      log(`transformers.js batch ${bs}: ${rates.map(r1).join(', ')} tok/s`);
    }
    out.transformersjs_tokens_per_s = theirs;
    out.sample_speedup_vs_transformersjs = r1(ours[`batch${B}`] / theirs[`batch${B}`]);
    out.sample_speedup_vs_transformersjs_batch1 = r1(ours.batch1 / theirs.batch1);
  }
  rmSync(dirname(dir), { recursive: true, force: true });
  out.head_dim = headDim(cfg);
  process.stdout.write(JSON.stringify(out, args.json ? undefined : null, args.json ? undefined : 2) + '\n');
}

main().catch((e) => { process.stderr.write(`${e instanceof Error ? e.stack : e}\n`); process.exit(1); });
