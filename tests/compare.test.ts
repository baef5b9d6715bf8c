import { describe, expect, it } from 'vitest';
import { compareScores, type TaskScores } from '../src/bench/compare';
import { bootstrap } from '../src/bench/stats';
import { COMPARE_CLI } from '../src/cli/compare';
import { parseCliArgs } from '../src/cli/args';

const scores = (success: number[], outcome = success, checklist = success, prefix = 'files-'): TaskScores[] =>
  success.map((s, i) => ({ task: `${prefix}${i}`, success: s, outcome: outcome[i]!, checklist: checklist[i]! }));

const opts = { resamples: 1000, seed: 7 };

describe('compareScores (npm run compare)', () => {
  it('B clearly better: diff means, paired intervals above 0, wins/losses/ties', () => {
    const a = scores([0, 0, 0, 0, 0, 0, 0, 0, 0, 1], [1, 1, 0, 1, 1, 0, 1, 1, 1, 1], [0.2, 0.3, 0.1, 0.2, 0.4, 0.3, 0.2, 0.1, 0.2, 1]);
    const b = scores([1, 1, 1, 1, 1, 1, 1, 1, 0, 1], [1, 1, 1, 1, 1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1, 1, 1, 0.5, 1]);
    const c = compareScores(a, b, opts);
    expect(c.n_tasks).toBe(10);
    expect(c.a.success.mean).toBeCloseTo(0.1, 12);
    expect(c.b.success.mean).toBeCloseTo(0.9, 12);
    expect(c.diff.success.mean).toBeCloseTo(0.8, 12);
    expect(c.diff.outcome.mean).toBeCloseTo(0.2, 12);
    expect(c.diff.checklist.mean).toBeCloseTo(0.95 - 0.3, 12);
    for (const m of ['success', 'outcome', 'checklist'] as const) {
      const [lo, hi] = c.diff[m].ci95;
      expect(lo).toBeLessThanOrEqual(c.diff[m].mean);
      expect(hi).toBeGreaterThanOrEqual(c.diff[m].mean);
      for (const side of [c.a, c.b]) expect(side[m].ci95[0]).toBeLessThanOrEqual(side[m].mean);
    }
    expect(c.diff.success.ci95[0]).toBeGreaterThan(0);
    expect(c.diff.checklist.ci95[0]).toBeGreaterThan(0);
    expect({ wins: c.wins, losses: c.losses, ties: c.ties }).toEqual({ wins: 8, losses: 0, ties: 2 });
    expect(c.bootstrap).toEqual({ resamples: 1000, seed: 7, level: 0.95, over: 'tasks', paired: true });
    expect(c.per_task).toBeUndefined();

    // Swapped: the signs and the win/loss counts flip.
    const s = compareScores(b, a, opts);
    expect(s.diff.success.mean).toBeCloseTo(-0.8, 12);
    expect(s.diff.success.ci95[1]).toBeLessThan(0);
    expect({ wins: s.wins, losses: s.losses, ties: s.ties }).toEqual({ wins: 0, losses: 8, ties: 2 });
  });

  it('per-model estimates are the eval bootstrap of each list (same resamples and seed)', () => {
    const a = scores([0, 1, 0.5, 0.25, 1, 0], undefined, [0.1, 0.9, 0.6, 0.3, 1, 0.2]);
    const b = scores([1, 1, 0.25, 0.25, 0, 0.75]);
    const c = compareScores(a, b, opts);
    expect(c.a.success).toEqual(bootstrap(a.map((t) => t.success), opts));
    expect(c.a.checklist).toEqual(bootstrap(a.map((t) => t.checklist), opts));
    expect(c.b.outcome).toEqual(bootstrap(b.map((t) => t.outcome), opts));
    // Fractional successes (k = 4): 0.25 vs 0.25 ties, 0.5 → 0.25 and 1 → 0 are losses.
    expect({ wins: c.wins, losses: c.losses, ties: c.ties }).toEqual({ wins: 2, losses: 2, ties: 2 });
  });

  it('pairing cancels what both models share: a constant per-task gain has a zero-width interval', () => {
    const base = [0.05, 0.9, 0.3, 0.6, 0.1, 0.8, 0.45, 0.2];
    const c = compareScores(scores(base), scores(base.map((x) => x + 0.1)), opts);
    expect(c.diff.checklist.mean).toBeCloseTo(0.1, 12);
    expect(c.diff.checklist.ci95[0]).toBeCloseTo(0.1, 12);
    expect(c.diff.checklist.ci95[1]).toBeCloseTo(0.1, 12);
    // Each model alone is far less certain.
    expect(c.a.checklist.ci95[1] - c.a.checklist.ci95[0]).toBeGreaterThan(0.2);
  });

  it('pairs by task id, not by position; per-task rows on request', () => {
    const a = scores([0, 1, 0, 1], [0, 1, 1, 1], [0.2, 1, 0.5, 1]);
    const b = scores([1, 1, 0, 0], [1, 1, 0, 1], [1, 1, 0.4, 0.7]);
    const inOrder = compareScores(a, b, { ...opts, perTask: true });
    const shuffled = compareScores(a, [b[2]!, b[0]!, b[3]!, b[1]!], { ...opts, perTask: true });
    expect(shuffled).toEqual(inOrder);
    expect(inOrder.per_task![0]).toEqual({ task: 'files-0', a: { success: 0, outcome: 0, checklist: 0.2 }, b: { success: 1, outcome: 1, checklist: 1 } });
    expect({ wins: inOrder.wins, losses: inOrder.losses, ties: inOrder.ties }).toEqual({ wins: 1, losses: 1, ties: 2 });
  });

  it('different task lists are a clear error, never a silent unpaired comparison', () => {
    const a = scores([0, 1, 0]);
    expect(() => compareScores(a, scores([0, 1]))).toThrow(/same tasks.*A has 3, B has 2.*only in A: files-2; only in B: none/);
    expect(() => compareScores(a, scores([0, 1, 0], undefined, undefined, 'retail-'))).toThrow(/only in A: files-0, files-1, files-2; only in B: retail-0/);
    expect(() => compareScores(a, [...scores([0, 1]), { task: 'files-1', success: 0, outcome: 0, checklist: 0 }])).toThrow(/files-1 appears twice in B/);
    expect(() => compareScores([], [])).toThrow(/at least one task/);
    expect(() => compareScores(a, scores([0, NaN, 0]))).toThrow(/success of task files-1 is not a finite number/);
  });
});

describe('npm run compare arguments', () => {
  it('needs both folders; protocol defaults are eval\'s', () => {
    expect(() => parseCliArgs(COMPARE_CLI, ['--a', 'x'])).toThrow(/--b is required/);
    const v = parseCliArgs(COMPARE_CLI, ['--a', 'x', '--b', 'y', '--offset', '150', '--tasks', '150', '--k', '1', '--temperature', '0']);
    if (v === 'help') throw new Error('unexpected help');
    expect(v).toMatchObject({ a: 'x', b: 'y', world: 'files', tasks: 150, offset: 150, k: 1, temperature: 0, 'top-p': 0.95, seed: 0, resamples: 2000 });
  });
});
