// Benchmarks page: the held-out evaluation protocol of `npm run eval` (src/bench/evaluation.ts), run in the
// worker (src/worker/bench-service.ts) in chunks sized to memory: means with bootstrap 95% intervals over
// tasks, progress with an ETA, Cancel, stale marking of results a failed or cancelled run left on screen,
// CSV/JSON export, and a link from every task to the Rollout page with the same settings. Above it, first on the
// page, the shipped results as curves (components/bench/); a finished run here is added to the evaluation-suites
// chart as "your run".

import * as Comlink from 'comlink';
import { create } from 'zustand';
import { memo, useEffect, useMemo, useRef } from 'react';
import { EVAL_CANCELLED, type BenchEvalRequest, type BenchEvalResult, type BenchEvalRow, type BenchProgress, type RolloutMode } from '../../worker/protocol';
import { BarMetric, COLORS } from '../components/charts';
import { Empty, ErrorBox, Field, fmt, NotAvailable, Panel, plural, Term } from '../components/ui';
import { GLOSSARY } from '../glossary';
import { setShareProvider, withAutorun } from '../share';
import { userError } from '../errors';
import { CurvesSection } from '../components/bench/Curves';
import { SuitesPanel } from '../components/bench/Suites';
import { useModelIndex } from '../modelIndex';
import { hfModelEntries, useHfModel } from '../components/models/hfStore';
import { useApp } from '../store';
import { toHash, type Settings } from '../urlState';
import { api, errorText } from '../worker';
import { defaultModel } from './Rollout';
import { csvTable } from '../../shared/csv';

/** cancelMs: from the Cancel click to the worker's run rejecting (it stops before its next slice of generations). */
type Ended = { kind: 'cancelled'; cancelMs: number | null } | { kind: 'error'; message: string };

interface BenchState {
  running: boolean;
  progress: BenchProgress | null;
  result: BenchEvalResult | null;
  /** Why the shown result is stale (the last run after it failed or was cancelled), or null. */
  ended: Ended | null;
  cancelRequestedAt: number | null;
}

// Outlives the page component: switching tabs keeps the run, its progress and its result.
const useBench = create<BenchState>(() => ({ running: false, progress: null, result: null, ended: null, cancelRequestedAt: null }));

async function start(req: BenchEvalRequest): Promise<void> {
  useBench.setState({ running: true, progress: null, ended: null, cancelRequestedAt: null });
  try {
    const result = await api.benchRun(req, Comlink.proxy((p: BenchProgress) => { if (useBench.getState().running) useBench.setState({ progress: p }); }));
    // The last progress message can arrive before the final chunk's tasks are counted (or after the result):
    // the finished run's own counts replace it, so a done run never reads "0 / 8 tasks · 7 / 8 … ETA 0.5 s".
    useBench.setState({ result, ended: null, progress: finalProgress(result, useBench.getState().progress) });
  } catch (e) {
    const message = errorText(e);
    const asked = useBench.getState().cancelRequestedAt;
    useBench.setState({ ended: message.includes(EVAL_CANCELLED) ? { kind: 'cancelled', cancelMs: asked === null ? null : performance.now() - asked } : { kind: 'error', message: userError(e, 'the evaluation') } });
  } finally {
    useBench.setState({ running: false });
  }
}

/** The progress line of a finished run: every task and trajectory done, its own time, ETA 0. */
export function finalProgress(r: BenchEvalResult, last: BenchProgress | null): BenchProgress {
  const total = r.rows.reduce((a, row) => a + row.samples, 0);
  return {
    done: total, total, tasksDone: r.rows.length, tasks: r.rows.length,
    chunk: r.chunks, chunks: r.chunks, chunkTasks: r.chunkTasks ?? last?.chunkTasks ?? r.rows.length,
    generations: r.generations, elapsedMs: r.ms, etaMs: 0,
  };
}

function cancel(): void {
  useBench.setState({ cancelRequestedAt: performance.now() });
  void api.benchCancel();
}

// Hover texts from the one glossary (src/app/glossary.ts), as everywhere else.
const METRIC_ROWS = [
  { key: 'success', label: 'success', title: `${GLOSSARY.success}; mean over tasks of the share of k samples that succeeded` },
  { key: 'outcome', label: 'state check', title: GLOSSARY['state check'] },
  { key: 'checklist', label: 'checklist', title: `${GLOSSARY.checklist}, judged on the real environment's results` },
  { key: 'pass_at_k', label: 'pass@k', title: `${GLOSSARY['pass@k']} (unbiased estimator)` },
] as const;

