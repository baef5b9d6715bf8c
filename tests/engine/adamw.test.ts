import { describe, expect, it } from 'vitest';
import { buildAdamWGraph, type AdamWOptions } from '../../src/engine/adamw';
import { f32, scalar, type HostTensor } from '../../src/engine/runtime';
import { Rng } from '../../src/engine/rng';
import { rt, randn } from './helpers';

const specs = [{ name: 'a.weight', shape: [3, 4] }, { name: 'b.norm', shape: [5] }];

/** torch.optim.AdamW after torch.nn.utils.clip_grad_norm_, in float64. */
function refStep(p: Float64Array[], g: Float64Array[], m: Float64Array[], v: Float64Array[], t: number, lr: number, o: Required<Omit<AdamWOptions, 'noDecay'>>, decay: boolean[]) {
  let sq = 0;
  for (const x of g) for (const y of x) sq += y * y;
  const norm = Math.sqrt(sq);
  const coef = o.maxGradNorm > 0 ? Math.min(1, o.maxGradNorm / (norm + 1e-6)) : 1;
  p.forEach((pi, k) => {
    for (let i = 0; i < pi.length; i++) {
      const gi = g[k][i] * coef;
      if (decay[k]) pi[i] *= 1 - lr * o.weightDecay;
      m[k][i] = o.beta1 * m[k][i] + (1 - o.beta1) * gi;
      v[k][i] = o.beta2 * v[k][i] + (1 - o.beta2) * gi * gi;
      const mh = m[k][i] / (1 - o.beta1 ** t), vh = v[k][i] / (1 - o.beta2 ** t);
      pi[i] -= (lr * mh) / (Math.sqrt(vh) + o.eps);
    }
  });
  return norm;
}

describe('AdamW graph vs JS reference', () => {
  for (const maxGradNorm of [0.5, 0]) {
    it(`4 steps, weight decay, ${maxGradNorm ? 'clipping active' : 'no clipping'}`, async () => {
      const o = { beta1: 0.9, beta2: 0.95, eps: 1e-8, weightDecay: 0.1, maxGradNorm };
      const s = await rt.createSession(buildAdamWGraph(specs, { ...o, noDecay: (n) => n.endsWith('norm') }).bytes);
      const rng = new Rng(3);
      const sizes = specs.map((x) => x.shape.reduce((a, b) => a * b, 1));
      let P: Float32Array[] = sizes.map((n) => randn(rng, n)), M: Float32Array[] = sizes.map((n) => new Float32Array(n)), Vv: Float32Array[] = sizes.map((n) => new Float32Array(n));
      const P0 = P.map((x) => x.slice());
      const rp = P.map((x) => Float64Array.from(x)), rm = sizes.map((n) => new Float64Array(n)), rv = sizes.map((n) => new Float64Array(n));
      for (let t = 1; t <= 4; t++) {
        const G = sizes.map((n) => randn(rng, n));
        const lr = 0.01 * t;
        const feeds: Record<string, HostTensor> = { step: scalar(t), lr: scalar(lr) };
        specs.forEach((x, k) => {
          feeds[x.name] = f32(P[k], x.shape); feeds[`grad.${x.name}`] = f32(G[k], x.shape);
          feeds[`m.${x.name}`] = f32(M[k], x.shape); feeds[`v.${x.name}`] = f32(Vv[k], x.shape);
        });
        const out = await s.run(feeds);
        const norm = refStep(rp, G.map((x) => Float64Array.from(x)), rm, rv, t, lr, o, [true, false]);
        expect(Math.abs(Number(out.grad_norm.data[0]) - norm)).toBeLessThan(1e-5 * norm);
        if (maxGradNorm) expect(norm).toBeGreaterThan(maxGradNorm * 2);
        P = specs.map((x) => out[`next.${x.name}`].data as Float32Array);
        M = specs.map((x) => out[`next.m.${x.name}`].data as Float32Array);
        Vv = specs.map((x) => out[`next.v.${x.name}`].data as Float32Array);
        specs.forEach((_, k) => {
          for (let i = 0; i < sizes[k]; i++) {
            expect(Math.abs(P[k][i] - rp[k][i])).toBeLessThan(1e-5);
            expect(Math.abs(M[k][i] - rm[k][i])).toBeLessThan(1e-6);
            expect(Math.abs(Vv[k][i] - rv[k][i])).toBeLessThan(1e-6);
          }
        });
      }
      // the update moved parameters by a meaningful amount (the comparison is not vacuous)
      let moved = 0;
      P.forEach((x, k) => x.forEach((y, i) => { moved = Math.max(moved, Math.abs(y - P0[k][i])); }));
      expect(moved).toBeGreaterThan(0.01);
      await s.release();
    });
  }
});
