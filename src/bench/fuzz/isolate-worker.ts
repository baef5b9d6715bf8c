// Worker side of the isolated fuzz runner (./isolate.ts). Loads the surface registry, runs setup, then
// generates every case from 0 (so the rng stream is the same as in-process), runs those from `startAt` on,
// and posts each outcome. Before each case it writes the case index and a sequence number into shared
// memory: the main thread's watchdog reads them even while this thread is stuck in a synchronous loop.

import { parentPort, workerData } from 'node:worker_threads';
import { classify, describeError, showInput, snapshotBuiltins, surfaceRng, withBuiltinCheck, type Outcome, type Surface } from './harness';
import { PHASE, SLOT, type WorkerInput, type WorkerMessage } from './isolate';

async function main(): Promise<void> {
  const d = workerData as WorkerInput;
  const port = parentPort!;
  const post = (m: WorkerMessage) => port.postMessage(m);
  const p = new Int32Array(d.progress);
  process.on('unhandledRejection', (e) => post({ t: 'unhandled', i: Atomics.load(p, SLOT.index), error: describeError(e) }));
  const mod = (await import(d.registry)) as Record<string, unknown>;
  const list = typeof mod[d.exportName] === 'function' ? (mod[d.exportName] as () => Surface<unknown>[])() : null;
  const s = list?.find((x) => x.name === d.surface);
  if (!s) { post({ t: 'fatal', error: `no surface ${d.surface} in ${d.registry}#${d.exportName}` }); return; }
  Atomics.store(p, SLOT.phase, PHASE.setup);
  await s.setup?.();
  const skip = new Set(d.skip);
  const r = surfaceRng(d.seed, s.name);
  const builtins = snapshotBuiltins();
  for (let i = 0; i < d.cases; i++) {
    Atomics.store(p, SLOT.index, i);
    Atomics.add(p, SLOT.seq, 1);
    Atomics.store(p, SLOT.phase, PHASE.busy);
    const input = s.generate(r, i);
    if (skip.has(i)) { post({ t: 'describe', i, input: showInput(s, input) }); continue; }
    if (i < d.startAt || d.describeOnly) continue;
    const c0 = performance.now();
    let outcome: Outcome;
    try {
      const out = s.run(input);
      outcome = classify(s, { value: out instanceof Promise ? await out : out });
    } catch (e) {
      outcome = classify(s, { error: e });
    }
    outcome = withBuiltinCheck(builtins, outcome);
    const ms = performance.now() - c0;
    // The watchdog polls; a case that finished over the limit between two polls is still a hang.
    if (outcome.kind === 'code' && ms > d.caseTimeoutMs) outcome = { kind: 'hang', error: `hang: ${Math.round(ms)} ms, over ${d.caseTimeoutMs} ms` };
    post(outcome.kind === 'code' ? { t: 'case', i, outcome } : { t: 'case', i, outcome, input: showInput(s, input) });
    // Back to the event loop once per case: Node reports unhandled rejections only there, so this is what
    // ties a rejection to the case that left it (and keeps a run of synchronous cases from hiding it).
    await new Promise<void>((res) => setImmediate(res));
  }
  Atomics.store(p, SLOT.phase, PHASE.done);
  post({ t: 'done' });
}

main().catch((e) => parentPort?.postMessage({ t: 'fatal', error: describeError(e) } satisfies WorkerMessage));
