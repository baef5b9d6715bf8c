// Token-level losses as graph composites: masked next-token cross-entropy and the verl-style GRPO
// policy loss (clipped ratio, dual-clip, KL to a reference, four aggregation modes).
import type { Value } from './graph';
import * as O from './ops';

export type AggMode = 'token-mean' | 'seq-mean-token-mean' | 'seq-mean-token-sum' | 'seq-mean-token-sum-norm';
export type KlType = 'none' | 'k1' | 'k2' | 'k3';

export type LossSpec =
  | { kind: 'ce' }
  /** normBy: divisor of seq-mean-token-sum-norm (verl loss_scale_factor); default the graph's T. */
  | { kind: 'grpo'; agg: AggMode; kl: KlType; normBy?: number };

export const lossKey = (l: LossSpec) => (l.kind === 'ce' ? 'ce' : `grpo-${l.agg}-${l.kl}${l.normBy ? `-n${l.normBy}` : ''}`);

/**
 * Loss of a packed batch (see packing.ts): Σ loss_weight·token loss. The caller puts the aggregation
 * (token-mean, seq-mean-*) into the per-token weights, so one graph serves every mode and rows no
 * longer need to be graph rows.
 */
export type PackedLossSpec = { kind: 'ce' } | { kind: 'grpo'; kl: KlType };

export const packedLossKey = (l: PackedLossSpec) => (l.kind === 'ce' ? 'packed-ce' : `packed-grpo-${l.kl}`);

/** Σ(x·mask) / max(Σmask, 1): verl's masked_mean, guarded so an all-masked batch gives 0, not NaN. */
export function maskedMean(x: Value, mask: Value): Value {
  return O.div(O.reduceSum(O.mul(x, mask)), O.maximum(O.reduceSum(mask), 1));
}

/** verl agg_loss over [B, T] matrices. Rows without tokens count as 0 in the seq-mean modes. */
export function aggLoss(loss: Value, mask: Value, mode: AggMode, normBy?: number): Value {
  const T = normBy ?? loss.dims[1];
  const rowSum = O.reduceSum(O.mul(loss, mask), [1]);
  switch (mode) {
    case 'token-mean': return maskedMean(loss, mask);
    case 'seq-mean-token-sum': return O.reduceMean(rowSum, [0]);
    case 'seq-mean-token-mean': return O.reduceMean(O.div(rowSum, O.maximum(O.reduceSum(mask, [1]), 1)), [0]);
    case 'seq-mean-token-sum-norm': return O.div(O.reduceSum(rowSum), T);
  }
}

/** Per-token log p(target) and entropy from 2-D logits [N, V] and int64 targets [N]. */
export function tokenStats(logits: Value, targets: Value): { logp: Value; entropy: Value } {
  const lsm = O.logSoftmax(logits, -1);
  const logp = O.reduceSum(O.mul(lsm, O.oneHot(targets, logits.dims[1])), [-1]);
  const entropy = O.neg(O.reduceSum(O.mul(O.exp(lsm), lsm), [-1]));
  return { logp, entropy };
}

/** Per-token KL estimate of π against π_ref (verl kl_penalty: k1 "kl", k2 "mse", k3 "low_var_kl"). */
export function klPenalty(logp: Value, refLogp: Value, type: Exclude<KlType, 'none'>): Value {
  const diff = O.sub(logp, refLogp);
  if (type === 'k1') return diff;
  if (type === 'k2') return O.mul(O.mul(diff, diff), 0.5);
  const kl = O.clamp(O.neg(diff), -20, 20);
  return O.clamp(O.sub(O.sub(O.exp(kl), kl), 1), -10, 10);
}

export interface GrpoInputs {
  logp: Value; oldLogp: Value; refLogp?: Value; advantages: Value; mask: Value; // [B, T]
  clipLow: Value; clipHigh: Value; clipC: Value; klCoef?: Value; // [1]
}

export interface GrpoOutputs { loss: Value; pgLoss: Value; klLoss?: Value; clipfrac: Value; clipfracLower: Value; ppoKl: Value }

/** Per-token parts of verl compute_policy_loss (vanilla, dual-clip); shared by every aggregation. */
export function grpoTokenTerms(x: Omit<GrpoInputs, 'mask'>) {
  const negApproxKl = O.clamp(O.sub(x.logp, x.oldLogp), -20, 20);
  const ratio = O.exp(negApproxKl);
  const negAdv = O.neg(x.advantages);
  const pg1 = O.mul(negAdv, ratio);
  const pg2 = O.mul(negAdv, O.clamp(ratio, O.sub(1, x.clipLow), O.add(1, x.clipHigh)));
  const clipped1 = O.maximum(pg1, pg2);
  const pg3 = O.mul(negAdv, x.clipC);
  const clipped2 = O.minimum(pg3, clipped1);
  const advNeg = O.less(x.advantages, 0);
  const pg = O.where(advNeg, clipped2, clipped1);
  return { negApproxKl, pg1, pg2, clipped1, pg3, advNeg, pg };
}

/** verl compute_policy_loss (vanilla, dual-clip) + optional KL loss, aggregated with one mode. */
export function grpoLoss(x: GrpoInputs, agg: AggMode, klType: KlType, normBy?: number): GrpoOutputs {
  const { negApproxKl, pg1, pg2, clipped1, pg3, advNeg, pg } = grpoTokenTerms(x);
  const pgLoss = aggLoss(pg, x.mask, agg, normBy);

  const f = (b: Value) => O.cast(b, 'float32');
  const clipfrac = maskedMean(f(O.greater(pg2, pg1)), x.mask);
  const clipfracLower = maskedMean(O.mul(f(O.greater(clipped1, pg3)), f(advNeg)), x.mask);
  const ppoKl = maskedMean(O.neg(negApproxKl), x.mask);

  if (klType === 'none') return { loss: pgLoss, pgLoss, clipfrac, clipfracLower, ppoKl };
  if (!x.refLogp || !x.klCoef) throw new Error('KL needs ref log-probs and a coefficient');
  const klLoss = aggLoss(klPenalty(x.logp, x.refLogp, klType), x.mask, agg, normBy);
  return { loss: O.add(pgLoss, O.mul(klLoss, x.klCoef)), pgLoss, klLoss, clipfrac, clipfracLower, ppoKl };
}
