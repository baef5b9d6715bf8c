// The Train page's Diagnostics panel data (src/app/components/train/diagnostics.ts): step records → chart
// lines, with a gap (never a 0) where a record lacks a field or holds null, a role the variant does not train
// left undrawn and labelled "n/a (not trained)", and runs from before the diagnostics named once.

import { describe, expect, it } from 'vitest';
import {
  diagnosticCharts, finite, informativeTip, NOT_TRAINED, points, refillShare, roleTrained, runsWithoutDiagnostics, type DiagChart, type DiagRun, type StepRecord,
} from '../../src/app/components/train/diagnostics';

const full = (step: number, o: Partial<StepRecord> = {}): StepRecord => ({
  step, entropy: 1.5 - step * 0.25, gradNorm: 0.5, groups: 10, informativeGroups: 6, informativeShare: 0.6, refills: 2,
  rewardActTrained: 0.3 + step * 0.1, rewardRehearseTrained: null, klToInit: step * 0.01, updateRatio: 1e-3, lr: 3e-4,
  truncatedAct: 1, truncatedRehearse: 0, updateRows: 40, skipped: false, ...o,
});
// An old record: the fields every build logged, none of the diagnostics.
const old = (step: number): StepRecord => ({ step, reward: 0.2, rewardAct: 0.2, rewardRehearse: 0, entropy: 1.1, gradNorm: 0.4, skipped: false });

const run = (o: Partial<DiagRun> & Pick<DiagRun, 'history'>): DiagRun => ({ runId: 'r1', label: 'A', color: '#fff', variant: 'grpo-real', ...o });
const chart = (cs: DiagChart[], id: string) => cs.find((c) => c.id === id)!;
const ys = (c: DiagChart, id: string) => c.lines.find((l) => l.id === id)?.points.map((p) => p.y);

describe('finite and points', () => {
  it('keeps finite numbers only; anything else is a gap', () => {
    expect([1, 0, -2.5].map(finite)).toEqual([1, 0, -2.5]);
    expect([undefined, null, NaN, Infinity, '0.5', {}].map(finite)).toEqual([null, null, null, null, null, null]);
  });

  it('gives one point per record with a step, null where the field is missing, null or not finite', () => {
    const h = [full(1), { step: 2 } as StepRecord, full(3, { klToInit: null }), full(4, { klToInit: NaN }), { entropy: 1 } as unknown as StepRecord];
    expect(points(h, 'klToInit')).toEqual([{ x: 1, y: 0.01 }, { x: 2, y: null }, { x: 3, y: null }, { x: 4, y: null }]);
  });
});

