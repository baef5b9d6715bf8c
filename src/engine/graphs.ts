// The graphs the engine runs, all built from decoderForward: HF-convention inference with KV
// cache, a decode step that returns only the new keys/values, a forward-only graph, and the
// training graph (forward + loss + gradients) with weights as inputs.
import { gradients } from './autodiff';
import { Graph, type Value } from './graph';
import { type LlamaConfig, type Params, NEG_INF, decoderForward, headDim, paramSpecs, ropeTables } from './decoder';
import { type LossSpec, type PackedLossSpec, grpoLoss, grpoTokenTerms, klPenalty, lossKey, maskedMean, packedLossKey, tokenStats } from './losses';
import * as O from './ops';

export interface BuiltGraph {
  bytes: Uint8Array;
  inputNames: string[];
  outputNames: string[];
}

function finish(g: Graph, doc: string): BuiltGraph {
  return { bytes: g.serialize({ docString: doc }), inputNames: g.inputs.map((v) => v.name), outputNames: g.outputs.map((v) => v.name) };
}

function weightInitializers(g: Graph, cfg: LlamaConfig, params: Params): Record<string, Value> {
  const W: Record<string, Value> = Object.create(null);
  for (const { name, shape } of paramSpecs(cfg)) {
    if (!params[name]) throw new Error(`missing parameter ${name}`);
    W[name] = g.initializer(name, params[name], shape);
  }
  return W;
}

export interface InferenceOptions {
  /** Only the last position's logits ([batch, 1, vocab]); saves copying [batch, seq, vocab] after a prefill. */
  lastLogitsOnly?: boolean;
  /**
   * Run the LM head on each row's last position only (logits [batch, 1, vocab]). A sampler keeps one logits row
   * per request, and with a small hidden size the head is a large share of a prefill's FLOPs; `lastLogitsOnly`
   * computes every position's logits and slices after. The sampler's one graph for prefill, extension and
   * decoding is `exportDecodeStep` with this set.
   */
  headOnLastPosition?: boolean;
  /**
   * Weights as graph inputs (HF names, after the token/cache inputs) instead of initializers: one
   * session then serves every weight version (RL policy updates without re-exporting or recompiling
   * shaders); `params` may be omitted. Not for transformers.js, which expects baked weights.
   */
  weightsAsInputs?: boolean;
}

/**
 * Dynamic-shape decoder with KV cache in the Hugging Face convention: inputs input_ids,
 * attention_mask [batch, past+seq], position_ids, past_key_values.{i}.key/value; outputs logits and
 * present.{i}.key/value (full cache) or, for `step`, new.{i}.key/value (this call's entries only).
 */
