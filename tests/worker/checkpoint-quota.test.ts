import { afterEach, describe, expect, it, vi } from 'vitest';
import { CheckpointQuotaError, IndexedDbCheckpointStore, indexedDbProblem, isQuotaError, quotaPauseMessage, quotaStartMessage, sizeText } from '../../src/rl/checkpoint-web';

/**
 * Just enough IndexedDB for IndexedDbCheckpointStore: one object store, transactions that commit or abort
 * asynchronously, and a byte quota past which a write aborts its transaction with QuotaExceededError (the
 * stored value is then unchanged, as in a browser).
 */
function fakeIndexedDb(quotaBytes: { value: number }) {
  const data = new Map<string, Uint8Array>();
  const used = () => [...data.values()].reduce((n, b) => n + b.byteLength, 0);
  const transaction = () => {
    const t: Record<string, any> = { error: null };
    const finish = (apply: () => unknown, req: Record<string, unknown>) => {
      setTimeout(() => {
        try {
          req.result = apply();
          t.oncomplete?.();
        } catch (e) {
          t.error = e;
          t.onabort?.();
        }
      }, 0);
      return req;
    };
    t.objectStore = () => ({
      put: (v: Uint8Array, k: string) => finish(() => {
        if (used() - (data.get(k)?.byteLength ?? 0) + v.byteLength > quotaBytes.value) throw new DOMException('quota', 'QuotaExceededError');
        data.set(k, v.slice());
        return k;
      }, {}),
      get: (k: string) => finish(() => data.get(k), {}),
      getAllKeys: () => finish(() => [...data.keys()], {}),
      count: () => finish(() => data.size, {}),
      delete: (k: string) => finish(() => { data.delete(k); }, {}),
    });
    return t;
  };
  const db = { transaction, close: () => {}, createObjectStore: () => {} };
  return {
    data,
    open: () => {
      const req: Record<string, any> = { result: db };
      setTimeout(() => { req.onupgradeneeded?.(); req.onsuccess?.(); }, 0);
      return req;
    },
  };
}

afterEach(() => { vi.unstubAllGlobals(); });

describe('checkpoints when the browser storage is full', () => {
  it('a write over the quota fails as CheckpointQuotaError and leaves the last checkpoint readable', async () => {
    const quota = { value: 1000 };
    const idb = fakeIndexedDb(quota);
    vi.stubGlobal('indexedDB', idb);
    const store = new IndexedDbCheckpointStore();
    const step5 = new Uint8Array(600).fill(5);
    await store.save('run-a', step5);
    const step7 = new Uint8Array(1200).fill(7);
    const err = await store.save('run-a', step7).then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(CheckpointQuotaError);
    expect(isQuotaError(err)).toBe(true);
    expect((err as CheckpointQuotaError).runId).toBe('run-a');
    expect((err as Error).message).toMatch(/storage quota exceeded writing a 1 kB checkpoint of run-a/);
    // nothing lost: the step-5 checkpoint is intact
    expect(await store.load('run-a')).toEqual(step5);
    expect(await store.list()).toEqual(['run-a']);
    // after space is freed the same write succeeds (what resume retries)
    quota.value = 10_000;
    await store.save('run-a', step7);
    expect(await store.load('run-a')).toEqual(step7);
  });

  it('sizes read as kB below 1 MiB and as MB above; a full storage at Start says the run did not start and nothing is lost', () => {
    expect(sizeText(3000)).toBe('3 kB');
    expect(sizeText(10)).toBe('1 kB');
    expect(sizeText(5 * 2 ** 20)).toBe('5.0 MB');
    expect(new CheckpointQuotaError('r', 5e6).message).toMatch(/writing a 4\.8 MB checkpoint of r$/);
    const msg = quotaStartMessage(new DOMException('quota', 'QuotaExceededError'), 2500);
    expect(msg).toMatch(/^the browser's storage is full: not even this run's settings \(2 kB\) could be saved, so it did not start/);
    expect(msg).toMatch(/nothing is lost/);
    expect(quotaStartMessage(new Error('other'), 2500)).toBeNull();
  });

  it('other storage failures stay what they are', async () => {
    vi.stubGlobal('indexedDB', {
      open: () => {
        const req: Record<string, any> = {};
        setTimeout(() => { req.error = new DOMException('blocked', 'UnknownError'); req.onerror?.(); }, 0);
        return req;
      },
    });
    const err = await new IndexedDbCheckpointStore().save('r', new Uint8Array(1)).then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(DOMException);
    expect(isQuotaError(err)).toBe(false);
  });

  it('the run pauses with a message naming the unsaved and the intact step; other errors fail the run', () => {
    const msg = quotaPauseMessage(new CheckpointQuotaError('run-a', 5e6), 7, 5);
    expect(msg).toMatch(/^paused: the browser's storage is full/);
    expect(msg).toMatch(/checkpoint at step 7 could not be saved/);
    expect(msg).toMatch(/last saved checkpoint, step 5, is intact/);
    expect(msg).toMatch(/then resume/);
    expect(quotaPauseMessage(new DOMException('x', 'QuotaExceededError'), 3, 0)).not.toBeNull();
    expect(quotaPauseMessage(new Error('WebGPU device lost'), 3, 0)).toBeNull();
    expect(quotaPauseMessage(undefined, 3, 0)).toBeNull();
  });

  it('an IndexedDB that exists but cannot be opened is named, so the worker keeps checkpoints in memory and says why', async () => {
    vi.stubGlobal('indexedDB', fakeIndexedDb({ value: 1e6 }));
    expect(await indexedDbProblem()).toBeNull();
    vi.stubGlobal('indexedDB', {
      open: () => {
        const req: Record<string, any> = {};
        setTimeout(() => { req.error = new DOMException('A mutation operation was attempted on a database that did not allow mutations.', 'InvalidStateError'); req.onerror?.(); }, 0);
        return req;
      },
    });
    expect(await indexedDbProblem()).toBe('IndexedDB could not be opened (InvalidStateError: A mutation operation was attempted on a database that did not allow mutations.)');
    vi.stubGlobal('indexedDB', undefined);
    expect(await indexedDbProblem()).toBe('IndexedDB is not available in this browser');
  });
});
