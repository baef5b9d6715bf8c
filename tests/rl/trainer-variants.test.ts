// One training step of every variant through the public GrpoTrainer API, on the shipped tiny SFT model (it
// emits tool calls, so Rehearse rows exist). Weight decay is 0, so a weight can move only through the
// policy-gradient or KL terms: a change shows that the variant's rows reached that model.
import { beforeAll, describe, expect, it } from 'vitest';
import { aggregateVerdict, type RolloutJudge } from '../../src/agent/rollout';
import { profileFromConfig, type PromptProfile } from '../../src/agent/profile';
import type { Params } from '../../src/engine/decoder';
import type { AggMode } from '../../src/engine/losses';
import { loadModelFolder, type ModelFolder } from '../../src/engine/modelFolder';
import { nodeRuntime } from '../../src/engine/runtime-node';
import { getWorld } from '../../src/envs/worlds/index';
import { VARIANTS, type VariantName } from '../../src/rl/advantages';
import { DEFAULT_TRAIN_CONFIG, GrpoTrainer, type TrainConfig } from '../../src/rl/trainer';

const world = getWorld('files');
const pool = world.tasks({ split: 'train', count: 8 });
let folder: ModelFolder;
beforeAll(async () => { folder = await loadModelFolder('models/envace-tiny'); });

/**
 * A judge whose episode scores differ between the K rollouts of a task (0.2, 0.9, 0.5, 0.7 in finishing
 * order), so group baselines leave non-zero advantages whatever the tiny model writes.
 */
function spreadJudge(scores = [0.2, 0.9, 0.5, 0.7]): RolloutJudge {
  let n = 0;
  return {
    judgeTurn: (_task, turn) => ({ turn, score: 0, items: [], terminated: false }),
    judgeEpisode: (task) => ({ ...aggregateVerdict(task, [], false), score: scores[n++ % scores.length] }),
  };
}

function trainer(over: Partial<TrainConfig>, judge: RolloutJudge = spreadJudge(), profile: PromptProfile = profileFromConfig(folder.rawConfig)): GrpoTrainer {
  const cfg: TrainConfig = {
    ...DEFAULT_TRAIN_CONFIG, seed: 1, tasksPerStep: 1, groupSize: 3, maxTurns: 3, microBatch: 8, dynamicSampling: false, warmupSteps: 0,
    evalTasks: 1, checkpointEvery: 0, weightDecay: 0, lr: 1e-3, ...over,
  };
  return new GrpoTrainer(cfg, {
    runtime: nodeRuntime(), config: folder.config, params: folder.params, tokenizer: folder.tokenizer, ids: folder.ids,
    profile,
    trainTasks: ({ step, count }) => Array.from({ length: count }, (_, i) => pool[(step * count + i) % pool.length]),
    evalTasks: pool.slice(0, 1), runId: 'variants', judge,
  });
}

const snapshot = (p: Params): Params => Object.fromEntries(Object.entries(p).map(([k, v]) => [k, v.slice()]));
/** Tensors whose values differ (by name). */
function changed(before: Params, after: Params): string[] {
  return Object.keys(before).filter((k) => before[k].some((x, i) => x !== after[k][i]));
}

