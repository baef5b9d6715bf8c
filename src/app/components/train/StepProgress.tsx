// Inside a running step: the rollout's rounds (generations done, trajectories finished of the batch), then
// each model's update, then the held-out evaluation, as the worker reports them (train-service 'progress').

import type { InStep } from './runs';
import { plural } from '../ui';

export function stepProgressText(p: InStep): string {
  switch (p.phase) {
    case 'rollout': return `step ${p.step}: rollout, round ${p.round + 1} · ${plural(p.generations, 'generation')} done · ${p.finished} / ${p.trajectories} trajectories finished`;
    case 'update': return `step ${p.step}: update${p.models > 1 ? `, model ${p.model} of ${p.models}` : ''} (${p.rows} rows)`;
    case 'eval': return `held-out evaluation after step ${p.step} (${p.tasks} tasks)`;
  }
}

/** Share of the step done: trajectories finished during the rollout; the update counts as the last part. */
function fraction(p: InStep): number {
  if (p.phase === 'rollout') return p.trajectories ? 0.8 * (p.finished / p.trajectories) : 0;
  if (p.phase === 'update') return 0.8 + 0.2 * ((p.model - 1) / p.models);
  return 1;
}

export function StepProgress({ p }: { p: InStep }) {
  const a = p.phase === 'rollout'
    ? { 'data-round': p.round, 'data-generations': p.generations, 'data-finished': p.finished, 'data-trajectories': p.trajectories }
    : p.phase === 'update' ? { 'data-model': p.model, 'data-rows': p.rows } : { 'data-tasks': p.tasks };
  return (
    <div className="muted" data-testid="train-step-progress" data-phase={p.phase} data-step={p.step} {...a}>
      <div style={{ height: 3, background: 'var(--bg)', margin: '4px 0' }} title="within the current step: rollout (trajectories finished), then the update">
        <div style={{ width: `${(100 * fraction(p)).toFixed(1)}%`, height: '100%', background: 'var(--accent)', opacity: 0.6 }} />
      </div>
      {stepProgressText(p)}
    </div>
  );
}
