// Role-wise GRPO runs inside the compute worker. One run at a time per worker; the loop yields between
// optimizer steps so pause/stop/status RPCs are answered while it trains. Every event reaches the page
// through one Comlink.proxy callback, which a fresh worker (after a crash or a reload) simply receives
// again on resume.
//
// Durability: the checkpoint (weights, AdamW moments, step, metrics; the RNG needs nothing more because it
// derives from (seed, step)) and the request that built the run go to IndexedDB, so a worker that never
// saw the run can rebuild it and continue from the checkpoint's step.
//
// A lost WebGPU device (device.lost, or a GPU error thrown by a step) ends the run here with a reported
// switch; the page then replaces this worker with a WASM one and resumes from the last checkpoint.

import { loadModelFolder, fetchFileSource, modelFolderFiles, type ModelFolder } from '../engine/modelFolder';
import type { Runtime } from '../engine/runtime';
import { decodeCheckpoint, MemoryCheckpointStore, type CheckpointStore } from '../rl/checkpoint';
import { IndexedDbCheckpointStore, indexedDbAvailable, indexedDbProblem, quotaPauseMessage, quotaStartMessage } from '../rl/checkpoint-web';
import { makeTrainer } from '../rl/session';
import { useReferencePaths } from '../bench/reference-paths';
import type { GrpoTrainer, StepProgress } from '../rl/trainer';
import type { BackendKind, BackendSwitch, ExportedFolder, SavedRun, TrainEvent, TrainRequest, TrainStatus } from './protocol';
import { ort, type WebRuntime } from './runtime-web';
import { buildTinyFolder, TINY_MODEL, withMaxNewTokens } from './train-tiny';
import { trackWasmMemory, wasmMemoryBytes } from './wasm-memory';
import { yieldingRuntime } from './yielding-runtime';

export type TrainListener = (e: TrainEvent) => unknown;

const REQUEST_SUFFIX = '#request';

/**
 * Holds the trainer's checkpoint writes until the step's evaluation has run, so the checkpoint at a step
 * that is also an eval step carries that eval (a resume would otherwise drop it from the curves).
 */
class DeferredStore implements CheckpointStore {
  deferring = false;
  wanted = false;
  /** Set when its trainer is abandoned mid-step (lost device): a late finish must not overwrite newer state. */
  dead = false;
  constructor(readonly inner: CheckpointStore) {}
  async save(runId: string, bytes: Uint8Array) {
    if (this.dead) return;
    if (this.deferring) { this.wanted = true; return; }
    await this.inner.save(runId, bytes);
  }
  load(runId: string) { return this.inner.load(runId); }
  list() { return this.inner.list(); }
  remove(runId: string) { return this.inner.remove(runId); }
}

interface Run {
  req: TrainRequest;
  folder: ModelFolder;
  trainer: GrpoTrainer;
  backend: BackendKind;
  state: TrainStatus['state'];
  checkpointStep: number;
  resumedFrom?: number;
  switches: BackendSwitch[];
  error?: string;
  /** A checkpoint could not be stored (quota): the run paused with this message; resume retries the save. */
  storageFull?: string;
  /** Set by device.lost; the next step throws before touching the dead device. */
  deviceLost?: string;
  /**
   * Rejects when the device is lost. Steps race against it because ORT-web's WebGPU EP does not fail on
   * a destroyed device: its pending reads never settle (seen on SwiftShader), so the step would hang.
   */
  lost: Promise<never>;
  signalLost: (reason: string) => void;
  pauseRequested: boolean;
  stopRequested: boolean;
  /** The step (1-based) oneStep is running; null between steps. A Pause lets this step finish. */
  stepping: number | null;
  loop: Promise<void> | null;
}