describe('one training step of every variant (weight decay 0, non-zero advantages)', () => {
  for (const name of Object.keys(VARIANTS) as VariantName[]) {
    const v = VARIANTS[name];
    it(`${name}: every trained model changes${v.rolloutMode === 'simulator' ? ', the frozen simulator does not' : ''}`, async () => {
      const t = trainer({ variant: name });
      const act0 = snapshot(t.actParams());
      const reh0 = snapshot(t.rehearseParams());
      const frozen0 = snapshot(t.frozenParams());
      const m = await t.trainStep();
      expect(m.skipped).toBe(false);
      expect(m.klLoss).toBe(0); // klType 'none'
      // Preconditions: the roles this variant trains have rows with non-zero advantages.
      expect(m.advActAbs).toBeGreaterThan(0);
      if (v.trainRoles.includes('rehearse')) expect(m.advRehearseAbs).toBeGreaterThan(0);
      else expect({ rewardRehearse: m.rewardRehearse, advRehearseAbs: m.advRehearseAbs }).toEqual({ rewardRehearse: 0, advRehearseAbs: 0 });

      expect(changed(act0, t.actParams()).length).toBeGreaterThan(0);
      if (v.models === 'per-role') {
        expect(t.rehearseParams()).not.toBe(t.actParams());
        expect(changed(reh0, t.rehearseParams()).length).toBeGreaterThan(0);
        // Two models trained on different rows end up different.
        expect(changed(t.actParams(), t.rehearseParams()).length).toBeGreaterThan(0);
      } else {
        expect(t.rehearseParams()).toBe(t.actParams());
      }
      // The starting weights (frozen simulator, KL reference) are never trained.
      expect(changed(frozen0, t.frozenParams())).toEqual([]);
      expect(changed(snapshot(folder.params), t.frozenParams())).toEqual([]);
    });
  }

  it('control: with every reward 0 (advantages 0) and weight decay 0 nothing moves', async () => {
    const t = trainer({ variant: 'per-role' }, spreadJudge([0]));
    const act0 = snapshot(t.actParams());
    const reh0 = snapshot(t.rehearseParams());
    const m = await t.trainStep();
    expect(m.rows).toBeGreaterThan(0);
    expect([m.advActAbs, m.advRehearseAbs]).toEqual([0, 0]);
    expect(changed(act0, t.actParams())).toEqual([]);
    expect(changed(reh0, t.rehearseParams())).toEqual([]);
  });
});

describe('reward after a fatal error, in a training step', () => {
  it("default keeps the episode's earned reward; 'zero-episode' zeroes error-ended episodes", async () => {
    // The judge gives every episode 0.5, whatever happened; the tiny model often ends one with a parse error.
    const keep = await trainer({ variant: 'envace' }, spreadJudge([0.5])).trainStep();
    const zero = await trainer({ variant: 'envace', errorReward: 'zero-episode' }, spreadJudge([0.5])).trainStep();
    expect(zero.rows).toBe(keep.rows); // same rollouts (same seed): only the reward rule differs
    expect(keep.reward).toBeCloseTo(0.5, 9);
    expect(zero.reward).toBeLessThan(0.5);
    expect(zero.reward).toBeGreaterThanOrEqual(0);
  });
});

describe('KL to the reference model', () => {
  for (const klType of ['k1', 'k2', 'k3'] as const) {
    it(`${klType}: zero while the policy equals the reference, non-zero once it has moved`, async () => {
      const t = trainer({ variant: 'envace', klType, klCoef: 0.1, lr: 1e-2 });
      const m1 = await t.trainStep();
      expect(Math.abs(m1.klLoss)).toBeLessThan(1e-5);
      const m2 = await t.trainStep();
      expect(Number.isFinite(m2.klLoss)).toBe(true);
      if (klType === 'k1') expect(Math.abs(m2.klLoss)).toBeGreaterThan(1e-6);
      else expect(m2.klLoss).toBeGreaterThan(1e-6); // k2 and k3 are non-negative estimators
      expect(changed(snapshot(folder.params), t.frozenParams())).toEqual([]);
    });
  }
});

// How each aggregation mode weighs rows across graph calls (packing, micro-batches) is tested against the
// row-by-row computation in tests/rl/update.test.ts; here: every mode reaches the trainer's update.
describe('every loss aggregation mode through the trainer', () => {
  it('same rollouts, a different and finite update per mode', async () => {
    const modes: AggMode[] = ['token-mean', 'seq-mean-token-mean', 'seq-mean-token-sum', 'seq-mean-token-sum-norm'];
    const steps = [];
    for (const lossAggMode of modes) steps.push(await trainer({ variant: 'envace', lossAggMode }).trainStep());
    for (const m of steps) {
      expect([m.rows, m.tokens, m.reward]).toEqual([steps[0].rows, steps[0].tokens, steps[0].reward]);
      expect(m.skipped).toBe(false);
      expect(Number.isFinite(m.loss) && m.gradNorm > 0).toBe(true);
    }
    expect(new Set(steps.map((m) => m.gradNorm.toPrecision(6))).size).toBe(modes.length);
  });
});
