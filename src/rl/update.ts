// The GRPO update: gradients of verl's policy loss over a step's rows, then one AdamW step.
//
// Rows are packed (engine/packing.ts): the K samples of a task share their prompt prefix and each Act
// row extends the previous turn's, so the rows of a step are merged into a prefix tree and every shared
// token is computed once; short rows fill graph rows instead of padding. The aggregation mode becomes a
// per-token weight, so packing changes neither the loss nor the gradients (tests/rl/update.test.ts
// compares them with the row-by-row padded computation kept in src/bench/train-reference.ts).

import type { Params } from '../engine/decoder';
import type { AggMode, KlType } from '../engine/losses';
import { modelDims, packAuto, packedCalls, type PackedBatch } from '../engine/packing';
import type { Model } from '../engine/trainer-core';

export interface UpdateRow { promptIds: number[]; outputIds: number[]; logprobs: number[]; adv: number }

export interface UpdateSettings {
  lossAggMode: AggMode;
  klType: KlType;
  clipRatioLow: number;
  clipRatioHigh: number;
  clipRatioC: number;
  klCoef: number;
  lr: number;
  pad: number;
  /** The model's context size: longer rows are dropped; also seq-mean-token-sum-norm's divisor. */
  maxContext: number;
  /** Positions per packed graph row (default: the cheapest of 1, 2, 4 × the longest row's bucket, by packingCost). */
  packLength?: number;
  /** Merge shared prefixes (default true); false only concatenates rows. */
  sharePrefixes?: boolean;
  /** Compute logits only at trained positions (packing.ts packedCalls `select`; default false). */
  scoreOnlyTrained?: boolean;
  /**
   * Divisors of the aggregation when rows were left out before the call (zero-advantage rows of dynamic
   * sampling): the step's full row and output-token counts, so the loss and its gradient are those of the
   * whole step. Default: the rows given.
   */
  aggregate?: { rows: number; tokens: number };
}

export interface UpdateStats {
  loss: number; pg: number; kl: number; ppoKl: number; clip: number; entropy: number;
  /** Trained (output) tokens. */
  tokens: number;
  rows: number;
  /** Positions the training graph computed, padding included. */
  processedTokens: number;
  /** Positions holding a real token (tree nodes, or prompt + output of every row when unpacked). */
  usefulTokens: number;
  graphCalls: number;
  /** Capacity of the packed graph rows (packed update only). */
  packLength?: number;
}

export interface UpdateResult extends UpdateStats {
  gradNorm: number; skipped: boolean; note?: string;
  /** KL(policy ‖ initial), k3 estimator over the trained tokens of the first packed batch (when an initial model is given). */
  klToInit?: number;
}

/** Rows the update can train: at least one output token, and prompt + output within the context. */
export function usableRows<R extends Pick<UpdateRow, 'promptIds' | 'outputIds'>>(rows: R[], maxContext: number): R[] {
  return rows.filter((r) => r.outputIds.length > 0 && r.promptIds.length + r.outputIds.length <= maxContext);
}

/**
 * Weight of each trained token of each row in the loss, for a verl aggregation mode over the whole
 * step (`normBy`: seq-mean-token-sum-norm's divisor, verl's loss_scale_factor).
 * - token-mean: 1/N over the N output tokens of all rows (long rows weigh more);
 * - seq-mean-token-mean: 1/(R·n_r), every row weighs the same whatever its length — what the reference
 *   implementation gets from token-mean on micro-batches of one row;
 * - seq-mean-token-sum: 1/R; seq-mean-token-sum-norm: 1/normBy.
 */
export function tokenWeights(outputLengths: number[], mode: AggMode, normBy: number, aggregate?: { rows: number; tokens: number }): number[] {
  const R = aggregate?.rows ?? outputLengths.length, N = aggregate?.tokens ?? outputLengths.reduce((s, n) => s + n, 0);
  return outputLengths.map((n) => {
    switch (mode) {
      case 'token-mean': return 1 / Math.max(N, 1);
      case 'seq-mean-token-mean': return 1 / (R * Math.max(n, 1));
      case 'seq-mean-token-sum': return 1 / R;
      case 'seq-mean-token-sum-norm': return 1 / normBy;
    }
  });
}

