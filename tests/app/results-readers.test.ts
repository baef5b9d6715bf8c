// The pages' readers of results JSON (src/app/components/bench/readers.ts, issue 21): a malformed file is
// refused or partly shown with the reason, never half-read into a crash; data-named series are own row keys.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { minimumDetectableEffect } from '../../src/bench/stats';
import {
  ablationCurves, mechanismCorrelation, mechanismPoints, orderingRows, readAblationSummary, readBudgetSweep, readEvalFile, readEvalJson, readTtsResult, ttsSweep, type AblationSummary,
} from '../../src/app/components/bench/readers';

const json = (p: string) => JSON.parse(readFileSync(p, 'utf8')) as Record<string, any>;
const SUMMARY = json('docs/results/ablation-small/summary.json');

describe('results readers', () => {
  it('accept the committed files and refuse each kind of damage', () => {
    expect(readAblationSummary(SUMMARY)).not.toBeNull();
    expect(readTtsResult(json('docs/results/tts-envace-small-files.json'))).not.toBeNull();
    expect(readTtsResult({ ...json('docs/results/tts-envace-small-files.json'), memoryTrained: true })).not.toBeNull();
    expect(readTtsResult({ ...json('docs/results/tts-envace-small-files.json'), memoryTrained: 'yes' })).toBeNull();
    expect(readEvalJson(json('docs/results/eval/envace-small-files-greedy.json'))).not.toBeNull();
    expect(readBudgetSweep(json('docs/results/budget-small/summary.json'))).not.toBeNull();
    for (const bad of [
      { ...SUMMARY, runs: undefined }, { ...SUMMARY, runs: [null] }, { ...SUMMARY, protocol: { ...SUMMARY.protocol, seeds: 'x' } },
      { ...SUMMARY, variants: [{ ...SUMMARY.variants[0], metrics: { success: { mean: 2, ci95: [0, 1] } } }] },
      { ...SUMMARY, variants: [{ ...SUMMARY.variants[0], metrics: { success: { mean: 0.5, ci95: [0.6, 0.4] } } }] },
      null, [], 'x',
    ]) expect(readAblationSummary(bad)).toBeNull();
    const ev = json('docs/results/eval/envace-small-files-greedy.json');
    expect(readEvalJson({ ...ev, pass_at_k: undefined })).toBeNull();
    expect(readEvalJson({ ...ev, difficulty: [] })).toBeNull();
  });

  it("a variant named '__proto__' is an own series; one named like the x key is not drawn; overflowing values are skipped", () => {
    const run = (variant: string, v: number) => ({ variant, seed: 1, curve: [{ step: 1, reward: v }], evals: [] });
    const s = { ...SUMMARY, variants: [], runs: [run('__proto__', 0.5), run('step', 0.7), run('big', 1e308), run('big', 1e308), run('ok', 0.25)] } as unknown as AblationSummary;
    const c = ablationCurves(s, 'reward', 'all');
    expect(c.series.map((x) => x.key)).toEqual(['__proto__', 'ok']);
    expect(c.rows).toHaveLength(1);
    expect(Object.hasOwn(c.rows[0], '__proto__')).toBe(true);
    expect(c.rows[0].step).toBe(1);
    expect(Object.getPrototypeOf(c.rows[0])).toBe(Object.prototype);
    const t = json('docs/results/tts-envace-small-files.json');
    const sweep = ttsSweep({ ...t, configs: t.configs.map((x: any) => ({ ...x, strategy: 'n', memory: '' })) } as never, 'success', 'both');
    expect(sweep.series.every((x) => x.key !== 'n')).toBe(true);
  });

  it("a model's eval.json: wrong evaluations are left out and named, the rest shown", () => {
    const ok = { tasks: 100, k: 1, success: 0.5, outcome: 0.5, checklist: 0.7, passAtK: 0.5 };
    const r = readEvalFile({ evals: { files: { real: ok, rehearsal: { ...ok, success: 'x' } }, retail: 7 }, heldOutTasks: 100 });
    expect(Object.keys(r.file!.evals.files)).toEqual(['real']);
    expect(r.problems).toEqual(['evals.files.rehearsal has a missing or non-numeric field', 'evals.retail must be an object of modes']);
    expect(readEvalFile('x')).toEqual({ file: null, problems: ['eval.json must hold a JSON object'] });
    const m = readEvalFile(json('models/envace-tiny/eval.json'));
    expect(m.problems).toEqual([]);
  });
});

