// The Qwen3 decoder architecture (HF `Qwen3ForCausalLM`) as an ONNX inference graph with the onnx-community
// I/O names, built with our graph builder. What differs from the Llama decoder in ../decoder.ts:
//   - grouped-query attention: num_key_value_heads < num_attention_heads, the KV cache holds KV heads only;
//   - an explicit head_dim (q_proj is [heads·head_dim, hidden], not necessarily [hidden, hidden]);
//   - RMSNorm over head_dim on every query and key head (q_norm, k_norm) before the rotary embedding;
//   - tied embeddings: no lm_head, logits = h · embed_tokensᵀ.
// It exists for the offline Qwen3 fixture (and is checked against a plain-JS forward in tests); models from the
// hub run through transformers.js, which builds nothing and only loads their ONNX files.

import { Graph, type Value } from '../graph';
import * as O from '../ops';
import { NEG_INF, rotateHalfMatrix } from '../decoder';
import type { BuiltGraph } from '../graphs';
import { Rng } from '../rng';

/** The config.json fields the graph needs (HF Qwen3Config names). */
export interface Qwen3Config {
  model_type: 'qwen3';
  architectures: string[];
  hidden_size: number;
  intermediate_size: number;
  num_hidden_layers: number;
  num_attention_heads: number;
  num_key_value_heads: number;
  head_dim: number;
  vocab_size: number;
  max_position_embeddings: number;
  rms_norm_eps: number;
  rope_theta: number;
  tie_word_embeddings: true;
  hidden_act: 'silu';
  attention_bias: false;
  bos_token_id: number;
  eos_token_id: number;
  torch_dtype: 'float32';
  [extra: string]: unknown;
}

export type Qwen3Params = Record<string, Float32Array>;

export function checkQwen3Config(c: Qwen3Config): void {
  const problems: string[] = [];
  if (c.model_type !== 'qwen3') problems.push(`model_type must be qwen3 (got ${String(c.model_type)})`);
  if (c.num_attention_heads % c.num_key_value_heads) problems.push('num_attention_heads must be a multiple of num_key_value_heads');
  if (c.head_dim % 2) problems.push('head_dim must be even (rotary)');
  if (!c.tie_word_embeddings) problems.push('only tied embeddings are built');
  if (problems.length) throw new Error(`Qwen3 config: ${problems.join('; ')}`);
}

/** HF parameter names and shapes ([out, in] linears), in a fixed order. No lm_head: it is the embedding. */
export function qwen3ParamSpecs(c: Qwen3Config): { name: string; shape: number[] }[] {
  const d = c.hidden_size, f = c.intermediate_size, hd = c.head_dim, H = c.num_attention_heads, KV = c.num_key_value_heads;
  const out = [{ name: 'model.embed_tokens.weight', shape: [c.vocab_size, d] }];
  for (let i = 0; i < c.num_hidden_layers; i++) {
    const p = `model.layers.${i}`;
    out.push(
      { name: `${p}.input_layernorm.weight`, shape: [d] },
      { name: `${p}.self_attn.q_proj.weight`, shape: [H * hd, d] },
      { name: `${p}.self_attn.k_proj.weight`, shape: [KV * hd, d] },
      { name: `${p}.self_attn.v_proj.weight`, shape: [KV * hd, d] },
      { name: `${p}.self_attn.o_proj.weight`, shape: [d, H * hd] },
      { name: `${p}.self_attn.q_norm.weight`, shape: [hd] },
      { name: `${p}.self_attn.k_norm.weight`, shape: [hd] },
      { name: `${p}.post_attention_layernorm.weight`, shape: [d] },
      { name: `${p}.mlp.gate_proj.weight`, shape: [f, d] },
      { name: `${p}.mlp.up_proj.weight`, shape: [f, d] },
      { name: `${p}.mlp.down_proj.weight`, shape: [d, f] },
    );
  }
  out.push({ name: 'model.norm.weight', shape: [d] });
  return out;
}

/**
 * Seeded random weights. Norm weights are 1 ± 0.1 rather than exactly 1, so a norm applied to the wrong
 * axis or skipped changes the output; `embedStd` sets how peaked the (tied) logits are.
 */
