// Train page: role-wise GRPO in the training worker. The worker owns the loop (so a run keeps going while
// the page re-renders or switches tabs); the page sends start/pause/resume/step/stop and draws what the
// worker streams. Settings live in the URL; runs (and their curves) in a localStorage-backed store.

import { memo, useEffect, useMemo, useRef, useState } from 'react';
import { VARIANTS, type VariantName } from '../../rl/advantages';
import type { TrainRequest } from '../../worker/protocol';
import { countRender, RunsChart } from '../components/train/RunsChart';
import { curveCharts, trainsRehearse } from '../components/train/curves';
import { Diagnostics } from '../components/train/DiagnosticsPanel';
import { specFromSettings, variantFor } from '../components/train/spec';
import { download, fileType, folderBundle, metricsCsv, metricsJson } from '../components/train/exports';
import {
  isLive, killWorker, pauseRun, removeRun, resumeRun, startRun, stepRun, stopRun, toggleRun, useRuns, type RunRecord,
} from '../components/train/runs';
import { trainWorker } from '../components/train/client';
import { StepProgress } from '../components/train/StepProgress';
import { DEFAULT_TRAIN_STARTER, TINY_MODEL_ID, watchingLine, WHY_DEFAULT, WHY_DEFAULT_DOC } from '../components/train/preset';
import { TRAINER_LOSS_AGG_DEFAULT } from '../../shared/trainDefaults';
import { ErrorBox, Field, fmt, fmtBytes, NA, Panel, Term } from '../components/ui';
import { setShareProvider, withAutorun } from '../share';
import { toHash, type Settings } from '../urlState';
import { useModelIndex } from '../modelIndex';
import { useApp } from '../store';

const TINY = TINY_MODEL_ID;

/** Each variant is a (rollout mode, advantage grouping) pair, so the URL's two keys encode it. */
const PRESETS: { variant: VariantName; mode: string; adv: string; note: string }[] = [
  { variant: 'envace', mode: 'rehearsal', adv: 'role-wise', note: 'one model acts and rehearses; baseline per (task, role)' },
  { variant: 'pooled', mode: 'rehearsal', adv: 'pooled', note: 'one baseline over all rows of a task' },
  { variant: 'per-role', mode: 'rehearsal', adv: 'per-role', note: 'separate Act and Rehearse models' },
  { variant: 'grpo-simulator', mode: 'simulator', adv: 'role-wise', note: 'Act only; the frozen initial model answers tool calls' },
  { variant: 'grpo-real', mode: 'real', adv: 'role-wise', note: 'Act only; real environment executes tool calls' },
];

// The settings → RunSpec mapping is pure (src/app/components/train/spec.ts); exported here as before.
export { specFromSettings, variantFor };

const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);

function eta(r: RunRecord): { done: number; total: number; seconds: number | null } {
  const total = r.request.spec.steps ?? 0;
  const done = r.history.length ? r.history[r.history.length - 1].step : 0;
  const recent = r.history.slice(-5).map((m) => m.secondsPerStep);
  return { done, total, seconds: recent.length ? mean(recent) * Math.max(0, total - done) : null };
}

function fmtSeconds(s: number | null): string {
  if (s === null) return '–';
  if (s < 90) return `${Math.round(s)} s`;
  if (s < 5400) return `${Math.round(s / 60)} min`;
  return `${(s / 3600).toFixed(1)} h`;
}

function stateText(r: RunRecord): string {
  if (r.interrupted && r.status?.state !== 'done') return 'interrupted';
  return r.status?.state ?? '–';
}

// ---------- charts ----------

// The charts are the page's main-thread cost (ten here, eight in Diagnostics); log lines, checkpoint notices and status changes must
// not redraw them (on a loaded machine that lag delayed event handling by seconds).
const Charts = memo(ChartsInner, (a, b) => a.runs.length === b.runs.length && a.runs.every((r, i) => {
  const o = b.runs[i];
  return r.runId === o.runId && r.history === o.history && r.evals === o.evals && r.color === o.color && r.label === o.label;
}));

