// Fuzz surface of the results JSON the pages read (both page crashes in the history came from here): the
// committed docs/results files (ablation summaries, budget sweeps, rehearsal sweeps, eval reports) and the
// models' eval.json, damaged (fields dropped, retyped or added — prototype names included — or the text cut
// and edited), then read by the pages' own readers (src/app/components/bench/readers.ts) and, when accepted,
// turned into chart and table rows by the same builders the Benchmarks and Models pages call, for every
// option the pages offer. Readers and builders have no documented throw: any exception is a crash.
// Violations: a row whose x value is not a finite number, a cell that is not a finite number / string / null /
// [lo, hi] pair, a series key missing from every row (a key lost to '__proto__' or overwritten), or an eval.json
// evaluation neither drawn nor listed as a problem.

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import {
  ablationCurves, budgetRows, MECHANISM_FIDELITY, mechanismCorrelation, mechanismPoints, orderingRows, CURVE_METRICS, evalSuiteRows, heldOutRows, readAblationSummary, readBudgetSweep, readEvalFile, readEvalJson,
  readTtsResult, ttsSweep, type Row, type SeriesSpec,
} from '../../app/components/bench/readers';
import { shapeHeldOutCurve } from '../../app/components/models/pretrainCurve';
import { FuzzRng, mutateN, mutateValue, PROTO_KEYS, protoNamesAt, renameKey, setOwn } from './gen';
import { FuzzViolation, type Surface } from './harness';

type Kind = 'summary' | 'tts' | 'eval' | 'model-eval';
interface CorpusFile { path: string; kind: Kind; text: string; json: unknown }

let corpus: CorpusFile[] | null = null;

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => { const p = join(dir, f); return statSync(p).isDirectory() ? walk(p) : [p]; });
}

function resultsCorpus(): CorpusFile[] {
  if (corpus) return corpus;
  const root = process.cwd();
  const files: { path: string; kind: Kind }[] = [];
  for (const p of walk(join(root, 'docs/results'))) {
    const rel = relative(root, p);
    if (/\/summary\.json$/.test(rel)) files.push({ path: rel, kind: 'summary' });
    else if (/^docs\/results\/tts-[^/]*\.json$/.test(rel)) files.push({ path: rel, kind: 'tts' });
    else if (/^docs\/results\/eval\/[^/]*\.json$/.test(rel)) files.push({ path: rel, kind: 'eval' });
  }
  for (const m of readdirSync(join(root, 'models'))) {
    const p = join(root, 'models', m, 'eval.json');
    try { statSync(p); files.push({ path: relative(root, p), kind: 'model-eval' }); } catch { /* this folder ships none */ }
  }
  corpus = files.map((f) => { const text = readFileSync(f.path, 'utf8'); return { ...f, text, json: JSON.parse(text) }; });
  if (!corpus.some((c) => c.kind === 'summary') || !corpus.some((c) => c.kind === 'model-eval')) throw new Error('results corpus: docs/results or models/*/eval.json missing');
  return corpus;
}

/** A value somewhere inside v replaced by a hostile one: a prototype name as a key, a huge number, a wrong type. */
function hostile(r: FuzzRng, v: unknown, depth = 0): unknown {
  if (v === null || typeof v !== 'object' || depth > 6 || r.bool(0.2)) {
    return r.pick([1e308, -1e308, -1, 2, 0.5, '', 'x', null, true, [], {}, [0.1, 0.9], { mean: 0.5, ci95: [0.4, 0.6] }, 'step', 'n', '__proto__']);
  }
  if (Array.isArray(v)) {
    const a = [...v];
    if (!a.length) return a;
    const i = r.int(a.length);
    a[i] = hostile(r, a[i], depth + 1);
    return a;
  }
  const o = { ...(v as Record<string, unknown>) };
  const keys = Object.keys(o);
  if (!keys.length || r.bool(0.15)) return setOwn(o, r.pick(PROTO_KEYS), r.pick(keys.length ? [o[r.pick(keys)]] : [1]));
  const k = r.pick(keys);
  if (r.bool(0.1)) return renameKey(o, k, r.pick(PROTO_KEYS));
  return setOwn(o, k, hostile(r, o[k], depth + 1));
}

