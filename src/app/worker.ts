// The page's handle on the compute worker. One worker per page load: ORT's wasm module is global to its
// worker, so switching backend means reloading with another ?backend= (see StatusBar).

import * as Comlink from 'comlink';
import type { ComputeApi } from '../worker/compute.worker';
import type { BackendInfo } from '../worker/protocol';
import { parseQuery } from './urlState';

export type Api = Comlink.Remote<ComputeApi>;

// The worker starts after the page's first frame: its script (≈0.9 MB) and ORT's init (a 28 MB wasm compile,
// the adapter probe, the backend timing) compete for the CPU, and the Rollout page must paint its shipped
// trace first. Until then, messages for it queue in this endpoint (Comlink only needs postMessage and
// message listeners), so `api` can be used at once.
let real: Worker | null = null;
const queued: [unknown, Transferable[]][] = [];
const listeners: [string, EventListenerOrEventListenerObject, unknown][] = [];
const endpoint: Comlink.Endpoint = {
  postMessage(msg: unknown, transfer: Transferable[] = []) { if (real) real.postMessage(msg, transfer); else queued.push([msg, transfer]); },
  addEventListener(type: string, l: EventListenerOrEventListenerObject, o?: unknown) {
    listeners.push([type, l, o]);
    real?.addEventListener(type, l, o as AddEventListenerOptions);
  },
  removeEventListener(type: string, l: EventListenerOrEventListenerObject, o?: unknown) {
    const i = listeners.findIndex((x) => x[0] === type && x[1] === l);
    if (i >= 0) listeners.splice(i, 1);
    real?.removeEventListener(type, l, o as EventListenerOptions);
  },
};

/**
 * The compute worker died on its own (issue 21): it closed itself, crashed, ran out of memory or failed to start.
 * Every call pending on it rejects with this, and so does every call until the page restarts it (restartWorker:
 * the banner's "Restart the worker" button).
 */
export class ComputeWorkerDied extends Error {
  constructor(readonly reason: string) {
    super(`COMPUTE_WORKER_DIED: ${reason}; what was running in it is lost — "Restart the worker" starts a fresh one`);
    this.name = 'ComputeWorkerDied';
  }
}

let generation = 0;
/** Set while the current worker is dead (until restartWorker). */
let dead: ComputeWorkerDied | null = null;
let failCurrent: (e: ComputeWorkerDied) => void = () => {};
let died: Promise<never> = newDied();
const stateHandlers = new Set<(dead: ComputeWorkerDied | null) => void>();

function newDied(): Promise<never> {
  const p = new Promise<never>((_, reject) => { failCurrent = reject; });
  p.catch(() => { /* observed through the guarded calls */ });
  return p;
}

/** Called with the error when the compute worker dies, and with null once restartWorker replaced it. */
export function onComputeWorker(h: (dead: ComputeWorkerDied | null) => void): () => void {
  stateHandlers.add(h);
  return () => stateHandlers.delete(h);
}

export function computeWorkerDead(): ComputeWorkerDied | null { return dead; }

function die(w: Worker, reason: string): void {
  if (w !== real || dead) return; // an older worker, or already reported
  dead = new ComputeWorkerDied(reason);
  w.terminate();
  failCurrent(dead);
  for (const h of stateHandlers) h(dead);
}

/**
 * Liveness, as for the training worker (src/worker/liveness.ts): before it answers, an 'error' event means the
 * script never started; a message the page cannot read is fatal; afterwards the worker holds a Web Lock for its life
 * and the page is granted that lock exactly when it is gone — no polling, no false alarm while it computes.
 */
function watch(w: Worker): void {
  let started = false;
  w.addEventListener('error', (ev) => { if (!started) die(w, `the compute worker failed to start: ${ev.message || 'its script failed to load'}`); });
  w.addEventListener('messageerror', () => die(w, 'the compute worker sent a message the page could not read'));
  const locks = typeof navigator !== 'undefined' ? (navigator as Navigator & { locks?: LockManager }).locks : undefined;
  raw.alive().then((name) => {
    started = true;
    if (!name || !locks || w !== real) return;
    void locks.request(name, () => die(w, 'the compute worker stopped unexpectedly (it closed, crashed or ran out of memory)'));
  }, () => { /* a worker that dies before answering is caught by its error event */ });
}

/** Start the compute worker (idempotent): called after the first frame, or at the latest after 4 s. */
export function startWorker(): void {
  if (real) return;
  generation++;
  real = new Worker(new URL('../worker/compute.worker.ts', import.meta.url), { type: 'module', name: `envace-compute-${generation}` });
  for (const [type, l, o] of listeners) real.addEventListener(type, l, o as AddEventListenerOptions);
  for (const [m, t] of queued.splice(0)) real.postMessage(m, t);
  watch(real);
}
setTimeout(startWorker, 4000);

const raw = Comlink.wrap<ComputeApi>(endpoint);

/**
 * A call on the current worker, or a ComputeWorkerDied rejection if it dies first (a dead worker never answers).
 * Every call but init waits for the worker's init (a restarted worker is asked at once, before its runtime exists);
 * a failed init lets the call through to fail with its own error.
 */
function guarded<T>(key: string, call: () => Promise<T>): Promise<T> {
  if (dead) return Promise.reject(dead);
  const mine = died;
  const go = key === 'init' ? call() : ready.then(call, call);
  return Promise.race([go, mine]);
}

/** The worker's RPCs as the pages call them: every call settles, with ComputeWorkerDied when the worker died. */
export const api: Api = new Proxy(raw, {
  get(target, key) {
    const v = (target as unknown as Record<string | symbol, unknown>)[key];
    if (typeof key !== 'string' || key === 'then' || typeof v !== 'function') return v;
    return (...args: unknown[]) => guarded(key, () => (v as (...a: unknown[]) => Promise<unknown>)(...args));
  },
});

const q = parseQuery(location.search);
/** The current worker's init (replaced by restartWorker). */
export let ready: Promise<BackendInfo> = api.init({ backend: q.backend, threads: q.threads });

/** The current worker's init (the live `ready`, for code that shadows the name). */
export function currentReady(): Promise<BackendInfo> { return ready; }

/** Replace a dead compute worker with a fresh one (the page's retry); returns the new worker's init. */
export function restartWorker(): Promise<BackendInfo> {
  real?.terminate();
  real = null;
  dead = null;
  died = newDied();
  ready = api.init({ backend: q.backend, threads: q.threads });
  startWorker();
  if (typeof __ENVACE_E2E__ !== 'undefined' && __ENVACE_E2E__ && window.__envace) window.__envace.ready = ready;
  for (const h of stateHandlers) h(null);
  return ready;
}

// Errors thrown in the worker arrive as Error with the worker's message; strip comlink noise for display.
export function errorText(e: unknown): string {
  if (e instanceof Error) return e.message;
  return String(e);
}

export function isNotAvailable(e: unknown): boolean {
  return errorText(e).startsWith('not available yet');
}

// e2e handle: specs drive the same RPCs the pages use (never a second code path). Only in the Playwright build
// (src/e2e-flag.d.ts): a production bundle has no window handle on the worker (tests/build/bundle.test.ts).
declare global { interface Window { __envace?: { api: Api; ready: Promise<BackendInfo> } } }
if (typeof __ENVACE_E2E__ !== 'undefined' && __ENVACE_E2E__) window.__envace = { api, ready };
