import { describe, expect, it } from 'vitest';
import * as ortWeb from 'onnxruntime-web';
import { createOrtRuntime, type OrtLike } from '../../src/engine/runtime';
import { makeConfig, initParams } from '../../src/engine/decoder';
import { Model, makeLmBatch } from '../../src/engine/trainer-core';
import { packLmRows, modelDims } from '../../src/engine/packing';
import { rt } from './helpers';

// The same adapter over onnxruntime-web (its WASM build in Node): what the browser worker uses,
// minus WebGPU. Training through it must equal onnxruntime-node.
describe('createOrtRuntime over onnxruntime-web (WASM EP)', () => {
  it('train steps equal onnxruntime-node', async () => {
    ortWeb.env.wasm.numThreads = 1;
    const web = createOrtRuntime(ortWeb as unknown as OrtLike, { kind: 'wasm', detail: 'onnxruntime-web wasm (node)' }, { executionProviders: ['wasm'] });
    const cfg = makeConfig('tiny', { vocab_size: 40, hidden_size: 32, intermediate_size: 64, num_hidden_layers: 1, num_attention_heads: 2, max_position_embeddings: 32 });
    const batch = makeLmBatch([[1, 2, 3, 4, 5, 6, 7, 8, 9], [3, 4, 5, 6, 7, 8]], 8);
    const a = new Model(cfg, rt, initParams(cfg, 3)), b = new Model(cfg, web, initParams(cfg, 3));
    for (let i = 0; i < 2; i++) {
      const ra = await a.trainStep(batch, { lr: 1e-2, loss: { kind: 'ce' } });
      const rb = await b.trainStep(batch, { lr: 1e-2, loss: { kind: 'ce' } });
      expect(Math.abs(ra.loss - rb.loss)).toBeLessThan(1e-5);
      expect(Math.abs(ra.gradNorm - rb.gradNorm)).toBeLessThan(1e-4);
    }
    let d = 0;
    for (const k of Object.keys(a.params)) for (let i = 0; i < a.params[k].length; i++) d = Math.max(d, Math.abs(a.params[k][i] - b.params[k][i]));
    expect(d).toBeLessThan(1e-4);
    await a.dispose(); await b.dispose();
  });

  it('packed batches (position ids, attention-bias input) train like onnxruntime-node and like the padded batch', async () => {
    ortWeb.env.wasm.numThreads = 1;
    const web = createOrtRuntime(ortWeb as unknown as OrtLike, { kind: 'wasm', detail: 'onnxruntime-web wasm (node)' }, { executionProviders: ['wasm'] });
    const cfg = makeConfig('tiny', { vocab_size: 40, hidden_size: 32, intermediate_size: 64, num_hidden_layers: 1, num_attention_heads: 2, max_position_embeddings: 32 });
    const seqs = [[1, 2, 3, 4, 5, 6, 7, 8, 9], [1, 2, 3, 4, 9, 9], [5, 6, 7]];
    const weights = seqs.map((q) => q.map((_, i) => (i >= 2 ? 1 : 0)));
    const packed = packLmRows(seqs.map((ids, r) => ({ ids, weights: weights[r] })), modelDims(cfg), { capacity: 16 });
    const padded = makeLmBatch(seqs, 9, { weights });
    const a = new Model(cfg, rt, initParams(cfg, 3)), b = new Model(cfg, web, initParams(cfg, 3)), c = new Model(cfg, rt, initParams(cfg, 3));
    for (let i = 0; i < 2; i++) {
      const ra = await a.trainStepPacked(packed, { lr: 1e-2 });
      const rb = await b.trainStepPacked(packed, { lr: 1e-2 });
      const rc = await c.trainStep(padded, { lr: 1e-2 });
      expect(Math.abs(ra.loss - rb.loss)).toBeLessThan(1e-5);
      expect(Math.abs(ra.loss - rc.loss)).toBeLessThan(1e-5);
      expect(Math.abs(ra.gradNorm - rc.gradNorm)).toBeLessThan(1e-4);
    }
    let d = 0;
    for (const k of Object.keys(a.params)) for (let i = 0; i < a.params[k].length; i++) d = Math.max(d, Math.abs(a.params[k][i] - b.params[k][i]), Math.abs(a.params[k][i] - c.params[k][i]));
    expect(d).toBeLessThan(1e-4);
    await a.dispose(); await b.dispose(); await c.dispose();
  });
});
