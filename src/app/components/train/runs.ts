// Training runs as the page knows them. Finished runs stay (overlaid on the charts, toggled per run);
// everything is mirrored to localStorage so a reload still shows the curves and can resume the run the
// worker checkpointed to IndexedDB.

import { create } from 'zustand';
import { VARIANTS, type VariantName } from '../../../rl/advantages';
import type { BackendSwitch, EvalMetrics, StepMetrics, TrainEvent, TrainRequest, TrainStatus } from '../../../worker/protocol';
import { errorText } from '../../worker';
import { eventProxy, forceBackend, killTrainWorker, onDeath, onWorkerError, trainWorker, TrainWorkerKilled, whileAlive } from './client';
import { persistText, requestPersistentStorage } from '../../storage';
import { distinctRuns, pageStorage, readRunHistory, uniqueLabel, writeRunHistory } from './runHistory';

export interface RunRecord {
  runId: string;
  label: string;
  request: TrainRequest;
  color: string;
  visible: boolean;
  createdAt: number;
  history: StepMetrics[];
  evals: EvalMetrics[];
  status: TrainStatus | null;
  checkpointStep: number;
  checkpointBytes: number;
  switches: BackendSwitch[];
  logs: string[];
  /** The worker that ran it is gone (killed, crashed, page reloaded): only a resume continues it. */
  interrupted: boolean;
  /** The page's Train settings (t.*) the run was started with: the copy link carries them (issue 42). */
  settings?: Record<string, unknown>;
  /** Where the running step is (rollout round, update, evaluation), from the worker; null between steps. */
  inStep?: InStep | null;
  /** What the worker answered a Pause: the step it stops after (its evaluation too, when due); null until then. */
  pauseAfter?: { step: number; evaluation: boolean } | null;
  error: string | null;
}

export type InStep = Extract<TrainEvent, { type: 'progress' }>['progress'];

interface TrainStore {
  runs: RunRecord[];
  activeId: string | null;
  busy: boolean;
  error: string | null;
  /** The run history could not be read or saved (runHistory.ts): shown until a save succeeds again. */
  storageProblem?: string | null;
}

const PALETTE = ['#5cc8ff', '#ff8a65', '#7bd88f', '#c792ea', '#ffd166', '#4dd0e1', '#f06292', '#aed581'];

/** false: the stored history could not be read nor kept aside, so this page never saves over it. */
let historyWritable = true;

function restore(): TrainStore {
  const r = readRunHistory<RunRecord>(pageStorage());
  historyWritable = r.writable;
  // The worker did not survive the reload, whatever the stored state says.
  const runs = distinctRuns(r.stored?.runs ?? []).map((x) => ({ ...(isLive(x) ? { ...x, interrupted: true } : x), inStep: null, pauseAfter: null }));
  return { runs, activeId: r.stored?.activeId ?? null, busy: false, error: null, storageProblem: r.problem };
}

export const useRuns = create<TrainStore>(() => restore());

function saveHistory(): void {
  saveTimer = null;
  const s = useRuns.getState();
  const problem = writeRunHistory(pageStorage(), { runs: s.runs, activeId: s.activeId });
  // A failed save is said until a save succeeds; what reading found (a corrupt history kept aside) stays said.
  if (problem !== null ? problem !== s.storageProblem : s.storageProblem?.startsWith('RUN_HISTORY_NOT_SAVED')) useRuns.setState({ storageProblem: problem });
}

/**
 * While a run is live every step changes the store, and serialising the whole history each time took about 7% of
 * the main thread: then saves are coalesced to one a second. Anything else (a run started, stopped, renamed,
 * removed) is saved at once, and leaving the page saves what is pending, so a reload still finds every step.
 */
const SAVE_EVERY_MS = 1000;
let saveTimer: ReturnType<typeof setTimeout> | null = null;
useRuns.subscribe((s, prev) => {
  if (!historyWritable || (s.runs === prev.runs && s.activeId === prev.activeId)) return;
  if (!s.runs.some(isLive)) { if (saveTimer !== null) clearTimeout(saveTimer); saveHistory(); return; }
  saveTimer ??= setTimeout(saveHistory, SAVE_EVERY_MS);
});
if (typeof addEventListener === 'function') {
  const flush = () => { if (saveTimer !== null) { clearTimeout(saveTimer); saveHistory(); } };
  addEventListener('pagehide', flush);
  addEventListener('visibilitychange', () => { if (typeof document !== 'undefined' && document.visibilityState === 'hidden') flush(); });
}

export function isLive(r: RunRecord): boolean { return r.status?.state === 'running' || r.status?.state === 'loading'; }

export function variantOf(r: Pick<TrainRequest, 'spec'>): VariantName { return r.spec.variant ?? 'envace'; }

function patch(runId: string, f: (r: RunRecord) => Partial<RunRecord>): void {
  useRuns.setState((s) => ({ runs: s.runs.map((r) => (r.runId === runId ? { ...r, ...f(r) } : r)) }));
}

