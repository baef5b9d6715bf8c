// The Benchmarks page's curve data (src/app/components/bench/results.ts): the docs/results/ files are found and
// parsed, seed intervals are the textbook t-interval, and the chart rows carry exactly the files' values.

import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ABLATIONS, ablationCurves, ablationOrder, TRAIN_SMOOTH, BUDGETS, budgetRows, EVALS, isEvalJson, loadResults, resultsLoaded, seedInterval, TTS, ttsSweep, type AblationSummary } from '../../src/app/components/bench/results';
import { curveCsv } from '../../src/app/components/bench/CurveChart';

// The page fetches each file's asset URL; here the URL (root-relative in Vite's test transform) is read from disk.
const seen: string[] = [];
beforeAll(async () => {
  expect(resultsLoaded()).toBe(false);
  expect(ABLATIONS).toEqual([]); // nothing is carried by the module itself
  await loadResults(async (url) => { seen.push(url); return JSON.parse(fs.readFileSync(path.join(process.cwd(), url.split('?')[0]!), 'utf8')); });
  expect(resultsLoaded()).toBe(true);
});

describe('results loaded on demand', () => {
  it('reads each results file once, by its URL, and a second load reuses the first', async () => {
    expect(seen.length).toBe(new Set(seen).size);
    expect(seen.some((u) => /docs\/results\/eval\/.*\.json/.test(u))).toBe(true);
    const before = seen.length;
    await loadResults(async () => { throw new Error('not called'); });
    expect(seen.length).toBe(before);
  });
});

describe('bundled results', () => {
  it('finds every committed ablation summary, rehearsal sweep and eval JSON (and no superseded format)', () => {
    expect(ABLATIONS.map((a) => a.file)).toContain('ablation-small/summary.json');
    expect(ABLATIONS.every((a) => a.data.format.startsWith('envace-ablation-summary/'))).toBe(true);
    expect(TTS.map((t) => t.file).sort()).toEqual(fs.readdirSync('docs/results').filter((f) => /^tts-.*\.json$/.test(f)).sort());
    expect(EVALS.map((e) => e.file).sort()).toEqual(fs.readdirSync('docs/results/eval').filter((f) => f.endsWith('.json')).map((f) => `eval/${f}`).sort());
  });
});

describe('seedInterval', () => {
  it('is mean ± t(n−1) · sd / √n, clipped to [0, 1] for shares', () => {
    const e = seedInterval([0.1, 0.2, 0.3], false);
    const h = 4.303 * 0.1 / Math.sqrt(3);
    expect(e.mean).toBeCloseTo(0.2, 12);
    expect(e.ci95[0]).toBeCloseTo(0.2 - h, 12);
    expect(e.ci95[1]).toBeCloseTo(0.2 + h, 12);
    expect(seedInterval([0.1, 0.2, 0.3], true).ci95[0]).toBe(0);
    expect(seedInterval([0.4], true).ci95).toEqual([0.4, 0.4]);
  });
});

