// Pause in the training worker's loop (src/worker/train-service.ts) on the built-in tiny model in Node: the step the
// worker names in its 'pausing' answer is the step the run stops after, wherever the Pause lands. Each Pause is sent
// from inside an event the loop emits (a step's progress, its metrics, its evaluation) or at a point the loop cannot
// have left (just after start returns, before the first step's macrotask), so nothing here depends on timing.
// And the yielding runtime the worker trains through (src/worker/yielding-runtime.ts): it lets queued messages in
// before a graph run, and changes no result.
import { afterEach, describe, expect, it } from 'vitest';
import type { Runtime, Session } from '../../src/engine/runtime';
import { nodeRuntime } from '../../src/engine/runtime-node';
import { makeTrainer } from '../../src/rl/session';
import { yieldingRuntime } from '../../src/worker/yielding-runtime';
import type { BackendInfo, TrainEvent, TrainRequest, TrainStatus } from '../../src/worker/protocol';
import type { WebRuntime } from '../../src/worker/runtime-web';
import * as train from '../../src/worker/train-service';
import { buildTinyFolder, TINY_MODEL } from '../../src/worker/train-tiny';

const rt: WebRuntime = { runtime: nodeRuntime(), info: { kind: 'wasm' } as BackendInfo };
let n = 0;

function request(steps: number, evalEvery = 0): TrainRequest {
  return {
    runId: `pause-${++n}`, model: TINY_MODEL, maxNewTokens: 6,
    spec: { world: 'files', seed: 3, steps, tasksPerStep: 1, groupSize: 2, maxTurns: 2, microBatch: 4, evalEvery, evalTasks: 1, evalK: 1, checkpointEvery: 0, dynamicSampling: false, variant: 'grpo-real' },
  };
}

/** Starts (or resumes) a run; `onEvent` may call pause() (kept in `paused`) from inside the loop's own events. */
async function runWith(begin: (cb: train.TrainListener) => Promise<TrainStatus>, onEvent: (e: TrainEvent, pause: () => void) => void) {
  const events: TrainEvent[] = [];
  let paused: Promise<TrainStatus> | null = null;
  const pause = () => { paused ??= train.pause(); };
  let settle: () => void = () => {};
  const ended = new Promise<void>((res) => { settle = res; });
  await begin((e) => {
    events.push(e);
    onEvent(e, pause);
    if (e.type === 'status' && e.status.state !== 'running') settle();
  });
  return { events, ended, paused: () => paused, pause };
}

const fresh = (req: TrainRequest) => (cb: train.TrainListener) => train.start(rt, req, cb);

const named = (events: TrainEvent[]) => events.flatMap((e) => (e.type === 'pausing' ? [e] : []));
const stepsRun = (events: TrainEvent[]) => events.flatMap((e) => (e.type === 'step' ? [e.metrics.step] : []));

afterEach(() => train.setListener(null));

