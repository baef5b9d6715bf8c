// The readers of the results JSON the Benchmarks and Models pages draw (issue 21): every file is checked field by
// field before a chart or table touches it, so a malformed or foreign JSON file is skipped (with the reason)
// instead of crashing the page, and the row builders the charts call. Pure (no Vite glob, no DOM): the fuzzer
// (src/bench/fuzz/results.ts) drives exactly these functions. results.ts loads the committed files through them.
// The formats are docs/results/README.md (`envace-ablation-summary/1`, the eval JSON) and src/tts/README.md.

import { minimumDetectableEffect, pearson, tInterval } from '../../../bench/stats';

export interface Estimate { mean: number; ci95: [number, number] }

export interface AblationRun {
  variant: string; seed: number;
  curve: Record<string, number | boolean | null>[];
  evals: Record<string, number | null>[];
  /** The held-out evaluation of the run's end (the summary's protocol). */
  report?: { success?: Estimate };
  /** The run's end measured by `npm run mechanism` (fidelity fields as in the scheduled evaluations). */
  mechanism?: Record<string, number | null | object>;
}
export interface AblationSummary {
  format: string;
  protocol: { world: string; n_tasks: number; k: number; seeds: number[]; steps: number; model: string; config?: Record<string, unknown> };
  variants: { name: string; label: string; seeds: number[]; metrics: Record<string, Estimate> }[];
  runs: AblationRun[];
  /** The starting model measured by `npm run mechanism`. */
  mechanism?: { start: Record<string, number | null | object> };
}
export interface TtsConfig { strategy: string; n: number; memory: string; tasks: number; success: Estimate; checklist: Estimate; passAtK: Estimate; promptTokens?: { firstTurn: number } }
export interface TtsResult {
  model: string; world: string; tasksDone: number; memoryTokens: number;
  /** The policy was trained with rehearsal memories in its Act prompts (npm run sft --memory-pool). */
  memoryTrained?: boolean;
  /** Where the attempts' Rehearse role took its example calls (absent: a sweep from before the field, which used 'oracle'). */
  hintSource?: 'episode' | 'oracle';
  protocol: { k: number; temperature: number; topP: number; seed: number }; assessor: string; configs: TtsConfig[] }

/** A sweep's hint source in words, for every place a sweep is named. */
export function ttsHintLabel(t: Pick<TtsResult, 'hintSource'>): string {
  return (t.hintSource ?? 'oracle') === 'oracle' ? 'oracle hints: the test task\'s reference' : 'episode hints: no gold';
}
export interface EvalJson { protocol: string; model: string; world: string; n_tasks: number; k: number; seed: number; difficulty?: number | string; success: Estimate; outcome: Estimate; checklist: Estimate; pass_at_k: Estimate }

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

// ---- readers: a value of the format, or null ---------------------------------------------------------------

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isStr = (v: unknown): v is string => typeof v === 'string';
const isNumList = (v: unknown): v is number[] => Array.isArray(v) && v.every(isNum);
/** A share with its 95% interval: every number in [0, 1], lo ≤ hi (all the metrics these files carry are shares). */
export function isEstimate(v: unknown): v is Estimate {
  if (!isObj(v) || !isNum(v.mean) || !Array.isArray(v.ci95) || v.ci95.length !== 2) return false;
  const [lo, hi] = v.ci95 as unknown[];
  return isNum(lo) && isNum(hi) && lo <= hi && [v.mean, lo, hi].every((x) => (x as number) >= 0 && (x as number) <= 1);
}
const isEstimates = (v: unknown): v is Record<string, Estimate> => isObj(v) && Object.values(v).every(isEstimate);

function isProtocol(p: unknown): p is AblationSummary['protocol'] {
  return isObj(p) && isStr(p.world) && isNum(p.n_tasks) && isNum(p.k) && isNumList(p.seeds) && isNum(p.steps) && isStr(p.model)
    && (p.config === undefined || isObj(p.config));
}

/** An `envace-ablation-summary/…` file (its budget field is read apart, by readBudgetSweep). */
export function readAblationSummary(x: unknown): AblationSummary | null {
  if (!isObj(x) || !isStr(x.format) || !x.format.startsWith('envace-ablation-summary/') || !isProtocol(x.protocol)) return null;
  if (!Array.isArray(x.variants) || !x.variants.every((v) => isObj(v) && isStr(v.name) && isStr(v.label) && isNumList(v.seeds) && isEstimates(v.metrics))) return null;
  if (!Array.isArray(x.runs) || !x.runs.every((r) => isObj(r) && isStr(r.variant) && isNum(r.seed)
    && Array.isArray(r.curve) && r.curve.every(isObj) && Array.isArray(r.evals) && r.evals.every(isObj))) return null;
  return x as unknown as AblationSummary;
}

