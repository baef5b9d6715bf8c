// Llama-style decoder: config, parameters (HF names and [out, in] layouts, so safetensors export
// is a straight copy), seeded init, and the ONE forward definition every graph is built from.
import type { Dim, Graph, Value } from './graph';
import * as O from './ops';
import { Rng } from './rng';

export interface LlamaConfig {
  model_type: 'llama';
  architectures?: string[];
  hidden_size: number;
  intermediate_size: number;
  num_hidden_layers: number;
  num_attention_heads: number;
  num_key_value_heads: number;
  vocab_size: number;
  max_position_embeddings: number;
  rms_norm_eps: number;
  rope_theta: number;
  tie_word_embeddings: boolean;
  hidden_act: 'silu';
  bos_token_id?: number;
  eos_token_id?: number;
  pad_token_id?: number;
  torch_dtype?: string;
}

export type PresetName = 'tiny' | 'small' | 'base';

const preset = (d: number, layers: number, heads: number, inter: number, vocab: number, maxPos: number): LlamaConfig => ({
  model_type: 'llama',
  architectures: ['LlamaForCausalLM'],
  hidden_size: d,
  intermediate_size: inter,
  num_hidden_layers: layers,
  num_attention_heads: heads,
  num_key_value_heads: heads,
  vocab_size: vocab,
  max_position_embeddings: maxPos,
  rms_norm_eps: 1e-5,
  rope_theta: 10000,
  tie_word_embeddings: false,
  hidden_act: 'silu',
  torch_dtype: 'float32',
});

export const PRESETS: Record<PresetName, LlamaConfig> = {
  tiny: preset(64, 2, 4, 192, 512, 512), // ~0.17M
  small: preset(128, 2, 4, 384, 512, 1024), // ~0.56M
  base: preset(256, 8, 4, 640, 4096, 2048), // ~8.1M
};

export function makeConfig(base: PresetName | LlamaConfig, overrides: Partial<LlamaConfig> = {}): LlamaConfig {
  const cfg = { ...(typeof base === 'string' ? PRESETS[base] : base), ...overrides };
  if (overrides.num_attention_heads && !overrides.num_key_value_heads) cfg.num_key_value_heads = cfg.num_attention_heads;
  if (cfg.hidden_size % cfg.num_attention_heads) throw new Error('hidden_size must divide by num_attention_heads');
  if (!(cfg.num_key_value_heads > 0) || cfg.num_attention_heads % cfg.num_key_value_heads) throw new Error('num_attention_heads must be a multiple of num_key_value_heads (grouped-query attention)');
  if ((cfg.hidden_size / cfg.num_attention_heads) % 2) throw new Error('head_dim must be even (rotary)');
  return cfg;
}

export const headDim = (cfg: LlamaConfig) => cfg.hidden_size / cfg.num_attention_heads;

export interface ParamSpec { name: string; shape: number[] }
export type Params = Record<string, Float32Array>;

/**
 * Parameter names and shapes in a fixed order (HF llama names; linear weights are [out, in]). Grouped-query
 * attention narrows k_proj/v_proj to num_key_value_heads·head_dim rows; tied embeddings have no lm_head.weight
 * (the head reads model.embed_tokens.weight, as in HF checkpoints such as SmolLM2).
 */
export function paramSpecs(cfg: LlamaConfig): ParamSpec[] {
  const d = cfg.hidden_size, f = cfg.intermediate_size, kv = cfg.num_key_value_heads * headDim(cfg);
  const out: ParamSpec[] = [{ name: 'model.embed_tokens.weight', shape: [cfg.vocab_size, d] }];
  for (let i = 0; i < cfg.num_hidden_layers; i++) {
    const p = `model.layers.${i}`;
    out.push(
      { name: `${p}.input_layernorm.weight`, shape: [d] },
      { name: `${p}.self_attn.q_proj.weight`, shape: [d, d] },
      { name: `${p}.self_attn.k_proj.weight`, shape: [kv, d] },
      { name: `${p}.self_attn.v_proj.weight`, shape: [kv, d] },
      { name: `${p}.self_attn.o_proj.weight`, shape: [d, d] },
      { name: `${p}.post_attention_layernorm.weight`, shape: [d] },
      { name: `${p}.mlp.gate_proj.weight`, shape: [f, d] },
      { name: `${p}.mlp.up_proj.weight`, shape: [f, d] },
      { name: `${p}.mlp.down_proj.weight`, shape: [d, f] },
    );
  }
  out.push({ name: 'model.norm.weight', shape: [d] });
  if (!cfg.tie_word_embeddings) out.push({ name: 'lm_head.weight', shape: [cfg.vocab_size, d] });
  return out;
}