const upsertStep = (xs: StepMetrics[], m: StepMetrics) => [...xs.filter((h) => h.step < m.step), m];
const upsertEval = (xs: EvalMetrics[], e: EvalMetrics) => [...xs.filter((x) => x.step !== e.step), e].sort((a, b) => a.step - b.step);
const addLog = (r: RunRecord, text: string) => [...r.logs, `${new Date().toISOString().slice(11, 19)} ${text}`].slice(-60);

function onEvent(e: TrainEvent): void {
  switch (e.type) {
    case 'status':
      // Switches are kept here, not taken from the status: the worker that switched is gone after one.
      if (e.status.runId) patch(e.status.runId, (r) => ({ status: e.status, checkpointStep: e.status.checkpointStep, error: e.status.error ?? null, interrupted: false, inStep: e.status.state === 'running' ? r.inStep : null, pauseAfter: e.status.state === 'running' ? r.pauseAfter : null }));
      break;
    case 'history':
      patch(e.runId, () => ({ history: e.history, evals: e.evals }));
      break;
    case 'step':
      patch(e.runId, (r) => ({
        history: upsertStep(r.history, e.metrics),
        status: r.status ? { ...r.status, step: e.metrics.step } : r.status,
        inStep: null,
        logs: e.metrics.skipped ? addLog(r, `step ${e.metrics.step} SKIPPED: ${e.metrics.note ?? 'non-finite update'}`) : r.logs,
      }));
      break;
    case 'eval':
      patch(e.runId, (r) => ({ evals: upsertEval(r.evals, e.metrics), inStep: r.inStep?.phase === 'eval' ? null : r.inStep }));
      break;
    case 'checkpoint':
      patch(e.runId, (r) => ({ checkpointStep: e.step, checkpointBytes: e.bytes, logs: addLog(r, `checkpoint @${e.step} (${(e.bytes / 1024).toFixed(0)} KiB, ${e.ms.toFixed(0)} ms)`) }));
      break;
    case 'backend':
      patch(e.runId, (r) => ({
        switches: [...r.switches, e.change],
        logs: addLog(r, `backend ${e.change.from} → ${e.change.to} at step ${e.change.atStep}: ${e.change.reason}; restarting the worker on ${e.change.to}, resuming from checkpoint @${e.change.resumedFrom}`),
      }));
      // Outside the worker's callback: this kills the worker that is calling us.
      setTimeout(() => void restartOn(e.change.to, e.runId), 0);
      break;
    case 'log':
      patch(e.runId, (r) => ({ logs: addLog(r, e.text) }));
      break;
    case 'progress':
      patch(e.runId, () => ({ inStep: e.progress }));
      break;
    case 'pausing':
      patch(e.runId, (r) => ({
        pauseAfter: { step: e.afterStep, evaluation: e.evaluation },
        logs: addLog(r, `pause read by the worker: the run stops after step ${e.afterStep}${e.evaluation ? ' and its held-out evaluation' : ''}`),
      }));
      break;
  }
}

const listener = eventProxy(onEvent);

// Calls in flight: busy while any is (a Pause still waiting when Resume starts must not clear Resume's busy).
let pending = 0;

async function call<T>(f: () => Promise<T>): Promise<T | undefined> {
  pending++;
  useRuns.setState({ busy: true, error: null });
  try {
    // A worker that dies never answers: the call rejects with TrainWorkerDied instead of hanging.
    return await whileAlive(f());
  } catch (e) {
    // Cancel now (or a backend switch) terminated the worker under this call: nothing failed, the run says
    // it is interrupted and Resume continues it.
    if (!(e instanceof TrainWorkerKilled)) useRuns.setState({ error: errorText(e) });
    return undefined;
  } finally {
    pending--;
    useRuns.setState({ busy: pending > 0 });
  }
}

function applyStatus(st: TrainStatus | undefined): void {
  if (st?.runId) onEvent({ type: 'status', status: st });
}

export function newRunId(req: Omit<TrainRequest, 'runId'>): string {
  const base = `${variantOf(req)}-s${req.spec.seed ?? 0}-${Date.now().toString(36)}`;
  // Two starts in one millisecond (a double click) must not share an id: it keys the run everywhere.
  const taken = new Set(useRuns.getState().runs.map((r) => r.runId));
  let id = base;
  for (let n = 2; taken.has(id); n++) id = `${base}-${n}`;
  return id;
}