/** The `budget` field of a summary (format `envace-budget-sweep/…`) with the summary's protocol, or null. */
export function readBudgetSweep(x: unknown): { protocol: AblationSummary['protocol']; sweep: BudgetSweep } | null {
  if (!isObj(x) || !isProtocol(x.protocol) || !isObj(x.budget)) return null;
  const b = x.budget;
  if (!isStr(b.format) || !b.format.startsWith('envace-budget-sweep/') || !isStr(b.variant) || !isStr(b.label) || !isNumList(b.seeds) || !isNum(b.steps)) return null;
  if (!isObj(b.base) || !isNum(b.base.real_calls) || !isEstimates(b.base.metrics)) return null;
  if (!Array.isArray(b.points) || !b.points.every((pt) => isObj(pt) && isNum(pt.real_fraction) && isNumList(pt.seeds)
    && isObj(pt.real_calls) && isNum(pt.real_calls.mean) && isNumList(pt.real_calls.per_seed) && isEstimates(pt.metrics))) return null;
  return { protocol: x.protocol, sweep: b as unknown as BudgetSweep };
}

/** A private-rehearsal sweep (`npm run tts -- --json`). */
export function readTtsResult(x: unknown): TtsResult | null {
  if (!isObj(x) || !isStr(x.model) || !isStr(x.world) || !isNum(x.tasksDone) || !isNum(x.memoryTokens) || !isStr(x.assessor)) return null;
  if (x.memoryTrained !== undefined && typeof x.memoryTrained !== 'boolean') return null;
  if (x.hintSource !== undefined && x.hintSource !== 'episode' && x.hintSource !== 'oracle') return null;
  const p = x.protocol;
  if (!isObj(p) || !isNum(p.k) || !isNum(p.temperature) || !isNum(p.topP) || !isNum(p.seed)) return null;
  if (!Array.isArray(x.configs) || !x.configs.every((c) => isObj(c) && isStr(c.strategy) && isNum(c.n) && isStr(c.memory) && isNum(c.tasks)
    && isEstimate(c.success) && isEstimate(c.checklist) && isEstimate(c.passAtK))) return null;
  return x as unknown as TtsResult;
}

/** An `npm run eval -- --json` report; other JSON dropped into eval/ (e.g. a fidelity report) is not one. */
export function readEvalJson(x: unknown): EvalJson | null {
  if (!isObj(x) || !isStr(x.protocol) || !isStr(x.model) || !isStr(x.world) || !isNum(x.n_tasks) || !isNum(x.k)) return null;
  if (x.difficulty !== undefined && !isNum(x.difficulty) && !isStr(x.difficulty)) return null;
  if (!(['success', 'outcome', 'checklist', 'pass_at_k'] as const).every((m) => isEstimate(x[m]))) return null;
  return x as unknown as EvalJson;
}
export function isEvalJson(x: unknown): x is EvalJson { return readEvalJson(x) !== null; }

// ---- the Models page's eval.json -----------------------------------------------------------------------------

/** One evaluation of a model folder's eval.json: a world in one mode (src/agent/evaluate.ts EvalResult, abridged). */
export interface HeldOutEval {
  mode: string; tasks: number; k: number; success: number; outcome: number; checklist: number; passAtK: number;
  fidelity?: { calls: number; exactRate: number; meanF1: number; errorAgreeRate: number };
  terminations?: Record<string, number>;
}
export interface EvalFile {
  heldOutTasks?: number; note?: string; evals: Record<string, Record<string, HeldOutEval>>;
  /** Held-out success against cumulative pretraining CPU-minutes (src/app/components/models/pretrainCurve.ts). */
  heldOutCurve?: unknown;
}

/**
 * A folder's eval.json as the Models page shows it: evaluations with a wrong field are left out and listed in
 * `problems`; a file that is not an object at all is null. heldOutCurve is checked point by point when drawn.
 */
