// The one compute thread of the page (module worker, comlink). The page never computes: every model,
// environment, rollout and training call happens here. RPC surface = `api` below; its type is exported
// for the page (type-only import, so the page bundle stays free of ORT and the engine).

import * as Comlink from 'comlink';
import { initRuntime, probeInBackground, type WebRuntime } from './runtime-web';
import { buildSmokeGraph, smokeInput, SMOKE_SHAPE } from './smoke';
import * as engine from './engine-bridge';
import * as train from './train-service';
import * as benchService from './bench-service';
import * as suiteService from './suite-service';
import type { SuiteListener, SuiteRunRequest } from './suite-protocol';
import * as ttsService from './tts-service';
import type { BenchEvalRequest, BenchListener, RehearseFirstRequest } from './protocol';
import { f32 } from '../engine/runtime';
import type { BackendInfo, Capabilities, InitOptions, ProgressListener, RolloutRequest, RolloutStepRequest, SmokeResult, TrainRequest } from './protocol';
import { HF_URL_PREFIX, type HfLoadRequest, type HfProgressListener } from './protocol';
import * as hfCache from './hf-cache';
import { aliveLock } from './liveness';

// Hugging Face models (transformers.js, on this worker's ORT: runtime-web.ts) load only when one is asked for.
let hfModule: Promise<typeof import('./hf-service')> | null = null;
const hf = () => (hfModule ??= import('./hf-service'));
const isHf = (url: string) => url.startsWith(HF_URL_PREFIX);

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

  /**
   * The WebGPU timing a start on a fallback adapter deferred (info.probing): the page asks for it once it is
   * interactive; the verdict is remembered for the adapter and the updated info returned.
   */
  async backendProbe(): Promise<BackendInfo> {
    return probeInBackground(need());
  },

  /** A Web Lock this worker holds until it ends: the page waits on it to notice a worker that died on its own. */
  alive: () => aliveLock(),

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
  // onProgress: a Comlink.proxy callback (counts and an ETA bound per sampler round).
  // A Hugging Face model's URL (HF_URL_PREFIX…) routes to hf-service: same request, its chat template.
  rollout: async (req: RolloutRequest, onProgress?: ProgressListener) => (isHf(req.modelUrl) ? (await hf()).rollout(req, onProgress) : engine.rollout(need(), req, onProgress)),
  rolloutStep: async (req: RolloutStepRequest, onProgress?: ProgressListener) => (isHf(req.modelUrl) ? (await hf()).rolloutStep(req, onProgress) : engine.rolloutStep(need(), req, onProgress)),
  /** Stops a running rollout/step after its current round; it rejects with "cancelled: …". */
  rolloutCancel: () => { engine.cancelRollouts(); void hfModule?.then((m) => m.cancelRollouts()); },
  taskInfo: (world: string, id?: string) => engine.taskInfo(world, id),
  /** The rollout with private rehearsal (src/tts/) before every user turn; progress names the attempt and turn. */
  rehearseFirst: (req: RehearseFirstRequest, onProgress?: ProgressListener) => ttsService.rehearseFirst(need(), req, onProgress),
  /** Stops a running rehearseFirst before its next batch of generations; it rejects with "cancelled: …". */
  rehearseFirstCancel: () => ttsService.cancel(),

  // ---- rl (training) -------------------------------------------------------------------------------
  // Events (steps, evals, checkpoints, backend switches, status) arrive through `onEvent`, a
  // Comlink.proxy callback; each call replaces the previous listener.
  trainStart: (req: TrainRequest, onEvent?: train.TrainListener) => train.start(need(), req, onEvent),
  trainResume: (runId: string, onEvent?: train.TrainListener) => train.resume(need(), runId, onEvent),
  trainStep: (runId: string, onEvent?: train.TrainListener) => train.step(need(), runId, onEvent),
  trainPause: () => train.pause(),
  trainStop: () => train.stop(),
  trainStatus: () => train.status(),
  trainList: () => train.listRuns(),
  trainRemove: (runId: string) => train.removeRun(runId),
  trainCheckpoint: (runId: string) => train.checkpointBytes(runId),
  trainExport: () => train.exportFolder(),
  // Test hooks: only in the Playwright build (src/e2e-flag.d.ts); a production worker does not offer them.
  ...(typeof __ENVACE_E2E__ !== 'undefined' && __ENVACE_E2E__ ? {
    trainDebugLoseDevice: (real?: boolean) => train.debugLoseDevice(real),
    trainDebugStallBefore: (step: number) => train.debugStallBefore(step),
    trainDebugReleaseStall: () => train.debugReleaseStall(),
    trainDebugPoisonNextStep: () => train.debugPoisonNextStep(),
    trainDebugMemory: () => train.debugMemory(),
    /** The worker ends from inside, as a crash would: 'close' ends it, 'throw' raises an uncaught error. */
    debugDie: (how: 'close' | 'throw') => {
      setTimeout(() => { if (how === 'close') self.close(); else throw new Error('debugDie: uncaught error raised in the worker'); }, 0);
    },
  } : {}),

  // ---- Hugging Face models (Models page) -------------------------------------------------------------
  // onProgress: a Comlink.proxy callback per downloaded chunk (throttled); errors read "CODE: message".
  hfLoad: async (req: HfLoadRequest, onProgress?: HfProgressListener) => (await hf()).load(need(), req, onProgress),
  hfUnload: async () => { if (hfModule) await (await hfModule).unload(); },
  hfCurrent: async () => (hfModule ? (await hfModule).current() : null),
  // The cache is read without transformers.js (the Models page shows it on every visit).
  hfCacheInfo: () => hfCache.cacheInfo(),
  hfClearCache: () => hfCache.clearCache(),

  // ---- benchmarks ----------------------------------------------------------------------------------
  // The evaluation protocol (src/bench) in chunks: progress through a Comlink.proxy callback, cancel
  // between batches of generations (the run then rejects with EVAL_CANCELLED), status for polling.
  benchRun: (req: BenchEvalRequest, onProgress?: BenchListener) => benchService.run(need(), req, onProgress),
  benchCancel: () => benchService.cancel(),
  benchStatus: () => benchService.status(),
  // The paper's suites (BFCL-v4 multi-turn, τ²-bench; src/bench/suites) on files the page read: progress, cancel.
  suiteRun: (req: SuiteRunRequest, onProgress?: SuiteListener) => suiteService.run(need(), req, onProgress),
  suiteCancel: () => suiteService.cancel(),
};

export type ComputeApi = typeof api;

Comlink.expose(api);