export const countParams = (cfg: LlamaConfig) =>
  paramSpecs(cfg).reduce((s, p) => s + p.shape.reduce((a, b) => a * b, 1), 0);

/**
 * Seeded init: norms = 1, everything else N(0, 0.02) like HF's initializer_range, except the
 * residual-output projections which are scaled by 1/sqrt(2·layers) (GPT-2 style) so that deeper
 * presets start with a sane residual stream.
 */
export function initParams(cfg: LlamaConfig, seed = 0): Params {
  const rng = new Rng(seed);
  const out: Params = {};
  const resid = 0.02 / Math.sqrt(2 * cfg.num_hidden_layers);
  for (const { name, shape } of paramSpecs(cfg)) {
    const a = new Float32Array(shape.reduce((x, y) => x * y, 1));
    if (name.endsWith('norm.weight')) a.fill(1);
    else rng.fillNormal(a, /o_proj|down_proj/.test(name) ? resid : 0.02);
    out[name] = a;
  }
  return out;
}

export const cloneParams = (p: Params): Params =>
  Object.fromEntries(Object.entries(p).map(([k, v]) => [k, v.slice()]));

/** HF rotary tables (cos/sin of cat(freqs, freqs)) for positions [0, n). */
export function ropeTables(cfg: LlamaConfig, n: number): { cos: Float32Array; sin: Float32Array } {
  const hd = headDim(cfg), half = hd / 2;
  const cos = new Float32Array(n * hd), sin = new Float32Array(n * hd);
  for (let p = 0; p < n; p++) {
    for (let i = 0; i < half; i++) {
      const invFreq = Math.fround(1 / Math.pow(cfg.rope_theta, (2 * i) / hd));
      const a = Math.fround(p * invFreq);
      cos[p * hd + i] = cos[p * hd + i + half] = Math.cos(a);
      sin[p * hd + i] = sin[p * hd + i + half] = Math.sin(a);
    }
  }
  return { cos, sin };
}

/** rotate_half as a fixed ±1 matrix R (x·R = cat(-x2, x1)), so RoPE needs only MatMul/Mul/Add. */
export function rotateHalfMatrix(hd: number): Float32Array {
  const half = hd / 2, r = new Float32Array(hd * hd);
  for (let i = 0; i < half; i++) {
    r[(i + half) * hd + i] = -1;
    r[i * hd + i + half] = 1;
  }
  return r;
}

export const NEG_INF = -1e9; // additive mask value; finite so fully masked rows stay NaN-free

export interface KV { key: Value; value: Value }

export interface ForwardContext {
  batch: Dim;
  seq: Dim; // number of new tokens
  cos: Value; // broadcastable to [batch, heads, seq, head_dim]
  sin: Value;
  bias: Value; // additive attention bias, broadcastable to [batch, heads, seq, past+seq]
  past?: KV[]; // [batch, kv_heads, past, head_dim] per layer
  /**
   * 'onehot' (default): one-hot MatMul, whose gradient is a MatMul (training). 'gather': a plain
   * lookup for inference graphs (int64 ids; no [tokens, vocab] one-hot, and Gather stays on WebGPU).
   */
  embedding?: 'onehot' | 'gather';
  /** Applied to the final normed hidden states [batch·seq, d] before the LM head (training graphs pick the rows they score). */
  beforeHead?: (h: Value) => Value;
}

export interface ForwardResult {
  logits: Value; // [batch·seq, vocab]
  newKV: KV[]; // this call's keys (after rotary) and values, [batch, kv_heads, seq, head_dim]
  present: KV[]; // past ++ new
}

