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

/** Start the compute worker (idempotent): called after the first frame, or at the latest after 4 s. */
export function startWorker(): void {
  if (real) return;
  real = new Worker(new URL('../worker/compute.worker.ts', import.meta.url), { type: 'module', name: 'envace-compute' });
  for (const [type, l, o] of listeners) real.addEventListener(type, l, o as AddEventListenerOptions);
  for (const [m, t] of queued.splice(0)) real.postMessage(m, t);
}
setTimeout(startWorker, 4000);

export const api: Api = Comlink.wrap<ComputeApi>(endpoint);

const q = parseQuery(location.search);
export const ready: Promise<BackendInfo> = api.init({ backend: q.backend, threads: q.threads });

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
