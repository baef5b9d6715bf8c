// The worker's `referencePaths` option (src/bench/reference-paths.ts) only changes how fast a step runs: a trainer
// on the reference paths (row-by-row padded update, earlier sampler) takes the same step as one on today's paths.
import { describe, expect, it } from 'vitest';
import { nodeRuntime } from '../../src/engine/runtime-node';
import { makeTrainer } from '../../src/rl/session';
import { useReferencePaths } from '../../src/bench/reference-paths';
import { buildTinyFolder } from '../../src/worker/train-tiny';
import * as ReferenceSampler from '../../src/bench/sampler-reference';
import { Sampler } from '../../src/engine/sampler';

describe('reference paths', () => {
  it('a step on the reference paths samples the same rollouts and makes the same update as on the current paths', async () => {
    const folder = await buildTinyFolder({ world: 'files', seed: 1, maxNewTokens: 6 });
    // Dynamic sampling off: the untrained tiny model earns equal rewards, so it would leave no group to update.
    const spec = { world: 'files', difficulty: 1, taskPool: 2, tasksPerStep: 2, groupSize: 2, maxTurns: 2, evalTasks: 1, evalEvery: 0, checkpointEvery: 0, temperature: 1, lr: 1e-3, dynamicSampling: false };
    const current = makeTrainer(folder, nodeRuntime(), spec, { runId: 'cur' });
    const reference = makeTrainer(folder, nodeRuntime(), spec, { runId: 'ref' });
    useReferencePaths(reference);
    const a = await current.trainStep(), b = await reference.trainStep();
    expect(a.rows).toBeGreaterThan(0);
    expect(b.rows).toBe(a.rows);
    expect(b.reward).toBe(a.reward);
    expect(Math.abs(b.loss - a.loss)).toBeLessThan(1e-5);
    expect(Math.abs(b.gradNorm - a.gradNorm)).toBeLessThan(1e-4 * Math.max(1, a.gradNorm));
    // The weights after the step agree to float rounding.
    const pa = (current as unknown as { policies: { model: { params: Record<string, Float32Array> } }[] }).policies[0].model.params;
    const pb = (reference as unknown as { policies: { model: { params: Record<string, Float32Array> } }[] }).policies[0].model.params;
    let worst = 0;
    for (const k of Object.keys(pa)) for (let i = 0; i < pa[k].length; i++) worst = Math.max(worst, Math.abs(pa[k][i] - pb[k][i]));
    expect(worst).toBeLessThan(1e-5);
    // The paths really are the reference ones: its samplers are the earlier sampler, its update is replaced.
    type Internals = { sampler(p: unknown, n: string): Promise<{ release(): Promise<void> }>; update: unknown };
    const sr = await (reference as unknown as Internals).sampler(folder.params, 'check');
    const sc = await (current as unknown as Internals).sampler(folder.params, 'check');
    expect(sr).toBeInstanceOf(ReferenceSampler.Sampler);
    expect(sc).toBeInstanceOf(Sampler);
    await sr.release(); await sc.release();
    expect((reference as unknown as Internals).update).not.toBe((current as unknown as Internals).update);
    expect(() => useReferencePaths({} as never)).toThrow(/internals changed/);
  });
});