describe('training loop Pause', () => {
  it('sent while step 2 rolls out: the worker names step 2 and the run stops after it', async () => {
    const r = await runWith(fresh(request(5)), (e, pause) => { if (e.type === 'progress' && e.progress.step === 2) pause(); });
    await r.ended;
    const st = await r.paused()!;
    expect(named(r.events)).toEqual([{ type: 'pausing', runId: st.runId, afterStep: 2, evaluation: false }]);
    expect(stepsRun(r.events)).toEqual([1, 2]);
    expect(st).toMatchObject({ state: 'paused', step: 2 });
    // The answer reaches the page before the status that ends the run.
    const i = r.events.findIndex((e) => e.type === 'pausing');
    expect(r.events.slice(i).some((e) => e.type === 'status' && e.status.state === 'paused')).toBe(true);
  }, 120_000);

  it('sent after a step reported its metrics but before its evaluation: that step and its evaluation, nothing more', async () => {
    const r = await runWith(fresh(request(5, 3)), (e, pause) => { if (e.type === 'step' && e.metrics.step === 3) pause(); });
    await r.ended;
    const st = await r.paused()!;
    expect(named(r.events).map((e) => [e.afterStep, e.evaluation])).toEqual([[3, true]]);
    expect(stepsRun(r.events)).toEqual([1, 2, 3]);
    expect(r.events.flatMap((e) => (e.type === 'eval' ? [e.metrics.step] : []))).toEqual([0, 3]);
    expect(st).toMatchObject({ state: 'paused', step: 3 });
  }, 120_000);

  it('sent between steps (start returned, step 1 not begun): the worker names step 0 and runs none', async () => {
    const r = await runWith(fresh(request(3)), () => {});
    r.pause();
    const st = await r.paused()!;
    expect(named(r.events).map((e) => e.afterStep)).toEqual([0]);
    expect(stepsRun(r.events)).toEqual([]);
    expect(st).toMatchObject({ state: 'paused', step: 0 });

    // Resumed, then paused from inside step 2's update: step 2 named, step 2 the last one run.
    const again = await runWith((cb) => train.resume(rt, st.runId!, cb), (e, pause) => { if (e.type === 'progress' && e.progress.phase === 'update' && e.progress.step === 2) pause(); });
    await again.ended;
    expect(named(again.events).map((e) => e.afterStep)).toEqual([2]);
    expect(stepsRun(again.events)).toEqual([1, 2]);
    expect(await again.paused()!).toMatchObject({ state: 'paused', step: 2 });
  }, 120_000);

  it('sent during the last step: the worker names it and the run is done there', async () => {
    const r = await runWith(fresh(request(2)), (e, pause) => { if (e.type === 'progress' && e.progress.step === 2) pause(); });
    await r.ended;
    const st = await r.paused()!;
    expect(named(r.events).map((e) => e.afterStep)).toEqual([2]);
    expect(st).toMatchObject({ state: 'done', step: 2 });
  }, 120_000);
});

describe('yieldingRuntime', () => {
  const order: string[] = [];
  const result = { y: { type: 'float32' as const, data: new Float32Array([1]), dims: [1] } };
  const session: Session = {
    inputNames: ['x'], outputNames: ['y'],
    run: async () => { order.push('run'); return result; },
    runMixed: async () => { order.push('runMixed'); return result; },
    release: async () => { order.push('release'); },
  };
  const fake: Runtime = { backend: { kind: 'cpu', detail: 'fake' }, createSession: async () => session };

  it('a message queued before a graph run is handled first once everyMs have passed; not before then', async () => {
    order.length = 0;
    const s = await yieldingRuntime(fake, 0).createSession(new Uint8Array());
    setTimeout(() => order.push('queued'), 0);
    expect(await s.run({})).toBe(result);
    setTimeout(() => order.push('queued'), 0);
    expect(await s.runMixed({})).toBe(result);
    expect(order).toEqual(['queued', 'run', 'queued', 'runMixed']);

    order.length = 0;
    const late = await yieldingRuntime(fake, 1e9).createSession(new Uint8Array());
    const t = setTimeout(() => order.push('queued'), 0);
    await late.run({});
    await late.runMixed({});
    await late.release();
    clearTimeout(t);
    expect(order).toEqual(['run', 'runMixed', 'release']);
    expect([late.inputNames, late.outputNames]).toEqual([['x'], ['y']]);
  });

  it('a training step through it (a yield before every run) equals one without', async () => {
    const folder = await buildTinyFolder({ world: 'files', seed: 3, maxNewTokens: 6 });
    const spec = { world: 'files', seed: 3, steps: 2, tasksPerStep: 1, groupSize: 2, maxTurns: 2, microBatch: 4, evalTasks: 1, dynamicSampling: false };
    const plain = makeTrainer(folder, nodeRuntime(), spec, { runId: 'plain' });
    const yielding = makeTrainer(folder, yieldingRuntime(nodeRuntime(), 0), spec, { runId: 'yielding' });
    for (let i = 0; i < 2; i++) {
      const [a, b] = [await plain.trainStep(), await yielding.trainStep()];
      const strip = (m: typeof a) => ({ ...m, secondsPerStep: 0, updateSeconds: 0, rolloutSeconds: 0, judgeSeconds: 0, rolloutTokensPerS: 0 });
      expect(strip(b)).toEqual(strip(a));
    }
    expect(Array.from(yielding.actParams()['lm_head.weight']!)).toEqual(Array.from(plain.actParams()['lm_head.weight']!));
  }, 120_000);
});