interface Input { kind: Kind; path: string; value: unknown; how: string }

function check(rows: Row[], series: SeriesSpec[], x: string, what: string): void {
  for (const row of rows) {
    if (!Object.hasOwn(row, x) || typeof row[x] !== 'number' || !Number.isFinite(row[x])) throw new FuzzViolation('bad-x', `${what}: a row whose ${x} is ${JSON.stringify(row[x])}`);
    for (const [k, c] of Object.entries(row)) {
      const ok = c === null || typeof c === 'string' || (typeof c === 'number' && Number.isFinite(c))
        || (Array.isArray(c) && c.length === 2 && c.every((y) => typeof y === 'number' && Number.isFinite(y)));
      if (!ok) throw new FuzzViolation('bad-cell', `${what}: cell ${k} = ${JSON.stringify(c)}`);
    }
  }
  for (const s of series) {
    if (rows.length && !rows.some((row) => Object.hasOwn(row, s.key))) throw new FuzzViolation('series-without-rows', `${what}: series ${JSON.stringify(s.key)} has no cell in any row`);
  }
}

/** Everything the pages draw from one accepted file, for every option they offer; returns what was drawn. */
function draw(kind: Kind, value: unknown): string {
  if (kind === 'summary') {
    const a = readAblationSummary(value);
    const b = readBudgetSweep(value);
    if (a) {
      const variants = ['all', ...new Set(a.runs.filter((r) => r.variant !== 'base').map((r) => r.variant))];
      for (const m of CURVE_METRICS) for (const v of variants) { const c = ablationCurves(a, m.key, v); check(c.rows, c.series, 'step', `ablation ${m.key}/${v}`); }
      // what the chart's note reads
      void a.protocol.seeds.join(', ');
      // the mechanism scatter beside it
      for (const f of MECHANISM_FIDELITY) {
        const pts = mechanismPoints(a, f.key);
        for (const p of pts) if (![p.dFidelity, p.dSuccess, p.fromStep, p.toStep].every(Number.isFinite)) throw new FuzzViolation('bad-mechanism-point', JSON.stringify(p));
        const c = mechanismCorrelation(pts);
        if (c && !(Math.abs(c.r) <= 1 + 1e-9 && c.ci95[0] <= c.ci95[1] + 1e-12)) throw new FuzzViolation('bad-correlation', JSON.stringify(c));
      }
      // the verdict table beside it
      for (const m of ['success', 'outcome', 'checklist', 'pass_at_k']) for (const o of orderingRows(a, m)) {
        if (![o.diff.mean, ...o.diff.ci95, o.mde].every(Number.isFinite) || o.mde < 0) throw new FuzzViolation('bad-ordering', `ordering ${o.a} > ${o.b}: ${JSON.stringify(o)}`);
      }
    }
    if (b) {
      for (const metric of ['success', 'checklist'] as const) for (const x of ['real_calls', 'p'] as const) {
        const c = budgetRows(b.sweep, metric, x);
        check(c.rows.filter((row) => x !== 'p' || row.p !== null), c.series, x, `budget ${metric}/${x}`);
      }
    }
    return a && b ? 'drawn:ablation+budget' : a ? 'drawn:ablation' : b ? 'drawn:budget' : 'refused:summary';
  }
  if (kind === 'tts') {
    const t = readTtsResult(value);
    if (!t) return 'refused:tts';
    for (const metric of ['success', 'checklist'] as const) for (const mem of ['both', 'full', 'best-calls', ...new Set(t.configs.map((c) => c.memory))]) {
      const c = ttsSweep(t, metric, mem);
      check(c.rows, c.series, 'n', `tts ${metric}/${mem}`);
    }
    return 'drawn:tts';
  }
  if (kind === 'eval') {
    const e = readEvalJson(value);
    if (!e) return 'refused:eval';
    for (const m of ['success', 'outcome', 'checklist', 'pass_at_k'] as const) {
      for (const row of evalSuiteRows([{ file: 'x.json', data: e }], m)) {
        for (const k of ['shipped', 'shipped_band', 'shipped_err'] as const) {
          const c = row[k];
          const ok = typeof c === 'number' ? Number.isFinite(c) : Array.isArray(c) && c.length === 2 && c.every((y) => typeof y === 'number' && Number.isFinite(y));
          if (!ok) throw new FuzzViolation('bad-cell', `eval ${m}: ${k} = ${JSON.stringify(c)}`);
        }
      }
    }
    return 'drawn:eval';
  }
  const { file, problems } = readEvalFile(value);
  if (!file) return 'refused:model-eval';
  const rows = heldOutRows(file);
  // Every (world, mode) of the file is a row or a listed problem: none is lost to a prototype-named key.
  const evals = (value as { evals?: unknown }).evals;
  const pairs = evals && typeof evals === 'object' && !Array.isArray(evals)
    ? Object.values(evals).reduce((n: number, m) => n + (m && typeof m === 'object' && !Array.isArray(m) ? Object.keys(m).length : 0), 0) : 0;
  const modeProblems = problems.filter((p) => p.endsWith('has a missing or non-numeric field')).length;
  if (rows.length + modeProblems !== pairs) throw new FuzzViolation('evaluation-lost', `eval.json: ${pairs} evaluations, ${rows.length} rows and ${modeProblems} refused`);
  for (const row of rows) {
    for (const k of ['tasks', 'k', 'success', 'outcome', 'checklist'] as const) if (!Number.isFinite(row[k])) throw new FuzzViolation('bad-cell', `eval.json ${row.key}: ${k} = ${row[k]}`);
  }
  if (file.heldOutCurve) {
    const c = shapeHeldOutCurve(file.heldOutCurve);
    check(c.rows, c.series, 'cpuMinutes', 'pretraining curve');
  }
  return problems.length ? 'drawn:model-eval-partly' : 'drawn:model-eval';
}

