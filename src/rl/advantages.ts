// Role-Wise GRPO advantages (ENVACE.md §2) and the ablation variants' groupings.
// Every generation is one row; a row's reward is its trajectory's scalar (empty outputs get a penalty).
// The baseline is a mean over ROWS of a group, not over trajectories: the reference code pools rows,
// so a trajectory with more generations weighs more in its group's mean.

import type { Role } from '../agent/types';

export interface AdvRow {
  groupId: string;          // task id (one GRPO group = the K rollouts of one task)
  role: Role;
  reward: number;           // row reward after the empty-output penalty
}

/** 'task-role': one baseline per (task, role) — EnvACE. 'task': one baseline per task over all rows — pooled ablation. */
export type Grouping = 'task-role' | 'task';
/** verl's norm_adv_by_std_in_grpo generalised: none (EnvACE's shipped config), per group, or over the batch. */
export type StdNorm = 'none' | 'group' | 'batch';

export interface AdvantageOptions { grouping: Grouping; stdNorm: StdNorm; eps?: number }

export interface GroupStat { key: string; role: Role | 'all'; count: number; mean: number; std: number }

export interface AdvantageResult { advantages: number[]; groups: GroupStat[] }

function meanStd(xs: number[]): { mean: number; std: number } {
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  // Unbiased std, as torch.std (verl's GRPO) computes it; a single row has no spread.
  const v = xs.length > 1 ? xs.reduce((a, b) => a + (b - mean) ** 2, 0) / (xs.length - 1) : 0;
  return { mean, std: Math.sqrt(v) };
}

export function groupKey(row: AdvRow, grouping: Grouping): string {
  return grouping === 'task-role' ? `${row.groupId}\u0000${row.role}` : row.groupId;
}

export function computeAdvantages(rows: AdvRow[], opts: AdvantageOptions): AdvantageResult {
  const eps = opts.eps ?? 1e-6;
  const members = new Map<string, number[]>();
  rows.forEach((r, i) => {
    const k = groupKey(r, opts.grouping);
    if (!members.has(k)) members.set(k, []);
    members.get(k)!.push(i);
  });
  const advantages = new Array<number>(rows.length).fill(0);
  const groups: GroupStat[] = [];
  for (const [key, idx] of members) {
    const { mean, std } = meanStd(idx.map((i) => rows[i].reward));
    const role = opts.grouping === 'task-role' ? rows[idx[0]].role : 'all';
    groups.push({ key, role, count: idx.length, mean, std });
    for (const i of idx) {
      const centred = rows[i].reward - mean;
      advantages[i] = opts.stdNorm === 'group' ? centred / (std + eps) : centred;
    }
  }
  if (opts.stdNorm === 'batch' && rows.length > 1) {
    const { std } = meanStd(advantages);
    for (let i = 0; i < advantages.length; i++) advantages[i] /= std + eps;
  }
  return { advantages, groups };
}

/** Row reward: the trajectory's scalar, or the penalty for an empty generation (reference: -0.1). */
export function rowReward(trajectoryReward: number, outputEmpty: boolean, emptyPenalty: number): number {
  return outputEmpty ? emptyPenalty : trajectoryReward;
}

// ---------- the five variants ----------

export type VariantName = 'envace' | 'pooled' | 'per-role' | 'grpo-simulator' | 'grpo-real';

export interface Variant {
  name: VariantName;
  label: string;
  rolloutMode: 'rehearsal' | 'simulator' | 'real';
  trainRoles: Role[];
  grouping: Grouping;
  /** 'shared': one set of weights for both roles; 'per-role': an Act model and a Rehearse model. */
  models: 'shared' | 'per-role';
}

export const VARIANTS: Record<VariantName, Variant> = {
  envace: { name: 'envace', label: 'EnvACE (shared, role-wise baseline)', rolloutMode: 'rehearsal', trainRoles: ['act', 'rehearse'], grouping: 'task-role', models: 'shared' },
  pooled: { name: 'pooled', label: 'Pooled baseline (shared)', rolloutMode: 'rehearsal', trainRoles: ['act', 'rehearse'], grouping: 'task', models: 'shared' },
  'per-role': { name: 'per-role', label: 'Per-role policy (two models)', rolloutMode: 'rehearsal', trainRoles: ['act', 'rehearse'], grouping: 'task-role', models: 'per-role' },
  'grpo-simulator': { name: 'grpo-simulator', label: 'GRPO + frozen simulator', rolloutMode: 'simulator', trainRoles: ['act'], grouping: 'task-role', models: 'shared' },
  'grpo-real': { name: 'grpo-real', label: 'GRPO + real environment', rolloutMode: 'real', trainRoles: ['act'], grouping: 'task-role', models: 'shared' },
};

/** Advantage statistics per role, for the Train page's curves. */
export function roleStats(rows: AdvRow[], advantages: number[]): Record<Role, { n: number; rewardMean: number; advMean: number; advAbsMean: number; advStd: number }> {
  const out = {} as Record<Role, { n: number; rewardMean: number; advMean: number; advAbsMean: number; advStd: number }>;
  for (const role of ['act', 'rehearse'] as Role[]) {
    const idx = rows.map((r, i) => (r.role === role ? i : -1)).filter((i) => i >= 0);
    if (idx.length === 0) { out[role] = { n: 0, rewardMean: 0, advMean: 0, advAbsMean: 0, advStd: 0 }; continue; }
    const a = idx.map((i) => advantages[i]);
    const { mean, std } = meanStd(a);
    out[role] = {
      n: idx.length,
      rewardMean: idx.reduce((s, i) => s + rows[i].reward, 0) / idx.length,
      advMean: mean,
      advAbsMean: a.reduce((s, x) => s + Math.abs(x), 0) / a.length,
      advStd: std,
    };
  }
  return out;
}
