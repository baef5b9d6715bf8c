// Backend verdicts remembered per WebGPU adapter (issue 24): once a fallback adapter has been timed against WASM,
// later starts on the same adapter (this page's reloads, the training worker) use the verdict instead of timing
// again. Kept in the worker's IndexedDB; best effort (no IndexedDB, e.g. in Node: nothing is remembered).

import type { RememberedVerdict } from './backend-choice';
import type { AdapterDescription } from './protocol';

const DB = 'envace-backend-verdicts';
const STORE = 'verdicts';

/** One key per adapter as the worker sees it (vendor, architecture, device, description, fallback flag). */
export function adapterKey(d: AdapterDescription): string {
  return [d.vendor, d.architecture, d.device, d.description, d.isFallbackAdapter ? 'fallback' : 'hardware'].join('|');
}

function open(): Promise<IDBDatabase | null> {
  return new Promise((resolve) => {
    try {
      if (typeof indexedDB === 'undefined') { resolve(null); return; }
      const r = indexedDB.open(DB, 1);
      r.onupgradeneeded = () => { r.result.createObjectStore(STORE); };
      r.onsuccess = () => resolve(r.result);
      r.onerror = () => resolve(null);
      r.onblocked = () => resolve(null);
    } catch { resolve(null); }
  });
}

function isVerdict(x: unknown): x is RememberedVerdict {
  const v = x as RememberedVerdict | null;
  return !!v && (v.kind === 'wasm' || v.kind === 'webgpu') && typeof v.at === 'number'
    && !!v.timing && Number.isFinite(v.timing.wasmMs) && Number.isFinite(v.timing.webgpuMs);
}

export async function loadVerdict(key: string): Promise<RememberedVerdict | null> {
  const db = await open();
  if (!db) return null;
  try {
    const r = db.transaction(STORE, 'readonly').objectStore(STORE).get(key);
    const v = await new Promise<unknown>((resolve) => { r.onsuccess = () => resolve(r.result); r.onerror = () => resolve(null); });
    return isVerdict(v) ? v : null;
  } catch { return null; } finally { db.close(); }
}

export async function saveVerdict(key: string, v: RememberedVerdict): Promise<void> {
  const db = await open();
  if (!db) return;
  try {
    const tx = db.transaction(STORE, 'readwrite');
    tx.objectStore(STORE).put(v, key);
    await new Promise<void>((resolve) => { tx.oncomplete = () => resolve(); tx.onerror = () => resolve(); tx.onabort = () => resolve(); });
  } catch { /* nothing remembered */ } finally { db.close(); }
}
