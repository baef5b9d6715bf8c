// The training reward options. 'success' must be exactly the evaluation's metric (state AND every checklist item):
// retail recipe 4 showed that 'outcome' (state only) is earned by a policy that replies with one word.

import { describe, expect, it } from 'vitest';
import { succeeded } from '../../src/agent/evaluate';
import type { Trajectory } from '../../src/agent/types';
import { trajectoryReward, validateTrainConfig } from '../../src/rl/trainer';

const traj = (score: number, passed: boolean | undefined, error?: boolean): Trajectory => ({
  reward: score,
  verdict: { score, turns: [], terminatedEarly: false, ...(passed === undefined ? {} : { outcome: { passed, reason: '' } }) },
  ...(error ? { error: { code: 'PARSE_ERROR', message: 'x' } } : {}),
} as unknown as Trajectory);

describe('trajectoryReward', () => {
  const cases = [traj(1, true), traj(0.75, true), traj(1, false), traj(0.5, false), traj(1, undefined), traj(0, true)];

  it("'success' equals the evaluation's success on every verdict shape", () => {
    for (const t of cases) expect(trajectoryReward(t, 'success', 'keep-completed-turns')).toBe(succeeded(t));
    // The case recipe 4 hacked: right state, a missing reply item — the outcome reward pays it, success does not.
    expect(trajectoryReward(traj(0.75, true), 'outcome', 'keep-completed-turns')).toBe(1);
    expect(trajectoryReward(traj(0.75, true), 'success', 'keep-completed-turns')).toBe(0);
  });

  it('checklist, outcome and both read the checklist score and the state check', () => {
    const t = traj(0.5, true);
    expect(trajectoryReward(t, 'checklist', 'keep-completed-turns')).toBe(0.5);
    expect(trajectoryReward(t, 'outcome', 'keep-completed-turns')).toBe(1);
    expect(trajectoryReward(t, 'both', 'keep-completed-turns')).toBe(0.75);
  });

  it("'zero-episode' zeroes an errored episode under every reward", () => {
    for (const r of ['checklist', 'outcome', 'both', 'success'] as const) {
      expect(trajectoryReward(traj(1, true, true), r, 'zero-episode')).toBe(0);
      expect(trajectoryReward(traj(1, true, true), r, 'keep-completed-turns')).toBe(1);
    }
  });

  it('the config accepts success and rejects an unknown reward by name', () => {
    expect(validateTrainConfig({ reward: 'success' }).ok).toBe(true);
    const bad = validateTrainConfig({ reward: 'state' as never });
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.errors.join()).toMatch(/success/);
  });
});
