// Persistent storage for training checkpoints (issue 21): without it the browser may evict IndexedDB under
// storage pressure and a run's checkpoints with it. Asked once per page load, on a user action (Start), since
// some browsers prompt; the answer goes into the run's log so the user knows which kind they have.

export type PersistResult = 'persisted' | 'best-effort' | 'unavailable';

let asked: Promise<PersistResult> | null = null;

export function requestPersistentStorage(): Promise<PersistResult> {
  return (asked ??= (async () => {
    const s = typeof navigator !== 'undefined' ? navigator.storage : undefined;
    if (!s || typeof s.persist !== 'function') return 'unavailable';
    try {
      if (typeof s.persisted === 'function' && await s.persisted()) return 'persisted';
      return (await s.persist()) ? 'persisted' : 'best-effort';
    } catch {
      return 'unavailable';
    }
  })());
}

export function persistText(r: PersistResult): string {
  return r === 'persisted' ? 'storage: persistent (the browser keeps checkpoints under storage pressure)'
    : r === 'best-effort' ? 'storage: best-effort (the browser did not grant persistent storage; it may evict checkpoints when space runs low)'
      : 'storage: this browser offers no persistent-storage request; checkpoints are best-effort';
}

/** For tests: forget the cached answer. */
export function resetPersistRequest(): void { asked = null; }
