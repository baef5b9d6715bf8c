import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeConfig, initParams, countParams, headDim, paramSpecs, PRESETS } from '../../src/engine/decoder';
import { buildForwardGraph, exportDecodeStep, exportInference } from '../../src/engine/graphs';
import { f32, i32, i64, type HostTensor, type Session } from '../../src/engine/runtime';
import { rt } from './helpers';
import { Rng } from '../../src/engine/rng';

const cfg = makeConfig('tiny', { vocab_size: 96, max_position_embeddings: 64 });
const params = initParams(cfg, 3);
// Larger weights than the init so logits vary enough for a meaningful comparison.
for (const [k, v] of Object.entries(params)) if (!k.endsWith('norm.weight')) v.forEach((x, i) => { v[i] = x * 5; });
const L = cfg.num_hidden_layers, H = cfg.num_attention_heads, hd = headDim(cfg), V = cfg.vocab_size;

function maxDiff(a: Float32Array, b: Float32Array): number {
  expect(a.length).toBe(b.length);
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
}

function emptyCache(B: number): Record<string, HostTensor> {
  const f: Record<string, HostTensor> = {};
  for (let i = 0; i < L; i++) for (const kv of ['key', 'value']) f[`past_key_values.${i}.${kv}`] = f32(new Float32Array(0), [B, H, 0, hd]);
  return f;
}

/** Appends [B,H,S,hd] to [B,H,P,hd] along the sequence axis (what a caller of the step graph does). */
function appendKV(past: HostTensor, add: HostTensor): HostTensor {
  const [B, , P] = past.dims, S = add.dims[2];
  const out = new Float32Array(B * H * (P + S) * hd);
  const a = past.data as Float32Array, b = add.data as Float32Array;
  for (let bh = 0; bh < B * H; bh++) {
    out.set(a.subarray(bh * P * hd, (bh + 1) * P * hd), bh * (P + S) * hd);
    out.set(b.subarray(bh * S * hd, (bh + 1) * S * hd), bh * (P + S) * hd + P * hd);
  }
  return f32(out, [B, H, P + S, hd]);
}

const tokens = (rng: Rng, n: number) => Array.from({ length: n }, () => rng.int(V));

async function trainForward(ids: number[][]): Promise<Float32Array> {
  const B = ids.length, T = ids[0].length;
  const s = await rt.createSession(buildForwardGraph(cfg, B, T).bytes);
  const feeds: Record<string, HostTensor> = { input_ids: i32(ids.flat(), [B, T]) };
  for (const p of paramSpecs(cfg)) feeds[p.name] = f32(params[p.name], p.shape);
  const out = await s.run(feeds);
  await s.release();
  return out.logits.data as Float32Array;
}

function hfFeeds(ids: number[][], mask: number[][], pos: number[][]): Record<string, HostTensor> {
  const B = ids.length;
  return {
    input_ids: i64(ids.flat(), [B, ids[0].length]),
    attention_mask: i64(mask.flat(), [B, mask[0].length]),
    position_ids: i64(pos.flat(), [B, pos[0].length]),
  };
}

describe('decoder presets', () => {
  it('have the advertised sizes', () => {
    expect(countParams(PRESETS.tiny)).toBeGreaterThan(0.15e6);
    expect(countParams(PRESETS.tiny)).toBeLessThan(0.25e6);
    expect(countParams(PRESETS.small)).toBeGreaterThan(0.5e6);
    expect(countParams(PRESETS.small)).toBeLessThan(0.7e6);
    expect(countParams(PRESETS.base)).toBeGreaterThan(7e6);
    expect(countParams(PRESETS.base)).toBeLessThan(9e6);
    expect(initParams(cfg, 3)['lm_head.weight']).toEqual(initParams(cfg, 3)['lm_head.weight']);
  });
});