function secs(ms: number | null): string {
  if (ms === null || !Number.isFinite(ms)) return '–';
  const s = ms / 1000;
  return s < 90 ? `${s.toFixed(s < 10 ? 1 : 0)} s` : `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`;
}

function download(name: string, text: string, type: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement('a');
  a.href = url; a.download = name;
  document.body.appendChild(a); a.click(); a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

const CSV_COLUMNS = ['task', 'samples', 'success', 'outcome', 'checklist', 'passAtK', 'fidelityF1', 'terminations'] as const;

export function toCsv(rows: BenchEvalRow[]): string {
  return csvTable(CSV_COLUMNS, rows.map((r) => CSV_COLUMNS.map((c) => r[c])));
}

/** The Rollout page's URL for one task of an evaluation, with the evaluation's settings (autorun=1). */
export function rolloutLink(settings: Settings, req: BenchEvalRequest, model: string, task: string): string {
  return toHash({
    page: 'rollout',
    settings: {
      ...settings,
      'm.model': model, 'r.world': req.world, 'r.task': task, 'r.mode': req.mode, 'r.k': req.k, 'r.seed': req.seed,
      'r.temp': req.temperature, 'r.topp': req.topP, 'r.turns': req.maxTurns, 'r.max': req.maxNewTokens, 'r.gen': 0, autorun: 1,
    },
  });
}

// Progress arrives every slice of generations (0.4 s) and re-renders this page: the shipped curves and the suites
// panel (hundreds of SVG nodes) must not re-render with it, or the page's thread is busy for seconds per update on a
// 2-core box and neither progress nor Cancel gets through (seen: 6–12 s per read while a 1,000-task run went on).
const CurvesOnce = memo(CurvesSection);
const SuitesOnce = memo(SuitesPanel);

export function BenchmarksPage() {
  const s = useApp((st) => st.settings);
  const set = useApp((st) => st.set);
  const caps = useApp((st) => st.caps);
  const worlds = useApp((st) => st.worlds);
  const { models: shipped, error: indexError } = useModelIndex();
  // A Hugging Face model loaded on the Models page is listed after the shipped folders (as on the Rollout page).
  const hfLoaded = useHfModel((st) => st.loaded);
  const models = useMemo(() => shipped && [...shipped, ...hfModelEntries(hfLoaded)], [shipped, hfLoaded]);
  const { running, progress, result: res, ended, cancelRequestedAt } = useBench();
  const model = models ? (s['m.model'] ? models.find((m) => m.name === s['m.model']) : defaultModel(models, s['b.world'])) ?? null : null;
  // A default model is chosen (and written to the URL) as soon as the index is known.
  useEffect(() => { if (!s['m.model'] && model) set('m.model', model.name); }, [models]); // eslint-disable-line react-hooks/exhaustive-deps
  const terms = useMemo(() => Object.entries(res?.terminations ?? {}).map(([reason, n]) => ({ reason, n })), [res]);
  const cap = caps?.bench;
  const stale = Boolean(res && (ended || running));

  const request = (): BenchEvalRequest => ({
    modelUrl: model?.url ?? '', world: s['b.world'], tasks: s['b.tasks'], mode: s['b.mode'] as RolloutMode,
    k: s['b.k'], seed: s['b.seed'], temperature: s['b.temp'], topP: s['b.topp'], maxTurns: s['b.turns'], maxNewTokens: s['b.max'],
    ...(s['b.mode'] === 'simulator' && s['b.sim'] ? { simulatorUrl: s['b.sim'] } : {}),
  });
  const preset = (k: number, temp: number, topp: number) => { set('b.k', k); set('b.temp', temp); set('b.topp', topp); };

  // The copy link reproduces the result on screen: with autorun=1 the evaluation is recomputed on open (it is
  // deterministic in its settings and seed); a link opened with autorun=1 runs it once, as soon as it can.
  const reqKey = useRef('');
  reqKey.current = JSON.stringify(request());
  useEffect(() => setShareProvider(() => {
    const r = useBench.getState().result;
    const shown = r && !useBench.getState().running && JSON.stringify(r.request) === reqKey.current;
    return shown ? withAutorun(location.href) : location.href;
  }), []);
  const autoran = useRef(false);
  useEffect(() => {
    if (autoran.current || s.autorun !== 1 || !caps || !model || running) return;
    autoran.current = true;
    void start(request());
  }, [caps, model, s.autorun]); // eslint-disable-line react-hooks/exhaustive-deps
  const frac = progress && progress.total > 0 ? progress.done / progress.total : 0;
  const base = res ? `${res.model}-${res.request.world}-${res.request.tasks}tasks-k${res.request.k}-seed${res.request.seed}` : '';

  return (
    <div className="page page-bench">
      {/* The shipped results first (issue 42): the headline curve and its verdict are the first screen; the forms
          to compute new results follow. */}
      <CurvesOnce yourRun={res} yourRunStale={stale} />
      <Panel title="Evaluation" className="controls">
        <div className="fields">
          <label className="field wide" htmlFor="f-m.model">
            <span>model</span>
            <select id="f-m.model" value={model?.name ?? s['m.model']} onChange={(e) => set('m.model', e.target.value)}>
              {!models && <option value={s['m.model']}>{indexError ? '(model index failed)' : '(loading…)'}</option>}
              {models?.length === 0 && <option value="">(no models shipped)</option>}
              {models?.map((m) => <option key={m.name} value={m.name}>{m.name}{m === defaultModel(models, s['b.world']) ? ' (default)' : ''}</option>)}
              {models && s['m.model'] && !model && <option value={s['m.model']}>{s['m.model']} (unknown)</option>}
            </select>
          </label>
          <Field k="b.world" label="world (test split)" options={worlds?.map((w) => ({ value: w.name }))} />
          <Field k="b.tasks" label="tasks" />
          <Field k="b.mode" label="mode" title="imagined modes are still judged on the real environment's results" />
          {s['b.mode'] === 'simulator' && (
            <label className="field wide" htmlFor="f-b.sim" title="the frozen model that imagines every tool result (Rehearse); Act stays with the policy model">
              <span>Rehearse model</span>
              <select id="f-b.sim" value={s['b.sim']} onChange={(e) => set('b.sim', e.target.value)}>
                <option value="">the policy's own weights (frozen)</option>
                {hfLoaded && <option value={hfLoaded.url}>{hfLoaded.url}</option>}
                {s['b.sim'] && s['b.sim'] !== hfLoaded?.url && <option value={s['b.sim']}>{s['b.sim']} (not loaded: add it on the Models page)</option>}
              </select>
            </label>
          )}
          <Field k="b.k" label="k (samples / task)" />
          <Field k="b.temp" label="temperature" step={0.05} title="0 = greedy" />
          <Field k="b.topp" label="top-p" step={0.05} />
          <Field k="b.seed" label="seed" />
          <Field k="b.turns" label="turn cap" />
          <Field k="b.max" label="max new tokens" />
        </div>
        <div className="actions">
          <button className="primary" disabled={running || !caps || !model} onClick={() => void start(request())}>
            {running ? 'running…' : 'Run evaluation'}
          </button>
          <button disabled={!running || cancelRequestedAt !== null} onClick={cancel} data-testid="bench-cancel">{running && cancelRequestedAt !== null ? 'cancelling…' : 'Cancel'}</button>
          <button className="link" title="the paper's protocol: Avg@4 at temperature 0.6, top-p 0.95" onClick={() => preset(4, 0.6, 0.95)}>paper protocol (Avg@4, T 0.6, top-p 0.95)</button>
          <button className="link" onClick={() => preset(1, 0, 1)}>greedy</button>
        </div>
        {s['b.temp'] === 0 && s['b.k'] > 1 && <div className="muted">At temperature 0 every one of the k samples is the same trajectory.</div>}
        {(running || progress) && (
          <div className="progress" data-testid="bench-progress" data-done={progress?.done ?? 0} data-total={progress?.total ?? 0}
            data-tasks-done={progress?.tasksDone ?? 0} data-chunk={progress?.chunk ?? 0} data-generations={progress?.generations ?? 0}
            data-finished={!running && !ended && res ? 'true' : 'false'}
            role="progressbar" aria-valuemin={0} aria-valuemax={progress?.total ?? 0} aria-valuenow={progress?.done ?? 0}>
            <div className="progress-track"><div className="progress-fill" style={{ width: `${(100 * frac).toFixed(1)}%` }} /></div>
            <div className="progress-text">
              <span data-testid="bench-progress-counts">{progress
                ? `${progress.tasksDone} / ${progress.tasks} tasks · ${progress.done} / ${progress.total} trajectories · chunk ${progress.chunk} of ${progress.chunks} (${progress.chunkTasks} tasks each) · ${plural(progress.generations, 'generation')}`
                : 'loading the model…'}</span>
              <span data-testid="bench-progress-eta">{progress ? (!running && !ended && res ? `done in ${secs(progress.elapsedMs)} · ETA ${secs(0)}` : `${secs(progress.elapsedMs)} elapsed · ETA ${secs(progress.etaMs)}`) : ''}</span>
            </div>
            {!running && ended?.kind === 'cancelled' && (
              <div className="warn-line" data-testid="bench-cancelled" data-cancel-ms={ended.cancelMs === null ? '' : ended.cancelMs.toFixed(0)}>
                cancelled{ended.cancelMs === null ? '' : ` in ${secs(ended.cancelMs)}`}: the worker stopped before its next slice of generations
              </div>
            )}
          </div>
        )}
        {models && !model && <div className="muted">Choose a model (the Models page lists what models/ ships).</div>}
        {cap && !cap.available && <NotAvailable what="benchmarks" reason={cap.reason} />}
        <ErrorBox error={ended?.kind === 'error' ? ended.message : null} />
      </Panel>
      <Panel title="Per task" className="timeline" testId="bench-rows"
        right={res && <span className="actions">
          <button onClick={() => download(`${base}.csv`, toCsv(res.rows), 'text/csv')} data-testid="bench-export-csv">CSV</button>
          <button onClick={() => download(`${base}.json`, JSON.stringify(res, null, 2), 'application/json')} data-testid="bench-export-json">JSON</button>
        </span>}>
        {!res ? <Empty>Per-task success, state check, checklist score and pass@k appear after a run.</Empty> : (
          <table className={`rows${stale ? ' stale' : ''}`} style={stale ? { opacity: 0.55 } : undefined}>
            <thead><tr><th>task</th><th>n</th><th><Term name="success" /></th><th><Term name="state check" /></th><th><Term name="checklist" /></th><th><Term name="pass@k" /></th><th><Term name="field F1" label="fidelity F1" /></th><th>ended by</th><th /></tr></thead>
            <tbody>{res.rows.map((r) => (
              <tr key={r.task}><td>{r.task}</td><td>{r.samples}</td><td>{fmt(r.success, 3)}</td><td>{fmt(r.outcome, 3)}</td>
                <td>{fmt(r.checklist, 3)}</td><td>{fmt(r.passAtK, 3)}</td><td>{fmt(r.fidelityF1, 3)}</td><td className="clip">{r.terminations.join(', ')}</td>
                <td><a href={rolloutLink(s, res.request, res.model, r.task)} data-testid="open-in-rollout" title="open this task in the Rollout page with the same settings">Rollout ↗</a></td></tr>
            ))}</tbody>
          </table>
        )}
      </Panel>
      <Panel title="Summary" className="charts" testId="bench-summary">
        {!res ? <Empty>Avg@k success, state check, checklist and pass@k with 95% intervals appear after a run.</Empty> : (
          <div data-stale={stale ? 'true' : 'false'} style={stale ? { opacity: 0.55 } : undefined}>
            {stale && (
              <div className="warn-line" data-testid="bench-stale">
                stale: {running ? 'a new run is in progress' : ended?.kind === 'cancelled' ? 'the last run was cancelled' : 'the last run failed'}; these results are from the previous run ({res.suite})
              </div>
            )}
            <div className="muted" data-testid="bench-suite" data-json={JSON.stringify(res.summary)}>{res.suite} · T {res.request.temperature} · top-p {res.request.topP} · seed {res.request.seed} · {res.model}</div>
            <table className="rows" data-testid="bench-estimates" data-json={JSON.stringify(res.estimates)}>
              <thead><tr><th>metric</th><th>mean</th><th>95% interval (bootstrap over tasks)</th></tr></thead>
              <tbody>{METRIC_ROWS.map((m) => {
                const e = res.estimates[m.key];
                return (
                  <tr key={m.key}><td><span className="metric term" title={m.title} data-term={m.label}>{m.label}</span></td><td>{fmt(e.mean, 3)}</td>
                    <td>[{fmt(e.ci95[0], 3)}, {fmt(e.ci95[1], 3)}]
                      <span style={{ display: 'inline-block', position: 'relative', width: 120, height: 6, marginLeft: 8, background: 'var(--bg)', border: '1px solid var(--line)' }}>
                        <span style={{ position: 'absolute', left: `${100 * e.ci95[0]}%`, width: `${Math.max(1, 100 * (e.ci95[1] - e.ci95[0]))}%`, top: 0, bottom: 0, background: COLORS.success, opacity: 0.6 }} />
                        <span style={{ position: 'absolute', left: `${100 * e.mean}%`, width: 2, top: -2, bottom: -2, background: '#fff' }} />
                      </span>
                    </td></tr>
                );
              })}</tbody>
            </table>
            <div className="muted">{plural(res.chunks, 'chunk')} of up to {plural(res.chunkTasks, 'task')} · {plural(res.generations, 'generation')} · {secs(res.ms)}</div>
            <BarMetric title="terminations" data={terms} x="reason" series={[{ key: 'n', label: 'trajectories', color: COLORS.loss }]} />
          </div>
        )}
      </Panel>
      <SuitesOnce />
    </div>
  );
}
