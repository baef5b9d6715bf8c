import { describe, expect, it } from 'vitest';
import { makeConfig, initParams, paramSpecs } from '../../src/engine/decoder';
import { buildTrainGraph } from '../../src/engine/graphs';
import { f32, i32, type HostTensor } from '../../src/engine/runtime';
import { Rng } from '../../src/engine/rng';
import { rt } from './helpers';
import { refLogits, refMaskedMean, refTokenLogp, to64, type P64 } from './reference';

// The `tiny` preset itself; weights scaled up from the init so that attention and the MLP are far
// from linear and every parameter matters.
const cfg = makeConfig('tiny');
const params = initParams(cfg, 5);
for (const [k, v] of Object.entries(params)) if (!k.endsWith('norm.weight')) v.forEach((x, i) => { v[i] = x * 4; }); else v.forEach((_, i) => { v[i] = 1 + 0.3 * Math.sin(i); });
const B = 2, T = 6, V = cfg.vocab_size;
const rng = new Rng(21);
const ids = Array.from({ length: B * T }, () => rng.int(V));
const targets = Array.from({ length: B * T }, () => rng.int(V));
const mask = Array.from({ length: B * T }, (_, i) => (i % T < (i < T ? 6 : 4) ? 1 : 0)); // row 1 right-padded

function refLoss(W: P64): number {
  const { logp } = refTokenLogp(refLogits(cfg, W, ids, B, T), V, targets);
  return -refMaskedMean(logp, mask);
}

describe('whole-model gradients (tiny, cross-entropy)', () => {
  it('ORT forward/loss match the float64 JS reference and gradients match finite differences', async () => {
    const s = await rt.createSession(buildTrainGraph(cfg, B, T, { kind: 'ce' }).bytes);
    const feeds: Record<string, HostTensor> = {
      input_ids: i32(ids, [B, T]), target_ids: i32(targets, [B, T]), loss_mask: f32(mask, [B, T]),
    };
    for (const p of paramSpecs(cfg)) feeds[p.name] = f32(params[p.name], p.shape);
    const out = await s.run(feeds);
    await s.release();

    const W = to64(params);
    const ref = refTokenLogp(refLogits(cfg, W, ids, B, T), V, targets);
    const lp = out.logprobs.data as Float32Array, ent = out.entropy.data as Float32Array;
    for (let i = 0; i < B * T; i++) {
      expect(Math.abs(lp[i] - ref.logp[i])).toBeLessThan(1e-4);
      expect(Math.abs(ent[i] - ref.entropy[i])).toBeLessThan(1e-4);
    }
    const loss = (out.loss.data as Float32Array)[0];
    expect(Math.abs(loss - refLoss(W))).toBeLessThan(1e-4);

    const eps = 1e-4;
    let checked = 0;
    for (const p of paramSpecs(cfg)) {
      const g = out[`grad.${p.name}`].data as Float32Array;
      expect(g.length).toBe(params[p.name].length);
      let arg = 0, gmax = 0;
      g.forEach((x, i) => { if (Math.abs(x) > gmax) { gmax = Math.abs(x); arg = i; } });
      expect(gmax).toBeGreaterThan(0);
      for (const j of [arg, rng.int(g.length), rng.int(g.length)]) {
        const w = W[p.name], keep = w[j];
        w[j] = keep + eps; const up = refLoss(W);
        w[j] = keep - eps; const dn = refLoss(W);
        w[j] = keep;
        const fd = (up - dn) / (2 * eps);
        expect(Math.abs(g[j] - fd), `${p.name}[${j}] ort ${g[j]} fd ${fd}`).toBeLessThan(2e-3 * gmax + 1e-2 * Math.abs(fd) + 1e-7);
        checked++;
      }
    }
    expect(checked).toBe(3 * paramSpecs(cfg).length);
  });
});
