// Role-Wise GRPO advantages (ENVACE.md §2) and the ablation variants' groupings.
//
// Every generation is one row; a row's reward is its trajectory's scalar, minus a penalty when the row's
// decoded text is blank. How rows are grouped decides what the ablation tests, so each grouping follows
// verl's compute_grpo_outcome_advantage (verl/trainer/ppo/core_algos.py in the reference repository):
//
//   'task-role'  (group_by_agent_id=True, agent = role): one baseline per (task, role), the mean over the
//                ROWS of that role in the task's K rollouts, so a trajectory with more generations weighs
//                more in its group's mean. EnvACE, per-role policy, and the Act-only variants.
//   'trajectory' (group_by_agent_id=False): each trajectory first becomes one score, the mean of its rows'
//                rewards; the baseline is the mean of those K scores, and every row of a trajectory gets
//                (its trajectory's score − baseline). Standard GRPO.
//   'task'       (ours): one baseline per task over the pooled rows of both roles. Kept as an option; the
//                reference has no such setting.
//
// A group with a single member (one row, or one trajectory) gets verl's mean 0 and std 1, so its
// advantage is the reward itself ('reward', the default). Ours used to give it 0 ('zero').

import type { Role } from '../agent/types';

export interface AdvRow {
  groupId: string;          // task id (one GRPO group = the K rollouts of one task)
  role: Role;
  /** The row's trajectory (verl's traj_uid): needed by the 'trajectory' grouping. */
  trajectoryId: string;
  reward: number;           // row reward after the blank-output penalty
}

/** See the file comment. */
export type Grouping = 'task-role' | 'trajectory' | 'task';
/** verl's norm_adv_by_std_in_grpo generalised: none (EnvACE's shipped config), per group, or over the batch (ours). */
export type StdNorm = 'none' | 'group' | 'batch';
/** A group of one member: 'reward' (verl: mean 0, std 1, so A = R) or 'zero' (our old rule: A = 0). */
export type SingletonRule = 'reward' | 'zero';

export const GROUPINGS: readonly Grouping[] = ['task-role', 'trajectory', 'task'];
export const SINGLETON_RULES: readonly SingletonRule[] = ['reward', 'zero'];

export interface AdvantageOptions { grouping: Grouping; stdNorm: StdNorm; singleton?: SingletonRule; eps?: number }

export interface GroupStat { key: string; role: Role | 'all'; count: number; mean: number; std: number }

export interface AdvantageResult { advantages: number[]; groups: GroupStat[] }

function meanStd(xs: number[]): { mean: number; std: number } {
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  // Unbiased std, as torch.std (verl's GRPO) computes it.
  const v = xs.length > 1 ? xs.reduce((a, b) => a + (b - mean) ** 2, 0) / (xs.length - 1) : 0;
  return { mean, std: Math.sqrt(v) };
}

export function groupKey(row: AdvRow, grouping: Grouping): string {
  return grouping === 'task-role' ? `${row.groupId}\u0000${row.role}` : row.groupId;
}

export function computeAdvantages(rows: AdvRow[], opts: AdvantageOptions): AdvantageResult {
  const eps = opts.eps ?? 1e-6;
  const singleton = opts.singleton ?? 'reward';
  // The value each row contributes: its own reward, or (trajectory grouping) its trajectory's mean row reward.
  const score = rows.map((r) => r.reward);
  // Members of a group: row indices; for 'trajectory' one member per trajectory (its first row stands for it).
  const members = new Map<string, number[]>();
  if (opts.grouping === 'trajectory') {
    const byTraj = new Map<string, number[]>();
    rows.forEach((r, i) => {
      const k = `${r.groupId}\u0000${r.trajectoryId}`;
      (byTraj.get(k) ?? byTraj.set(k, []).get(k)!).push(i);
    });
    for (const idx of byTraj.values()) {
      const avg = idx.reduce((s, i) => s + rows[i].reward, 0) / idx.length;
      for (const i of idx) score[i] = avg;
      const g = rows[idx[0]].groupId;
      (members.get(g) ?? members.set(g, []).get(g)!).push(idx[0]);
    }
  } else {
    rows.forEach((r, i) => {
      const k = groupKey(r, opts.grouping);
      (members.get(k) ?? members.set(k, []).get(k)!).push(i);
    });
  }
  const stat = new Map<string, { mean: number; std: number }>();
  const groups: GroupStat[] = [];
  for (const [key, idx] of members) {
    const s = idx.length === 1 ? (singleton === 'reward' ? { mean: 0, std: 1 } : { mean: score[idx[0]], std: 0 }) : meanStd(idx.map((i) => score[i]));
    stat.set(key, s);
    const role = opts.grouping === 'task-role' ? rows[idx[0]].role : 'all';
    groups.push({ key, role, count: idx.length, mean: s.mean, std: s.std });
  }
  const advantages = rows.map((r, i) => {
    const s = stat.get(groupKey(r, opts.grouping))!;
    const centred = score[i] - s.mean;
    return opts.stdNorm === 'group' ? centred / (s.std + eps) : centred;
  });
  if (opts.stdNorm === 'batch' && rows.length > 1) {
    const { std } = meanStd(advantages);
    for (let i = 0; i < advantages.length; i++) advantages[i] /= std + eps;
  }
  return { advantages, groups };
}

