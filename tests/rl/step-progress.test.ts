// TrainerDeps.onProgress: inside one GRPO step the trainer reports every rollout round (generations done
// before it, trajectories finished) and then each model's update with its row count, in that order, so
// the Train page can show where a step is. Checked against the step's own metrics (tiny model, Node).
import { beforeAll, describe, expect, it } from 'vitest';
import { profileFromConfig } from '../../src/agent/profile';
import { loadModelFolder, type ModelFolder } from '../../src/engine/modelFolder';
import { nodeRuntime } from '../../src/engine/runtime-node';
import { getWorld } from '../../src/envs/worlds/index';
import { DEFAULT_TRAIN_CONFIG, GrpoTrainer, type StepProgress, type TrainConfig } from '../../src/rl/trainer';

describe('trainer: progress inside a step', () => {
  const pool = getWorld('files').tasks({ split: 'train', count: 8 });
  let folder: ModelFolder;
  beforeAll(async () => { folder = await loadModelFolder('models/envace-tiny'); });
  const trainer = (over: Partial<TrainConfig>, onProgress: (p: StepProgress) => void) => new GrpoTrainer({
    ...DEFAULT_TRAIN_CONFIG, seed: 2, tasksPerStep: 2, groupSize: 2, maxTurns: 3, microBatch: 8, evalTasks: 1, checkpointEvery: 0, dynamicSampling: false, ...over,
  }, {
    runtime: nodeRuntime(), config: folder.config, params: folder.params, tokenizer: folder.tokenizer, ids: folder.ids,
    profile: profileFromConfig(folder.rawConfig),
    trainTasks: ({ step, count }) => Array.from({ length: count }, (_, i) => pool[(step * count + i) % pool.length]),
    evalTasks: pool.slice(0, 1), runId: 'progress', onProgress,
  });

  for (const variant of ['envace', 'per-role'] as const) {
    it(`${variant}: rounds in order with growing generations, then one update per model`, async () => {
      const seen: StepProgress[] = [];
      const t = trainer({ variant }, (p) => seen.push({ ...p }));
      const m = await t.trainStep();
      const rollout = seen.filter((p) => p.phase === 'rollout');
      const updates = seen.filter((p) => p.phase === 'update');
      expect(seen.every((p) => p.step === 1)).toBe(true);
      expect(rollout.length).toBeGreaterThanOrEqual(1);
      expect(rollout.map((p) => p.round)).toEqual(rollout.map((_, i) => i));
      expect(rollout[0]).toMatchObject({ generations: 0, finished: 0, trajectories: 4 });
      for (let i = 1; i < rollout.length; i++) {
        expect(rollout[i]!.generations).toBeGreaterThan(rollout[i - 1]!.generations);
        expect(rollout[i]!.finished).toBeGreaterThanOrEqual(rollout[i - 1]!.finished);
      }
      // Updates come after the whole rollout, one per model, their rows adding up to the step's rows.
      const firstUpdate = seen.findIndex((p) => p.phase === 'update');
      expect(seen.slice(firstUpdate).every((p) => p.phase === 'update')).toBe(true);
      const models = variant === 'per-role' ? 2 : 1;
      expect(updates.map((p) => p.phase === 'update' && [p.model, p.models])).toEqual(Array.from({ length: models }, (_, i) => [i + 1, models]));
      expect(updates.reduce((s, p) => s + (p.phase === 'update' ? p.rows : 0), 0)).toBe(m.rows);
      // The next step reports as step 2.
      seen.length = 0;
      await t.trainStep();
      expect(seen.length).toBeGreaterThan(0);
      expect(seen.every((p) => p.step === 2)).toBe(true);
    }, 120_000);
  }
});
