// The advantage rule's details (src/rl/advantages.ts) beyond advantages.test.ts's comparison with verl: the group
// statistics the Train page shows, the default eps and singleton rule, batch normalisation's one-row case, the
// variant table and the per-role statistics — exact figures, so a changed operator, default or label fails here
// (StrykerJS: `npm run mutation`).
import { describe, expect, it } from 'vitest';
import {
  computeAdvantages, GROUPINGS, groupKey, HEADLINE_VARIANTS, isBlankOutput, isVariantName, roleStats, rowReward, SINGLETON_RULES, VARIANT_NAMES, VARIANTS,
  type AdvRow,
} from '../../src/rl/advantages';

const row = (groupId: string, trajectoryId: string, role: AdvRow['role'], reward: number): AdvRow => ({ groupId, trajectoryId, role, reward });

// Task T: trajectory A (act 1, act 0.5, rehearse 1), trajectory B (act 0, rehearse 0.2); task U: one act row.
const rows: AdvRow[] = [
  row('T', 'A', 'act', 1), row('T', 'A', 'act', 0.5), row('T', 'A', 'rehearse', 1),
  row('T', 'B', 'act', 0), row('T', 'B', 'rehearse', 0.2),
  row('U', 'C', 'act', 0.3),
];

const sd = (xs: number[]) => { const m = xs.reduce((a, b) => a + b, 0) / xs.length; return Math.sqrt(xs.reduce((a, b) => a + (b - m) ** 2, 0) / (xs.length - 1)); };

describe('groups', () => {
  it('keys: task and role joined by NUL for task-role, the task alone otherwise', () => {
    expect(groupKey(rows[0], 'task-role')).toBe('T\u0000act');
    expect(groupKey(rows[2], 'task-role')).toBe('T\u0000rehearse');
    expect(groupKey(rows[0], 'task')).toBe('T');
    expect(groupKey(rows[0], 'trajectory')).toBe('T');
    expect(GROUPINGS).toEqual(['task-role', 'trajectory', 'task']);
    expect(SINGLETON_RULES).toEqual(['reward', 'zero']);
  });

  it("task-role: one statistic per (task, role) with its role, row count, mean and unbiased std, in first-seen order", () => {
    const { groups } = computeAdvantages(rows, { grouping: 'task-role', stdNorm: 'none' });
    expect(groups.map((g) => [g.key, g.role, g.count])).toEqual([['T\u0000act', 'act', 3], ['T\u0000rehearse', 'rehearse', 2], ['U\u0000act', 'act', 1]]);
    expect(groups[0].mean).toBeCloseTo(0.5, 12);
    expect(groups[0].std).toBeCloseTo(sd([1, 0.5, 0]), 12);
    expect(groups[1].mean).toBeCloseTo(0.6, 12);
    expect(groups[1].std).toBeCloseTo(sd([1, 0.2]), 12);
    expect(groups[2]).toEqual({ key: 'U\u0000act', role: 'act', count: 1, mean: 0, std: 1 }); // verl's group of one
  });

  it("trajectory: one member per trajectory, role 'all', trajectory means as scores", () => {
    const { groups, advantages } = computeAdvantages(rows, { grouping: 'trajectory', stdNorm: 'none' });
    expect(groups.map((g) => [g.key, g.role, g.count])).toEqual([['T', 'all', 2], ['U', 'all', 1]]);
    const a = (1 + 0.5 + 1) / 3, b = 0.1;
    expect(groups[0].mean).toBeCloseTo((a + b) / 2, 12);
    expect(groups[0].std).toBeCloseTo(sd([a, b]), 12);
    expect(advantages.slice(0, 3).every((x) => Math.abs(x - (a - (a + b) / 2)) < 1e-12)).toBe(true);
    expect(advantages[3]).toBeCloseTo(b - (a + b) / 2, 12);
    expect(advantages[4]).toBeCloseTo(b - (a + b) / 2, 12);
    expect(advantages[5]).toBeCloseTo(0.3, 12);
  });

  it("trajectory ids are per task: the same id under two tasks is two trajectories", () => {
    const r = [row('T', 'X', 'act', 1), row('T', 'Y', 'act', 0), row('U', 'X', 'act', 0.5), row('U', 'Z', 'act', 0.1)];
    const { groups, advantages } = computeAdvantages(r, { grouping: 'trajectory', stdNorm: 'none' });
    expect(groups.map((g) => [g.key, g.count])).toEqual([['T', 2], ['U', 2]]);
    expect(advantages.map((x) => +x.toFixed(9))).toEqual([0.5, -0.5, 0.2, -0.2]);
  });

  it("task: one group over both roles, role 'all'", () => {
    const { groups, advantages } = computeAdvantages(rows, { grouping: 'task', stdNorm: 'none' });
    expect(groups.map((g) => [g.key, g.role, g.count])).toEqual([['T', 'all', 5], ['U', 'all', 1]]);
    expect(groups[0].mean).toBeCloseTo(2.7 / 5, 12);
    expect(advantages[2]).toBeCloseTo(1 - 2.7 / 5, 12);
  });
});

