// The committed results in docs/results/, bundled at build time (Vite's eager glob) so the Benchmarks page draws
// its curves at first paint without a fetch or a worker call, and turned into chart rows: one row per x value,
// a series' mean under its key and its band as [lo, hi] under `<key>_band` (recharts draws a range Area from it).
// The formats are docs/results/README.md (`envace-ablation-summary/1`, the eval JSON) and src/tts/README.md.

export interface Estimate { mean: number; ci95: [number, number] }

interface AblationRun {
  variant: string; seed: number;
  curve: Record<string, number | boolean | null>[];
  evals: Record<string, number | null>[];
}
export interface AblationSummary {
  format: string;
  protocol: { world: string; n_tasks: number; k: number; seeds: number[]; steps: number; model: string; config?: Record<string, unknown> };
  variants: { name: string; label: string; seeds: number[]; metrics: Record<string, Estimate> }[];
  runs: AblationRun[];
}
interface TtsConfig { strategy: string; n: number; memory: string; tasks: number; success: Estimate; checklist: Estimate; passAtK: Estimate; promptTokens?: { firstTurn: number } }
export interface TtsResult { model: string; world: string; tasksDone: number; memoryTokens: number; protocol: { k: number; temperature: number; topP: number; seed: number }; assessor: string; configs: TtsConfig[] }
export interface EvalJson { protocol: string; model: string; world: string; n_tasks: number; k: number; seed: number; difficulty?: number | string; success: Estimate; outcome: Estimate; checklist: Estimate; pass_at_k: Estimate }

/** The path under docs/results/ (the glob's keys are root-relative). */
const rel = (key: string) => key.replace(/^.*docs\/results\//, '');
const load = <T>(files: Record<string, unknown>): { file: string; data: T }[] =>
  Object.entries(files).map(([k, v]) => ({ file: rel(k), data: v as T })).sort((a, b) => a.file.localeCompare(b.file));

function trainedRuns(a: AblationSummary): number { return a.runs.filter((r) => r.variant !== 'base').length; }

export const ABLATIONS = load<AblationSummary>(import.meta.glob('/docs/results/**/summary.json', { eager: true, import: 'default' }))
  .filter((a) => typeof a.data.format === 'string' && a.data.format.startsWith('envace-ablation-summary/'))
  // A budget-only sweep has no trained variant runs: its curves are the budget chart's.
  .filter((a) => a.data.runs.some((r) => r.variant !== 'base'))
  // The chart opens on the first: the summary with the most trained runs (variants × seeds), so a pilot never hides
  // the full ablation; ties in path order.
  .sort((a, b) => trainedRuns(b.data) - trainedRuns(a.data) || a.file.localeCompare(b.file));
// tts-*-budget-<T>.json are memory-length runs (--memory-tokens T), not the real-environment budget.
export const TTS = load<TtsResult>(import.meta.glob('/docs/results/tts-*.json', { eager: true, import: 'default' }));
/** An `npm run eval -- --json` report; other JSON dropped into eval/ (e.g. a fidelity report) is skipped, not drawn. */
export function isEvalJson(x: unknown): x is EvalJson {
  const j = x as Partial<EvalJson> | null;
  return !!j && typeof j.n_tasks === 'number' && typeof j.success?.mean === 'number' && Array.isArray(j.success?.ci95);
}
export const EVALS = load<EvalJson>(import.meta.glob('/docs/results/eval/*.json', { eager: true, import: 'default' })).filter((e) => isEvalJson(e.data));

/**
 * The real-environment budget sweep (`npm run ablation -- --budget …`): the `budget` field, format
 * `envace-budget-sweep/1`, of an ablation summary (docs/results/README.md). x: real calls spent in training
 * (`points[].real_calls.mean`, the untrained base at 0) or the fraction p; y: a metric with its interval.
 */
export interface BudgetSweep {
  format: string; variant: string; label: string; seeds: number[]; steps: number;
  base: { real_calls: number; metrics: Record<string, Estimate> };
  points: { real_fraction: number; seeds: number[]; real_calls: { mean: number; per_seed: number[] }; metrics: Record<string, Estimate> }[];
}
export const BUDGETS = load<AblationSummary & { budget?: BudgetSweep }>(import.meta.glob('/docs/results/**/summary.json', { eager: true, import: 'default' }))
  .filter((a) => typeof a.data.budget?.format === 'string' && a.data.budget.format.startsWith('envace-budget-sweep/'))
  .map((a) => ({ file: a.file, protocol: a.data.protocol, sweep: a.data.budget! }));

/** Rows for the budget chart: series `trained` (one point per p) and `base` (the untrained origin at x = 0). */
export function budgetRows(b: BudgetSweep, metric: 'success' | 'checklist', x: 'real_calls' | 'p'): { rows: Row[]; series: SeriesSpec[] } {
  const rows: Row[] = [];
  const base = b.base.metrics[metric];
  if (base && x === 'real_calls') rows.push({ real_calls: b.base.real_calls, p: null, base: base.mean, base_band: base.ci95 });
  for (const pt of b.points) {
    const e = pt.metrics[metric];
    if (!e) continue;
    rows.push({ real_calls: pt.real_calls.mean, p: pt.real_fraction, trained: e.mean, trained_band: e.ci95 });
  }
  rows.sort((a, c) => (a[x] as number) - (c[x] as number));
  const series: SeriesSpec[] = [{ key: 'trained', label: `${b.label} trained with budget p` }];
  if (base && x === 'real_calls') series.push({ key: 'base', label: 'base (untrained)' });
  return { rows, series };
}

// ---- training curves ----------------------------------------------------------------------------------------

/** What a training curve can show: scheduled evaluations (`evals`) or per-step training metrics (`curve`). */
export const CURVE_METRICS = [
  { key: 'success', label: 'success (scheduled eval)', from: 'evals' },
  { key: 'checklist', label: 'checklist (scheduled eval)', from: 'evals' },
  { key: 'recallF1', label: 'recall fidelity F1 (scheduled eval)', from: 'evals' },
  { key: 'inferenceF1', label: 'inference fidelity F1 (scheduled eval)', from: 'evals' },
  { key: 'fidelityF1', label: 'rehearsal fidelity F1 (training step)', from: 'curve' },
  { key: 'reward', label: 'reward (training step)', from: 'curve' },
] as const;
export type CurveMetric = (typeof CURVE_METRICS)[number]['key'];

/** Two-sided 95% Student t quantiles by degrees of freedom (1…30); beyond that the normal 1.96. */
const T95 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145, 2.131,
  2.12, 2.11, 2.101, 2.093, 2.086, 2.08, 2.074, 2.069, 2.064, 2.06, 2.056, 2.052, 2.048, 2.045, 2.042];

