import { describe, expect, it } from 'vitest';
import { initParams, makeConfig, type Params } from '../../src/engine/decoder';
import { Rng } from '../../src/engine/rng';
import { nodeRuntime } from '../../src/engine/runtime-node';
import { Model, makeLmBatch } from '../../src/engine/trainer-core';
import type { AggMode } from '../../src/engine/losses';
import { grpoGradients, type UpdateRow, type UpdateSettings } from '../../src/rl/update';

// The equality tests in update.test.ts compare two paths written from the same reading of the loss; this one
// checks the direction against the definition of policy gradient: a small descent step on the GRPO loss must
// raise the log-probability of a response with a positive advantage and lower that of a negative one.

const rt = nodeRuntime();
const CTX = 24;
const cfg = makeConfig('tiny', { vocab_size: 30, hidden_size: 32, intermediate_size: 64, num_hidden_layers: 2, num_attention_heads: 2, max_position_embeddings: CTX });

async function logprobOf(model: Model, prompt: number[], output: number[]): Promise<number> {
  const ids = [...prompt, ...output];
  const { logprobs } = await model.score(makeLmBatch([ids], ids.length));
  let s = 0;
  for (let t = prompt.length - 1; t < ids.length - 1; t++) s += logprobs[t];
  return s;
}

describe('GRPO update direction', () => {
  for (const agg of ['token-mean', 'seq-mean-token-mean'] as AggMode[]) {
    it(`${agg}: a descent step raises the positive-advantage response and lowers the negative one`, async () => {
      const params = initParams(cfg, 11);
      const rng = new Rng(3);
      const prompt = Array.from({ length: 6 }, () => 3 + rng.int(27));
      const good = [5, 9, 14, 2], bad = [7, 7, 21, 2];
      const model = new Model(cfg, rt, params);
      // Old log-probs equal to the current policy's: ratio 1, nothing clipped, as in the first PPO epoch.
      const lpGood = (await model.score(makeLmBatch([[...prompt, ...good]], prompt.length + good.length))).logprobs;
      const lpBad = (await model.score(makeLmBatch([[...prompt, ...bad]], prompt.length + bad.length))).logprobs;
      const old = (lp: Float32Array, n: number) => Array.from(lp.slice(prompt.length - 1, prompt.length - 1 + n));
      const rows: UpdateRow[] = [
        { promptIds: prompt, outputIds: good, logprobs: old(lpGood, good.length), adv: 1 },
        { promptIds: prompt, outputIds: bad, logprobs: old(lpBad, bad.length), adv: -1 },
      ];
      const s: UpdateSettings = { lossAggMode: agg, klType: 'none', clipRatioLow: 0.2, clipRatioHigh: 0.28, clipRatioC: 3, klCoef: 0, lr: 0, pad: 0, maxContext: CTX };
      const before = { good: await logprobOf(model, prompt, good), bad: await logprobOf(model, prompt, bad) };
      const { grads, stats } = await grpoGradients(model, rows, s);
      expect(Math.abs(stats.ppoKl)).toBeLessThan(1e-5);
      const step = 0.05;
      const moved: Params = Object.fromEntries(Object.entries(params).map(([k, v]) => {
        const g = grads[k];
        return [k, g ? v.map((x, i) => x - step * g[i]) : v.slice()];
      }));
      const after = new Model(cfg, rt, moved);
      const now = { good: await logprobOf(after, prompt, good), bad: await logprobOf(after, prompt, bad) };
      console.log(`${agg}: log p(good) ${before.good.toFixed(4)} → ${now.good.toFixed(4)}, log p(bad) ${before.bad.toFixed(4)} → ${now.bad.toFixed(4)}`);
      expect(now.good).toBeGreaterThan(before.good + 1e-4);
      expect(now.bad).toBeLessThan(before.bad - 1e-4);
      await model.dispose(); await after.dispose();
    });
  }
});
