import { describe, expect, it } from 'vitest';
import { makeConfig } from '../../src/engine/decoder';
import { Model, makeLmBatch } from '../../src/engine/trainer-core';
import { Rng } from '../../src/engine/rng';
import { rt } from './helpers';

// Copy task: [BOS, x1..xk, SEP, x1..xk]; loss only on the copied half, which is unpredictable
// without attention to the first half (chance level ln(16) ≈ 2.77 nats).
const K = 8, SYMBOLS = 16, BOS = 1, SEP = 2, OFFSET = 3;
const THRESHOLD = 0.3;

function copyBatch(rng: Rng, B: number) {
  const seqs: number[][] = [], weights: number[][] = [];
  for (let b = 0; b < B; b++) {
    const xs = Array.from({ length: K }, () => OFFSET + rng.int(SYMBOLS));
    seqs.push([BOS, ...xs, SEP, ...xs]);
    weights.push([...Array(K + 2).fill(0), ...Array(K).fill(1)]);
  }
  return makeLmBatch(seqs, 2 * K + 1, { weights });
}

describe('learning', () => {
  it(`tiny model learns a copy task: masked loss < ${THRESHOLD}`, async () => {
    const cfg = makeConfig('tiny', { vocab_size: 32, max_position_embeddings: 64 });
    const model = new Model(cfg, rt, undefined, { seed: 1, adam: { weightDecay: 0, maxGradNorm: 1 } });
    const rng = new Rng(2);
    const first = (await model.trainStep(copyBatch(rng, 32), { lr: 3e-3 })).loss;
    expect(first).toBeGreaterThan(2.5);
    let last = first;
    const t0 = performance.now();
    let steps = 1;
    // Bounded by steps only: a slow machine takes longer, it never changes the outcome.
    for (; steps < 400; steps++) {
      const lr = 3e-3 * Math.min(1, (400 - steps) / 100 + 0.1);
      last = (await model.trainStep(copyBatch(rng, 32), { lr })).loss;
      if (steps % 50 === 0) console.log(`step ${steps} loss ${last.toFixed(3)}`);
      if (last < THRESHOLD / 2) break;
    }
    const evalLoss = (await model.score(copyBatch(new Rng(999), 32))).loss;
    console.log(`copy task: ${steps} steps, ${(performance.now() - t0).toFixed(0)} ms, train ${last.toFixed(3)}, held-out ${evalLoss.toFixed(3)}`);
    expect(evalLoss).toBeLessThan(THRESHOLD);
    await model.dispose();
  });
});