export function readEvalFile(x: unknown): { file: EvalFile | null; problems: string[] } {
  if (!isObj(x)) return { file: null, problems: ['eval.json must hold a JSON object'] };
  const problems: string[] = [];
  // World and mode names come from the file: a null-prototype record makes 'constructor' or '__proto__' a world
  // like any other instead of an assignment into Object (the fuzzer's crash of issue 39).
  const evals: Record<string, Record<string, HeldOutEval>> = Object.create(null);
  if (x.evals !== undefined && !isObj(x.evals)) problems.push('evals must be an object of worlds');
  for (const [world, modes] of Object.entries(isObj(x.evals) ? x.evals : {})) {
    if (!isObj(modes)) { problems.push(`evals.${world} must be an object of modes`); continue; }
    for (const [mode, e] of Object.entries(modes)) {
      const f = isObj(e) ? e.fidelity : undefined;
      const ok = isObj(e) && isNum(e.tasks) && isNum(e.k) && isNum(e.success) && isNum(e.outcome) && isNum(e.checklist)
        && (f === undefined || (isObj(f) && isNum(f.calls) && isNum(f.meanF1) && isNum(f.exactRate)));
      if (!ok) { problems.push(`evals.${world}.${mode} has a missing or non-numeric field`); continue; }
      (evals[world] ??= Object.create(null) as Record<string, HeldOutEval>)[mode] = e as unknown as HeldOutEval;
    }
  }
  const file: EvalFile = { evals };
  if (isNum(x.heldOutTasks)) file.heldOutTasks = x.heldOutTasks;
  if (isStr(x.note)) file.note = x.note;
  if (x.heldOutCurve !== undefined) file.heldOutCurve = x.heldOutCurve;
  return { file, problems };
}

/** The rows of the Models page's held-out table (numbers formatted by the page). */
export function heldOutRows(f: EvalFile): { key: string; world: string; mode: string; tasks: number; k: number; success: number; outcome: number; checklist: number; fieldF1: number | null; exact: number | null }[] {
  return Object.entries(f.evals).flatMap(([world, modes]) => Object.entries(modes).map(([mode, e]) => {
    const fid = e.fidelity && e.fidelity.calls > 0 ? e.fidelity : null;
    return { key: `${world}/${mode}`, world, mode, tasks: e.tasks, k: e.k, success: e.success, outcome: e.outcome, checklist: e.checklist, fieldF1: fid ? fid.meanF1 : null, exact: fid ? fid.exactRate : null };
  }));
}

// ---- row builders the charts call ----------------------------------------------------------------------------

/** Sets a row cell as an own property: series keys come from data, and '__proto__' must be a cell, not a prototype. */
function put(row: Row, k: string, v: Row[string]): void {
  Object.defineProperty(row, k, { value: v, writable: true, enumerable: true, configurable: true });
}

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

/** Steps in the trailing moving average of per-step training success (one step is 8 tasks: too noisy to read raw). */
export const TRAIN_SMOOTH = 25;

/**
 * What a training curve can show: the summary's held-out evaluation (`report`: the base model at step 0, each run's
 * end at its last step, per seed), scheduled evaluations (`evals`) or per-step training metrics (`curve`).
 */
export const CURVE_METRICS = [
  { key: 'heldOut', short: 'held-out success', label: "held-out success (the ablation's evaluation; step 0: the base model)", from: 'report' },
  { key: 'success', short: 'success (scheduled eval)', label: 'success (scheduled eval)', from: 'evals' },
  { key: 'checklist', short: 'checklist (scheduled eval)', label: 'checklist (scheduled eval)', from: 'evals' },
  { key: 'recallF1', short: 'recall F1 (scheduled eval)', label: 'recall fidelity F1 (scheduled eval)', from: 'evals' },
  { key: 'inferenceF1', short: 'inference F1 (scheduled eval)', label: 'inference fidelity F1 (scheduled eval)', from: 'evals' },
  { key: 'fidelityF1', short: 'fidelity F1 (training step)', label: 'rehearsal fidelity F1 (training step)', from: 'curve' },
  { key: 'reward', short: 'reward (training step)', label: 'reward (training step)', from: 'curve' },
  { key: 'trainSuccess', short: 'training success (smoothed)', label: `training-rollout success (moving average of ${TRAIN_SMOOTH} steps; in rehearsal arms the rollouts saw imagined results)`, from: 'curve' },
] as const;
export type CurveMetric = (typeof CURVE_METRICS)[number]['key'];

/**
 * Mean and 95% t-interval over seeds, clipped to [0, 1] for shares. One seed: the band is the point (no spread
 * to estimate). Two seeds give t = 12.7: wide bands are the honest answer to "how sure after two seeds".
 */
