// The rollout on the real engine sampler (a tiny random model): the batched loop, stop strings, token
// bookkeeping and per-seed determinism must hold end to end, not only with the scripted fakes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { trainBPE, BPETokenizer, DEFAULT_SPECIAL_TOKENS } from '../../src/engine/tokenizer';
import { syntheticCorpus } from '../../src/engine/corpus';
import { makeConfig, initParams } from '../../src/engine/decoder';
import { nodeRuntime } from '../../src/engine/runtime-node';
import { createOrtKVModel, Sampler } from '../../src/engine/sampler';
import { rollout, type RolloutConfig } from '../../src/agent/rollout';
import { FakeGenerator, expertAct, kvTask } from '../../src/agent/testing';
import { END_TOKEN } from '../../src/agent/chatTemplate';
import { importTraces, exportTraces } from '../../src/agent/traces';

const config = makeConfig('tiny', { max_position_embeddings: 640 });
let sampler: Sampler;
let release: () => Promise<void>;

beforeAll(async () => {
  const tok = new BPETokenizer(trainBPE(syntheticCorpus(60_000, 1), { vocabSize: config.vocab_size }));
  const m = await createOrtKVModel(nodeRuntime(), config, initParams(config, 3), { mode: 'fast' });
  release = () => m.release();
  const eos = tok.encode('<|eos|>');
  sampler = new Sampler(m, tok, { maxContext: config.max_position_embeddings, eosTokenIds: eos, padTokenId: 0 });
});
afterAll(async () => { await release?.(); });

describe('rollout on the engine sampler', () => {
  it('runs, records consistent rows and is deterministic per seed', async () => {
    expect(DEFAULT_SPECIAL_TOKENS as readonly string[]).toContain(END_TOKEN);
    const task = kvTask();
    const cfg = (seed: number): RolloutConfig => ({
      mode: 'rehearsal', policy: sampler, seed,
      act: { maxNewTokens: 16, temperature: 1 }, rehearse: { maxNewTokens: 16, temperature: 1 },
      actPrompt: { toolListing: 'compact', formatHint: false },
      rehearsePrompt: { style: 'short', hints: 'same-tool', history: false },
      limits: { maxGenerations: 8 },
    });
    const specs = [0, 1, 2].map((sample) => ({ task, sample }));
    const a = await rollout(specs, cfg(1));
    const b = await rollout(specs, cfg(1));
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    for (const t of a) {
      expect(t.rows.length).toBeGreaterThan(0);
      for (const r of t.rows) {
        expect(r.outputIds.length).toBe(r.logprobs.length);
        expect(r.outputIds.length).toBeLessThanOrEqual(16);
        expect(r.promptIds.length + r.outputIds.length).toBeLessThanOrEqual(config.max_position_embeddings);
        expect(r.text.endsWith(END_TOKEN)).toBe(false);
      }
    }
    expect(importTraces(exportTraces(a)).errors).toEqual([]);

    // Random Act outputs are replies; drive the Rehearse path with an expert Act and the sampler as simulator.
    const sim = (seed: number) => rollout(specs, { ...cfg(seed), mode: 'simulator', policy: new FakeGenerator(expertAct([task])), simulator: sampler, errorsEndEpisode: false, act: { maxNewTokens: 64 } });
    const c = await sim(4);
    expect(JSON.stringify(c)).toBe(JSON.stringify(await sim(4)));
    if (process.env.DEBUG_ROLLOUT) console.log(JSON.stringify(c.map((t) => [t.terminatedBy, t.rows.map((r) => [r.role, r.outputIds.length, r.promptIds.length, r.finishReason, r.error?.code, r.text.slice(0, 40)])])));
    const rehearsed = c.flatMap((t) => t.rows.filter((r) => r.role === 'rehearse'));
    expect(rehearsed.length).toBeGreaterThan(0);
    for (const r of rehearsed) {
      expect(r.frozen).toBe(true);
      expect(r.outputIds.length).toBeGreaterThan(0);
      expect(r.real && r.fidelity).toBeTruthy();
    }
  });
});
