// Runs the engine's graphs on onnxruntime-node's WebGPU EP (SwiftShader, no GPU needed) and on
// the CPU EP, and compares. Needs LD_LIBRARY_PATH=/usr/lib/chromium and
// VK_ICD_FILENAMES=/usr/lib/chromium/vk_swiftshader_icd.json; webgpu-node.test.ts sets them.
import * as ort from 'onnxruntime-node';
import { createOrtRuntime, f32, i32, i64, scalar, type OrtLike, type HostTensor } from '../../src/engine/runtime';
import { makeConfig, initParams, paramSpecs } from '../../src/engine/decoder';
import { exportInference, buildTrainGraph } from '../../src/engine/graphs';
import { buildAdamWGraph } from '../../src/engine/adamw';
const cpu = createOrtRuntime(ort as unknown as OrtLike, { kind: 'cpu', detail: '' }, { executionProviders: ['cpu'] });
const gpu = createOrtRuntime(ort as unknown as OrtLike, { kind: 'webgpu', detail: 'swiftshader' }, { executionProviders: ['webgpu'] });
const cfg = makeConfig('tiny', { vocab_size: 64, max_position_embeddings: 64 });
const p = initParams(cfg, 0);
const diff = (a: Record<string, HostTensor>, b: Record<string, HostTensor>) => {
  let m = 0;
  for (const k of Object.keys(a)) { const x = a[k].data as Float32Array, y = b[k].data as Float32Array; for (let i = 0; i < x.length; i++) m = Math.max(m, Math.abs(Number(x[i]) - Number(y[i]))); }
  return m;
};
const cmp = async (name: string, bytes: Uint8Array, feeds: Record<string, HostTensor>) => {
  const a = await (await cpu.createSession(bytes)).run(feeds);
  const b = await (await gpu.createSession(bytes)).run(feeds);
  const d = diff(a, b);
  console.log(name, 'outputs', Object.keys(a).length, 'max |cpu-gpu|', d.toExponential(2));
  if (!(d < 1e-4)) process.exitCode = 1;
};
const B = 2, S = 5, H = cfg.num_attention_heads, hd = cfg.hidden_size / H;
const inf: Record<string, HostTensor> = { input_ids: i64([1, 2, 3, 4, 5, 0, 0, 7, 8, 9], [B, S]), attention_mask: i64([1, 1, 1, 1, 1, 0, 0, 1, 1, 1], [B, S]), position_ids: i64([0, 1, 2, 3, 4, 1, 1, 0, 1, 2], [B, S]) };
for (let i = 0; i < cfg.num_hidden_layers; i++) for (const kv of ['key', 'value']) inf[`past_key_values.${i}.${kv}`] = f32(new Float32Array(0), [B, H, 0, hd]);
await cmp('hf inference', exportInference(cfg, p).bytes, inf);
const T = 8;
const tr: Record<string, HostTensor> = { input_ids: i32(Array.from({ length: B * T }, (_, i) => (i * 5) % 64), [B, T]), target_ids: i32(Array.from({ length: B * T }, (_, i) => (i * 3) % 64), [B, T]), loss_mask: f32(Array(B * T).fill(1), [B, T]),
  advantages: f32(Array.from({ length: B * T }, (_, i) => Math.sin(i)), [B, T]), old_logprobs: f32(Array(B * T).fill(-4), [B, T]), ref_logprobs: f32(Array(B * T).fill(-4.2), [B, T]),
  clip_ratio_low: scalar(0.2), clip_ratio_high: scalar(0.2), clip_ratio_c: scalar(3), kl_coef: scalar(0.1) };
for (const s of paramSpecs(cfg)) tr[s.name] = f32(p[s.name], s.shape);
await cmp('grpo train', buildTrainGraph(cfg, B, T, { kind: 'grpo', agg: 'seq-mean-token-mean', kl: 'k3' }).bytes, tr);
const ad: Record<string, HostTensor> = { step: scalar(3), lr: scalar(0.01) };
for (const s of paramSpecs(cfg)) { ad[s.name] = f32(p[s.name], s.shape); ad[`grad.${s.name}`] = f32(p[s.name].map((x) => x * 10), s.shape); ad[`m.${s.name}`] = f32(p[s.name].map((x) => x), s.shape); ad[`v.${s.name}`] = f32(p[s.name].map((x) => x * x), s.shape); }
await cmp('adamw', buildAdamWGraph(paramSpecs(cfg)).bytes, ad);

// Device residency: params, moments and gradients stay in GPU buffers across steps.
{
  const { Model, makeLmBatch } = await import('../../src/engine/trainer-core');
  const small = makeConfig('tiny', { vocab_size: 40, hidden_size: 32, intermediate_size: 64, num_hidden_layers: 1, num_attention_heads: 2, max_position_embeddings: 32 });
  const batch = makeLmBatch([[1, 2, 3, 4, 5, 6, 7, 8, 9], [3, 4, 5, 6, 7, 8]], 8);
  const a = new Model(small, cpu, initParams(small, 3));
  const b = new Model(small, gpu, initParams(small, 3), { residency: 'device', outputLocation: 'gpu-buffer' });
  let lossDiff = 0;
  for (let i = 0; i < 3; i++) {
    const ra = await a.trainStep(batch, { lr: 1e-2 }), rb = await b.trainStep(batch, { lr: 1e-2 });
    lossDiff = Math.max(lossDiff, Math.abs(ra.loss - rb.loss));
  }
  await b.syncToHost();
  let d = 0;
  for (const k of Object.keys(a.params)) for (let i = 0; i < a.params[k].length; i++) d = Math.max(d, Math.abs(a.params[k][i] - b.params[k][i]));
  console.log('gpu-resident training: 3 steps, loss diff', lossDiff.toExponential(2), 'max |cpu-gpu| params', d.toExponential(2));
  if (!(d < 1e-3 && lossDiff < 1e-4)) process.exitCode = 1;
}