/**
 * An output is invalid when its decoded text is blank, as the reference's is_action_valid rule
 * (`text and text.strip()`, agent_system/agent/agents/checklist/tool_caller_agent.py).
 */
export function isBlankOutput(text: string): boolean {
  return text.trim() === '';
}

/**
 * Row reward: the trajectory's scalar, plus the (negative) penalty when the output is blank. The penalty is
 * added to the reward, not put in its place: the reference's apply_invalid_action_penalty subtracts
 * invalid_action_penalty_coef (0.1) from the row's score (verl/trainer/ppo/ray_trainer.py).
 */
export function rowReward(trajectoryReward: number, blank: boolean, emptyPenalty: number): number {
  return blank ? trajectoryReward + emptyPenalty : trajectoryReward;
}

// ---------- the variants ----------

export type VariantName = 'envace' | 'per-role' | 'standard-grpo' | 'grpo-simulator' | 'grpo-real' | 'pooled';

export interface Variant {
  name: VariantName;
  /** "Name (what it is)": the part before " (" is the short name. */
  label: string;
  short: string;
  rolloutMode: 'rehearsal' | 'simulator' | 'real';
  trainRoles: Role[];
  grouping: Grouping;
  /** 'shared': one set of weights for both roles; 'per-role': an Act model and a Rehearse model. */
  models: 'shared' | 'per-role';
}

function variant(name: VariantName, short: string, what: string, v: Omit<Variant, 'name' | 'label' | 'short'>): Variant {
  return { name, short, label: `${short} (${what})`, ...v };
}

export const VARIANTS: Record<VariantName, Variant> = {
  envace: variant('envace', 'EnvACE', 'shared model, role-wise baseline', { rolloutMode: 'rehearsal', trainRoles: ['act', 'rehearse'], grouping: 'task-role', models: 'shared' }),
  'per-role': variant('per-role', 'Per-role policy', 'two models, role-wise baseline', { rolloutMode: 'rehearsal', trainRoles: ['act', 'rehearse'], grouping: 'task-role', models: 'per-role' }),
  'standard-grpo': variant('standard-grpo', 'Standard GRPO', 'shared model, trajectory baseline, Rehearse rows trained', { rolloutMode: 'rehearsal', trainRoles: ['act', 'rehearse'], grouping: 'trajectory', models: 'shared' }),
  'grpo-simulator': variant('grpo-simulator', 'GRPO + frozen simulator', 'Act only; the frozen initial model answers tool calls', { rolloutMode: 'simulator', trainRoles: ['act'], grouping: 'task-role', models: 'shared' }),
  'grpo-real': variant('grpo-real', 'GRPO + real environment', 'Act only; upper bound', { rolloutMode: 'real', trainRoles: ['act'], grouping: 'task-role', models: 'shared' }),
  pooled: variant('pooled', 'Pooled rows', 'shared model, one baseline over all rows of a task; not in the reference', { rolloutMode: 'rehearsal', trainRoles: ['act', 'rehearse'], grouping: 'task', models: 'shared' }),
};

/** The variants an ablation reports, in the paper's order (EnvACE > per-role > standard GRPO), then the two GRPO baselines. */
export const HEADLINE_VARIANTS: readonly VariantName[] = ['envace', 'per-role', 'standard-grpo', 'grpo-simulator', 'grpo-real'];

/** Every variant name, headline ones first. */
export const VARIANT_NAMES: readonly VariantName[] = Object.keys(VARIANTS) as VariantName[];

export function isVariantName(s: unknown): s is VariantName {
  return typeof s === 'string' && Object.prototype.hasOwnProperty.call(VARIANTS, s);
}

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
