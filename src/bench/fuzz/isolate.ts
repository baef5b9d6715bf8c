// Runs one fuzz surface in a worker thread under a watchdog (what `npm run fuzz` uses). The worker writes
// the index of the case it is on into shared memory before each case; the main thread polls it. A case that
// makes no progress for the per-case limit — a synchronous infinite loop included, which no in-thread timer
// can interrupt — is counted as a hang under its own index, the worker is terminated (stopping whatever the
// case left running), and a fresh worker resumes after it, regenerating the earlier cases so every case is
// the one the seed names. A worker that dies (an uncaught exception in a callback, out of memory) counts as
// a crash of the case it was on; an unhandled promise rejection counts as a crash of the case it surfaced in.

import { Worker } from 'node:worker_threads';
import { emptyReport, EXAMPLES_PER_KIND, tally, type Outcome, type RunOptions, type SurfaceReport } from './harness';

export const PHASE = { setup: 0, busy: 1, done: 2 } as const;
/** Shared Int32Array slots. */
export const SLOT = { phase: 0, index: 1, seq: 2 } as const;

export interface WorkerInput {
  entry: string;
  registry: string;
  exportName: string;
  surface: string;
  cases: number;
  seed: number;
  startAt: number;
  /** Cases that hung or killed an earlier worker: generated (so the stream stays aligned), described, not run. */
  skip: number[];
  caseTimeoutMs: number;
  progress: SharedArrayBuffer;
  /** Only describe the skipped cases (for a stopped case that had no later case to resume at). */
  describeOnly?: boolean;
}

export type WorkerMessage =
  | { t: 'case'; i: number; outcome: Outcome; input?: string }
  | { t: 'describe'; i: number; input: string }
  | { t: 'unhandled'; i: number; error: string }
  | { t: 'fatal'; error: string }
  | { t: 'done' };

export interface IsolatedRunOptions extends RunOptions {
  /** Module (file URL) exporting a function that returns the surfaces, e.g. src/cli/fuzz.ts#allSurfaces. */
  registry: string;
  exportName: string;
  /** Limit on the surface's setup (loading data, building corpora); default 10 minutes. */
  setupTimeoutMs?: number;
  /** Worker heap cap: a case that exhausts it is a crash, not the end of the run. Default 4096 MB. */
  maxHeapMb?: number;
}

const BOOT = new URL('./isolate-boot.mjs', import.meta.url);
const ENTRY = new URL('./isolate-worker.ts', import.meta.url).href;

type Ended =
  | { kind: 'done' }
  | { kind: 'hang'; at: number; ms: number; why?: string }
  | { kind: 'died'; at: number; error: string }
  | { kind: 'fatal'; error: string; inSetup: boolean };