describe('the verdict table beside the training curves', () => {
  const S = json('docs/results/ablation-files-starter/summary.json');
  it('reads the committed orderings of one metric, each with an MDE from its interval', () => {
    const rows = orderingRows(readAblationSummary(S)!, 'success');
    expect(rows.length).toBe(S.orderings.filter((o: { metric: string }) => o.metric === 'success').length);
    expect(rows.length).toBeGreaterThan(0);
    for (const r of rows) {
      expect(['reproduced', 'not reproduced', 'inconclusive']).toContain(r.verdict);
      expect(r.mde).toBeCloseTo(minimumDetectableEffect(r.diff.ci95), 12);
      expect(r.mde).toBeGreaterThan(0);
    }
    // the paper's chain links are marked
    expect(rows.filter((r) => r.chainLink).map((r) => `${r.a}>${r.b}`)).toEqual(['envace>per-role', 'per-role>standard-grpo', 'standard-grpo>base']);
  });

  it('leaves out malformed orderings and keeps the rest; a stored MDE is used as stored', () => {
    const good = { a: 'x', b: 'y', metric: 'success', diff: { mean: -0.1, ci95: [-0.2, 0.05] }, verdict: 'inconclusive', mde: 0.2, chain_link: false };
    const damaged = [
      null, 7, { ...good, a: 3 }, { ...good, diff: { mean: 0, ci95: [0.2, -0.2] } }, { ...good, diff: { mean: 2, ci95: [0, 3] } },
      { ...good, verdict: 'proven' }, { ...good, diff: { mean: Number.NaN, ci95: [0, 0] } },
    ];
    const rows = orderingRows({ ...readAblationSummary(S)!, orderings: [...damaged, good] } as unknown as AblationSummary, 'success');
    expect(rows).toEqual([{ a: 'x', b: 'y', metric: 'success', diff: good.diff, verdict: 'inconclusive', mde: 0.2, chainLink: false }]);
    // A question is kept when it is a short text, dropped otherwise (the row stays).
    const asked = orderingRows({ ...readAblationSummary(S)!, orderings: [{ ...good, question: 'why?' }, { ...good, question: 'x'.repeat(201) }, { ...good, question: 3 }] } as unknown as AblationSummary, 'success');
    expect(asked.map((r) => r.question)).toEqual(['why?', undefined, undefined]);
    expect(orderingRows({ ...readAblationSummary(S)!, orderings: 'x' } as unknown as AblationSummary, 'success')).toEqual([]);
  });
});

