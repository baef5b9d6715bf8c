// A model folder's pretraining curve as the Models page draws it: eval.json's `heldOutCurve` (held-out
// success, greedy, real environment, against cumulative pretraining CPU-minutes) turned into chart rows with
// one line per world × difficulty and its 95% band. Malformed points are reported, never silently dropped
// or clamped: a curve that cannot be read says why.

import type { Row, SeriesSpec } from '../bench/results';

export type CurveDifficulty = 'all' | 1 | 2 | 3;

export interface HeldOutCurvePoint {
  step: number;
  cpuMinutes: number;
  world: string;
  difficulty: CurveDifficulty;
  success: number;
  ci95: [number, number];
  checklist: number;
}

export interface HeldOutCurve { protocol: string; tasks: number; points: HeldOutCurvePoint[] }

export interface ShapedCurve {
  rows: Row[];
  series: SeriesSpec[];
  /** One line per point that was not drawn, saying which field is wrong. */
  problems: string[];
}

export const seriesKey = (world: string, difficulty: CurveDifficulty) => `${world.replace(/[^A-Za-z0-9]/g, '_')}_d${difficulty}`;
export const seriesLabel = (world: string, difficulty: CurveDifficulty) => `${world} · ${difficulty === 'all' ? 'all tasks' : `difficulty ${difficulty}`}`;

const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isShare = (v: unknown): v is number => isNum(v) && v >= 0 && v <= 1;

/** The problems of one point (empty when it can be drawn). */
export function pointProblems(p: unknown): string[] {
  if (typeof p !== 'object' || p === null || Array.isArray(p)) return ['not an object'];
  const o = p as Record<string, unknown>;
  const out: string[] = [];
  if (!isNum(o.cpuMinutes) || o.cpuMinutes < 0) out.push(`cpuMinutes must be a number ≥ 0 (got ${JSON.stringify(o.cpuMinutes)})`);
  if (typeof o.world !== 'string' || o.world === '') out.push(`world must be a name (got ${JSON.stringify(o.world)})`);
  if (!(o.difficulty === 'all' || o.difficulty === 1 || o.difficulty === 2 || o.difficulty === 3)) out.push(`difficulty must be "all", 1, 2 or 3 (got ${JSON.stringify(o.difficulty)})`);
  if (!isShare(o.success)) out.push(`success must be in [0, 1] (got ${JSON.stringify(o.success)})`);
  const ci = o.ci95;
  if (!Array.isArray(ci) || ci.length !== 2 || !isShare(ci[0]) || !isShare(ci[1]) || ci[0] > ci[1]) out.push(`ci95 must be [lo, hi] with 0 ≤ lo ≤ hi ≤ 1 (got ${JSON.stringify(ci)})`);
  // 1e-9: an interval written with rounding must not reject its own point estimate.
  else if (isShare(o.success) && (o.success < ci[0] - 1e-9 || o.success > ci[1] + 1e-9)) out.push(`success ${o.success} lies outside its ci95 ${JSON.stringify(ci)}`);
  return out;
}

/**
 * Rows by CPU-minutes: `<world>_d<difficulty>` = success, `…_band` = its 95% interval, `…_checklist` and
 * `…_step` for the tooltip and the CSV. Series in order of first appearance; two points of one series at the
 * same CPU-minute are a problem (the second is not drawn).
 */
export function shapeHeldOutCurve(curve: unknown): ShapedCurve {
  const problems: string[] = [];
  if (typeof curve !== 'object' || curve === null || !Array.isArray((curve as { points?: unknown }).points)) {
    return { rows: [], series: [], problems: ['heldOutCurve must be an object with a points list'] };
  }
  const series: SeriesSpec[] = [];
  const byX = new Map<number, Row>();
  (curve as { points: unknown[] }).points.forEach((p, i) => {
    const bad = pointProblems(p);
    if (bad.length) { problems.push(`point ${i}: ${bad.join('; ')}`); return; }
    const q = p as HeldOutCurvePoint;
    const key = seriesKey(q.world, q.difficulty);
    if (!series.some((s) => s.key === key)) series.push({ key, label: seriesLabel(q.world, q.difficulty) });
    const row = byX.get(q.cpuMinutes) ?? { cpuMinutes: q.cpuMinutes };
    if (row[key] !== undefined) { problems.push(`point ${i}: a second ${seriesLabel(q.world, q.difficulty)} point at ${q.cpuMinutes} CPU-minutes`); return; }
    row[key] = q.success;
    row[`${key}_band`] = [q.ci95[0], q.ci95[1]];
    if (isNum(q.checklist)) row[`${key}_checklist`] = q.checklist;
    if (isNum(q.step)) row[`${key}_step`] = q.step;
    byX.set(q.cpuMinutes, row);
  });
  const rows = [...byX.values()].sort((a, b) => (a.cpuMinutes as number) - (b.cpuMinutes as number));
  return { rows, series, problems };
}