export function seedInterval(xs: number[], clip: boolean): Estimate & { n: number } {
  const { mean, ci95: [lo, hi] } = tInterval(xs);
  return { mean, ci95: clip ? [Math.max(0, lo), Math.min(1, hi)] : [lo, hi], n: xs.length };
}

export type Row = Record<string, number | [number, number] | string | null>;
export interface SeriesSpec { key: string; label: string }

/** A run's held-out success (the summary's evaluation), or null. */
function heldOutSuccess(s: AblationSummary, variant: string, seed: number): number | null {
  const r = s.runs.find((x) => x.variant === variant && x.seed === seed);
  return r && isObj(r.report) && isEstimate(r.report.success) ? r.report.success.mean : null;
}

/**
 * The order the training-curves chart offers ablation summaries in, its first being the default: a competent
 * starter's before the weak tiny/small policies' (issue 24), then the most training behind it (trained runs ×
 * steps: the powered ablation's few long runs before a pilot's many short ones, issue 20 §4), then path order.
 */
export function ablationOrder(a: { file: string; data: AblationSummary }, b: { file: string; data: AblationSummary }): number {
  const trained = (x: AblationSummary) => x.runs.filter((r) => r.variant !== 'base').length * x.protocol.steps;
  // Of two summaries of the same runs (e.g. a second evaluation protocol over imported runs), the one that has the
  // training curves.
  const curves = (x: AblationSummary) => x.runs.filter((r) => r.curve.length > 0).length;
  return Number(isStarter(b.data.protocol.model)) - Number(isStarter(a.data.protocol.model)) || trained(b.data) - trained(a.data)
    || curves(b.data) - curves(a.data) || a.file.localeCompare(b.file);
}

/** A shipped starter policy (models/files-starter, models/retail-starter), not its trained descendants. */
export function isStarter(model: string | undefined): boolean { return /(^|\/)(files|retail)-starter\/?$/.test(model ?? ''); }

/** Rows by step for one metric: `<variant>` = mean over seeds, `<variant>_band` = its interval, `<variant>_n` = seeds. */
export function ablationCurves(s: AblationSummary, metric: CurveMetric, variant: string): { rows: Row[]; series: SeriesSpec[] } {
  const spec = CURVE_METRICS.find((m) => m.key === metric)!;
  const variants = s.variants.filter((v) => v.name !== 'base' && (variant === 'all' || v.name === variant));
  // A variant still running (not yet in `variants`) has runs but no summary entry: its curves are still shown.
  const names = variant === 'all' ? [...new Set(s.runs.filter((r) => r.variant !== 'base').map((r) => r.variant))] : [variant];
  const byStep = new Map<number, Row>();
  const series: SeriesSpec[] = [];
  for (const name of names) {
    // A variant named like the x key would overwrite it: such a series is not drawn.
    if (name === 'step') continue;
    const values = new Map<number, number[]>();
    const add = (step: unknown, v: unknown) => { if (isNum(step) && isNum(v)) values.set(step, [...(values.get(step) ?? []), v]); };
    for (const run of s.runs.filter((r) => r.variant === name)) {
      if (spec.from === 'report') {
        // Paired by seed: a run is drawn only with the base model evaluated on its seed.
        const before = heldOutSuccess(s, 'base', run.seed), after = heldOutSuccess(s, name, run.seed);
        if (before !== null && after !== null) { add(0, before); add(s.protocol.steps, after); }
        continue;
      }
      const points = spec.from === 'evals' ? run.evals : run.curve;
      if (metric === 'trainSuccess') {
        const xs = points.filter((p) => isNum(p.step) && isNum(p.trainSuccess)).sort((a, b) => (a.step as number) - (b.step as number));
        let sum = 0;
        xs.forEach((p, i) => {
          sum += p.trainSuccess as number;
          if (i >= TRAIN_SMOOTH) sum -= xs[i - TRAIN_SMOOTH]!.trainSuccess as number;
          if (i + 1 >= Math.min(TRAIN_SMOOTH, xs.length)) add(p.step, sum / Math.min(i + 1, TRAIN_SMOOTH));
        });
        continue;
      }
      for (const point of points) add(point.step, point[metric]);
    }
    let drawn = false;
    for (const [step, xs] of values) {
      const e = seedInterval(xs, metric !== 'reward');
      // Values near the float limit overflow the mean or the spread: such a point is not drawn.
      if (!Number.isFinite(e.mean) || !e.ci95.every(Number.isFinite)) continue;
      const row = byStep.get(step) ?? { step };
      put(row, name, e.mean); put(row, `${name}_band`, e.ci95); put(row, `${name}_n`, e.n);
      byStep.set(step, row);
      drawn = true;
    }
    if (drawn) series.push({ key: name, label: variants.find((v) => v.name === name)?.label ?? name });
  }
  return { rows: [...byStep.values()].sort((a, b) => (a.step as number) - (b.step as number)), series };
}

