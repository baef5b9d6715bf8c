// The GRPO update as the trainer ran it before packing (kept as the benchmark's and the tests' reference,
// like tfjs-reference.ts): rows sorted by length, cut into micro-batches of `microBatch` rows, each padded
// to a length bucket and run through the row-wise training graph; gradients are re-weighted across
// micro-batches so that the sum equals one aggregation over all rows. Every row recomputes its whole prompt.
//
// One deliberate difference from the old trainer: seq-mean-token-sum-norm divides by the context size
// (a fixed loss_scale_factor, as verl's), not by each micro-batch's bucket length, which made a row's
// weight depend on which bucket it fell into.

import type { Params } from '../engine/decoder';
import { Graph } from '../engine/graph';
import * as O from '../engine/ops';
import { Rng } from '../engine/rng';
import type { Runtime } from '../engine/runtime';
import { makeLmBatch, type GrpoBatch, type Model } from '../engine/trainer-core';
import { usableRows, type UpdateRow, type UpdateSettings, type UpdateStats } from '../rl/update';

export interface ReferenceSettings extends UpdateSettings { microBatch: number }

export async function referenceGrpoGradients(model: Model, rowsIn: UpdateRow[], s: ReferenceSettings, ref?: Model): Promise<{ grads: Params; stats: UpdateStats }> {
  const maxCtx = s.maxContext;
  const usable = usableRows(rowsIn, maxCtx);
  const stats: UpdateStats = { loss: 0, pg: 0, kl: 0, ppoKl: 0, clip: 0, entropy: 0, tokens: 0, rows: usable.length, processedTokens: 0, usefulTokens: 0, graphCalls: 0 };
  const sum: Params = {};
  if (usable.length === 0) return { grads: sum, stats };
  const buckets = [128, 256, 512, 1024, 2048, 4096].filter((b) => b <= Math.max(128, maxCtx));
  const bucketOf = (len: number) => buckets.find((b) => b >= len) ?? maxCtx;
  const len = (r: UpdateRow) => r.promptIds.length + r.outputIds.length;
  usable.sort((a, b) => len(a) - len(b));
  const totalTokens = usable.reduce((a, r) => a + r.outputIds.length, 0);
  const lossSpec = { kind: 'grpo' as const, agg: s.lossAggMode, kl: s.klType, normBy: s.lossAggMode === 'seq-mean-token-sum-norm' ? maxCtx : undefined };
  for (let i = 0; i < usable.length; i += s.microBatch) {
    const mb = usable.slice(i, i + s.microBatch);
    const T = bucketOf(Math.max(...mb.map(len)));
    const batch = grpoBatch(mb, T, s.microBatch, s.pad);
    if (ref && s.klType !== 'none') batch.refLogprobs = (await ref.score(batch)).logprobs;
    const out = await model.computeGrads(batch, lossSpec, { clipRatioLow: s.clipRatioLow, clipRatioHigh: s.clipRatioHigh, clipRatioC: s.clipRatioC, klCoef: s.klCoef });
    const mbTokens = mb.reduce((a, r) => a + r.outputIds.length, 0);
    // token-mean divides by this micro-batch's tokens, seq-mean modes by its (padded) row count.
    const w = s.lossAggMode === 'token-mean' ? mbTokens / totalTokens
      : s.lossAggMode === 'seq-mean-token-sum-norm' ? 1 : s.microBatch / usable.length;
    for (const [k, g] of Object.entries(out.grads)) {
      const acc = (sum[k] ??= new Float32Array(g.length));
      for (let j = 0; j < g.length; j++) acc[j] += w * g[j];
    }
    stats.loss += w * out.loss; stats.pg += w * (out.metrics.pg_loss ?? 0); stats.kl += w * (out.metrics.kl_loss ?? 0);
    stats.ppoKl += (mbTokens / totalTokens) * (out.metrics.ppo_kl ?? 0); stats.clip += (mbTokens / totalTokens) * (out.metrics.clipfrac ?? 0);
    stats.entropy += maskedMean(out.entropy, batch.lossMask) * (mbTokens / totalTokens);
    stats.processedTokens += s.microBatch * T;
    stats.usefulTokens += mb.reduce((a, r) => a + len(r), 0);
    stats.graphCalls += 1;
  }
  stats.tokens = totalTokens;
  return { grads: sum, stats };
}

export function grpoBatch(mb: UpdateRow[], T: number, B: number, pad: number): GrpoBatch {
  const seqs = mb.map((r) => [...r.promptIds, ...r.outputIds]);
  const weights = mb.map((r) => [...r.promptIds.map(() => 0), ...r.outputIds.map(() => 1)]);
  while (seqs.length < B) { seqs.push([pad]); weights.push([0]); }
  const base = makeLmBatch(seqs, T, { pad, weights });
  const advantages = new Float32Array(B * T), oldLogprobs = new Float32Array(B * T);
  mb.forEach((r, b) => {
    const P = r.promptIds.length;
    // Output token j sits at position P + j and is predicted from position P + j − 1.
    r.outputIds.forEach((_, j) => {
      const at = b * T + P + j - 1;
      advantages[at] = r.adv;
      oldLogprobs[at] = r.logprobs[j] ?? 0;
    });
  });
  return { ...base, advantages, oldLogprobs };
}

function maskedMean(x: Float32Array, mask: ArrayLike<number>): number {
  let s = 0, n = 0;
  for (let i = 0; i < x.length; i++) if (mask[i] > 0) { s += x[i]; n++; }
  return n ? s / n : 0;
}

/** Best-of-n GFLOP/s of one N×N×N MatMul (the MFU denominator, measured as bench:engine does). */
export async function matmulPeakGflops(runtime?: Runtime, N = 1024, reps = 8): Promise<number> {
  const rt = runtime ?? (await import('../engine/runtime-node')).nodeRuntime();
  const g = new Graph();
  const a = g.input('a', 'float32', [N, N]), b = g.input('b', 'float32', [N, N]);
  g.output(O.matmul(a, b), 'c');
  const s = await rt.createSession(g.serialize());
  const x = new Rng(1).fillUniform(new Float32Array(N * N), -1, 1);
  const feeds = { a: { type: 'float32' as const, data: x, dims: [N, N] }, b: { type: 'float32' as const, data: x, dims: [N, N] } };
  await s.run(feeds);
  let best = Infinity;
  for (let i = 0; i < reps; i++) {
    const t0 = performance.now();
    await s.run(feeds);
    best = Math.min(best, performance.now() - t0);
  }
  await s.release();
  return (2 * N ** 3) / (best / 1000) / 1e9;
}
