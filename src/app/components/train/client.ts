// Training gets its own instance of the compute worker: a run is long, and killing it (the crash drill,
// or a real crash) must not take the Models/Rollout pages' worker and loaded model down with it. The
// instance is created on first use and can be killed and replaced; a replacement knows nothing of the
// run until it is asked to resume it from IndexedDB.

import * as Comlink from 'comlink';
import type { ComputeApi } from '../../../worker/compute.worker';
import type { BackendInfo, BackendRequest, TrainEvent } from '../../../worker/protocol';
import { parseQuery } from '../../urlState';

export type TrainApi = Comlink.Remote<ComputeApi>;

interface Instance { worker: Worker; api: TrainApi; ready: Promise<BackendInfo>; generation: number }

let current: Instance | null = null;
let generation = 0;
/** Set after a GPU loss: every later training worker of this page runs on WASM. */
let forced: BackendRequest | null = null;

export function forceBackend(b: BackendRequest): void { forced = b; }
const killHandlers = new Set<() => void>();

export function trainWorker(): Instance {
  if (current) return current;
  const worker = new Worker(new URL('../../../worker/compute.worker.ts', import.meta.url), { type: 'module', name: `envace-train-${generation + 1}` });
  const api = Comlink.wrap<ComputeApi>(worker);
  const q = parseQuery(location.search);
  current = { worker, api, ready: api.init({ backend: forced ?? q.backend, threads: q.threads }), generation: ++generation };
  return current;
}

/** Terminate the training worker as a crash would: no pause, no final checkpoint. */
export function killTrainWorker(): number {
  if (!current) return generation;
  current.worker.terminate();
  // Pending RPCs on a terminated worker never settle; dropping the proxy lets them be collected.
  current.api[Comlink.releaseProxy]();
  current = null;
  for (const h of killHandlers) h();
  return generation;
}

export function onKill(h: () => void): () => void { killHandlers.add(h); return () => killHandlers.delete(h); }

export function workerGeneration(): number { return current?.generation ?? 0; }

/** The callback handed to every train RPC; Comlink.proxy keeps it callable from the worker. */
export function eventProxy(handler: (e: TrainEvent) => void) { return Comlink.proxy(handler); }
