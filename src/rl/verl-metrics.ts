// Our per-step training metrics (metrics.jsonl, StepMetrics) under verl's names, so a run here and a run of the
// reference trainer on verl plot on one chart (scripts/verl-metrics.ts converts a file either way). verl's names
// are those its trainer logs (verl/trainer/ppo/metric_utils.py, verl/workers/actor/dp_actor.py, its policy
// losses); its `file` logger writes one JSON line per step, {"step": n, "data": {name: value}}, which is the line
// format toVerlLine writes and fromVerlLine reads.
// Meaning, where the two differ: verl's critic/score/mean is the mean sequence score of the batch; ours is the
// mean trajectory reward of the step's rollouts (both roles), the same quantity for whole-trajectory rewards
// without a KL penalty in the reward (use_kl_in_reward=False, as in the reference's launcher), which is also why
// critic/rewards/mean equals it. timing_s/gen is our rollout time (Act, Rehearse and the environment).

import type { StepMetrics } from './trainer';

/** StepMetrics field → the name verl logs the same quantity under. */
export const VERL_METRIC_NAMES = {
  reward: 'critic/score/mean',
  pgLoss: 'actor/pg_loss',
  klLoss: 'actor/kl_loss',
  ppoKl: 'actor/ppo_kl',
  clipfrac: 'actor/pg_clipfrac',
  entropy: 'actor/entropy',
  gradNorm: 'actor/grad_norm',
  lr: 'actor/lr',
  secondsPerStep: 'timing_s/step',
  rolloutSeconds: 'timing_s/gen',
} as const satisfies Partial<Record<keyof StepMetrics, string>>;

/** Names verl logs that carry the same number as one above (see the header). */
const ALSO = { 'critic/rewards/mean': 'reward' } as const;

export interface VerlLine { step: number; data: Record<string, number> }

/** One metrics.jsonl record as a verl file-logger line (fields a record lacks, e.g. lr in old runs, are left out). */
export function toVerlLine(m: Partial<StepMetrics> & { step: number }): VerlLine {
  const data: Record<string, number> = Object.create(null);
  for (const [ours, theirs] of Object.entries(VERL_METRIC_NAMES)) {
    const v = (m as Record<string, unknown>)[ours];
    if (typeof v === 'number' && Number.isFinite(v)) data[theirs] = v;
  }
  for (const [theirs, ours] of Object.entries(ALSO)) if (Object.hasOwn(data, VERL_METRIC_NAMES[ours])) data[theirs] = data[VERL_METRIC_NAMES[ours]]!;
  return { step: m.step, data };
}

/** A verl file-logger line as a metrics.jsonl record under our names (only the mapped metrics), or null if it is not one. */
export function fromVerlLine(x: unknown): (Partial<StepMetrics> & { step: number }) | null {
  if (typeof x !== 'object' || x === null) return null;
  const { step, data } = x as { step?: unknown; data?: unknown };
  if (typeof step !== 'number' || !Number.isFinite(step) || typeof data !== 'object' || data === null) return null;
  const out: Partial<StepMetrics> & { step: number } = { step };
  for (const [ours, theirs] of Object.entries(VERL_METRIC_NAMES)) {
    const v = Object.hasOwn(data, theirs) ? (data as Record<string, unknown>)[theirs] : undefined;
    if (typeof v === 'number' && Number.isFinite(v)) (out as unknown as Record<string, number>)[ours] = v;
  }
  return out;
}