export const resultsSurface: Surface<Input> = {
  name: 'results-json',
  about: 'the results JSON the pages read (docs/results summaries, budget and rehearsal sweeps, eval reports; models/*/eval.json), damaged, through the pages\' readers and row builders for every chart option; any throw is a crash; violations: a row without a finite x, a malformed cell, a series with no cells',
  setup: () => { resultsCorpus(); },
  generate(r) {
    // A kind first, then a file of it: the few models' eval.json files get as many cases as the many summaries.
    const kind = r.pick(['summary', 'tts', 'eval', 'model-eval'] as const);
    const f = r.pick(resultsCorpus().filter((c) => c.kind === kind));
    const form = r.int(10);
    if (form === 0) return { kind: f.kind, path: f.path, value: f.json, how: 'as committed' };
    if (form <= 2) { // the text cut or edited, when it still parses
      const text = mutateN(r, f.text, 2);
      try { return { kind: f.kind, path: f.path, value: JSON.parse(text), how: 'text edited' }; } catch { return { kind: f.kind, path: f.path, value: text, how: 'text edited (not JSON: the string itself)' }; }
    }
    if (form === 3 || form === 4) { // prototype names at one depth: the world, mode, variant or metric names a reader files by
      const depth = r.int(4);
      return { kind: f.kind, path: f.path, value: JSON.parse(JSON.stringify(protoNamesAt(r, f.json, depth))), how: `prototype-named keys at depth ${depth}` };
    }
    let v: unknown = f.json;
    const n = r.range(1, 4);
    for (let i = 0; i < n; i++) v = r.bool(0.5) ? hostile(r, v) : mutateValue(r, v);
    // A file's JSON goes through JSON.parse in the page (fetch().json() or the bundler): own keys only.
    return { kind: f.kind, path: f.path, value: JSON.parse(JSON.stringify(v) ?? 'null'), how: `${n} field edits` };
  },
  run: ({ kind, value }) => draw(kind, value),
  show: ({ path, how, value }) => `${path} (${how}): ${(JSON.stringify(value) ?? 'undefined').slice(0, 300)}`,
};