let store: CheckpointStore | null = null;
let run: Run | null = null;
let listener: TrainListener | null = null;
let simulateLoss = false;
/** The debug hooks below exist only in the Playwright build (src/e2e-flag.d.ts); elsewhere this folds to false. */
const E2E_HOOKS = typeof __ENVACE_E2E__ !== 'undefined' && __ENVACE_E2E__ === true;
// Before ORT's init creates its wasm memory, so a soak run can watch that memory over hundreds of steps.
if (E2E_HOOKS) trackWasmMemory();
/** Debug: the loop hangs before this step (1-based), as a wedged worker would, until it is terminated or released. */
let stallBefore = 0;
let releaseStall: (() => void) | null = null;
/** Debug: poison the policy before the next step so the trainer's NaN/Inf guard has something to catch. */
let poisonNext = false;

/** Why checkpoints live in memory (ensureStore found IndexedDB missing or failing), said in every run's log. */
let memoryReason: string | null = null;

function checkpoints(): CheckpointStore {
  // Without IndexedDB (some private modes) runs still work, they just do not survive the worker.
  store ??= indexedDbAvailable() ? new IndexedDbCheckpointStore() : new MemoryCheckpointStore();
  return store;
}

/** Picks the store once, after trying IndexedDB: one that exists but cannot be opened also means memory. */
async function ensureStore(): Promise<CheckpointStore> {
  if (store) return store;
  const problem = await indexedDbProblem();
  memoryReason = problem;
  store ??= problem ? new MemoryCheckpointStore() : new IndexedDbCheckpointStore();
  return store;
}

function emit(e: TrainEvent): void {
  if (!listener) return;
  // A page that went away leaves a dead proxy behind; training must not die with it.
  try { Promise.resolve(listener(e)).catch(() => {}); } catch { /* ignore */ }
}

function log(text: string): void { if (run) emit({ type: 'log', runId: run.req.runId, text }); }

export function status(): TrainStatus {
  if (!run) return { runId: null, state: 'idle', step: 0, steps: 0, backend: null, checkpointStep: 0, switches: [] };
  return {
    runId: run.req.runId, state: run.state, step: run.trainer.step, steps: run.trainer.cfg.steps, backend: run.backend,
    checkpointStep: run.checkpointStep, resumedFrom: run.resumedFrom, switches: run.switches, error: run.error,
  };
}

function sendStatus(): void { emit({ type: 'status', status: status() }); }

async function loadFolder(req: TrainRequest): Promise<ModelFolder> {
  if (req.model === TINY_MODEL) {
    return buildTinyFolder({ world: req.spec.world ?? 'files', seed: req.spec.seed ?? 1, maxNewTokens: req.maxNewTokens || 8 });
  }
  const abs = new URL(req.model, self.location.origin).href;
  return withMaxNewTokens(await loadModelFolder(fetchFileSource(abs)), req.maxNewTokens);
}

function build(req: TrainRequest, folder: ModelFolder, runtime: Runtime): { trainer: GrpoTrainer; store: DeferredStore } {
  const deferred = new DeferredStore(checkpoints());
  // Progress inside a step (rollout rounds, then the update) reaches the page as it happens.
  const onProgress = (progress: StepProgress) => emit({ type: 'progress', runId: req.runId, progress });
  // Yielding: a Pause sent mid-step is read mid-step, so the page can name the step before the run stops.
  const trainer = makeTrainer(folder, yieldingRuntime(runtime), req.spec, { runId: req.runId, store: deferred, log, onProgress });
  // The replaced paths are for the browser benchmark only: compiled into the Playwright build, absent from a
  // production worker (tests/build/bundle.test.ts), where asking for them is refused.
  if (req.referencePaths) {
    if (!E2E_HOOKS) throw new Error('REFERENCE_PATHS_UNAVAILABLE: the benchmark reference paths exist only in the test build');
    useReferencePaths(trainer);
  }
  return { trainer, store: deferred };
}

const stores = new WeakMap<GrpoTrainer, DeferredStore>();

async function watchDevice(r: Run): Promise<void> {
  if (r.backend !== 'webgpu') return;
  try {
    const device = await (ort.env.webgpu as unknown as { device: Promise<{ lost: Promise<{ reason?: string; message?: string }> }> }).device;
    device?.lost?.then((info) => {
      if (run !== r || r.backend !== 'webgpu') return;
      const reason = info?.message || info?.reason || 'device lost';
      log(`WebGPU device lost: ${reason}`);
      r.signalLost(reason);
    });
  } catch { /* no device exposed: GPU errors thrown by a step still trigger the switch */ }
}