/** One of the paper's orderings ("A > B") as the ablation summary states it, with its minimum detectable effect. */
export interface OrderingRow { a: string; b: string; metric: string; diff: { mean: number; ci95: [number, number] }; verdict: string; mde: number; chainLink: boolean;
  /** The seeds the difference is paired over (absent in summaries where every variant had every seed). */
  seeds?: number[];
  /** Set for a comparison outside the paper's chain: the question it answers (src/cli/ablation.ts OWN_QUESTIONS). */
  question?: string }

const VERDICTS = ['reproduced', 'not reproduced', 'inconclusive'];
/** A difference of two shares: every number in [-1, 1], lo ≤ hi. */
const isDiff = (v: unknown): v is Estimate => isObj(v) && isNum(v.mean) && Array.isArray(v.ci95) && v.ci95.length === 2
  && isNum(v.ci95[0]) && isNum(v.ci95[1]) && v.ci95[0] <= v.ci95[1] && [v.mean, v.ci95[0], v.ci95[1]].every((x) => Math.abs(x as number) <= 1);

/**
 * The summary's orderings on one metric, well-formed ones only (a malformed entry is left out, the rest shown).
 * Summaries written before the MDE was stored get it computed from their interval (the same formula).
 */
export function orderingRows(s: AblationSummary, metric: string): OrderingRow[] {
  const raw = (s as unknown as { orderings?: unknown }).orderings;
  if (!Array.isArray(raw)) return [];
  const rows: OrderingRow[] = [];
  for (const o of raw) {
    if (!isObj(o) || !isStr(o.a) || !isStr(o.b) || o.metric !== metric || !isDiff(o.diff) || !isStr(o.verdict) || !VERDICTS.includes(o.verdict)) continue;
    const mde = isNum(o.mde) && o.mde >= 0 ? o.mde : minimumDetectableEffect(o.diff.ci95);
    rows.push({ a: o.a, b: o.b, metric, diff: o.diff, verdict: o.verdict, mde, chainLink: o.chain_link === true, ...(isNumList(o.seeds) ? { seeds: o.seeds } : {}), ...(isStr(o.question) && o.question.length <= 200 ? { question: o.question } : {}) });
  }
  return rows;
}

// ---- the mechanism: does training the Rehearse role move fidelity, and do fidelity gains go with Act gains? ----

export const MECHANISM_FIDELITY = [
  { key: 'fidelityF1', label: 'on-path rehearsal fidelity F1' },
  { key: 'recallF1', label: 'recall probes F1 (matching hint shown)' },
  { key: 'inferenceF1', label: 'inference probes F1 (no matching hint)' },
  { key: 'noHintsF1', label: 'hints-off probes F1' },
] as const;
export type MechanismFidelity = (typeof MECHANISM_FIDELITY)[number]['key'];

/**
 * One trained (variant, seed): its change in a fidelity measure and in success. Measured (`npm run mechanism`):
 * fidelity from the starting model to the run's end, success as the held-out evaluation against the base model of the
 * same seed (source 'measured'); else between the run's first and last scheduled evaluation (source 'scheduled').
 */
export interface MechanismPoint { variant: string; seed: number; fromStep: number; toStep: number; dFidelity: number; dSuccess: number; source: 'measured' | 'scheduled' }

const isShare = (v: unknown): v is number => isNum(v) && v >= 0 && v <= 1;

/**
 * Every trained run with the fidelity measure at both ends: measured by `npm run mechanism` where the summary has it
 * (the held-out evaluation gives the success change, paired with the same seed's base), else its first and last
 * scheduled evaluations.
 */