describe('diagnosticCharts', () => {
  it('draws every chart of a run with the diagnostics', () => {
    const cs = diagnosticCharts([run({ history: [full(1), full(2)] })]);
    expect(cs.map((c) => c.id)).toEqual(['diag-informative', 'diag-reward-role', 'entropy', 'diag-kl-init', 'grad-norm', 'diag-update-ratio', 'diag-lr', 'diag-truncated']);
    expect(chart(cs, 'diag-informative').domain).toEqual([0, 1]);
    expect(ys(chart(cs, 'diag-informative'), 'r1:diag:informativeShare')).toEqual([0.6, 0.6]);
    expect(ys(chart(cs, 'diag-informative'), 'r1:diag:refillShare')).toEqual([0.2, 0.2]);
    expect(chart(cs, 'diag-informative').lines[0].points[0].tip).toBe('6/10 groups informative, 2 refills');
    expect(ys(chart(cs, 'entropy'), 'r1:diag:entropy')).toEqual([1.25, 1]);
    expect(ys(chart(cs, 'diag-kl-init'), 'r1:diag:klToInit')).toEqual([0.01, 0.02]);
    expect(ys(chart(cs, 'grad-norm'), 'r1:diag:gradNorm')).toEqual([0.5, 0.5]);
    expect(ys(chart(cs, 'diag-update-ratio'), 'r1:diag:updateRatio')).toEqual([1e-3, 1e-3]);
    expect(ys(chart(cs, 'diag-lr'), 'r1:diag:lr')).toEqual([3e-4, 3e-4]);
    for (const c of cs.filter((x) => !['diag-reward-role', 'diag-truncated'].includes(x.id))) expect(c.notes).toEqual([]);
  });

  it('does not draw a role the variant does not train, and labels it n/a (not trained)', () => {
    const cs = diagnosticCharts([run({ history: [full(1), full(2)] })]);
    const reward = chart(cs, 'diag-reward-role');
    expect(reward.lines.map((l) => l.id)).toEqual(['r1:diag:rewardActTrained']);
    expect(reward.lines[0].points.map((p) => p.y)).toEqual([0.4, 0.5]);
    expect(reward.notes).toEqual([`A · Rehearse: ${NOT_TRAINED}`]);
    // Real-environment rollouts have no Rehearse generations: no Rehearse truncation line either.
    const trunc = chart(cs, 'diag-truncated');
    expect(trunc.lines.map((l) => l.id)).toEqual(['r1:diag:truncatedAct']);
    expect(trunc.notes).toEqual(['A · Rehearse: none (the real environment answers tool calls)']);
  });

  it('draws both roles of a variant that trains both, dashed Rehearse, with gaps for null steps', () => {
    const h = [full(1, { rewardRehearseTrained: 0.7 }), full(2, { rewardRehearseTrained: null }), full(3, { rewardRehearseTrained: 0.9, truncatedRehearse: 4 })];
    const cs = diagnosticCharts([run({ variant: 'envace', history: h })]);
    const reward = chart(cs, 'diag-reward-role');
    expect(reward.lines.map((l) => [l.id, Boolean(l.dashed)])).toEqual([['r1:diag:rewardActTrained', false], ['r1:diag:rewardRehearseTrained', true]]);
    expect(ys(reward, 'r1:diag:rewardRehearseTrained')).toEqual([0.7, null, 0.9]);
    expect(reward.notes).toEqual([]);
    expect(ys(chart(cs, 'diag-truncated'), 'r1:diag:truncatedRehearse')).toEqual([0, 0, 4]);
  });

  it('takes the trained roles from the variant; with none known, a role no record has a value for is n/a', () => {
    expect(roleTrained(run({ variant: 'envace', history: [] }), 'rehearse')).toBe(true);
    expect(roleTrained(run({ variant: 'grpo-simulator', history: [] }), 'rehearse')).toBe(false);
    expect(roleTrained(run({ variant: 'not-a-variant', history: [] }), 'act')).toBeNull();
    const unknown = diagnosticCharts([run({ variant: undefined, history: [full(1), full(2)] })]);
    expect(chart(unknown, 'diag-reward-role').lines.map((l) => l.id)).toEqual(['r1:diag:rewardActTrained']);
    expect(chart(unknown, 'diag-reward-role').notes).toEqual([`A · Rehearse: ${NOT_TRAINED}`]);
    // The trainer also logs null for a trained role with no rows in a step (no tool call, nothing rehearsed):
    // a variant that trains Rehearse says so instead of calling it untrained, and draws no zeros.
    const cs = diagnosticCharts([run({ variant: 'envace', history: [full(1), full(2)] })]);
    expect(ys(chart(cs, 'diag-reward-role'), 'r1:diag:rewardRehearseTrained')).toEqual([null, null]);
    expect(chart(cs, 'diag-reward-role').notes).toEqual(['A · Rehearse: no Rehearse rows in its steps']);
  });

  it('copes with records from before the diagnostics: gaps, no notes per chart, one notice', () => {
    const older = run({ runId: 'r0', label: 'Old', history: [old(1), old(2)] });
    const cs = diagnosticCharts([older]);
    expect(runsWithoutDiagnostics([older, run({ history: [full(1)] }), run({ label: 'Empty', history: [] })])).toEqual(['Old']);
    expect(ys(chart(cs, 'diag-informative'), 'r0:diag:informativeShare')).toEqual([null, null]);
    expect(ys(chart(cs, 'diag-informative'), 'r0:diag:refillShare')).toEqual([null, null]);
    expect(chart(cs, 'diag-informative').lines[0].points.every((p) => p.tip === undefined)).toBe(true);
    expect(ys(chart(cs, 'diag-reward-role'), 'r0:diag:rewardActTrained')).toEqual([null, null]);
    expect(ys(chart(cs, 'diag-kl-init'), 'r0:diag:klToInit')).toEqual([null, null]);
    // What every build logged is still drawn.
    expect(ys(chart(cs, 'entropy'), 'r0:diag:entropy')).toEqual([1.1, 1.1]);
    expect(ys(chart(cs, 'grad-norm'), 'r0:diag:gradNorm')).toEqual([0.4, 0.4]);
    expect(chart(cs, 'diag-kl-init').notes).toEqual([]);
    expect(chart(cs, 'diag-reward-role').notes).toEqual([`Old · Rehearse: ${NOT_TRAINED}`]);
  });

  it('says why a newer run has nothing to draw for one metric, and overlays several runs', () => {
    const a = run({ history: [full(1, { klToInit: null }), full(2, { klToInit: null })] });
    const b = run({ runId: 'r2', label: 'B', color: '#f00', variant: 'envace', history: [full(1, { rewardRehearseTrained: 0.5 })] });
    const cs = diagnosticCharts([a, b]);
    expect(chart(cs, 'diag-kl-init').notes).toEqual(['A: no value in its steps']);
    // A step the NaN guard skipped logs NaN: a gap, and the note when no step has a value.
    const skipped = run({ history: [full(1, { entropy: NaN, gradNorm: NaN, skipped: true })] });
    expect(ys(chart(diagnosticCharts([skipped]), 'entropy'), 'r1:diag:entropy')).toEqual([null]);
    expect(chart(diagnosticCharts([skipped]), 'grad-norm').notes).toEqual(['A: no value in its steps']);
    const { updateRatio: _drop, ...noRatio } = full(1);
    expect(chart(diagnosticCharts([run({ history: [noRatio] })]), 'diag-update-ratio').notes).toEqual(['A: not recorded']);
    expect(chart(cs, 'diag-kl-init').lines.map((l) => [l.id, l.color])).toEqual([['r1:diag:klToInit', '#fff'], ['r2:diag:klToInit', '#f00']]);
    expect(chart(cs, 'diag-reward-role').lines.map((l) => l.label)).toEqual(['A act', 'B act', 'B rehearse']);
    expect(chart(cs, 'diag-informative').lines.map((l) => l.label)).toEqual(['A informative', 'A refills / groups', 'B informative', 'B refills / groups']);
  });
});

describe('informative-share helpers', () => {
  it('tip and refill share from the counts; missing counts are a gap or a "?"', () => {
    expect(refillShare(full(1, { groups: 8, refills: 0 }))).toBe(0);
    expect(refillShare(full(1, { groups: 0, refills: 0 }))).toBeNull();
    expect(refillShare({ step: 1, groups: 8 })).toBeNull();
    expect(informativeTip({ step: 1 })).toBeUndefined();
    expect(informativeTip({ step: 1, groups: 8, informativeGroups: 3 })).toBe('3/8 groups informative, ? refills');
  });
});
