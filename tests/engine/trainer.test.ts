import { describe, expect, it } from 'vitest';
import { makeConfig, initParams } from '../../src/engine/decoder';
import { Model, accumulateGrads, makeLmBatch, type LmBatch } from '../../src/engine/trainer-core';
import { Rng } from '../../src/engine/rng';
import { rt } from './helpers';

const cfg = makeConfig('tiny', { vocab_size: 40, hidden_size: 32, intermediate_size: 64, num_hidden_layers: 1, num_attention_heads: 2, max_position_embeddings: 32 });
const rng = new Rng(4);
const seqs = Array.from({ length: 4 }, (_, r) => Array.from({ length: 5 + 2 * r }, () => 1 + rng.int(39)));
const T = 10;

function maxDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
}

describe('makeLmBatch', () => {
  it('shifts targets by one, right-pads and masks padding', () => {
    const b = makeLmBatch([[5, 6, 7], [8, 9]], 3, { pad: 0, weights: [[1, 1, 0], [1, 1]] });
    expect(Array.from(b.inputIds)).toEqual([5, 6, 7, 8, 9, 0]);
    expect(Array.from(b.targetIds)).toEqual([6, 7, 0, 9, 0, 0]);
    expect(Array.from(b.lossMask)).toEqual([1, 0, 0, 1, 0, 0]);
  });
});

describe('Model', () => {
  it('gradient accumulation: token-weighted micro-batch gradients equal the full-batch gradient', async () => {
    const model = new Model(cfg, rt, initParams(cfg, 2));
    const full = makeLmBatch(seqs, T);
    const halves = [makeLmBatch(seqs.slice(0, 2), T), makeLmBatch(seqs.slice(2), T)];
    const tokens = (b: LmBatch) => Array.from(b.lossMask).reduce((s, x) => s + x, 0);
    const N = tokens(full);
    const ref = await model.computeGrads(full);
    const acc = {};
    for (const h of halves) accumulateGrads(acc, (await model.computeGrads(h)).grads, tokens(h) / N);
    for (const [k, g] of Object.entries(ref.grads)) expect(maxDiff((acc as Record<string, Float32Array>)[k], g)).toBeLessThan(1e-6);
    const sc = await model.score(full);
    expect(maxDiff(sc.logprobs, ref.logprobs)).toBeLessThan(1e-6);
    expect(Math.abs(sc.loss - ref.loss)).toBeLessThan(1e-6);
    await model.dispose();
  });

  it("device residency (state kept as native tensors) trains exactly like host residency", async () => {
    const host = new Model(cfg, rt, initParams(cfg, 3));
    const dev = new Model(cfg, rt, initParams(cfg, 3), { residency: 'device' });
    const batch = makeLmBatch(seqs, T);
    for (let i = 0; i < 3; i++) {
      const a = await host.trainStep(batch, { lr: 1e-2 });
      const b = await dev.trainStep(batch, { lr: 1e-2 });
      expect(Math.abs(a.loss - b.loss)).toBeLessThan(1e-6);
      expect(Math.abs(a.gradNorm - b.gradNorm)).toBeLessThan(1e-6);
      expect(Object.keys(b.grads)).toHaveLength(0);
    }
    expect(dev.hostStale).toBe(true);
    expect(() => dev.exportInference()).toThrow(/syncToHost/);
    // score reads the device state directly
    expect(maxDiff((await dev.score(batch)).logprobs, (await host.score(batch)).logprobs)).toBeLessThan(1e-6);
    await dev.syncToHost();
    expect(dev.hostStale).toBe(false);
    for (const k of Object.keys(host.params)) {
      expect(maxDiff(dev.params[k], host.params[k])).toBeLessThan(1e-6);
      expect(maxDiff(dev.m[k], host.m[k])).toBeLessThan(1e-7);
    }
    const moved = maxDiff(host.params['lm_head.weight'], initParams(cfg, 3)['lm_head.weight']);
    expect(moved).toBeGreaterThan(1e-3);
    await host.dispose(); await dev.dispose();
  });

  it('setState resumes from a checkpoint (params, moments, step) in device residency', async () => {
    const batch = makeLmBatch(seqs, T);
    const a = new Model(cfg, rt, initParams(cfg, 6), { residency: 'device' });
    for (let i = 0; i < 2; i++) await a.trainStep(batch, { lr: 1e-2 });
    await a.syncToHost();
    const snap = { params: { ...a.params }, m: { ...a.m }, v: { ...a.v }, step: a.step };
    const b = new Model(cfg, rt, initParams(cfg, 99), { residency: 'device' });
    b.setState({ params: Object.fromEntries(Object.entries(snap.params).map(([k, x]) => [k, x.slice()])), m: snap.m, v: snap.v, step: snap.step });
    const ra = await a.trainStep(batch, { lr: 1e-2 }), rb = await b.trainStep(batch, { lr: 1e-2 });
    expect(rb.loss).toBe(ra.loss);
    expect(rb.gradNorm).toBe(ra.gradNorm);
    await a.syncToHost(); await b.syncToHost();
    expect(maxDiff(a.params['model.layers.0.mlp.up_proj.weight'], b.params['model.layers.0.mlp.up_proj.weight'])).toBe(0);
    expect(() => a.setState({ step: 1 })).not.toThrow(); // host copy is current after syncToHost
    await a.dispose(); await b.dispose();
  });
});
