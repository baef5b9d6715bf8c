import * as ort from 'onnxruntime-node';
import { makeConfig, initParams, paramSpecs } from './src/engine/decoder';
import { buildTrainGraph } from './src/engine/graphs';
import { f32, i32 } from './src/engine/runtime';
const cfg = makeConfig('small');
const p = initParams(cfg, 0);
const B = 16, T = 256;
const s = await ort.InferenceSession.create(buildTrainGraph(cfg, B, T, { kind: 'ce' }).bytes, { enableProfiling: true, profileFilePrefix: '/tmp/engprof' } as any);
const feeds: any = { input_ids: i32(Array.from({ length: B * T }, (_, i) => i % 512), [B, T]), target_ids: i32(Array.from({ length: B * T }, (_, i) => (i * 7) % 512), [B, T]), loss_mask: f32(new Float32Array(B * T).fill(1), [B, T]) };
for (const sp of paramSpecs(cfg)) feeds[sp.name] = f32(p[sp.name], sp.shape);
const tf: any = {}; for (const [k, v] of Object.entries(feeds) as any) tf[k] = new ort.Tensor(v.type, v.data, v.dims);
for (let i = 0; i < 4; i++) { const t = performance.now(); await s.run(tf); console.log('run ms', (performance.now() - t).toFixed(0)); }
const f = (s as any).endProfiling?.();
console.log('profile', f);