function buildInference(cfg: LlamaConfig, params: Params | undefined, mode: 'hf' | 'step', opts: InferenceOptions): BuiltGraph {
  const g = new Graph();
  const H = cfg.num_key_value_heads, hd = headDim(cfg), maxPos = cfg.max_position_embeddings; // cache heads (grouped-query attention)
  const ids = g.input('input_ids', 'int64', ['batch_size', 'sequence_length']);
  const mask = g.input('attention_mask', 'int64', ['batch_size', 'total_sequence_length']);
  const pos = g.input('position_ids', 'int64', ['batch_size', 'sequence_length']);
  const past = Array.from({ length: cfg.num_hidden_layers }, (_, i) => ({
    key: g.input(`past_key_values.${i}.key`, 'float32', ['batch_size', H, 'past_sequence_length', hd]),
    value: g.input(`past_key_values.${i}.value`, 'float32', ['batch_size', H, 'past_sequence_length', hd]),
  }));
  const W = opts.weightsAsInputs ? weightInputs(g, cfg) : weightInitializers(g, cfg, params ?? {});

  const tables = ropeTables(cfg, maxPos);
  const lookup = (t: Float32Array) => O.unsqueeze(O.gather(g.const(t, [maxPos, hd]), pos), [1]);

  // Causal part: query at cache index past+r sees columns c <= past+r. Built by comparing slices of
  // a constant arange, so no Range/CumSum ops and no [maxPos, maxPos] constant. Cache indices may
  // run past maxPos (a fixed-capacity cache with masked slots, see kvcache.ts), hence 2·maxPos.
  const arange = g.const(Array.from({ length: 2 * maxPos }, (_, i) => i), [2 * maxPos]);
  const P = g.dimValue('past_sequence_length'), total = g.dimValue('total_sequence_length');
  const rows = O.slice(arange, P, total, [0], ['sequence_length']);
  const cols = O.slice(arange, [0], total, [0], ['total_sequence_length']);
  const negInf = g.const(NEG_INF);
  const causal = O.where(O.greater(O.unsqueeze(cols, [0]), O.unsqueeze(rows, [1])), negInf, 0);
  const padding = O.unsqueeze(O.mul(O.sub(1, O.cast(mask, 'float32')), NEG_INF), [1, 2]);

  const d = cfg.hidden_size;
  const lastOnly = (h: Value) => O.reshape(
    O.slice(O.reshape(h, ['batch_size', 'sequence_length', d]), [-1], [2 ** 31 - 1], [1], ['batch_size', 1, d]), [-1, d]);
  const out = decoderForward(cfg, W, ids, {
    batch: 'batch_size', seq: 'sequence_length',
    cos: lookup(tables.cos), sin: lookup(tables.sin),
    bias: O.add(causal, padding), past, embedding: 'gather',
    beforeHead: opts.headOnLastPosition ? lastOnly : undefined,
  });
  let logits = O.reshape(out.logits, ['batch_size', opts.headOnLastPosition ? 1 : 'sequence_length', cfg.vocab_size]);
  if (opts.lastLogitsOnly) logits = O.slice(logits, [-1], [2 ** 31 - 1], [1], ['batch_size', 1, cfg.vocab_size]);
  g.output(logits, 'logits');
  const kv = mode === 'hf' ? out.present : out.newKV;
  const prefix = mode === 'hf' ? 'present' : 'new';
  const kvShape = ['batch_size', H, mode === 'hf' ? 'total_sequence_length' : 'sequence_length', hd];
  kv.forEach((x, i) => {
    g.output(x.key, `${prefix}.${i}.key`, kvShape);
    g.output(x.value, `${prefix}.${i}.value`, kvShape);
  });
  return finish(g, `llama decoder (${mode})`);
}

export const exportInference = (cfg: LlamaConfig, params: Params | undefined, opts: InferenceOptions = {}) =>
  buildInference(cfg, params, 'hf', opts);

/** Same inputs as exportInference; outputs logits and new.{i}.key/value [batch, heads, seq, head_dim]. */
export const exportDecodeStep = (cfg: LlamaConfig, params: Params | undefined, opts: InferenceOptions = {}) =>
  buildInference(cfg, params, 'step', opts);

// ---------------- static-shape graphs with weights as inputs ----------------

function weightInputs(g: Graph, cfg: LlamaConfig): Record<string, Value> {
  const W: Record<string, Value> = Object.create(null);
  for (const { name, shape } of paramSpecs(cfg)) W[name] = g.input(name, 'float32', shape);
  return W;
}

function staticForward(g: Graph, cfg: LlamaConfig, B: number, T: number) {
  const W = weightInputs(g, cfg);
  // int32 ids: the WebGPU EP has no int64 Equal/Reshape kernels, so int64 would pull the one-hot onto the CPU.
  const ids = g.input('input_ids', 'int32', [B, T]);
  const hd = headDim(cfg);
  const tables = ropeTables(cfg, T);
  const bias = new Float32Array(T * T);
  for (let r = 0; r < T; r++) for (let c = r + 1; c < T; c++) bias[r * T + c] = NEG_INF;
  const out = decoderForward(cfg, W, ids, {
    batch: B, seq: T,
    cos: g.const(tables.cos, [T, hd]), sin: g.const(tables.sin, [T, hd]),
    bias: g.const(bias, [T, T]),
  });
  return { W, ids, logits: out.logits };
}

/**
 * Packed rows (see packing.ts): each graph row holds several sequences, or a prefix tree of them.
 * position_ids (int32 [B, T]) pick the rotary angles per token and attention_bias (float [B, T, T],
 * 0 = may attend, NEG_INF = may not) replaces the constant causal bias, so a token sees exactly the
 * tokens it would see in its own unpacked row.
 */
