// The one compute thread of the page (module worker, comlink). The page never computes: every model,
// environment, rollout and training call happens here. RPC surface = `api` below; its type is exported
// for the page (type-only import, so the page bundle stays free of ORT and the engine).

import * as Comlink from 'comlink';
import { initRuntime, type WebRuntime } from './runtime-web';
import { buildSmokeGraph, smokeInput, SMOKE_SHAPE } from './smoke';
import * as engine from './engine-bridge';
import { f32 } from '../engine/runtime';
import type { BackendInfo, Capabilities, InitOptions, RolloutRequest, SmokeResult } from './protocol';

let runtime: WebRuntime | null = null;

function need(): WebRuntime {
  if (!runtime) throw new Error('worker not initialised: call init() first');
  return runtime;
}

const api = {
  /** Probe the adapter, configure ORT, and report the backend in use. Idempotent for equal options. */
  async init(opts: InitOptions = {}): Promise<BackendInfo> {
    runtime = await initRuntime(opts);
    return runtime.info;
  },

  backend(): BackendInfo | null {
    return runtime?.info ?? null;
  },

  /** What the page may offer; unavailable entries carry the reason shown in the UI. */
  capabilities(): Capabilities {
    return engine.capabilities();
  },

  /** softmax(x·W+b) through the chosen EP: proves the EP computes, independent of the engine. */
  async smokeTest(): Promise<SmokeResult> {
    const rt = need();
    const t0 = performance.now();
    const s = await rt.runtime.createSession(buildSmokeGraph());
    const out = await s.run({ x: f32(smokeInput(), [SMOKE_SHAPE.rows, SMOKE_SHAPE.inner]) });
    const y = Array.from(out.y!.data as Float32Array);
    await s.release();
    return { kind: rt.info.kind, output: y, ms: performance.now() - t0 };
  },

  // ---- engine --------------------------------------------------------------------------------------
  engineSelfTest: (opts?: engine.SelfTestOptions) => engine.selfTest(need(), opts),
  loadModel: (url: string) => engine.loadModel(need(), url),
  unloadModel: () => engine.unloadModel(),
  sample: (req: Parameters<typeof engine.sample>[0]) => engine.sample(req),

  // ---- agent (rollout) -----------------------------------------------------------------------------
  worlds: () => engine.worlds(),
  rollout: (req: RolloutRequest) => engine.rollout(need(), req),

  // ---- rl (training) -------------------------------------------------------------------------------
  // The RL work adds train* RPCs here (trainStart/trainStep/trainStop, each reporting TrainMetrics
  // through a Comlink.proxy callback). Until then the page reads capabilities().train.
  trainStep: (req: Parameters<typeof engine.trainStep>[0]) => engine.trainStep(req),

  // ---- benchmarks ----------------------------------------------------------------------------------
  bench: (req: Parameters<typeof engine.bench>[0]) => engine.bench(req),
};

export type ComputeApi = typeof api;

Comlink.expose(api);
