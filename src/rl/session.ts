// Builds a trainer from a model folder and a built-in world: the one place the CLI and the browser worker
// share, so a run configured in either behaves the same.

import { hashSeed } from '../agent/rollout';
import { profileFromConfig } from '../agent/profile';
import type { ModelFolder } from '../engine/modelFolder';
import type { Runtime } from '../engine/runtime';
import { getWorld } from '../envs/worlds/index';
import type { CheckpointStore } from './checkpoint';
import { GrpoTrainer, TRAIN_TASK_POOL, validateTrainConfig, type StepProgress, type TrainConfig } from './trainer';

export interface RunSpec extends Partial<TrainConfig> {
  /** Built-in world the tasks come from. */
  world?: string;
  /** Difficulty filter for training tasks (1–3), or all. */
  difficulty?: number;
  /**
   * Training tasks come from the first this-many seeds of the train split (default TRAIN_TASK_POOL). A small
   * pool is met again and again, so a short run can show its policy improving on the tasks it trains on.
   */
  taskPool?: number;
  /**
   * Train seeds to draw from instead of the first taskPool ones (a pool screened to the policy's frontier,
   * src/rl/screen.ts). Each must be a seed of the world's train split.
   */
  poolSeeds?: number[];
}

export class ConfigError extends Error {
  constructor(public readonly errors: string[]) { super(`invalid training config:\n  - ${errors.join('\n  - ')}`); }
}

export function makeTrainer(folder: ModelFolder, runtime: Runtime, spec: RunSpec, opts: { runId: string; store?: CheckpointStore; log?: (s: string) => void; onProgress?: (p: StepProgress) => void }): GrpoTrainer {
  const { world: worldName = 'files', difficulty, taskPool = TRAIN_TASK_POOL, poolSeeds, ...rest } = spec;
  const v = validateTrainConfig(rest);
  const poolOk = Number.isSafeInteger(taskPool) && taskPool >= 1;
  const seedsOk = poolSeeds === undefined || (Array.isArray(poolSeeds) && poolSeeds.length > 0 && poolSeeds.every((x) => Number.isSafeInteger(x) && x >= 0));
  if (!v.ok || !poolOk || !seedsOk) throw new ConfigError([...(v.ok ? [] : v.errors), ...(poolOk ? [] : [`taskPool must be a positive integer (got ${JSON.stringify(taskPool)})`]),
    ...(seedsOk ? [] : ['poolSeeds must be a non-empty list of integer train seeds'])]);
  let world;
  try { world = getWorld(worldName); } catch (e) { throw new ConfigError([(e as Error).message]); }
  const cfg = v.config;
  // A fixed pool of training seeds; each step draws from it by hash so a resumed run draws the same tasks.
  const pool = poolSeeds ?? world.seeds({ split: 'train', difficulty, count: taskPool });
  const evalTasks = world.tasks({ split: 'test', difficulty, count: cfg.evalTasks });
  return new GrpoTrainer(cfg, {
    runtime,
    config: folder.config,
    params: folder.params,
    tokenizer: folder.tokenizer,
    ids: folder.ids,
    profile: profileFromConfig(folder.rawConfig),
    trainTasks: ({ step, count, seed, round = 0, exclude }) => {
      const seen = new Set<number>();
      const out = [];
      for (let i = 0; out.length < count && i < count * 10; i++) {
        // Round 0 keeps the draws of runs from before dynamic sampling; refills hash their round in.
        const s = pool[(round === 0 ? hashSeed('task', seed, step, i) : hashSeed('task', seed, step, 'refill', round, i)) % pool.length];
        if (seen.has(s)) continue;
        seen.add(s);
        const task = world.task(s);
        if (exclude?.has(task.id)) continue;
        out.push(task);
      }
      return out;
    },
    evalTasks,
    store: opts.store,
    runId: opts.runId,
    log: opts.log,
    onProgress: opts.onProgress,
  });
}