function ChartsInner(props: { runs: RunRecord[] }) {
  const { charts, skipped } = curveCharts(props.runs);
  return (
    <div className="chart-grid">
      {charts.map((c) => <RunsChart key={c.id} testId={c.id} title={c.title} note={c.note} lines={c.lines} markers={skipped} domain={c.domain} notes={c.notes} />)}
    </div>
  );
}

// Redrawing the charts costs the page's thread about 0.3 s per step on this 2-core box, nearly all of it inside
// recharts (scripts/train-render-cost.ts), which is longer than a step of a small run: redrawn after every step, the page
// fell ever further behind the worker and handled a click seconds after the step it aimed at. While a run is live the
// charts take up its steps at most once a second (the latest always arrives); counters and the run bar stay per event.
const CHART_REDRAW_MS = 1000;

/**
 * `value`, taken up at most once per `everyMs` (the latest value always arrives); at once when `everyMs` is 0. One timer
 * is kept until it fires, whatever arrives meanwhile: restarting it per update would starve it under a stream of them.
 */
function useAtMostEvery<T>(value: T, everyMs: number): T {
  const [shown, setShown] = useState(value);
  const latest = useRef(value);
  const last = useRef(-Infinity);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(() => {
    latest.current = value;
    if (Object.is(value, shown) || timer.current !== null) return;
    timer.current = setTimeout(() => {
      timer.current = null;
      last.current = performance.now();
      setShown(() => latest.current);
    }, Math.max(0, last.current + everyMs - performance.now()));
  }, [value, shown, everyMs]);
  useEffect(() => () => { if (timer.current !== null) clearTimeout(timer.current); timer.current = null; }, []);
  return everyMs > 0 ? shown : value;
}

// ---------- the run bar ----------

/**
 * The run's controls and state in one bar that stays on screen (sticky under the top bar) however far the
 * settings column or the charts are scrolled: Start, Pause, Cancel now, Resume, Step, Stop, state, step, ETA.
 */
function RunBar(props: {
  active: RunRecord | null; live: boolean; busy: boolean; canContinue: boolean; pausing: boolean;
  eta: { done: number; total: number; seconds: number | null } | null;
  onStart: () => void; onPause: () => void; onCancel: () => void; error: string | null;
}) {
  const { active, live, busy, canContinue, pausing, eta: p } = props;
  const state = active ? stateText(active) : 'no run';
  return (
    <div className="run-bar" data-testid="train-runbar" role="toolbar" aria-label="training run">
      <div className="actions">
        <button className="primary" disabled={live || busy} onClick={props.onStart} title="start a new run with the settings below">Start</button>
        <button disabled={!live || pausing} onClick={props.onPause} data-testid="train-pause" title="stop after the current step (a step is one rollout batch plus one update)">{pausing ? 'pausing…' : 'Pause'}</button>
        <button disabled={!live} onClick={props.onCancel} data-testid="train-cancel" title="terminate the training worker now (mid-step); Resume continues from the last checkpoint">Cancel now</button>
        <button disabled={!active || live || busy || !canContinue} onClick={() => active && void resumeRun(active.runId)} title="continue the run (from its checkpoint when its worker is gone)">Resume</button>
        <button disabled={!active || live || busy || !canContinue} onClick={() => active && void stepRun(active.runId)} title="one more optimizer step, then pause">Step</button>
        <button disabled={!active || active.interrupted || (!live && active.status?.state !== 'paused')} onClick={() => void stopRun()} title="end the run here and write a final checkpoint">Stop</button>
      </div>
      <span className="run-bar-state">
        <span className={`state-pill state-${state.replace(/[^a-z]/g, '')}`} data-testid="train-state">{state}{active?.error && state === 'error' ? `: ${active.error.slice(0, 80)}` : ''}</span>
        {active && p && <span data-testid="train-step">step {p.done} / {p.total}</span>}
        {active && p && <span className="muted" data-testid="train-eta">ETA {fmtSeconds(live ? p.seconds : null)}</span>}
      </span>
      {live && pausing && (
        <div className="run-bar-note" role="status" data-testid="train-pausing">
          {/* The step is the worker's answer, never the page's guess: the page's last progress can be a step behind. */}
          <strong>pausing</strong>: {active?.pauseAfter
            ? <>the worker finishes <span data-testid="train-pausing-step">step {active.pauseAfter.step}</span>{active.pauseAfter.evaluation ? ' and its held-out evaluation' : ''} first, then stops</>
            : <>the worker stops after the step it is in and names it here when it reads the Pause</>} (a step cannot stop halfway). <b>Cancel now</b> drops it; Resume then continues from checkpoint @{active?.checkpointStep ?? 0}.
        </div>
      )}
      {active?.interrupted && active.status?.state !== 'done' && !live && (
        <div className="run-bar-note" role="status" data-testid="train-runbar-interrupted">interrupted: Resume continues from checkpoint @{active.checkpointStep}</div>
      )}
      {props.error && <div className="run-bar-error"><ErrorBox error={props.error} /></div>}
    </div>
  );
}