async function setUp(req: TrainRequest, rt: WebRuntime, resume: boolean): Promise<Run> {
  if (run?.loop) throw new Error(`run ${run.req.runId} is ${run.state}: pause or stop it first`);
  const folder = await loadFolder(req);
  const { trainer, store: deferred } = build(req, folder, rt.runtime);
  stores.set(trainer, deferred);
  let reject: (e: Error) => void = () => {};
  const lost = new Promise<never>((_, rej) => { reject = rej; });
  lost.catch(() => {}); // observed only through races
  const r: Run = {
    req, folder, trainer, backend: rt.info.kind, state: 'paused', checkpointStep: 0,
    switches: [], pauseRequested: false, stopRequested: false, stepping: null, loop: null, lost,
    signalLost: (reason) => { r.deviceLost ??= reason; reject(new Error(`WebGPU device lost: ${reason}`)); },
  };
  if (resume && (await trainer.resume())) {
    r.resumedFrom = trainer.step;
    r.checkpointStep = trainer.step;
  } else {
    // A new run under an old id must not be resumable into the old run's weights.
    await checkpoints().remove(req.runId);
  }
  const stored = new TextEncoder().encode(JSON.stringify(req));
  try {
    await checkpoints().save(req.runId + REQUEST_SUFFIX, stored);
  } catch (e) {
    const msg = quotaStartMessage(e, stored.byteLength);
    throw msg ? new Error(msg) : e;
  }
  run = r;
  void watchDevice(r);
  emit({ type: 'history', runId: req.runId, history: [...trainer.history], evals: [...trainer.evals] });
  return r;
}

function looksLikeGpuFailure(e: unknown): boolean {
  const m = e instanceof Error ? `${e.name} ${e.message}` : String(e);
  return /webgpu|gpu|device (was )?lost|GPUDevice|destroyed/i.test(m);
}

/** A GPU call that may never settle once the device is gone: give up on it when the loss is signalled. */
function guarded<T>(r: Run, p: Promise<T>): Promise<T> {
  return r.backend === 'webgpu' ? Promise.race([p, r.lost]) : p;
}

async function evaluateNow(r: Run): Promise<void> {
  emit({ type: 'progress', runId: r.req.runId, progress: { phase: 'eval', step: r.trainer.step, tasks: r.trainer.cfg.evalTasks } });
  const e = await guarded(r, r.trainer.evaluate());
  emit({ type: 'eval', runId: r.req.runId, metrics: e });
}

async function oneStep(r: Run): Promise<void> {
  const t = r.trainer;
  const deferred = stores.get(t)!;
  r.stepping = t.step + 1;
  try {
    if (E2E_HOOKS && stallBefore && r.stepping === stallBefore) {
      stallBefore = 0;
      log(`debug: hanging before step ${r.stepping}`);
      await new Promise<void>((res) => { releaseStall = res; });
      releaseStall = null;
    }
    if (E2E_HOOKS && simulateLoss && r.backend === 'webgpu') {
      simulateLoss = false;
      r.signalLost('simulated device loss (debug hook)');
    }
    if (r.deviceLost) throw new Error(`WebGPU device lost: ${r.deviceLost}`);
    // The step-0 evaluation gives the curves their starting point.
    if (t.cfg.evalEvery > 0 && t.step === 0 && !t.evals.some((e) => e.step === 0)) await evaluateNow(r);
    if (E2E_HOOKS && poisonNext) {
      poisonNext = false;
      t.actParams()['model.norm.weight']?.fill(Number.NaN);
      log('debug: policy weights poisoned with NaN');
    }
    deferred.deferring = true;
    deferred.wanted = false;
    const m = await guarded(r, t.trainStep());
    emit({ type: 'step', runId: r.req.runId, metrics: m });
    if (t.cfg.evalEvery > 0 && (t.step % t.cfg.evalEvery === 0 || t.step === t.cfg.steps)) await evaluateNow(r);
    deferred.deferring = false;
    if (deferred.wanted || t.step === t.cfg.steps) await saveOrPause(r);
  } catch (e) {
    deferred.deferring = false;
    if (r.backend === 'webgpu' && (r.deviceLost || looksLikeGpuFailure(e))) {
      deferred.dead = true;
      const reason = r.deviceLost ?? (e instanceof Error ? e.message : String(e)).slice(0, 200);
      // Not rebuilt in this worker: after a real loss ORT-web's wasm module is still inside the hung
      // WebGPU run ("Session already started" on the next WASM session), so only a fresh worker is sound.
      const change: BackendSwitch = { atStep: t.step, from: 'webgpu', to: 'wasm', reason, resumedFrom: r.checkpointStep };
      r.switches.push(change);
      log(`GPU failure at step ${t.step + 1}: ${reason}`);
      r.pauseRequested = true;
      emit({ type: 'backend', runId: r.req.runId, change });
      return;
    }
    throw e;
  } finally {
    r.stepping = null;
  }
}

