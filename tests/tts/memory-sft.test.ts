// Memory-in-distribution SFT rows (src/tts/memory-sft.ts): the reference conversation replayed with the
// policy's rehearsal memory in every Act prompt. The targets must be the expert's, unchanged; only the prompts
// gain the memory, and the memory must be the one runTts would build from the same attempts.
import { describe, expect, it } from 'vitest';
import { expertGenerator } from '../../src/agent/testing';
import { sftExamples } from '../../src/agent/sft';
import { rolloutSettings, LEAN_PROFILE } from '../../src/agent/profile';
import { getWorld } from '../../src/envs/worlds/index';
import { memorySftExamples } from '../../src/tts/memory-sft';
import { MEMORY_HEADER, PLAN_PREFIX } from '../../src/tts/memory';

const count = (s: string) => Math.ceil(s.length / 4);

describe('memorySftExamples', () => {
  const tasks = getWorld('files').tasks({ split: 'train', count: 4 });
  const rollout = rolloutSettings(LEAN_PROFILE);

  for (const memory of ['full', 'best-calls'] as const) {
    it(`${memory}: the expert's Act targets, each prompt carrying the turn's memory`, async () => {
      const policy = expertGenerator(tasks);
      const plain = await sftExamples(tasks, { rollout, maxContext: 1 << 20, countTokens: count });
      const r = await memorySftExamples(tasks, {
        policy, rollout, maxContext: 1 << 20, countTokens: count, seed: 0,
        draw: () => ({ n: 2, strategy: 'parallel', memory }),
      });
      expect(r.incomplete).toEqual([]);
      const plainActs = plain.examples.filter((e) => e.role === 'act');
      expect(r.examples.map((e) => e.target)).toEqual(plainActs.map((e) => e.target));
      expect(r.examples.every((e) => e.role === 'act')).toBe(true);
      // One memory per user turn of every task; the expert's attempts are clean, so every memory has a plan.
      expect(r.memories.length).toBeGreaterThanOrEqual(tasks.length);
      for (const m of r.memories) {
        expect(m.memory).toContain(PLAN_PREFIX);
        if (memory === 'full') expect(m.memory.startsWith(MEMORY_HEADER)).toBe(true);
        expect(m.memoryTokens).toBeLessThanOrEqual(192);
      }
      // Each Act prompt is its plain prompt plus the memory of its task's turn (never another task's).
      r.examples.forEach((e, i) => {
        expect(e.prompt).not.toBe(plainActs[i].prompt);
        const mine = r.memories.filter((m) => m.taskId === e.taskId);
        expect(mine.some((m) => e.prompt.includes(m.memory))).toBe(true);
      });
    });
  }

  it('n = 0 gives the plain rows (the hook installs nothing)', async () => {
    const plain = await sftExamples(tasks, { rollout, maxContext: 1 << 20, countTokens: count });
    const r = await memorySftExamples(tasks, { policy: expertGenerator(tasks), rollout, maxContext: 1 << 20, countTokens: count, seed: 0, draw: () => ({ n: 0, strategy: 'parallel', memory: 'full' }) });
    expect(r.examples).toEqual(plain.examples.filter((e) => e.role === 'act'));
  });
});
