// Statistics of the evaluation protocol: seeded percentile bootstrap over tasks (and over training seeds
// when there are several), unbiased pass@k, a paired bootstrap for differences between variants, and the
// three-way verdict on an ordering "A > B" at 95%.
//
// Values live on a grid: one row per training seed (a cluster), one column per task; a single evaluation
// is a grid with one row. The bootstrap resamples rows and columns independently with replacement (a
// two-way bootstrap for crossed seeds × tasks), so both sources of noise widen the interval: a difference
// that holds only for one lucky seed, or only on a few tasks, stays inconclusive.

import { Rng } from '../engine/rng';

export interface Estimate { mean: number; ci95: [number, number] }

export interface BootstrapOptions {
  /** Bootstrap replicates (default 2000). */
  resamples?: number;
  /** Seed of the resampling stream: same seed, same interval. */
  seed?: number;
  /** Two-sided level (default 0.95). */
  level?: number;
}

export const DEFAULT_RESAMPLES = 2000;

export function mean(xs: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < xs.length; i++) s += xs[i]!;
  return xs.length ? s / xs.length : 0;
}

/** Linear-interpolated quantile of sorted values (type 7, as numpy's default). */
export function quantile(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return NaN;
  const h = (sorted.length - 1) * q;
  const lo = Math.floor(h), hi = Math.ceil(h);
  return sorted[lo]! + (h - lo) * (sorted[hi]! - sorted[lo]!);
}

function checkGrid(grid: number[][]): void {
  if (grid.length === 0 || grid[0]!.length === 0) throw new Error('bootstrap needs at least one seed and one task');
  const n = grid[0]!.length;
  for (const [i, row] of grid.entries()) {
    if (row.length !== n) throw new Error(`bootstrap grid is ragged: row ${i} has ${row.length} tasks, row 0 has ${n}`);
    for (const v of row) if (!Number.isFinite(v)) throw new Error(`bootstrap value is not finite (${v}) in row ${i}`);
  }
}

/**
 * Mean of a seeds × tasks grid and its percentile bootstrap interval. Rows (seeds) and columns (tasks) are
 * resampled independently; with one row only tasks are resampled.
 */
export function bootstrapGrid(grid: number[][], opts: BootstrapOptions = {}): Estimate {
  checkGrid(grid);
  const B = opts.resamples ?? DEFAULT_RESAMPLES;
  const level = opts.level ?? 0.95;
  const S = grid.length, T = grid[0]!.length;
  const point = mean(grid.map((r) => mean(r)));
  const rng = new Rng(opts.seed ?? 0);
  const reps = new Float64Array(B);
  const rows = new Int32Array(S), cols = new Int32Array(T);
  for (let b = 0; b < B; b++) {
    for (let i = 0; i < S; i++) rows[i] = S === 1 ? 0 : rng.int(S);
    for (let j = 0; j < T; j++) cols[j] = rng.int(T);
    let s = 0;
    for (let i = 0; i < S; i++) {
      const row = grid[rows[i]!]!;
      for (let j = 0; j < T; j++) s += row[cols[j]!]!;
    }
    reps[b] = s / (S * T);
  }
  reps.sort();
  const a = (1 - level) / 2;
  return { mean: point, ci95: [quantile(reps, a), quantile(reps, 1 - a)] };
}

/** Bootstrap over tasks of one evaluation (one value per task). */
export function bootstrap(values: number[], opts: BootstrapOptions = {}): Estimate {
  return bootstrapGrid([values], opts);
}

/**
 * Paired bootstrap of A − B over the same seeds and tasks: the difference is formed cell by cell before
 * resampling, so the noise A and B share (a hard task, an unlucky seed) cancels.
 */
export function pairedBootstrap(a: number[][], b: number[][], opts: BootstrapOptions = {}): Estimate {
  checkGrid(a); checkGrid(b);
  if (a.length !== b.length || a[0]!.length !== b[0]!.length) {
    throw new Error(`paired bootstrap needs the same seeds and tasks: ${a.length}×${a[0]!.length} vs ${b.length}×${b[0]!.length}`);
  }
  return bootstrapGrid(a.map((row, i) => row.map((x, j) => x - b[i]![j]!)), opts);
}

/**
 * Unbiased pass@k from n samples of which c succeeded (Chen et al. 2021): 1 − C(n−c, k) / C(n, k).
 * With n = k it is 1 when any sample succeeded.
 */