export async function startRun(req: Omit<TrainRequest, 'runId'>, settings?: Record<string, unknown>): Promise<string> {
  const runId = newRunId(req);
  const used = new Set(useRuns.getState().runs.map((r) => r.color));
  const color = PALETTE.find((c) => !used.has(c)) ?? PALETTE[useRuns.getState().runs.length % PALETTE.length];
  const request: TrainRequest = { ...req, runId };
  const record: RunRecord = {
    runId, label: uniqueLabel(req.label ?? `${VARIANTS[variantOf(req)].label.split(' (')[0]} · seed ${req.spec.seed ?? 0}`, useRuns.getState().runs.map((r) => r.label)), request, color, visible: true,
    createdAt: Date.now(), history: [], evals: [], checkpointStep: 0, checkpointBytes: 0, switches: [], logs: [],
    status: { runId, state: 'loading', step: 0, steps: req.spec.steps ?? 0, backend: null, checkpointStep: 0, switches: [] },
    interrupted: false, error: null, ...(settings ? { settings } : {}),
  };
  useRuns.setState((s) => ({ runs: [...s.runs, record], activeId: runId }));
  // Checkpoints live in IndexedDB: ask (once, on this user action) that the browser not evict them.
  void requestPersistentStorage().then((p) => patch(runId, (r) => ({ logs: addLog(r, persistText(p)) })));
  const w = trainWorker();
  const st = await call(async () => { await w.ready; return w.api.trainStart(request, listener); });
  // No status and an error: the start failed. No status and no error: Cancel now ended it (already interrupted).
  if (!st && useRuns.getState().error) patch(runId, (r) => ({ status: r.status && { ...r.status, state: 'error' }, error: useRuns.getState().error }));
  applyStatus(st);
  return runId;
}

/**
 * Resume / Step say so at once (state 'loading', no longer 'interrupted') while a fresh worker starts ORT and
 * rebuilds the run from its checkpoint; if that fails the run is interrupted again, with the error.
 */
async function continueRun(runId: string, f: (w: ReturnType<typeof trainWorker>) => Promise<TrainStatus>): Promise<void> {
  useRuns.setState({ activeId: runId });
  const was = useRuns.getState().runs.find((r) => r.runId === runId)?.interrupted ?? false;
  patch(runId, (r) => ({ interrupted: false, status: r.status && { ...r.status, state: 'loading' } }));
  const w = trainWorker();
  const st = await call(async () => { await w.ready; return f(w); });
  if (st) applyStatus(st);
  else patch(runId, (r) => ({ interrupted: was || r.interrupted, status: r.status && { ...r.status, state: r.status.state === 'loading' ? 'paused' : r.status.state } }));
}

export async function resumeRun(runId: string): Promise<void> {
  await continueRun(runId, (w) => w.api.trainResume(runId, listener));
}

export async function stepRun(runId: string): Promise<void> {
  await continueRun(runId, (w) => w.api.trainStep(runId, listener));
}

/** The page names the step only once the worker says which (its 'pausing' event); an older answer is dropped. */
export async function pauseRun(): Promise<void> {
  const id = useRuns.getState().activeId;
  if (id) patch(id, () => ({ pauseAfter: null }));
  applyStatus(await call(() => trainWorker().api.trainPause()));
}
export async function stopRun(): Promise<void> { applyStatus(await call(() => trainWorker().api.trainStop())); }

/** A lost GPU leaves ORT-web wedged in its worker: replace the worker and continue from the checkpoint. */
async function restartOn(backend: 'wasm' | 'webgpu', runId: string): Promise<void> {
  forceBackend(backend);
  killTrainWorker();
  await resumeRun(runId);
}

/** The worker died on its own: like a kill, and the run says why (its Resume continues from the checkpoint). */
onDeath((reason) => {
  useRuns.setState((s) => ({
    error: `${reason}; the run is interrupted — Resume continues it from its last checkpoint`,
    runs: s.runs.map((r) => (isLive(r) || r.runId === s.activeId ? {
      ...r, interrupted: true, inStep: null, error: r.status?.state === 'done' ? r.error : reason, logs: addLog(r, reason),
      status: r.status && { ...r.status, state: r.status.state === 'done' ? 'done' : 'paused' },
    } : r)),
  }));
});
onWorkerError((text) => {
  const id = useRuns.getState().activeId;
  if (id) patch(id, (r) => ({ logs: addLog(r, text) }));
});

export function killWorker(): number {
  const g = killTrainWorker();
  useRuns.setState((s) => ({ runs: s.runs.map((r) => (isLive(r) || r.runId === s.activeId ? { ...r, interrupted: true, status: r.status && { ...r.status, state: r.status.state === 'done' ? 'done' : 'paused' } } : r)) }));
  return g;
}

export async function removeRun(runId: string): Promise<void> {
  const r = useRuns.getState().runs.find((x) => x.runId === runId);
  if (r && isLive(r) && !r.interrupted) { useRuns.setState({ error: 'pause or stop the run before removing it' }); return; }
  await call(async () => { const w = trainWorker(); await w.ready; await w.api.trainRemove(runId); });
  useRuns.setState((s) => ({ runs: s.runs.filter((x) => x.runId !== runId), activeId: s.activeId === runId ? null : s.activeId }));
}

export function toggleRun(runId: string): void { patch(runId, (r) => ({ visible: !r.visible })); }