// ---------- page ----------

// e2e handle on the training worker (the crash drill kills it); set at import so it exists whichever page
// the app opened on. Only in the Playwright build (src/e2e-flag.d.ts).
if (typeof __ENVACE_E2E__ !== 'undefined' && __ENVACE_E2E__) {
  const w = window as unknown as { __envace?: Record<string, unknown>; __envaceTrain?: unknown };
  w.__envaceTrain = { killWorker, api: () => trainWorker().api, ready: () => trainWorker().ready, runs: () => useRuns.getState() };
  if (w.__envace) Object.assign(w.__envace, { killWorker });
}

export function TrainPage() {
  countRender('page');
  const s = useApp((st) => st.settings);
  const set = useApp((st) => st.set);
  const worlds = useApp((st) => st.worlds);
  const { models } = useModelIndex();
  const { runs, activeId, busy, error, storageProblem } = useRuns();
  const active = runs.find((r) => r.runId === activeId) ?? null;
  const [exported, setExported] = useState<{ name: string; files: [string, Uint8Array][] } | null>(null);
  // Pause takes effect between optimizer steps: until then the page says what it is waiting for — the step the
  // worker answered it stops after (RunRecord.pauseAfter), not a guess from the progress the page last received.
  const [pausing, setPausing] = useState(false);
  const requestPause = () => {
    setPausing(true);
    void pauseRun().finally(() => setPausing(false));
  };
  // Stops the worker's work now (mid-step): the worker is terminated, Resume continues from the checkpoint.
  // A Pause still waiting on that worker is rejected by the kill (client.ts), so nothing stays busy.
  const cancelNow = () => { setPausing(false); killWorker(); };
  const variant = variantFor(s['t.mode'], s['t.adv']);

  // Start the training worker's ORT init while the user reads the settings, not after Start.
  useEffect(() => { trainWorker(); }, []);

  // The default starter may be renamed or removed from models/: then the run says so and uses the tiny model.
  const starterMissing = s['t.model'] === DEFAULT_TRAIN_STARTER && models !== null && !models.some((m) => m.name === DEFAULT_TRAIN_STARTER);
  const modelUrl = s['t.model'] === TINY || starterMissing ? TINY : (models?.find((m) => m.name === s['t.model'])?.url ?? `/models/${s['t.model']}/`);
  const watching = watchingLine({
    variant: VARIANTS[variant].label.split(' (')[0],
    model: starterMissing ? TINY : s['t.model'], world: s['t.world'], difficulty: s['t.diff'], pool: s['t.pool'], tasks: s['t.tasks'], group: s['t.group'],
    temperature: s['t.temp'], evalEvery: s['t.eval'], evalTasks: s['t.evaltasks'], evalK: s['t.evalk'], fallback: starterMissing,
  });
  const live = active ? isLive(active) && !active.interrupted : false;
  const canContinue = Boolean(active && !live && active.status?.state !== 'done' && active.status?.state !== 'error' || active?.status?.state === 'error' && active.checkpointStep > 0);

  function start() {
    setExported(null);
    const req: Omit<TrainRequest, 'runId'> = { spec: specFromSettings(s), model: modelUrl, maxNewTokens: s['t.max'] };
    if (s.autorun) set('autorun', 0);
    void startRun(req, Object.fromEntries(Object.entries(s).filter(([k]) => k.startsWith('t.'))));
  }

  // The copy link reproduces the run on screen: its settings, and autorun=1, which offers to start it (a fresh
  // browser has none of this browser's runs; training is too long to start unasked).
  useEffect(() => setShareProvider(() => {
    const st = useRuns.getState();
    const r = st.runs.find((x) => x.runId === st.activeId);
    if (!r?.settings) return location.href;
    const hash = toHash({ page: 'train', settings: { ...useApp.getState().settings, ...r.settings } as Settings });
    return withAutorun(`${location.origin}${location.pathname}${location.search}${hash}`);
  }), []);

  async function exportModel() {
    const f = await trainWorker().api.trainExport().catch((e: Error) => { useRuns.setState({ error: e.message }); return null; });
    if (f) setExported({ name: f.name, files: Object.entries(f.files) });
  }

  async function downloadCheckpoint(runId: string) {
    const w = trainWorker();
    await w.ready;
    const b = await w.api.trainCheckpoint(runId);
    if (b) download(`${runId}.envace-ckpt`, b as Uint8Array<ArrayBuffer>, 'application/octet-stream');
    else useRuns.setState({ error: `no checkpoint stored for ${runId} yet` });
  }

  const visible = useMemo(() => runs.filter((r) => r.visible), [runs]);
  const drawn = useAtMostEvery(visible, runs.some((r) => isLive(r) && !r.interrupted) ? CHART_REDRAW_MS : 0);
  const p = active ? eta(active) : null;
  const last = active?.history[active.history.length - 1];
  const skipped = active?.history.filter((m) => m.skipped) ?? [];
  const modelOptions = [{ value: TINY, label: 'tiny (built in the worker)' }, ...(models ?? []).map((m) => ({ value: m.name, label: m.name }))];
  const worldOptions = (worlds ?? []).map((w) => ({ value: w.name, label: w.name }));

  return (
    <div className="page page-train">
      <RunBar active={active} live={live} busy={busy} canContinue={canContinue} pausing={pausing} eta={p}
        onStart={start} onPause={requestPause} onCancel={cancelNow} error={error} />
      {s.autorun === 1 && !live && (
        <div className="demo-banner" data-testid="train-link-banner" style={{ gridColumn: "1 / -1" }}>
          <span>This link carries the settings of a training run (below). Runs live in the browser that made them, so it is not here:
            <b> Start</b> trains it again with the same settings and seed.</span>
          <button className="primary" disabled={busy} onClick={start} data-testid="train-link-start">Start this run</button>
        </div>
      )}
      <Panel title="Training settings" className="controls">
        <div className="subhead">preset</div>
        <div className="actions" data-testid="train-presets">
          {PRESETS.map((pr) => (
            <button key={pr.variant} className={variant === pr.variant ? 'on' : ''} title={pr.note}
              onClick={() => { set('t.mode', pr.mode); set('t.adv', pr.adv); }}>{VARIANTS[pr.variant].label.split(' (')[0]}</button>
          ))}
        </div>
        <div className="muted" data-testid="train-variant">{VARIANTS[variant].label}: {PRESETS.find((x) => x.variant === variant)?.note}</div>
        <div className="subhead">run</div>
        <div className="fields">
          <Field k="t.model" label="model" options={modelOptions} wide />
          <Field k="t.world" label="world" options={worldOptions.length ? worldOptions : undefined} />
          <Field k="t.diff" label="difficulty (0 = all)" />
          <Field k="t.pool" label="task pool (train seeds)" title="training tasks are drawn from the first this-many seeds of the train split; a small pool is met again and again" />
          <Field k="t.mode" label="rollout mode" />
          <Field k="t.adv" label="advantage" />
          <Field k="t.seed" label="seed" />
          <Field k="t.steps" label="steps (total_training_steps)" />
          <Field k="t.tasks" label="tasks / step (train_batch_size)" />
          <Field k="t.group" label="group size K (rollout.n)" />
          <Field k="t.turns" label="max turns" />
          <Field k="t.max" label="max new tokens (0 = model's)" />
          <Field k="t.temp" label="temperature" step={0.1} />
        </div>
        <div className="subhead">advantage and loss</div>
        <div className="fields">
          <Field k="t.std" label="norm_adv_by_std_in_grpo" />
          <Field k="t.agg" label="loss_agg_mode" title={`what the run uses (sent to the worker as is); the trainer's own default, used by npm run train, is ${TRAINER_LOSS_AGG_DEFAULT}`} />
          <div className="muted" style={{ gridColumn: "1 / -1" }} data-testid="train-agg-truth">
            runs with loss_agg_mode <b>{specFromSettings(s).lossAggMode}</b>{specFromSettings(s).lossAggMode === TRAINER_LOSS_AGG_DEFAULT ? ' (the trainer\'s reference default)' : ` (this page's measured default run; the trainer's reference default, used by npm run train, is ${TRAINER_LOSS_AGG_DEFAULT})`}
          </div>
          <Field k="t.clip" label="clip_ratio_low" step={0.05} />
          <Field k="t.cliph" label="clip_ratio_high" step={0.05} />
          <Field k="t.clipc" label="clip_ratio_c (dual-clip)" step={0.5} />
          <Field k="t.kltype" label="kl_loss_type (k3 = low_var_kl)" />
          <Field k="t.kl" label="kl_loss_coef" step={1e-4} />
          <Field k="t.reward" label="reward" />
          <Field k="t.empty" label="empty-output penalty" step={0.05} />
          <Field k="t.errrew" label="reward after a fatal error" title="keep-completed-turns: the failing turn scores 0, earlier turns keep their reward (reference); zero-episode: the whole episode scores 0" />
          <Field k="t.judgeon" label="judge reads" title="transcript: the rollout's own (imagined) tool results, as the reference; real: the real environment's results (shadow execution)" />
          <Field k="t.dyn" label="dynamic sampling (DAPO)" title="on: a group whose K rewards are all equal carries no advantage; it is left out of the update and a fresh task's group is rolled out instead, until the step holds tasks/step informative groups or max refills extra groups were rolled out" />
          <Field k="t.refills" label="max refills / step" title="extra groups a step may roll out to fill its informative quota (dynamic sampling only)" />
        </div>
        <div className="subhead">optimizer and schedule</div>
        <div className="fields">
          <Field k="t.lr" label="lr (AdamW)" step={1e-5} />
          <Field k="t.warmup" label="lr warmup steps (0 = none)" title="linear warmup: step n uses lr × min(1, n / warmup)" />
          <Field k="t.wd" label="weight_decay" step={0.01} />
          <Field k="t.gclip" label="grad_clip (max_grad_norm)" step={0.1} />
          <Field k="t.mb" label="micro-batch rows" />
          <Field k="t.eval" label="eval every (test_freq; 0 = off)" />
          <Field k="t.evaltasks" label="eval tasks" />
          <Field k="t.evalk" label="eval samples per task (1 = greedy)" title="Avg@k on the held-out tasks: 1 decodes greedily; more samples each task k times at the training temperature" />
          <Field k="t.ckpt" label="checkpoint every (save_freq)" />
        </div>
      </Panel>

      <div style={{ display: 'flex', flexDirection: 'column', gap: 8, minWidth: 0 }}>
        {storageProblem && <div className="warn-line" role="alert" data-testid="train-storage-problem">{storageProblem}</div>}
        <div className={starterMissing ? 'not-available' : 'muted'} role="note" data-testid="train-watching">{watching}</div>
        {variant !== 'envace' && <div className="muted" role="note" data-testid="train-why-default">{WHY_DEFAULT} <a href={WHY_DEFAULT_DOC} target="_blank" rel="noopener" data-testid="doc-link">The measurements</a></div>}
        <Panel title={active ? `Run ${active.label}` : 'Run'} testId="train-progress">
          {active?.error && <div className="top-error" data-testid="train-error-top"><ErrorBox error={active.error} /></div>}
          {!active || !p ? <div className="empty">Pick a preset and press Start. {modelUrl === TINY ? 'A tiny model is built in the worker, so the first run needs no download.' : `The worker loads ${s['t.model']} from models/ first.`}</div> : (
            <>
              <div className="actions" style={{ justifyContent: 'space-between' }}>
                <span>step {p.done} / {p.total}</span>
                <span className="muted">ETA {fmtSeconds(live ? p.seconds : null)} · backend {active.status?.backend ?? '–'} · checkpoint @{active.checkpointStep}{active.checkpointBytes ? ` (${fmtBytes(active.checkpointBytes)})` : ''}{active.status?.resumedFrom !== undefined ? ` · resumed from ${active.status.resumedFrom}` : ''}</span>
              </div>
              <div style={{ height: 6, background: 'var(--bg)', border: '1px solid var(--line)', borderRadius: 3 }}>
                <div data-testid="train-progress-bar" style={{ width: `${p.total ? (100 * p.done) / p.total : 0}%`, height: '100%', background: 'var(--accent)' }} />
              </div>
              {live && active.inStep && <StepProgress p={active.inStep} />}
              {last && (
                <table className="kv">
                  <tbody>
                    <tr><th title="first: the mean reward of the step's trajectories; in brackets: the mean over the rows each role generated (a row carries its trajectory's reward, less the blank-output penalty), so a long trajectory counts once per row and the two figures differ even when only Act is trained">reward per trajectory (per row: <Term name="Act" /> / <Term name="Rehearse" />)</th><td data-testid="train-last-reward">{fmt(last.reward)} ({fmt(last.rewardAct)} / {trainsRehearse(active) ? fmt(last.rewardRehearse) : <NA why={`${VARIANTS[active.request.spec.variant ?? 'envace'].label.split(' (')[0]} trains the Act role only: there is no Rehearse reward`} />})</td></tr>
                    <tr><th>loss_agg_mode (this run)</th><td data-testid="train-run-agg">{active.request.spec.lossAggMode ?? TRAINER_LOSS_AGG_DEFAULT}</td></tr>
                    <tr><th>rows · tokens</th><td>{last.rows} · {last.tokens}{last.rows === 0 ? ' (no trainable rows: prompts may exceed the context)' : ''}</td></tr>
                    <tr><th>loss · grad norm · entropy</th><td>{fmt(last.loss)} · {fmt(last.gradNorm)} · {fmt(last.entropy)}</td></tr>
                    {last.groups !== undefined && (
                      <tr><th>informative groups · refills · rows trained</th><td data-testid="train-last-groups">{last.informativeGroups ?? '–'}/{last.groups} · {last.refills ?? '–'} · {last.updateRows ?? '–'}</td></tr>
                    )}
                    {last.updateRatio !== undefined && (
                      <tr><th>KL to init · update ratio · lr</th><td>{fmt(last.klToInit)} · {fmt(last.updateRatio)} · {fmt(last.lr)}</td></tr>
                    )}
                    <tr><th>s / step (rollout · judge · update)</th><td>{fmt(last.secondsPerStep, 2)} ({fmt(last.rolloutSeconds, 2)} · {fmt(last.judgeSeconds, 3)} · {fmt(last.updateSeconds, 2)})</td></tr>
                  </tbody>
                </table>
              )}
              {skipped.length > 0 && (
                <div className="not-available" role="status" data-testid="train-nan-guard">
                  <strong>NaN/Inf guard</strong>: {skipped.length} update{skipped.length === 1 ? '' : 's'} skipped (weights kept) at step {skipped.map((m) => m.step).join(', ')}. {skipped[skipped.length - 1].note}
                </div>
              )}
              {active.switches.map((sw, i) => (
                <div key={i} className="not-available" role="status" data-testid="train-backend-switch">
                  <strong>backend switched</strong> {sw.from} → {sw.to} at step {sw.atStep}; continued from checkpoint @{sw.resumedFrom}. {sw.reason}
                </div>
              ))}
              {active.interrupted && active.status?.state !== 'done' && (
                <div className="not-available" role="status" data-testid="train-interrupted">
                  The worker running this run is gone. Resume continues from the checkpoint at step {active.checkpointStep} (later steps are recomputed identically: the RNG derives from seed and step).
                </div>
              )}
            </>
          )}
        </Panel>

        <Panel title="Curves" className="charts wide" testId="train-charts"
          right={<span className="muted">{visible.length} of {runs.length} runs shown</span>}>
          {drawn.every((r) => r.history.length === 0 && r.evals.length === 0)
            ? <div className="empty">Reward and advantage statistics per role, held-out success, fidelity, KL, loss, tokens/s and seconds per step appear after the first step.</div>
            : <Charts runs={drawn} />}
        </Panel>

        <Panel title="Diagnostics" className="charts wide" testId="train-diagnostics"
          right={<span className="muted">is GRPO learning? one point per step</span>}>
          {drawn.every((r) => r.history.length === 0)
            ? <div className="empty">Informative-group share and refills, reward per trained role, entropy, KL to the initial policy, grad norm, update-to-weight ratio, learning rate and truncated generations appear after the first step.</div>
            : <Diagnostics runs={drawn} />}
        </Panel>

        <Panel title="Runs" testId="train-runs">
          {runs.length === 0 ? <div className="empty">No runs yet.</div> : (
            <table className="selectable">
              <thead><tr><th /><th>run</th><th>state</th><th>step</th><th>reward</th><th>success</th><th>ckpt</th><th /></tr></thead>
              <tbody>
                {runs.map((r) => {
                  const e = r.evals[r.evals.length - 1];
                  return (
                    <tr key={r.runId} className={r.runId === activeId ? 'on' : ''} onClick={() => useRuns.setState({ activeId: r.runId })} data-testid="train-run-row">
                      <td><input type="checkbox" checked={r.visible} title="show on the charts" onClick={(ev) => ev.stopPropagation()} onChange={() => toggleRun(r.runId)} style={{ accentColor: r.color }} /></td>
                      <td><span style={{ color: r.color }}>■</span> {r.label}<div className="muted">{r.runId}</div></td>
                      <td>{stateText(r)}</td>
                      <td>{r.history.length ? r.history[r.history.length - 1].step : 0}/{r.request.spec.steps}</td>
                      <td>{fmt(r.history[r.history.length - 1]?.reward)}</td>
                      <td>{fmt(e?.success)}</td>
                      <td>@{r.checkpointStep}</td>
                      <td><button title="download the checkpoint (weights, AdamW state, metrics)" onClick={(ev) => { ev.stopPropagation(); void downloadCheckpoint(r.runId); }}>ckpt</button>{' '}
                        <button title="remove the run and its checkpoint" onClick={(ev) => { ev.stopPropagation(); void removeRun(r.runId); }}>✕</button></td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          )}
          <div className="actions">
            <button disabled={visible.length === 0} onClick={() => download('train-metrics.csv', metricsCsv(visible), 'text/csv')}>Metrics CSV</button>
            <button disabled={visible.length === 0} onClick={() => download('train-metrics.json', metricsJson(visible), 'application/json')}>Metrics JSON</button>
            <button disabled={!active || live || busy} title="the active run's current weights as a model folder" onClick={() => void exportModel()}>Export model</button>
          </div>
          {exported && (
            <div data-testid="train-export">
              <div className="actions">
                <button onClick={() => download(`${exported.name}.folder.json`, folderBundle({ name: exported.name, files: Object.fromEntries(exported.files) }), 'application/json')}>Bundle (JSON)</button>
                {exported.files.map(([path, bytes]) => (
                  <button key={path} onClick={() => download(`${exported.name}__${path.replace(/\//g, '__')}`, bytes as Uint8Array<ArrayBuffer>, fileType(path))}>{path} <span className="muted">{fmtBytes(bytes.byteLength)}</span></button>
                ))}
              </div>
            </div>
          )}
          {active && active.logs.length > 0 && (
            <pre className="scroll-box muted" data-testid="train-log">{active.logs.join('\n')}</pre>
          )}
        </Panel>
      </div>
    </div>
  );
}
