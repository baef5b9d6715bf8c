// The Train form's settings (URL state) → the worker's RunSpec. Pure, so tests/app/trainSettings.test.ts
// checks that each setting of a link reaches the run.

import type { VariantName } from '../../../rl/advantages';
import type { RunSpec } from '../../../rl/session';
import type { Settings } from '../../../shared/urlState';

/** Each variant is a (rollout mode, advantage grouping) pair, so the URL's two keys encode it. */
export function variantFor(mode: string, adv: string): VariantName {
  if (mode === 'simulator') return 'grpo-simulator';
  if (mode === 'real') return 'grpo-real';
  return adv === 'pooled' ? 'pooled' : adv === 'per-role' ? 'per-role' : 'envace';
}

export function specFromSettings(s: Settings): RunSpec {
  return {
    world: s['t.world'], difficulty: s['t.diff'] || undefined, taskPool: s['t.pool'],
    variant: variantFor(s['t.mode'], s['t.adv']), seed: s['t.seed'], steps: s['t.steps'],
    tasksPerStep: s['t.tasks'], groupSize: s['t.group'],
    stdNorm: s['t.std'] as RunSpec['stdNorm'], lossAggMode: s['t.agg'] as RunSpec['lossAggMode'],
    clipRatioLow: s['t.clip'], clipRatioHigh: s['t.cliph'], clipRatioC: s['t.clipc'],
    klType: s['t.kltype'] as RunSpec['klType'], klCoef: s['t.kl'],
    lr: s['t.lr'], weightDecay: s['t.wd'], gradClip: s['t.gclip'], temperature: s['t.temp'], maxTurns: s['t.turns'],
    reward: s['t.reward'] as RunSpec['reward'], emptyPenalty: s['t.empty'], microBatch: s['t.mb'],
    errorReward: s['t.errrew'] as RunSpec['errorReward'], judgeOn: s['t.judgeon'] as RunSpec['judgeOn'],
    evalEvery: s['t.eval'], evalTasks: s['t.evaltasks'], evalK: s['t.evalk'], checkpointEvery: s['t.ckpt'],
    // Always sent, so the run is what the URL says whatever the trainer's own defaults are.
    dynamicSampling: s['t.dyn'] === 'on', maxRefills: s['t.refills'], warmupSteps: s['t.warmup'],
  };
}
