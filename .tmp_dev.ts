import * as ort from 'onnxruntime-node';
import { createOrtRuntime, type OrtLike } from './src/engine/runtime';
import { makeConfig, initParams } from './src/engine/decoder';
import { Model, makeLmBatch } from './src/engine/trainer-core';
const gpu = createOrtRuntime(ort as unknown as OrtLike, { kind: 'webgpu', detail: 'swiftshader' }, { executionProviders: ['webgpu'] });
const cpu = createOrtRuntime(ort as unknown as OrtLike, { kind: 'cpu', detail: '' }, { executionProviders: ['cpu'] });
const cfg = makeConfig('tiny', { vocab_size: 40, hidden_size: 32, intermediate_size: 64, num_hidden_layers: 1, num_attention_heads: 2, max_position_embeddings: 32 });
const batch = makeLmBatch([[1, 2, 3, 4, 5, 6, 7, 8, 9], [3, 4, 5, 6, 7, 8]], 8);
const a = new Model(cfg, cpu, initParams(cfg, 3));
const b = new Model(cfg, gpu, initParams(cfg, 3), { residency: 'device', outputLocation: 'gpu-buffer' });
for (let i = 0; i < 3; i++) {
  const ra = await a.trainStep(batch, { lr: 1e-2 });
  const rb = await b.trainStep(batch, { lr: 1e-2 });
  console.log('loss cpu', ra.loss, 'gpu-resident', rb.loss, 'norm', ra.gradNorm, rb.gradNorm);
}
console.log('sync...'); await b.syncToHost(); console.log('synced');
let m = 0; for (const k of Object.keys(a.params)) for (let i = 0; i < a.params[k].length; i++) m = Math.max(m, Math.abs(a.params[k][i] - b.params[k][i]));
console.log('max param diff', m);
