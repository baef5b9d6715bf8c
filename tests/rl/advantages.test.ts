import { describe, expect, it } from 'vitest';
import {
  computeAdvantages, HEADLINE_VARIANTS, isBlankOutput, isVariantName, rowReward, VARIANTS, type AdvRow,
} from '../../src/rl/advantages';

// Two rollouts of task T: trajectory A (reward 1) has 3 act rows and 2 rehearse rows; trajectory B
// (reward 0) has 1 act row and 0 rehearse rows. Task U has one trajectory C with one act row (0.5) and one
// rehearse row whose output was blank (0.5 − 0.1 = 0.4).
const rows: AdvRow[] = [
  { groupId: 'T', trajectoryId: 'A', role: 'act', reward: 1 }, { groupId: 'T', trajectoryId: 'A', role: 'rehearse', reward: 1 },
  { groupId: 'T', trajectoryId: 'A', role: 'act', reward: 1 }, { groupId: 'T', trajectoryId: 'A', role: 'rehearse', reward: 1 },
  { groupId: 'T', trajectoryId: 'A', role: 'act', reward: 1 },
  { groupId: 'T', trajectoryId: 'B', role: 'act', reward: 0 },
  { groupId: 'U', trajectoryId: 'C', role: 'act', reward: 0.5 }, { groupId: 'U', trajectoryId: 'C', role: 'rehearse', reward: 0.4 },
];

/** verl's compute_grpo_outcome_advantage, transcribed as a plain reference for these tests (no std norm). */
function verlGrpo(rs: AdvRow[], groupByAgentId: boolean): number[] {
  const index = rs.map((r) => (groupByAgentId ? `${r.groupId}_${r.role}` : r.groupId));
  const scores = rs.map((r) => r.reward);
  const traj = new Map<string, number[]>();
  rs.forEach((r, i) => { const k = `${index[i]}|${r.trajectoryId}`; (traj.get(k) ?? traj.set(k, []).get(k)!).push(scores[i]); });
  const id2score = new Map<string, number[]>();
  const traj2avg = new Map<string, number>();
  for (const [k, list] of traj) {
    const idx = k.split('|')[0];
    if (!id2score.has(idx)) id2score.set(idx, []);
    if (groupByAgentId) id2score.get(idx)!.push(...list);
    else { const avg = list.reduce((a, b) => a + b, 0) / list.length; traj2avg.set(k, avg); id2score.get(idx)!.push(avg); }
  }
  const s = groupByAgentId ? scores : rs.map((r, i) => traj2avg.get(`${index[i]}|${r.trajectoryId}`)!);
  const mean = (xs: number[]) => (xs.length === 1 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length);
  return s.map((x, i) => x - mean(id2score.get(index[i])!));
}

