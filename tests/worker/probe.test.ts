import { afterEach, describe, expect, it, vi } from 'vitest';
import { describeAdapter, probeBackend, type GpuAdapterLike } from '../../src/worker/probe';

// Fakes of navigator.gpu: Node has no WebGPU, so every branch of the probe is driven by a stub.
function withGpu(gpu: unknown): void { vi.stubGlobal('navigator', gpu === undefined ? {} : { gpu }); }
const gpuReturning = (adapter: GpuAdapterLike | null) => {
  const requestAdapter = vi.fn(async () => adapter);
  return { gpu: { requestAdapter }, requestAdapter };
};

afterEach(() => { vi.unstubAllGlobals(); });

describe('probeBackend', () => {
  it('?backend=wasm never touches navigator.gpu', async () => {
    const { gpu, requestAdapter } = gpuReturning({ info: { vendor: 'x' } });
    withGpu(gpu);
    const r = await probeBackend('wasm');
    expect(r.kind).toBe('wasm');
    expect(r.reason).toMatch(/forced/);
    expect(requestAdapter).not.toHaveBeenCalled();
  });

  it('no navigator.gpu, a null adapter, or a throwing requestAdapter give WASM with the reason', async () => {
    withGpu(undefined);
    expect(await probeBackend('auto')).toMatchObject({ kind: 'wasm', reason: expect.stringMatching(/no navigator\.gpu/) });
    withGpu(gpuReturning(null).gpu);
    expect(await probeBackend('auto')).toMatchObject({ kind: 'wasm', reason: expect.stringMatching(/returned null/) });
    withGpu({ requestAdapter: async () => { throw new Error('GPU process crashed'); } });
    expect(await probeBackend('auto')).toMatchObject({ kind: 'wasm', reason: expect.stringMatching(/threw: GPU process crashed/) });
  });

  it('a forced ?backend=webgpu that cannot be honoured says so in the reason', async () => {
    withGpu(gpuReturning(null).gpu);
    const r = await probeBackend('webgpu');
    expect(r.kind).toBe('wasm');
    expect(r.reason).toMatch(/^forced \?backend=webgpu unavailable: /);
  });

  it('an adapter gives WebGPU, hands back that adapter, and describes it', async () => {
    const adapter: GpuAdapterLike = { info: { vendor: 'nvidia', architecture: 'hopper', device: 'H200', description: 'desc' } };
    const { gpu, requestAdapter } = gpuReturning(adapter);
    withGpu(gpu);
    const r = await probeBackend('auto');
    expect(r.kind).toBe('webgpu');
    expect(r.adapter).toBe(adapter);
    expect(r.description).toEqual({ vendor: 'nvidia', architecture: 'hopper', device: 'H200', description: 'desc', isFallbackAdapter: false });
    expect(requestAdapter).toHaveBeenCalledWith({ powerPreference: 'high-performance' });
    expect((await probeBackend('webgpu')).reason).toMatch(/forced by \?backend=webgpu/);
  });

  it('a fallback (software) adapter is reported as such, wherever the flag lives', async () => {
    withGpu(gpuReturning({ info: { vendor: 'google', description: 'SwiftShader', isFallbackAdapter: true } }).gpu);
    expect((await probeBackend('auto')).description?.isFallbackAdapter).toBe(true);
    withGpu(gpuReturning({ info: { vendor: 'google' }, isFallbackAdapter: true }).gpu);
    expect((await probeBackend('auto')).description?.isFallbackAdapter).toBe(true);
  });
});

describe('describeAdapter', () => {
  it('reads requestAdapterInfo() on old browsers and tolerates it throwing', async () => {
    expect(await describeAdapter({ requestAdapterInfo: async () => ({ vendor: 'intel', device: 'arc' }) }))
      .toEqual({ vendor: 'intel', architecture: '', device: 'arc', description: '', isFallbackAdapter: false });
    expect(await describeAdapter({ requestAdapterInfo: async () => { throw new Error('gone'); } }))
      .toEqual({ vendor: '', architecture: '', device: '', description: '', isFallbackAdapter: false });
    expect(await describeAdapter({})).toMatchObject({ vendor: '', isFallbackAdapter: false });
  });
});
