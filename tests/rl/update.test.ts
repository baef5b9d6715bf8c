import { describe, expect, it } from 'vitest';
import { initParams, makeConfig, type Params } from '../../src/engine/decoder';
import type { AggMode, KlType } from '../../src/engine/losses';
import { packRows } from '../../src/engine/packing';
import { Rng } from '../../src/engine/rng';
import { nodeRuntime } from '../../src/engine/runtime-node';
import { Model } from '../../src/engine/trainer-core';
import { referenceGrpoGradients } from '../../src/bench/train-reference';
import { DEFAULT_TRAIN_CONFIG } from '../../src/rl/trainer';
import { grpoGradients, tokenWeights, type UpdateRow, type UpdateSettings } from '../../src/rl/update';

const rt = nodeRuntime();
const CTX = 32;
const cfg = makeConfig('tiny', { vocab_size: 40, hidden_size: 32, intermediate_size: 64, num_hidden_layers: 2, num_attention_heads: 2, max_position_embeddings: CTX });
const params = initParams(cfg, 5);
// Larger weights: peaked distributions, so ratios move and clipping binds.
for (const [k, v] of Object.entries(params)) if (!k.endsWith('norm.weight')) v.forEach((x, i) => { v[i] = x * 5; });
const refParams: Params = Object.fromEntries(Object.entries(params).map(([k, v]) => [k, v.map((x, i) => x + 0.01 * Math.sin(i))]));

const AGGS: AggMode[] = ['token-mean', 'seq-mean-token-mean', 'seq-mean-token-sum', 'seq-mean-token-sum-norm'];

const toks = (rng: Rng, n: number) => Array.from({ length: n }, () => 3 + rng.int(37));
const row = (rng: Rng, promptIds: number[], outputIds: number[]): UpdateRow => ({
  promptIds, outputIds, adv: rng.normal(), logprobs: outputIds.map(() => -3.6 + 1.5 * (rng.uniform() - 0.5)),
});

/** Groups of samples sharing a prompt, Act rows extending the previous turn, unrelated rows, a row at the context limit, repeated outputs. */
function randomBatch(seed: number): UpdateRow[] {
  const rng = new Rng(seed);
  const rows: UpdateRow[] = [];
  const system = toks(rng, 6);
  for (let k = 0; k < 3; k++) {
    const p1 = [...system, ...toks(rng, 2)], o1 = toks(rng, 2 + rng.int(3));
    rows.push(row(rng, p1, o1));
    const p2 = [...p1, ...o1, ...toks(rng, 3)];
    rows.push(row(rng, p2, toks(rng, 1 + rng.int(4))));
  }
  const shared = [...system, 9, 9];
  const same = toks(rng, 3);
  rows.push(row(rng, shared, same), row(rng, shared, same), row(rng, shared, [...same, 7]));
  rows.push(row(rng, toks(rng, 5), toks(rng, 3)));                 // shares nothing
  rows.push(row(rng, toks(rng, CTX - 4), toks(rng, 4)));            // exactly the context
  rows.push(row(rng, toks(rng, 3), []));                            // nothing to train: dropped by both paths
  rows.push(row(rng, toks(rng, CTX - 2), toks(rng, 3)));            // over the context: dropped by both
  return rows;
}

const settings = (agg: AggMode, kl: KlType, over: Partial<UpdateSettings> = {}): UpdateSettings => ({
  lossAggMode: agg, klType: kl, clipRatioLow: 0.2, clipRatioHigh: 0.28, clipRatioC: 2, klCoef: 0.3, lr: 1e-3, pad: 0, maxContext: CTX, ...over,
});

/** max |a − b| / max |b| over one tensor: float32 sums in another order, scaled by the tensor. */
function relDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let d = 0, m = 0;
  for (let i = 0; i < b.length; i++) { d = Math.max(d, Math.abs(a[i] - b[i])); m = Math.max(m, Math.abs(b[i])); }
  return m === 0 ? d : d / m;
}

async function compare(rows: UpdateRow[], s: UpdateSettings, microBatch: number) {
  const model = new Model(cfg, rt, params);
  const ref = new Model(cfg, rt, refParams);
  const a = await grpoGradients(model, rows, s, ref);
  const b = await referenceGrpoGradients(model, rows, { ...s, microBatch }, ref);
  expect(Object.keys(a.grads).sort()).toEqual(Object.keys(b.grads).sort());
  let worst = 0;
  for (const k of Object.keys(b.grads)) worst = Math.max(worst, relDiff(a.grads[k], b.grads[k]));
  expect(worst).toBeLessThan(1e-5);
  expect(Math.abs(a.stats.loss - b.stats.loss)).toBeLessThan(1e-5 * Math.max(1e-3, Math.abs(b.stats.loss)));
  expect(Math.abs(a.stats.pg - b.stats.pg)).toBeLessThan(1e-5 * Math.max(1e-3, Math.abs(b.stats.pg)));
  expect(Math.abs(a.stats.kl - b.stats.kl)).toBeLessThan(1e-5 * Math.max(1e-3, Math.abs(b.stats.kl)));
  for (const k of ['ppoKl', 'clip', 'entropy'] as const) expect(Math.abs(a.stats[k] - b.stats[k])).toBeLessThan(1e-4);
  expect(a.stats.tokens).toBe(b.stats.tokens);
  expect(a.stats.rows).toBe(b.stats.rows);
  await model.dispose(); await ref.dispose();
  return { a, b };
}

