import { describe, expect, it } from 'vitest';
import { Graph } from '../../src/engine/graph';
import * as O from '../../src/engine/ops';
import { SessionCache, bucketFor, f32, i32 } from '../../src/engine/runtime';
import { Rng } from '../../src/engine/rng';
import { rt } from './helpers';

type VI = { name?: string | null; type?: { tensorType?: { shape?: { dim?: { dimParam?: string | null; dimValue?: unknown }[] | null } | null } | null } | null };

describe('Rng', () => {
  it('is deterministic per seed and roughly standard normal', () => {
    const a = new Rng(42), b = new Rng(42), c = new Rng(43);
    const xa = Array.from({ length: 5 }, () => a.u32()), xb = Array.from({ length: 5 }, () => b.u32());
    expect(xa).toEqual(xb);
    expect(Array.from({ length: 5 }, () => c.u32())).not.toEqual(xa);
    const r = new Rng(1);
    let s = 0, s2 = 0, lo = 1, hi = 0;
    const n = 20000;
    for (let i = 0; i < n; i++) { const z = r.normal(); s += z; s2 += z * z; const u = r.uniform(); lo = Math.min(lo, u); hi = Math.max(hi, u); }
    expect(Math.abs(s / n)).toBeLessThan(0.03);
    expect(Math.abs(s2 / n - 1)).toBeLessThan(0.05);
    expect(lo).toBeGreaterThanOrEqual(0);
    expect(hi).toBeLessThan(1);
    const counts = new Array(4).fill(0);
    for (let i = 0; i < 4000; i++) counts[r.int(4)]++;
    for (const k of counts) expect(Math.abs(k - 1000)).toBeLessThan(120);
  });
});

describe('runtime', () => {
  it('bucketFor picks the smallest bucket that fits', () => {
    expect(bucketFor(1, [64, 128])).toBe(64);
    expect(bucketFor(64, [64, 128])).toBe(64);
    expect(bucketFor(65, [64, 128])).toBe(128);
    expect(() => bucketFor(129, [64, 128])).toThrow();
  });

  it('runs a graph with named float32/int32 tensors, fetches a subset, and caches sessions per bucket', async () => {
    let builds = 0;
    const build = (n: number) => () => {
      builds++;
      const g = new Graph();
      const x = g.input('x', 'float32', [n]);
      const k = g.input('k', 'int32', [n]);
      g.output(O.mul(x, O.cast(k, 'float32')), 'y');
      g.output(O.reduceSum(x), 's');
      g.output(x, 'x_copy'); // an input exported as an output (no Identity op)
      return g.serialize();
    };
    const cache = new SessionCache(rt);
    const s1 = await cache.get('mul', 3, build(3));
    const s1b = await cache.get('mul', 3, build(3));
    const s2 = await cache.get('mul', 4, build(4));
    expect(s1b).toBe(s1);
    expect(s2).not.toBe(s1);
    expect(builds).toBe(2);
    const out = await s1.run({ x: f32([1, 2, 3], [3]), k: i32([2, 0, -1], [3]) }, { fetches: ['y', 'x_copy'] });
    expect(Array.from(out.y.data as Float32Array)).toEqual([2, 0, -3]);
    expect(Array.from(out.x_copy.data as Float32Array)).toEqual([1, 2, 3]);
    expect(out.s).toBeUndefined();
    expect(rt.backend.kind).toBe('cpu');
    await cache.clear();
  });

  it('graphs serialize as IR 8 / opset 17 and never use ops missing on WebGPU', async () => {
    const { makeConfig, initParams } = await import('../../src/engine/decoder');
    const { exportInference, buildTrainGraph } = await import('../../src/engine/graphs');
    const onnxProto = (await import('onnx-proto')).default;
    const cfg = makeConfig('tiny', { vocab_size: 32, max_position_embeddings: 16 });
    let namedDims = 0;
    for (const bytes of [exportInference(cfg, initParams(cfg)).bytes, buildTrainGraph(cfg, 2, 4, { kind: 'grpo', agg: 'token-mean', kl: 'k3' }).bytes]) {
      const m = onnxProto.onnx.ModelProto.decode(bytes);
      expect(Number(m.irVersion)).toBe(8);
      expect(Number(m.opsetImport[0].version)).toBe(17);
      const ops = new Set(m.graph!.node!.map((n) => n.opType));
      const dims = (vs: VI[] | null | undefined) => Object.fromEntries(vs!.map((v) => [v.name, v.type!.tensorType!.shape!.dim!.map((d) => d.dimParam || Number(d.dimValue))]));
      if (bytes.length > 100_000) { // the inference graph: HF / transformers.js dim names
        const ins = dims(m.graph!.input), outs = dims(m.graph!.output);
        expect(ins.input_ids).toEqual(['batch_size', 'sequence_length']);
        expect(ins.attention_mask).toEqual(['batch_size', 'total_sequence_length']);
        expect(ins['past_key_values.1.key']).toEqual(['batch_size', 4, 'past_sequence_length', 16]);
        expect(outs.logits).toEqual(['batch_size', 'sequence_length', 32]);
        expect(outs['present.0.value']).toEqual(['batch_size', 4, 'total_sequence_length', 16]);
        namedDims++;
      }
      for (const bad of ['LogSoftmax', 'Min', 'Max', 'And', 'Identity']) expect(ops.has(bad)).toBe(false);
    }
    expect(namedDims).toBe(1);
  });
});

describe('Rng.fillNormal', () => {
  it('yields exactly the values of repeated normal() calls (also with a pending spare and odd lengths)', () => {
    for (const n of [0, 1, 2, 5, 6]) {
      const a = new Rng(9), b = new Rng(9);
      a.normal(); b.normal();
      const x = a.fillNormal(new Float32Array(n), 0.02, 0.5);
      const y = Float32Array.from({ length: n }, () => 0.5 + 0.02 * b.normal());
      expect(Array.from(x)).toEqual(Array.from(y));
      expect(a.u32()).toBe(b.u32());
    }
  });
});