function packedForward(g: Graph, cfg: LlamaConfig, B: number, T: number, select?: number) {
  const W = weightInputs(g, cfg);
  const ids = g.input('input_ids', 'int32', [B, T]);
  const pos = g.input('position_ids', 'int32', [B, T]);
  const bias = g.input('attention_bias', 'float32', [B, T, T]);
  const hd = headDim(cfg), maxPos = cfg.max_position_embeddings;
  const tables = ropeTables(cfg, maxPos);
  const lookup = (t: Float32Array) => O.unsqueeze(O.gather(g.const(t, [maxPos, hd]), pos), [1]);
  // select: only Ns positions per row need logits (the trained ones); a one-hot [B, Ns, T] MatMul picks
  // their hidden states, so the LM head and the log-softmax run on Ns rows instead of T (its gradient is
  // a MatMul too; Gather has no gradient rule here).
  const sel = select ? g.input('select', 'float32', [B, select, T]) : undefined;
  const beforeHead = sel ? (h: Value) => O.reshape(O.matmul(sel, O.reshape(h, [B, T, cfg.hidden_size])), [B * select!, cfg.hidden_size]) : undefined;
  const out = decoderForward(cfg, W, ids, {
    batch: B, seq: T, cos: lookup(tables.cos), sin: lookup(tables.sin), bias: O.unsqueeze(bias, [1]), beforeHead,
  });
  return { W, ids, logits: out.logits };
}

/** The GRPO graph inputs shared by the padded and the packed training graphs (per-token tensors of `shape`). */
function grpoInputs(g: Graph, shape: number[], kl: boolean) {
  return {
    advantages: g.input('advantages', 'float32', shape),
    oldLogp: g.input('old_logprobs', 'float32', shape),
    refLogp: kl ? g.input('ref_logprobs', 'float32', shape) : undefined,
    clipLow: g.input('clip_ratio_low', 'float32', [1]),
    clipHigh: g.input('clip_ratio_high', 'float32', [1]),
    clipC: g.input('clip_ratio_c', 'float32', [1]),
    klCoef: kl ? g.input('kl_coef', 'float32', [1]) : undefined,
  };
}

/**
 * Training graph for packed batches. Inputs: parameters, input_ids, position_ids, attention_bias,
 * target_ids (int32 [B, T]), loss_weight (float [B, T]); GRPO adds advantages, old_logprobs,
 * clip_ratio_low/high/c (and ref_logprobs, kl_coef when kl ≠ none), as in buildTrainGraph.
 * loss = Σ loss_weight·token loss (−log p for 'ce'; verl's clipped policy loss + kl_coef·KL for
 * 'grpo'): the aggregation mode lives in the weights, computed by the caller.
 * Outputs: loss, logprobs, entropy [B, T], grad.<param>; GRPO adds pg_loss, kl_loss (weighted sums)
 * and clipfrac_sum, clipfrac_lower_sum, ppo_kl_sum (plain sums over tokens with weight > 0, so that
 * sums over several calls divide by the token count into verl's token means).
 */
export function buildPackedTrainGraph(cfg: LlamaConfig, B: number, T: number, loss: PackedLossSpec, opts: TrainGraphOptions & { select?: number } = {}): BuiltGraph {
  const g = new Graph();
  const { W, logits } = packedForward(g, cfg, B, T, opts.select);
  const N = opts.select ?? T; // scored positions per row
  const targets = g.input('target_ids', 'int32', [B, N]);
  const weight = g.input('loss_weight', 'float32', [B, N]);
  const stats = tokenStats(logits, O.reshape(targets, [-1]));
  const logp = O.reshape(stats.logp, [B, N]);
  const wsum = (x: Value) => O.reduceSum(O.mul(x, weight));
  const extra: [Value, string][] = [];
  let total: Value;
  if (loss.kind === 'ce') {
    total = O.neg(wsum(logp));
  } else {
    const { advantages, oldLogp, refLogp, clipLow, clipHigh, clipC, klCoef } = grpoInputs(g, [B, N], loss.kl !== 'none');
    const t = grpoTokenTerms({ logp, oldLogp, advantages, clipLow, clipHigh, clipC });
    const pgLoss = wsum(t.pg);
    total = pgLoss;
    extra.push([pgLoss, 'pg_loss']);
    if (loss.kl !== 'none') {
      const klLoss = wsum(klPenalty(logp, refLogp!, loss.kl));
      total = O.add(pgLoss, O.mul(klLoss, klCoef!));
      extra.push([klLoss, 'kl_loss']);
    }
    const f = (b: Value) => O.cast(b, 'float32');
    const trained = f(O.greater(weight, 0));
    const msum = (x: Value) => O.reduceSum(O.mul(x, trained));
    extra.push([msum(f(O.greater(t.pg2, t.pg1))), 'clipfrac_sum'], [msum(O.mul(f(O.greater(t.clipped1, t.pg3)), f(t.advNeg))), 'clipfrac_lower_sum'],
      [msum(O.neg(t.negApproxKl)), 'ppo_kl_sum']);
  }
  const names = paramSpecs(cfg).map((p) => p.name);
  const grads = opts.grads === false ? [] : gradients(total, names.map((n) => W[n]));
  g.output(total, 'loss');
  g.output(logp, 'logprobs');
  g.output(O.reshape(stats.entropy, [B, N]), 'entropy');
  for (const [v, n] of extra) g.output(v, n);
  grads.forEach((d, i) => g.output(d, `grad.${names[i]}`));
  return finish(g, `llama train ${packedLossKey(loss)} ${B}x${T}${opts.select ? ` select ${opts.select}` : ''}`);
}

