// Every training task's expert must fit the default training limits with room to spare: a cap an expert
// cannot fit under makes that task unwinnable, and a variant is then trained towards ending early.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { TINY_PROFILE, type PromptProfile } from '../../src/agent/profile';
import { DEFAULT_LIMITS, rollout } from '../../src/agent/rollout';
import { expertGenerator } from '../../src/agent/testing';
import { listWorlds } from '../../src/envs/worlds/index';
import { DEFAULT_TRAIN_CONFIG, TRAIN_TASK_POOL } from '../../src/rl/trainer';

/** Headroom over the longest expert: an agent may need a retry or a clarifying turn the expert did not. */
const ROOM = 1.5;

const shippedProfiles: [string, PromptProfile][] = ['envace-tiny', 'envace-small'].map((m) => {
  const raw = JSON.parse(readFileSync(`models/${m}/config.json`, 'utf8')) as { envace: { profile: PromptProfile } };
  return [m, raw.envace.profile];
});
/** The generation cap a training rollout runs under: the model profile's (the trainer overrides only turns). */
const generationCaps: [string, number][] = [['TINY_PROFILE', TINY_PROFILE.limits.maxGenerations ?? DEFAULT_LIMITS.maxGenerations],
  ...shippedProfiles.map(([m, p]): [string, number] => [m, p.limits.maxGenerations ?? DEFAULT_LIMITS.maxGenerations])];

describe('default training limits fit every expert of the training pool', () => {
  for (const world of listWorlds()) {
    it(`${world.name}: the ${TRAIN_TASK_POOL} training tasks`, async () => {
      const seeds = world.seeds({ split: 'train', count: TRAIN_TASK_POOL });
      expect(seeds.length).toBe(TRAIN_TASK_POOL);
      let longest = { seed: -1, acts: 0, generations: 0, userTurns: 0 };
      const tooLong: number[] = [];
      for (const seed of seeds) {
        const t = world.task(seed);
        // One Act generation per reference assistant message; one Rehearse generation per tool result.
        const acts = t.reference.filter((m) => m.role === 'assistant').length;
        const generations = acts + t.reference.filter((m) => m.role === 'tool').length;
        if (acts * ROOM > DEFAULT_TRAIN_CONFIG.maxTurns || t.userTurns.length > DEFAULT_LIMITS.maxUserTurns) tooLong.push(seed);
        for (const [, cap] of generationCaps) if (generations > cap) tooLong.push(seed);
        if (acts > longest.acts) longest = { seed, acts, generations, userTurns: t.userTurns.length };
      }
      expect(tooLong).toEqual([]);
      expect(longest.acts).toBeGreaterThan(8); // the old cap of 8 did not fit (72 of the first 400 files tasks)

      // End to end: the longest expert, replayed under the training limits, completes with full reward.
      const task = world.task(longest.seed);
      for (const [name, p] of [['TINY_PROFILE', TINY_PROFILE] as const, ...shippedProfiles]) {
        const [traj] = await rollout([{ task }], {
          mode: 'rehearsal', policy: expertGenerator([task]),
          limits: { ...p.limits, maxAssistantTurns: DEFAULT_TRAIN_CONFIG.maxTurns },
        });
        expect({ name, terminatedBy: traj.terminatedBy, reward: traj.reward }).toEqual({ name, terminatedBy: 'final_turn', reward: 1 });
        expect(traj.rows.filter((r) => r.role === 'act').length).toBe(longest.acts);
      }
    });
  }
});
