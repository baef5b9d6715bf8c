// A cancel that takes effect inside one batch of generations. The sampler decodes a whole batch in one
// generate() call, and ORT-web's WASM runs resolve through microtasks only, so without help the worker's
// message queue (and with it a cancel RPC) waits until the batch is done: seconds for a long rollout.
// This wraps the KV model the sampler drives: before every forward pass (prefill or one decode step) it
// yields a macrotask once `yieldEveryMs` have passed, then runs the armed check, which throws to stop.
// Batches keep their composition, so results are bit-identical to an unwrapped sampler's.

import type { KVModel } from '../engine/sampler';

export interface Interrupt {
  /** Arms `check` (it throws to stop the running generate()); null disarms. Returns the previous check. */
  arm(check: (() => void) | null): (() => void) | null;
  /** Forward passes the check saw (tests: proof the check runs inside a batch). */
  readonly passes: number;
}

const macrotask = () => new Promise<void>((r) => setTimeout(r, 0));

/** Wraps `model.prefill`, `model.step` and `model.extend` (prefix-tree prefill levels) in place. Unarmed, a forward pass costs one extra call. */
export function installInterrupt(model: KVModel, yieldEveryMs = 50): Interrupt {
  let check: (() => void) | null = null;
  let lastYield = performance.now();
  let passes = 0;
  const gate = async () => {
    if (!check) return;
    passes++;
    if (performance.now() - lastYield >= yieldEveryMs) {
      await macrotask();
      lastYield = performance.now();
    }
    check?.();
  };
  const prefill = model.prefill.bind(model), step = model.step.bind(model);
  const m = model as { -readonly [K in keyof KVModel]: KVModel[K] };
  m.prefill = async (...a) => { await gate(); return prefill(...a); };
  m.step = async (...a) => { await gate(); return step(...a); };
  const extend = model.extend?.bind(model);
  if (extend) m.extend = async (...a) => { await gate(); return extend(...a); };
  return {
    arm(next) { const prev = check; check = next; lastYield = performance.now(); return prev; },
    get passes() { return passes; },
  };
}
