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

describe('chooseRuntime: the EP-failure fallback and the fallback-adapter timing, with fake runtimes', async () => {
  const { chooseRuntime } = await import('../../src/worker/backend-choice');
  type Fake = { kind: 'webgpu' | 'wasm'; reason: string; described: boolean };
  const deps = (o: { webgpuWarmUp?: 'fails'; webgpuMs?: number; wasmMs?: number; wasmWarmUp?: 'fails' } = {}) => {
    const made: Fake[] = [];
    return {
      made,
      makeRuntime: (kind: 'webgpu' | 'wasm', d: unknown, reason: string) => { const r = { kind, reason, described: d !== undefined }; made.push(r); return r; },
      warmUp: async (r: Fake) => {
        if (r.kind === 'webgpu' && o.webgpuWarmUp) throw new Error('GPUPipelineError: shader compile failed');
        if (r.kind === 'wasm' && o.wasmWarmUp) throw new Error('wasm failed');
      },
      timeGraph: async (r: Fake) => (r.kind === 'webgpu' ? o.webgpuMs ?? 1 : o.wasmMs ?? 1),
    };
  };
  const description = { vendor: 'google', architecture: 'swiftshader', device: '', description: '', isFallbackAdapter: false };
  const gpu = { kind: 'webgpu' as const, reason: 'WebGPU adapter available', adapter: {}, description };
  const soft = { ...gpu, description: { ...description, isFallbackAdapter: true } };

  it('auto: a WebGPU EP that fails its warm-up falls back to WASM and says why', async () => {
    const d = deps({ webgpuWarmUp: 'fails' });
    const c = await chooseRuntime(gpu, 'auto', d);
    expect(c.kind).toBe('wasm');
    expect(c.reason).toBe('WebGPU EP failed (GPUPipelineError: shader compile failed)');
    expect(c.runtime).toBe(d.made[1]);
    expect(d.made.map((r) => r.kind)).toEqual(['webgpu', 'wasm']);
  });

  it('forced ?backend=webgpu: an EP failure is an error, never a silent switch', async () => {
    await expect(chooseRuntime(gpu, 'webgpu', deps({ webgpuWarmUp: 'fails' }))).rejects.toThrow(/shader compile failed/);
  });

  it('WASM failing its warm-up is an error too', async () => {
    await expect(chooseRuntime({ kind: 'wasm', reason: 'no navigator.gpu' }, 'auto', deps({ wasmWarmUp: 'fails' }))).rejects.toThrow(/wasm failed/);
  });

  it('a hardware adapter that warms up computes, without timing', async () => {
    const c = await chooseRuntime(gpu, 'auto', deps());
    expect(c).toMatchObject({ kind: 'webgpu', reason: 'WebGPU adapter available', timing: undefined });
    expect((c.runtime as Fake).described).toBe(true);
  });

  it('a fallback adapter computes only when it timed faster than WASM (auto); forced WebGPU is not second-guessed', async () => {
    const slow = await chooseRuntime(soft, 'auto', deps({ webgpuMs: 40, wasmMs: 2 }));
    expect(slow.kind).toBe('wasm');
    expect(slow.timing).toEqual({ webgpuMs: 40, wasmMs: 2 });
    expect(slow.reason).toMatch(/WASM 2\.0 ms vs WebGPU 40\.0 ms .* so WASM \(20\.0x faster\) computes/);
    const fast = await chooseRuntime(soft, 'auto', deps({ webgpuMs: 1, wasmMs: 3 }));
    expect(fast.kind).toBe('webgpu');
    expect(fast.reason).toMatch(/but timed faster at start/);
    const forced = await chooseRuntime({ ...soft, reason: 'forced by ?backend=webgpu' }, 'webgpu', deps({ webgpuMs: 40, wasmMs: 2 }));
    expect(forced).toMatchObject({ kind: 'webgpu', timing: undefined });
  });

  it('deferTiming: a fallback adapter with nothing remembered starts on WASM without touching WebGPU; the background timing decides later', async () => {
    const { timeInBackground } = await import('../../src/worker/backend-choice');
    const d = deps({ webgpuMs: 40, wasmMs: 2 });
    const c = await chooseRuntime(soft, 'auto', d, { deferTiming: true });
    expect(c).toMatchObject({ kind: 'wasm', deferred: true });
    expect(c.timing).toBeUndefined();
    expect(d.made.map((r) => r.kind)).toEqual(['wasm']);
    const timed: Fake[] = [];
    const v = await timeInBackground(soft, { ...d, timeGraph: (r: Fake) => { timed.push(r); return d.timeGraph(r); } });
    expect(v).toMatchObject({ kind: 'wasm', timing: { webgpuMs: 40, wasmMs: 2 } });
    // Issue 42: the timing runs on runtimes of its own, never on the one computing for the user.
    expect(d.made.map((r) => r.kind)).toEqual(['wasm', 'webgpu', 'wasm']);
    expect(timed.map((r) => r.kind)).toEqual(['webgpu', 'wasm']);
    expect(timed).not.toContain(c.runtime);
    expect(v.reason).toMatch(/timed in the background: WASM 2\.0 ms vs WebGPU 40\.0 ms/);
    const faster = await timeInBackground(soft, deps({ webgpuMs: 1, wasmMs: 3 }));
    expect(faster.kind).toBe('webgpu');
    expect(faster.reason).toMatch(/next load/);
    expect((await timeInBackground(soft, deps({ webgpuWarmUp: 'fails' }))).kind).toBe('wasm');
    // A hardware adapter is never deferred: it warms up and computes.
    expect((await chooseRuntime(gpu, 'auto', deps(), { deferTiming: true })).kind).toBe('webgpu');
  });

  it('a remembered verdict for the adapter decides without timing (auto only)', async () => {
    const d = deps({ webgpuMs: 1, wasmMs: 3 });
    const w = await chooseRuntime(soft, 'auto', d, { remembered: { kind: 'wasm', timing: { webgpuMs: 50, wasmMs: 2 }, at: Date.UTC(2026, 11, 1) }, deferTiming: true });
    expect(w).toMatchObject({ kind: 'wasm', remembered: true, timing: { webgpuMs: 50, wasmMs: 2 } });
    expect(w.reason).toMatch(/on 2026-12-01 \(remembered for this adapter\)/);
    expect(d.made.map((r) => r.kind)).toEqual(['wasm']);
    const g = await chooseRuntime(soft, 'auto', deps(), { remembered: { kind: 'webgpu', timing: { webgpuMs: 1, wasmMs: 3 }, at: 0 } });
    expect(g).toMatchObject({ kind: 'webgpu', remembered: true });
    const forced = await chooseRuntime({ ...soft, reason: 'forced by ?backend=webgpu' }, 'webgpu', deps(), { remembered: { kind: 'wasm', timing: { webgpuMs: 50, wasmMs: 2 }, at: 0 } });
    expect(forced.kind).toBe('webgpu');
  });
});
