// installInterrupt (src/worker/interruptible.ts) on the shipped tiny model in Node: an armed check runs
// before every forward pass of a batch and its throw stops generate() inside the batch; a check that never
// fires leaves the generations bit-identical to an unwrapped sampler's, and disarming restores plain runs.
import { beforeAll, describe, expect, it } from 'vitest';
import type { GenerateRequest } from '../../src/engine/generator';
import { loadModelFolder, type ModelFolder } from '../../src/engine/modelFolder';
import { nodeRuntime } from '../../src/engine/runtime-node';
import { samplerFromFolder } from '../../src/engine/sampler';
import { installInterrupt } from '../../src/worker/interruptible';

let folder: ModelFolder;
beforeAll(async () => { folder = await loadModelFolder('models/envace-tiny'); });

const reqs: GenerateRequest[] = [0, 1, 2].map((i) => ({
  prompt: `<|user|>list the files in /docs ${i}`, maxNewTokens: 24, temperature: 1, topP: 1, topK: 0, stop: [], seed: 10 + i,
}));

class Stop extends Error {}

describe('installInterrupt', () => {
  it('a throwing check stops generate() between decode steps of one batch', async () => {
    const s = await samplerFromFolder(folder, nodeRuntime());
    try {
      const it = installInterrupt(s.model, 0);
      let calls = 0;
      it.arm(() => { if (++calls === 5) throw new Stop('stop'); });
      await expect(s.generate(reqs)).rejects.toBeInstanceOf(Stop);
      // Prefill plus three decode steps went through; the fifth pass was refused.
      expect(calls).toBe(5);
      expect(it.passes).toBe(5);
    } finally { await s.release(); }
  });

  it('a check that never fires changes nothing; disarmed, the check is not called', async () => {
    const plain = await samplerFromFolder(folder, nodeRuntime());
    const wrapped = await samplerFromFolder(folder, nodeRuntime());
    try {
      const ref = await plain.generate(reqs);
      const it = installInterrupt(wrapped.model, 0);
      let calls = 0;
      const prev = it.arm(() => { calls++; });
      expect(prev).toBeNull();
      const got = await wrapped.generate(reqs);
      expect(got.map((g) => g.outputIds)).toEqual(ref.map((g) => g.outputIds));
      expect(got.map((g) => g.logprobs)).toEqual(ref.map((g) => g.logprobs));
      // One pass per forward: the prefill and a step per token after the first, for the longest row.
      const longest = Math.max(...ref.map((g) => g.outputIds.length));
      expect(calls).toBe(longest);
      it.arm(null);
      const again = await wrapped.generate(reqs);
      expect(calls).toBe(longest);
      expect(again.map((g) => g.outputIds)).toEqual(ref.map((g) => g.outputIds));
    } finally { await plain.release(); await wrapped.release(); }
  });
});