/** Loss, metrics and summed gradients over the rows, without updating the model. */
export async function grpoGradients(model: Model, rowsIn: UpdateRow[], s: UpdateSettings, ref?: Model, init?: Model): Promise<{ grads: Params; stats: UpdateStats & { klToInit?: number } }> {
  const rows = usableRows(rowsIn, s.maxContext);
  const stats: UpdateStats & { klToInit?: number } = { loss: 0, pg: 0, kl: 0, ppoKl: 0, clip: 0, entropy: 0, tokens: 0, rows: rows.length, processedTokens: 0, usefulTokens: 0, graphCalls: 0 };
  const grads: Params = {};
  if (rows.length === 0) return { grads, stats };
  const inputs = rows.map((r) => {
    const P = r.promptIds.length;
    const ids = [...r.promptIds, ...r.outputIds];
    return { ids, trained: ids.map((_, i) => (i >= P ? 1 : 0)) };
  });
  const { packing, capacity: cap } = packAuto(inputs, modelDims(model.cfg), { capacity: s.packLength, share: s.sharePrefixes ?? true, pad: s.pad });
  stats.packLength = cap;
  const weights = tokenWeights(rows.map((r) => r.outputIds.length), s.lossAggMode, s.maxContext, s.aggregate);
  const N = rows.reduce((a, r) => a + r.outputIds.length, 0);
  stats.tokens = N;
  stats.usefulTokens = packing.positions;

  const { calls, at } = packedCalls(packing, cap, { pad: s.pad, select: s.scoreOnlyTrained });
  const perCall: { r: number; j: number; x: number }[][] = calls.map(() => []);
  rows.forEach((row, r) => {
    const P = row.promptIds.length;
    for (let j = 0; j < row.outputIds.length; j++) {
      const [g, t] = packing.where[r][P + j]!;
      const [c, x] = at(g, t);
      perCall[c].push({ r, j, x });
    }
  });
  const loss = { kind: 'grpo' as const, kl: s.klType };
  const hyper = { clipRatioLow: s.clipRatioLow, clipRatioHigh: s.clipRatioHigh, clipRatioC: s.clipRatioC, klCoef: s.klCoef };
  let entropySum = 0;
  for (let c = 0; c < calls.length; c++) {
    const batch: PackedBatch = calls[c].batch;
    const n = batch.batch * batch.scored;
    const advantages = new Float32Array(n), oldLogprobs = new Float32Array(n);
    for (const { r, j, x } of perCall[c]) {
      batch.lossWeight[x] = weights[r];
      advantages[x] = rows[r].adv;
      oldLogprobs[x] = rows[r].logprobs[j] ?? 0;
    }
    batch.advantages = advantages; batch.oldLogprobs = oldLogprobs;
    if (ref && s.klType !== 'none') batch.refLogprobs = (await ref.score(batch)).logprobs;
    if (init && c === 0) {
      // Diagnostic only: how far the sampling policy has moved from the initial one, on these sampled tokens.
      const lp0 = (await init.score(batch)).logprobs;
      let klSum = 0;
      for (const { x } of perCall[c]) { const d = lp0[x] - oldLogprobs[x]; klSum += Math.exp(d) - 1 - d; }
      stats.klToInit = perCall[c].length ? klSum / perCall[c].length : 0;
    }
    const out = await model.computeGrads(batch, loss, hyper);
    for (const [k, v] of Object.entries(out.grads)) {
      const acc = (grads[k] ??= new Float32Array(v.length));
      for (let i = 0; i < v.length; i++) acc[i] += v[i];
    }
    stats.loss += out.loss; stats.pg += out.metrics.pg_loss ?? 0; stats.kl += out.metrics.kl_loss ?? 0;
    stats.ppoKl += out.metrics.ppo_kl_sum ?? 0; stats.clip += out.metrics.clipfrac_sum ?? 0;
    for (const { x } of perCall[c]) entropySum += out.entropy[x];
    stats.processedTokens += batch.batch * batch.seq;
    stats.graphCalls += 1;
  }
  stats.ppoKl /= N; stats.clip /= N; stats.entropy = entropySum / N;
  return { grads, stats };
}

/** grpoGradients, a NaN/Inf guard, then one AdamW step (skipped, weights unchanged, when not finite). */
export async function grpoUpdate(model: Model, rows: UpdateRow[], s: UpdateSettings, ref?: Model, init?: Model): Promise<UpdateResult> {
  const { grads, stats } = await grpoGradients(model, rows, s, ref, init);
  const res: UpdateResult = { ...stats, gradNorm: 0, skipped: false };
  if (stats.rows === 0) return res;
  // A poisoned update would destroy the weights and the optimizer moments.
  const bad = !Number.isFinite(stats.loss) || Object.values(grads).some((g) => g.some((x) => !Number.isFinite(x)));
  if (bad) {
    res.skipped = true;
    res.note = 'non-finite loss or gradient: update skipped, weights unchanged';
    return res;
  }
  res.gradNorm = await model.applyGrads(grads, s.lr);
  return res;
}