describe('inference graphs agree with the training forward', () => {
  const rng = new Rng(11);
  const B = 2, T = 9;
  const ids = [tokens(rng, T), tokens(rng, T)];
  const arange = (a: number, n: number) => Array.from({ length: n }, (_, i) => a + i);
  let full: Float32Array;
  let hf: Session, step: Session;
  // Built here, not by the first test, so each test below runs alone (vitest -t) and in any order.
  beforeAll(async () => {
    full = await trainForward(ids);
    hf = await rt.createSession(exportInference(cfg, params).bytes);
    step = await rt.createSession(exportDecodeStep(cfg, params).bytes);
  });
  afterAll(async () => { await hf?.release(); await step?.release(); });

  it('full sequence, no cache', async () => {
    const out = await hf.run({ ...hfFeeds(ids, ids.map(() => arange(1, T).map(() => 1)), ids.map(() => arange(0, T))), ...emptyCache(B) });
    expect(out.logits.dims).toEqual([B, T, V]);
    expect(out['present.0.key'].dims).toEqual([B, H, T, hd]);
    let spread = 0;
    for (const x of full) spread = Math.max(spread, Math.abs(x));
    expect(spread).toBeGreaterThan(0.1); // the comparison below is not vacuous
    expect(maxDiff(out.logits.data as Float32Array, full)).toBeLessThan(1e-4);
  });

  it('incremental decoding with the KV cache (present.*) equals the full sequence', async () => {
    const split = 5;
    let feeds: Record<string, HostTensor> = emptyCache(B);
    const got = new Float32Array(B * T * V);
    for (let t0 = 0; t0 < T; ) {
      const n = t0 === 0 ? split : 1;
      const chunk = ids.map((r) => r.slice(t0, t0 + n));
      const out = await hf.run({ ...hfFeeds(chunk, ids.map(() => arange(0, t0 + n).map(() => 1)), ids.map(() => arange(t0, n))), ...feeds });
      const lg = out.logits.data as Float32Array;
      for (let b = 0; b < B; b++) for (let s = 0; s < n; s++) got.set(lg.subarray((b * n + s) * V, (b * n + s + 1) * V), (b * T + t0 + s) * V);
      feeds = {};
      for (let i = 0; i < L; i++) for (const kv of ['key', 'value']) feeds[`past_key_values.${i}.${kv}`] = out[`present.${i}.${kv}`];
      t0 += n;
    }
    expect(maxDiff(got, full)).toBeLessThan(1e-4);
  });

  it('decode-step graph (new.* only, cache kept by the caller) equals the full sequence', async () => {
    let cache: Record<string, HostTensor> = emptyCache(B);
    const got = new Float32Array(B * T * V);
    for (let t0 = 0; t0 < T; ) {
      const n = t0 === 0 ? 4 : 1;
      const chunk = ids.map((r) => r.slice(t0, t0 + n));
      const out = await step.run({ ...hfFeeds(chunk, ids.map(() => arange(0, t0 + n).map(() => 1)), ids.map(() => arange(t0, n))), ...cache });
      expect(out['new.0.key'].dims).toEqual([B, H, n, hd]);
      const lg = out.logits.data as Float32Array;
      for (let b = 0; b < B; b++) for (let s = 0; s < n; s++) got.set(lg.subarray((b * n + s) * V, (b * n + s + 1) * V), (b * T + t0 + s) * V);
      const next: Record<string, HostTensor> = {};
      for (let i = 0; i < L; i++) for (const kv of ['key', 'value']) next[`past_key_values.${i}.${kv}`] = appendKV(cache[`past_key_values.${i}.${kv}`], out[`new.${i}.${kv}`]);
      cache = next;
      t0 += n;
    }
    expect(maxDiff(got, full)).toBeLessThan(1e-4);
  });

  it('left padding: a padded row gives the same logits as the row alone, also while decoding', async () => {
    const short = ids[1].slice(0, 6), pad = 3;
    const alone = await trainForward([short]);
    // batch: row 0 full length 9, row 1 = 3 pads + 6 tokens; HF-style positions from the mask
    const padded = [ids[0], [0, 0, 0, ...short]];
    const mask = [arange(0, T).map(() => 1), [...Array(pad).fill(0), ...Array(6).fill(1)]];
    const pos = [arange(0, T), [1, 1, 1, ...arange(0, 6)]];
    // prefill 7 tokens, then 2 decode steps
    let feeds = emptyCache(B);
    const rows: Float32Array[] = [];
    for (const [t0, n] of [[0, 7], [7, 1], [8, 1]]) {
      const out = await hf.run({
        ...hfFeeds(padded.map((r) => r.slice(t0, t0 + n)), mask.map((r) => r.slice(0, t0 + n)), pos.map((r) => r.slice(t0, t0 + n))),
        ...feeds,
      });
      const lg = out.logits.data as Float32Array;
      for (let s = 0; s < n; s++) rows.push(lg.slice((n + s) * V, (n + s + 1) * V)); // batch row 1
      feeds = {};
      for (let i = 0; i < L; i++) for (const kv of ['key', 'value']) feeds[`past_key_values.${i}.${kv}`] = out[`present.${i}.${kv}`];
    }
    const real = rows.slice(pad); // drop the pad positions
    const got = new Float32Array(6 * V);
    real.forEach((r, i) => got.set(r, i * V));
    expect(maxDiff(got, alone)).toBeLessThan(1e-4);
  });
});

