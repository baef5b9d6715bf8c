// Rollout page: pick a model, a world task and a mode, then watch the policy act, imagine each call's result
// (Rehearse) and, beside it, what the real environment returned (the shadow environment the rollout keeps
// in the imagined modes). Run plays the whole rollout in the worker; Step shows one more generation.
//
// How Step works: a rollout is a deterministic function of its settings and seed, so "k generations in" is
// the same rollout cut by limits.maxGenerations = k (worker RPC rolloutStep). The worker memoises stepping
// generations per loaded model, so step k+1 replays the first k from memory and samples only the new one;
// Run never reads that memo, so a Run after some Steps is an independent check that the prefix was right.
//
// URL: every control is in the hash (urlState), plus r.gen (generations shown, 0 = whole rollout) and
// autorun=1, which runs (or steps to r.gen) as soon as the worker, model index and worlds are ready.

import * as Comlink from 'comlink';
import { lazy, Suspense, useEffect, useMemo, useRef, useState, type DragEvent } from 'react';
import { create } from 'zustand';
import type { ModelEntry, Progress, RolloutMode, RolloutRequest, ShownTrajectory, TaskInfo } from '../../worker/protocol';
import { COLORS } from '../components/colors';
import { Empty, ErrorBox, Field, fmt, METRICS, NotAvailable, NumberInput, Panel, ProgressBar, Term } from '../components/ui';
import { DEMO } from '../demo/demo';
import { DEMO_MODEL } from '../demo/request';
import { TrajectoryView } from '../components/rollout/Timeline';
import { RehearseFirst } from '../components/rollout/RehearseFirst';
import { downloadTraces, readTraceFile, type LoadedTraces } from '../components/rollout/traceFiles';
import '../components/rollout/rollout.css';
import { useApp } from '../store';
import type { Settings } from '../urlState';
import { api, errorText, isNotAvailable } from '../worker';
import { CANCELLED } from '../../worker/protocol';
import { useModelIndex } from '../modelIndex';
import { loadTrace, saveTrace, traceKey } from '../components/rollout/traceStore';
import { setShareProvider } from '../share';
import { userError } from '../errors';
import { hfModelEntries, useHfModel } from '../components/models/hfStore';

// The bar charts (plain SVG, components/bars.tsx: no chart library on this page) load after the first paint.
const BarMetric = lazy(() => import('../components/bars').then((m) => ({ default: m.BarMetric })));

/** What the timeline shows: the shipped demo trace, a run, a stepped prefix, or a file. */
interface View {
  source: 'demo' | 'run' | 'step' | 'file';
  /** Run/step views read back from this browser's IndexedDB (the request's last computed trace), not computed now. */
  restored?: boolean;
  trajectories: ShownTrajectory[];
  /** Settings that produced a run/step (to tell whether Step continues it or starts over). */
  key?: string;
  generations?: number;
  /** Stepped views: no trajectory is cut any more (the view equals a full run). */
  done?: boolean;
  computed?: number;
  ms?: number;
  file?: LoadedTraces;
  /** Checklist questions for the shown task (demo: shipped with it; files: asked from the worker). */
  task?: TaskInfo | null;
  /** Run/step: the request that produced it (the trajectory header's seed derives from its seed). */
  request?: RolloutRequest;
}

interface RolloutState {
  view: View | null;
  selected: number;
  busy: 'run' | 'step' | null;
  progress: Progress | null;
  /** The last run was cancelled: what it had done (the previous view stays, marked). */
  cancelled: string | null;
  /** From the Cancel click to the worker's rejection, in ms (null: no click seen, e.g. a newer run). */
  cancelMs: number | null;
  error: string | null;
  notAvailable: string | null;
  /** Parse problems of the last loaded file (kept when the file yielded nothing to show). */
  loadErrors: LoadedTraces | null;
}

// Module-level so results survive switching tabs (pages unmount).
// The page opens on the shipped demo trace (drawn before the worker is ready), unless a link asks to run.
const demoView = (): View => ({ source: 'demo', trajectories: DEMO.trajectories, task: DEMO.meta.task });
/**
 * The demo trajectory shown first: the first whose rehearsal mostly agrees with reality and has one disagreement
 * (the instructive case), else the first.
 */
