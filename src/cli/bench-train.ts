// npm run bench:train -- --json [--model models/envace-small] [--steps 3] [--config configs/envace-files.json]
// GRPO steps of the default config in Node. At every step the update's gradients are computed twice on
// the same rows and weights, interleaved (which goes first alternates): by the packed update the trainer
// uses (src/rl/update.ts) and by the row-by-row padded reference (src/bench/train-reference.ts); their
// agreement and time ratio are reported, and the packed gradients are applied. Likewise every generate()
// of the rollout runs twice on the same requests: through the current sampler as the trainer configures it,
// and through the frozen pre-issue sampler without a prefix cache (src/bench/sampler-reference.ts, the
// reference rollout), on a model of the same weights. Step speedup = (reference rollout + judge + reference
// update) / (rollout + judge + update), each path timed alone. Prints one JSON object.

import { readFile } from 'node:fs/promises';
import { countParams } from '../engine/decoder';
import type { Model } from '../engine/trainer-core';
import type { GenerateRequest, Generation } from '../engine/generator';
import { Sampler } from '../engine/sampler';
import * as ReferenceSampler from '../bench/sampler-reference';
import type { SessionCache } from '../engine/runtime';
import type { LlamaConfig, Params } from '../engine/decoder';
import { matmulPeakGflops, referenceGrpoGradients } from '../bench/train-reference';
import type { RunSpec } from '../rl/session';
import { grpoGradients, type UpdateResult, type UpdateRow, type UpdateSettings } from '../rl/update';
import { loadModelFolder } from '../engine/modelFolder';
import { nodeRuntime } from '../engine/runtime-node';
import { makeTrainer } from '../rl/session';
import { cliArgs, defineCli } from './args';
import { progress } from './util';

const cli = defineCli({
  name: 'bench:train',
  summary: 'GRPO step timing; packed update vs the row-by-row padded reference on the same rows (one JSON object on stdout).',
  options: {
    json: { type: 'boolean', help: 'print JSON (the only output format)' },
    steps: { type: 'int', help: 'GRPO steps', default: 3, min: 1 },
    config: { type: 'string', help: 'run spec', default: 'configs/envace-files.json' },
    model: { type: 'string', help: 'model folder (default: the config\'s)' },
    'pack-length': { type: 'int', help: 'positions per packed graph row (default: the context size)', min: 16 },
    'micro-batch': { type: 'int', help: 'rows per reference micro-batch (the old trainer default)', default: 8, min: 1 },
  },
});

interface StepRecord {
  step: number; rows: number; trained: number; processed: number; useful: number; refProcessed: number; refUseful: number;
  newMs: number; refMs: number; adamMs: number; maxRelDiff: number; lossAbsDiff: number; loss: number; flops: number; packLength: number;
}

/** max over tensors of max|a − b| / max|b| (a tensor-scaled relative difference). */
function gradRelDiff(a: Record<string, Float32Array>, b: Record<string, Float32Array>): number {
  let worst = 0;
  for (const k of Object.keys(b)) {
    let d = 0, m = 0;
    const x = a[k], y = b[k];
    if (!x) return Infinity;
    for (let i = 0; i < y.length; i++) { d = Math.max(d, Math.abs(x[i] - y[i])); m = Math.max(m, Math.abs(y[i])); }
    worst = Math.max(worst, m === 0 ? d : d / m);
  }
  return worst;
}

/**
 * Useful training FLOPs (forward ×3) of the rows' real tokens, prompts included: every distinct token
 * position once (what a per-row computation needs at least, without its repeats and padding): projections,
 * MLP, LM head, and attention over the positions each token really sees. The one-hot embedding is left out.
 */
function usefulFlops(model: Model, rows: UpdateRow[]): number {
  const c = model.cfg, d = c.hidden_size, f = c.intermediate_size, V = c.vocab_size, L = c.num_hidden_layers;
  const seen = new Set<string>();
  let fwd = 0;
  for (const r of rows) {
    const ids = [...r.promptIds, ...r.outputIds];
    let key = '';
    ids.forEach((t, i) => {
      key += `${t},`;
      if (seen.has(key)) return;
      seen.add(key);
      fwd += L * (2 * 4 * d * d + 2 * 3 * d * f + 2 * 2 * (i + 1) * d) + 2 * d * V;
    });
  }
  return 3 * fwd;
}

