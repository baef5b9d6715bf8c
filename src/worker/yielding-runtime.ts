// A runtime whose graph runs let the worker's message queue in. ORT-web's WASM runs resolve through microtasks
// only, so while a training step runs, an RPC (a Pause, a status call) waits in the queue until the step ends:
// the page could not hear which step a Pause stops after until the run had already stopped (issue 42).
// Before a run, once `everyMs` have passed since the last yield, this wraps in one macrotask. Only when runs start
// moves; their inputs and results do not, so training is bit-identical. Cost: at most one timer clamp (4 ms) per
// `everyMs` of compute.

import type { Runtime, Session } from '../engine/runtime';

const macrotask = () => new Promise<void>((r) => setTimeout(r, 0));

export function yieldingRuntime(runtime: Runtime, everyMs = 200): Runtime {
  let last = performance.now();
  const gate = async () => {
    if (performance.now() - last < everyMs) return;
    await macrotask();
    last = performance.now();
  };
  return {
    backend: runtime.backend,
    async createSession(model, opts): Promise<Session> {
      const s = await runtime.createSession(model, opts);
      return {
        inputNames: s.inputNames,
        outputNames: s.outputNames,
        run: async (feeds, o) => { await gate(); return s.run(feeds, o); },
        runMixed: async (feeds, o) => { await gate(); return s.runMixed(feeds, o); },
        release: () => s.release(),
      };
    },
  };
}
