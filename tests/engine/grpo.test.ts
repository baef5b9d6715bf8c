import { describe, expect, it } from 'vitest';
import { makeConfig, initParams, paramSpecs } from '../../src/engine/decoder';
import { buildTrainGraph } from '../../src/engine/graphs';
import type { AggMode, KlType } from '../../src/engine/losses';
import { f32, i32, scalar, type HostTensor } from '../../src/engine/runtime';
import { Rng } from '../../src/engine/rng';
import { rt } from './helpers';
import { refGrpo, refLogits, refTokenLogp, to64, type P64 } from './reference';

// A micro decoder keeps 13 graph builds fast; the loss code is the same for every size.
const cfg = makeConfig('tiny', { vocab_size: 40, hidden_size: 32, intermediate_size: 64, num_hidden_layers: 1, num_attention_heads: 2 });
const params = initParams(cfg, 9);
for (const [k, v] of Object.entries(params)) if (!k.endsWith('norm.weight')) v.forEach((x, i) => { v[i] = x * 6; });
const B = 3, T = 6, V = cfg.vocab_size, N = B * T;
const rng = new Rng(77);
const ids = Array.from({ length: N }, () => rng.int(V));
const targets = Array.from({ length: N }, () => rng.int(V));
// row 0 full, row 1 right-padded, row 2 has a prompt part masked out
const mask = [1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 1, 1, 1, 0];
const W = to64(params);
const cur = refTokenLogp(refLogits(cfg, W, ids, B, T), V, targets).logp;
const adv = Array.from({ length: N }, (_, i) => [1.3, -0.7, -1.1][Math.floor(i / T)] + 0.3 * Math.sin(i));
const old = Array.from(cur, (x) => x + (rng.uniform() * 1.8 - 0.9)); // ratios from ~0.4 to ~2.5: both clips bind
const refLp = Array.from(cur, (x) => x + (rng.uniform() * 1.2 - 0.6));
const hyper = { low: 0.2, high: 0.28, c: 1.6, klCoef: 0.5 };

function refLossOf(Wp: P64, agg: AggMode, kl: KlType, normBy?: number) {
  const logp = refTokenLogp(refLogits(cfg, Wp, ids, B, T), V, targets).logp;
  return refGrpo({ logp, old, ref: refLp, adv, mask, B, T, ...hyper, agg, kl, normBy });
}

const AGGS: AggMode[] = ['token-mean', 'seq-mean-token-mean', 'seq-mean-token-sum', 'seq-mean-token-sum-norm'];
const combos: [KlType, AggMode, number?][] = [
  ...(['k1', 'k2', 'k3'] as KlType[]).flatMap((kl) => AGGS.map((a) => [kl, a] as [KlType, AggMode])),
  ['none', 'token-mean'],
  ['k3', 'seq-mean-token-sum-norm', 40], // explicit loss_scale_factor
];

