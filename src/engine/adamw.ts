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
export function buildAdamWGraph(params: { name: string; shape: number[] }[], opts: AdamWOptions = {}): BuiltGraph {
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

  let sq: Value | null = null;
  for (const x of P) {
    const s = O.reduceSum(O.mul(x.grad, x.grad));
    sq = sq ? O.add(sq, s) : s;
  }
  const norm = O.reshape(O.sqrt(sq!), [1]);
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
  g.output(norm, 'grad_norm');
  return { bytes: g.serialize({ docString: 'adamw' }), inputNames: g.inputs.map((v) => v.name), outputNames: g.outputs.map((v) => v.name) };
}