export function passAtK(n: number, c: number, k: number): number {
  if (!Number.isInteger(n) || !Number.isInteger(c) || !Number.isInteger(k) || n < 1 || k < 1 || c < 0 || c > n || k > n) {
    throw new Error(`pass@k needs integers 1 ≤ k ≤ n and 0 ≤ c ≤ n (got n=${n}, c=${c}, k=${k})`);
  }
  if (n - c < k) return 1;
  let p = 1;
  for (let i = n - c + 1; i <= n; i++) p *= 1 - k / i;
  return 1 - p;
}

export type Verdict = 'reproduced' | 'not reproduced' | 'inconclusive';

/**
 * Verdict on "A > B" from the interval of A − B: reproduced when the whole interval is above 0; not
 * reproduced when none of it is (upper bound ≤ 0, which includes a difference that is exactly 0 in every
 * resample); inconclusive when it straddles 0.
 */
export function verdict(diff: Estimate): Verdict {
  const [lo, hi] = diff.ci95;
  if (lo > 0) return 'reproduced';
  if (hi <= 0) return 'not reproduced';
  return 'inconclusive';
}

export interface OrderingResult {
  a: string; b: string; metric: string; diff: Estimate; verdict: Verdict;
  /** The smallest true difference this design detects (95% two-sided, 80% power): see minimumDetectableEffect. */
  mde: number;
}

/** Paired comparison and verdict for "A > B" on one metric. */
export function compareOrdering(a: string, b: string, metric: string, gridA: number[][], gridB: number[][], opts: BootstrapOptions = {}): OrderingResult {
  const diff = pairedBootstrap(gridA, gridB, opts);
  return { a, b, metric, diff, verdict: verdict(diff), mde: minimumDetectableEffect(diff.ci95) };
}

/** Standard normal CDF (Abramowitz & Stegun 7.1.26 for erf; absolute error below 1e-7). */
export function normalCdf(z: number): number {
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * x);
  const erf = 1 - ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-x * x);
  return z >= 0 ? (1 + erf) / 2 : (1 - erf) / 2;
}

/** Inverse of normalCdf by bisection (p in (0, 1)). */
export function normalQuantile(p: number): number {
  if (!(p > 0 && p < 1)) throw new RangeError(`normalQuantile: p must be in (0, 1), got ${p}`);
  let lo = -10, hi = 10;
  for (let i = 0; i < 80; i++) { const mid = (lo + hi) / 2; if (normalCdf(mid) < p) lo = mid; else hi = mid; }
  return (lo + hi) / 2;
}

/**
 * Minimum detectable effect of a paired design, read off the interval it produced: the half-width of a 95% interval
 * is z(0.975) standard errors, and a true difference of (z(0.975) + z(power)) standard errors is declared at 95% with
 * that power (normal approximation). A pilot's interval therefore says how large an effect the full design must
 * expect for its verdict to mean anything; scale by √(pilot n / full n) for a larger design.
 */
export function minimumDetectableEffect(ci95: [number, number], power = 0.8): number {
  const z = normalQuantile(0.975);
  return ((ci95[1] - ci95[0]) / 2 / z) * (z + normalQuantile(power));
}

/** A chain A > B > C … holds when every link is reproduced; fails when any link is not; else inconclusive. */
export function chainVerdict(links: Verdict[]): Verdict {
  if (links.some((v) => v === 'not reproduced')) return 'not reproduced';
  if (links.length > 0 && links.every((v) => v === 'reproduced')) return 'reproduced';
  return 'inconclusive';
}

/**
 * Percentile bootstrap of any statistic of n tasks: `stat` gets the resampled task indices (with repetition) and
 * returns the statistic, or NaN when it is undefined for that resample (e.g. a ratio with nothing in its
 * denominator, a correlation of constant values); such replicates are left out. The point estimate is `stat`
 * on the tasks as they are (NaN when undefined: the interval is then [NaN, NaN]).
 */
export function bootstrapStatistic(n: number, stat: (idx: Int32Array) => number, opts: BootstrapOptions = {}): Estimate {
  if (n <= 0) throw new Error('bootstrapStatistic needs at least one task');
  const B = opts.resamples ?? DEFAULT_RESAMPLES;
  const level = opts.level ?? 0.95;
  const all = Int32Array.from({ length: n }, (_, i) => i);
  const point = stat(all);
  const rng = new Rng(opts.seed ?? 0);
  const reps: number[] = [];
  const idx = new Int32Array(n);
  for (let b = 0; b < B; b++) {
    for (let i = 0; i < n; i++) idx[i] = rng.int(n);
    const v = stat(idx);
    if (Number.isFinite(v)) reps.push(v);
  }
  if (!Number.isFinite(point) || reps.length === 0) return { mean: point, ci95: [NaN, NaN] };
  reps.sort((x, y) => x - y);
  return { mean: point, ci95: [quantile(reps, (1 - level) / 2), quantile(reps, 1 - (1 - level) / 2)] };
}

