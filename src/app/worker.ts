// The page's handle on the compute worker. One worker per page load: ORT's wasm module is global to its
// worker, so switching backend means reloading with another ?backend= (see StatusBar).

import * as Comlink from 'comlink';
import type { ComputeApi } from '../worker/compute.worker';
import type { BackendInfo } from '../worker/protocol';
import { parseQuery } from './urlState';

export type Api = Comlink.Remote<ComputeApi>;

const worker = new Worker(new URL('../worker/compute.worker.ts', import.meta.url), { type: 'module', name: 'envace-compute' });
export const api: Api = Comlink.wrap<ComputeApi>(worker);

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

// e2e handle: specs drive the same RPCs the pages use (never a second code path).
declare global { interface Window { __envace?: { api: Api; ready: Promise<BackendInfo> } } }
window.__envace = { api, ready };
