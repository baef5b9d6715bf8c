// Checkpoints in the browser: IndexedDB (available in workers and pages, survives reloads and crashes).
import type { CheckpointStore } from './checkpoint';

const DB = 'envace-checkpoints';
const STORE = 'runs';

/**
 * The browser refused a checkpoint for lack of space. The write's transaction was aborted, so the previous
 * checkpoint of the run is still there; the caller should pause rather than fail (quotaPauseMessage).
 */
export class CheckpointQuotaError extends Error {
  constructor(readonly runId: string, readonly bytes: number, cause?: unknown) {
    super(`storage quota exceeded writing a ${sizeText(bytes)} checkpoint of ${runId}`);
    this.name = 'CheckpointQuotaError';
    if (cause !== undefined) (this as { cause?: unknown }).cause = cause;
  }
}

/** Bytes as a person reads them: MB from 1 MiB up, else kB (a few kB is not "0.0 MB"). */
export function sizeText(bytes: number): string {
  return bytes >= 2 ** 20 ? `${(bytes / 2 ** 20).toFixed(1)} MB` : `${Math.max(1, Math.round(bytes / 1024))} kB`;
}

/**
 * What a run says when not even its settings could be stored at Start (the storage is already full): null when
 * `e` is not a quota failure. Nothing was trained yet, so nothing is lost; the run does not start.
 */
export function quotaStartMessage(e: unknown, bytes: number): string | null {
  if (!isQuotaError(e)) return null;
  return `the browser's storage is full: not even this run's settings (${sizeText(bytes)}) could be saved, so it did not start `
    + '(nothing was trained, nothing is lost). Free space (remove old runs, or export one), then start again.';
}

/** A quota failure however it arrives: our error, or the DOMException IndexedDB raises. */
export function isQuotaError(e: unknown): boolean {
  const name = (e as { name?: unknown } | null)?.name;
  return e instanceof CheckpointQuotaError || name === 'QuotaExceededError' || name === 'NS_ERROR_DOM_QUOTA_REACHED';
}

/**
 * What a training run says when a checkpoint could not be stored: null when `e` is not a quota failure
 * (fail as usual), else the pause message. Nothing is lost: the weights stay in the worker's memory and the
 * last stored checkpoint (step `lastSaved`) is intact.
 */
export function quotaPauseMessage(e: unknown, step: number, lastSaved: number): string | null {
  if (!isQuotaError(e)) return null;
  return `paused: the browser's storage is full, so the checkpoint at step ${step} could not be saved `
    + `(the last saved checkpoint, step ${lastSaved}, is intact and the weights are still in memory). `
    + 'Free space (remove old runs, or export this one), then resume.';
}

function open(): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const req = indexedDB.open(DB, 1);
    req.onupgradeneeded = () => { req.result.createObjectStore(STORE); };
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error ?? new Error('IndexedDB open failed'));
  });
}

function tx<T>(mode: IDBTransactionMode, fn: (s: IDBObjectStore) => IDBRequest<T>, onQuota?: (cause: unknown) => Error): Promise<T> {
  return open().then((db) => new Promise<T>((resolve, reject) => {
    const fail = (e: unknown, fallback: string) => {
      db.close();
      const err = e ?? new Error(fallback);
      reject(onQuota && isQuotaError(err) ? onQuota(err) : err);
    };
    let req: IDBRequest<T>;
    let t: IDBTransaction;
    try {
      t = db.transaction(STORE, mode);
      req = fn(t.objectStore(STORE));
    } catch (e) { fail(e, 'IndexedDB request failed'); return; }
    t.oncomplete = () => { db.close(); resolve(req.result); };
    t.onerror = () => fail(t.error, 'IndexedDB transaction failed');
    t.onabort = () => fail(t.error, 'IndexedDB transaction aborted');
  }));
}

export class IndexedDbCheckpointStore implements CheckpointStore {
  async save(runId: string, bytes: Uint8Array) {
    await tx('readwrite', (s) => s.put(bytes, runId), (cause) => new CheckpointQuotaError(runId, bytes.byteLength, cause));
  }
  async load(runId: string) {
    const v = await tx<unknown>('readonly', (s) => s.get(runId));
    return v instanceof Uint8Array ? v : v instanceof ArrayBuffer ? new Uint8Array(v) : null;
  }
  async list() { return (await tx<IDBValidKey[]>('readonly', (s) => s.getAllKeys())).map(String); }
  async remove(runId: string) { await tx('readwrite', (s) => s.delete(runId)); }
}

export function indexedDbAvailable(): boolean { return typeof indexedDB !== 'undefined'; }

/**
 * Why checkpoints cannot go to IndexedDB here, or null when they can: absent, or present but failing to open or
 * to start a transaction (some private modes, a blocked or broken profile). The caller then keeps checkpoints in
 * memory and says so (issue 21), instead of failing every save.
 */
export async function indexedDbProblem(): Promise<string | null> {
  if (!indexedDbAvailable()) return 'IndexedDB is not available in this browser';
  try {
    await tx('readonly', (s) => s.count());
    return null;
  } catch (e) {
    return `IndexedDB could not be opened (${e instanceof Error ? `${e.name}: ${e.message}` : String(e)})`;
  }
}
