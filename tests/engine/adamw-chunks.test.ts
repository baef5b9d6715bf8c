import { describe, expect, it } from 'vitest';
import { adamChunks, ADAMW_AUTO_THRESHOLD_BYTES } from '../../src/engine/adamw';
import { initParams, makeConfig, paramSpecs, type Params } from '../../src/engine/decoder';
import { Model, makeLmBatch } from '../../src/engine/trainer-core';
import { rt } from './helpers';

const cfg = makeConfig('tiny', { vocab_size: 40, hidden_size: 32, intermediate_size: 64, num_hidden_layers: 2, num_attention_heads: 2, max_position_embeddings: 32 });
const batch = makeLmBatch([[1, 2, 3, 4, 5, 6, 7, 8, 9], [3, 4, 5, 6, 7, 8], [9, 8, 7, 6, 5]], 8);
// Below the embedding's 40·32·4 = 5120 bytes: the embedding is a chunk of its own, the rest groups.
const CHUNK_BYTES = 4096;

/** Largest |a−b| / max(|a|, 1e-3) over every value of every tensor. */
function worstRel(a: Params, b: Params): number {
  let w = 0;
  for (const k of Object.keys(a)) {
    expect(b[k]?.length).toBe(a[k].length);
    for (let i = 0; i < a[k].length; i++) w = Math.max(w, Math.abs(a[k][i] - b[k][i]) / Math.max(Math.abs(a[k][i]), 1e-3));
  }
  return w;
}

function maxMove(a: Params, b: Params): number {
  let w = 0;
  for (const k of Object.keys(a)) for (let i = 0; i < a[k].length; i++) w = Math.max(w, Math.abs(a[k][i] - b[k][i]));
  return w;
}

describe('adamChunks', () => {
  it('splits in order, within the byte limit, an oversized tensor alone', () => {
    const specs = paramSpecs(cfg);
    const chunks = adamChunks(specs, CHUNK_BYTES);
    expect(chunks.flat().map((p) => p.name)).toEqual(specs.map((p) => p.name));
    expect(chunks.length).toBeGreaterThan(3);
    for (const c of chunks) {
      const bytes = c.reduce((s, p) => s + 4 * p.shape.reduce((x, y) => x * y, 1), 0);
      if (c.length > 1) expect(bytes).toBeLessThanOrEqual(CHUNK_BYTES);
      else expect(c[0].shape.length).toBeGreaterThan(0);
    }
    const embed = chunks.find((c) => c.some((p) => p.shape.join('x') === '40x32'))!;
    expect(embed).toHaveLength(1);
    expect(() => adamChunks(specs, 0)).toThrow(/positive byte count/);
  });

  it("'auto' keeps one graph for models under the threshold, 'off' never chunks, a number always does", () => {
    const bytes = paramSpecs(cfg).reduce((s, p) => s + 4 * p.shape.reduce((x, y) => x * y, 1), 0);
    expect(bytes).toBeLessThan(ADAMW_AUTO_THRESHOLD_BYTES);
    expect(new Model(cfg, rt, initParams(cfg, 1)).adamChunks).toBeNull();
    expect(new Model(cfg, rt, initParams(cfg, 1), { adamChunkBytes: 'off' }).adamChunks).toBeNull();
    expect(new Model(cfg, rt, initParams(cfg, 1), { adamChunkBytes: CHUNK_BYTES }).adamChunks!.length).toBeGreaterThan(3);
  });
});