export async function runSurfaceIsolated(name: string, about: string, o: IsolatedRunOptions): Promise<SurfaceReport> {
  const limit = o.caseTimeoutMs ?? 2000;
  const setupLimit = o.setupTimeoutMs ?? 600_000;
  const report = emptyReport({ name, about });
  /** Cases that hung or killed a worker: tallied once, then skipped (and described) by later workers. */
  const stopped = new Set<number>();
  const counted = new Set<number>();
  let next = 0;
  const t0 = performance.now();
  const example = (i: number) => report.examples.find((x) => x.case === i);

  while (next < o.cases) {
    const progress = new SharedArrayBuffer(3 * Int32Array.BYTES_PER_ELEMENT);
    const p = new Int32Array(progress);
    Atomics.store(p, SLOT.phase, PHASE.setup);
    Atomics.store(p, SLOT.index, -1);
    const data: WorkerInput = {
      entry: ENTRY, registry: o.registry, exportName: o.exportName, surface: name, cases: o.cases, seed: o.seed,
      startAt: next, skip: [...stopped], caseTimeoutMs: limit, progress,
    };
    const worker = new Worker(BOOT, { workerData: data, resourceLimits: { maxOldGenerationSizeMb: o.maxHeapMb ?? 4096 }, stdout: false, stderr: false });
    const ended = await new Promise<Ended>((resolve) => {
      let settled = false;
      const finish = (e: Ended) => { if (settled) return; settled = true; clearInterval(timer); resolve(e); };
      let lastSeq = -1; let since = performance.now(); const started = performance.now();
      const timer = setInterval(() => {
        const phase = Atomics.load(p, SLOT.phase);
        if (phase === PHASE.setup) {
          if (performance.now() - started > setupLimit) { finish({ kind: 'fatal', error: `setup ran over ${setupLimit} ms`, inSetup: true }); void worker.terminate(); }
          return;
        }
        if (phase !== PHASE.busy) return;
        const seq = Atomics.load(p, SLOT.seq);
        if (seq !== lastSeq) { lastSeq = seq; since = performance.now(); return; }
        const stuck = performance.now() - since;
        if (stuck > limit) { finish({ kind: 'hang', at: Atomics.load(p, SLOT.index), ms: stuck }); void worker.terminate(); }
      }, Math.max(5, Math.min(100, Math.floor(limit / 4))));
      worker.on('message', (m: WorkerMessage) => {
        if (settled) return;
        if (m.t === 'case') {
          if (!counted.has(m.i)) { counted.add(m.i); tally(report, m.i, m.outcome, () => m.input ?? ''); }
          next = Math.max(next, m.i + 1);
        } else if (m.t === 'describe') {
          const x = example(m.i);
          if (x) x.input = m.input;
        } else if (m.t === 'unhandled') {
          report.unhandledRejections++;
          report.crashes++;
          if (report.examples.filter((x) => x.kind === 'crash').length < EXAMPLES_PER_KIND) {
            report.examples.push({ case: m.i, input: '(see the case index)', error: `unhandled rejection during or after case ${m.i}: ${m.error}`, kind: 'crash' });
          }
        } else if (m.t === 'fatal') {
          finish({ kind: 'fatal', error: m.error, inSetup: Atomics.load(p, SLOT.phase) === PHASE.setup });
        } else if (m.t === 'done') {
          finish({ kind: 'done' });
        }
      });
      worker.on('error', (e) => finish({ kind: 'died', at: Atomics.load(p, SLOT.index), error: `worker died: ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}` }));
      worker.on('exit', (code) => {
        const phase = Atomics.load(p, SLOT.phase);
        const at = Atomics.load(p, SLOT.index);
        // A worker whose event loop empties while a case is pending: that case's promise can never settle.
        if (code === 0 && phase === PHASE.busy) finish({ kind: 'hang', at, ms: performance.now() - since, why: 'its promise can never settle (nothing left to run)' });
        else if (code === 0) finish({ kind: 'fatal', error: 'worker exited before finishing', inSetup: phase === PHASE.setup });
        else finish({ kind: 'died', at, error: `worker exited with code ${code}` });
      });
    });
    await worker.terminate();

    if (ended.kind === 'done') break;
    if (ended.kind === 'fatal') {
      // A setup or generator failure is the surface's (or the fuzzer's) bug: one crash, and the surface stops.
      report.crashes++;
      report.examples.push({ case: -1, input: ended.inSetup ? '(setup)' : '(generator)', error: ended.error, kind: 'crash' });
      break;
    }
    const at = ended.at;
    if (at < 0 || stopped.has(at)) {
      report.crashes++;
      report.examples.push({ case: at, input: '(between cases)', error: ended.kind === 'died' ? ended.error : 'hang between cases', kind: 'crash' });
      break;
    }
    stopped.add(at);
    if (!counted.has(at)) {
      counted.add(at);
      tally(report, at, ended.kind === 'hang'
        ? { kind: 'hang', error: ended.why ? `hang: ${ended.why}; resumed after it` : `hang: no progress for ${Math.round(ended.ms)} ms (limit ${limit} ms); worker terminated, resumed after it` }
        : { kind: 'crash', error: ended.error }, () => '(not yet described)');
    }
    // Resume at the first case not counted: messages a terminated worker had posted may be lost, and those
    // cases simply run again in the fresh worker (the stopped case itself is only described).
    let first = 0;
    while (first < o.cases && counted.has(first)) first++;
    next = first;
  }
  // The stopped cases are described by the worker that resumed after them; one that was the last case of the
  // surface has no successor, so a short describing pass runs for it.
  const undescribed = [...stopped].filter((i) => example(i)?.input === '(not yet described)');
  if (undescribed.length) await describeCases(name, o, undescribed, (i, input) => { const x = example(i); if (x) x.input = input; });
  report.ms = Math.round(performance.now() - t0);
  return report;
}

/** A worker that only regenerates the cases up to the last of `cases` and describes those (no case runs). */
async function describeCases(name: string, o: IsolatedRunOptions, cases: number[], on: (i: number, input: string) => void): Promise<void> {
  const data: WorkerInput = {
    entry: ENTRY, registry: o.registry, exportName: o.exportName, surface: name, cases: Math.max(...cases) + 1, seed: o.seed,
    startAt: 0, skip: cases, caseTimeoutMs: o.caseTimeoutMs ?? 2000, progress: new SharedArrayBuffer(3 * Int32Array.BYTES_PER_ELEMENT), describeOnly: true,
  };
  const worker = new Worker(BOOT, { workerData: data, stdout: false, stderr: false });
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, o.setupTimeoutMs ?? 600_000);
    const end = () => { clearTimeout(timer); resolve(); };
    worker.on('message', (m: WorkerMessage) => {
      if (m.t === 'describe') on(m.i, m.input);
      if (m.t === 'done' || m.t === 'fatal') end();
    });
    worker.on('error', end);
    worker.on('exit', end);
  });
  await worker.terminate();
}
