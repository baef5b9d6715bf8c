import { describe, expect, it } from 'vitest';
import { fractionRecovered } from '../../src/bench/stats';

const grid = (rows: number[][]) => rows;
describe('fraction of the real environment\'s gain recovered', () => {
  it('is (M − base) / (R − base) at the point, with an interval around it', () => {
    const base = grid([[0, 0, 0, 0, 1, 1, 0, 0, 0, 0], [0, 0, 0, 0, 1, 0, 0, 0, 0, 0]]);
    const real = grid([[1, 1, 1, 1, 1, 1, 0, 1, 0, 0], [1, 1, 1, 0, 1, 0, 1, 1, 0, 0]]);
    const method = grid([[1, 1, 0, 0, 1, 1, 0, 0, 0, 0], [1, 0, 1, 0, 1, 0, 0, 0, 0, 0]]);
    const r = fractionRecovered(method, real, base, { resamples: 500, seed: 1 });
    // mean gains over the 20 cells: method 4/20, real 10/20 → 0.4
    expect(r.fraction.mean).toBeCloseTo(0.4, 12);
    expect(r.numerator.mean).toBeCloseTo(0.2, 12);
    expect(r.denominator.mean).toBeCloseTo(0.5, 12);
    expect(r.fraction.ci95[0]).toBeLessThan(r.fraction.mean);
    expect(r.fraction.ci95[1]).toBeGreaterThan(r.fraction.mean);
    expect(r.conclusive).toBe(true);
  });

  it('says inconclusive when the real gain\'s interval reaches 0', () => {
    const base = grid([[0, 1, 0, 1, 0, 1]]);
    const real = grid([[1, 0, 0, 1, 0, 1]]);
    const method = grid([[1, 1, 0, 1, 0, 1]]);
    const r = fractionRecovered(method, real, base, { resamples: 500, seed: 2 });
    expect(r.denominator.mean).toBe(0);
    expect(Number.isNaN(r.fraction.mean)).toBe(true);
    expect(r.conclusive).toBe(false);
  });

  it('refuses grids of different shapes', () => {
    expect(() => fractionRecovered([[1, 0]], [[1, 0, 1]], [[0, 0]])).toThrow(/same seeds and tasks/);
  });
});