let buildMs = 0;
/** Counts the time a model spends building graphs and creating sessions into `buildMs`. */
function untimeSessionBuilds(model: Model): void {
  const sc = model.sessions as SessionCache & { untimed?: boolean };
  if (sc.untimed) return;
  sc.untimed = true;
  const get = sc.get.bind(sc);
  sc.get = (key, bucket, build, opts) => {
    if (sc.has(key, bucket)) return get(key, bucket, build, opts);
    const t0 = performance.now();
    const p = get(key, bucket, build, opts);
    void p.then(() => { buildMs += performance.now() - t0; }, () => {});
    return p;
  };
}

/**
 * Every generate() of the rollout runs twice on the same requests, interleaved (which goes first alternates):
 * through the trainer's sampler, and through the reference sampler (the sampler before issue 9's rollout work,
 * every prompt prefilled whole) over its own model of the same weights, built once per trainer sampler (not
 * timed, like the trainer's own sampler construction). The trainer continues with the current sampler's output.
 */
const gen = { newMs: 0, refMs: 0, newTokens: 0, refTokens: 0, calls: 0, rows: 0, same: 0, logprobMaxAbsDiff: 0, refBuildMs: 0 };
const references = new WeakMap<object, ReferenceSampler.Sampler & { release(): Promise<void> }>();
function measureRollouts(trainer: object, cfg: LlamaConfig): void {
  // The trainer builds a sampler on the current weights every step (GrpoTrainer.sampler); each gets a reference
  // twin on the same weights. Building it is not part of either rollout (subtracted from the step's rollout time).
  const t = trainer as { sampler?: (params: Params, name: string) => Promise<Sampler & { release(): Promise<void> }> };
  if (typeof t.sampler !== 'function') throw new Error('GrpoTrainer has no sampler method to measure');
  const make = t.sampler.bind(trainer);
  t.sampler = async (params, name) => {
    const s = await make(params, name);
    const t0 = performance.now();
    const kv = await ReferenceSampler.createOrtKVModel(nodeRuntime(), cfg, params);
    const ref = new ReferenceSampler.Sampler(kv, s.tokenizer, { ...s.opts, prefixCache: false }) as ReferenceSampler.Sampler & { release(): Promise<void> };
    ref.release = () => kv.release();
    references.set(s, ref);
    const release = s.release.bind(s);
    s.release = async () => { await release(); await ref.release(); };
    gen.refBuildMs += performance.now() - t0;
    return s;
  };
  const generate = Sampler.prototype.generate;
  Sampler.prototype.generate = async function (this: Sampler, reqs: GenerateRequest[]): Promise<Generation[]> {
    const plain = references.get(this);
    if (!plain) throw new Error(`sampler ${this.name} was not made by GrpoTrainer.sampler`);
    const run = async (sm: Sampler | ReferenceSampler.Sampler, which: 'new' | 'ref') => {
      const t0 = performance.now();
      const g = sm instanceof Sampler ? await generate.call(sm, reqs) : await sm.generate(reqs);
      gen[which === 'new' ? 'newMs' : 'refMs'] += performance.now() - t0;
      gen[which === 'new' ? 'newTokens' : 'refTokens'] += g.reduce((a, x) => a + x.outputIds.length, 0);
      return g;
    };
    const newFirst = gen.calls++ % 2 === 0;
    const a = newFirst ? await run(this, 'new') : await run(plain, 'ref');
    const b = newFirst ? await run(plain, 'ref') : await run(this, 'new');
    const [mine, theirs] = newFirst ? [a, b] : [b, a];
    gen.rows += reqs.length;
    gen.same += mine.filter((g, i) => g.outputIds.join() === theirs[i].outputIds.join()).length;
    mine.forEach((g, i) => { if (g.outputIds.join() === theirs[i].outputIds.join()) g.logprobs.forEach((x, j) => { gen.logprobMaxAbsDiff = Math.max(gen.logprobMaxAbsDiff, Math.abs(x - theirs[i].logprobs[j])); }); });
    return mine;
  };
}

