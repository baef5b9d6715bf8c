// WebGPU adapter probe. ORT with ['webgpu','wasm'] falls back silently and never says which EP won,
// so the worker asks navigator.gpu itself and then passes exactly one EP to ORT.

import type { AdapterDescription, BackendKind, BackendRequest } from './protocol';

// Minimal structural types: @webgpu/types is not in tsconfig "types", and we only read a few fields.
export interface GpuAdapterLike {
  info?: { vendor?: string; architecture?: string; device?: string; description?: string; isFallbackAdapter?: boolean };
  isFallbackAdapter?: boolean;
  requestAdapterInfo?: () => Promise<{ vendor?: string; architecture?: string; device?: string; description?: string }>;
}
interface GpuLike { requestAdapter(opts?: { powerPreference?: string }): Promise<GpuAdapterLike | null> }

export interface ProbeResult {
  kind: BackendKind;
  reason: string;
  adapter?: GpuAdapterLike;
  description?: AdapterDescription;
}

export async function describeAdapter(a: GpuAdapterLike): Promise<AdapterDescription> {
  // Chrome ≥ 114 has adapter.info; older builds had requestAdapterInfo(). isFallbackAdapter moved
  // from the adapter onto info in 2024, so read both.
  let info = a.info;
  if (!info && typeof a.requestAdapterInfo === 'function') {
    try { info = await a.requestAdapterInfo(); } catch { /* leave undefined */ }
  }
  return {
    vendor: info?.vendor ?? '',
    architecture: info?.architecture ?? '',
    device: info?.device ?? '',
    description: info?.description ?? '',
    isFallbackAdapter: Boolean(info?.isFallbackAdapter ?? a.isFallbackAdapter ?? false),
  };
}

export async function probeBackend(requested: BackendRequest): Promise<ProbeResult> {
  if (requested === 'wasm') return { kind: 'wasm', reason: 'forced by ?backend=wasm' };
  const prefix = requested === 'webgpu' ? 'forced ?backend=webgpu unavailable: ' : '';
  const gpu = (globalThis.navigator as unknown as { gpu?: GpuLike } | undefined)?.gpu;
  if (!gpu) return { kind: 'wasm', reason: prefix + 'no navigator.gpu' };
  let adapter: GpuAdapterLike | null = null;
  try {
    adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
  } catch (e) {
    return { kind: 'wasm', reason: prefix + `requestAdapter threw: ${(e as Error).message}` };
  }
  if (!adapter) return { kind: 'wasm', reason: prefix + 'requestAdapter returned null' };
  const description = await describeAdapter(adapter);
  const reason = requested === 'webgpu' ? 'forced by ?backend=webgpu' : 'WebGPU adapter available';
  return { kind: 'webgpu', reason, adapter, description };
}
