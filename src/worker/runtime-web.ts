// onnxruntime-web runtime for the compute worker: WebGPU EP (JSEP build) or WASM EP, chosen explicitly
// after probing the adapter ourselves. fp32 only (SwiftShader has no shader-f16).
//
// Only this file imports onnxruntime-web. It is imported by the worker, never by the page. transformers.js (Hugging
// Face models, hf-service.ts) runs on this same module and wasm heap: see `sharedOrt` below.

import * as ort from 'onnxruntime-web';
// The default 'onnxruntime-web' export is the JSEP bundle: one wasm binary serves both the WebGPU and the
// WASM EP. Pointing wasmPaths at Vite-emitted URLs keeps production builds working (ORT would otherwise
// resolve the files relative to a bundled chunk that no longer sits next to them) and makes ORT's pthread
// workers load a real module file instead of a blob of the page bundle.
import jsepMjsUrl from 'onnxruntime-web/ort-wasm-simd-threaded.jsep.mjs?url';
import jsepWasmUrl from 'onnxruntime-web/ort-wasm-simd-threaded.jsep.wasm?url';

import { createOrtRuntime, f32, OrtCallQueue, queuedOrtModule, type OrtLike, type Runtime } from '../engine/runtime';
import { probeBackend } from './probe';
import { chooseRuntime, timeInBackground } from './backend-choice';
import { adapterKey, loadVerdict, saveVerdict } from './verdicts';
import type { ProbeResult } from './probe';
import type { AdapterDescription, BackendInfo, BackendKind, InitOptions } from './protocol';
import onnxProto from 'onnx-proto';
import { buildSmokeGraph, smokeInput, SMOKE_SHAPE } from './smoke';

/** The engine's Runtime plus what the probe found (for the status bar). */
export interface WebRuntime {
  runtime: Runtime;
  info: BackendInfo;
  /** The adapter probe, kept for a deferred background timing. */
  probe?: ProbeResult;
}

/**
 * Every ORT call of this worker's wasm module: the user's runtime and transformers.js's sessions queue on it, the
 * background timing holds it.
 */
const ortCalls = new OrtCallQueue();

// Where ORT finds its files, set before anything (transformers.js included) can start it: the same for every backend.
ort.env.wasm.wasmPaths = { mjs: jsepMjsUrl, wasm: jsepWasmUrl };
ort.env.wasm.proxy = false; // proxy mode is broken under Vite, and we already are a worker

/**
 * transformers.js's one ORT import, `onnxruntime-web/webgpu`, is aliased (vite.config.ts) to ort-shared.ts, which
 * re-exports what is registered here: this module, with session runs queued on `ortCalls` beside ours (the JSEP build
 * allows one run in flight per module). One ORT copy, one wasm heap. A global, not an import, so that a bundle of
 * transformers.js (the dev server pre-bundles it) cannot carry a second instance of this module and its queue.
 */
(globalThis as Record<symbol, unknown>)[Symbol.for('envace.shared-ort')] = queuedOrtModule(ort, ortCalls);

let current: Promise<WebRuntime> | null = null;
let currentKey = '';

/**
 * Create (once per option set) the runtime. Re-initialising with a different backend is not supported by
 * ORT inside one worker (the wasm module and its EP registrations are global), so the page reloads with
 * another ?backend= instead.
 */
export function initRuntime(opts: InitOptions = {}): Promise<WebRuntime> {
  const key = JSON.stringify({ b: opts.backend ?? 'auto', t: opts.threads ?? null });
  if (current) {
    if (key !== currentKey) return Promise.reject(new Error(`runtime already initialised with ${currentKey}; reload with another ?backend=`));
    return current;
  }
  currentKey = key;
  current = create(opts);
  current.catch(() => { current = null; currentKey = ''; });
  return current;
}

