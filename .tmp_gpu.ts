import * as ort from 'onnxruntime-node';
import { makeConfig, initParams, paramSpecs } from './src/engine/decoder';
import { exportInference, exportDecodeStep, buildTrainGraph } from './src/engine/graphs';
import { buildAdamWGraph } from './src/engine/adamw';
const cfg = makeConfig('tiny', { vocab_size: 64, max_position_embeddings: 64 });
const p = initParams(cfg, 0);
const mk = async (name: string, bytes: Uint8Array) => {
  try {
    const s = await ort.InferenceSession.create(bytes, { executionProviders: ['webgpu'], logSeverityLevel: 1 } as any);
    console.log(name, 'ok', s.inputNames.length);
  } catch (e) { console.log(name, 'FAIL', String(e).slice(0, 300)); }
};
await mk('hf', exportInference(cfg, p).bytes);
await mk('step', exportDecodeStep(cfg, p).bytes);
await mk('train', buildTrainGraph(cfg, 2, 8, { kind: 'grpo', agg: 'token-mean', kl: 'k3' }).bytes);
await mk('adamw', buildAdamWGraph(paramSpecs(cfg)).bytes);