/** Forward only: params + input_ids (int32 [B, T]) → logits [B, T, vocab]. Causal, positions 0..T-1. */
export function buildForwardGraph(cfg: LlamaConfig, B: number, T: number): BuiltGraph {
  const g = new Graph();
  const { logits } = staticForward(g, cfg, B, T);
  g.output(O.reshape(logits, [B, T, cfg.vocab_size]), 'logits');
  return finish(g, 'llama forward');
}

export interface TrainGraphOptions {
  /** false: no gradients (a scoring graph for old/ref log-probs); default true. */
  grads?: boolean;
}

/**
 * Forward + loss + gradients for a [B, T] batch. Rows are right-padded sequences starting at
 * position 0 (no attention_mask: causality already keeps padding out of earlier positions).
 *
 * Inputs: every parameter under its HF name; input_ids, target_ids (int32 [B, T]); loss_mask
 * (float [B, T]). GRPO adds advantages, old_logprobs (and ref_logprobs, kl_coef when kl ≠ none),
 * clip_ratio_low, clip_ratio_high, clip_ratio_c (float [1]). The loss kind, KL type and
 * aggregation mode are baked into the graph; the coefficients are inputs, so one session serves
 * any setting.
 *
 * Outputs: loss, logprobs [B, T] (log p(target)), entropy [B, T], grad.<param>; GRPO adds pg_loss,
 * kl_loss, clipfrac, clipfrac_lower, ppo_kl (verl metric names without the "actor/" prefix).
 */
export function buildTrainGraph(cfg: LlamaConfig, B: number, T: number, loss: LossSpec, opts: TrainGraphOptions = {}): BuiltGraph {
  const g = new Graph();
  const { W, logits } = staticForward(g, cfg, B, T);
  const targets = g.input('target_ids', 'int32', [B, T]);
  const mask = g.input('loss_mask', 'float32', [B, T]);
  const stats = tokenStats(logits, O.reshape(targets, [-1]));
  const logp = O.reshape(stats.logp, [B, T]);

  const extra: [Value, string][] = [];
  let total: Value;
  if (loss.kind === 'ce') {
    total = O.neg(maskedMean(logp, mask));
  } else {
    const { advantages, oldLogp, refLogp, clipLow, clipHigh, clipC, klCoef } = grpoInputs(g, [B, T], loss.kl !== 'none');
    const r = grpoLoss({ logp, oldLogp, refLogp, advantages, mask, clipLow, clipHigh, clipC, klCoef }, loss.agg, loss.kl, loss.normBy);
    total = r.loss;
    extra.push([r.pgLoss, 'pg_loss'], [r.clipfrac, 'clipfrac'], [r.clipfracLower, 'clipfrac_lower'], [r.ppoKl, 'ppo_kl']);
    if (r.klLoss) extra.push([r.klLoss, 'kl_loss']);
  }
  const names = paramSpecs(cfg).map((p) => p.name);
  const grads = opts.grads === false ? [] : gradients(total, names.map((n) => W[n]));
  g.output(total, 'loss');
  g.output(logp, 'logprobs');
  g.output(O.reshape(stats.entropy, [B, T]), 'entropy');
  for (const [v, n] of extra) g.output(v, n);
  grads.forEach((d, i) => g.output(d, `grad.${names[i]}`));
  return finish(g, `llama train ${lossKey(loss)} ${B}x${T}`);
}
