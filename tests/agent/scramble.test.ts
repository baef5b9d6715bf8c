import { describe, expect, it } from 'vitest';
import { LEAN_PROFILE, rolloutSettings } from '../../src/agent/profile';
import { scrambleExamples } from '../../src/agent/scramble';
import { sftExamples } from '../../src/agent/sft';
import { Rng } from '../../src/engine/rng';
import { getWorld } from '../../src/envs/worlds/index';
import { PERSON_NAMES } from '../../src/envs/worlds/retail/db';

const words = [...PERSON_NAMES];
const argValues = (target: string) => [...target.matchAll(/"(?:[a-z_]+)":"([^"]+)"/g)].map((m) => m[1]);
const prices = (s: string) => [...s.matchAll(/\d+\.\d\d/g)].map((m) => m[0]);

describe('identifier scrambling of SFT conversations', async () => {
  const tasks = getWorld('retail').tasks({ split: 'train', count: 16 });
  const { examples } = await sftExamples(tasks, { rollout: rolloutSettings(LEAN_PROFILE) });
  const scrambled = scrambleExamples(examples, new Rng(3), { words });

  it('removes every pool name and changes ids, but keeps prices, roles and order', () => {
    expect(scrambled.map((e) => [e.taskId, e.role])).toEqual(examples.map((e) => [e.taskId, e.role]));
    for (const [i, e] of scrambled.entries()) {
      for (const w of words) expect(e.prompt + e.target).not.toMatch(new RegExp(`(?<![A-Za-z])(${w}|${w.toLowerCase()})(?![A-Za-z])`));
      expect(prices(e.prompt + e.target)).toEqual(prices(examples[i].prompt + examples[i].target));
    }
    const orderIds = (s: string) => s.match(/#W\d{4}/g) ?? [];
    const before = examples.flatMap((e) => orderIds(e.prompt));
    const after = scrambled.flatMap((e) => orderIds(e.prompt));
    expect(after.length).toBe(before.length);
    expect(after.filter((x, i) => x !== before[i]).length).toBeGreaterThan(after.length / 2);
  });

  it('keeps the copy relation: an argument copied from the prompt is still in the scrambled prompt', () => {
    let copied = 0;
    for (const [i, e] of scrambled.entries()) {
      if (e.role !== 'act') continue;
      const orig = examples[i];
      const a0 = argValues(orig.target), a1 = argValues(e.target);
      expect(a1.length).toBe(a0.length);
      a0.forEach((v, k) => {
        if (!orig.prompt.includes(v)) return;
        copied++;
        expect(e.prompt.includes(a1[k])).toBe(true);
      });
    }
    expect(copied).toBeGreaterThan(20);
  });

  it('is deterministic for a seed and differs across seeds', () => {
    expect(scrambleExamples(examples, new Rng(3), { words })).toEqual(scrambled);
    expect(scrambleExamples(examples, new Rng(4), { words })).not.toEqual(scrambled);
  });
});