/**
 * Mean and 95% t-interval over seeds, clipped to [0, 1] for shares. One seed: the band is the point (no spread
 * to estimate). Two seeds give t = 12.7: wide bands are the honest answer to "how sure after two seeds".
 */
export function seedInterval(xs: number[], clip: boolean): Estimate & { n: number } {
  const n = xs.length;
  const mean = xs.reduce((a, b) => a + b, 0) / n;
  if (n < 2) return { mean, ci95: [mean, mean], n };
  const sd = Math.sqrt(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - 1));
  const h = (T95[n - 2] ?? 1.96) * sd / Math.sqrt(n);
  const lo = clip ? Math.max(0, mean - h) : mean - h;
  const hi = clip ? Math.min(1, mean + h) : mean + h;
  return { mean, ci95: [lo, hi], n };
}

export type Row = Record<string, number | [number, number] | string | null>;
export interface SeriesSpec { key: string; label: string }

/** Rows by step for one metric: `<variant>` = mean over seeds, `<variant>_band` = its interval, `<variant>_n` = seeds. */
export function ablationCurves(s: AblationSummary, metric: CurveMetric, variant: string): { rows: Row[]; series: SeriesSpec[] } {
  const spec = CURVE_METRICS.find((m) => m.key === metric)!;
  const variants = s.variants.filter((v) => v.name !== 'base' && (variant === 'all' || v.name === variant));
  // A variant still running (not yet in `variants`) has runs but no summary entry: its curves are still shown.
  const names = variant === 'all' ? [...new Set(s.runs.filter((r) => r.variant !== 'base').map((r) => r.variant))] : [variant];
  const byStep = new Map<number, Row>();
  const series: SeriesSpec[] = [];
  for (const name of names) {
    const values = new Map<number, number[]>();
    for (const run of s.runs.filter((r) => r.variant === name)) {
      for (const point of spec.from === 'evals' ? run.evals : run.curve) {
        const v = point[metric];
        const step = point.step;
        if (typeof v !== 'number' || typeof step !== 'number') continue;
        values.set(step, [...(values.get(step) ?? []), v]);
      }
    }
    if (values.size === 0) continue;
    series.push({ key: name, label: variants.find((v) => v.name === name)?.label ?? name });
    for (const [step, xs] of values) {
      const row = byStep.get(step) ?? { step };
      const e = seedInterval(xs, metric !== 'reward');
      row[name] = e.mean; row[`${name}_band`] = e.ci95; row[`${name}_n`] = e.n;
      byStep.set(step, row);
    }
  }
  return { rows: [...byStep.values()].sort((a, b) => (a.step as number) - (b.step as number)), series };
}

// ---- private rehearsal sweep --------------------------------------------------------------------------------

export type TtsMetric = 'success' | 'checklist';

/** Rows by N: one series per (strategy, memory); N = 0 (no rehearsal) starts every line. */
export function ttsSweep(t: TtsResult, metric: TtsMetric, memory: string): { rows: Row[]; series: SeriesSpec[] } {
  const none = t.configs.find((c) => c.n === 0);
  const combos = [...new Set(t.configs.filter((c) => c.n > 0 && (memory === 'both' || c.memory === memory)).map((c) => `${c.strategy}|${c.memory}`))];
  const byN = new Map<number, Row>();
  const series: SeriesSpec[] = [];
  for (const combo of combos) {
    const [strategy, mem] = combo.split('|') as [string, string];
    const key = `${strategy}_${mem}`.replace(/-/g, '_');
    series.push({ key, label: `${strategy}, memory ${mem}` });
    const points = [...(none ? [none] : []), ...t.configs.filter((c) => c.strategy === strategy && c.memory === mem)];
    for (const c of points) {
      const row = byN.get(c.n) ?? { n: c.n };
      row[key] = c[metric].mean; row[`${key}_band`] = c[metric].ci95;
      byN.set(c.n, row);
    }
  }
  return { rows: [...byN.values()].sort((a, b) => (a.n as number) - (b.n as number)), series };
}

/** "envace-small" from "models/envace-small". */
export const modelName = (path: string) => path.replace(/^.*\//, '');
