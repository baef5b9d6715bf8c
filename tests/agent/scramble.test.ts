import { describe, expect, it } from 'vitest';
import { LEAN_PROFILE, rolloutSettings, withRehearsePrompt } from '../../src/agent/profile';
import { scrambleExamples } from '../../src/agent/scramble';
import { sftExamples } from '../../src/agent/sft';
import { Rng } from '../../src/engine/rng';
import { getWorld, thinkStateLine } from '../../src/envs/worlds/index';
import { FILE_NAME_WORDS } from '../../src/envs/worlds/files/tree';
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

describe('scrambling files conversations (names of files and folders)', async () => {
  const tasks = getWorld('files-lines').tasks({ split: 'train', count: 12 });
  // The simulator starters' Rehearse prompt: its instructions share words with the name pools.
  const profile = withRehearsePrompt(LEAN_PROFILE, { layout: 'reference', schema: 'compact' });
  const { examples } = await sftExamples(tasks, { rollout: rolloutSettings(profile), stateLine: thinkStateLine('check') });
  const scrambled = scrambleExamples(examples, new Rng(5), { words: [...FILE_NAME_WORDS], minDigits: Infinity });
  const system = (s: string) => s.slice(0, s.indexOf('<|end|>'));
  const pattern = (w: string) => new RegExp(`(?<![A-Za-z])${w}(?![A-Za-z])`);

  it('leaves the instructions as they are and removes every other pool name', () => {
    const instructions = examples.map((e) => system(e.prompt)).join('\n');
    const kept = FILE_NAME_WORDS.filter((w) => pattern(w).test(instructions));
    expect(kept.length).toBeGreaterThan(0); // the Rehearse instructions say "list"
    for (const [i, e] of scrambled.entries()) {
      expect(system(e.prompt)).toBe(system(examples[i].prompt));
      const rest = e.prompt.slice(system(e.prompt).length) + e.target;
      for (const w of FILE_NAME_WORDS) if (!kept.includes(w)) expect(rest).not.toMatch(pattern(w));
    }
  });

  it('keeps the state line a copy: the think of a first call is a line of the scrambled first message', () => {
    let checked = 0;
    for (const [i, e] of scrambled.entries()) {
      if (e.role !== 'rehearse' || !examples[i].prompt.includes('Agent output:')) continue;
      const line = /<think>([^;<]*)/.exec(e.target)?.[1];
      if (!line || !line.startsWith('~:')) continue;
      expect(e.prompt.split('\n')).toContain(line);
      expect(e.target).not.toBe(examples[i].target);
      checked++;
    }
    expect(checked).toBeGreaterThan(5);
  });
});
