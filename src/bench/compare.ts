// Head-to-head comparison of two models evaluated on the same held-out tasks with the same sampling seeds
// (`npm run compare`, src/cli/compare.ts): each model's Avg@k with its bootstrap interval over tasks (the
// numbers `npm run eval` prints for it), the difference B − A from a paired bootstrap over tasks (a task's two
// scores are differenced before resampling, so what both models find hard cancels), and per-task wins,
// losses and ties on success. Pure: it takes the two per-task score lists the protocol produced.

import type { TaskScore } from './evaluation';
import { bootstrap, DEFAULT_RESAMPLES, pairedBootstrap, type Estimate } from './stats';

export const COMPARE_METRICS = ['success', 'outcome', 'checklist'] as const;
export type CompareMetric = (typeof COMPARE_METRICS)[number];

/** What the comparison reads of a task's score (a TaskScore has more). */
export type TaskScores = Pick<TaskScore, 'task' | CompareMetric>;

export type MetricEstimates = Record<CompareMetric, Estimate>;

export interface Comparison {
  n_tasks: number;
  /** Each model on its own: mean over tasks and percentile bootstrap 95% interval. */
  a: MetricEstimates;
  b: MetricEstimates;
  /** B − A: mean of the per-task differences and its paired bootstrap 95% interval. */
  diff: MetricEstimates;
  /** Tasks where B's success is higher than A's / lower / equal (success is a mean over the k samples). */
  wins: number; losses: number; ties: number;
  bootstrap: { resamples: number; seed: number; level: 0.95; over: 'tasks'; paired: true };
  per_task?: { task: string; a: Record<CompareMetric, number>; b: Record<CompareMetric, number> }[];
}

export interface CompareOptions { resamples?: number; seed?: number; perTask?: boolean }

/** Scores closer than this count as equal (success values are multiples of 1/k). */
const TIE = 1e-9;

/**
 * Pairs the two lists by task id (in A's order) and compares them. Throws when they do not hold the same tasks
 * exactly once each: a comparison over different tasks would not be paired.
 */
export function compareScores(a: TaskScores[], b: TaskScores[], o: CompareOptions = {}): Comparison {
  const pairs = pairTasks(a, b);
  const boot = { resamples: o.resamples ?? DEFAULT_RESAMPLES, seed: o.seed ?? 0 };
  const col = (side: 0 | 1, m: CompareMetric) => pairs.map((p) => p[side][m]);
  const each = (f: (m: CompareMetric) => Estimate) => Object.fromEntries(COMPARE_METRICS.map((m) => [m, f(m)])) as MetricEstimates;
  let wins = 0, losses = 0, ties = 0;
  for (const [x, y] of pairs) {
    const d = y.success - x.success;
    if (d > TIE) wins++; else if (d < -TIE) losses++; else ties++;
  }
  const pick = (t: TaskScores) => Object.fromEntries(COMPARE_METRICS.map((m) => [m, t[m]])) as Record<CompareMetric, number>;
  return {
    n_tasks: pairs.length,
    a: each((m) => bootstrap(col(0, m), boot)),
    b: each((m) => bootstrap(col(1, m), boot)),
    // pairedBootstrap(X, Y) is X − Y.
    diff: each((m) => pairedBootstrap([col(1, m)], [col(0, m)], boot)),
    wins, losses, ties,
    bootstrap: { ...boot, level: 0.95, over: 'tasks', paired: true },
    ...(o.perTask ? { per_task: pairs.map(([x, y]) => ({ task: x.task, a: pick(x), b: pick(y) })) } : {}),
  };
}

function pairTasks(a: TaskScores[], b: TaskScores[]): [TaskScores, TaskScores][] {
  if (a.length === 0 || b.length === 0) throw new Error(`compare needs scores for at least one task (A has ${a.length}, B has ${b.length})`);
  const index = (xs: TaskScores[], side: string) => {
    const m = new Map<string, TaskScores>();
    for (const t of xs) {
      if (m.has(t.task)) throw new Error(`compare: task ${t.task} appears twice in ${side}'s scores`);
      m.set(t.task, t);
    }
    return m;
  };
  const ia = index(a, 'A'), ib = index(b, 'B');
  const onlyA = a.filter((t) => !ib.has(t.task)).map((t) => t.task);
  const onlyB = b.filter((t) => !ia.has(t.task)).map((t) => t.task);
  if (onlyA.length || onlyB.length) {
    const few = (xs: string[]) => (xs.length ? `${xs.slice(0, 5).join(', ')}${xs.length > 5 ? ` (+${xs.length - 5} more)` : ''}` : 'none');
    throw new Error(`compare needs the same tasks for A and B (A has ${a.length}, B has ${b.length}); only in A: ${few(onlyA)}; only in B: ${few(onlyB)}`);
  }
  for (const t of [...a, ...b]) {
    for (const m of COMPARE_METRICS) if (!Number.isFinite(t[m])) throw new Error(`compare: ${m} of task ${t.task} is not a finite number (${t[m]})`);
  }
  return a.map((t) => [t, ib.get(t.task)!]);
}
