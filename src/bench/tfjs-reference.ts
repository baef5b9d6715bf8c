// The same Llama-style decoder and cross-entropy training step written in TF.js, as the peer the
// engine benchmark compares against. Architecture follows src/engine/decoder.ts (RMSNorm, rotary
// rotate-half, causal softmax attention, SwiGLU, untied head, one-hot embedding matmul), so both do
// the same arithmetic per step; the optimizer is TF.js Adam (no weight decay or clipping, which are
// negligible next to the forward/backward).
import * as tf from '@tensorflow/tfjs';
import { Rng } from '../engine/rng';
import type { LlamaConfig } from '../engine/decoder';

/** Picks the fastest TF.js backend that works here: wasm (SIMD, threads if available), else cpu. */
export async function initTfjs(prefer: 'wasm' | 'cpu' = 'wasm'): Promise<string> {
  if (prefer === 'wasm') {
    try {
      const wasm = await import('@tensorflow/tfjs-backend-wasm');
      const { createRequire } = await import('node:module');
      const path = await import('node:path');
      const req = createRequire(import.meta.url);
      const dir = path.dirname(req.resolve('@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm'));
      wasm.setWasmPaths(dir + path.sep);
      if (await tf.setBackend('wasm')) { await tf.ready(); return 'wasm'; }
    } catch (e) {
      process.stderr.write(`tfjs wasm backend unavailable (${e instanceof Error ? e.message : e}); using cpu\n`);
    }
  }
  await tf.setBackend('cpu');
  await tf.ready();
  return 'cpu';
}

let instances = 0;

export class TfjsLlama {
  readonly vars: Record<string, tf.Variable> = Object.create(null);
  private readonly causal: tf.Tensor2D;
  private readonly cos: tf.Tensor2D;
  private readonly sin: tf.Tensor2D;
  private readonly opt: tf.Optimizer;

  constructor(readonly cfg: LlamaConfig, readonly T: number, seed = 0, lr = 1e-3) {
    const d = cfg.hidden_size, f = cfg.intermediate_size, V = cfg.vocab_size;
    const rng = new Rng(seed);
    const id = instances++;
    const w = (name: string, shape: number[], std: number | 'ones') => {
      const n = shape.reduce((a, b) => a * b, 1);
      const a = std === 'ones' ? new Float32Array(n).fill(1) : rng.fillNormal(new Float32Array(n), std);
      // TF.js variable names are global to the engine; prefix per instance so several can coexist.
      this.vars[name] = tf.variable(tf.tensor(a, shape), true, `m${id}.${name}`);
    };
    // Linear weights stored [in, out] so the forward is a plain x·W.
    w('embed', [V, d], 0.02);
    for (let i = 0; i < cfg.num_hidden_layers; i++) {
      w(`l${i}.ln1`, [d], 'ones'); w(`l${i}.q`, [d, d], 0.02); w(`l${i}.k`, [d, d], 0.02); w(`l${i}.v`, [d, d], 0.02);
      w(`l${i}.o`, [d, d], 0.02); w(`l${i}.ln2`, [d], 'ones'); w(`l${i}.gate`, [d, f], 0.02); w(`l${i}.up`, [d, f], 0.02);
      w(`l${i}.down`, [f, d], 0.02);
    }
    w('norm', [d], 'ones'); w('head', [d, V], 0.02);
    const hd = d / cfg.num_attention_heads, half = hd / 2;
    const cos = new Float32Array(T * hd), sin = new Float32Array(T * hd);
    for (let p = 0; p < T; p++) for (let i = 0; i < half; i++) {
      const a = p / Math.pow(cfg.rope_theta, (2 * i) / hd);
      cos[p * hd + i] = cos[p * hd + i + half] = Math.cos(a);
      sin[p * hd + i] = sin[p * hd + i + half] = Math.sin(a);
    }
    this.cos = tf.tensor2d(cos, [T, hd]);
    this.sin = tf.tensor2d(sin, [T, hd]);
    const bias = new Float32Array(T * T);
    for (let r = 0; r < T; r++) for (let c = r + 1; c < T; c++) bias[r * T + c] = -1e9;
    this.causal = tf.tensor2d(bias, [T, T]);
    this.opt = tf.train.adam(lr);
  }

  /** Copies engine parameters (HF names, [out, in] linears) into this model, for cross-checks. */
  setFromEngine(params: Record<string, Float32Array>): void {
    const { cfg } = this;
    const d = cfg.hidden_size, f = cfg.intermediate_size, V = cfg.vocab_size;
    const put = (name: string, src: Float32Array, out: number, inp: number) =>
      this.vars[name].assign(tf.tensor2d(src, [out, inp]).transpose() as tf.Tensor2D);
    this.vars.embed.assign(tf.tensor2d(params['model.embed_tokens.weight'], [V, d]));
    for (let i = 0; i < cfg.num_hidden_layers; i++) {
      const p = `model.layers.${i}`;
      this.vars[`l${i}.ln1`].assign(tf.tensor1d(params[`${p}.input_layernorm.weight`]));
      this.vars[`l${i}.ln2`].assign(tf.tensor1d(params[`${p}.post_attention_layernorm.weight`]));
      for (const [k, n] of [['q', 'q_proj'], ['k', 'k_proj'], ['v', 'v_proj'], ['o', 'o_proj']]) put(`l${i}.${k}`, params[`${p}.self_attn.${n}.weight`], d, d);
      put(`l${i}.gate`, params[`${p}.mlp.gate_proj.weight`], f, d);
      put(`l${i}.up`, params[`${p}.mlp.up_proj.weight`], f, d);
      put(`l${i}.down`, params[`${p}.mlp.down_proj.weight`], d, f);
    }
    this.vars.norm.assign(tf.tensor1d(params['model.norm.weight']));
    put('head', params['lm_head.weight'], V, d);
  }