export function demoFirst(ts: ShownTrajectory[]): number {
  const i = ts.findIndex((t) => {
    const f = t.rows.filter((r) => r.role === 'rehearse' && r.fidelity).map((r) => r.fidelity!.exact);
    const same = f.filter(Boolean).length;
    return same > 0 && same < f.length && same > f.length - same;
  });
  return Math.max(0, i);
}
const useRollout = create<RolloutState>(() => ({
  view: DEMO.trajectories.length ? demoView() : null, selected: demoFirst(DEMO.trajectories), busy: null, progress: null, cancelled: null, cancelMs: null, error: null, notAvailable: null, loadErrors: null,
}));
let cancelClickedAt: number | null = null;
/** A run, step, file or restore happened on this page load: the restore-on-open no longer applies. */
let touched = false;

/** The settings the shipped demo trace was computed with (its request), as URL settings. */
const DEMO_SETTINGS = {
  'r.world': DEMO.meta.request.world, 'r.task': DEMO.meta.request.taskId, 'r.mode': DEMO.meta.request.mode, 'r.k': DEMO.meta.request.k,
  'r.seed': DEMO.meta.request.seed, 'r.temp': DEMO.meta.request.temperature, 'r.turns': DEMO.meta.request.maxTurns,
  'r.max': DEMO.meta.request.maxNewTokens, 'r.topp': DEMO.meta.request.topP, 'r.topk': DEMO.meta.request.topK,
} as const;

/**
 * The controls ask for exactly the shipped trace's request (same model, world, task, mode and sampling, whole
 * rollout, no rehearse-first): only then is the shipped trace what "Run" would compute, so only then is it shown.
 */
export function demoMatches(s: Settings): boolean {
  if (s['m.model'] !== '' && s['m.model'] !== DEMO.meta.model) return false;
  if (s['r.gen'] !== 0 || s['r.tts'] !== 0) return false;
  return (Object.keys(DEMO_SETTINGS) as (keyof typeof DEMO_SETTINGS)[]).every((k) => s[k] === DEMO_SETTINGS[k]);
}

/** Put the controls back on the shipped trace's request (it is then shown again). */
function showDemo(): void {
  const set = useApp.getState().set;
  set('m.model', '');
  for (const [k, v] of Object.entries(DEMO_SETTINGS)) set(k as keyof typeof DEMO_SETTINGS, v as never);
  set('r.gen', 0); set('r.tts', 0);
  runToken++;
  useRollout.setState({ view: demoView(), selected: demoFirst(DEMO.trajectories) });
}

/**
 * The default policy: the world's competent starter (models/<world>-starter: 47% / 44% of held-out tasks), else
 * the demo trace's (files-starter), so the page works offline without choosing anything and its first run shows
 * a policy that mostly does the task; the weak envace-* models only when no starter is shipped.
 */
export function defaultModel(models: ModelEntry[], world?: string): ModelEntry | undefined {
  return (world ? models.find((m) => m.name === `${world}-starter`) : undefined) ?? models.find((m) => m.name === DEMO_MODEL)
    ?? models.find((m) => m.name.endsWith('-starter')) ?? models.find((m) => m.name.startsWith('envace-')) ?? models[0];
}

function requestOf(s: Settings, model: ModelEntry | undefined): RolloutRequest {
  return {
    modelUrl: model?.url ?? '', world: s['r.world'], taskId: s['r.task'] || undefined, mode: s['r.mode'] as RolloutMode,
    k: s['r.k'], seed: s['r.seed'], temperature: s['r.temp'], topP: s['r.topp'], topK: s['r.topk'],
    maxTurns: s['r.turns'], maxNewTokens: s['r.max'],
  };
}

