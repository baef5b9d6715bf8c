// AdamW (decoupled weight decay, torch semantics) with global grad-norm clipping as one ONNX graph,
// so parameters and moments can stay on the device between steps.
import { Graph, type Value } from './graph';
import * as O from './ops';
import type { BuiltGraph } from './graphs';

export interface AdamWOptions {
  beta1?: number; beta2?: number; eps?: number;
  weightDecay?: number;
  /** Global L2 grad-norm clip (torch clip_grad_norm_: scale by min(1, max/(norm+1e-6))); 0 disables. */
  maxGradNorm?: number;
  /** Parameters excluded from weight decay (default: none, like verl's single param group). */
  noDecay?: (name: string) => boolean;
}

export const ADAMW_DEFAULTS = { beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0.01, maxGradNorm: 1.0 };

/**
 * Inputs: <name>, grad.<name>, m.<name>, v.<name> for every parameter; step (float [1], 1-based
 * count including this update); lr (float [1]). Outputs: next.<name>, next.m.<name>, next.v.<name>,
 * grad_norm ([1], before clipping). Betas, eps, decay and clip are baked in.
 */
export function buildAdamWGraph(params: { name: string; shape: number[] }[], opts: AdamWOptions = {}, layout: { externalNorm?: boolean } = {}): BuiltGraph {
  const o = { ...ADAMW_DEFAULTS, ...opts };
  const g = new Graph();
  const P = params.map(({ name, shape }) => ({
    name,
    p: g.input(name, 'float32', shape),
    grad: g.input(`grad.${name}`, 'float32', shape),
    m: g.input(`m.${name}`, 'float32', shape),
    v: g.input(`v.${name}`, 'float32', shape),
  }));
  const step = g.input('step', 'float32', [1]);
  const lr = g.input('lr', 'float32', [1]);

  let norm: Value;
  if (layout.externalNorm) norm = g.input('grad_norm', 'float32', [1]);
  else {
    let sq: Value | null = null;
    for (const x of P) {
      const s = O.reduceSum(O.mul(x.grad, x.grad));
      sq = sq ? O.add(sq, s) : s;
    }
    norm = O.reshape(O.sqrt(sq!), [1]);
  }
  const coef = o.maxGradNorm > 0 ? O.minimum(O.div(o.maxGradNorm, O.add(norm, 1e-6)), 1) : null;

  const pow = (base: number) => g.node('Pow', [g.const([base], [1]), step], [{ dtype: 'float32', shape: [1] }])[0];
  const bc1 = O.sub(1, pow(o.beta1));
  const bc2Sqrt = O.sqrt(O.sub(1, pow(o.beta2)));
  const stepSize = O.div(lr, bc1);

  const outs: [Value, string][] = [];
  for (const x of P) {
    const gr = coef ? O.mul(x.grad, coef) : x.grad;
    const m = O.add(O.mul(x.m, o.beta1), O.mul(gr, 1 - o.beta1));
    const v = O.add(O.mul(x.v, o.beta2), O.mul(O.mul(gr, gr), 1 - o.beta2));
    const decay = o.weightDecay > 0 && !o.noDecay?.(x.name) ? O.sub(1, O.mul(lr, o.weightDecay)) : null;
    const p0 = decay ? O.mul(x.p, decay) : x.p;
    const denom = O.add(O.div(O.sqrt(v), bc2Sqrt), o.eps);
    const p = O.sub(p0, O.mul(stepSize, O.div(m, denom)));
    outs.push([p, `next.${x.name}`], [m, `next.m.${x.name}`], [v, `next.v.${x.name}`]);
  }
  for (const [v, n] of outs) g.output(v, n);
  if (!layout.externalNorm) g.output(norm, 'grad_norm');
  return { bytes: g.serialize({ docString: 'adamw' }), inputNames: g.inputs.map((v) => v.name), outputNames: g.outputs.map((v) => v.name) };
}

/**
 * Σ grad² of each gradient ([1] output sq.<name> per input grad.<name>): the first pass of a chunked
 * update. The host adds the chunks' sums in float32 in parameter order, which is the order and the
 * precision of the single graph's running sum, so the global norm (and the clip) comes out the same.
 */
export function buildGradSquaresGraph(params: { name: string; shape: number[] }[]): BuiltGraph {
  const g = new Graph();
  for (const { name, shape } of params) {
    const gr = g.input(`grad.${name}`, 'float32', shape);
    g.output(O.reshape(O.reduceSum(O.mul(gr, gr)), [1]), `sq.${name}`);
  }
  return { bytes: g.serialize({ docString: 'adamw-grad-squares' }), inputNames: g.inputs.map((v) => v.name), outputNames: g.outputs.map((v) => v.name) };
}

/**
 * Splits parameters, in order, into runs of at most maxBytes float32 bytes each (a tensor larger than
 * maxBytes is a chunk of its own). Chunking bounds what one AdamW graph holds at once (parameters,
 * gradients and both moments in, three tensors out): the single graph over SmolLM2-135M needs ≈3.6 GiB,
 * more than fits beside the sampler in onnxruntime-web's 4 GiB wasm32 heap.
 */
export function adamChunks<T extends { shape: number[] }>(params: T[], maxBytes: number): T[][] {
  if (!(maxBytes > 0)) throw new Error(`AdamW chunk size must be a positive byte count, got ${maxBytes}`);
  const chunks: T[][] = [];
  let cur: T[] = [], bytes = 0;
  for (const p of params) {
    const b = 4 * p.shape.reduce((x, y) => x * y, 1);
    if (cur.length && bytes + b > maxBytes) { chunks.push(cur); cur = []; bytes = 0; }
    cur.push(p);
    bytes += b;
  }
  if (cur.length) chunks.push(cur);
  return chunks;
}

/**
 * Model's 'auto' AdamW chunking: above ADAMW_AUTO_THRESHOLD_BYTES of parameters, chunks of at most
 * ADAMW_AUTO_CHUNK_BYTES (one such chunk's update holds 7× its size; small chunks leave room in a wasm heap).
 */
export const ADAMW_AUTO_THRESHOLD_BYTES = 256 * 2 ** 20;
export const ADAMW_AUTO_CHUNK_BYTES = 64 * 2 ** 20;
