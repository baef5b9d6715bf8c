// Dynamic sampling (DAPO) and the update diagnostics: groups whose K rewards are all equal are replaced by fresh
// tasks' groups until the step holds its quota of informative groups; zero-advantage rows are left out of the
// update without changing it; warmup scales the learning rate.
import { beforeAll, describe, expect, it } from 'vitest';
import { aggregateVerdict, type RolloutJudge } from '../../src/agent/rollout';
import { profileFromConfig } from '../../src/agent/profile';
import type { Params } from '../../src/engine/decoder';
import { loadModelFolder, type ModelFolder } from '../../src/engine/modelFolder';
import { nodeRuntime } from '../../src/engine/runtime-node';
import { getWorld } from '../../src/envs/worlds/index';
import type { Task } from '../../src/envs/types';
import { DEFAULT_TRAIN_CONFIG, GrpoTrainer, type TrainConfig } from '../../src/rl/trainer';

const world = getWorld('files');
const pool = world.tasks({ split: 'train', count: 40 });
let folder: ModelFolder;
beforeAll(async () => { folder = await loadModelFolder('models/envace-tiny'); });

/** Rewards vary between the K rollouts only for tasks in `varying`; every other task scores 0.5 each time. */
function taskJudge(varying: Set<string>): RolloutJudge {
  let n = 0;
  return {
    judgeTurn: (_task, turn) => ({ turn, score: 0, items: [], terminated: false }),
    judgeEpisode: (task) => ({ ...aggregateVerdict(task, [], false), score: varying.has(task.id) ? [0.1, 0.9, 0.4][n++ % 3] : 0.5 }),
  };
}

function trainer(over: Partial<TrainConfig>, judge: RolloutJudge, draws: { round: number; ids: string[] }[] = []) {
  const cfg: TrainConfig = {
    ...DEFAULT_TRAIN_CONFIG, seed: 1, tasksPerStep: 2, groupSize: 3, maxTurns: 2, microBatch: 8, warmupSteps: 0,
    evalTasks: 1, checkpointEvery: 0, weightDecay: 0, lr: 1e-3, ...over,
  };
  let next = 0;
  return new GrpoTrainer(cfg, {
    runtime: nodeRuntime(), config: folder.config, params: folder.params, tokenizer: folder.tokenizer, ids: folder.ids,
    profile: profileFromConfig(folder.rawConfig),
    trainTasks: ({ count, round = 0, exclude }) => {
      const out: Task[] = [];
      while (out.length < count && next < pool.length) { const t = pool[next++]; if (!exclude?.has(t.id)) out.push(t); }
      draws.push({ round, ids: out.map((t) => t.id) });
      return out;
    },
    evalTasks: pool.slice(0, 1), runId: 'dyn', judge,
  });
}

const snapshot = (p: Params): Params => Object.fromEntries(Object.entries(p).map(([k, v]) => [k, v.slice()]));
/** Largest absolute difference between two parameter sets of the same shapes. */
function maxAbsDiff(a: Params, b: Params): number {
  let m = 0;
  for (const k of Object.keys(a)) for (let i = 0; i < a[k].length; i++) m = Math.max(m, Math.abs(a[k][i] - b[k][i]));
  return m;
}