describe('GRPO policy loss (verl semantics) vs JS reference and finite differences', () => {
  for (const [kl, agg, normBy] of combos) {
    it(`kl=${kl} agg=${agg}${normBy ? ` normBy=${normBy}` : ''}`, async () => {
      const s = await rt.createSession(buildTrainGraph(cfg, B, T, { kind: 'grpo', agg, kl, normBy }).bytes);
      const feeds: Record<string, HostTensor> = {
        input_ids: i32(ids, [B, T]), target_ids: i32(targets, [B, T]), loss_mask: f32(mask, [B, T]),
        advantages: f32(adv, [B, T]), old_logprobs: f32(old, [B, T]),
        clip_ratio_low: scalar(hyper.low), clip_ratio_high: scalar(hyper.high), clip_ratio_c: scalar(hyper.c),
      };
      if (kl !== 'none') { feeds.ref_logprobs = f32(refLp, [B, T]); feeds.kl_coef = scalar(hyper.klCoef); }
      for (const p of paramSpecs(cfg)) feeds[p.name] = f32(params[p.name], p.shape);
      const out = await s.run(feeds);
      await s.release();
      const num = (k: string) => Number(out[k].data[0]);

      const ref = refLossOf(W, agg, kl, normBy);
      expect(ref.clipfrac).toBeGreaterThan(0.1); // clipping really binds
      expect(ref.clipfracLower).toBeGreaterThan(0); // and so does the dual clip
      const tol = (x: number) => 1e-4 * (1 + Math.abs(x));
      expect(Math.abs(num('loss') - ref.loss)).toBeLessThan(tol(ref.loss));
      expect(Math.abs(num('pg_loss') - ref.pgLoss)).toBeLessThan(tol(ref.pgLoss));
      if (kl !== 'none') {
        expect(Math.abs(num('kl_loss') - ref.klLoss)).toBeLessThan(tol(ref.klLoss));
        expect(Math.abs(ref.klLoss)).toBeGreaterThan(1e-3);
      }
      expect(Math.abs(num('clipfrac') - ref.clipfrac)).toBeLessThan(1e-6);
      expect(Math.abs(num('clipfrac_lower') - ref.clipfracLower)).toBeLessThan(1e-6);
      expect(Math.abs(num('ppo_kl') - ref.ppoKl)).toBeLessThan(1e-4);

      const eps = 1e-5;
      const r2 = new Rng(kl.length * 13 + agg.length);
      for (const p of paramSpecs(cfg)) {
        const g = out[`grad.${p.name}`].data as Float32Array;
        let arg = 0, gmax = 0;
        g.forEach((x, i) => { if (Math.abs(x) > gmax) { gmax = Math.abs(x); arg = i; } });
        expect(gmax).toBeGreaterThan(0);
        for (const j of [arg, r2.int(g.length)]) {
          const w = W[p.name], keep = w[j];
          w[j] = keep + eps; const up = refLossOf(W, agg, kl, normBy).loss;
          w[j] = keep - eps; const dn = refLossOf(W, agg, kl, normBy).loss;
          w[j] = keep;
          const fd = (up - dn) / (2 * eps);
          expect(Math.abs(g[j] - fd), `${p.name}[${j}] ort ${g[j]} fd ${fd}`).toBeLessThan(2e-3 * gmax + 1e-2 * Math.abs(fd) + 1e-7);
        }
      }
    });
  }
});

describe('KL estimators on extreme log-ratios (the ±10 / ±20 clamps)', () => {
  it('match the reference values, and their gradients match finite differences', async () => {
    const { Graph } = await import('../../src/engine/graph');
    const { klPenalty } = await import('../../src/engine/losses');
    const O = await import('../../src/engine/ops');
    const { fdCheck } = await import('./helpers');
    const diffs = [-25, -12, -3, -0.5, 0.2, 2, 2.9, 15, 30];
    for (const type of ['k1', 'k2', 'k3'] as const) {
      const g = new Graph();
      const lp = g.input('logp', 'float32', [diffs.length]);
      const ref = g.const(new Float32Array(diffs.length).fill(-1), [diffs.length]);
      const kl = klPenalty(lp, ref, type);
      g.output(kl, 'kl');
      const logp = diffs.map((d) => d - 1);
      const s = await rt.createSession(g.serialize());
      const got = (await s.run({ logp: f32(logp, [diffs.length]) })).kl.data as Float32Array;
      await s.release();
      const exp = refGrpo({ logp: [0], old: [0], ref: [0], adv: [0], mask: [1], B: 1, T: 1, low: 0.2, high: 0.2, c: 3, klCoef: 1, agg: 'token-mean', kl: type });
      expect(exp.klLoss).toBe(0);
      diffs.forEach((d, i) => {
        const one = refGrpo({ logp: [d - 1], old: [d - 1], ref: [-1], adv: [0], mask: [1], B: 1, T: 1, low: 0.2, high: 0.2, c: 3, klCoef: 1, agg: 'token-mean', kl: type }).klLoss;
        expect(Math.abs(got[i] - one)).toBeLessThan(1e-5 * (1 + Math.abs(one)));
      });
      if (type === 'k3') expect(Math.max(...got)).toBe(10); // clamped
      const g2 = new Graph();
      const lp2 = g2.input('logp', 'float32', [diffs.length]);
      const loss = O.reduceSum(O.mul(klPenalty(lp2, g2.const(new Float32Array(diffs.length).fill(-1), [diffs.length]), type), g2.const(diffs.map((_, i) => 1 + i / 10), [diffs.length])));
      const err = await fdCheck(g2, loss, [lp2], { logp: f32(logp, [diffs.length]) }, { eps: 1e-3 });
      expect(err).toBeLessThan(1e-2);
    }
  });
});