  dispose(): void {
    tf.dispose([...Object.values(this.vars), this.causal, this.cos, this.sin]);
    this.opt.dispose();
  }

  /** Loss without an update. */
  async evalLoss(ids: Int32Array, targets: Int32Array, B: number): Promise<number> {
    const l = tf.tidy(() => this.loss(tf.tensor1d(ids, 'int32'), tf.tensor1d(targets, 'int32'), B));
    const v = (await l.data())[0];
    l.dispose();
    return v;
  }

  private rms(x: tf.Tensor2D, w: tf.Variable): tf.Tensor2D {
    return x.mul(tf.rsqrt(x.square().mean(-1, true).add(this.cfg.rms_norm_eps))).mul(w) as tf.Tensor2D;
  }

  /** Mean next-token cross-entropy of a [B, T] batch. */
  loss(ids: tf.Tensor1D, targets: tf.Tensor1D, B: number): tf.Scalar {
    const { cfg, T, vars: W } = this;
    const d = cfg.hidden_size, H = cfg.num_attention_heads, hd = d / H, V = cfg.vocab_size, half = hd / 2;
    const heads = (x: tf.Tensor2D) => x.reshape([B, T, H, hd]).transpose([0, 2, 1, 3]) as tf.Tensor4D;
    const rope = (x: tf.Tensor4D) => {
      const x1 = x.slice([0, 0, 0, 0], [B, H, T, half]), x2 = x.slice([0, 0, 0, half], [B, H, T, half]);
      return x.mul(this.cos).add(tf.concat([x2.neg(), x1], 3).mul(this.sin)) as tf.Tensor4D;
    };
    let h = tf.matMul(tf.oneHot(ids, V).toFloat(), W.embed) as tf.Tensor2D;
    for (let i = 0; i < cfg.num_hidden_layers; i++) {
      const x = this.rms(h, W[`l${i}.ln1`]);
      const q = rope(heads(tf.matMul(x, W[`l${i}.q`])));
      const k = rope(heads(tf.matMul(x, W[`l${i}.k`])));
      const v = heads(tf.matMul(x, W[`l${i}.v`]));
      const scores = tf.matMul(q.mul(1 / Math.sqrt(hd)), k, false, true).add(this.causal);
      const att = tf.matMul(tf.softmax(scores, -1), v).transpose([0, 2, 1, 3]).reshape([B * T, d]) as tf.Tensor2D;
      h = h.add(tf.matMul(att, W[`l${i}.o`]));
      const y = this.rms(h, W[`l${i}.ln2`]);
      const gate = tf.matMul(y, W[`l${i}.gate`]);
      h = h.add(tf.matMul(gate.mul(tf.sigmoid(gate)).mul(tf.matMul(y, W[`l${i}.up`])), W[`l${i}.down`]));
    }
    const logits = tf.matMul(this.rms(h, W.norm), W.head);
    const m = logits.max(-1, true);
    const lse = logits.sub(m).exp().sum(-1).log().add(m.reshape([-1]));
    const picked = logits.mul(tf.oneHot(targets, V).toFloat()).sum(-1);
    return lse.sub(picked).mean() as tf.Scalar;
  }

  /** One Adam step; resolves to the loss (waiting for the backend, so timing is honest). */
  async trainStep(ids: Int32Array, targets: Int32Array, B: number): Promise<number> {
    const idT = tf.tensor1d(ids, 'int32'), tgT = tf.tensor1d(targets, 'int32');
    const l = this.opt.minimize(() => this.loss(idT, tgT, B), true, Object.values(this.vars))!;
    const v = (await l.data())[0];
    tf.dispose([l, idT, tgT]);
    return v;
  }
}

/** Average ms per training step of the TF.js model on random tokens (after one warm-up step). */
export async function benchTfjsTrain(cfg: LlamaConfig, B: number, T: number, steps: number, seed = 0): Promise<{ msPerStep: number; backend: string; loss: number }> {
  const backend = await initTfjs('wasm');
  const m = new TfjsLlama(cfg, T, seed);
  const rng = new Rng(seed + 7);
  const batch = () => {
    const ids = new Int32Array(B * T), tg = new Int32Array(B * T);
    for (let i = 0; i < ids.length; i++) { ids[i] = rng.int(cfg.vocab_size); tg[i] = rng.int(cfg.vocab_size); }
    return [ids, tg] as const;
  };
  let [ids, tg] = batch();
  let loss = await m.trainStep(ids, tg, B);
  const t0 = performance.now();
  for (let s = 0; s < steps; s++) {
    [ids, tg] = batch();
    loss = await m.trainStep(ids, tg, B);
  }
  const msPerStep = (performance.now() - t0) / steps;
  m.dispose();
  return { msPerStep, backend, loss };
}
