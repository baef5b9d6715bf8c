// Can the Train page's held-out evaluations show a change? (issue 42, point 4). The trainer evaluates the same tasks
// every time and keeps each task's success, so the first and the last evaluation are compared task by task: a paired
// bootstrap interval of the change, and a plain sentence when that interval (or a lack of points) cannot show one.

import { pairedBootstrap } from '../../../bench/stats';
import type { EvalMetrics } from '../../../worker/protocol';

const signed = (x: number) => `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(3)}`;

/** One sentence on the run's held-out change, or null when it has no evaluation yet. */
export function heldOutChange(label: string, evals: readonly EvalMetrics[]): string | null {
  if (evals.length === 0) return null;
  const first = evals[0]!, last = evals[evals.length - 1]!;
  if (evals.length === 1) return `${label}: held-out success ${first.success.toFixed(3)} at step ${first.step} only; a change needs a second evaluation`;
  const a = last.taskSuccess, b = first.taskSuccess;
  const head = `${label}: held-out success ${first.success.toFixed(3)} (step ${first.step}) → ${last.success.toFixed(3)} (step ${last.step})`;
  if (!a || !b || a.length !== b.length || a.length < 2) return `${head}; no per-task results to put an interval on the change, so these points cannot show whether it is real`;
  const d = pairedBootstrap([a], [b], { seed: 0 });
  const [lo, hi] = d.ci95;
  const verdict = lo > 0 ? 'the interval lies above 0: a rise beyond noise' : hi < 0 ? 'the interval lies below 0: a fall beyond noise'
    : `the interval includes 0: with ${a.length} tasks these two points cannot show a difference`;
  return `${head}: ${signed(d.mean)} [${signed(lo)}, ${signed(hi)}] (95% paired bootstrap over the ${a.length} evaluation tasks); ${verdict}`;
}