describe('normalisation and defaults', () => {
  it('group normalisation divides by std + eps, eps 1e-6 unless given', () => {
    const two = [row('T', 'A', 'act', 1), row('T', 'B', 'act', 0)];
    const std = Math.SQRT1_2;
    expect(computeAdvantages(two, { grouping: 'task-role', stdNorm: 'group' }).advantages[0]).toBe(0.5 / (std + 1e-6));
    expect(computeAdvantages(two, { grouping: 'task-role', stdNorm: 'group', eps: 0.5 }).advantages[0]).toBe(0.5 / (std + 0.5));
    expect(computeAdvantages(two, { grouping: 'task-role', stdNorm: 'none', eps: 0.5 }).advantages[0]).toBe(0.5);
    // a group whose members all agree: std 0, advantage 0 (not NaN)
    const same = [row('T', 'A', 'act', 0.4), row('T', 'B', 'act', 0.4)];
    expect(computeAdvantages(same, { grouping: 'task-role', stdNorm: 'group' }).advantages).toEqual([0, 0]);
  });

  it("groups of one: the reward by default (std 1, so + eps), 0 under 'zero'", () => {
    const one = [row('V', 'x', 'act', 0.7)];
    expect(computeAdvantages(one, { grouping: 'task-role', stdNorm: 'group' }).advantages[0]).toBe(0.7 / (1 + 1e-6));
    expect(computeAdvantages(one, { grouping: 'task-role', stdNorm: 'group', singleton: 'reward' }).advantages[0]).toBe(0.7 / (1 + 1e-6));
    const zero = computeAdvantages(one, { grouping: 'task', stdNorm: 'none', singleton: 'zero' });
    expect(zero.advantages).toEqual([0]);
    expect(zero.groups).toEqual([{ key: 'V', role: 'all', count: 1, mean: 0.7, std: 0 }]);
  });

  it('batch normalisation divides every advantage by the batch std + eps, and leaves a batch of one row alone', () => {
    const raw = computeAdvantages(rows, { grouping: 'task-role', stdNorm: 'none' }).advantages;
    const s = sd(raw);
    const b = computeAdvantages(rows, { grouping: 'task-role', stdNorm: 'batch' }).advantages;
    b.forEach((x, i) => expect(x).toBeCloseTo(raw[i] / (s + 1e-6), 12));
    const eps = computeAdvantages(rows, { grouping: 'task-role', stdNorm: 'batch', eps: 1 }).advantages;
    eps.forEach((x, i) => expect(x).toBeCloseTo(raw[i] / (s + 1), 12));
    expect(computeAdvantages([row('V', 'x', 'act', 0.7)], { grouping: 'task-role', stdNorm: 'batch' }).advantages).toEqual([0.7]);
    expect(computeAdvantages([], { grouping: 'task-role', stdNorm: 'batch' })).toEqual({ advantages: [], groups: [] });
  });
});