export function initQwen3Params(c: Qwen3Config, seed = 0, embedStd = 0.5): Qwen3Params {
  const rng = new Rng(seed);
  const out: Qwen3Params = {};
  for (const { name, shape } of qwen3ParamSpecs(c)) {
    const a = new Float32Array(shape.reduce((x, y) => x * y, 1));
    if (name.endsWith('norm.weight')) { rng.fillNormal(a, 0.1); for (let i = 0; i < a.length; i++) a[i] += 1; }
    else rng.fillNormal(a, name === 'model.embed_tokens.weight' ? embedStd : 0.2);
    out[name] = a;
  }
  return out;
}

/** HF rotary tables for head_dim (cos/sin of cat(freqs, freqs)), positions [0, n). */
export function qwen3RopeTables(c: Pick<Qwen3Config, 'head_dim' | 'rope_theta'>, n: number): { cos: Float32Array; sin: Float32Array } {
  const hd = c.head_dim, half = hd / 2;
  const cos = new Float32Array(n * hd), sin = new Float32Array(n * hd);
  for (let p = 0; p < n; p++) {
    for (let i = 0; i < half; i++) {
      const invFreq = Math.fround(1 / Math.pow(c.rope_theta, (2 * i) / hd));
      const a = Math.fround(p * invFreq);
      cos[p * hd + i] = cos[p * hd + i + half] = Math.cos(a);
      sin[p * hd + i] = sin[p * hd + i + half] = Math.sin(a);
    }
  }
  return { cos, sin };
}

export interface Qwen3GraphOptions {
  lastLogitsOnly?: boolean;
  /** Declare the optional num_logits_to_keep input (default true); without it logits cover every position, as in older exports. */
  logitsToKeepInput?: boolean;
}

/**
 * Inputs input_ids, attention_mask [batch, past+seq], position_ids, past_key_values.{i}.key/value
 * [batch, kv_heads, past, head_dim], num_logits_to_keep (int64 scalar); outputs logits [batch, kept, vocab]
 * and present.{i}.key/value
 * [batch, kv_heads, past+seq, head_dim] — the onnx-community names transformers.js feeds and reads.
 */
