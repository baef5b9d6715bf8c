// Plain-JS float64 reference of the decoder and the losses, written independently of the graph
// code, so tests can check ORT results against it and take accurate finite differences.
import type { LlamaConfig } from '../../src/engine/decoder';
import type { AggMode, KlType } from '../../src/engine/losses';

export type P64 = Record<string, Float64Array>;
export const to64 = (p: Record<string, Float32Array>): P64 =>
  Object.fromEntries(Object.entries(p).map(([k, v]) => [k, Float64Array.from(v)]));

/** y[n, out] = x[n, in] · W[out, in]ᵀ */
function linear(x: Float64Array, n: number, W: Float64Array, out: number, inp: number): Float64Array {
  const y = new Float64Array(n * out);
  for (let r = 0; r < n; r++) for (let o = 0; o < out; o++) {
    let s = 0;
    for (let i = 0; i < inp; i++) s += x[r * inp + i] * W[o * inp + i];
    y[r * out + o] = s;
  }
  return y;
}

function rms(x: Float64Array, n: number, d: number, w: Float64Array, eps: number): Float64Array {
  const y = new Float64Array(n * d);
  for (let r = 0; r < n; r++) {
    let s = 0;
    for (let i = 0; i < d; i++) s += x[r * d + i] ** 2;
    const inv = 1 / Math.sqrt(s / d + eps);
    for (let i = 0; i < d; i++) y[r * d + i] = x[r * d + i] * inv * w[i];
  }
  return y;
}

/** Logits [B·T, V] for right-padded rows, positions 0..T-1, causal attention. */
export function refLogits(cfg: LlamaConfig, W: P64, ids: ArrayLike<number>, B: number, T: number): Float64Array {
  const d = cfg.hidden_size, H = cfg.num_attention_heads, hd = d / H, half = hd / 2, f = cfg.intermediate_size, V = cfg.vocab_size;
  // Grouped-query attention: query head hh reads key/value head ⌊hh / group⌋ of kvD-wide k/v rows.
  const KVH = cfg.num_key_value_heads ?? H, group = H / KVH, kvD = KVH * hd;
  const N = B * T;
  let h = new Float64Array(N * d);
  for (let r = 0; r < N; r++) for (let i = 0; i < d; i++) h[r * d + i] = W['model.embed_tokens.weight'][ids[r] * d + i];
  const rope = (x: Float64Array, heads = H) => {
    const w = heads * hd;
    for (let r = 0; r < N; r++) {
      const pos = r % T;
      for (let hh = 0; hh < heads; hh++) {
        const o = r * w + hh * hd;
        for (let i = 0; i < half; i++) {
          const ang = pos / Math.pow(cfg.rope_theta, (2 * i) / hd);
          const c = Math.cos(ang), s = Math.sin(ang);
          const a = x[o + i], b = x[o + i + half];
          x[o + i] = a * c - b * s;
          x[o + i + half] = b * c + a * s;
        }
      }
    }
  };
  for (let l = 0; l < cfg.num_hidden_layers; l++) {
    const p = `model.layers.${l}`;
    const x = rms(h, N, d, W[`${p}.input_layernorm.weight`], cfg.rms_norm_eps);
    const q = linear(x, N, W[`${p}.self_attn.q_proj.weight`], d, d);
    const k = linear(x, N, W[`${p}.self_attn.k_proj.weight`], kvD, d);
    const v = linear(x, N, W[`${p}.self_attn.v_proj.weight`], kvD, d);
    rope(q); rope(k, KVH);
    const att = new Float64Array(N * d);
    for (let b = 0; b < B; b++) for (let hh = 0; hh < H; hh++) for (let t = 0; t < T; t++) {
      const qi = (b * T + t) * d + hh * hd;
      const sc = new Float64Array(t + 1);
      let mx = -Infinity;
      for (let u = 0; u <= t; u++) {
        let s = 0;
        const ki = (b * T + u) * kvD + Math.floor(hh / group) * hd;
        for (let i = 0; i < hd; i++) s += q[qi + i] * k[ki + i];
        sc[u] = s / Math.sqrt(hd);
        mx = Math.max(mx, sc[u]);
      }
      let z = 0;
      for (let u = 0; u <= t; u++) { sc[u] = Math.exp(sc[u] - mx); z += sc[u]; }
      for (let u = 0; u <= t; u++) {
        const vi = (b * T + u) * kvD + Math.floor(hh / group) * hd;
        for (let i = 0; i < hd; i++) att[qi + i] += (sc[u] / z) * v[vi + i];
      }
    }
    const o = linear(att, N, W[`${p}.self_attn.o_proj.weight`], d, d);
    h = h.map((val, i) => val + o[i]);
    const y = rms(h, N, d, W[`${p}.post_attention_layernorm.weight`], cfg.rms_norm_eps);
    const gate = linear(y, N, W[`${p}.mlp.gate_proj.weight`], f, d);
    const up = linear(y, N, W[`${p}.mlp.up_proj.weight`], f, d);
    const act = gate.map((gv, i) => (gv / (1 + Math.exp(-gv))) * up[i]);
    const down = linear(act, N, W[`${p}.mlp.down_proj.weight`], d, f);
    h = h.map((val, i) => val + down[i]);
  }
  const head = cfg.tie_word_embeddings ? W['model.embed_tokens.weight'] : W['lm_head.weight'];
  return linear(rms(h, N, d, W['model.norm.weight'], cfg.rms_norm_eps), N, head, V, d);
}

