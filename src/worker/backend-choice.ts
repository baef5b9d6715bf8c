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

export interface Choice<R> {
  kind: BackendKind; reason: string; runtime: R; timing?: BackendTiming;
  /** WASM computes now and the fallback adapter still has to be timed (timeInBackground), off the start path. */
  deferred?: boolean;
  /** The verdict came from an earlier timing on this adapter (RememberedVerdict), not from this start. */
  remembered?: boolean;
}

/** What an earlier start (or background timing) found on one adapter: remembered per adapter (verdicts.ts). */
export interface RememberedVerdict { kind: BackendKind; timing: BackendTiming; at: number }

export interface ChoiceOptions {
  /** The verdict remembered for this adapter, if any: used instead of timing again. */
  remembered?: RememberedVerdict | null;
  /**
   * Auto mode on a fallback adapter with nothing remembered: start on WASM at once and leave the timing to
   * timeInBackground (issue 24: timing a software adapter took 15-20 s before the page could run anything).
   */
  deferTiming?: boolean;
}

const ratio = (a: number, b: number) => (a / Math.max(b, 1e-3)).toFixed(1);

/** The status-bar sentence for a fallback adapter's timing (at start, in the background, or remembered). */
export function timingReason(t: BackendTiming, kind: BackendKind, when: string): string {
  return kind === 'wasm'
    ? `WebGPU adapter is a fallback (software) adapter; timed ${when}: WASM ${t.wasmMs.toFixed(1)} ms vs WebGPU ${t.webgpuMs.toFixed(1)} ms per run of the timing graph, so WASM (${ratio(t.webgpuMs, t.wasmMs)}x faster) computes; ?backend=webgpu forces WebGPU`
    : `WebGPU adapter is a fallback (software) adapter, but timed faster ${when}: WebGPU ${t.webgpuMs.toFixed(1)} ms vs WASM ${t.wasmMs.toFixed(1)} ms per run of the timing graph (${ratio(t.wasmMs, t.webgpuMs)}x)`;
}

export async function chooseRuntime<R>(probe: ProbeResult, requested: BackendRequest, deps: ChoiceDeps<R>, opts: ChoiceOptions = {}): Promise<Choice<R>> {
  const fallbackAuto = probe.kind === 'webgpu' && requested === 'auto' && Boolean(probe.description?.isFallbackAdapter);
  // A fallback adapter in auto mode: a remembered verdict decides without timing; with none and deferTiming,
  // WASM starts now and WebGPU is timed later (timeInBackground). Neither touches the WebGPU EP at start.
  if (fallbackAuto && opts.remembered?.kind === 'wasm') {
    const reason = timingReason(opts.remembered.timing, 'wasm', `on ${new Date(opts.remembered.at).toISOString().slice(0, 10)} (remembered for this adapter)`);
    const runtime = deps.makeRuntime('wasm', undefined, reason);
    await deps.warmUp(runtime);
    return { kind: 'wasm', reason, runtime, timing: opts.remembered.timing, remembered: true };
  }
  if (fallbackAuto && !opts.remembered && opts.deferTiming) {
    const reason = 'WebGPU adapter is a fallback (software) adapter; WASM computes while WebGPU is timed against it in the background';
    const runtime = deps.makeRuntime('wasm', undefined, reason);
    await deps.warmUp(runtime);
    return { kind: 'wasm', reason, runtime, deferred: true };
  }
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
  if (fallbackAuto && opts.remembered?.kind === 'webgpu') {
    if (kind === 'webgpu') {
      reason = timingReason(opts.remembered.timing, 'webgpu', `on ${new Date(opts.remembered.at).toISOString().slice(0, 10)} (remembered for this adapter)`);
      runtime = deps.makeRuntime(kind, probe.description, reason);
      return { kind, reason, runtime, timing: opts.remembered.timing, remembered: true };
    }
    return { kind, reason, runtime };
  }
  if (kind === 'webgpu' && requested === 'auto' && probe.description?.isFallbackAdapter) {
    const wasmRuntime = deps.makeRuntime('wasm', undefined, 'timed against a fallback WebGPU adapter');
    const webgpuMs = await deps.timeGraph(runtime);
    const wasmMs = await deps.timeGraph(wasmRuntime);
    timing = { webgpuMs, wasmMs };
    if (wasmMs <= webgpuMs) {
      kind = 'wasm';
      reason = timingReason(timing, 'wasm', 'at start');
      runtime = deps.makeRuntime(kind, undefined, reason);
    } else {
      reason = timingReason(timing, 'webgpu', 'at start');
      runtime = deps.makeRuntime(kind, probe.description, reason);
    }
  }
  return { kind, reason, runtime, timing };
}

/**
 * The deferred timing of a fallback adapter, after a start on WASM: warms the WebGPU EP up and times both EPs on
 * the same graph, on runtimes of its own (never the one computing for the user). The runtime that computes is not
 * replaced (this page load stays on WASM); the verdict is for the next start on this adapter. A WebGPU EP that
 * cannot run is a WASM verdict with its reason.
 */
export async function timeInBackground<R>(probe: ProbeResult, deps: ChoiceDeps<R>): Promise<{ kind: BackendKind; timing?: BackendTiming; reason: string }> {
  const gpuRuntime = deps.makeRuntime('webgpu', probe.description, 'timed in the background');
  const wasmRuntime = deps.makeRuntime('wasm', undefined, 'timed in the background');
  try {
    await deps.warmUp(gpuRuntime);
  } catch (e) {
    return { kind: 'wasm', reason: `WebGPU EP failed in the background timing (${(e as Error).message.slice(0, 160)}); WASM computes` };
  }
  const webgpuMs = await deps.timeGraph(gpuRuntime);
  const wasmMs = await deps.timeGraph(wasmRuntime);
  const timing = { webgpuMs, wasmMs };
  const kind: BackendKind = wasmMs <= webgpuMs ? 'wasm' : 'webgpu';
  return {
    kind, timing,
    reason: kind === 'wasm' ? timingReason(timing, 'wasm', 'in the background')
      : `${timingReason(timing, 'webgpu', 'in the background')}; WASM computes until the next load, which starts on WebGPU`,
  };
}
