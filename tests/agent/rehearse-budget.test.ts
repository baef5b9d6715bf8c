// Every shipped starter's Rehearse budget holds the longest real result of its world's training pool (the one the
// trainer draws from), written as an SFT target; a smaller one cuts imagined results short.
import { describe, expect, it } from 'vitest';
import { profileFromConfig } from '../../src/agent/profile';
import { longestRealResult, rehearseBudget } from '../../src/agent/rehearse-budget';
import { loadModelFolder } from '../../src/engine/modelFolder';
import { getWorld } from '../../src/envs/worlds/index';
import { TRAIN_TASK_POOL } from '../../src/rl/trainer';
import { kvTask } from '../../src/agent/testing';

describe('Rehearse budget', () => {
  it('is the longest reference result plus the margin', () => {
    const t = kvTask();
    const l = longestRealResult([t], (s) => s.length);
    expect(l.results).toBe(2);
    expect(l.tool).toBe('set'); // {"ok":true,...} is the longer of the two results
    expect(rehearseBudget(100)).toBe(118);
  });

  const pools = new Map<string, ReturnType<ReturnType<typeof getWorld>['tasks']>>();
  const pool = (w: string) => pools.get(w) ?? pools.set(w, getWorld(w).tasks({ split: 'train', count: TRAIN_TASK_POOL })).get(w)!;
  for (const [dir, world] of [['models/files-starter', 'files'], ['models/retail-starter', 'retail'], ['models/retail-starter-envace', 'retail']] as const) {
    it(`${dir}: the profile's budget fits every real result of the ${world} training pool`, async () => {
      const folder = await loadModelFolder(dir);
      const budget = profileFromConfig(folder.rawConfig).rehearse.maxNewTokens!;
      const l =  longestRealResult(pool(world), (s) => folder.tokenizer.encode(s).length);
      expect(l.results).toBeGreaterThan(1000);
      expect(budget).toBeGreaterThanOrEqual(l.tokens);
    }, 60_000);
  }
});
