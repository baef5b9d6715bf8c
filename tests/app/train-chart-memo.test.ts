// The Train page redraws only the Curves charts a store update changed (src/app/components/train/curves.ts,
// series.ts, RunsChart.tsx): a chart is skipped when RunsChart's memo (sameChart) finds its props equal, which
// needs the run's series to keep their arrays while the run's history and evals stay the same arrays. A step
// event (new history array, as runs.ts's onEvent makes it) must change the step charts and leave the evaluation
// charts alone; an evaluation the other way round; a log line, progress or status update must change none.

import { describe, expect, it } from 'vitest';
import { curveCharts, type CurveRun } from '../../src/app/components/train/curves';
import { RunsChart, sameChart } from '../../src/app/components/train/RunsChart';
import { seriesOf } from '../../src/app/components/train/series';
import type { EvalMetrics, StepMetrics } from '../../src/worker/protocol';

const step = (n: number): StepMetrics => ({
  step: n, reward: 0.1 * n, rewardAct: 0.1 * n, rewardRehearse: 0.05 * n, advActMean: 0, advRehearseMean: 0, advActAbs: 0.3, advRehearseAbs: 0.2,
  fidelityF1: 0.4, ppoKl: 0.001 * n, klLoss: 0, loss: -0.01 * n, rolloutTokensPerS: 500, secondsPerStep: 0.4, updateSeconds: 0.1,
} as StepMetrics);
const evaluation = (n: number): EvalMetrics => ({ step: n, success: 0.25, checklist: 0.5, fidelityF1: 0.6, recallF1: 0.7, inferenceF1: 0.3, noHintsF1: 0.5 } as EvalMetrics);

const run = (runId: string, variant: 'envace' | 'grpo-real', steps: number, evals: number[]): CurveRun & { logs: string[] } => ({
  runId, label: runId, color: '#5cc8ff', request: { spec: { variant } },
  history: Array.from({ length: steps }, (_, i) => step(i + 1)), evals: evals.map(evaluation), logs: [],
});

/** The ids of the charts whose props differ (those RunsChart redraws) between two states of the runs. */
function redrawn(before: CurveRun[], after: CurveRun[]): string[] {
  const a = curveCharts(before);
  const b = curveCharts(after);
  expect(b.charts.map((c) => c.id)).toEqual(a.charts.map((c) => c.id));
  return a.charts.filter((c, i) => {
    const d = b.charts[i]!;
    return !sameChart({ ...c, testId: c.id, markers: a.skipped }, { ...d, testId: d.id, markers: b.skipped });
  }).map((c) => c.id);
}

const STEP_CHARTS = ['reward-role', 'adv-mean', 'adv-abs', 'kl', 'loss', 'tokens-per-s', 'seconds-per-step'];

describe('which Curves charts a store update redraws', () => {
  const done = run('finished', 'envace', 5, [2, 4]);

  it('a step of a run that imagines tool results: the step charts and train-rollout fidelity, not the evaluations', () => {
    const live = run('live', 'envace', 3, [2]);
    const next = { ...live, history: [...live.history, step(4)] };
    expect(redrawn([done, live], [done, next])).toEqual([...STEP_CHARTS.slice(0, 3), 'fidelity', ...STEP_CHARTS.slice(3)]);
  });

  it('a step of a real-mode run (no train-rollout fidelity): the step charts only', () => {
    const live = run('live', 'grpo-real', 3, []);
    const next = { ...live, history: [...live.history, step(4)] };
    expect(redrawn([done, live], [done, next])).toEqual(STEP_CHARTS);
  });

  it('an evaluation: the evaluation charts only', () => {
    const live = run('live', 'envace', 4, [2]);
    const next = { ...live, evals: [...live.evals, evaluation(4)] };
    expect(redrawn([done, live], [done, next])).toEqual(['success', 'fidelity', 'fidelity-probes']);
  });

  it('a log line, progress inside a step or a status change: none', () => {
    const live = run('live', 'envace', 4, [2]);
    const next = { ...live, logs: ['12:00:00 checkpoint @4'], inStep: { phase: 'update', step: 5, model: 1, models: 1, rows: 8 } };
    expect(redrawn([done, live], [done, next])).toEqual([]);
    // A recolour or relabel is drawn.
    expect(redrawn([done, live], [done, { ...live, color: '#ff8a65' }])).toHaveLength(10);
  });

  it('a NaN-guard skip marks every chart', () => {
    const live = run('live', 'grpo-real', 3, []);
    const next = { ...live, history: [...live.history, { ...step(4), skipped: true }] };
    expect(redrawn([done, live], [done, next])).toHaveLength(10);
  });
});

describe('the memo itself', () => {
  it('RunsChart is memoized with sameChart', () => {
    expect((RunsChart as unknown as { compare: unknown }).compare).toBe(sameChart);
  });

  it('seriesOf keeps one points array per (rows array, key), recomputed for a new array', () => {
    const rows = [step(1), step(2)];
    const make = (h: readonly StepMetrics[]) => h.map((m) => ({ x: m.step, y: m.loss }));
    const first = seriesOf(rows, 'loss', make);
    expect(seriesOf(rows, 'loss', make)).toBe(first);
    expect(seriesOf(rows, 'reward', (h) => h.map((m) => ({ x: m.step, y: m.reward })))).not.toBe(first);
    const more = [...rows, step(3)];
    expect(seriesOf(more, 'loss', make)).not.toBe(first);
    expect(seriesOf(more, 'loss', make).map((p) => p.y)).toEqual([-0.01, -0.02, -0.03]);
  });

  it('sameChart compares lines by their points array and the rest by value', () => {
    const [c] = curveCharts([run('a', 'grpo-real', 2, [])]).charts;
    const props = { ...c!, testId: c!.id, markers: [1] };
    expect(sameChart(props, { ...props, lines: props.lines.map((l) => ({ ...l })), markers: [1], notes: props.notes && [...props.notes] })).toBe(true);
    expect(sameChart(props, { ...props, lines: props.lines.map((l) => ({ ...l, points: [...l.points] })) })).toBe(false);
    expect(sameChart(props, { ...props, markers: [1, 2] })).toBe(false);
    expect(sameChart(props, { ...props, lines: props.lines.map((l) => ({ ...l, dashed: !l.dashed })) })).toBe(false);
  });
});
