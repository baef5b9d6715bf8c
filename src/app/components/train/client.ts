// Training gets its own instance of the compute worker: a run is long, and killing it (the crash drill,
// or a real crash) must not take the Models/Rollout pages' worker and loaded model down with it. The
// instance is created on first use and can be killed and replaced; a replacement knows nothing of the
// run until it is asked to resume it from IndexedDB.
// A worker that dies on its own is noticed (issue 21): a failed start or an unreadable message ('error' /
// 'messageerror' before it is ready), or the end of the Web Lock it holds for its life (src/worker/liveness.ts:
// it closed itself, crashed or ran out of memory). Then pending calls reject with TrainWorkerDied, and the
// death handlers (runs.ts) mark the run interrupted, so the page shows the failure and offers Resume.

import * as Comlink from 'comlink';
import type { ComputeApi } from '../../../worker/compute.worker';
import type { BackendInfo, BackendRequest, TrainEvent } from '../../../worker/protocol';
import { parseQuery } from '../../urlState';

export type TrainApi = Comlink.Remote<ComputeApi>;

interface Instance {
  worker: Worker; api: TrainApi; ready: Promise<BackendInfo>; generation: number;
  /** Rejects with TrainWorkerDied when the worker dies on its own (never for a page-initiated kill). */
  died: Promise<never>;
  /** Rejects with TrainWorkerKilled when the page terminates the worker (Cancel now, a backend switch). */
  killed: Promise<never>;
  kill: (e: Error) => void;
}

export class TrainWorkerDied extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'TrainWorkerDied';
  }
}

/**
 * The page terminated the worker (Cancel now): calls that were pending on it (a Pause waiting for the step to
 * end) reject with this instead of hanging forever, so the page's busy flag clears and Resume / Start work.
 */
export class TrainWorkerKilled extends Error {
  constructor() {
    super('the training worker was stopped by the page');
    this.name = 'TrainWorkerKilled';
  }
}

let current: Instance | null = null;
let generation = 0;
/** Set after a GPU loss: every later training worker of this page runs on WASM. */
let forced: BackendRequest | null = null;

export function forceBackend(b: BackendRequest): void { forced = b; }
const killHandlers = new Set<() => void>();
const deathHandlers = new Set<(reason: string) => void>();
const errorHandlers = new Set<(text: string) => void>();

export function trainWorker(): Instance {
  if (current) return current;
  const worker = new Worker(new URL('../../../worker/compute.worker.ts', import.meta.url), { type: 'module', name: `envace-train-${generation + 1}` });
  const api = Comlink.wrap<ComputeApi>(worker);
  const q = parseQuery(location.search);
  let fail: (e: Error) => void = () => {};
  const died = new Promise<never>((_, reject) => { fail = reject; });
  died.catch(() => { /* observed through whileAlive and the death handlers */ });
  let kill: (e: Error) => void = () => {};
  const killed = new Promise<never>((_, reject) => { kill = reject; });
  killed.catch(() => { /* observed through whileAlive */ });
  const inst: Instance = { worker, api, ready: api.init({ backend: forced ?? q.backend, threads: q.threads }), generation: ++generation, died, killed, kill };
  current = inst;
  let started = false;
  inst.ready.then(() => { started = true; }, () => { /* the caller reports it */ });
  const die = (reason: string) => {
    if (current !== inst) return; // killed by the page, or already reported
    current = null;
    worker.terminate();
    api[Comlink.releaseProxy]();
    fail(new TrainWorkerDied(reason));
    for (const h of deathHandlers) h(reason);
  };
  // Before it is ready, an error event means the worker never started (its script failed to load or threw).
  // Later ones are uncaught errors inside a living worker: reported, and death is left to the lock.
  worker.addEventListener('error', (ev) => {
    const what = ev.message || 'the worker script failed to load';
    if (!started) die(`the training worker failed to start: ${what}`);
    else for (const h of errorHandlers) h(`uncaught error in the training worker: ${what}`);
  });
  worker.addEventListener('messageerror', () => die('the training worker sent a message the page could not read'));
  const locks = (navigator as Navigator & { locks?: LockManager }).locks;
  void api.alive().then((name) => {
    if (!name || !locks || current !== inst) return;
    // Granted only once the worker's context is gone; a page-initiated kill also releases it (then ignored).
    void locks.request(name, () => die('the training worker stopped unexpectedly (it closed, crashed or ran out of memory)'));
  }, () => { /* a worker that dies before answering is caught by the error event or the kill path */ });
  return inst;
}

/** Called with the reason when the training worker dies on its own (not for killTrainWorker). */
export function onDeath(h: (reason: string) => void): () => void { deathHandlers.add(h); return () => deathHandlers.delete(h); }
/** Called for an uncaught error in a living training worker. */
export function onWorkerError(h: (text: string) => void): () => void { errorHandlers.add(h); return () => errorHandlers.delete(h); }

/**
 * `p`, or a TrainWorkerDied rejection if the current training worker dies first (a dead worker never answers),
 * or a TrainWorkerKilled rejection if the page terminates it first.
 */
export function whileAlive<T>(p: Promise<T>): Promise<T> {
  const inst = current;
  return inst ? Promise.race([p, inst.died, inst.killed]) : p;
}

/** Terminate the training worker as a crash would: no pause, no final checkpoint. */
export function killTrainWorker(): number {
  if (!current) return generation;
  const inst = current;
  inst.worker.terminate();
  // Pending RPCs on a terminated worker never settle: they are rejected here (whileAlive), and dropping the
  // proxy lets them be collected.
  inst.api[Comlink.releaseProxy]();
  current = null;
  inst.kill(new TrainWorkerKilled());
  for (const h of killHandlers) h();
  return generation;
}

export function onKill(h: () => void): () => void { killHandlers.add(h); return () => killHandlers.delete(h); }

export function workerGeneration(): number { return current?.generation ?? 0; }

/** The callback handed to every train RPC; Comlink.proxy keeps it callable from the worker. */
export function eventProxy(handler: (e: TrainEvent) => void) { return Comlink.proxy(handler); }
