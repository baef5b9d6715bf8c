import { describe, expect, it } from 'vitest';
import { TINY_PROFILE, rolloutSettings } from '../../src/agent/profile';
import { parseAct, parseRehearse } from '../../src/agent/protocol';
import { sftExamples } from '../../src/agent/sft';
import { summarize } from '../../src/agent/evaluate';
import { getWorld } from '../../src/envs/worlds/index';

describe('SFT examples from reference conversations', () => {
  it('teacher-forced rollouts reproduce the expert: full checklist score, both roles, parseable targets', async () => {
    for (const w of ['files', 'retail']) {
      const tasks = getWorld(w).tasks({ split: 'train', count: 12 });
      const r = await sftExamples(tasks, { rollout: rolloutSettings(TINY_PROFILE) });
      expect(r.incomplete).toEqual([]);
      for (const t of r.trajectories) expect(t.verdict?.score).toBeCloseTo(1);
      const s = summarize(r.trajectories, 1, 'rehearsal');
      expect(s.success).toBe(1);
      // The teacher's imagined results are the real ones, so fidelity on the expert path is perfect.
      expect(s.fidelity.exactRate).toBe(1);
      const acts = r.examples.filter((e) => e.role === 'act');
      const rehearses = r.examples.filter((e) => e.role === 'rehearse');
      expect(acts.length).toBeGreaterThan(0);
      expect(rehearses.length).toBeGreaterThan(0);
      for (const e of acts) expect(parseAct(e.target.replace('<|end|>', '')).ok).toBe(true);
      for (const e of rehearses) expect(parseRehearse(e.target.replace('<|end|>', '')).ok).toBe(true);
      for (const e of r.examples) expect(e.target.endsWith('<|end|>')).toBe(true);
    }
  });
  it('a context budget cuts long tasks instead of producing over-long prompts', async () => {
    const tasks = getWorld('retail').tasks({ split: 'train', count: 8 });
    const r = await sftExamples(tasks, { rollout: rolloutSettings(TINY_PROFILE), maxContext: 300, countTokens: (s) => Math.ceil(s.length / 4) });
    for (const e of r.examples) expect(Math.ceil(e.prompt.length / 4)).toBeLessThanOrEqual(300);
    expect(r.incomplete.length).toBeGreaterThan(0);
  });
});