async function save(r: Run): Promise<void> {
  const t0 = performance.now();
  await r.trainer.saveCheckpoint();
  r.checkpointStep = r.trainer.step;
  const bytes = (await checkpoints().load(r.req.runId))?.byteLength ?? 0;
  emit({ type: 'checkpoint', runId: r.req.runId, step: r.trainer.step, bytes, ms: performance.now() - t0 });
}

/**
 * save(), except that a full browser storage pauses the run with a clear message instead of failing it:
 * the weights stay in this worker, the last stored checkpoint is intact, and resume retries the save.
 */
async function saveOrPause(r: Run): Promise<boolean> {
  try {
    await save(r);
    return true;
  } catch (e) {
    const msg = quotaPauseMessage(e, r.trainer.step, r.checkpointStep);
    if (!msg) throw e;
    r.storageFull = msg;
    r.error = msg;
    r.pauseRequested = true;
    log(msg);
    return false;
  }
}

/** Runs training work for a run: a failure becomes the run's error state, and the page always hears the end. */
function settleRun(r: Run, work: () => Promise<void>): Promise<void> {
  return (async () => {
    try {
      await work();
    } catch (e) {
      r.state = 'error';
      r.error = e instanceof Error ? e.message : String(e);
    } finally {
      r.loop = null;
      sendStatus();
    }
  })();
}

function startLoop(r: Run): void {
  r.pauseRequested = false;
  r.stopRequested = false;
  r.error = undefined;
  r.state = 'running';
  sendStatus();
  r.loop = settleRun(r, async () => {
    // Paused for a full storage: the unsaved checkpoint goes first (pausing again if there is still no room).
    if (r.storageFull) { r.storageFull = undefined; await saveOrPause(r); }
    for (;;) {
      // One macrotask before each step: ORT-web's WASM runs resolve through microtasks only, so a Pause sent after
      // step k's last graph run would otherwise be read inside step k + 1, which then ran too (issue 42).
      await new Promise<void>((res) => setTimeout(res, 0));
      if (r.trainer.step >= r.trainer.cfg.steps || r.pauseRequested) break;
      await oneStep(r);
    }
    if (r.storageFull) r.state = 'paused';
    else if (r.trainer.step >= r.trainer.cfg.steps) r.state = 'done';
    else if (r.stopRequested) r.state = (await saveOrPause(r)) ? 'stopped' : 'paused';
    else r.state = 'paused';
  });
}

// ---------- the RPCs (wrapped by compute.worker.ts) ----------

export function setListener(cb: TrainListener | null): void { listener = cb; }

/** New run (an existing checkpoint under the same id is discarded). Returns once the loop is running. */
/** Said once per run when checkpoints cannot be persisted (no IndexedDB here): they live and die with this worker. */
function noteMemoryStore(): void {
  if (checkpoints() instanceof MemoryCheckpointStore) {
    log(`checkpoints: ${memoryReason ?? 'IndexedDB is not available in this browser'}, so checkpoints are kept in this worker's memory only and are lost when it ends (a reload or crash cannot resume)`);
  }
}