describe('rewards of blank outputs', () => {
  it('blank means nothing but whitespace; the penalty is added to the trajectory reward', () => {
    expect(isBlankOutput('')).toBe(true);
    expect(isBlankOutput(' \u00a0\n')).toBe(true);
    expect(isBlankOutput(' . ')).toBe(false);
    expect(rowReward(0.5, true, -0.25)).toBe(0.25);
    expect(rowReward(0.5, false, -0.25)).toBe(0.5);
    expect(rowReward(0.5, true, 0)).toBe(0.5);
  });
});

describe('the variant table', () => {
  it('every variant in full', () => {
    expect(VARIANTS).toEqual({
      envace: { name: 'envace', short: 'EnvACE', label: 'EnvACE (shared model, role-wise baseline)', rolloutMode: 'rehearsal', trainRoles: ['act', 'rehearse'], grouping: 'task-role', models: 'shared' },
      'per-role': { name: 'per-role', short: 'Per-role policy', label: 'Per-role policy (two models, role-wise baseline)', rolloutMode: 'rehearsal', trainRoles: ['act', 'rehearse'], grouping: 'task-role', models: 'per-role' },
      'standard-grpo': { name: 'standard-grpo', short: 'Standard GRPO', label: 'Standard GRPO (shared model, trajectory baseline, Rehearse rows trained)', rolloutMode: 'rehearsal', trainRoles: ['act', 'rehearse'], grouping: 'trajectory', models: 'shared' },
      'grpo-simulator': { name: 'grpo-simulator', short: 'GRPO + frozen simulator', label: 'GRPO + frozen simulator (Act only; the frozen initial model answers tool calls)', rolloutMode: 'simulator', trainRoles: ['act'], grouping: 'task-role', models: 'shared' },
      'grpo-real': { name: 'grpo-real', short: 'GRPO + real environment', label: 'GRPO + real environment (Act only; upper bound)', rolloutMode: 'real', trainRoles: ['act'], grouping: 'task-role', models: 'shared' },
      pooled: { name: 'pooled', short: 'Pooled rows', label: 'Pooled rows (shared model, one baseline over all rows of a task; not in the reference)', rolloutMode: 'rehearsal', trainRoles: ['act', 'rehearse'], grouping: 'task', models: 'shared' },
    });
    expect(VARIANT_NAMES).toEqual([...HEADLINE_VARIANTS, 'pooled']);
  });

  it('isVariantName: own names only', () => {
    for (const n of VARIANT_NAMES) expect(isVariantName(n)).toBe(true);
    for (const n of ['constructor', '__proto__', 'hasOwnProperty', '', 'EnvACE', 'grpo']) expect(isVariantName(n)).toBe(false);
    for (const n of [null, undefined, 1, ['envace'], { envace: 1 }]) expect(isVariantName(n)).toBe(false);
  });
});

describe('roleStats', () => {
  it('per role: rows, mean reward, mean, mean absolute and std of the advantages', () => {
    const adv = [0.5, -0.5, 1, -1.5, 2, 0.25];
    const s = roleStats(rows, adv);
    expect(s.act.n).toBe(4);
    expect(s.act.rewardMean).toBeCloseTo((1 + 0.5 + 0 + 0.3) / 4, 12);
    expect(s.act.advMean).toBeCloseTo((0.5 - 0.5 - 1.5 + 0.25) / 4, 12);
    expect(s.act.advAbsMean).toBeCloseTo((0.5 + 0.5 + 1.5 + 0.25) / 4, 12);
    expect(s.act.advStd).toBeCloseTo(sd([0.5, -0.5, -1.5, 0.25]), 12);
    expect(s.rehearse).toEqual({ n: 2, rewardMean: 0.6, advMean: 1.5, advAbsMean: 1.5, advStd: sd([1, 2]) });
  });

  it('a role without rows is all zeros; one row has std 0', () => {
    const s = roleStats([row('T', 'A', 'act', 0.4)], [-0.3]);
    expect(s.rehearse).toEqual({ n: 0, rewardMean: 0, advMean: 0, advAbsMean: 0, advStd: 0 });
    expect(s.act).toEqual({ n: 1, rewardMean: 0.4, advMean: -0.3, advAbsMean: 0.3, advStd: 0 });
  });
});
