// The page notices a training worker that dies on its own (issue 21): the end of the Web Lock the worker
// holds for its life, or an error before it started, rejects pending calls with TrainWorkerDied and marks the
// active run interrupted with the reason (so the Train page shows it and offers Resume). A page-initiated
// kill stays what it was. The browser is faked here (Worker speaking Comlink's wire format, navigator.locks);
// e2e/train-worker-death.spec.ts does the same in Chromium with a worker that closes itself.
import { beforeAll, describe, expect, it } from 'vitest';

type Msg = { id?: string; type?: string; path?: string[] };

class FakeWorker extends EventTarget {
  static all: FakeWorker[] = [];
  terminated = false;
  constructor(readonly url: URL, readonly opts: WorkerOptions) { super(); FakeWorker.all.push(this); }
  postMessage(msg: Msg): void {
    if (this.terminated || msg?.type !== 'APPLY') return;
    const name = msg.path?.[0];
    if (name === 'trainStart' || name === 'trainResume') return; // a worker busy with the run: no answer yet
    const value = name === 'alive' ? `lock-${FakeWorker.all.indexOf(this)}` : name === 'init' ? { kind: 'wasm' } : undefined;
    queueMicrotask(() => this.dispatchEvent(new MessageEvent('message', { data: { id: msg.id, type: 'RAW', value } })));
  }
  terminate(): void { this.terminated = true; }
}

/** Lock requests by name: calling one grants it, i.e. the holder is gone. */
const waiting = new Map<string, () => unknown>();

beforeAll(() => {
  const g = globalThis as Record<string, unknown>;
  g.window = globalThis;
  g.location = { search: '' };
  g.Worker = FakeWorker;
  Object.defineProperty(globalThis, 'navigator', { configurable: true, value: { locks: { request: (name: string, cb: () => unknown) => { waiting.set(name, cb); return new Promise(() => {}); } } } });
});

const tick = () => new Promise((r) => setTimeout(r, 10));

describe('training worker death', () => {
  it('the lock is released: pending calls reject, the active run is interrupted with the reason, a new worker replaces it', async () => {
    const client = await import('../../src/app/components/train/client');
    const runs = await import('../../src/app/components/train/runs');
    const w = client.trainWorker();
    await w.ready;
    await tick();
    const lock = `lock-${FakeWorker.all.indexOf(w.worker as unknown as FakeWorker)}`;
    expect(waiting.has(lock)).toBe(true); // the page waits on the worker's lock
    const started = runs.startRun({ spec: { steps: 3, seed: 1 } } as never);
    await tick();
    const runId = runs.useRuns.getState().activeId!;
    expect(runs.useRuns.getState().runs[0].status?.state).toBe('loading');

    waiting.get(lock)!(); // the worker's context ended
    // the pending trainStart settles instead of hanging (checked against a clock, so a regression fails, not times out)
    expect(await Promise.race([started.then(() => 'settled'), new Promise((r) => setTimeout(() => r('still pending'), 5000))])).toBe('settled');
    const st = runs.useRuns.getState();
    const r = st.runs.find((x) => x.runId === runId)!;
    expect(r.interrupted).toBe(true);
    expect(r.error).toMatch(/the training worker stopped unexpectedly/);
    expect(r.logs.join('\n')).toMatch(/stopped unexpectedly/);
    expect(st.error).toMatch(/stopped unexpectedly/);
    expect((w.worker as unknown as FakeWorker).terminated).toBe(true);
    // the next call gets a fresh worker
    const next = client.trainWorker();
    expect(next).not.toBe(w);
    expect(next.generation).toBe(w.generation + 1);
  });

  it('an error before the worker is ready is a failed start; after it, only a log line', async () => {
    const client = await import('../../src/app/components/train/client');
    const runs = await import('../../src/app/components/train/runs');
    const reasons: string[] = [];
    const off = client.onDeath((why) => reasons.push(why));
    client.killTrainWorker();
    const w = client.trainWorker();
    const pending = client.whileAlive(new Promise(() => {}));
    w.worker.dispatchEvent(Object.assign(new Event('error'), { message: 'SyntaxError: bad chunk' }));
    await expect(pending).rejects.toMatchObject({ name: 'TrainWorkerDied', message: 'the training worker failed to start: SyntaxError: bad chunk' });
    expect(reasons).toEqual(['the training worker failed to start: SyntaxError: bad chunk']);

    const v = client.trainWorker();
    await v.ready;
    await tick();
    runs.useRuns.setState({ activeId: runs.useRuns.getState().runs[0].runId });
    v.worker.dispatchEvent(Object.assign(new Event('error'), { message: 'TypeError: x is undefined' }));
    expect(reasons).toHaveLength(1); // a living worker with an uncaught error is not declared dead
    expect(runs.useRuns.getState().runs[0].logs.at(-1)).toMatch(/uncaught error in the training worker: TypeError: x is undefined/);
    off();
  });

  it('a page-initiated kill is not reported as a death, and its released lock is ignored', async () => {
    const client = await import('../../src/app/components/train/client');
    client.killTrainWorker();
    const w = client.trainWorker();
    await w.ready;
    await tick();
    const reasons: string[] = [];
    const off = client.onDeath((why) => reasons.push(why));
    client.killTrainWorker();
    waiting.get(`lock-${FakeWorker.all.indexOf(w.worker as unknown as FakeWorker)}`)!();
    await tick();
    expect(reasons).toEqual([]);
    off();
  });
});
