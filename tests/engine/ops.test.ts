import { describe, expect, it } from 'vitest';
import { fdCheck, Graph, O, Rng, f32, randn } from './helpers';
import type { Value } from '../../src/engine/graph';
import type { HostTensor } from '../../src/engine/runtime';

type Build = (xs: Value[]) => Value;
interface Case { name: string; shapes: number[][]; build: Build; positive?: boolean; eps?: number }

const cases: Case[] = [
  { name: 'Add (broadcast)', shapes: [[3, 4], [4]], build: ([a, b]) => O.add(a, b) },
  { name: 'Sub (broadcast)', shapes: [[3, 1], [3, 4]], build: ([a, b]) => O.sub(a, b) },
  { name: 'Mul (broadcast)', shapes: [[2, 3, 4], [3, 1]], build: ([a, b]) => O.mul(a, b) },
  { name: 'Div', shapes: [[3, 4], [3, 4]], build: ([a, b]) => O.div(a, O.add(O.mul(b, b), 1)) },
  { name: 'Neg', shapes: [[5]], build: ([a]) => O.neg(a) },
  { name: 'Exp', shapes: [[5]], build: ([a]) => O.exp(a) },
  { name: 'Log', shapes: [[5]], build: ([a]) => O.log(a), positive: true },
  { name: 'Sqrt', shapes: [[5]], build: ([a]) => O.sqrt(a), positive: true },
  { name: 'Reciprocal', shapes: [[5]], build: ([a]) => O.reciprocal(a), positive: true },
  { name: 'Sigmoid', shapes: [[6]], build: ([a]) => O.sigmoid(a) },
  { name: 'MatMul (broadcast batch)', shapes: [[2, 3, 4], [4, 5]], build: ([a, b]) => O.matmul(a, b) },
  { name: 'MatMul (4-D)', shapes: [[2, 2, 3, 4], [2, 2, 4, 3]], build: ([a, b]) => O.matmul(a, b) },
  { name: 'Gemm NN', shapes: [[3, 4], [4, 5]], build: ([a, b]) => O.gemm(a, b, 0, 0) },
  { name: 'Gemm NT', shapes: [[3, 4], [5, 4]], build: ([a, b]) => O.gemm(a, b, 0, 1) },
  { name: 'Gemm TN', shapes: [[4, 3], [4, 5]], build: ([a, b]) => O.gemm(a, b, 1, 0) },
  { name: 'Gemm TT', shapes: [[4, 3], [5, 4]], build: ([a, b]) => O.gemm(a, b, 1, 1) },
  { name: 'Transpose', shapes: [[2, 3, 4]], build: ([a]) => O.transpose(a, [2, 0, 1]) },
  { name: 'Reshape', shapes: [[2, 6]], build: ([a]) => O.reshape(a, [3, -1]) },
  { name: 'Unsqueeze', shapes: [[2, 3]], build: ([a]) => O.unsqueeze(a, [1]) },
  { name: 'Expand', shapes: [[3, 1]], build: ([a]) => O.expand(a, [2, 3, 4]) },
  { name: 'Concat', shapes: [[2, 3], [2, 2]], build: ([a, b]) => O.concat([a, b], 1) },
  { name: 'ReduceSum keepdims', shapes: [[2, 3, 4]], build: ([a]) => O.reduceSum(a, [1], true) },
  { name: 'ReduceSum all', shapes: [[2, 3]], build: ([a]) => O.mul(O.reduceSum(a), O.reduceSum(a)) },
  { name: 'ReduceMean', shapes: [[2, 3, 4]], build: ([a]) => O.reduceMean(a, [-1]) },
  { name: 'Softmax', shapes: [[3, 5]], build: ([a]) => O.softmax(a, -1) },
  { name: 'logSoftmax (ReduceMax shift)', shapes: [[3, 5]], build: ([a]) => O.logSoftmax(a, -1) },
  { name: 'Where', shapes: [[3, 4], [3, 4], [4]], build: ([c, a, b]) => O.where(O.greater(c, 0), a, b) },
  { name: 'minimum/maximum/clamp', shapes: [[4, 4], [4, 4]], build: ([a, b]) => O.add(O.minimum(a, b), O.add(O.maximum(a, b), O.clamp(a, -0.3, 0.4))), eps: 1e-3 },
];

describe('op vector-Jacobian rules vs central finite differences (ORT float32)', () => {
  for (const c of cases) {
    it(c.name, async () => {
      const rng = new Rng(c.name.length * 31 + 1);
      const g = new Graph();
      const xs = c.shapes.map((s, i) => g.input(`x${i}`, 'float32', s));
      const y = c.build(xs);
      const w = g.const(randn(rng, y.dims.reduce((p, q) => p * q, 1)), y.dims);
      const loss = O.reduceSum(O.mul(y, w));
      const feeds: Record<string, HostTensor> = {};
      c.shapes.forEach((s, i) => {
        const n = s.reduce((p, q) => p * q, 1);
        let d = randn(rng, n);
        if (c.positive) d = d.map((v) => 0.5 + Math.abs(v));
        feeds[`x${i}`] = f32(d, s);
      });
      const err = await fdCheck(g, loss, xs, feeds, { eps: c.eps ?? 1e-2 });
      expect(err).toBeLessThan(1e-2);
    });
  }
});
