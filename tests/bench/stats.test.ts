import { describe, expect, it } from 'vitest';
import { Rng } from '../../src/engine/rng';
import { bootstrap, bootstrapGrid, chainVerdict, compareOrdering, minimumDetectableEffect, normalCdf, normalQuantile, pairedBootstrap, passAtK, quantile, verdict } from '../../src/bench/stats';

function bernoulli(rng: Rng, n: number, p: number): number[] {
  return Array.from({ length: n }, () => (rng.uniform() < p ? 1 : 0));
}

describe('bootstrap over tasks', () => {
  it('covers the true mean of a known distribution about 95% of the time', () => {
    // 300 independent experiments of 100 Bernoulli(0.3) tasks; the percentile interval should contain 0.3
    // in roughly 95% of them (binomial noise on 300 trials: ±2.5 points at 2 sd).
    const rng = new Rng(11);
    let hits = 0, width = 0;
    const E = 300;
    for (let e = 0; e < E; e++) {
      const est = bootstrap(bernoulli(rng, 100, 0.3), { resamples: 1000, seed: e });
      if (est.ci95[0] <= 0.3 && 0.3 <= est.ci95[1]) hits++;
      width += est.ci95[1] - est.ci95[0];
    }
    const coverage = hits / E;
    expect(coverage).toBeGreaterThan(0.89);
    expect(coverage).toBeLessThan(0.99);
    // Normal-theory width 2·1.96·sqrt(0.21/100) ≈ 0.18.
    expect(width / E).toBeGreaterThan(0.15);
    expect(width / E).toBeLessThan(0.21);
  });

  it('is deterministic in its seed and reports the plain mean', () => {
    const xs = bernoulli(new Rng(3), 50, 0.5).map((x, i) => x * (i % 7) / 6);
    const a = bootstrap(xs, { seed: 9 }), b = bootstrap(xs, { seed: 9 }), c = bootstrap(xs, { seed: 10 });
    expect(a).toEqual(b);
    expect(a.ci95).not.toEqual(c.ci95);
    expect(a.mean).toBeCloseTo(xs.reduce((s, x) => s + x, 0) / xs.length, 12);
    expect(a.ci95[0]).toBeLessThanOrEqual(a.mean);
    expect(a.ci95[1]).toBeGreaterThanOrEqual(a.mean);
  });

  it('gives a zero-width interval for constant values and rejects bad input', () => {
    expect(bootstrap([0.25, 0.25, 0.25])).toEqual({ mean: 0.25, ci95: [0.25, 0.25] });
    expect(() => bootstrap([])).toThrow(/at least one/);
    expect(() => bootstrap([1, NaN])).toThrow(/not finite/);
    expect(() => bootstrapGrid([[1, 2], [3]])).toThrow(/ragged/);
  });

  it('widens when seeds disagree (seeds are resampled too)', () => {
    const tasks = Array.from({ length: 40 }, (_, i) => (i % 2) * 0.5);
    const sameSeeds = bootstrapGrid([tasks, tasks, tasks]);
    const shifted = bootstrapGrid([tasks.map((x) => x + 0.3), tasks, tasks.map((x) => x - 0.3)]);
    expect(shifted.mean).toBeCloseTo(sameSeeds.mean, 12);
    expect(shifted.ci95[1] - shifted.ci95[0]).toBeGreaterThan(2 * (sameSeeds.ci95[1] - sameSeeds.ci95[0]));
  });

  it('quantile interpolates like numpy', () => {
    expect(quantile([1, 2, 3, 4], 0.5)).toBe(2.5);
    expect(quantile([1, 2, 3, 4], 0)).toBe(1);
    expect(quantile([1, 2, 3, 4], 1)).toBe(4);
    expect(quantile([10, 20], 0.25)).toBe(12.5);
  });
});

describe('paired bootstrap', () => {
  it('detects a small consistent improvement that unpaired intervals cannot separate', () => {
    // Task difficulty varies a lot; B is A minus 0.05 on every task and seed.
    const rng = new Rng(5);
    const A = [0, 1, 2].map(() => Array.from({ length: 60 }, () => rng.uniform()));
    const B = A.map((row) => row.map((x) => x - 0.05));
    const d = pairedBootstrap(A, B, { seed: 1 });
    expect(d.mean).toBeCloseTo(0.05, 12);
    expect(d.ci95[0]).toBeCloseTo(0.05, 9);
    expect(verdict(d)).toBe('reproduced');
    const a = bootstrapGrid(A, { seed: 1 }), b = bootstrapGrid(B, { seed: 1 });
    expect(a.ci95[0]).toBeLessThan(b.ci95[1]); // the separate intervals overlap
  });

  it('is antisymmetric and needs the same seeds and tasks', () => {
    const rng = new Rng(8);
    const A = [Array.from({ length: 30 }, () => rng.uniform())];
    const B = [Array.from({ length: 30 }, () => rng.uniform())];
    const ab = pairedBootstrap(A, B, { seed: 4 }), ba = pairedBootstrap(B, A, { seed: 4 });
    expect(ab.mean).toBeCloseTo(-ba.mean, 12);
    expect(ab.ci95[0]).toBeCloseTo(-ba.ci95[1], 12);
    expect(() => pairedBootstrap(A, [B[0]!.slice(1)])).toThrow(/same seeds and tasks/);
    expect(() => pairedBootstrap(A, [B[0]!, B[0]!])).toThrow(/same seeds and tasks/);
  });
});