describe('ablationCurves', () => {
  const summary: AblationSummary = {
    format: 'envace-ablation-summary/1',
    protocol: { world: 'files', n_tasks: 4, k: 1, seeds: [1, 2], steps: 4, model: 'm' },
    variants: [{ name: 'base', label: 'Base', seeds: [1, 2], metrics: {} }, { name: 'a', label: 'A', seeds: [1, 2], metrics: {} }],
    runs: [
      { variant: 'base', seed: 1, curve: [], evals: [] },
      { variant: 'a', seed: 1, curve: [{ step: 1, reward: 0.5 }], evals: [{ step: 0, success: 0.25 }, { step: 4, success: 0.5 }] },
      { variant: 'a', seed: 2, curve: [{ step: 1, reward: 0.7 }], evals: [{ step: 0, success: 0.75 }, { step: 4, success: null }] },
      // Still running: not in `variants`, its curve is drawn all the same.
      { variant: 'b', seed: 1, curve: [], evals: [{ step: 0, success: 0.1 }] },
    ],
  };
  it('averages over seeds by step, skips nulls, and leaves base out', () => {
    const { rows, series } = ablationCurves(summary, 'success', 'all');
    expect(series).toEqual([{ key: 'a', label: 'A' }, { key: 'b', label: 'b' }]);
    expect(rows.map((r) => [r.step, r.a, r.a_n, r.b ?? null])).toEqual([[0, 0.5, 2, 0.1], [4, 0.5, 1, null]]);
    expect(ablationCurves(summary, 'reward', 'a').rows).toEqual([{ step: 1, a: 0.6, a_band: seedInterval([0.5, 0.7], false).ci95, a_n: 2 }]);
  });
  it('held-out success: the base model at step 0 and each run\'s end at the last step, paired by seed', () => {
    const est = (m: number) => ({ mean: m, ci95: [m, m] as [number, number] });
    const withReports: AblationSummary = { ...summary, runs: [
      { ...summary.runs[0]!, report: { success: est(0.5) } },
      { variant: 'base', seed: 2, curve: [], evals: [], report: { success: est(0.3) } },
      { ...summary.runs[1]!, report: { success: est(0.6) } },
      { ...summary.runs[2]!, report: { success: est(0.5) } },
      { variant: 'b', seed: 3, curve: [], evals: [], report: { success: est(0.9) } }, // no base on seed 3: not drawn
    ] };
    const { rows, series } = ablationCurves(withReports, 'heldOut', 'all');
    expect(series.map((x) => x.key)).toEqual(['a']);
    expect(rows.map((r) => [r.step, r.a, r.a_n])).toEqual([[0, 0.4, 2], [4, 0.55, 2]]);
  });

  it('training-rollout success is a trailing moving average per run, then averaged over seeds', () => {
    const curve = (xs: number[]) => xs.map((v, i) => ({ step: i + 1, trainSuccess: v }));
    const n = TRAIN_SMOOTH;
    const one = { ...summary, runs: [{ variant: 'a', seed: 1, curve: curve([...Array(n + 2).keys()].map((i) => (i < n ? 0 : 1))), evals: [] }] } as AblationSummary;
    const { rows } = ablationCurves(one, 'trainSuccess', 'a');
    // the first point once a full window exists, then one per step
    expect(rows.map((r) => r.step)).toEqual([n, n + 1, n + 2]);
    expect(rows.map((r) => r.a)).toEqual([0, 1 / n, 2 / n]);
  });

  it('orders summaries: a starter\'s first, then the most training (runs × steps), then by path', () => {
    const mk = (model: string, steps: number, trained: number) => ({ ...summary, protocol: { ...summary.protocol, model, steps },
      runs: [{ variant: 'base', seed: 1, curve: [], evals: [] }, ...Array.from({ length: trained }, (_, i) => ({ variant: 'a', seed: i + 1, curve: [], evals: [] }))] });
    const xs = [
      { file: 'pilot/summary.json', data: mk('models/files-starter', 40, 25) },
      { file: 'small/summary.json', data: mk('models/envace-small', 1000, 25) },
      { file: 'powered/summary.json', data: mk('models/files-starter', 300, 4) },
      { file: 'b-tie/summary.json', data: mk('models/retail-starter', 300, 4) },
    ];
    expect([...xs].sort(ablationOrder).map((x) => x.file)).toEqual(['b-tie/summary.json', 'powered/summary.json', 'pilot/summary.json', 'small/summary.json']);
    // the same runs under a second protocol (imported, no curves) come after the summary with the curves
    const plain = mk('models/files-starter', 300, 4);
    const withCurves: AblationSummary = { ...plain, runs: plain.runs.map((r) => (r.variant === 'base' ? r : { ...r, curve: [{ step: 1, reward: 0.5 }] })) };
    const pair = [{ file: 'powered/avg2/summary.json', data: mk('models/files-starter', 300, 4) }, { file: 'powered/summary.json', data: withCurves }];
    expect(pair.sort(ablationOrder).map((x) => x.file)).toEqual(['powered/summary.json', 'powered/avg2/summary.json']);
  });

  it('exports as CSV exactly the drawn points', () => {
    const { rows, series } = ablationCurves(summary, 'success', 'a');
    const csv = curveCsv('step', rows, series).trim().split('\n');
    expect(csv[0]).toBe('step,series,mean,ci_lo,ci_hi');
    expect(csv.slice(1).map((l) => l.split(',').slice(0, 3))).toEqual([['0', 'a', '0.5'], ['4', 'a', '0.5']]);
  });
});

