import { describe, expect, it } from 'vitest';
import { computeAdvantages, rowReward, VARIANTS, type AdvRow } from '../../src/rl/advantages';

// Two rollouts of task T: trajectory A (reward 1) has 3 act rows and 2 rehearse rows; trajectory B
// (reward 0) has 1 act row and 0 rehearse rows. Rows are pooled, so A's rows dominate the act mean.
const rows: AdvRow[] = [
  { groupId: 'T', role: 'act', reward: 1 }, { groupId: 'T', role: 'rehearse', reward: 1 },
  { groupId: 'T', role: 'act', reward: 1 }, { groupId: 'T', role: 'rehearse', reward: 1 },
  { groupId: 'T', role: 'act', reward: 1 },
  { groupId: 'T', role: 'act', reward: 0 },
  { groupId: 'U', role: 'act', reward: 0.5 }, { groupId: 'U', role: 'rehearse', reward: -0.1 },
];

describe('role-wise GRPO advantages', () => {
  it('EnvACE: one baseline per (task, role), pooled over rows', () => {
    const { advantages, groups } = computeAdvantages(rows, { grouping: 'task-role', stdNorm: 'none' });
    // act rows of T: rewards 1,1,1,0 -> mean 0.75 (a trajectory mean would give 0.5)
    expect(advantages[0]).toBeCloseTo(0.25);
    expect(advantages[5]).toBeCloseTo(-0.75);
    // rehearse rows of T all come from A -> mean 1 -> zero advantage
    expect(advantages[1]).toBeCloseTo(0);
    expect(advantages[3]).toBeCloseTo(0);
    // singleton groups in U -> zero advantage
    expect(advantages[6]).toBeCloseTo(0);
    expect(advantages[7]).toBeCloseTo(0);
    expect(groups.map((g) => g.key.replace('\u0000', '/')).sort()).toEqual(['T/act', 'T/rehearse', 'U/act', 'U/rehearse']);
  });
  it('pooled ablation: one baseline per task over both roles', () => {
    const { advantages } = computeAdvantages(rows, { grouping: 'task', stdNorm: 'none' });
    const meanT = 5 / 6;
    expect(advantages[1]).toBeCloseTo(1 - meanT);
    expect(advantages[5]).toBeCloseTo(-meanT);
    expect(advantages[6]).toBeCloseTo(0.5 - 0.2);
    expect(advantages[7]).toBeCloseTo(-0.1 - 0.2);
  });
  it('std normalisation per group and over the batch', () => {
    const g = computeAdvantages(rows, { grouping: 'task-role', stdNorm: 'group', eps: 0 });
    const std = Math.sqrt((3 * 0.25 ** 2 + 0.75 ** 2) / 3);
    expect(g.advantages[0]).toBeCloseTo(0.25 / std);
    const b = computeAdvantages(rows, { grouping: 'task-role', stdNorm: 'batch', eps: 0 });
    const raw = computeAdvantages(rows, { grouping: 'task-role', stdNorm: 'none' }).advantages;
    const m = raw.reduce((a, x) => a + x, 0) / raw.length;
    const s = Math.sqrt(raw.reduce((a, x) => a + (x - m) ** 2, 0) / (raw.length - 1));
    expect(b.advantages[5]).toBeCloseTo(raw[5] / s);
  });
  it('variants route rows and groupings as the paper describes', () => {
    expect(VARIANTS.envace.trainRoles).toEqual(['act', 'rehearse']);
    expect(VARIANTS.pooled.grouping).toBe('task');
    expect(VARIANTS['per-role'].models).toBe('per-role');
    expect(VARIANTS['grpo-simulator'].trainRoles).toEqual(['act']);
    expect(VARIANTS['grpo-real'].rolloutMode).toBe('real');
    // only-act variants: rehearse rows filtered before grouping leave act baselines unchanged
    const actOnly = rows.filter((r) => r.role === 'act');
    const a = computeAdvantages(actOnly, { grouping: VARIANTS['grpo-real'].grouping, stdNorm: 'none' });
    expect(a.advantages[0]).toBeCloseTo(0.25);
  });
  it('empty outputs get the penalty', () => {
    expect(rowReward(0.8, true, -0.1)).toBe(-0.1);
    expect(rowReward(0.8, false, -0.1)).toBe(0.8);
  });
});