export function mechanismPoints(s: AblationSummary, fidelity: MechanismFidelity): MechanismPoint[] {
  const out: MechanismPoint[] = [];
  const start = isObj(s.mechanism) && isObj(s.mechanism.start) ? s.mechanism.start : null;
  for (const run of s.runs) {
    if (run.variant === 'base') continue;
    const after = heldOutSuccess(s, run.variant, run.seed), before = heldOutSuccess(s, 'base', run.seed);
    if (start && isObj(run.mechanism) && isShare(start[fidelity]) && isShare(run.mechanism[fidelity]) && after !== null && before !== null) {
      out.push({
        variant: run.variant, seed: run.seed, fromStep: 0, toStep: s.protocol.steps, source: 'measured',
        dFidelity: (run.mechanism[fidelity] as number) - (start[fidelity] as number), dSuccess: after - before,
      });
      continue;
    }
    const evals = run.evals.filter((e) => isNum(e.step) && isShare(e.success) && isShare(e[fidelity])).sort((a, b) => (a.step as number) - (b.step as number));
    if (evals.length < 2) continue;
    const first = evals[0]!, last = evals[evals.length - 1]!;
    if (first.step === last.step) continue;
    out.push({
      variant: run.variant, seed: run.seed, fromStep: first.step as number, toStep: last.step as number,
      dFidelity: (last[fidelity] as number) - (first[fidelity] as number), dSuccess: (last.success as number) - (first.success as number), source: 'scheduled',
    });
  }
  return out;
}

/**
 * Pearson correlation of the points' fidelity and success changes, with the Fisher-z 95% interval (tanh(atanh r ±
 * 1.96/√(n−3))). Not a bootstrap over runs: with a handful of runs that resamples a few distinct points and gave
 * [0.93, 1.00] for r = 0.96 from 4 runs, where Fisher's interval is [0.03, 1.00]. Null under 4 runs or when either
 * change is constant: no correlation to state. Runs of several arms are pooled, so a difference between arms alone
 * can make r large.
 */
export function mechanismCorrelation(points: MechanismPoint[]): { r: number; ci95: [number, number]; n: number } | null {
  const n = points.length;
  if (n < 4) return null;
  const r = pearson(points.map((p) => p.dFidelity), points.map((p) => p.dSuccess));
  if (!Number.isFinite(r)) return null;
  // |r| = 1 exactly has no finite z; clamp so the interval is the point.
  const z = Math.atanh(Math.max(-1 + 1e-12, Math.min(1 - 1e-12, r))), h = 1.959964 / Math.sqrt(n - 3);
  return { r, ci95: [Math.tanh(z - h), Math.tanh(z + h)], n };
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
    if (key === 'n') continue; // would overwrite the x key
    series.push({ key, label: `${strategy}, memory ${mem}` });
    const points = [...(none ? [none] : []), ...t.configs.filter((c) => c.strategy === strategy && c.memory === mem)];
    for (const c of points) {
      const row = byN.get(c.n) ?? { n: c.n };
      put(row, key, c[metric].mean); put(row, `${key}_band`, c[metric].ci95);
      byN.set(c.n, row);
    }
  }
  return { rows: [...byN.values()].sort((a, b) => (a.n as number) - (b.n as number)), series };
}

/** "envace-small" from "models/envace-small". */
export const modelName = (path: string) => path.replace(/^.*\//, '');

// ---- evaluation suites ------------------------------------------------------------------------------------

export type EvalMetric = 'success' | 'outcome' | 'checklist' | 'pass_at_k';

/** The evaluation-suites chart's rows for the shipped eval reports (the page appends the user's own run). */
export function evalSuiteRows(evals: { file: string; data: EvalJson }[], metric: EvalMetric): Row[] {
  return evals.map((e) => {
    const d = e.data;
    const est = d[metric];
    return {
      label: `${modelName(d.model).replace(/^envace-/, '')} ${d.world} ${d.k === 1 && !/Avg/.test(d.protocol) ? 'greedy' : `Avg@${d.k}`}${typeof d.difficulty === 'number' ? ` d${d.difficulty}` : ''}${d.n_tasks !== 100 ? ` ×${d.n_tasks}` : ''}`,
      file: e.file, shipped: est.mean, shipped_band: est.ci95, shipped_err: [est.mean - est.ci95[0], est.ci95[1] - est.mean],
    };
  });
}

/**
 * The sweep the rehearsal chart opens on: the largest full sweep of a policy trained with memories in its prompts
 * (issue 20 §3), else a competent starter's full sweep (issue 24), else the first full sweep, else the first.
 */
export function defaultSweep<T extends { file: string; data: TtsResult }>(sweeps: T[]): T | undefined {
  const full = sweeps.filter((t) => t.data.configs.length > 3);
  const trained = full.filter((t) => t.data.memoryTrained).sort((a, b) => b.data.tasksDone - a.data.tasksDone || a.file.localeCompare(b.file));
  return trained[0] ?? full.find((t) => isStarter(t.data.model)) ?? full[0] ?? sweeps[0];
}