describe('verdicts', () => {
  it('maps intervals of A − B to the three verdicts', () => {
    expect(verdict({ mean: 0.1, ci95: [0.02, 0.2] })).toBe('reproduced');
    expect(verdict({ mean: 0.05, ci95: [-0.01, 0.1] })).toBe('inconclusive');
    expect(verdict({ mean: -0.1, ci95: [-0.2, -0.02] })).toBe('not reproduced');
    expect(verdict({ mean: 0, ci95: [0, 0] })).toBe('not reproduced');
    expect(verdict({ mean: 0, ci95: [0, 0.01] })).toBe('inconclusive');
  });

  it('compares orderings on real grids and chains them', () => {
    const rng = new Rng(2);
    const noise = () => Array.from({ length: 80 }, () => rng.uniform() * 0.2);
    const base = [noise(), noise()];
    const better = base.map((r) => r.map((x) => x + 0.3));
    const same = base.map((r) => r.map((x) => x + (rng.uniform() - 0.5) * 0.01));
    expect(compareOrdering('better', 'base', 'success', better, base).verdict).toBe('reproduced');
    expect(compareOrdering('base', 'better', 'success', base, better).verdict).toBe('not reproduced');
    expect(compareOrdering('same', 'base', 'success', same, base).verdict).toBe('inconclusive');
    expect(chainVerdict(['reproduced', 'reproduced'])).toBe('reproduced');
    expect(chainVerdict(['reproduced', 'inconclusive'])).toBe('inconclusive');
    expect(chainVerdict(['inconclusive', 'not reproduced'])).toBe('not reproduced');
  });
});

describe('pass@k', () => {
  it('is the unbiased estimator', () => {
    expect(passAtK(4, 0, 4)).toBe(0);
    expect(passAtK(4, 1, 4)).toBe(1);
    expect(passAtK(4, 1, 1)).toBeCloseTo(0.25, 12);
    expect(passAtK(10, 3, 2)).toBeCloseTo(1 - (7 * 6) / (10 * 9), 12);
    expect(passAtK(5, 5, 3)).toBe(1);
    expect(() => passAtK(3, 1, 4)).toThrow(/1 ≤ k ≤ n/);
    expect(() => passAtK(3, 4, 1)).toThrow();
  });
});

describe('minimum detectable effect', () => {
  it('normal quantiles and CDF agree with the tables', () => {
    expect(normalQuantile(0.975)).toBeCloseTo(1.959964, 5);
    expect(normalQuantile(0.8)).toBeCloseTo(0.841621, 5);
    expect(normalQuantile(0.5)).toBeCloseTo(0, 6);
    expect(normalCdf(-1.959964)).toBeCloseTo(0.025, 6);
    expect(() => normalQuantile(1)).toThrow(RangeError);
  });

  it('is 2.8 standard errors for 80% power, read off a 95% interval', () => {
    // half-width 0.0392 = 1.96 SE with SE 0.02 → MDE = (1.96 + 0.8416) × 0.02
    expect(minimumDetectableEffect([0.1 - 0.0392, 0.1 + 0.0392])).toBeCloseTo(0.05603, 4);
    expect(minimumDetectableEffect([-0.05, 0.05], 0.9)).toBeGreaterThan(minimumDetectableEffect([-0.05, 0.05], 0.8));
  });

  it('a true effect of one MDE is declared in about 80% of simulated paired designs', () => {
    // 150 tasks, per-task differences in {-1, 0, 1}; the pilot's interval gives the MDE, then designs with that true
    // effect are drawn and their verdicts counted (the power the MDE promises, within simulation error).
    const rng = new Rng(11);
    const n = 150;
    const draw = (effect: number) => {
      const pWin = 0.08 + effect / 2, pLose = 0.08 - effect / 2;
      return [...Array(n)].map(() => { const u = rng.uniform(); return u < pWin ? 1 : u < pWin + pLose ? -1 : 0; });
    };
    const pilot = bootstrap(draw(0), { resamples: 1000, seed: 1 });
    const mde = minimumDetectableEffect(pilot.ci95);
    expect(mde).toBeGreaterThan(0.05);
    expect(mde).toBeLessThan(0.12);
    let declared = 0;
    const trials = 200;
    for (let t = 0; t < trials; t++) if (verdict(bootstrap(draw(mde), { resamples: 400, seed: t })) === 'reproduced') declared++;
    expect(declared / trials).toBeGreaterThan(0.65);
    expect(declared / trials).toBeLessThan(0.93);
  });

  it('compareOrdering stores it with the verdict', () => {
    const a = [[1, 1, 0, 1, 0, 1, 1, 0]], b = [[0, 1, 0, 0, 0, 1, 0, 0]];
    const o = compareOrdering('x', 'y', 'success', a, b, { resamples: 500, seed: 3 });
    expect(o.mde).toBeCloseTo(minimumDetectableEffect(o.diff.ci95), 12);
  });
});
