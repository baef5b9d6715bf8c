// Checkpoints in the browser: IndexedDB (available in workers and pages, survives reloads and crashes).
import type { CheckpointStore } from './checkpoint';

const DB = 'envace-checkpoints';
const STORE = 'runs';

function open(): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const req = indexedDB.open(DB, 1);
    req.onupgradeneeded = () => { req.result.createObjectStore(STORE); };
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error ?? new Error('IndexedDB open failed'));
  });
}

function tx<T>(mode: IDBTransactionMode, fn: (s: IDBObjectStore) => IDBRequest<T>): Promise<T> {
  return open().then((db) => new Promise<T>((resolve, reject) => {
    const t = db.transaction(STORE, mode);
    const req = fn(t.objectStore(STORE));
    t.oncomplete = () => { db.close(); resolve(req.result); };
    t.onerror = () => { db.close(); reject(t.error ?? new Error('IndexedDB transaction failed')); };
    t.onabort = () => { db.close(); reject(t.error ?? new Error('IndexedDB transaction aborted (quota?)')); };
  }));
}

export class IndexedDbCheckpointStore implements CheckpointStore {
  async save(runId: string, bytes: Uint8Array) { await tx('readwrite', (s) => s.put(bytes, runId)); }
  async load(runId: string) {
    const v = await tx<unknown>('readonly', (s) => s.get(runId));
    return v instanceof Uint8Array ? v : v instanceof ArrayBuffer ? new Uint8Array(v) : null;
  }
  async list() { return (await tx<IDBValidKey[]>('readonly', (s) => s.getAllKeys())).map(String); }
  async remove(runId: string) { await tx('readwrite', (s) => s.delete(runId)); }
}

export function indexedDbAvailable(): boolean { return typeof indexedDB !== 'undefined'; }