export function buildQwen3Inference(c: Qwen3Config, params: Qwen3Params, opts: Qwen3GraphOptions = {}): BuiltGraph {
  checkQwen3Config(c);
  const g = new Graph();
  const d = c.hidden_size, H = c.num_attention_heads, KV = c.num_key_value_heads, G = H / KV, hd = c.head_dim;
  const maxPos = c.max_position_embeddings, eps = c.rms_norm_eps;
  const B = 'batch_size', T = 'sequence_length', TOTAL = 'total_sequence_length';
  const ids = g.input('input_ids', 'int64', [B, T]);
  const mask = g.input('attention_mask', 'int64', [B, TOTAL]);
  const pos = g.input('position_ids', 'int64', [B, T]);
  const past = Array.from({ length: c.num_hidden_layers }, (_, i) => ({
    key: g.input(`past_key_values.${i}.key`, 'float32', [B, KV, 'past_sequence_length', hd]),
    value: g.input(`past_key_values.${i}.value`, 'float32', [B, KV, 'past_sequence_length', hd]),
  }));
  const W: Record<string, Value> = Object.create(null);
  for (const { name, shape } of qwen3ParamSpecs(c)) {
    if (!params[name]) throw new Error(`missing parameter ${name}`);
    W[name] = g.initializer(name, params[name], shape);
  }

  const rms = (x: Value, w: string) => O.mul(O.mul(x, O.reciprocal(O.sqrt(O.add(O.reduceMean(O.mul(x, x), [-1], true), eps)))), W[w]);
  const linear = (x: Value, w: string) => O.gemm(x, W[w], 0, 1);
  const tables = qwen3RopeTables(c, maxPos);
  const lookup = (t: Float32Array) => O.unsqueeze(O.gather(g.const(t, [maxPos, hd]), pos), [1]);
  const cos = lookup(tables.cos), sin = lookup(tables.sin);
  const R = g.const(rotateHalfMatrix(hd), [hd, hd]);
  const rope = (x: Value) => O.add(O.mul(x, cos), O.mul(O.matmul(x, R), sin));
  // [B·T, heads·hd] → [B, heads, T, hd], with the per-head RMSNorm (Qwen3's q_norm / k_norm) before the transpose.
  const heads = (x: Value, n: number, norm?: string) => {
    const split = O.reshape(x, [B, T, n, hd]);
    return O.transpose(norm ? rms(split, norm) : split, [0, 2, 1, 3]);
  };

  // Additive mask [B, 1, T, past+T]: causal over cache indices plus left padding (as in ../graphs.ts).
  const arange = g.const(Array.from({ length: 2 * maxPos }, (_, i) => i), [2 * maxPos]);
  const P = g.dimValue('past_sequence_length'), total = g.dimValue(TOTAL);
  const rows = O.slice(arange, P, total, [0], [T]);
  const cols = O.slice(arange, [0], total, [0], [TOTAL]);
  const causal = O.where(O.greater(O.unsqueeze(cols, [0]), O.unsqueeze(rows, [1])), g.const(NEG_INF), 0);
  const padding = O.unsqueeze(O.mul(O.sub(1, O.cast(mask, 'float32')), NEG_INF), [1, 2]);
  const bias5 = O.unsqueeze(O.add(causal, padding), [1]); // [B, 1, 1, T, total]
  const scale = 1 / Math.sqrt(hd);

  let h = O.gather(W['model.embed_tokens.weight'], O.reshape(ids, [-1]));
  const present: { key: Value; value: Value }[] = [];
  for (let i = 0; i < c.num_hidden_layers; i++) {
    const p = `model.layers.${i}`;
    const x = rms(h, `${p}.input_layernorm.weight`);
    const q = rope(heads(linear(x, `${p}.self_attn.q_proj.weight`), H, `${p}.self_attn.q_norm.weight`));
    const k = rope(heads(linear(x, `${p}.self_attn.k_proj.weight`), KV, `${p}.self_attn.k_norm.weight`));
    const v = heads(linear(x, `${p}.self_attn.v_proj.weight`), KV);
    const K = O.concat([past[i].key, k], 2), V = O.concat([past[i].value, v], 2);
    present.push({ key: K, value: V });
    // Grouped-query attention without repeating K/V: query head h uses KV head ⌊h/G⌋, so the G query heads
    // of a group are stacked along the sequence axis ([B, KV, G·T, hd]) and share one MatMul with their K/V.
    const qg = O.reshape(O.mul(q, scale), [B, KV, -1, hd]);
    const scores = O.reshape(O.matmul(qg, O.transpose(K, [0, 1, 3, 2])), [B, KV, G, T, TOTAL]);
    const probs = O.reshape(O.softmax(O.add(scores, bias5), -1), [B, KV, -1, TOTAL]);
    const att = O.reshape(O.matmul(probs, V), [B, H, T, hd]);
    const merged = O.reshape(O.transpose(att, [0, 2, 1, 3]), [-1, H * hd]);
    h = O.add(h, linear(merged, `${p}.self_attn.o_proj.weight`));
    const y = rms(h, `${p}.post_attention_layernorm.weight`);
    const gate = linear(y, `${p}.mlp.gate_proj.weight`);
    h = O.add(h, linear(O.mul(O.mul(gate, O.sigmoid(gate)), linear(y, `${p}.mlp.up_proj.weight`)), `${p}.mlp.down_proj.weight`));
  }
  // Tied embeddings: the output projection is the embedding matrix. Only the kept positions are projected (a
  // [tokens, 151,936] logits tensor for a long prompt would be gigabytes): `num_logits_to_keep` is the optional
  // input transformers.js feeds when a graph declares it (0 = every position, k = the last k).
  const hs = O.reshape(rms(h, 'model.norm.weight'), [B, T, d]);
  let kept: Value;
  if (opts.lastLogitsOnly) kept = O.slice(hs, [-1], [2 ** 31 - 1], [1], [B, 1, d]);
  else if (opts.logitsToKeepInput === false) kept = hs;
  else {
    const keep = O.reshape(g.input('num_logits_to_keep', 'int64', []), [1]);
    const start = O.where(O.greater(keep, 0), O.sub(g.dimValue(T), keep), g.const([0], [1], 'int64'));
    kept = O.slice(hs, start, [2 ** 31 - 1], [1], [B, 'kept_sequence_length', d]);
  }
  const logits = O.matmul(kept, O.transpose(W['model.embed_tokens.weight'], [1, 0]));
  g.output(logits, 'logits', [B, opts.lastLogitsOnly ? 1 : opts.logitsToKeepInput === false ? T : 'kept_sequence_length', c.vocab_size]);
  present.forEach((x, i) => {
    g.output(x.key, `present.${i}.key`, [B, KV, TOTAL, hd]);
    g.output(x.value, `present.${i}.value`, [B, KV, TOTAL, hd]);
  });
  return { bytes: g.serialize({ docString: 'qwen3 decoder (onnx-community I/O)' }), inputNames: g.inputs.map((v) => v.name), outputNames: g.outputs.map((v) => v.name) };
}
