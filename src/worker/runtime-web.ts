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

import { probeBackend } from './probe';
import type { BackendInfo, BackendKind, InitOptions } from './protocol';

export type TypedArray = Float32Array | Int32Array | BigInt64Array | Uint8Array | Int8Array;

export interface TensorData {
  type: 'float32' | 'int32' | 'int64' | 'bool' | 'uint8' | 'int8';
  dims: readonly number[];
  data: TypedArray;
}

export interface SessionOptions {
  /** Outputs to keep on the GPU (e.g. KV caches). Ignored on WASM. */
  gpuOutputs?: string[];
  /** Graph optimisation level; the engine's graphs are already simple, 'all' is ORT's default. */
  optimization?: 'disabled' | 'basic' | 'extended' | 'all';
}

export interface WebSession {
  readonly inputNames: readonly string[];
  readonly outputNames: readonly string[];
  run(feeds: Record<string, TensorData | ort.Tensor>, fetches?: string[]): Promise<Record<string, ort.Tensor>>;
  release(): Promise<void>;
}

export interface WebRuntime {
  backend: { kind: BackendKind; detail: string };
  info: BackendInfo;
  session(graph: Uint8Array, opts?: SessionOptions): Promise<WebSession>;
  tensor(t: TensorData): ort.Tensor;
}

function toOrt(t: TensorData | ort.Tensor): ort.Tensor {
  if (t instanceof ort.Tensor) return t;
  // ORT's Tensor constructor is overloaded per dtype; the cast keeps one call site.
  return new ort.Tensor(t.type, t.data as never, t.dims);
}

let current: Promise<WebRuntime> | null = null;
let currentKey = '';

/**
 * Create (once per option set) the runtime. Re-initialising with a different backend is not supported by
 * ORT inside one worker (the wasm module is global), so the page recreates the worker instead.
 */
export function initRuntime(opts: InitOptions = {}): Promise<WebRuntime> {
  const key = JSON.stringify({ b: opts.backend ?? 'auto', t: opts.threads ?? null });
  if (current) {
    if (key !== currentKey) return Promise.reject(new Error(`runtime already initialised with ${currentKey}; recreate the worker`));
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
  ort.env.logLevel = 'warning';
  if (probe.kind === 'webgpu' && probe.adapter) {
    // Hand ORT the adapter we described, so the status bar names the adapter that actually computes.
    (ort.env.webgpu as { adapter: unknown }).adapter = probe.adapter;
  }

  const description = probe.description;
  const info: BackendInfo = {
    kind: probe.kind,
    requested,
    reason: probe.reason,
    adapter: description,
    wasmThreads: threads,
    crossOriginIsolated: isolated,
    ortVersion: ort.env.versions?.web ?? 'unknown',
    initMs: 0,
  };
  const detail = probe.kind === 'webgpu'
    ? `WebGPU ${[description?.vendor, description?.architecture, description?.device || description?.description].filter(Boolean).join(' / ')}${description?.isFallbackAdapter ? ' (fallback adapter)' : ''}`
    : `WASM (${threads} thread${threads === 1 ? '' : 's'}): ${probe.reason}`;

  const ep = probe.kind === 'webgpu' ? 'webgpu' : 'wasm';
  const rt: WebRuntime = {
    backend: { kind: probe.kind, detail },
    info,
    tensor: (t) => toOrt(t),
    async session(graph, sopts = {}) {
      const so: ort.InferenceSession.SessionOptions = {
        executionProviders: [ep],   // exactly one EP: no silent fallback
        graphOptimizationLevel: sopts.optimization ?? 'all',
      };
      if (ep === 'webgpu' && sopts.gpuOutputs?.length) {
        so.preferredOutputLocation = Object.fromEntries(sopts.gpuOutputs.map((n) => [n, 'gpu-buffer' as const]));
      }
      const s = await ort.InferenceSession.create(graph, so);
      return {
        inputNames: s.inputNames,
        outputNames: s.outputNames,
        async run(feeds, fetches) {
          const f: Record<string, ort.Tensor> = {};
          for (const [k, v] of Object.entries(feeds)) f[k] = toOrt(v);
          return fetches ? s.run(f, fetches) : s.run(f);
        },
        release: () => s.release(),
      };
    },
  };
  info.initMs = performance.now() - t0;
  return rt;
}

export { ort };