async function create(opts: InitOptions): Promise<WebRuntime> {
  const t0 = performance.now();
  const requested = opts.backend ?? 'auto';
  const probe = await probeBackend(requested);
  const isolated = Boolean((globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated);
  const hw = (globalThis.navigator?.hardwareConcurrency ?? 1) || 1;
  // Threads need SharedArrayBuffer, i.e. cross-origin isolation (COOP/COEP from vite.config.ts).
  const threads = opts.threads ?? (isolated ? Math.max(1, Math.min(4, hw)) : 1);

  ort.env.wasm.numThreads = threads;
  // 'error': ORT's 'warning' level reports every shape op it pins to CPU, which is expected and noise here.
  ort.env.logLevel = 'error';
  if (probe.kind === 'webgpu' && probe.adapter) {
    // Hand ORT the adapter we described, so the status bar names the adapter that actually computes.
    (ort.env.webgpu as { adapter: unknown }).adapter = probe.adapter;
  }

  // A fallback adapter's verdict from an earlier timing on it (this browser), else WASM now and the timing later.
  const remembered = requested === 'auto' && probe.kind === 'webgpu' && probe.description?.isFallbackAdapter ? await loadVerdict(adapterKey(probe.description)) : null;
  const { kind, reason, runtime, timing, deferred, remembered: fromMemory } = await chooseRuntime(probe, requested, deps(threads), { remembered, deferTiming: true });

  const info: BackendInfo = {
    kind,
    requested,
    reason,
    // The adapter stays described when it was probed and rejected, so the status bar can say why.
    adapter: probe.description,
    timing,
    ...(deferred ? { probing: true } : {}),
    ...(fromMemory ? { remembered: true } : {}),
    wasmThreads: threads,
    crossOriginIsolated: isolated,
    ortVersion: ort.env.versions?.web ?? 'unknown',
    initMs: performance.now() - t0,
  };
  return { runtime, info, probe };
}

function deps(threads: number) {
  return { makeRuntime: (k: BackendKind, d: AdapterDescription | undefined, why: string) => makeRuntime(k, d, threads, why, ortCalls), warmUp, timeGraph };
}

/**
 * The background timing's runtimes, sessions and calls are its own: each step waits until no user computation has
 * an ORT call queued or running, then holds the queue for the whole step (so a Run clicked meanwhile waits one step,
 * and the timing measures only its own runs).
 */
function backgroundDeps(threads: number) {
  return {
    makeRuntime: (k: BackendKind, d: AdapterDescription | undefined, why: string) => makeRuntime(k, d, threads, why),
    warmUp: (rt: Runtime) => ortCalls.exclusive(() => warmUp(rt)),
    timeGraph: (rt: Runtime) => ortCalls.exclusive(() => timeGraph(rt)),
  };
}

/**
 * The fallback adapter's timing that the start deferred: WebGPU vs WASM on the timing graph, remembered for this
 * adapter; the info (status bar) is updated in place. Returns the info, unchanged when nothing was deferred.
 */
export async function probeInBackground(wr: WebRuntime): Promise<BackendInfo> {
  if (!wr.info.probing || !wr.probe?.description) return wr.info;
  const v = await timeInBackground(wr.probe, backgroundDeps(wr.info.wasmThreads));
  if (v.timing) await saveVerdict(adapterKey(wr.probe.description), { kind: v.kind, timing: v.timing, at: Date.now() });
  wr.info = { ...wr.info, probing: false, reason: v.reason, ...(v.timing ? { timing: v.timing, verdict: v.kind } : {}) };
  return wr.info;
}

function makeRuntime(kind: BackendKind, d: AdapterDescription | undefined, threads: number, reason: string, queue?: OrtCallQueue): Runtime {
  const detail = kind === 'webgpu'
    ? `onnxruntime-web ${ort.env.versions?.web ?? ''} WebGPU: ${[d?.vendor, d?.architecture, d?.device || d?.description].filter(Boolean).join(' / ')}${d?.isFallbackAdapter ? ' (fallback adapter)' : ''}`
    : `onnxruntime-web ${ort.env.versions?.web ?? ''} WASM ${threads} thread${threads === 1 ? '' : 's'}: ${reason}`;
  // Exactly one EP: ORT would otherwise fall back to WASM silently and the status bar would lie.
  return createOrtRuntime(ort as unknown as OrtLike, { kind, detail }, {
    executionProviders: [kind],
    graphOptimizationLevel: 'all',
    // 3 = error: at 'warning' ORT prints "Some nodes were not assigned to the preferred execution
    // providers" (shape ops pinned to CPU, expected) through console.error with raw ANSI colour codes.
    logSeverityLevel: 3,
  }, queue);
}

// The timing graph: 6 x (MatMul 128x128 + Tanh) over 32 rows, roughly a shipped model's layer work per
// decode step. Per-dispatch overhead dominates at this size, which is exactly what makes a software GPU slow.
const TIMING = { rows: 32, d: 128, layers: 6 } as const;

function buildTimingGraph(): Uint8Array {
  const { onnx } = onnxProto;
  const F = onnx.TensorProto.DataType.FLOAT;
  const { rows, d, layers } = TIMING;
  const vi = (name: string, dims: number[]) => onnx.ValueInfoProto.create({ name, type: { tensorType: { elemType: F, shape: { dim: dims.map((v) => ({ dimValue: v })) } } } });
  const node: ReturnType<typeof onnx.NodeProto.create>[] = [];
  const initializer: ReturnType<typeof onnx.TensorProto.create>[] = [];
  let prev = 'x';
  for (let l = 0; l < layers; l++) {
    const w = Array.from({ length: d * d }, (_, i) => (((i * 2654435761 + l) >>> 0) % 1000) / 1000 / d - 0.5 / d);
    initializer.push(onnx.TensorProto.create({ name: `W${l}`, dims: [d, d], dataType: F, floatData: w }));
    node.push(onnx.NodeProto.create({ opType: 'MatMul', input: [prev, `W${l}`], output: [`m${l}`], name: `mm${l}` }));
    const out = l === layers - 1 ? 'y' : `h${l}`;
    node.push(onnx.NodeProto.create({ opType: 'Tanh', input: [`m${l}`], output: [out], name: `t${l}` }));
    prev = out;
  }
  const graph = onnx.GraphProto.create({ name: 'timing', node, initializer, input: [vi('x', [rows, d])], output: [vi('y', [rows, d])] });
  return onnx.ModelProto.encode(onnx.ModelProto.create({ irVersion: 8, producerName: 'envace-timing', opsetImport: [{ domain: '', version: 17 }], graph })).finish();
}

/** Median ms of one run of a small MatMul chain (sized like a tiny decoder layer), after a warm-up run. */
async function timeGraph(rt: Runtime): Promise<number> {
  const s = await rt.createSession(buildTimingGraph());
  try {
    const x = f32(new Float32Array(TIMING.rows * TIMING.d).map((_, i) => ((i * 7919) % 97) / 97 - 0.5), [TIMING.rows, TIMING.d]);
    await s.run({ x });
    const ms: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t0 = performance.now();
      await s.run({ x });
      ms.push(performance.now() - t0);
    }
    return ms.sort((a, b) => a - b)[2]!;
  } finally {
    await s.release();
  }
}

async function warmUp(rt: Runtime): Promise<void> {
  const s = await rt.createSession(buildSmokeGraph());
  try {
    await s.run({ x: f32(smokeInput(), [SMOKE_SHAPE.rows, SMOKE_SHAPE.inner]) });
  } finally {
    await s.release();
  }
}

export { ort };