/** Two-sided 95% Student t quantiles by degrees of freedom (1…30); beyond that the normal 1.96. */
const T95 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145, 2.131,
  2.12, 2.11, 2.101, 2.093, 2.086, 2.08, 2.074, 2.069, 2.064, 2.06, 2.056, 2.052, 2.048, 2.045, 2.042];

/** Mean and 95% t-interval of a few values (seeds); one value: the interval is the point (no spread to estimate). */
export function tInterval(xs: number[]): Estimate {
  const n = xs.length;
  const mean = xs.reduce((a, b) => a + b, 0) / n;
  if (n < 2) return { mean, ci95: [mean, mean] };
  const sd = Math.sqrt(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - 1));
  const h = (T95[n - 2] ?? 1.96) * sd / Math.sqrt(n);
  return { mean, ci95: [mean - h, mean + h] };
}

/** Pearson correlation; NaN when either side is constant. */
export function pearson(x: ArrayLike<number>, y: ArrayLike<number>): number {
  const n = x.length;
  const mx = mean(x), my = mean(y);
  let sxy = 0, sxx = 0, syy = 0;
  for (let i = 0; i < n; i++) { const a = x[i]! - mx, b = y[i]! - my; sxy += a * b; sxx += a * a; syy += b * b; }
  return sxx > 0 && syy > 0 ? sxy / Math.sqrt(sxx * syy) : NaN;
}

/**
 * The fraction of the real environment's gain a method recovers: (M − base) / (R − base), over the same seeds × tasks.
 * Seeds and tasks are resampled together for all three grids (the same rows and columns in each replicate), the ratio
 * formed per replicate, and its percentile interval reported. A ratio is only meaningful when the denominator is
 * clearly away from 0: `denominator` is its own interval, and `conclusive` is false when that interval reaches below
 * `minGain` (default 0.02 of success), where the ratio's interval says nothing and is reported but not read.
 */
export function fractionRecovered(method: number[][], real: number[][], base: number[][], opts: BootstrapOptions & { minGain?: number } = {}): { fraction: Estimate; denominator: Estimate; numerator: Estimate; conclusive: boolean } {
  checkGrid(method); checkGrid(real); checkGrid(base);
  const S = base.length, T = base[0]!.length;
  for (const g of [method, real]) if (g.length !== S || g[0]!.length !== T) throw new Error(`fraction recovered needs the same seeds and tasks: ${g.length}×${g[0]!.length} vs ${S}×${T}`);
  const B = opts.resamples ?? DEFAULT_RESAMPLES;
  const level = opts.level ?? 0.95;
  const rng = new Rng(opts.seed ?? 0);
  const rows = new Int32Array(S), cols = new Int32Array(T);
  const num = new Float64Array(B), den = new Float64Array(B), frac: number[] = [];
  const diffs = (fill: boolean) => {
    let n = 0, d = 0;
    for (let i = 0; i < S; i++) for (let j = 0; j < T; j++) {
      const r = fill ? rows[i]! : i, c = fill ? cols[j]! : j;
      n += method[r]![c]! - base[r]![c]!;
      d += real[r]![c]! - base[r]![c]!;
    }
    return [n / (S * T), d / (S * T)] as const;
  };
  const [n0, d0] = diffs(false);
  for (let b = 0; b < B; b++) {
    for (let i = 0; i < S; i++) rows[i] = S === 1 ? 0 : rng.int(S);
    for (let j = 0; j < T; j++) cols[j] = rng.int(T);
    const [n, d] = diffs(true);
    num[b] = n; den[b] = d;
    if (d !== 0) frac.push(n / d);
  }
  const a = (1 - level) / 2;
  const iv = (xs: ArrayLike<number>): [number, number] => { const s = Float64Array.from(xs).sort(); return [quantile(s, a), quantile(s, 1 - a)]; };
  const denominator: Estimate = { mean: d0, ci95: iv(den) };
  return {
    fraction: { mean: d0 !== 0 ? n0 / d0 : NaN, ci95: frac.length ? iv(frac) : [NaN, NaN] },
    numerator: { mean: n0, ci95: iv(num) },
    denominator,
    conclusive: denominator.ci95[0] >= (opts.minGain ?? 0.02),
  };
}
