// evaluate() in Node: the scripted expert scores 1 everywhere, and on the shipped tiny model every summary
// figure is recomputable from the returned trajectories, repeatable by seed, and uses the training error rule.
import { beforeAll, describe, expect, it } from 'vitest';
import { evaluate } from '../../src/agent/evaluate';
import { profileFromConfig, rolloutSettings } from '../../src/agent/profile';
import { expertGenerator } from '../../src/agent/testing';
import type { Trajectory } from '../../src/agent/types';
import { loadModelFolder, type ModelFolder } from '../../src/engine/modelFolder';
import { nodeRuntime } from '../../src/engine/runtime-node';
import { samplerFromFolder } from '../../src/engine/sampler';
import { getWorld } from '../../src/envs/worlds/index';

const tasks = getWorld('files').tasks({ split: 'test', count: 3 });
let folder: ModelFolder;
beforeAll(async () => { folder = await loadModelFolder('models/envace-tiny'); });

/** Success, outcome, checklist and pass@k straight from trajectories (the definitions in EvalResult). */
function recompute(trajs: Trajectory[]) {
  const ok = (t: Trajectory) => (t.verdict?.outcome?.passed === true && (t.verdict?.score ?? 0) >= 1 - 1e-9 ? 1 : 0);
  const byTask = new Map<string, Trajectory[]>();
  for (const t of trajs) byTask.set(t.taskId, [...(byTask.get(t.taskId) ?? []), t]);
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  return {
    success: mean(trajs.map(ok)),
    outcome: mean(trajs.map((t) => (t.verdict?.outcome?.passed ? 1 : 0))),
    checklist: mean(trajs.map((t) => t.reward!)),
    passAtK: mean([...byTask.values()].map((g) => (g.some((t) => ok(t) === 1) ? 1 : 0))),
  };
}

describe('evaluate() in Node', () => {
  it('the scripted expert succeeds on every task and sample (real environment)', async () => {
    const { result, trajectories } = await evaluate(tasks, expertGenerator(tasks), { mode: 'real', k: 2, seed: 1 });
    expect(trajectories.length).toBe(6);
    expect(result).toMatchObject({ mode: 'real', tasks: 3, k: 2, success: 1, outcome: 1, checklist: 1, passAtK: 1, terminations: { final_turn: 6 } });
    expect(result.generations).toBe(trajectories.reduce((s, t) => s + t.rows.length, 0));
  });

  it('the tiny model: summary = trajectories, same seed = same result, another seed = other samples', async () => {
    const policy = await samplerFromFolder(folder, nodeRuntime());
    try {
      const opts = { mode: 'rehearsal' as const, k: 2, temperature: 0.6, seed: 4, rollout: rolloutSettings(profileFromConfig(folder.rawConfig)) };
      const a = await evaluate(tasks, policy, opts);
      const b = await evaluate(tasks, policy, opts);
      expect(a.trajectories.length).toBe(tasks.length * 2);
      expect(a.result).toMatchObject({ tasks: 3, k: 2 });
      const r = recompute(a.trajectories);
      for (const k of ['success', 'outcome', 'checklist', 'passAtK'] as const) expect(a.result[k]).toBeCloseTo(r[k], 12);
      // The tiny SFT model calls tools, so rehearsal fidelity is measured on real shadow results.
      expect(a.result.fidelity.calls).toBeGreaterThan(0);
      expect(Object.values(a.result.terminations).reduce((x, y) => x + y, 0)).toBe(a.trajectories.length);
      expect(b.result).toEqual(a.result);
      expect(b.trajectories.map((t) => t.rows.map((x) => x.text))).toEqual(a.trajectories.map((t) => t.rows.map((x) => x.text)));
      const c = await evaluate(tasks, policy, { ...opts, seed: 5 });
      expect(c.trajectories.map((t) => t.rows.map((x) => x.text))).not.toEqual(a.trajectories.map((t) => t.rows.map((x) => x.text)));
    } finally {
      await policy.release();
    }
  });

  it("checklist follows the same error rule as training: 'zero-episode' never scores above the default", async () => {
    const policy = await samplerFromFolder(folder, nodeRuntime());
    try {
      const base = { mode: 'real' as const, k: 2, temperature: 1, seed: 2, rollout: rolloutSettings(profileFromConfig(folder.rawConfig)) };
      const keep = await evaluate(tasks, policy, base);
      const zero = await evaluate(tasks, policy, { ...base, rollout: { ...base.rollout, errorReward: 'zero-episode' } });
      expect(zero.trajectories.some((t) => t.error)).toBe(true); // the rule has something to act on
      expect(zero.result.checklist).toBeLessThanOrEqual(keep.result.checklist);
      for (const e of [keep, zero]) expect(e.result.checklist).toBeCloseTo(recompute(e.trajectories).checklist, 12);
      for (const [i, t] of zero.trajectories.entries()) {
        expect(t.reward).toBe(t.error ? 0 : keep.trajectories[i].reward);
        expect(keep.trajectories[i].reward).toBe(keep.trajectories[i].verdict?.score);
      }
    } finally {
      await policy.release();
    }
  });

  it('the checklist figure is the mean reward under the rule, not the raw judge score', async () => {
    // Multi-turn tasks and a noisy expert: some episode ends on a corrupted output after earning score.
    const multi = getWorld('files').tasks({ split: 'test', count: 40 }).filter((t) => t.userTurns.length > 1).slice(0, 3);
    const opts = { mode: 'real' as const, k: 2, seed: 1 };
    const keep = await evaluate(multi, expertGenerator(multi, { noise: 0.3 }), opts);
    const zero = await evaluate(multi, expertGenerator(multi, { noise: 0.3 }), { ...opts, rollout: { errorReward: 'zero-episode' } });
    expect(keep.trajectories.filter((t) => t.error && (t.verdict?.score ?? 0) > 0).length).toBeGreaterThan(0);
    for (const e of [keep, zero]) expect(e.result.checklist).toBeCloseTo(recompute(e.trajectories).checklist, 12);
    expect(zero.result.checklist).toBeLessThan(keep.result.checklist);
  });
});