async function main() {
  const a = cliArgs(cli);
  const base: RunSpec & { model?: string } = JSON.parse(await readFile(a.config, 'utf8'));
  if (a.model) base.model = a.model;
  const log = (s: string) => process.stderr.write(s + '\n');
  log('matmul peak…');
  const peak = await matmulPeakGflops();
  const records: StepRecord[] = [];
  let step = 0;

  // Runs inside the trainer's update: both gradient computations on the same rows, then the packed update.
  const benchUpdate = async (trainerSelf: { cfg: { lossAggMode: UpdateSettings['lossAggMode']; klType: UpdateSettings['klType']; clipRatioLow: number; clipRatioHigh: number; clipRatioC: number; klCoef: number; lr: number }; ref?: Model; deps: { ids: { pad: number }; config: { max_position_embeddings: number } } },
    model: Model, rowsIn: { row: { promptIds: number[]; outputIds: number[]; logprobs: number[] }; adv: number }[]): Promise<UpdateResult> => {
    const c = trainerSelf.cfg;
    const s: UpdateSettings = {
      lossAggMode: c.lossAggMode, klType: c.klType, clipRatioLow: c.clipRatioLow, clipRatioHigh: c.clipRatioHigh, clipRatioC: c.clipRatioC,
      klCoef: c.klCoef, lr: c.lr, pad: trainerSelf.deps.ids.pad, maxContext: trainerSelf.deps.config.max_position_embeddings, packLength: a['pack-length'],
    };
    const rows: UpdateRow[] = rowsIn.map((r) => ({ promptIds: r.row.promptIds, outputIds: r.row.outputIds, logprobs: r.row.logprobs, adv: r.adv }));
    // Graph builds and session creation are one-off costs (each shape once per run): not timed.
    untimeSessionBuilds(model); if (trainerSelf.ref) untimeSessionBuilds(trainerSelf.ref);
    const timed = async <T>(f: () => Promise<T>) => { const b0 = buildMs, t0 = performance.now(); const r = await f(); return { r, ms: performance.now() - t0 - (buildMs - b0) }; };
    const runNew = () => timed(() => grpoGradients(model, rows, s, trainerSelf.ref));
    const runRef = () => timed(() => referenceGrpoGradients(model, rows, { ...s, microBatch: a['micro-batch'] }, trainerSelf.ref));
    const first = step % 2 === 0 ? 'new' : 'ref';
    const x = first === 'new' ? await runNew() : await runRef();
    const y = first === 'new' ? await runRef() : await runNew();
    const nw = first === 'new' ? x : y, rf = first === 'new' ? y : x;
    const res: UpdateResult = { ...nw.r.stats, gradNorm: 0, skipped: false };
    const t0 = performance.now();
    if (nw.r.stats.rows > 0) res.gradNorm = await model.applyGrads(nw.r.grads, s.lr);
    const adamMs = performance.now() - t0;
    records.push({
      step, rows: nw.r.stats.rows, trained: nw.r.stats.tokens, processed: nw.r.stats.processedTokens, useful: nw.r.stats.usefulTokens,
      refProcessed: rf.r.stats.processedTokens, refUseful: rf.r.stats.usefulTokens, newMs: nw.ms, refMs: rf.ms, adamMs,
      maxRelDiff: gradRelDiff(nw.r.grads, rf.r.grads), lossAbsDiff: Math.abs(nw.r.stats.loss - rf.r.stats.loss), loss: rf.r.stats.loss, packLength: nw.r.stats.packLength ?? 0,
      flops: usefulFlops(model, usableRowsOf(rows, s.maxContext)),
    });
    return res;
  };

  const folder = await loadModelFolder(base.model ?? 'models/envace-small');
  const { model: _m, ...spec } = base;
  const trainer = makeTrainer(folder, nodeRuntime(), { ...spec, steps: a.steps, evalEvery: 0, evalTasks: 1, checkpointEvery: 0 }, { runId: 'bench' });
  const t = trainer as unknown as { update?: unknown };
  if (typeof t.update !== 'function') throw new Error('GrpoTrainer has no update method to measure');
  t.update = (model: Model, rows: Parameters<typeof benchUpdate>[2]) => benchUpdate(trainer as never, model, rows);
  measureRollouts(trainer, folder.config);
  const genPerStep: { newMs: number; refMs: number; buildMs: number }[] = [];
  const bar = progress(a.steps, 'bench:train');
  for (let i = 0; i < a.steps; i++) {
    step = i;
    const g0 = { ...gen };
    const m = await trainer.trainStep();
    genPerStep.push({ newMs: gen.newMs - g0.newMs, refMs: gen.refMs - g0.refMs, buildMs: gen.refBuildMs - g0.refBuildMs });
    bar.tick(`${m.secondsPerStep.toFixed(1)} s (both updates)`);
  }
  bar.done();
  const h = trainer.history;
  const n = h.length;
  const sum = <T>(xs: T[], f: (x: T) => number) => xs.reduce((s, x) => s + f(x), 0);
  // Per step: rollout and judge as measured; the update as one path alone (gradients + the same AdamW).
  const perStep = h.map((m, i) => {
    const recs = records.filter((x) => x.step === i);
    const upd = sum(recs, (x) => x.newMs + x.adamMs) / 1000, updRef = sum(recs, (x) => x.refMs + x.adamMs) / 1000;
    // The trainer's rollout time holds both generate() runs; each path's rollout is it minus the other's.
    const g = genPerStep[i];
    const base = m.rolloutSeconds - g.buildMs / 1000;
    return { rollout: base - g.refMs / 1000, rolloutRef: base - g.newMs / 1000, judge: m.judgeSeconds, update: upd, updateRef: updRef };
  });
  const stepS = sum(perStep, (p) => p.rollout + p.judge + p.update) / n;
  const stepRefS = sum(perStep, (p) => p.rolloutRef + p.judge + p.updateRef) / n;
  const updS = sum(perStep, (p) => p.update) / n, updRefS = sum(perStep, (p) => p.updateRef) / n;
  const newMs = sum(records, (x) => x.newMs), refMs = sum(records, (x) => x.refMs);
  const flops = sum(records, (x) => x.flops);
  console.log(JSON.stringify({
    config: { ...base, steps: a.steps }, steps: n, pack_length: a['pack-length'] ?? 'auto', reference_micro_batch: a['micro-batch'],
    update_speedup_vs_reference: round(updRefS / updS, 2),
    gradient_speedup_vs_reference: round(refMs / newMs, 2),
    step_speedup_vs_reference: round(stepRefS / stepS, 2),
    grad_max_rel_diff: Number(Math.max(...records.map((x) => x.maxRelDiff)).toExponential(2)),
    // The GRPO loss is near 0 whenever advantages cancel, so its difference is given absolute, beside its size.
    loss_max_abs_diff: Number(Math.max(...records.map((x) => x.lossAbsDiff)).toExponential(2)),
    loss_max_abs: Number(Math.max(...records.map((x) => Math.abs(x.loss))).toExponential(2)),
    pack_lengths_chosen: records.map((x) => x.packLength),
    seconds_per_step: round(stepS, 3),
    seconds_per_step_reference: round(stepRefS, 3),
    share: { rollout: round(sum(perStep, (p) => p.rollout) / n / stepS, 3), judge: round(sum(perStep, (p) => p.judge) / n / stepS, 3), update: round(updS / stepS, 3) },
    seconds: { rollout: round(sum(perStep, (p) => p.rollout) / n, 3), rollout_reference: round(sum(perStep, (p) => p.rolloutRef) / n, 3), judge: round(sum(perStep, (p) => p.judge) / n, 3), update: round(updS, 3), update_reference: round(updRefS, 3), adamw: round(sum(records, (x) => x.adamMs) / records.length / 1000, 3) },
    rows_per_step: sum(h, (m) => m.rows) / n,
    trained_tokens_per_step: sum(records, (x) => x.trained) / n,
    processed_tokens_per_step: sum(records, (x) => x.processed) / n,
    processed_tokens_per_step_reference: sum(records, (x) => x.refProcessed) / n,
    useful_tokens_per_step: sum(records, (x) => x.useful) / n,
    row_tokens_per_step: sum(records, (x) => x.refUseful) / n,
    rollout_speedup_vs_reference: round((gen.newTokens / gen.newMs) / (gen.refTokens / gen.refMs), 2),
    generated_tokens_per_s: round(gen.newTokens / (gen.newMs / 1000), 1),
    generated_tokens_per_s_reference: round(gen.refTokens / (gen.refMs / 1000), 1),
    generate_seconds_per_step: round(gen.newMs / 1000 / n, 3), generate_seconds_per_step_reference: round(gen.refMs / 1000 / n, 3),
    generations_identical_to_reference: round(gen.same / Math.max(1, gen.rows), 3),
    // Over identical generations: the prefix tree and cache change float rounding only.
    logprob_max_abs_diff_vs_reference: Number(gen.logprobMaxAbsDiff.toExponential(2)),
    rollout_reference: 'src/bench/sampler-reference.ts (the sampler before the rollout work), prefix cache off',
    generate_calls_per_step: gen.calls / n,
    matmul_peak_gflops: round(peak, 1),
    update_gflops: round(flops / (newMs / 1000) / 1e9, 2),
    update_mfu: round(flops / (newMs / 1000) / 1e9 / peak, 3),
    update_mfu_reference: round(flops / (refMs / 1000) / 1e9 / peak, 3),
    model_params: countParams(folder.config),
  }, null, 2));
}

function usableRowsOf(rows: UpdateRow[], maxContext: number): UpdateRow[] {
  return rows.filter((r) => r.outputIds.length > 0 && r.promptIds.length + r.outputIds.length <= maxContext);
}

const round = (x: number, d: number) => Math.round(x * 10 ** d) / 10 ** d;

main().catch((e) => { console.error(e); process.exit(1); });
