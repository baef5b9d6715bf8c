// The Models page's pretraining curve (src/app/components/models/pretrainCurve.ts): one series per world ×
// difficulty, rows merged by CPU-minutes and sorted, bands carried exactly, and bad points reported, not drawn.

import { describe, expect, it } from 'vitest';
import { pointProblems, shapeHeldOutCurve, type HeldOutCurvePoint } from '../../src/app/components/models/pretrainCurve';

const pt = (o: Partial<HeldOutCurvePoint>): HeldOutCurvePoint => ({
  step: 0, cpuMinutes: 0, world: 'files', difficulty: 'all', success: 0.1, ci95: [0.05, 0.16], checklist: 0.2, ...o,
});

describe('shapeHeldOutCurve', () => {
  it('gives one series per world × difficulty and one row per CPU-minute, sorted, with exact bands', () => {
    const s = shapeHeldOutCurve({
      protocol: 'greedy', tasks: 100,
      points: [
        pt({ step: 3000, cpuMinutes: 48, success: 0.07, ci95: [0.02, 0.12] }),
        pt({ step: 0, cpuMinutes: 22, success: 0.02, ci95: [0, 0.05] }),
        pt({ step: 3000, cpuMinutes: 48, difficulty: 1, success: 0.23, ci95: [0.15, 0.31], checklist: 0.3 }),
        pt({ step: 500, cpuMinutes: 30.5, world: 'retail', success: 0, ci95: [0, 0] }),
      ],
    });
    expect(s.problems).toEqual([]);
    expect(s.series).toEqual([
      { key: 'files_dall', label: 'files · all tasks' },
      { key: 'files_d1', label: 'files · difficulty 1' },
      { key: 'retail_dall', label: 'retail · all tasks' },
    ]);
    expect(s.rows.map((r) => r.cpuMinutes)).toEqual([22, 30.5, 48]);
    expect(s.rows[2]).toMatchObject({ files_dall: 0.07, files_dall_band: [0.02, 0.12], files_d1: 0.23, files_d1_band: [0.15, 0.31], files_d1_checklist: 0.3, files_d1_step: 3000 });
    expect(s.rows[1]).toEqual({ cpuMinutes: 30.5, retail_dall: 0, retail_dall_band: [0, 0], retail_dall_checklist: 0.2, retail_dall_step: 500 });
    expect(s.rows[0].files_d1).toBeUndefined();
  });

  it('reports malformed points and draws the rest', () => {
    const s = shapeHeldOutCurve({
      protocol: 'greedy', tasks: 100,
      points: [
        pt({ cpuMinutes: 10 }),
        pt({ cpuMinutes: 20, success: 1.2, ci95: [0.9, 1] }),
        pt({ cpuMinutes: 30, ci95: [0.3, 0.2] }),
        pt({ cpuMinutes: 40, difficulty: 4 as never }),
        pt({ cpuMinutes: 50, success: 0.5, ci95: [0.1, 0.2] }),
        pt({ cpuMinutes: 10, success: 0.3, ci95: [0.2, 0.4] }),
        null as never,
      ],
    });
    expect(s.rows.map((r) => r.cpuMinutes)).toEqual([10]);
    expect(s.rows[0].files_dall).toBe(0.1);
    expect(s.problems).toHaveLength(6);
    expect(s.problems[0]).toMatch(/^point 1: success must be in \[0, 1\]/);
    expect(s.problems[1]).toMatch(/^point 2: ci95 must be/);
    expect(s.problems[2]).toMatch(/^point 3: difficulty must be/);
    expect(s.problems[3]).toMatch(/^point 4: success 0.5 lies outside its ci95/);
    expect(s.problems[4]).toMatch(/^point 5: a second files · all tasks point at 10 CPU-minutes/);
    expect(s.problems[5]).toBe('point 6: not an object');
  });

  it('refuses a curve without a points list', () => {
    expect(shapeHeldOutCurve({ protocol: 'x' }).problems).toEqual(['heldOutCurve must be an object with a points list']);
    expect(shapeHeldOutCurve(null).rows).toEqual([]);
  });

  it('accepts a valid point and names every bad field of an invalid one', () => {
    expect(pointProblems(pt({}))).toEqual([]);
    expect(pointProblems({ cpuMinutes: -1, world: '', difficulty: 'some', success: 'x', ci95: [0] })).toHaveLength(5);
  });
});