describe('chunked AdamW equals the single-graph update', () => {
  const cases = [
    { label: 'clipping active', maxGradNorm: 0.05 },
    { label: 'clip set but inactive', maxGradNorm: 1e6 },
    { label: 'clipping disabled', maxGradNorm: 0 },
  ];
  for (const { label, maxGradNorm } of cases) {
    it(`4 steps, weight decay 0.1 (norms excluded), ${label}: params, moments and grad norm within 1e-6 relative`, async () => {
      const adam = { weightDecay: 0.1, maxGradNorm, beta2: 0.95, noDecay: (n: string) => n.endsWith('norm.weight') };
      const one = new Model(cfg, rt, initParams(cfg, 5), { adam, adamChunkBytes: 'off' });
      const chunked = new Model(cfg, rt, initParams(cfg, 5), { adam, adamChunkBytes: CHUNK_BYTES });
      const start = initParams(cfg, 5);
      expect(one.adamChunks).toBeNull();
      expect(chunked.adamChunks!.length).toBeGreaterThan(3);
      for (let s = 0; s < 4; s++) {
        const lr = 0.01 * (s + 1);
        const ra = await one.trainStep(batch, { lr });
        const rb = await chunked.trainStep(batch, { lr });
        expect(Math.abs(ra.loss - rb.loss)).toBeLessThanOrEqual(1e-6 * Math.abs(ra.loss));
        expect(Math.abs(ra.gradNorm - rb.gradNorm)).toBeLessThanOrEqual(1e-6 * ra.gradNorm);
        if (maxGradNorm === 0.05) expect(ra.gradNorm).toBeGreaterThan(maxGradNorm * 4);
        if (maxGradNorm === 1e6) expect(ra.gradNorm).toBeLessThan(maxGradNorm);
      }
      expect(chunked.step).toBe(4);
      expect(worstRel(one.params, chunked.params)).toBeLessThanOrEqual(1e-6);
      expect(worstRel(one.m, chunked.m)).toBeLessThanOrEqual(1e-6);
      expect(worstRel(one.v, chunked.v)).toBeLessThanOrEqual(1e-6);
      // Not vacuous: the updates moved the parameters, and weight decay / clipping change the result.
      expect(maxMove(start, chunked.params)).toBeGreaterThan(0.01);
      await one.dispose(); await chunked.dispose();
    });
  }

  it('the clip and the decay matter: chunked runs with a different clip or decay end elsewhere', async () => {
    const run = async (adam: { weightDecay: number; maxGradNorm: number }) => {
      const m = new Model(cfg, rt, initParams(cfg, 5), { adam, adamChunkBytes: CHUNK_BYTES });
      for (let s = 0; s < 3; s++) await m.trainStep(batch, { lr: 0.02 });
      await m.dispose();
      return m.params;
    };
    const base = await run({ weightDecay: 0.1, maxGradNorm: 0.05 });
    expect(maxMove(base, await run({ weightDecay: 0.1, maxGradNorm: 0 }))).toBeGreaterThan(1e-3);
    expect(maxMove(base, await run({ weightDecay: 0, maxGradNorm: 0.05 }))).toBeGreaterThan(1e-5);
  });

  it('device residency: chunked update with native tensors equals the host single graph after syncToHost', async () => {
    const adam = { weightDecay: 0.1, maxGradNorm: 0.05 };
    const host = new Model(cfg, rt, initParams(cfg, 7), { adam, adamChunkBytes: 'off' });
    const dev = new Model(cfg, rt, initParams(cfg, 7), { adam, adamChunkBytes: CHUNK_BYTES, residency: 'device' });
    for (let s = 0; s < 3; s++) {
      const ra = await host.trainStep(batch, { lr: 0.02 });
      const rb = await dev.trainStep(batch, { lr: 0.02 });
      expect(Math.abs(ra.gradNorm - rb.gradNorm)).toBeLessThanOrEqual(1e-6 * ra.gradNorm);
    }
    expect(dev.hostStale).toBe(true);
    await dev.syncToHost();
    expect(worstRel(host.params, dev.params)).toBeLessThanOrEqual(1e-6);
    expect(worstRel(host.m, dev.m)).toBeLessThanOrEqual(1e-6);
    expect(worstRel(host.v, dev.v)).toBeLessThanOrEqual(1e-6);
    await host.dispose(); await dev.dispose();
  });
});
