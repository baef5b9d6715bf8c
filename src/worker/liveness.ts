// Liveness of a worker as the page can observe it. A worker that dies on its own (closes itself, runs out of
// memory, is killed by the browser) sends no message and fires no event, so pending calls would never
// settle. Instead the worker holds a Web Lock for its whole life; the page asks for the same lock and is
// granted it exactly when the worker is gone — no polling, and no false alarm while the worker is busy in a
// long synchronous computation (which a ping/heartbeat would mistake for death).

let held: Promise<string | null> | null = null;

/** The name of a lock this worker holds until it ends; null where Web Locks are unavailable. */
export function aliveLock(): Promise<string | null> {
  if (held) return held;
  const locks = typeof navigator !== 'undefined' ? (navigator as Navigator & { locks?: LockManager }).locks : undefined;
  if (!locks) return (held = Promise.resolve(null));
  const scope = typeof self !== 'undefined' && typeof (self as { name?: unknown }).name === 'string' ? (self as { name: string }).name : 'worker';
  const name = `envace-alive:${scope}:${Date.now().toString(36)}:${Math.random().toString(36).slice(2)}`;
  held = new Promise<string | null>((resolve) => {
    // The callback's promise never settles: the lock is released only when this worker's context ends.
    locks.request(name, () => { resolve(name); return new Promise<never>(() => {}); }).catch(() => resolve(null));
  });
  return held;
}
