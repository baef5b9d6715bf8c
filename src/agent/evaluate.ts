// Held-out evaluation of a policy: success (verified outcome), checklist score and Avg@k in the real
// environment, and rehearsal fidelity (imagined vs real result per call) on the same tasks.

import type { TextGenerator } from '../engine/generator';
import type { Task } from '../envs/types';
import { batchFidelity, type FidelitySummary } from './fidelity';
import { rolloutGroups, type RolloutConfig } from './rollout';
import type { RolloutMode, Trajectory } from './types';

export interface EvalOptions {
  mode: RolloutMode;
  k?: number;                 // samples per task (Avg@k); 1 with temperature 0 = greedy
  temperature?: number;
  seed?: number;
  rollout?: Omit<RolloutConfig, 'mode' | 'policy'>;
  simulator?: TextGenerator;
}

export interface EvalResult {
  mode: RolloutMode;
  tasks: number;
  k: number;
  /**
   * Avg@k of success: the verified final state matches the expert's AND every checklist item passed (the
   * analogue of τ²'s DB match × communicate_info; a read-only task's state alone would pass by doing nothing).
   */
  success: number;
  /** Avg@k of the verified final state alone. */
  outcome: number;
  /**
   * Mean checklist episode reward, under the same error rule as training (rollout errorReward; by default
   * the reference's: an error scores its turn 0 and keeps the turns already earned).
   */
  checklist: number;
  /** Fraction of tasks where at least one of k samples succeeded (pass@k). */
  passAtK: number;
  fidelity: FidelitySummary;
  terminations: Record<string, number>;
  generations: number;
  /** Generations stopped by their token budget (finish reason 'length'), per role. */
  truncated: { act: number; rehearse: number };
}

/** Generations stopped by their token budget, per role (frozen simulator rows count as Rehearse). */
export function truncatedRows(trajs: { rows: { role: string; finishReason?: string }[] }[]): { act: number; rehearse: number } {
  const out = { act: 0, rehearse: 0 };
  for (const t of trajs) for (const r of t.rows) if (r.finishReason === 'length') out[r.role === 'act' ? 'act' : 'rehearse']++;
  return out;
}

/** 1 when a trajectory succeeded in the strict sense (verified final state AND every checklist item), else 0. */
export const succeeded = (t: Trajectory): 0 | 1 => (t.verdict?.outcome?.passed && (t.verdict?.score ?? 0) >= 1 - 1e-9 ? 1 : 0);

export function summarize(trajs: Trajectory[], k: number, mode: RolloutMode): EvalResult {
  const byTask = new Map<string, Trajectory[]>();
  for (const t of trajs) (byTask.get(t.taskId) ?? byTask.set(t.taskId, []).get(t.taskId)!).push(t);
  const ok = succeeded;
  const terminations: Record<string, number> = Object.create(null);
  for (const t of trajs) terminations[t.terminatedBy] = (terminations[t.terminatedBy] ?? 0) + 1;
  const n = Math.max(1, trajs.length);
  return {
    mode, tasks: byTask.size, k,
    success: trajs.reduce((s, t) => s + ok(t), 0) / n,
    outcome: trajs.reduce((s, t) => s + (t.verdict?.outcome?.passed ? 1 : 0), 0) / n,
    checklist: trajs.reduce((s, t) => s + (t.reward ?? t.verdict?.score ?? 0), 0) / n,
    passAtK: [...byTask.values()].filter((g) => g.some((t) => ok(t) === 1)).length / Math.max(1, byTask.size),
    fidelity: batchFidelity(trajs).overall,
    terminations,
    generations: trajs.reduce((s, t) => s + t.rows.length, 0),
    truncated: truncatedRows(trajs),
  };
}

export async function evaluate(tasks: Task[], policy: TextGenerator, opts: EvalOptions): Promise<{ result: EvalResult; trajectories: Trajectory[] }> {
  const k = opts.k ?? 1;
  const temperature = opts.temperature ?? 0;
  const trajectories = await rolloutGroups(tasks, k, {
    ...opts.rollout,
    mode: opts.mode, policy, simulator: opts.simulator, seed: opts.seed ?? 0,
    act: { ...opts.rollout?.act, temperature },
    rehearse: { ...opts.rollout?.rehearse, temperature },
  });
  return { result: summarize(trajectories, k, opts.mode), trajectories };
}
