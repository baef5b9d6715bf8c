import { describe, expect, it } from 'vitest';
import { createOrtRuntime, f32, OrtCallQueue, queuedOrtModule, type OrtLike, type OrtModuleLike } from '../../src/engine/runtime';

// A fake ORT module with the JSEP build's rule (issue 42): one run in flight per module. A second run started
// before the first settles throws "Session already started" and clears the marker, so the first then fails with
// "Session mismatch" — the two raw errors a Run clicked during the background WebGPU timing showed.
function jsepLikeOrt(log: string[]) {
  let inFlight: object | null = null;
  const ort = {
    Tensor: class { constructor(readonly type: string, readonly data: Float32Array, readonly dims: number[]) {} },
    InferenceSession: {
      async create(_model: Uint8Array, opts?: Record<string, unknown>) {
        const name = String(opts?.name ?? 's');
        return {
          inputNames: ['x'], outputNames: ['y'],
          async run(feeds: Record<string, { data: Float32Array; dims: number[] }>) {
            try {
              if (inFlight) throw new Error('Session already started');
              const mine = {};
              inFlight = mine;
              log.push(`${name} start`);
              await new Promise((r) => setTimeout(r, 5));
              if (inFlight !== mine) throw new Error('Session mismatch');
              log.push(`${name} end`);
              return { y: { type: 'float32', data: feeds.x!.data, dims: feeds.x!.dims } };
            } finally { inFlight = null; }
          },
          async release() {},
        };
      },
    },
  };
  return ort as unknown as OrtLike;
}

const x = f32([1, 2], [2]);

describe('OrtCallQueue: one ORT call at a time per wasm module', () => {
  it('without a queue two overlapping runs fail each other; with one, both finish in order', async () => {
    const ort = jsepLikeOrt([]);
    const a = await createOrtRuntime(ort, { kind: 'wasm', detail: '' }, { name: 'a' }).createSession(new Uint8Array());
    const b = await createOrtRuntime(ort, { kind: 'webgpu', detail: '' }, { name: 'b' }).createSession(new Uint8Array());
    const raced = await Promise.allSettled([a.run({ x }), b.run({ x })]);
    expect(raced.map((r) => (r.status === 'rejected' ? (r.reason as Error).message : 'ok'))).toEqual(['Session mismatch', 'Session already started']);

    const log: string[] = [];
    const ort2 = jsepLikeOrt(log);
    const q = new OrtCallQueue();
    const qa = await createOrtRuntime(ort2, { kind: 'wasm', detail: '' }, { name: 'a' }, q).createSession(new Uint8Array());
    const qb = await createOrtRuntime(ort2, { kind: 'webgpu', detail: '' }, { name: 'b' }, q).createSession(new Uint8Array());
    const both = await Promise.all([qa.run({ x }), qb.run({ x }), qa.run({ x })]);
    expect(both.map((o) => Array.from(o.y!.data as Float32Array))).toEqual([[1, 2], [1, 2], [1, 2]]);
    expect(log).toEqual(['a start', 'a end', 'b start', 'b end', 'a start', 'a end']);
    expect(q.pending).toBe(0);
  });

  it('a failed call does not block the queue', async () => {
    const q = new OrtCallQueue();
    await expect(q.run(async () => { throw new Error('bad graph'); })).rejects.toThrow('bad graph');
    expect(await q.run(async () => 7)).toBe(7);
  });

  it('exclusive (background work) waits until no call is queued or running, and holds the queue for its block', async () => {
    const log: string[] = [];
    const ort = jsepLikeOrt(log);
    const q = new OrtCallQueue();
    const user = await createOrtRuntime(ort, { kind: 'wasm', detail: '' }, { name: 'user' }, q).createSession(new Uint8Array());
    const timing = await createOrtRuntime(ort, { kind: 'webgpu', detail: '' }, { name: 'timing' }).createSession(new Uint8Array());
    const first = user.run({ x });
    const block = q.exclusive(async () => { await timing.run({ x }); await timing.run({ x }); });
    // A user call made while the block waits or runs is queued behind it, never beside it.
    const later = (async () => { await new Promise((r) => setTimeout(r, 1)); return user.run({ x }); })();
    await Promise.all([first, block, later]);
    expect(log.filter((l) => l.endsWith('start')).length).toBe(4);
    for (let i = 0; i < log.length; i += 2) expect(log[i + 1]).toBe(log[i]!.replace('start', 'end'));
    expect(log[0]).toBe('user start');
  });
});

describe('queuedOrtModule: a library\'s own sessions on the same module (transformers.js, issue 39)', () => {
  it('its session.run calls queue with the runtime\'s, where unqueued they collide; its session stays its own object', async () => {
    const collide = jsepLikeOrt([]);
    const ours = await createOrtRuntime(collide, { kind: 'wasm', detail: '' }, { name: 'ours' }, new OrtCallQueue()).createSession(new Uint8Array());
    const theirs = await (collide as unknown as { InferenceSession: { create(m: Uint8Array, o: object): Promise<{ run(f: object): Promise<unknown> }> } }).InferenceSession.create(new Uint8Array(), { name: 'theirs' });
    const raced = await Promise.allSettled([ours.run({ x }), theirs.run({ x })]);
    expect(raced.map((r) => r.status)).toEqual(['rejected', 'rejected']);

    const log: string[] = [];
    const ort = jsepLikeOrt(log);
    const q = new OrtCallQueue();
    const mine = await createOrtRuntime(ort, { kind: 'wasm', detail: '' }, { name: 'ours' }, q).createSession(new Uint8Array());
    const shared = queuedOrtModule(ort as unknown as OrtModuleLike, q);
    expect(shared.Tensor).toBe((ort as unknown as OrtModuleLike).Tensor);
    const lib = await shared.InferenceSession.create(new Uint8Array(), { name: 'lib' }) as { inputNames: string[]; config?: unknown; run(f: object): Promise<{ y: { data: Float32Array } }>; release(): Promise<void> };
    expect(lib.inputNames).toEqual(['x']);
    lib.config = { model_type: 'llama' }; // transformers.js tags its sessions
    expect(lib.config).toEqual({ model_type: 'llama' });
    const feeds = { x: { type: 'float32', data: new Float32Array([3, 4]), dims: [2] } };
    const all = await Promise.all([mine.run({ x }), lib.run(feeds), mine.run({ x }), lib.run(feeds)]);
    expect(all.map((o) => Array.from(o.y!.data as Float32Array))).toEqual([[1, 2], [3, 4], [1, 2], [3, 4]]);
    expect(log).toEqual(['ours start', 'ours end', 'lib start', 'lib end', 'ours start', 'ours end', 'lib start', 'lib end']);

    // Background work holding the queue (the WebGPU timing) keeps the library's runs out too.
    log.length = 0;
    const timing = await createOrtRuntime(ort, { kind: 'webgpu', detail: '' }, { name: 'timing' }).createSession(new Uint8Array());
    const block = q.exclusive(async () => { await timing.run({ x }); await new Promise((r) => setTimeout(r, 2)); await timing.run({ x }); });
    const during = (async () => { await new Promise((r) => setTimeout(r, 3)); return lib.run(feeds); })();
    await Promise.all([block, during, lib.release()]);
    expect(log.filter((l) => l.endsWith('start'))).toEqual(['timing start', 'timing start', 'lib start']);
    expect(q.pending).toBe(0);
  });
});
