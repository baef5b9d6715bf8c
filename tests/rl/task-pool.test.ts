// RunSpec.taskPool (src/rl/session.ts): a run's training tasks come from the first `taskPool` seeds of the
// train split (at its difficulty), so a short run meets the same few tasks again; bad values are config errors.

import { describe, expect, it } from 'vitest';
import { nodeRuntime } from '../../src/engine/runtime-node';
import { getWorld } from '../../src/envs/worlds/index';
import { ConfigError, makeTrainer } from '../../src/rl/session';
import { buildTinyFolder } from '../../src/worker/train-tiny';

type Drawn = { step: number; count: number; seed: number };
const drawOf = (t: unknown) => (t as { deps: { trainTasks(q: Drawn): { id: string }[] } }).deps.trainTasks;

describe('taskPool', () => {
  it('draws every step\'s tasks from the first taskPool seeds of the difficulty\'s train split', async () => {
    const folder = await buildTinyFolder({ world: 'files', seed: 1, maxNewTokens: 4 });
    const world = getWorld('files');
    const pool = new Set(world.tasks({ split: 'train', difficulty: 1, count: 3 }).map((t) => t.id));
    const t = makeTrainer(folder, nodeRuntime(), { world: 'files', difficulty: 1, taskPool: 3, tasksPerStep: 2, evalTasks: 1 }, { runId: 'p' });
    const seen = new Set<string>();
    for (let step = 0; step < 12; step++) {
      const tasks = drawOf(t)({ step, count: 2, seed: 1 });
      expect(tasks).toHaveLength(2);
      for (const x of tasks) { expect(pool.has(x.id)).toBe(true); seen.add(x.id); }
    }
    expect(seen.size).toBe(3);
    // Without it the pool is the large default one: 12 steps of 2 tasks leave the first 3 seeds.
    const big = makeTrainer(folder, nodeRuntime(), { world: 'files', difficulty: 1, tasksPerStep: 2, evalTasks: 1 }, { runId: 'q' });
    const ids = Array.from({ length: 12 }, (_, step) => drawOf(big)({ step, count: 2, seed: 1 })).flat().map((x) => x.id);
    expect(ids.some((id) => !pool.has(id))).toBe(true);
  });

  it('refuses a pool that is not a positive integer, with the other config problems', async () => {
    const folder = await buildTinyFolder({ world: 'files', seed: 1, maxNewTokens: 4 });
    for (const bad of [0, -2, 1.5]) {
      expect(() => makeTrainer(folder, nodeRuntime(), { taskPool: bad }, { runId: 'x' })).toThrow(ConfigError);
    }
    let err: unknown = null;
    try { makeTrainer(folder, nodeRuntime(), { taskPool: 0, steps: -1 }, { runId: 'x' }); } catch (e) { err = e; }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).errors).toEqual([expect.stringMatching(/^steps must/), 'taskPool must be a positive integer (got 0)']);
  });
});
