// The Train page's Curves panel as data: runs → one spec per chart (its lines, markers and notes). Pure, so
// tests/app/train-chart-memo.test.ts checks which charts a step event changes.

import { VARIANTS } from '../../../rl/advantages';
import type { EvalMetrics, StepMetrics } from '../../../worker/protocol';
import type { ChartLine } from './RunsChart';
import type { RunRecord } from './runs';
import { heldOutChange } from './heldOut';
import { seriesOf } from './series';

/** What the page needs of a run to draw it (a RunRecord has it). */
export type CurveRun = Pick<RunRecord, 'runId' | 'label' | 'color' | 'history' | 'evals'> & { request: { spec: Pick<RunRecord['request']['spec'], 'variant'> } };

export interface CurveChart { id: string; title: string; note?: string; lines: ChartLine[]; domain?: [number, number]; notes?: string[] }

type StepKey = Exclude<{ [K in keyof StepMetrics]-?: StepMetrics[K] extends number ? K : never }[keyof StepMetrics], undefined>;
type EvalKey = { [K in keyof EvalMetrics]-?: EvalMetrics[K] extends number ? K : never }[keyof EvalMetrics];

// Points come from seriesOf: the same array while the run's history (evals) is, so unchanged charts skip a redraw.
const stepLine = (r: CurveRun, k: StepKey, suffix = '', dashed = false): ChartLine => ({
  id: `${r.runId}:${k}`, label: `${r.label}${suffix}`, color: r.color, dashed, points: seriesOf(r.history, k, (h) => h.map((m) => ({ x: m.step, y: m[k] }))),
});
const evalLine = (r: CurveRun, k: EvalKey, suffix = '', dashed = false): ChartLine => ({
  id: `${r.runId}:eval:${k}`, label: `${r.label}${suffix}`, color: r.color, dashed, points: seriesOf(r.evals, k, (ev) => ev.map((e) => ({ x: e.step, y: e[k] }))),
});
// Probe fidelity fields are optional (runs recorded before probes existed) and null for a label without probes.
const probeLine = (r: CurveRun, k: 'recallF1' | 'inferenceF1' | 'noHintsF1', suffix: string, dash?: string): ChartLine => ({
  id: `${r.runId}:eval:${k}`, label: `${r.label}${suffix}`, color: r.color, dash, points: seriesOf(r.evals, `probe:${k}`, (ev) => ev.map((e) => ({ x: e.step, y: e[k] ?? null }))),
});
export const trainsRehearse = (r: CurveRun) => VARIANTS[r.request.spec.variant ?? 'envace'].trainRoles.includes('rehearse');
/** Train rollouts imagine tool results (rehearsal, simulator); in real mode nothing is imagined, so no fidelity. */
const imagines = (r: CurveRun) => VARIANTS[r.request.spec.variant ?? 'envace'].rolloutMode !== 'real';
const variantLabel = (r: CurveRun) => VARIANTS[r.request.spec.variant ?? 'envace'].label.split(' (')[0];

/** The ten Curves charts of `runs`, and the steps the NaN guard skipped (red verticals on every chart). */
export function curveCharts(runs: readonly CurveRun[]): { charts: CurveChart[]; skipped: number[] } {
  const skipped = [...new Set(runs.flatMap((r) => r.history.filter((m) => m.skipped).map((m) => m.step)))];
  const perRole = (a: StepKey, b: StepKey) => runs.flatMap((r) => [stepLine(r, a, ' act'), ...(trainsRehearse(r) ? [stepLine(r, b, ' rehearse', true)] : [])]);
  // A role or a measure a run's variant does not have is not drawn as 0: the chart says n/a for that run.
  const noRehearse = runs.filter((r) => !trainsRehearse(r)).map((r) => `${r.label}: n/a — ${variantLabel(r)} trains the Act role only (no Rehearse rows)`);
  const noTrainFidelity = runs.filter((r) => !imagines(r)).map((r) => `${r.label}: train-rollout fidelity n/a — in real mode every tool result is real, nothing is imagined`);
  const charts: CurveChart[] = [
    { id: 'reward-role', title: 'reward per role', note: 'solid Act · dashed Rehearse', lines: perRole('rewardAct', 'rewardRehearse'), notes: noRehearse },
    { id: 'adv-mean', title: 'advantage mean per role', note: '≈0 with a role-wise baseline', lines: perRole('advActMean', 'advRehearseMean'), notes: noRehearse },
    { id: 'adv-abs', title: 'advantage |A| per role', lines: perRole('advActAbs', 'advRehearseAbs'), notes: noRehearse },
    { id: 'success', title: 'held-out real-env success', note: 'dashed: checklist score', lines: runs.flatMap((r) => [evalLine(r, 'success'), evalLine(r, 'checklist', ' checklist', true)]), domain: [0, 1],
      notes: runs.flatMap((r) => heldOutChange(r.label, r.evals) ?? []) },
    { id: 'fidelity', title: 'rehearsal fidelity F1', note: 'solid eval · dashed train rollouts', lines: runs.flatMap((r) => [evalLine(r, 'fidelityF1', ' eval'), ...(imagines(r) ? [stepLine(r, 'fidelityF1', ' train', true)] : [])]), domain: [0, 1], notes: noTrainFidelity },
    { id: 'fidelity-probes', title: 'probe fidelity F1: recall vs inference', note: 'solid recall (a hint holds the answer) · dashed inference (none does) · dotted all probes, hints off', lines: runs.flatMap((r) => [probeLine(r, 'recallF1', ' recall'), probeLine(r, 'inferenceF1', ' inference', '4 3'), probeLine(r, 'noHintsF1', ' hints off', '1 3')]), domain: [0, 1] },
    { id: 'kl', title: 'KL', note: 'solid ppo_kl (a mean log-ratio: can be negative) · dashed kl_loss', lines: runs.flatMap((r) => [stepLine(r, 'ppoKl'), stepLine(r, 'klLoss', ' kl_loss', true)]) },
    { id: 'loss', title: 'policy loss', lines: runs.map((r) => stepLine(r, 'loss')) },
    { id: 'tokens-per-s', title: 'rollout tokens / s', lines: runs.map((r) => stepLine(r, 'rolloutTokensPerS')) },
    { id: 'seconds-per-step', title: 'seconds per step', note: 'dashed: update only', lines: runs.flatMap((r) => [stepLine(r, 'secondsPerStep'), stepLine(r, 'updateSeconds', ' update', true)]) },
  ];
  return { charts, skipped };
}