export function refTokenLogp(logits: Float64Array, V: number, targets: ArrayLike<number>): { logp: Float64Array; entropy: Float64Array } {
  const N = logits.length / V;
  const logp = new Float64Array(N), entropy = new Float64Array(N);
  for (let r = 0; r < N; r++) {
    let mx = -Infinity;
    for (let i = 0; i < V; i++) mx = Math.max(mx, logits[r * V + i]);
    let z = 0;
    for (let i = 0; i < V; i++) z += Math.exp(logits[r * V + i] - mx);
    const lse = mx + Math.log(z);
    logp[r] = logits[r * V + targets[r]] - lse;
    let e = 0;
    for (let i = 0; i < V; i++) { const lp = logits[r * V + i] - lse; e -= Math.exp(lp) * lp; }
    entropy[r] = e;
  }
  return { logp, entropy };
}

const clampv = (x: number, lo: number, hi: number) => Math.min(Math.max(x, lo), hi);

export function refMaskedMean(x: ArrayLike<number>, m: ArrayLike<number>): number {
  let s = 0, c = 0;
  for (let i = 0; i < x.length; i++) { s += x[i] * m[i]; c += m[i]; }
  return s / Math.max(c, 1);
}

export function refAgg(loss: ArrayLike<number>, mask: ArrayLike<number>, B: number, T: number, mode: AggMode, normBy = T): number {
  if (mode === 'token-mean') return refMaskedMean(loss, mask);
  let acc = 0;
  for (let b = 0; b < B; b++) {
    let s = 0, c = 0;
    for (let t = 0; t < T; t++) { s += loss[b * T + t] * mask[b * T + t]; c += mask[b * T + t]; }
    acc += mode === 'seq-mean-token-mean' ? s / Math.max(c, 1) : s;
  }
  return mode === 'seq-mean-token-sum-norm' ? acc / normBy : acc / B;
}

export interface RefGrpo {
  logp: ArrayLike<number>; old: ArrayLike<number>; ref: ArrayLike<number>; adv: ArrayLike<number>; mask: ArrayLike<number>;
  B: number; T: number; low: number; high: number; c: number; klCoef: number; agg: AggMode; kl: KlType; normBy?: number;
}

export function refGrpo(a: RefGrpo): { loss: number; pgLoss: number; klLoss: number; clipfrac: number; clipfracLower: number; ppoKl: number } {
  const n = a.B * a.T;
  const pg = new Float64Array(n), kl = new Float64Array(n), clipped = new Float64Array(n), lower = new Float64Array(n), nkl = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const diff = clampv(a.logp[i] - a.old[i], -20, 20);
    nkl[i] = -diff;
    const ratio = Math.exp(diff);
    const l1 = -a.adv[i] * ratio;
    const l2 = -a.adv[i] * clampv(ratio, 1 - a.low, 1 + a.high);
    const c1 = Math.max(l1, l2);
    clipped[i] = l2 > l1 ? 1 : 0;
    const l3 = -a.adv[i] * a.c;
    lower[i] = c1 > l3 && a.adv[i] < 0 ? 1 : 0;
    pg[i] = a.adv[i] < 0 ? Math.min(l3, c1) : c1;
    const dlt = a.logp[i] - a.ref[i];
    if (a.kl === 'k1') kl[i] = dlt;
    else if (a.kl === 'k2') kl[i] = 0.5 * dlt * dlt;
    else if (a.kl === 'k3') { const r = clampv(-dlt, -20, 20); kl[i] = clampv(Math.exp(r) - r - 1, -10, 10); }
  }
  const pgLoss = refAgg(pg, a.mask, a.B, a.T, a.agg, a.normBy);
  const klLoss = a.kl === 'none' ? 0 : refAgg(kl, a.mask, a.B, a.T, a.agg, a.normBy);
  return {
    loss: pgLoss + a.klCoef * klLoss, pgLoss, klLoss,
    clipfrac: refMaskedMean(clipped, a.mask), clipfracLower: refMaskedMean(lower, a.mask), ppoKl: refMaskedMean(nkl, a.mask),
  };
}