describe('the mechanism scatter', () => {
  const S = readAblationSummary(json('docs/results/ablation-files-starter/summary.json'))!;
  it('one point per trained run: last minus first scheduled evaluation', () => {
    const pts = mechanismPoints(S, 'fidelityF1');
    const trained = S.runs.filter((r) => r.variant !== 'base' && r.evals.length >= 2);
    expect(pts.length).toBe(trained.length);
    const run = trained[0]!;
    const p = pts.find((x) => x.variant === run.variant && x.seed === run.seed)!;
    expect(p.dSuccess).toBeCloseTo((run.evals.at(-1)!.success as number) - (run.evals[0]!.success as number), 12);
    expect(p.dFidelity).toBeCloseTo((run.evals.at(-1)!.fidelityF1 as number) - (run.evals[0]!.fidelityF1 as number), 12);
    expect(pts.every((x) => x.variant !== 'base' && x.toStep > x.fromStep)).toBe(true);
  });

  it('runs without the measure, with one evaluation or with out-of-range values are left out', () => {
    const run = (variant: string, evals: Record<string, number | null>[]) => ({ variant, seed: 1, curve: [], evals });
    const s = { ...S, runs: [
      run('a', [{ step: 0, success: 0.5, recallF1: 0.5 }, { step: 10, success: 0.6, recallF1: 0.7 }]),
      run('b', [{ step: 0, success: 0.5, recallF1: 0.5 }]),
      run('c', [{ step: 0, success: 0.5 }, { step: 10, success: 0.6 }]),
      run('d', [{ step: 0, success: 0.5, recallF1: 2 }, { step: 10, success: 0.6, recallF1: 0.7 }, { step: 20, success: 0.7, recallF1: null }]),
      run('base', [{ step: 0, success: 0.5, recallF1: 0.5 }, { step: 10, success: 0.6, recallF1: 0.7 }]),
    ] } as AblationSummary;
    const pts = mechanismPoints(s, 'recallF1');
    expect(pts.map((p) => p.variant)).toEqual(['a']);
    expect(pts[0]!.dFidelity).toBeCloseTo(0.2, 12);
    expect(pts[0]!.dSuccess).toBeCloseTo(0.1, 12);
  });

  it('measured runs (npm run mechanism): fidelity from the starting model, success from the held-out evaluation against the same seed\'s base', () => {
    const est = (m: number) => ({ mean: m, ci95: [Math.max(0, m - 0.1), m + 0.1] as [number, number] });
    const run = (variant: string, seed: number, success: number, mech?: Record<string, number | null>) =>
      ({ variant, seed, curve: [], evals: [{ step: 0, success: 0.1, recallF1: 0.1 }, { step: 10, success: 0.9, recallF1: 0.9 }], report: { success: est(success) }, ...(mech ? { mechanism: mech } : {}) });
    const s = { ...S, protocol: { ...S.protocol, steps: 300 }, mechanism: { start: { recallF1: 0.8, noHintsF1: 0.5 } }, runs: [
      run('base', 1, 0.5), run('base', 2, 0.4),
      run('a', 1, 0.6, { recallF1: 0.85, noHintsF1: 0.4 }),
      run('a', 2, 0.45, { recallF1: 0.7, noHintsF1: null }),
      run('b', 3, 0.6, { recallF1: 0.9 }), // no base for seed 3: its scheduled evaluations instead
      run('c', 1, 0.55), // not measured: scheduled evaluations
    ] } as unknown as AblationSummary;
    const pts = mechanismPoints(s, 'recallF1');
    expect(pts.map((p) => [p.variant, p.seed, p.source])).toEqual([['a', 1, 'measured'], ['a', 2, 'measured'], ['b', 3, 'scheduled'], ['c', 1, 'scheduled']]);
    expect(pts[0]!.dFidelity).toBeCloseTo(0.05, 12);
    expect(pts[0]!.dSuccess).toBeCloseTo(0.1, 12);
    expect(pts[1]!.dFidelity).toBeCloseTo(-0.1, 12);
    expect(pts[1]!.dSuccess).toBeCloseTo(0.05, 12);
    expect(pts[0]!.toStep).toBe(300);
    // a null measure at the end: that run falls back to its scheduled evaluations, which lack it too here
    expect(mechanismPoints(s, 'noHintsF1').map((p) => [p.variant, p.seed, p.source])).toEqual([['a', 1, 'measured']]);
  });

  it('the correlation and its interval: positive for a linear link, null for too few runs or no spread', () => {
    const pt = (x: number, y: number) => ({ variant: 'v', seed: 1, fromStep: 0, toStep: 1, dFidelity: x, dSuccess: y, source: 'scheduled' as const });
    const linked = [...Array(12).keys()].map((i) => pt(i / 20, i / 30 + (i % 3) * 0.01));
    const c = mechanismCorrelation(linked)!;
    expect(c.r).toBeGreaterThan(0.95);
    expect(c.ci95[0]).toBeGreaterThan(0.8);
    expect(c.n).toBe(12);
    expect(mechanismCorrelation(linked.slice(0, 3))).toBeNull();
    expect(mechanismCorrelation(linked.map((p) => ({ ...p, dSuccess: 0 })))).toBeNull();
    const none = mechanismCorrelation([...Array(12).keys()].map((i) => pt(i / 20, (i * 7) % 5 / 10)))!;
    expect(none.ci95[0]).toBeLessThan(0);
    // Fisher z: with 4 runs even r = 0.96 leaves an interval reaching below 0 (a bootstrap of 4 points said [0.93, 1])
    const four = mechanismCorrelation([pt(0, 0), pt(0.01, 0.02), pt(0.02, 0.01), pt(0.05, 0.1)])!;
    expect(four.n).toBe(4);
    expect(four.r).toBeGreaterThan(0.9);
    expect(four.ci95[0]).toBeCloseTo(Math.tanh(Math.atanh(four.r) - 1.959964), 9);
    expect(four.ci95[0]).toBeLessThan(0.1);
  });
});
