import { describe, expect, it } from 'vitest';
import { heldOutChange } from '../../src/app/components/train/heldOut';
import { tickLabel } from '../../src/app/components/charts';
import type { EvalMetrics } from '../../src/worker/protocol';

const ev = (step: number, taskSuccess?: number[]): EvalMetrics => ({
  step, success: taskSuccess ? taskSuccess.reduce((a, b) => a + b, 0) / taskSuccess.length : 0.5, checklist: 0, passAtK: 0, fidelityF1: 0, fidelityExact: 0, errorAgree: 0,
  ...(taskSuccess ? { taskSuccess } : {}),
} as EvalMetrics);

describe('held-out change on the Train page (issue 42, point 4)', () => {
  it('two evaluations of the same tasks get a paired interval and a plain verdict', () => {
    const same = Array.from({ length: 32 }, (_, i) => (i % 3 === 0 ? 1 : 0));
    const flip = same.map((x, i) => (i % 8 === 1 ? 1 : x));
    const small = heldOutChange('run A', [ev(0, same), ev(20, flip)])!;
    expect(small).toMatch(/^run A: held-out success 0\.344 \(step 0\) → 0\.438 \(step 20\): \+0\.094 \[/);
    expect(small).toMatch(/95% paired bootstrap over the 32 evaluation tasks/);
    const all = heldOutChange('run B', [ev(0, same.map(() => 0)), ev(20, same.map(() => 1))])!;
    expect(all).toContain('the interval lies above 0');
    const tiny = heldOutChange('run C', [ev(0, [0, 1, 0, 0]), ev(20, [1, 1, 0, 0])])!;
    expect(tiny).toContain('the interval includes 0: with 4 tasks these two points cannot show a difference');
  });

  it('one evaluation, or none with per-task results, says what cannot be judged', () => {
    expect(heldOutChange('r', [])).toBeNull();
    expect(heldOutChange('r', [ev(0)])).toMatch(/a change needs a second evaluation/);
    expect(heldOutChange('r', [ev(0), ev(20)])).toMatch(/no per-task results to put an interval on the change/);
  });

  it('a mean that is 0 by construction is shown as 0, not ±1e-17 (point 8)', () => {
    expect(tickLabel(1.3e-17)).toBe('0');
    expect(tickLabel(-2e-17)).toBe('0');
    expect(tickLabel(2e-4)).toBe('2.0e-4');
  });
});