/** The current URL with autorun=1 in its hash: opening it runs (or steps to r.gen) the same rollout. */
export function linkWithAutorun(href: string): string {
  const u = new URL(href);
  const h = u.hash.replace(/^#/, '');
  const q = h.indexOf('?');
  const params = new URLSearchParams(q < 0 ? '' : h.slice(q + 1));
  params.set('autorun', '1');
  u.hash = `${q < 0 ? h : h.slice(0, q)}?${params.toString()}`;
  return u.href;
}

let runToken = 0;

async function execute(kind: 'run' | 'step', req: RolloutRequest, generations: number, advance: boolean): Promise<void> {
  const my = ++runToken;
  const key = JSON.stringify(req);
  useRollout.setState({ busy: kind, error: null, notAvailable: null, cancelled: null, cancelMs: null, progress: null });
  cancelClickedAt = null;
  const t0 = performance.now();
  const onProgress = Comlink.proxy((p: Progress) => { if (my === runToken) useRollout.setState({ progress: p }); });
  try {
    let view: View;
    if (kind === 'run') {
      const ts = await api.rollout(req, onProgress);
      view = { source: 'run', trajectories: ts, key, ms: performance.now() - t0, request: req };
    } else {
      const r = await api.rolloutStep({ ...req, generations, advance }, onProgress);
      view = { source: 'step', trajectories: r.trajectories, key, generations: r.generations, done: r.done, computed: r.computed, ms: performance.now() - t0, request: req };
    }
    if (my !== runToken) return;
    touched = true;
    // Kept in this browser under its request: a reload (or this page's link, opened here) shows it again.
    void saveTrace({ key: traceKey(req, kind === 'run' ? 0 : view.generations!), source: view.source as 'run' | 'step', request: req, trajectories: view.trajectories, generations: view.generations, done: view.done, ms: view.ms });
    const sel = useRollout.getState().selected;
    useRollout.setState({ view, selected: sel < view.trajectories.length && useRollout.getState().view?.key === key ? sel : 0 });
    const set = useApp.getState().set;
    set('r.gen', kind === 'run' ? 0 : view.generations!);
  } catch (e) {
    if (my !== runToken) return;
    const msg = errorText(e);
    if (isNotAvailable(e)) useRollout.setState({ notAvailable: msg.replace(/^not available yet:\s*/, '') });
    else if (msg.includes(`${CANCELLED}:`)) {
      useRollout.setState({ cancelled: msg.slice(msg.indexOf(`${CANCELLED}:`) + CANCELLED.length + 1).trim(), cancelMs: cancelClickedAt === null ? null : performance.now() - cancelClickedAt });
    }
    else useRollout.setState({ error: userError(e, 'the rollout') });
  } finally {
    if (my === runToken) useRollout.setState({ busy: null, progress: null });
  }
}

/** Stop the worker's rollout before its next forward pass (the worker checks inside a round too). */
function cancel(): void {
  cancelClickedAt = performance.now();
  void api.rolloutCancel();
}

async function loadFile(f: File): Promise<void> {
  const loaded = await readTraceFile(f);
  if (loaded.trajectories.length === 0 && loaded.errors.length === 0) loaded.errors.push({ line: 0, path: '$', message: 'no trajectories in this file (empty?)' });
  if (loaded.trajectories.length === 0) { useRollout.setState({ loadErrors: loaded }); return; }
  // A file replaces whatever is shown, including a run still in flight (its result is dropped).
  runToken++;
  touched = true;
  useRollout.setState({ view: { source: 'file', trajectories: loaded.trajectories, file: loaded, task: null }, selected: 0, loadErrors: loaded.errors.length ? loaded : null, busy: null, progress: null });
  // A trace carries verdicts by item id only; the questions and "required" marks come from the task itself
  // (built-in world tasks are deterministic per id, so the worker can rebuild it).
  const id = loaded.trajectories[0]!.taskId;
  const world = id.includes('-') ? id.slice(0, id.lastIndexOf('-')) : '';
  if (!world) return;
  const token = runToken;
  api.taskInfo(world, id).then(
    (t) => { const v = useRollout.getState().view; if (token === runToken && v?.source === 'file') useRollout.setState({ view: { ...v, task: t } }); },
    () => undefined, // not a built-in task (e.g. a reference dump): ids stay as they are
  );
}

export function RolloutPage() {
  const s = useApp((st) => st.settings);
  const set = useApp((st) => st.set);
  const caps = useApp((st) => st.caps);
  const worlds = useApp((st) => st.worlds);
  const backend = useApp((st) => st.backend);
  const { models: shipped, error: indexError } = useModelIndex();
  // A Hugging Face model loaded on the Models page is listed after the shipped folders.
  const hfLoaded = useHfModel((st) => st.loaded);
  const models = useMemo(() => shipped && [...shipped, ...hfModelEntries(hfLoaded)], [shipped, hfLoaded]);
  const { view, selected, busy, error, notAvailable, loadErrors, progress, cancelled, cancelMs } = useRollout();
  const [task, setTask] = useState<TaskInfo | null>(null);
  const [taskError, setTaskError] = useState<string | null>(null);
  const [dragging, setDragging] = useState(false);
  const fileInput = useRef<HTMLInputElement>(null);

  const model = models ? (s['m.model'] ? models.find((m) => m.name === s['m.model']) : defaultModel(models, s['r.world'])) : undefined;
  const world = worlds?.find((w) => w.name === s['r.world']);
  const req = requestOf(s, model);
  const reqKey = JSON.stringify(req);
  const ready = !!caps && !!model && !!worlds;

  useEffect(() => {
    if (!worlds) return;
    let live = true;
    api.taskInfo(s['r.world'], s['r.task'] || undefined).then(
      (t) => { if (live) { setTask(t); setTaskError(null); } },
      (e) => { if (live) { setTask(null); setTaskError(errorText(e)); } },
    );
    return () => { live = false; };
  }, [worlds, s['r.world'], s['r.task']]);

  // When the shipped trace first reaches the screen (the frame after its commit), for the e2e budget.
  // The bar charts (a lazy chunk) are requested only after that frame, so they never delay it.
  const [chartsWanted, setChartsWanted] = useState(() => performance.getEntriesByName('envace-demo-painted').length > 0);
  useEffect(() => {
    requestAnimationFrame(() => {
      if (view?.source === 'demo' && !performance.getEntriesByName('envace-demo-painted').length) performance.mark('envace-demo-painted');
      setTimeout(() => setChartsWanted(true), 0);
    });
  }, []);

  // autorun=1: reproduce the linked view once everything it needs is known (one attempt per page load).
  const autoran = useRef(false);
  useEffect(() => {
    // With rehearse-first on, RehearseFirst reproduces the linked view instead.
    if (autoran.current || !ready || s.autorun !== 1 || busy || s['r.tts'] > 0) return;
    autoran.current = true;
    const gen = s['r.gen'];
    void execute(gen > 0 ? 'step' : 'run', req, gen, false);
  }, [ready, s.autorun]);

  // Reload keeps the trace: with no autorun, the last trace computed in this browser for these exact settings
  // (IndexedDB, keyed by the request and r.gen) replaces the shipped one (once, before any action of this load).
  useEffect(() => {
    if (touched || !model || s.autorun === 1 || s['r.tts'] > 0) return;
    const key = traceKey(req, s['r.gen']);
    void loadTrace(key).then((t) => {
      if (!t || touched || useRollout.getState().busy) return;
      touched = true;
      runToken++;
      useRollout.setState({
        view: { source: t.source, trajectories: t.trajectories, key: JSON.stringify(req), generations: t.generations, done: t.done, ms: t.ms, request: t.request, restored: true },
        selected: 0,
      });
    });
  }, [model?.url]); // eslint-disable-line react-hooks/exhaustive-deps

  // The top bar's copy link: with a computed trace of these settings on screen, the link runs (or steps to
  // r.gen) on open, so a fresh browser recomputes what is shown here; otherwise the settings alone.
  const reqKeyRef = useRef(reqKey);
  reqKeyRef.current = reqKey;
  useEffect(() => setShareProvider(() => {
    const v = useRollout.getState().view;
    const computed = (v?.source === 'run' || v?.source === 'step') && v.key === reqKeyRef.current;
    return computed ? linkWithAutorun(location.href) : location.href;
  }), []);

  const run = () => {
    if (!s['m.model'] && model) set('m.model', model.name);
    void execute('run', req, 0, false);
  };
  const step = () => {
    if (!s['m.model'] && model) set('m.model', model.name);
    const cont = view?.source === 'step' && view.key === reqKey && !view.done;
    void execute('step', req, cont ? view.generations! + 1 : 1, true);
  };
  // Back: one generation fewer (the worker replays it from memory, as a step does).
  const canBack = view?.source === 'step' && view.key === reqKey && (view.generations ?? 0) > 1;
  const back = () => { if (canBack) void execute('step', req, view!.generations! - 1, false); };

  // The shipped trace is shown only while the controls ask for its request; otherwise it is set aside (the
  // timeline says so and offers Run, or putting the controls back on the shipped request).
  const demoAside = view?.source === 'demo' && !demoMatches(s);
  const trajs = demoAside ? [] : view?.trajectories ?? [];
  const cur = trajs[Math.min(selected, trajs.length - 1)];
  const stepping = view?.source === 'step' && !view.done;
  const stale = view && (view.source === 'run' || view.source === 'step') && view.key !== reqKey;
  const shownTask = view?.source === 'demo' || view?.source === 'file' ? view.task ?? null : task;

  const rewardData = useMemo(() => trajs.map((t, i) => ({ i: `#${i}`, reward: t.reward ?? 0 })), [trajs]);
  const fidData = useMemo(() => (cur?.rows ?? [])
    .filter((r) => r.role === 'rehearse' && r.fidelity)
    .map((r) => ({ step: `s${r.step}`, fieldF1: r.fidelity!.fieldF1, exact: r.fidelity!.exact ? 1 : 0 })), [cur]);

  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setDragging(false);
    const f = e.dataTransfer.files[0];
    if (f) void loadFile(f);
  };
  const dragProps = {
    onDragOver: (e: DragEvent) => { e.preventDefault(); setDragging(true); },
    onDragLeave: () => setDragging(false),
    onDrop,
  };

  const cap = caps?.rollout;
  return (
    <div className={`page page-rollout${dragging ? ' dragging' : ''}`} {...dragProps}>
      <Panel title="Rollout" className="controls" testId="rollout-controls">
        <div className="fields">
          <label className="field wide" htmlFor="f-m.model">
            <span className="field-label">policy model · computes on <b data-testid="rollout-backend">{backend ? backend.kind : '…'}</b></span>
            <select id="f-m.model" value={model?.name ?? s['m.model']} onChange={(e) => set('m.model', e.target.value)}>
              {!models && <option value={s['m.model']}>{indexError ? '(model index failed)' : '(loading…)'}</option>}
              {models?.length === 0 && <option value="">(no models)</option>}
              {models?.map((m) => <option key={m.name} value={m.name}>{m.name}{m === defaultModel(models, s['r.world']) ? ' (default)' : ''}</option>)}
              {models && s['m.model'] && !model && <option value={s['m.model']}>{s['m.model']} (unknown)</option>}
            </select>
          </label>
          <Field k="r.world" label="world" options={worlds?.map((w) => ({ value: w.name }))} />
          <Field k="r.mode" label="mode" title={`${METRICS.real} · ${METRICS.simulator} · ${METRICS.rehearsal} (EnvACE)`} />
          <Field k="r.task" label="task" wide title="a listed task, or type a seed below"
            options={[{ value: '', label: '(first test task)' },
              // A seed typed below is a real task even when it is not among the listed ones.
              ...(s['r.task'] && task?.id === s['r.task'] && !world?.testTasks.includes(task.id) && !world?.trainTasks.includes(task.id)
                ? [{ value: task.id, label: `${task.id} (${task.split})` }] : []),
              ...(world?.testTasks ?? []).map((t) => ({ value: t, label: `${t} (test)` })),
              ...(world?.trainTasks ?? []).map((t) => ({ value: t, label: `${t} (train)` }))]} />
          <label className="field" htmlFor="task-seed" title="any seed of this world">
            <span className="field-label">task seed</span>
            <NumberInput id="task-seed" testId="task-seed" min={0} max={2 ** 31 - 1} integer value={task && task.world === s['r.world'] ? task.seed : NaN}
              onCommit={(v) => set('r.task', `${s['r.world']}-${v}`)} />
          </label>
          <div className="field task-meta" data-testid="task-meta" title="split: the task's side of the train/test division; difficulty: the world generator's level (1 easiest … 3)">
            <span className="field-label">task</span>
            {task ? <span>split <b>{task.split}</b> · difficulty <b>{task.difficulty}</b> · {task.userTurns.length} turns · {task.tools} tools</span> : <span className="muted">{taskError ?? '…'}</span>}
          </div>
        </div>
        <div className="subhead">sampling</div>
        <div className="fields">
          <Field k="r.temp" label="temperature" step={0.05} />
          <Field k="r.topp" label="top-p" step={0.05} title="1 = off" />
          <Field k="r.topk" label="top-k" title="0 = off" />
          <Field k="r.seed" label="seed" />
          <Field k="r.k" label="n (trajectories)" />
          <Field k="r.max" label="max new tokens" />
          <Field k="r.turns" label="turn cap" />
        </div>
        {s['r.k'] > 1 && s['r.temp'] === 0 && (
          <div className="warn-line" role="status" data-testid="identical-warning">
            temperature 0 is greedy: all {s['r.k']} trajectories will be identical (raise the temperature, or set n to 1)
          </div>
        )}
        {world && <div className="muted">{world.description}</div>}
        {s['r.mode'] === 'simulator' && <div className="muted">simulator = the same weights, frozen, in the Rehearse role (one model until training runs)</div>}
        <div className="actions">
          <button className="primary" disabled={!!busy || !ready} onClick={run} title="the whole rollout, in the worker">
            {busy === 'run' ? 'running…' : 'Run'}
          </button>
          <button disabled={!!busy || !ready || !canBack} onClick={back} data-testid="rollout-back" title="one generation back (the worker replays the earlier ones from memory)">Back</button>
          <button disabled={!!busy || !ready} onClick={step} title="one more generation (the worker replays the earlier ones from memory)">
            {busy === 'step' ? 'stepping…' : stepping && !stale ? `Step (${(view?.generations ?? 0) + 1})` : view?.source === 'step' && !stale ? 'Step (from 1)' : 'Step'}
          </button>
          {busy && <button data-testid="rollout-cancel" onClick={cancel} title="stop the worker before its next forward pass">Cancel</button>}
        </div>
        {busy && <ProgressBar testId="rollout-progress" progress={progress} label={busy === 'run' ? 'running in the worker' : 'stepping in the worker'} />}
        {cancelled && <div className="not-available" role="status" data-testid="rollout-cancelled" data-cancel-ms={cancelMs === null ? '' : cancelMs.toFixed(0)}><strong>cancelled</strong>{cancelMs === null ? '' : ` in ${(cancelMs / 1000).toFixed(1)} s`}: {cancelled}; the view below is the previous one</div>}
        <div className="muted run-status" data-testid="run-status">
          {busy && `${busy === 'run' ? 'running' : 'stepping'} in the worker… · previous: `}
          {view?.source === 'demo' && !demoAside && 'shipped trace (not computed here) · Run computes it live'}
          {demoAside && 'nothing computed for these settings yet · Run computes them'}
          {view?.restored && 'restored from this browser (computed earlier for these settings) · '}
          {view?.source === 'run' && `full run · ${fmt((view.ms ?? 0) / 1000, 2)} s`}
          {view?.source === 'step' && `${view.done ? 'stepped to the end' : 'stepping'} · ${view.generations} generation${view.generations === 1 ? '' : 's'} · ${view.computed} sampled now · ${fmt((view.ms ?? 0) / 1000, 2)} s`}
          {view?.source === 'file' && `file ${view.file?.file}`}
          {stale && ' · settings changed since'}
        </div>
        {models && !model && <div className="muted">Choose a policy model (the Models page lists what models/ ships).</div>}
        {cap && !cap.available && <NotAvailable what="rollout" reason={cap.reason} />}
        {notAvailable && <NotAvailable what="rollout" reason={notAvailable} />}
        <ErrorBox error={error} />
      </Panel>

      <Panel title="Timeline" className="timeline" testId="rollout-timeline"
        right={trajs.length > 1 && (
          <span className="traj-picker">
            {trajs.map((t, i) => (
              <button key={i} className={i === selected ? 'on' : ''} onClick={() => useRollout.setState({ selected: i })} title={t.terminatedBy}>
                #{i} {stepping ? `${t.rows.length}g` : fmt(t.reward ?? null, 2)}
              </button>
            ))}
          </span>
        )}>
        {view?.source === 'demo' && !demoAside && <DemoBanner onRun={run} canRun={ready && !busy} />}
        {demoAside && (
          <div className="demo-aside" data-testid="demo-aside">
            The shipped trace ({DEMO.meta.model}, {DEMO.meta.request.mode} mode, {DEMO.meta.request.taskId}, n {DEMO.meta.request.k}, T {DEMO.meta.request.temperature}) was computed
            for other settings than these, so it is set aside. <b>Run</b> computes what the controls ask for.
            <div className="actions">
              <button className="primary" disabled={!ready || !!busy} onClick={run}>Run these settings</button>
              <button onClick={showDemo} data-testid="show-demo" title="put every control back on the shipped trace's request">Show the shipped trace</button>
            </div>
          </div>
        )}
        {!cur ? (demoAside ? null : <Empty>No trajectories yet. Run or Step a rollout, or drop a JSONL trace here.</Empty>)
          : <TrajectoryView t={cur} task={shownTask} baseSeed={view?.source === 'demo' ? DEMO.meta.request.seed : view?.request?.seed}
              inProgress={stepping && cur.terminatedBy === 'generation_cap'} stepLabel={view?.source === 'step' ? `step ${view.generations}` : undefined} />}
      </Panel>

      <div className="side">
        <Panel title="Traces" className="traces" testId="traces">
          <div className="actions">
            <button disabled={trajs.length === 0} data-testid="save-traces"
              onClick={() => downloadTraces(trajs, `envace-${cur?.taskId ?? 'trace'}-${view?.source ?? 'run'}.jsonl`)}>Save</button>
            <button onClick={() => fileInput.current?.click()}>Load…</button>
            <input ref={fileInput} type="file" accept=".jsonl,.json,.ndjson,application/json,text/plain" hidden data-testid="trace-file"
              onChange={(e) => { const f = e.target.files?.[0]; if (f) void loadFile(f); e.target.value = ''; }} />
          </div>
          {/* Drops anywhere bubble to the page's handler; this is the visible target. */}
          <div className={`drop-zone${dragging ? ' on' : ''}`} data-testid="drop-zone">
            drop a JSONL trace (ours, or a reference-code rollout dump) anywhere on the page
          </div>
          {view?.source === 'file' && view.file && (
            <div className="muted" data-testid="loaded-file">
              {view.file.file}: {view.file.trajectories.length} trajector{view.file.trajectories.length === 1 ? 'y' : 'ies'}
              {view.file.kind === 'reference-dump' && view.file.dump && ` from ${view.file.dump.records} reference-dump records (${view.file.dump.unlinked} unlinked, ${view.file.dump.dummies} placeholders)`}
            </div>
          )}
          {loadErrors && loadErrors.errors.length > 0 && (
            <div className="load-errors" role="alert" data-testid="load-errors">
              <div>{loadErrors.file}: {loadErrors.errors.length} problem{loadErrors.errors.length === 1 ? '' : 's'}{loadErrors.trajectories.length ? `, ${loadErrors.trajectories.length} trajectories loaded` : ', nothing loaded'}</div>
              <table>
                <thead><tr><th>line</th><th>field</th><th>problem</th></tr></thead>
                <tbody>
                  {loadErrors.errors.slice(0, 50).map((e, i) => <tr key={i}><td>{e.line}</td><td>{e.path}</td><td>{e.message}</td></tr>)}
                </tbody>
              </table>
              {loadErrors.errors.length > 50 && <div className="muted">…{loadErrors.errors.length - 50} more</div>}
            </div>
          )}
        </Panel>
        <Panel title="Charts" className="charts">
          {!chartsWanted ? <Empty>loading charts…</Empty> : <Suspense fallback={<Empty>loading charts…</Empty>}>
          {trajs.length === 0 ? <Empty>Reward per trajectory and rehearsal fidelity appear after a run.</Empty> : (
            <>
              {!stepping && <BarMetric title="reward per trajectory" definition={METRICS.reward} yDomain={[0, 1]} data={rewardData} x="i" series={[{ key: 'reward', label: 'reward', color: COLORS.reward }]} />}
              {fidData.length > 0
                ? <BarMetric title={`fidelity per call (trajectory #${selected})`} definition={`${METRICS['field F1']}; ${METRICS.exact}`} yDomain={[0, 1]} data={fidData} x="step"
                    series={[{ key: 'fieldF1', label: 'field F1', color: COLORS.fidelity }, { key: 'exact', label: 'exact', color: COLORS.success }]} />
                : <Empty>No rehearsed calls with a real result in this trajectory (mode {cur?.mode}).</Empty>}
            </>
          )}
          </Suspense>}
        </Panel>
      </div>

      <RehearseFirst req={req} ready={ready} task={task} models={models} rolloutModel={model} />
    </div>
  );
}

/** One line on what the visitor is looking at, and the button that computes it live. */
function DemoBanner(props: { onRun: () => void; canRun: boolean }) {
  const m = DEMO.meta;
  return (
    <div className="demo-banner" data-testid="demo-banner">
      <span>
        <b>A shipped trace</b>: {m.model} in <Term name="rehearsal" label={<b>rehearsal</b>} /> mode on {m.request.taskId} ({m.task.userTurns[0]}) —
        one model plays both roles: <Term name="Act" /> calls a tool, <Term name="Rehearse" /> imagines its result (left) while the real
        environment's answer is recorded beside it (right), scored by <Term name="fidelity" />; <Term name="checklist" /> ticks
        marked <span className="badge imagined">imagined</span> rest on an imagined result.
      </span>
      <button className="primary" disabled={!props.canRun} onClick={props.onRun} data-testid="demo-run"
        title="recompute this rollout in the worker with the settings on the left (the same request)">Run it live</button>
    </div>
  );
}