describe('GRPO advantages match the reference (verl compute_grpo_outcome_advantage)', () => {
  it("'task-role' (group_by_agent_id=True): one baseline per (task, role), pooled over rows", () => {
    const { advantages, groups } = computeAdvantages(rows, { grouping: 'task-role', stdNorm: 'none' });
    // act rows of T: rewards 1,1,1,0 -> mean 0.75 (a trajectory mean would give 0.5)
    expect(advantages[0]).toBeCloseTo(0.25);
    expect(advantages[5]).toBeCloseTo(-0.75);
    // rehearse rows of T all come from A -> mean 1 -> zero advantage
    expect(advantages[1]).toBeCloseTo(0);
    expect(advantages[3]).toBeCloseTo(0);
    // U has one act row and one rehearse row: groups of one, mean 0 -> advantage = reward
    expect(advantages[6]).toBeCloseTo(0.5);
    expect(advantages[7]).toBeCloseTo(0.4);
    expect(groups.map((g) => g.key.replace('\u0000', '/')).sort()).toEqual(['T/act', 'T/rehearse', 'U/act', 'U/rehearse']);
    expect(advantages.map((a) => +a.toFixed(9))).toEqual(verlGrpo(rows, true).map((a) => +a.toFixed(9)));
  });

  it("'trajectory' (group_by_agent_id=False): baseline over the K trajectories' mean row rewards, not pooled rows", () => {
    // A blank row in trajectory A (1 − 0.1) lowers A's score to the mean of its 5 rows: (4·1 + 0.9)/5 = 0.98.
    const withBlank = rows.map((r, i) => (i === 3 ? { ...r, reward: rowReward(1, true, -0.1) } : r));
    const { advantages } = computeAdvantages(withBlank, { grouping: 'trajectory', stdNorm: 'none' });
    const a = 0.98, b = 0, base = (a + b) / 2; // a pooled-row mean would be 4.9/6 ≈ 0.817
    for (const i of [0, 1, 2, 3, 4]) expect(advantages[i]).toBeCloseTo(a - base); // every row of A, both roles
    expect(advantages[5]).toBeCloseTo(b - base);
    // U has a single trajectory: mean 0, so its rows get the trajectory's score (0.5 + 0.4) / 2
    expect(advantages[6]).toBeCloseTo(0.45);
    expect(advantages[7]).toBeCloseTo(0.45);
    expect(advantages.map((x) => +x.toFixed(9))).toEqual(verlGrpo(withBlank, false).map((x) => +x.toFixed(9)));
  });

  it("'task' (pooled rows, ours): one baseline per task over both roles' rows", () => {
    const { advantages } = computeAdvantages(rows, { grouping: 'task', stdNorm: 'none' });
    const meanT = 5 / 6;
    expect(advantages[1]).toBeCloseTo(1 - meanT);
    expect(advantages[5]).toBeCloseTo(-meanT);
    expect(advantages[6]).toBeCloseTo(0.5 - 0.45);
    expect(advantages[7]).toBeCloseTo(0.4 - 0.45);
  });

  it('groups of one: A = R by default (verl mean 0, std 1), A = 0 with singleton "zero"', () => {
    const one: AdvRow[] = [{ groupId: 'V', trajectoryId: 'x', role: 'act', reward: 0.7 }];
    expect(computeAdvantages(one, { grouping: 'task-role', stdNorm: 'none' }).advantages[0]).toBeCloseTo(0.7);
    expect(computeAdvantages(one, { grouping: 'task-role', stdNorm: 'group', eps: 0 }).advantages[0]).toBeCloseTo(0.7); // std 1
    expect(computeAdvantages(one, { grouping: 'trajectory', stdNorm: 'none' }).advantages[0]).toBeCloseTo(0.7);
    expect(computeAdvantages(one, { grouping: 'task-role', stdNorm: 'none', singleton: 'zero' }).advantages[0]).toBe(0);
    expect(computeAdvantages(one, { grouping: 'task-role', stdNorm: 'group', singleton: 'zero' }).advantages[0]).toBe(0);
  });

  it('std normalisation per group and over the batch', () => {
    const g = computeAdvantages(rows, { grouping: 'task-role', stdNorm: 'group', eps: 0 });
    const std = Math.sqrt((3 * 0.25 ** 2 + 0.75 ** 2) / 3);
    expect(g.advantages[0]).toBeCloseTo(0.25 / std);
    const t = computeAdvantages(rows, { grouping: 'trajectory', stdNorm: 'group', eps: 0 });
    expect(t.advantages[0]).toBeCloseTo(0.5 / Math.SQRT1_2); // scores 1 and 0: std (unbiased) = √½
    const b = computeAdvantages(rows, { grouping: 'task-role', stdNorm: 'batch', eps: 0 });
    const raw = computeAdvantages(rows, { grouping: 'task-role', stdNorm: 'none' }).advantages;
    const m = raw.reduce((a, x) => a + x, 0) / raw.length;
    const s = Math.sqrt(raw.reduce((a, x) => a + (x - m) ** 2, 0) / (raw.length - 1));
    expect(b.advantages[5]).toBeCloseTo(raw[5] / s);
  });

  it('blank outputs: whitespace-only text is invalid and the penalty is subtracted from the reward', () => {
    for (const t of ['', ' ', '\n\t  \n']) expect(isBlankOutput(t)).toBe(true);
    for (const t of ['x', '  {"a":1} ', '<think></think>']) expect(isBlankOutput(t)).toBe(false);
    expect(rowReward(0.8, true, -0.1)).toBeCloseTo(0.7);
    expect(rowReward(0, true, -0.1)).toBeCloseTo(-0.1);
    expect(rowReward(0.8, false, -0.1)).toBe(0.8);
  });
});

describe('variants', () => {
  it('are named after what they are, and route rows and groupings accordingly', () => {
    expect(HEADLINE_VARIANTS).toEqual(['envace', 'per-role', 'standard-grpo', 'grpo-simulator', 'grpo-real']);
    expect(HEADLINE_VARIANTS).not.toContain('pooled');
    for (const v of Object.values(VARIANTS)) expect(v.label.split(' (')[0]).toBe(v.short);
    expect(VARIANTS.envace).toMatchObject({ models: 'shared', grouping: 'task-role', trainRoles: ['act', 'rehearse'], rolloutMode: 'rehearsal' });
    expect(VARIANTS['per-role']).toMatchObject({ models: 'per-role', grouping: 'task-role', trainRoles: ['act', 'rehearse'] });
    expect(VARIANTS['standard-grpo']).toMatchObject({ models: 'shared', grouping: 'trajectory', trainRoles: ['act', 'rehearse'], rolloutMode: 'rehearsal' });
    expect(VARIANTS['grpo-simulator']).toMatchObject({ trainRoles: ['act'], rolloutMode: 'simulator' });
    expect(VARIANTS['grpo-real']).toMatchObject({ trainRoles: ['act'], rolloutMode: 'real' });
    expect(VARIANTS.pooled.grouping).toBe('task');
    expect(isVariantName('standard-grpo')).toBe(true);
    expect(isVariantName('toString')).toBe(false);
  });
});
