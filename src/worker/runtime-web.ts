// onnxruntime-web runtime for the compute worker: WebGPU EP (JSEP build) or WASM EP, chosen explicitly
// after probing the adapter ourselves. fp32 only (SwiftShader has no shader-f16).
//
// Only this file imports onnxruntime-web. It is imported by the worker, never by the page.

import * as ort from 'onnxruntime-web';
// The default 'onnxruntime-web' export is the JSEP bundle: one wasm binary serves both the WebGPU and the
// WASM EP. Pointing wasmPaths at Vite-emitted URLs keeps production builds working (ORT would otherwise
// resolve the files relative to a bundled chunk that no longer sits next to them) and makes ORT's pthread
// workers load a real module file instead of a blob of the page bundle.
import jsepMjsUrl from 'onnxruntime-web/ort-wasm-simd-threaded.jsep.mjs?url';
import jsepWasmUrl from 'onnxruntime-web/ort-wasm-simd-threaded.jsep.wasm?url';

import { createOrtRuntime, f32, type OrtLike, type Runtime } from '../engine/runtime';
import { probeBackend } from './probe';
import type { AdapterDescription, BackendInfo, BackendKind, InitOptions } from './protocol';
import { buildSmokeGraph, smokeInput, SMOKE_SHAPE } from './smoke';

/** The engine's Runtime plus what the probe found (for the status bar). */
export interface WebRuntime {
  runtime: Runtime;
  info: BackendInfo;
}

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

  ort.env.wasm.wasmPaths = { mjs: jsepMjsUrl, wasm: jsepWasmUrl };
  ort.env.wasm.numThreads = threads;
  ort.env.wasm.proxy = false; // proxy mode is broken under Vite, and we already are a worker
  // 'error': ORT's 'warning' level reports every shape op it pins to CPU, which is expected and noise here.
  ort.env.logLevel = 'error';
  if (probe.kind === 'webgpu' && probe.adapter) {
    // Hand ORT the adapter we described, so the status bar names the adapter that actually computes.
    (ort.env.webgpu as { adapter: unknown }).adapter = probe.adapter;
  }

  let kind = probe.kind;
  let reason = probe.reason;
  let runtime = makeRuntime(kind, probe.description, threads, reason);
  // Warm up with the smoke graph: loads the wasm binary, and on WebGPU creates the device and compiles a
  // shader, so a broken EP fails here (visible in the status bar) rather than in the first real call.
  try {
    await warmUp(runtime);
  } catch (e) {
    if (kind !== 'webgpu' || requested === 'webgpu') throw e;
    // Auto mode only: the adapter exists but the EP cannot run on it. Fall back loudly, not silently.
    kind = 'wasm';
    reason = `WebGPU EP failed (${(e as Error).message.slice(0, 160)})`;
    runtime = makeRuntime(kind, undefined, threads, reason);
    await warmUp(runtime);
  }

  const info: BackendInfo = {
    kind,
    requested,
    reason,
    adapter: kind === 'webgpu' ? probe.description : undefined,
    wasmThreads: threads,
    crossOriginIsolated: isolated,
    ortVersion: ort.env.versions?.web ?? 'unknown',
    initMs: performance.now() - t0,
  };
  return { runtime, info };
}

function makeRuntime(kind: BackendKind, d: AdapterDescription | undefined, threads: number, reason: string): Runtime {
  const detail = kind === 'webgpu'
    ? `onnxruntime-web ${ort.env.versions?.web ?? ''} WebGPU: ${[d?.vendor, d?.architecture, d?.device || d?.description].filter(Boolean).join(' / ')}${d?.isFallbackAdapter ? ' (fallback adapter)' : ''}`
    : `onnxruntime-web ${ort.env.versions?.web ?? ''} WASM ${threads} thread${threads === 1 ? '' : 's'}: ${reason}`;
  // Exactly one EP: ORT would otherwise fall back to WASM silently and the status bar would lie.
  return createOrtRuntime(ort as unknown as OrtLike, { kind, detail }, {
    executionProviders: [kind],
    graphOptimizationLevel: 'all',
  });
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