describe('KvCache (fixed-capacity slots for the decode-step graph)', () => {
  it('grows, masks unused slots and left padding, and matches the training forward', async () => {
    const { KvCache } = await import('../../src/engine/kvcache');
    const rng = new Rng(5);
    const a = tokens(rng, 10), b = tokens(rng, 7), pad = 3;
    const fullA = await trainForward([a]), fullB = await trainForward([b]);
    const step = await rt.createSession(exportDecodeStep(cfg, params).bytes);
    const cache = new KvCache(cfg, 2, 4);
    // prefill 6 columns (row 1: 3 pads + 3 tokens), then 4 single-token steps
    const rows = [a, [0, 0, 0, ...b]];
    const posB = [1, 1, 1, 0, 1, 2, 3, 4, 5, 6];
    const got = [new Float32Array(10 * V), new Float32Array(7 * V)];
    for (const [t0, n] of [[0, 6], [6, 1], [7, 1], [8, 1], [9, 1]]) {
      const ids = rows.flatMap((r) => r.slice(t0, t0 + n));
      const pos = [...Array.from({ length: n }, (_, s) => t0 + s), ...posB.slice(t0, t0 + n)];
      const valid = [...Array(n).fill(1), ...Array.from({ length: n }, (_, s) => (t0 + s >= pad ? 1 : 0))];
      const out = await step.run(cache.feeds(ids, pos, valid, n));
      cache.commit(out, valid, n);
      const lg = out.logits.data as Float32Array;
      for (let s = 0; s < n; s++) {
        got[0].set(lg.subarray(s * V, (s + 1) * V), (t0 + s) * V);
        if (t0 + s >= pad) got[1].set(lg.subarray((n + s) * V, (n + s + 1) * V), (t0 + s - pad) * V);
      }
    }
    expect(cache.capacity).toBe(16);
    expect(cache.length).toBe(10);
    expect(maxDiff(got[0], fullA)).toBeLessThan(1e-4);
    expect(maxDiff(got[1], fullB)).toBeLessThan(1e-4);
    await step.release();
  });
});

describe('weights as inputs', () => {
  it('one step/HF session serves any weights: same outputs as the baked graphs', async () => {
    const rng = new Rng(8);
    const ids = [tokens(rng, 6), tokens(rng, 6)];
    const base = {
      input_ids: i64(ids.flat(), [2, 6]), attention_mask: i64(Array(12).fill(1), [2, 6]),
      position_ids: i64([0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5], [2, 6]), ...emptyCache(2),
    };
    const weights: Record<string, HostTensor> = {};
    for (const p of paramSpecs(cfg)) weights[p.name] = f32(params[p.name], p.shape);
    for (const [exp, name] of [[exportDecodeStep, 'new.1.key'], [exportInference, 'present.1.value']] as const) {
      const baked = await rt.createSession(exp(cfg, params).bytes);
      const open = await rt.createSession(exp(cfg, undefined, { weightsAsInputs: true }).bytes);
      expect(open.inputNames).toContain('lm_head.weight');
      const a = await baked.run(base), b = await open.run({ ...base, ...weights });
      expect(maxDiff(a.logits.data as Float32Array, b.logits.data as Float32Array)).toBeLessThan(1e-6);
      expect(maxDiff(a[name].data as Float32Array, b[name].data as Float32Array)).toBeLessThan(1e-6);
      // different weights through the same session change the result
      const other: Record<string, HostTensor> = { ...weights, 'lm_head.weight': f32(params['lm_head.weight'].map((x) => -x), weights['lm_head.weight'].dims) };
      const c = await open.run({ ...base, ...other });
      expect(maxDiff(a.logits.data as Float32Array, c.logits.data as Float32Array)).toBeGreaterThan(0.1);
      await baked.release(); await open.release();
    }
  });
});
