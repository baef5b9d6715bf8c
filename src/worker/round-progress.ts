// Progress of a Rollout-page rollout, one event per sampler round: the bookkeeping engine-bridge.ts (our model
// folders) and hf-service.ts (Hugging Face models) share, so both pages' progress bars and cancel messages read
// the same. The rollout's onRound fires before a round's generations: the previous round's are done then.

import type { ProgressListener } from './protocol';

export interface RoundProgress {
  /** For RolloutConfig.onRound. */
  onRound(r: { round: number; live: number; requests: number }): void;
  /** Rounds started so far and generations finished before the current round. */
  readonly rounds: number;
  readonly generations: number;
  /** "rollout stopped after N rounds (M generations)": the text of a cancel. */
  stopped(): string;
}

/**
 * `k` trajectories, at most `maxRounds` rounds; `t0` is when the call started (loading included), while the
 * per-round ETA is timed from now. A page that went away must not fail the rollout: listener errors are dropped.
 */
export function roundProgress(k: number, maxRounds: number, onProgress?: ProgressListener, t0 = performance.now()): RoundProgress {
  let rounds = 0, generations = 0, pending = 0;
  const tRounds = performance.now();
  return {
    get rounds() { return rounds; },
    get generations() { return generations; },
    stopped: () => `rollout stopped after ${rounds} round${rounds === 1 ? '' : 's'} (${generations} generations)`,
    onRound({ round, live, requests }) {
      rounds = round;
      generations += pending;
      pending = requests;
      const perRound = round > 0 ? (performance.now() - tRounds) / round : null;
      if (onProgress) void Promise.resolve(onProgress({
        done: round, total: maxRounds, unit: 'rounds', detail: `${generations} generations · ${k - live} of ${k} trajectories finished`,
        elapsedMs: performance.now() - t0, etaMs: perRound === null ? null : perRound * Math.max(0, maxRounds - round), etaIsBound: true,
      })).catch(() => undefined);
    },
  };
}
