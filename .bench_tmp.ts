import { makeConfig } from './src/engine/decoder';
import { Model, makeLmBatch } from './src/engine/trainer-core';
import { createNodeRuntime } from './src/engine/runtime-node';
import { Rng } from './src/engine/rng';
const cfg = makeConfig('small');
const rng = new Rng(1);
const B = 16, T = 256;
const batch = makeLmBatch(Array.from({ length: B }, () => Array.from({ length: T + 1 }, () => rng.int(512))), T);
for (const spin of [false, true]) {
  const m = new Model(cfg, createNodeRuntime({ spin }), undefined, { seed: 1 });
  await m.trainStep(batch, { lr: 1e-3 }); await m.trainStep(batch, { lr: 1e-3 });
  const times: number[] = [], tg: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    const g = await m.computeGrads(batch);
    const t1 = performance.now();
    await m.applyGrads(g.grads, 1e-3);
    times.push(performance.now() - t0); tg.push(t1 - t0);
  }
  times.sort((a, b) => a - b); tg.sort((a, b) => a - b);
  console.log(`spin=${spin} small 16x256 step ms: min ${times[0].toFixed(0)} median ${times[2].toFixed(0)} | train graph min ${tg[0].toFixed(0)}`);
}