export async function start(rt: WebRuntime, req: TrainRequest, cb?: TrainListener): Promise<TrainStatus> {
  if (cb) listener = cb;
  await ensureStore();
  const r = await setUp(req, rt, false);
  noteMemoryStore();
  startLoop(r);
  return status();
}

/**
 * Continue a run: the paused one in memory, or (fresh worker, page reload) the one stored under runId,
 * from its checkpoint. `req` may be omitted when the worker stored the request itself.
 */
export async function resume(rt: WebRuntime, runId: string, cb?: TrainListener, opts: { stepOnly?: boolean } = {}): Promise<TrainStatus> {
  if (cb) listener = cb;
  await ensureStore();
  let r = run;
  if (!r || r.req.runId !== runId) {
    const req = await storedRequest(runId);
    if (!req) throw new Error(`no stored run '${runId}' in this browser`);
    r = await setUp(req, rt, true);
    noteMemoryStore();
    log(r.resumedFrom !== undefined ? `resumed ${runId} from its checkpoint at step ${r.resumedFrom}` : `no checkpoint for ${runId}: starting at step 0`);
  }
  if (r.loop) return status();
  if (opts.stepOnly) return stepOnce(r);
  startLoop(r);
  return status();
}

async function stepOnce(r: Run): Promise<TrainStatus> {
  if (r.trainer.step >= r.trainer.cfg.steps) return status();
  r.state = 'running';
  sendStatus();
  const p = settleRun(r, async () => {
    await oneStep(r);
    r.state = r.trainer.step >= r.trainer.cfg.steps ? 'done' : 'paused';
  });
  r.loop = p;
  await p;
  return status();
}

/** One optimizer step of the current (or stored) run, then paused. */
export async function step(rt: WebRuntime, runId: string, cb?: TrainListener): Promise<TrainStatus> {
  return resume(rt, runId, cb, { stepOnly: true });
}

/**
 * Finish the current step, then hold (weights stay in memory; resume continues without reloading).
 * The step the run stops after is decided here, where the loop runs, and sent to the page at once ('pausing'):
 * the step in progress, or between steps the last one finished. The page's own guess (from the progress it
 * last received) can be a step behind the worker, which had already started the next one (issue 42).
 */
export async function pause(): Promise<TrainStatus> {
  const r = run;
  if (r?.loop) {
    r.pauseRequested = true;
    const afterStep = r.stepping ?? r.trainer.step;
    const c = r.trainer.cfg;
    // Only a step still running has its held-out evaluation ahead of it.
    const evaluation = r.stepping !== null && c.evalEvery > 0 && (afterStep % c.evalEvery === 0 || afterStep === c.steps);
    emit({ type: 'pausing', runId: r.req.runId, afterStep, evaluation });
    await r.loop;
  }
  return status();
}

/** Like pause, and writes a checkpoint now so nothing since the last scheduled one is lost. */
export async function stop(): Promise<TrainStatus> {
  if (!run) return status();
  if (run.loop) {
    run.pauseRequested = true; run.stopRequested = true;
    await run.loop;
  } else if (run.state !== 'done') {
    await save(run);
    run.state = 'stopped';
    sendStatus();
  }
  return status();
}

async function storedRequest(runId: string): Promise<TrainRequest | null> {
  const b = await checkpoints().load(runId + REQUEST_SUFFIX);
  return b ? (JSON.parse(new TextDecoder().decode(b)) as TrainRequest) : null;
}