describe('packed GRPO update = row-by-row padded update', () => {
  for (const agg of AGGS) {
    for (const kl of ['none', 'k3'] as KlType[]) {
      it(`agg=${agg} kl=${kl}: loss and every gradient within 1e-5 relative`, async () => {
        const rows = randomBatch(agg.length * 7 + kl.length);
        const { a, b } = await compare(rows, settings(agg, kl), 1);
        expect(a.stats.rows).toBe(rows.length - 2);
        // Something was shared: fewer positions than the rows' own tokens.
        expect(a.stats.usefulTokens).toBeLessThan(b.stats.usefulTokens);
        expect(b.stats.clip).toBeGreaterThan(0); // clipping binds, so the clipped branches are compared too
      });
    }
  }

  it('micro-batches of several rows in the reference, graph rows at the context limit in the packing', async () => {
    await compare(randomBatch(11), settings('seq-mean-token-mean', 'k1', { packLength: CTX }), 4);
    await compare(randomBatch(12), settings('token-mean', 'none', { sharePrefixes: false }), 3);
    await compare(randomBatch(13), settings('seq-mean-token-sum', 'k3', { scoreOnlyTrained: true }), 1);
  });

  it('a single row', async () => {
    const rng = new Rng(3);
    for (const agg of AGGS) await compare([row(rng, toks(rng, 7), toks(rng, 5))], settings(agg, 'k2'), 1);
  });
});

describe('packing', () => {
  it('each trained token is predicted at a position holding its own context', () => {
    const rows = randomBatch(21);
    const inputs = rows.map((r) => ({ ids: [...r.promptIds, ...r.outputIds], trained: [...r.promptIds.map(() => 0), ...r.outputIds.map(() => 1)] }));
    for (const cap of [CTX + 6, 64, 256]) {
      const p = packRows(inputs, cap);
      inputs.forEach((inp, r) => {
        for (let i = 1; i < inp.ids.length; i++) {
          const w = p.where[r][i];
          if (!inp.trained[i]) { expect(w).toBeUndefined(); continue; }
          const [g, t] = w!;
          const gr = p.rows[g];
          expect(gr.targetIds[t]).toBe(inp.ids[i]);
          // Walking parents from t spells the row's tokens 0..i-1 backwards, at depths i-1..0.
          const chain: number[] = [];
          for (let a = t; a >= 0; a = gr.parent[a]) chain.unshift(a);
          expect(chain.map((a) => gr.inputIds[a])).toEqual(Array.from(inp.ids).slice(0, i));
          expect(chain.map((a) => gr.positionIds[a])).toEqual(chain.map((_, k) => k));
        }
      });
      // Two rows train the same tokens from the same context (repeated outputs): distinct positions.
      const seen = new Set(p.where.flatMap((ws) => ws.filter(Boolean).map((w) => w!.join(':'))));
      expect(seen.size).toBe(inputs.reduce((s, x) => s + x.trained.filter(Boolean).length, 0));
    }
  });
});

describe('row weighting (issue 8: the reference trains token-mean on micro-batches of one row)', () => {
  it('is the default', () => {
    expect(DEFAULT_TRAIN_CONFIG.lossAggMode).toBe('seq-mean-token-mean');
  });

  it("each row's share of the gradient: equal under seq-mean-token-mean, proportional to its tokens under token-mean", async () => {
    const rng = new Rng(8);
    // Unequal lengths: 1, 4 and 12 output tokens.
    const rows = [row(rng, toks(rng, 6), toks(rng, 1)), row(rng, toks(rng, 9), toks(rng, 4)), row(rng, toks(rng, 4), toks(rng, 12))];
    const model = new Model(cfg, rt, params);
    const single: Params[] = [];
    // One row alone under token-mean = the reference's micro-batch of one row.
    for (const r of rows) single.push((await grpoGradients(model, [r], settings('token-mean', 'none'))).grads);
    const N = rows.reduce((s, r) => s + r.outputIds.length, 0);
    for (const [agg, share] of [['seq-mean-token-mean', rows.map(() => 1 / 3)], ['token-mean', rows.map((r) => r.outputIds.length / N)]] as const) {
      const all = (await grpoGradients(model, rows, settings(agg, 'none'))).grads;
      for (const k of Object.keys(all)) {
        const expected = all[k].map((_, i) => single.reduce((s, g, r) => s + share[r] * g[k][i], 0));
        expect(relDiff(all[k], expected)).toBeLessThan(1e-5);
      }
    }
    expect(tokenWeights([1, 4, 12], 'seq-mean-token-mean', CTX)).toEqual([1 / 3, 1 / 12, 1 / 36]);
    expect(tokenWeights([1, 4, 12], 'token-mean', CTX)).toEqual([1 / 17, 1 / 17, 1 / 17]);
    await model.dispose();
  });
});
