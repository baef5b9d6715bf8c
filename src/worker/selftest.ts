// Engine self-test: the `tiny` preset (1 layer by default), one training step (train graph + AdamW graph,
// via the engine's Model) and one sampling call (the engine's Sampler over its ORT KV-cache model), all
// through whatever Runtime is passed in. Pure TypeScript with no DOM, so the browser worker (runtime-web) and the
// Playwright spec (runtime-node, as the reference) run exactly the same code and can be compared.

import { makeConfig } from '../engine/decoder';
import type { Runtime } from '../engine/runtime';
import { Sampler, createOrtKVModel } from '../engine/sampler';
import { BPETokenizer, trainBPE } from '../engine/tokenizer';
import { Model, makeLmBatch } from '../engine/trainer-core';
import type { SelfTestResult } from './protocol';

export interface SelfTestOptions {
  seed?: number;
  /** Training batch rows × sequence length; small because SwiftShader compiles shaders per kernel. */
  batch?: number;
  seqLen?: number;
  /** Greedy tokens to sample after the update. */
  sampleTokens?: number;
  lr?: number;
  /**
   * Decoder layers (the tiny preset has 2). Default 1: stacking repeats the same code path, and each layer
   * adds kernels that SwiftShader compiles on first run, which is most of the WebGPU e2e time.
   */
  layers?: number;
}

export const SELFTEST_DEFAULTS = { seed: 1, batch: 2, seqLen: 16, sampleTokens: 6, lr: 1e-2, layers: 1 } as const;

// A fixed corpus for the tokenizer and the batch: repetitive, so one step already lowers the loss.
const CORPUS = 'the cat sat on the mat. the dog sat on the log. the cat and the dog sat on the mat and the log. ';

const now = () => (typeof performance !== 'undefined' ? performance.now() : Date.now());

export async function engineSelfTest(rt: Runtime, opts: SelfTestOptions = {}): Promise<SelfTestResult> {
  const o = { ...SELFTEST_DEFAULTS, ...opts };
  const timings: Record<string, number> = Object.create(null);
  const time = async <T>(k: string, f: () => Promise<T> | T): Promise<T> => {
    const t0 = now();
    try { return await f(); } finally { timings[k] = (timings[k] ?? 0) + now() - t0; }
  };

  const cfg = makeConfig('tiny', { num_hidden_layers: o.layers });
  const tok = await time('tokenizer', () => new BPETokenizer(trainBPE(CORPUS.repeat(4), { vocabSize: cfg.vocab_size, minFrequency: 2 })));
  const ids = tok.encode(CORPUS.repeat(3));
  const B = o.batch, T = o.seqLen;
  // Row r starts r·5 tokens in: different rows, same distribution.
  const seqs = Array.from({ length: B }, (_, r) => ids.slice(r * 5, r * 5 + T + 1));
  const batch = makeLmBatch(seqs, T, { pad: 0 });

  const model = new Model(cfg, rt, undefined, { seed: o.seed });
  try {
    const step = await time('train step (compile + run)', () => model.trainStep(batch, { lr: o.lr }));
    const after = await time('score (compile + run)', () => model.score(batch));

    const kv = await time('kv model (compile)', () => createOrtKVModel(rt, cfg, model.params));
    try {
      const prompt = 'the cat sat';
      const pids = tok.encode(prompt);
      // Last-position logits of the prompt from the same prefill session the sampler uses.
      const pre = await time('prefill', () => kv.prefill(Int32Array.from(pids), new Uint8Array(pids.length).fill(1),
        Int32Array.from(pids, (_, i) => i), 1, pids.length));
      const row = pre.logits;
      let a = 0, b = -1;
      for (let i = 1; i < row.length; i++) if (row[i]! > row[a]!) a = i;
      for (let i = 0; i < row.length; i++) if (i !== a && (b < 0 || row[i]! > row[b]!)) b = i;

      const sampler = new Sampler(kv, tok, { maxContext: 64, eosTokenIds: [], padTokenId: 0 });
      const [gen] = await time('sample', () => sampler.generate([{
        prompt, maxNewTokens: o.sampleTokens, temperature: 0, topP: 1, topK: 0, stop: [], seed: o.seed,
      }]));
      return {
        backend: rt.backend.kind,
        runtimeDetail: rt.backend.detail,
        config: { preset: 'tiny', hidden_size: cfg.hidden_size, num_hidden_layers: cfg.num_hidden_layers, vocab_size: cfg.vocab_size, batch: B, seqLen: T, lr: o.lr, seed: o.seed },
        loss: step.loss,
        gradNorm: step.gradNorm,
        lossAfter: after.loss,
        logits: Array.from(row.subarray(0, 8)),
        sampled: gen!.outputIds,
        sampledText: gen!.text,
        logprobs: gen!.logprobs,
        margin: row[a]! - row[b]!,
        timings,
      };
    } finally {
      await kv.release();
    }
  } finally {
    await model.dispose();
  }
}
