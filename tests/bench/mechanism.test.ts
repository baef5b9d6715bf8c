import { describe, expect, it } from 'vitest';
import { fieldOf, mechanismMarkdown, mechanismRows, sameOptions, type MechanismMeasure } from '../../src/bench/mechanism';
import { tInterval } from '../../src/bench/stats';

const measure = (o: Partial<MechanismMeasure> = {}): MechanismMeasure => ({
  success: 0.5, fidelityF1: 0.7, recallF1: 0.8, inferenceF1: null, noHintsF1: 0.6, actExact: 0.75, actTurns: 100,
  agreement: { reward_gap: 0.05, task_correlation: 0.7, sign_agreement: 0.8, error_agreement: 0.1, parse_error_rate: 0.01 }, ...o,
});

describe('mechanism rows', () => {
  it('per variant: each field\'s change from the starting model, mean over seeds with a t-interval, and the held-out change', () => {
    const start = measure();
    const rows = mechanismRows(start, [
      { variant: 'envace', seed: 1, measure: measure({ recallF1: 0.9, actExact: 0.7 }), dHeldOut: 0.02 },
      { variant: 'envace', seed: 2, measure: measure({ recallF1: 0.86, actExact: 0.8 }), dHeldOut: -0.04 },
      { variant: 'per-role', seed: 1, measure: measure({ agreement: null, recallF1: 0.5 }), dHeldOut: null },
    ]);
    expect(rows.map((r) => [r.variant, r.seeds])).toEqual([['envace', [1, 2]], ['per-role', [1]]]);
    const e = rows[0]!.delta;
    expect(e.recallF1!.mean).toBeCloseTo(0.08, 12);
    // two seeds: t(1) = 12.706 × sd / √2
    const sd = Math.sqrt(((0.1 - 0.08) ** 2 + (0.06 - 0.08) ** 2) / 1);
    expect(e.recallF1!.ci95![1] - e.recallF1!.mean).toBeCloseTo(12.706 * sd / Math.SQRT2, 9);
    expect(e.heldOutSuccess!.mean).toBeCloseTo(-0.01, 12);
    expect(e.actExact!.mean).toBeCloseTo(0, 12);
    // a field the starting model lacks (no inference probes) has no change
    expect(e.inferenceF1).toBeNull();
    const p = rows[1]!.delta;
    expect(p.recallF1).toEqual({ mean: expect.closeTo(-0.3, 12), ci95: null });
    expect(p.sign_agreement).toBeNull();
    expect(p.heldOutSuccess).toBeNull();
    const md = mechanismMarkdown(start, rows, { probes: 64, evalTasks: 32, actTasks: 30, agreementTasks: 16, agreementK: 4 });
    expect(md).toMatch(/\| envace \| 1, 2 \| -0\.010 \[/);
    expect(md).toMatch(/\| per-role \| 1 \| – \| -0\.300 \|/);
  });

  it('reads agreement fields through fieldOf and compares options field by field', () => {
    expect(fieldOf(measure(), 'sign_agreement')).toBe(0.8);
    expect(fieldOf(measure({ agreement: null }), 'error_agreement')).toBeNull();
    const o = { probes: 64, evalTasks: 32, actTasks: 30, agreementTasks: 16, agreementK: 4 };
    expect(sameOptions(o, { ...o })).toBe(true);
    expect(sameOptions(o, { ...o, agreementK: 2 })).toBe(false);
  });

  it('tInterval: the point for one value, Student t for a few', () => {
    expect(tInterval([0.3])).toEqual({ mean: 0.3, ci95: [0.3, 0.3] });
    const e = tInterval([1, 2, 3]);
    expect(e.mean).toBe(2);
    expect(e.ci95[1] - 2).toBeCloseTo(4.303 * 1 / Math.sqrt(3), 9);
  });
});

describe('mechanism command line', () => {
  it('needs the ablation folder and defaults to the documented design', async () => {
    const { parseCliArgs } = await import('../../src/cli/args');
    const { MECHANISM_CLI } = await import('../../src/cli/mechanism');
    expect(() => parseCliArgs(MECHANISM_CLI, [])).toThrow(/out/);
    const v = parseCliArgs(MECHANISM_CLI, ['--out', 'runs/x']);
    if (v === 'help') throw new Error('unexpected help');
    expect(v).toMatchObject({ out: 'runs/x', probes: 64, 'eval-tasks': 32, 'act-tasks': 30, 'agreement-tasks': 16, 'agreement-k': 4 });
    expect(() => parseCliArgs(MECHANISM_CLI, ['--out', 'x', '--agreement-k', '1'])).toThrow(/agreement-k/);
  });
});
