// Which EP computes, after the probe: the warm-up fallback (auto mode: an adapter whose EP fails falls back
// to WASM, loudly) and the fallback-adapter timing (auto mode: a software WebGPU adapter computes only if it
// timed faster than WASM). Pure over its three dependencies, so the policy is unit-tested with fakes
// (tests/worker/probe.test.ts); runtime-web.ts supplies ORT-backed ones.

import type { ProbeResult } from './probe';
import type { BackendKind, BackendRequest, BackendTiming } from './protocol';

export interface ChoiceDeps<R> {
  /** A runtime on exactly one EP; `described` is the probed adapter when that EP is WebGPU on it. */
  makeRuntime(kind: BackendKind, described: ProbeResult['description'], reason: string): R;
  /** Loads the EP and runs a small graph once: rejects when the EP cannot run. */
  warmUp(runtime: R): Promise<void>;
  /** Median ms per run of the timing graph. */
  timeGraph(runtime: R): Promise<number>;
}

export interface Choice<R> { kind: BackendKind; reason: string; runtime: R; timing?: BackendTiming }

export async function chooseRuntime<R>(probe: ProbeResult, requested: BackendRequest, deps: ChoiceDeps<R>): Promise<Choice<R>> {
  let kind = probe.kind;
  let reason = probe.reason;
  let runtime = deps.makeRuntime(kind, probe.description, reason);
  let timing: BackendTiming | undefined;
  // Warm up: loads the wasm binary, and on WebGPU creates the device and compiles a shader, so a broken EP
  // fails here (visible in the status bar) rather than in the first real call.
  try {
    await deps.warmUp(runtime);
  } catch (e) {
    if (kind !== 'webgpu' || requested === 'webgpu') throw e;
    // Auto mode only: the adapter exists but the EP cannot run on it. Fall back loudly, not silently.
    kind = 'wasm';
    reason = `WebGPU EP failed (${(e as Error).message.slice(0, 160)})`;
    runtime = deps.makeRuntime(kind, undefined, reason);
    await deps.warmUp(runtime);
  }
  // A fallback adapter is a software rasteriser (SwiftShader, WARP): WebGPU there was 25-46x slower than
  // WASM on real work. In auto mode both EPs are timed on one small decoder-sized graph and the faster
  // one computes; a forced ?backend=webgpu is never second-guessed.
  if (kind === 'webgpu' && requested === 'auto' && probe.description?.isFallbackAdapter) {
    const wasmRuntime = deps.makeRuntime('wasm', undefined, 'timed against a fallback WebGPU adapter');
    const webgpuMs = await deps.timeGraph(runtime);
    const wasmMs = await deps.timeGraph(wasmRuntime);
    timing = { webgpuMs, wasmMs };
    const ratio = (a: number, b: number) => (a / Math.max(b, 1e-3)).toFixed(1);
    if (wasmMs <= webgpuMs) {
      kind = 'wasm';
      reason = `WebGPU adapter is a fallback (software) adapter; timed at start: WASM ${wasmMs.toFixed(1)} ms vs WebGPU ${webgpuMs.toFixed(1)} ms per run of the timing graph, so WASM (${ratio(webgpuMs, wasmMs)}x faster) computes; ?backend=webgpu forces WebGPU`;
      runtime = deps.makeRuntime(kind, undefined, reason);
    } else {
      reason = `WebGPU adapter is a fallback (software) adapter, but timed faster at start: WebGPU ${webgpuMs.toFixed(1)} ms vs WASM ${wasmMs.toFixed(1)} ms per run of the timing graph (${ratio(wasmMs, webgpuMs)}x)`;
      runtime = deps.makeRuntime(kind, probe.description, reason);
    }
  }
  return { kind, reason, runtime, timing };
}