/** The decoder. `ids` is int32/int64 [batch, seq]; `W` maps HF parameter names to graph values. */
export function decoderForward(cfg: LlamaConfig, W: Record<string, Value>, ids: Value, ctx: ForwardContext): ForwardResult {
  const g: Graph = ids.g;
  const d = cfg.hidden_size, H = cfg.num_attention_heads, KVH = cfg.num_key_value_heads, hd = headDim(cfg);
  const group = H / KVH; // query heads per key/value head
  const { batch: B, seq: T } = ctx;
  const linear = (x: Value, w: string) => O.gemm(x, W[w], 0, 1);
  const rmsNorm = (x: Value, w: string) => {
    const inv = O.reciprocal(O.sqrt(O.add(O.reduceMean(O.mul(x, x), [-1], true), cfg.rms_norm_eps)));
    return O.mul(O.mul(x, inv), W[w]);
  };
  const R = g.const(rotateHalfMatrix(hd), [hd, hd]);
  const rope = (x: Value) => O.add(O.mul(x, ctx.cos), O.mul(O.matmul(x, R), ctx.sin));
  const splitHeads = (x: Value, heads = H) => O.transpose(O.reshape(x, [B, T, heads, hd]), [0, 2, 1, 3]);
  // Grouped-query attention without copying K/V: query head h reads kv head ⌊h / group⌋ (HF repeat_kv), so the
  // group's queries [B, H, T, hd] are viewed as [B, KVH, group·T, hd] against [B, KVH, S, hd] keys; the scores
  // go back to [B, H, T, S] for the bias and softmax. The MatMul gradients sum over each group by themselves.
  // Reshape's 0 copies batch and the last dim from the input, so dynamic lengths (past + new) need no Shape ops.
  const heads = (x: Value, n: number, rows: Dim) => (group === 1 ? x
    : g.node('Reshape', [x, g.const([0, n, -1, 0], [4], 'int64')], [{ dtype: x.dtype, shape: [x.shape[0], n, rows, x.shape[3]] }])[0]);
  const grouped = (x: Value) => heads(x, KVH, typeof T === 'number' ? group * T : `${group}*${T}`);
  const ungrouped = (x: Value) => heads(x, H, T);
  const scale = 1 / Math.sqrt(hd);

  const flatIds = O.reshape(ids, [-1]);
  let h = ctx.embedding === 'gather' ? O.gather(W['model.embed_tokens.weight'], flatIds)
    : O.gemm(O.oneHot(flatIds, cfg.vocab_size), W['model.embed_tokens.weight']);
  const newKV: KV[] = [], present: KV[] = [];
  for (let i = 0; i < cfg.num_hidden_layers; i++) {
    const p = `model.layers.${i}`;
    const x = rmsNorm(h, `${p}.input_layernorm.weight`);
    const q = rope(splitHeads(linear(x, `${p}.self_attn.q_proj.weight`)));
    const k = rope(splitHeads(linear(x, `${p}.self_attn.k_proj.weight`), KVH));
    const v = splitHeads(linear(x, `${p}.self_attn.v_proj.weight`), KVH);
    newKV.push({ key: k, value: v });
    const past = ctx.past?.[i];
    const K = past ? O.concat([past.key, k], 2) : k;
    const V = past ? O.concat([past.value, v], 2) : v;
    present.push({ key: K, value: V });
    const scores = O.add(ungrouped(O.matmul(grouped(O.mul(q, scale)), O.transpose(K, [0, 1, 3, 2]))), ctx.bias);
    const att = ungrouped(O.matmul(grouped(O.softmax(scores, -1)), V));
    const merged = O.reshape(O.transpose(att, [0, 2, 1, 3]), [-1, d]);
    h = O.add(h, linear(merged, `${p}.self_attn.o_proj.weight`));

    const y = rmsNorm(h, `${p}.post_attention_layernorm.weight`);
    const gate = linear(y, `${p}.mlp.gate_proj.weight`);
    const act = O.mul(O.mul(gate, O.sigmoid(gate)), linear(y, `${p}.mlp.up_proj.weight`));
    h = O.add(h, linear(act, `${p}.mlp.down_proj.weight`));
  }
  const normed = rmsNorm(h, 'model.norm.weight');
  // Tied: the same value feeds the embedding and the head, so its gradient is the sum of both uses.
  const logits = linear(ctx.beforeHead ? ctx.beforeHead(normed) : normed, cfg.tie_word_embeddings ? 'model.embed_tokens.weight' : 'lm_head.weight');
  return { logits, newKV, present };
}
