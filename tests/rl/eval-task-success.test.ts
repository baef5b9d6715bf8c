// The trainer's held-out evaluation records each task's success (EvalMetrics.taskSuccess), in the order of its
// tasks, so two evaluations of a run can be paired task by task (e2e/train-learns.spec.ts does): one entry per
// task, each the Avg@k share of that task's samples, and their mean is the evaluation's success.

import { describe, expect, it } from 'vitest';
import { loadModelFolder } from '../../src/engine/modelFolder';
import { nodeRuntime } from '../../src/engine/runtime-node';
import { makeTrainer } from '../../src/rl/session';

describe('held-out evaluation per task', () => {
  it('records one Avg@k success per task whose mean is the success rate', async () => {
    const folder = await loadModelFolder('models/files-starter');
    const k = 2, tasks = 4;
    // Temperature 1.5: the starter's samples then differ, so shares of ½ can occur, not only 0 and 1.
    const trainer = makeTrainer(folder, nodeRuntime(), { world: 'files', difficulty: 1, evalTasks: tasks, evalK: k, evalProbes: 0, temperature: 1.5, maxTurns: 6, checkpointEvery: 0 }, { runId: 'task-success' });
    const e = await trainer.evaluate();
    expect(e.taskSuccess).toHaveLength(tasks);
    for (const s of e.taskSuccess!) expect([0, 0.5, 1]).toContain(s);
    expect(e.taskSuccess!.reduce((a, b) => a + b, 0) / tasks).toBeCloseTo(e.success, 12);
    // Same run seed, same weights: the same per-task figures (what pairing two evaluations relies on).
    expect((await trainer.evaluate()).taskSuccess).toEqual(e.taskSuccess);
  }, 240_000);
});
