// The Rollout page's last computed traces, kept in IndexedDB keyed by the request that produced them (issue 24):
// a reload, or reopening the page's link in this browser, shows the same trace instead of the shipped demo. A
// fresh browser (a shared link opened elsewhere) has nothing stored and recomputes instead (autorun=1).
// Best effort: a browser without IndexedDB (or one that refuses it) just keeps nothing.

import type { RolloutRequest, ShownTrajectory } from '../../../worker/protocol';

export interface StoredTrace {
  /** traceKey(request, generations) */
  key: string;
  source: 'run' | 'step';
  request: RolloutRequest;
  trajectories: ShownTrajectory[];
  /** Step views: generations shown and whether nothing is cut any more. */
  generations?: number;
  done?: boolean;
  ms?: number;
  savedAt: number;
}

const DB = 'envace-rollout-traces';
const STORE = 'traces';
/** Older entries beyond this many are dropped (a trace is tens of kB). */
const KEEP = 24;

/** One key per (request, generations shown): the same settings and r.gen find the same trace. 0 = a full run. */
export function traceKey(req: RolloutRequest, generations: number): string {
  const canonical = Object.fromEntries(Object.entries(req).filter(([, v]) => v !== undefined).sort(([a], [b]) => a.localeCompare(b)));
  return `${JSON.stringify(canonical)}#gen=${generations}`;
}

let opened: Promise<IDBDatabase | null> | null = null;

function open(): Promise<IDBDatabase | null> {
  return (opened ??= new Promise((resolve) => {
    try {
      if (typeof indexedDB === 'undefined') { resolve(null); return; }
      const r = indexedDB.open(DB, 1);
      r.onupgradeneeded = () => { r.result.createObjectStore(STORE, { keyPath: 'key' }).createIndex('savedAt', 'savedAt'); };
      r.onsuccess = () => resolve(r.result);
      r.onerror = () => resolve(null);
      r.onblocked = () => resolve(null);
    } catch { resolve(null); }
  }));
}

function done(t: IDBTransaction): Promise<void> {
  return new Promise((resolve) => { t.oncomplete = () => resolve(); t.onerror = () => resolve(); t.onabort = () => resolve(); });
}

export async function saveTrace(t: Omit<StoredTrace, 'savedAt'>): Promise<void> {
  const db = await open();
  if (!db) return;
  try {
    const tx = db.transaction(STORE, 'readwrite');
    const store = tx.objectStore(STORE);
    store.put({ ...t, savedAt: Date.now() });
    // Keep the newest KEEP entries.
    const keys = store.index('savedAt').getAllKeys();
    keys.onsuccess = () => {
      const all = keys.result as IDBValidKey[];
      for (const k of all.slice(0, Math.max(0, all.length - KEEP))) store.delete(k);
    };
    await done(tx);
  } catch { /* quota or a closed database: nothing kept */ }
}

export async function loadTrace(key: string): Promise<StoredTrace | null> {
  const db = await open();
  if (!db) return null;
  try {
    const tx = db.transaction(STORE, 'readonly');
    const r = tx.objectStore(STORE).get(key);
    return await new Promise((resolve) => {
      r.onsuccess = () => resolve((r.result as StoredTrace | undefined) ?? null);
      r.onerror = () => resolve(null);
    });
  } catch { return null; }
}
