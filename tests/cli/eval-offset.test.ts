import { describe, expect, it } from 'vitest';
import { EVAL_CLI, evalTasks } from '../../src/cli/eval';
import { parseCliArgs } from '../../src/cli/args';
import { evalReport, type ProtocolResult } from '../../src/bench/evaluation';

const ids = (r: Parameters<typeof evalTasks>[0]) => evalTasks(r).map((t) => t.id);

describe('npm run eval -- --offset', () => {
  it('tasks N … N+tasks−1 of the test split, the same order as --offset 0', () => {
    const first = ids({ world: 'files', tasks: 7 });
    expect(ids({ world: 'files', tasks: 7, offset: 0 })).toEqual(first);
    expect(ids({ world: 'files', tasks: 4, offset: 3 })).toEqual(first.slice(3, 7));
    // Disjoint slices cover the first N exactly once.
    expect([...ids({ world: 'files', tasks: 3 }), ...ids({ world: 'files', tasks: 4, offset: 3 })]).toEqual(first);
    expect(evalTasks({ world: 'files', tasks: 2, offset: 5 }).every((t) => t.split === 'test')).toBe(true);
  });

  it('with --difficulty the offset counts within the filtered list', () => {
    const d2 = evalTasks({ world: 'retail', tasks: 6, difficulty: 2 });
    expect(d2.every((t) => t.difficulty === 2 && t.split === 'test')).toBe(true);
    expect(ids({ world: 'retail', tasks: 2, offset: 4, difficulty: 2 })).toEqual(d2.slice(4, 6).map((t) => t.id));
  });

  it('the flag defaults to 0, refuses negatives, and the report records it', () => {
    const v = parseCliArgs(EVAL_CLI, ['--model', 'm']);
    if (v === 'help') throw new Error('unexpected help');
    expect(v.offset).toBe(0);
    expect(() => parseCliArgs(EVAL_CLI, ['--model', 'm', '--offset', '-1'])).toThrow(/--offset/);
    const r: ProtocolResult = {
      perTask: [{ task: 'files-1', samples: 1, success: 1, outcome: 1, checklist: 1, passAtK: 1, fidelityF1: null, terminations: ['done'] }],
      summary: { terminations: { done: 1 }, generations: 2 } as unknown as ProtocolResult['summary'],
      chunkTasks: 1, chunks: 1, seconds: 0.1,
    };
    const sampling = { k: 1, temperature: 0, topP: 1, seed: 0 };
    expect(evalReport(r, { model: 'm', world: 'files', offset: 150, ...sampling }, { resamples: 100, seed: 0 }).offset).toBe(150);
    expect(evalReport(r, { model: 'm', world: 'files', ...sampling }, { resamples: 100, seed: 0 }).offset).toBe(0);
  });
});