describe('ttsSweep on the committed sweep', () => {
  it('starts each (strategy, memory) line at the shared N = 0 run and carries each config\'s estimate', () => {
    const t = TTS.find((x) => x.file === 'tts-envace-small-files.json')!.data;
    const { rows, series } = ttsSweep(t, 'checklist', 'full');
    expect(series.map((s) => s.key)).toEqual(['parallel_full', 'sequential_full']);
    const none = t.configs.find((c) => c.n === 0)!;
    expect(rows[0]).toMatchObject({ n: 0, parallel_full: none.checklist.mean, sequential_full: none.checklist.mean });
    for (const c of t.configs.filter((x) => x.n > 0 && x.memory === 'full')) {
      const row = rows.find((r) => r.n === c.n)!;
      expect(row[`${c.strategy}_full`]).toBe(c.checklist.mean);
      expect(row[`${c.strategy}_full_band`]).toEqual(c.checklist.ci95);
    }
  });
});

describe('budgetRows on the committed sweep', () => {
  it('puts the base at x = 0 and one point per p at its mean real calls, with each point\'s interval', () => {
    const b = BUDGETS.find((x) => x.file === 'budget-small/summary.json')!;
    expect(b.sweep.format).toBe('envace-budget-sweep/1');
    expect(ABLATIONS.map((a) => a.file)).not.toContain('budget-small/summary.json'); // no trained variant curves there
    const { rows, series } = budgetRows(b.sweep, 'success', 'real_calls');
    expect(series.map((s) => s.key)).toEqual(['trained', 'base']);
    expect(rows).toHaveLength(b.sweep.points.length + 1);
    expect(rows.find((r) => r.base !== undefined)).toMatchObject({ real_calls: 0, base: b.sweep.base.metrics.success!.mean });
    for (const p of b.sweep.points) {
      expect(rows.find((r) => r.p === p.real_fraction)).toMatchObject({ real_calls: p.real_calls.mean, trained: p.metrics.success!.mean, trained_band: p.metrics.success!.ci95 });
    }
    const byP = budgetRows(b.sweep, 'checklist', 'p');
    expect(byP.series.map((s) => s.key)).toEqual(['trained']);
    expect(byP.rows.map((r) => r.p)).toEqual([...b.sweep.points.map((p) => p.real_fraction)].sort((x, y) => x - y));
  });
  it('draws only eval reports from eval/: a fidelity report there would be skipped, not crash the page', () => {
    for (const e of EVALS) expect(isEvalJson(e.data)).toBe(true);
    const fidelity = JSON.parse(fs.readFileSync('docs/results/fidelity/retail-starter-retail.json', 'utf8'));
    expect(isEvalJson(fidelity)).toBe(false);
    expect(isEvalJson(null)).toBe(false);
    expect(isEvalJson({ ...EVALS[0].data, success: undefined })).toBe(false);
  });
});

describe('the rehearsal chart opens on a memory-trained sweep', () => {
  const full = (file: string, model: string, tasksDone: number, memoryTrained?: boolean) => ({
    file, data: { ...TTS[0].data, model, tasksDone, memoryTrained, configs: Array.from({ length: 5 }, () => TTS[0].data.configs[0]) },
  });
  it('prefers the largest memory-trained sweep, then a starter, then the first full one', async () => {
    const { defaultSweep } = await import('../../src/app/components/bench/results');
    const a = full('tts-a.json', 'models/envace-small', 60);
    const s = full('tts-s.json', 'models/files-starter', 40);
    const m40 = full('tts-m40.json', 'runs/files-starter-mem', 40, true);
    const m100 = full('tts-m100.json', 'runs/files-starter-mem', 100, true);
    expect(defaultSweep([a, s, m40, m100])?.file).toBe('tts-m100.json');
    expect(defaultSweep([a, s, m40])?.file).toBe('tts-m40.json');
    expect(defaultSweep([a, s])?.file).toBe('tts-s.json');
    expect(defaultSweep([a])?.file).toBe('tts-a.json');
    // A memory-trained sweep of fewer than four configurations is not a sweep to open on.
    expect(defaultSweep([s, { ...m100, data: { ...m100.data, configs: m100.data.configs.slice(0, 2) } }])?.file).toBe('tts-s.json');
  });
  it('the committed files: the default is memory-trained once such a sweep is committed', async () => {
    const { defaultSweep } = await import('../../src/app/components/bench/results');
    const d = defaultSweep(TTS);
    expect(d).toBeDefined();
    if (TTS.some((t) => t.data.memoryTrained && t.data.configs.length > 3)) expect(d!.data.memoryTrained).toBe(true);
  });
});