describe('dynamic sampling', () => {
  it('refills uninformative groups with fresh tasks until the quota of informative groups is met', async () => {
    // Tasks 0 and 1 (first draw) are constant; 4 and 6 vary: the step must refill to reach 2 informative groups.
    const varying = new Set([pool[4].id, pool[6].id]);
    const draws: { round: number; ids: string[] }[] = [];
    const t = trainer({ maxRefills: 8 }, taskJudge(varying), draws);
    const m = await t.trainStep();
    expect(draws[0].round).toBe(0);
    expect(draws.length).toBeGreaterThan(1);
    expect(draws.slice(1).every((d) => d.round > 0)).toBe(true);
    const drawn = draws.flatMap((d) => d.ids);
    expect(new Set(drawn).size).toBe(drawn.length); // refills never repeat a task of the step
    expect(m.informativeGroups).toBe(2);
    expect(m.groups).toBe(drawn.length);
    expect(m.refills).toBe(drawn.length - 2);
    expect(m.informativeShare).toBeCloseTo(2 / drawn.length, 9);
    // Only the informative groups' rows are trained: every trained row has a non-zero advantage.
    expect(m.rows).toBeGreaterThan(0);
    expect(m.advActAbs).toBeGreaterThan(0);
  });

  it('stops at maxRefills and says so in the metrics', async () => {
    const t = trainer({ maxRefills: 3 }, taskJudge(new Set()));
    const m = await t.trainStep();
    expect(m.informativeGroups).toBe(0);
    expect(m.refills).toBe(3);
    expect(m.groups).toBe(5);
  });

  it('off: the step trains on its first draw only', async () => {
    const draws: { round: number; ids: string[] }[] = [];
    const m = await trainer({ dynamicSampling: false }, taskJudge(new Set()), draws).trainStep();
    expect(draws).toHaveLength(1);
    expect(m.refills).toBe(0);
    expect(m.groups).toBe(2);
  });

  it('leaving zero-advantage rows out changes no weight (the same update as with them)', async () => {
    // One informative group and one constant group, dynamic sampling off so both are in the step: the constant
    // group's rows have advantage 0 and are skipped; the reference computes the same update with them in.
    const varying = new Set([pool[0].id]);
    const a = trainer({ dynamicSampling: false }, taskJudge(varying));
    const w0 = snapshot(a.actParams());
    const ma = await a.trainStep();
    expect(ma.updateRows!).toBeLessThan(ma.rows);
    // Reference: the same rows through the public update path with nothing skipped (KL on with coefficient 0
    // keeps every row and adds nothing to the loss).
    const b = trainer({ dynamicSampling: false, klType: 'k3', klCoef: 0 }, taskJudge(varying));
    const mb = await b.trainStep();
    expect(mb.updateRows).toBe(mb.rows);
    expect(ma.rows).toBe(mb.rows);
    const pa = a.actParams();
    const maxDiff = maxAbsDiff(pa, b.actParams()), moved = maxAbsDiff(pa, w0);
    expect(moved).toBeGreaterThan(1e-5);
    expect(maxDiff).toBeLessThan(moved * 1e-2);
  });

  it("negativeAdvantages 'drop' trains only the rows that beat their group's baseline, and moves the weights otherwise than 'keep'", async () => {
    const varying = new Set([pool[0].id, pool[1].id]);
    const keep = trainer({ dynamicSampling: false }, taskJudge(varying));
    const drop = trainer({ dynamicSampling: false, negativeAdvantages: 'drop' }, taskJudge(varying));
    const w0 = snapshot(keep.actParams());
    const mk = await keep.trainStep();
    const md = await drop.trainStep();
    // Same rollouts and advantages (the metrics are of the computed advantages); fewer rows in the update.
    expect(md.rows).toBe(mk.rows);
    expect(md.advActAbs).toBeCloseTo(mk.advActAbs, 12);
    expect(md.updateRows!).toBeGreaterThan(0);
    expect(md.updateRows!).toBeLessThan(mk.updateRows!);
    const pd = drop.actParams();
    const diff = maxAbsDiff(keep.actParams(), pd), moved = maxAbsDiff(pd, w0);
    expect(moved).toBeGreaterThan(1e-5);
    expect(diff).toBeGreaterThan(1e-6);
  });

  it('reports KL to the initial policy, the update-to-weight ratio and the warmed-up learning rate', async () => {
    const t = trainer({ dynamicSampling: false, warmupSteps: 4, lr: 1e-3 }, taskJudge(new Set(pool.map((x) => x.id))));
    const m1 = await t.trainStep();
    expect(m1.lr).toBeCloseTo(2.5e-4, 12);
    expect(m1.klToInit!).toBeLessThan(1e-4); // the first step samples from the initial policy itself
    expect(m1.updateRatio!).toBeGreaterThan(0);
    const m2 = await t.trainStep();
    expect(m2.lr).toBeCloseTo(5e-4, 12);
    expect(m2.klToInit!).toBeGreaterThan(m1.klToInit!);
    expect(m2.truncatedAct! + m2.truncatedRehearse!).toBeGreaterThanOrEqual(0);
    expect(m2.rewardActTrained).not.toBeNull();
  });
});