/** Runs this browser holds checkpoints or requests for. */
export async function listRuns(): Promise<SavedRun[]> {
  const keys = await (await ensureStore()).list();
  const ids = new Set(keys.map((k) => (k.endsWith(REQUEST_SUFFIX) ? k.slice(0, -REQUEST_SUFFIX.length) : k)));
  const out: SavedRun[] = [];
  for (const runId of ids) {
    const b = keys.includes(runId) ? await checkpoints().load(runId) : null;
    // One damaged checkpoint must not hide the others: it is listed with what is wrong with it.
    let step = 0; let corrupt: string | undefined;
    try { step = b ? decodeCheckpoint(b).step : 0; } catch (e) { step = -1; corrupt = e instanceof Error ? e.message : String(e); }
    let request: TrainRequest | null = null;
    try { request = await storedRequest(runId); } catch (e) { corrupt ??= `stored request unreadable: ${e instanceof Error ? e.message : String(e)}`; }
    out.push({ runId, step, request, ...(corrupt ? { corrupt } : {}) });
  }
  return out;
}

export async function removeRun(runId: string): Promise<void> {
  if (run?.req.runId === runId) {
    if (run.loop) throw new Error(`run ${runId} is running: stop it first`);
    run = null;
  }
  await checkpoints().remove(runId);
  await checkpoints().remove(runId + REQUEST_SUFFIX);
}

/** The stored checkpoint bytes (download, or a round-trip check). */
export async function checkpointBytes(runId: string): Promise<Uint8Array | null> {
  return checkpoints().load(runId);
}

/** The trained weights as a model folder (HF layout, with a fresh ONNX graph); per-role runs add rehearse/. */
export function exportFolder(): ExportedFolder {
  if (!run) throw new Error('no run in this worker: start or resume one first');
  const { folder, trainer, req } = run;
  const c = trainer.cfg;
  const parts = (params: typeof folder.params) => modelFolderFiles({
    config: folder.config, params, tokenizer: folder.tokenizerJson,
    chatTemplate: folder.tokenizerConfig.chat_template as string | undefined,
    meta: { ...(folder.rawConfig.envace as object | undefined), rl: { variant: c.variant, seed: c.seed, step: trainer.step, from: req.model, runId: req.runId } },
  });
  const files = parts(trainer.actParams());
  if (c.variant === 'per-role') for (const [p, b] of Object.entries(parts(trainer.rehearseParams()))) files[`rehearse/${p}`] = b;
  return { name: `${req.runId}-step${trainer.step}`, files };
}

function requireHooks(): void {
  if (!E2E_HOOKS) throw new Error('debug hooks are compiled into the e2e build only (ENVACE_E2E=1)');
}

/** Debug: this worker's WebAssembly memory (ORT's heap), for the soak run's flat-memory check. */
export function debugMemory(): { wasmBytes: number; memories: number; step: number } {
  requireHooks();
  const m = wasmMemoryBytes();
  return { wasmBytes: m.bytes, memories: m.memories, step: run?.trainer.step ?? 0 };
}

/** Debug: NaN in the policy's final norm before the next step (the guard must skip the update). */
export function debugPoisonNextStep(): void { requireHooks(); poisonNext = true; }

/** Debug: hang the loop before `step` (a crash drill needs a worker that is provably mid-run when killed). */
export function debugStallBefore(step: number): void { requireHooks(); stallBefore = step; }

/** Debug: a loop hanging at debugStallBefore's step runs that step after all (a Pause can be sent while it holds). */
export function debugReleaseStall(): boolean { requireHooks(); const f = releaseStall; f?.(); return f !== null; }

/**
 * Debug: the next WebGPU step behaves as if the device were lost (may be armed before a run starts);
 * `real` destroys the device ORT uses instead, so the failure comes from the EP itself.
 */
export async function debugLoseDevice(real = false): Promise<string> {
  requireHooks();
  if (run && run.backend !== 'webgpu') return 'backend is not WebGPU: nothing to lose';
  if (real) {
    const device = await (ort.env.webgpu as unknown as { device?: Promise<{ destroy(): void } | undefined> }).device;
    if (!device) throw new Error('no WebGPU device yet: wait for init() on a WebGPU backend');
    device.destroy();
    return 'device destroyed';
  }
  simulateLoss = true;
  return 'the next WebGPU step will see a lost device';
}
