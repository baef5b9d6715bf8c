// Screening a training pool to the policy's frontier: tasks whose K rollouts in the real environment do not all
// earn the same reward. Those are the groups GRPO can learn from (a group of equal rewards has zero advantage),
// so a screened pool wastes fewer rollouts than dynamic sampling alone would refill. The screening is a pure
// function of (policy, tasks, k, temperature, seed), and its result is written beside the run (screen.json).

import type { TextGenerator } from '../engine/generator';
import type { Task } from '../envs/types';
import { succeeded } from '../agent/evaluate';
import { hashSeed, rolloutGroups, type RolloutConfig } from '../agent/rollout';

export interface ScreenOptions {
  k: number;
  temperature: number;
  seed: number;
  rollout: Omit<RolloutConfig, 'mode' | 'policy'>;
  /** Tasks per rollout call (memory); default 16. */
  chunk?: number;
  onProgress?: (done: number, total: number) => void;
}

export interface ScreenedTask { id: string; rewards: number[]; success: number; frontier: boolean }

export interface ScreenResult {
  k: number; temperature: number; seed: number;
  candidates: number;
  /** Ids of the frontier tasks, in candidate order. */
  kept: string[];
  tasks: ScreenedTask[];
  seconds: number;
}

export async function screenTasks(tasks: Task[], policy: TextGenerator, o: ScreenOptions): Promise<ScreenResult> {
  const t0 = Date.now();
  const chunk = o.chunk ?? 16;
  const out: ScreenedTask[] = [];
  for (let i = 0; i < tasks.length; i += chunk) {
    const part = tasks.slice(i, i + chunk);
    const trajs = await rolloutGroups(part, o.k, {
      ...o.rollout, mode: 'real', policy, seed: hashSeed('screen', o.seed),
      act: { ...o.rollout.act, temperature: o.temperature },
    });
    part.forEach((task, j) => {
      const mine = trajs.slice(j * o.k, (j + 1) * o.k);
      const rewards = mine.map((t) => t.reward ?? 0);
      out.push({
        id: task.id, rewards, success: mine.reduce((a, t) => a + succeeded(t), 0) / Math.max(1, mine.length),
        frontier: rewards.some((r) => Math.abs(r - rewards[0]) > 1e-9),
      });
    });
    o.onProgress?.(Math.min(tasks.length, i + chunk), tasks.length);
  }
  return { k: o.k, temperature: o.temperature, seed: o.seed, candidates: tasks.length, kept: out.filter((t) => t.frontier).map((t) => t.id), tasks: out, seconds: (Date.now() - t0) / 1000 };
}
