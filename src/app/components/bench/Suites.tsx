// The Benchmarks page's paper suites: BFCL-v4 multi-turn, τ²-bench and VitaBench run in the worker
// (src/worker/suite-service.ts, the code path of `npm run eval -- --suite …`) on files the user picks (the browser
// cannot read ../shared/data by path): BFCL's question file, its possible answers and the multi_turn_func_doc
// files; a τ² domain's db.json, tasks.json, policy.md and split_tasks.json; a VitaBench domain's tasks, tools,
// prompts and holiday table (SuitesVita.tsx). Progress and Cancel; the report (accuracy, reward or success with 95%
// intervals over entries / tasks, per category and per backend class, per entry) and every finished run drawn
// beside the paper's main table on the same axis (%), the paper's rows marked as the paper's.

import * as Comlink from 'comlink';
import { useMemo, useState } from 'react';
import { create } from 'zustand';
import { Bar, BarChart, CartesianGrid, Cell, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { GROUND_TRUTH } from '../../../bench/suites/agent';
import type { BfclReport } from '../../../bench/suites/bfcl';
import type { Tau2Report } from '../../../bench/suites/tau2';
import { NOT_JUDGED, type VitaReport } from '../../../bench/suites/vita';
import type { VitaDomain } from '../../../envs/vitabench/data_model';
import { EVAL_CANCELLED } from '../../../worker/protocol';
import type { SuiteFile, SuiteProgress, SuiteRunRequest, SuiteRunResult } from '../../../worker/suite-protocol';
import { MAIN_RESULTS, PAPER_SOURCE } from '../../paperNumbers';
import { useModelIndex } from '../../modelIndex';
import { api, errorText } from '../../worker';
import { hfModelEntries, useHfModel } from '../models/hfStore';
import { Empty, ErrorBox, fmt, Panel } from '../ui';
import { PALETTE } from './CurveChart';
import { addPicked, VitaFilesNote, vitaMissing, VitaNotes, VitaReportRows, VitaTasks } from './SuitesVita';

type Suite = 'bfcl' | 'tau2' | 'vita';

interface SuitesState {
  running: boolean;
  progress: SuiteProgress | null;
  /** Finished runs, newest first. */
  runs: SuiteRunResult[];
  ended: { kind: 'cancelled' } | { kind: 'error'; message: string } | null;
}

// Outlives the page component: switching tabs keeps the run and its results.
export const useSuites = create<SuitesState>(() => ({ running: false, progress: null, runs: [], ended: null }));

async function start(req: SuiteRunRequest): Promise<void> {
  useSuites.setState({ running: true, progress: null, ended: null });
  try {
    const result = await api.suiteRun(req, Comlink.proxy((p: SuiteProgress) => { if (useSuites.getState().running) useSuites.setState({ progress: p }); }));
    // The progress line ends on the run's own counts (a replay can finish before any progress message arrives).
    const r = result.report;
    const total = (isBfcl(r) ? r.n_entries : r.n_tasks) * r.k;
    // Only the newest run keeps its conversations (a VitaBench run's can be megabytes).
    useSuites.setState((s) => ({ runs: [result, ...s.runs.map(({ conversations: _c, ...rest }) => rest)].slice(0, 12), progress: { done: total, total, generations: s.progress?.generations ?? 0, elapsedMs: result.ms, etaMs: 0 } }));
  } catch (e) {
    const message = errorText(e);
    useSuites.setState({ ended: message.includes(EVAL_CANCELLED) ? { kind: 'cancelled' } : { kind: 'error', message } });
  } finally {
    useSuites.setState({ running: false });
  }
}

const readFiles = (list: FileList | null): Promise<SuiteFile[]> =>
  Promise.all([...(list ?? [])].map(async (f) => ({ name: f.name, text: await f.text() })));

const isBfcl = (r: SuiteRunResult['report']): r is BfclReport => r.suite === 'bfcl';
const isVita = (r: SuiteRunResult['report']): r is VitaReport => r.suite === 'vita';
/** The run's headline estimate; null for a VitaBench run without a judge (not judged: no number). */
const score = (r: SuiteRunResult['report']) => (isBfcl(r) ? r.accuracy : isVita(r) ? (r.success === NOT_JUDGED ? null : r.success) : r.reward);
const ci = (e: { mean: number; ci95: [number, number] }) => `${fmt(e.mean, 3)} [${fmt(e.ci95[0], 3)}, ${fmt(e.ci95[1], 3)}]`;
const shortModel = (m: string) => (m === GROUND_TRUTH ? m : m.replace(/\/+$/, '').split('/').pop() ?? m);

/**
 * The paper's main table for one suite, with our finished runs of that suite, in % (one axis). A ground-truth replay
 * is the harness checking itself, not a model: it is listed as such ('check') and never drawn among the models' bars.
 */
export function paperRows(suite: Suite, runs: SuiteRunResult[]): { label: string; value: number | null; source: 'paper' | 'ours' | 'check'; lo?: number; hi?: number }[] {
  const paper = MAIN_RESULTS.map((r) => ({ label: `${r.model} (paper)`, value: r[suite], source: 'paper' as const }));
  const ours = runs.filter((r) => r.report.suite === suite).map((r) => {
    const e = score(r.report);
    const check = r.report.model === GROUND_TRUTH;
    const what = isVita(r.report) ? ` ${r.report.domain}${e ? '' : `, ${NOT_JUDGED}`}` : '';
    return {
      label: check ? 'harness check: ground-truth replay (not a model)' : `${shortModel(r.report.model)} · ${r.report.protocol}${what} (ours)`,
      value: e ? 100 * e.mean : null, lo: e ? 100 * e.ci95[0] : undefined, hi: e ? 100 * e.ci95[1] : undefined, source: check ? 'check' as const : 'ours' as const,
    };
  });
  return [...paper, ...ours];
}

/** BFCL's verdict codes in words (the code stays on hover). */
export const VERDICT_WORDS: Record<string, string> = {
  valid: 'passed',
  'multi_turn:empty_turn_model_response': 'the model said nothing in a turn',
  'multi_turn:execution_response_mismatch': "a turn's function results miss the expected ones",
  'multi_turn:instance_state_mismatch': 'the backend state after a turn differs from the expected state',
  'multi_turn:force_terminated': 'stopped at the step limit of a turn',
  'multi_turn:inference_error': "the model's output could not be executed",
  'multi_turn:irrelevance_error': 'called functions in a turn where none should be called',
  'multi_turn:checker_error': 'the checker itself failed on this entry',
  'multi_turn:unknown': 'an unclassified failure',
};
const verdictWords = (code: string) => VERDICT_WORDS[code] ?? code;

function VsPaper(props: { suite: Suite; runs: SuiteRunResult[] }) {
  const rows = paperRows(props.suite, props.runs);
  const bars = rows.filter((r) => r.source !== 'check' && r.value !== null);
  const name = { bfcl: 'BFCL-v4', tau2: 'τ²-Bench', vita: 'VitaBench (Vita Avg.)' }[props.suite];
  const note = {
    bfcl: "BFCL-v4 column is its overall BFCL-v4 score; ours is the multi-turn category file you ran",
    tau2: "τ²-Bench column averages its domains; ours is the domain and split you ran",
    vita: "Vita Avg. column is its VitaBench average with its own user simulator and judge; ours is the one domain you ran (delivery or in-store; travel and cross-domain are not ported), with the user and judge models you chose",
  }[props.suite];
  return (
    <div className="bench-curve" data-testid="suite-vs-paper" data-rows={JSON.stringify(rows)}>
      <div className="bench-curve-head"><span className="chart-title">{name} (%): the paper's main table and your runs</span>
        <span className="muted"><span style={{ color: PALETTE[0] }}>■</span> the paper's (Qwen3-scale models) <span style={{ color: PALETTE[4] }}>■</span> ours (this browser)</span></div>
      <ResponsiveContainer width="100%" height={240} initialDimension={{ width: 420, height: 240 }}>
        <BarChart data={bars} margin={{ top: 6, right: 12, bottom: 60, left: 0 }}>
          <CartesianGrid stroke="#1f2733" />
          <XAxis dataKey="label" stroke="#6b7689" fontSize={10} tickLine={false} interval={0} angle={-30} textAnchor="end" />
          <YAxis stroke="#6b7689" fontSize={10} tickLine={false} width={40} domain={[0, 100]} />
          <Tooltip contentStyle={{ background: '#141a24', border: '1px solid #2a3342', fontSize: 11 }} />
          <Bar dataKey="value" isAnimationActive={false}>
            {bars.map((r, i) => <Cell key={i} fill={r.source === 'paper' ? PALETTE[0] : PALETTE[4]} />)}
          </Bar>
        </BarChart>
      </ResponsiveContainer>
      <table className="rows">
        <thead><tr><th>row</th><th>source</th><th>%</th><th>95% interval</th></tr></thead>
        <tbody>{rows.map((r, i) => (
          <tr key={i} data-source={r.source}><td>{r.label}</td><td>{r.source === 'paper' ? "the paper's" : r.source === 'check' ? 'harness check (not drawn: replays the answers)' : 'ours'}</td><td>{r.value === null ? NOT_JUDGED : r.value.toFixed(2)}</td>
            <td>{r.lo === undefined ? '–' : `[${r.lo.toFixed(1)}, ${r.hi!.toFixed(1)}]`}</td></tr>
        ))}</tbody>
      </table>
      <div className="muted bench-note">
        {PAPER_SOURCE}. The paper's {note}, so the rows are on one axis, not one protocol.
      </div>
    </div>
  );
}

function Report(props: { run: SuiteRunResult }) {
  const r = props.run.report;
  const { per_entry: _e, ...summary } = r as BfclReport;
  const { per_task: _t, ...summaryT } = r as Tau2Report;
  const entries = isBfcl(r) ? r.per_entry ?? [] : (r as Tau2Report).per_task ?? [];
  const groups = isBfcl(r) ? [['category', r.per_category], ['backend class', r.per_class]] as const : [];
  return (
    <div data-testid="suite-report" data-suite={r.suite}>
      <div className="muted">{isBfcl(r) ? `BFCL ${r.questions}` : isVita(r) ? `VitaBench ${r.domain} · max steps ${r.max_steps}` : `τ² ${r.domain} ${r.split} · user ${r.user}`} · {shortModel(r.model)} · {r.protocol} · seed {r.seed} · {(props.run.ms / 1000).toFixed(1)} s</div>
      <table className="rows" data-testid="suite-summary" data-json={JSON.stringify(isBfcl(r) ? summary : summaryT)}>
        <thead><tr><th>metric</th><th>mean [95% interval, bootstrap over {isBfcl(r) ? 'entries' : 'tasks'}]</th></tr></thead>
        <tbody>
          {isVita(r) ? <VitaReportRows report={r} /> : isBfcl(r) ? <>
            <tr><td>accuracy (Avg@{r.k}: every turn passes BFCL's state and response checks)</td><td data-testid="suite-accuracy">{ci(r.accuracy)}</td></tr>
            <tr><td>pass@{r.k}</td><td>{ci(r.pass_at_k)}</td></tr>
            <tr><td>entries</td><td>{r.n_entries}{r.skipped.length ? ` (${r.skipped.length} skipped)` : ''}</td></tr>
            <tr><td>verdicts</td><td data-testid="suite-verdicts">{Object.entries(r.verdicts).map(([k, n], i) => <span key={k}>{i > 0 && ' · '}<span className="term" title={k} data-code={k}>{verdictWords(k)}</span> {n}</span>)}</td></tr>
          </> : <>
            <tr><td>reward (Avg@{r.k}, τ²'s evaluator)</td><td data-testid="suite-accuracy">{ci((r as Tau2Report).reward)}</td></tr>
            <tr><td>pass^k</td><td>{Object.entries((r as Tau2Report).pass_hat_k).map(([k, v]) => `${k}: ${fmt(v, 3)}`).join(' · ')}</td></tr>
            <tr><td>tasks</td><td>{(r as Tau2Report).n_tasks}</td></tr>
            <tr><td>terminations</td><td>{Object.entries((r as Tau2Report).terminations).map(([k, n]) => `${k} ${n}`).join(' · ')}</td></tr>
          </>}
        </tbody>
      </table>
      {r.model === GROUND_TRUTH && (
        <div className="muted bench-note" data-testid="suite-ground-truth-note">
          Ground truth replays each {isBfcl(r) ? "entry's reference calls" : "task's gold actions"}: it checks the harness, not a model, and is not drawn among the models below.
          {!isBfcl(r) && (r as Tau2Report).reward.mean < 1 && ` It scores below 1 here because a task judged only by environment assertions, with no gold actions to replay, cannot be solved by replaying (the mock domain's ninth task is one: 8 of 9).`}
        </div>
      )}
      {isVita(r) && <VitaNotes report={r} />}
      {groups.map(([name, g]) => (
        <table className="rows" key={name} data-testid={`suite-per-${name.replace(' ', '-')}`}>
          <thead><tr><th>{name}</th><th>n</th><th>accuracy [95%]</th></tr></thead>
          <tbody>{Object.entries(g).map(([k, v]) => <tr key={k}><td>{k}</td><td>{v.n}</td><td>{ci(v.accuracy)}</td></tr>)}</tbody>
        </table>
      ))}
      {isVita(r) ? <VitaTasks run={props.run} /> : <details>
        <summary>per {isBfcl(r) ? 'entry' : 'task'} ({entries.length})</summary>
        <table className="rows" data-testid="suite-entries" data-json={JSON.stringify(entries)}>
          <thead><tr><th>{isBfcl(r) ? 'entry' : 'task'}</th><th>score</th><th>{isBfcl(r) ? 'verdicts' : 'terminations'}</th><th>steps</th></tr></thead>
          <tbody>{isBfcl(r)
            ? (r.per_entry ?? []).map((e) => <tr key={e.id}><td>{e.id}</td><td>{fmt(e.accuracy, 3)}</td><td className="clip" title={e.errors.map((x) => x ?? 'valid').join(', ')}>{e.errors.map((x) => verdictWords(x ?? 'valid')).join(', ')}</td><td>{e.steps.join(', ')}</td></tr>)
            : ((r as Tau2Report).per_task ?? []).map((t) => <tr key={t.task}><td>{t.task}</td><td>{fmt(t.reward, 3)}</td><td>{t.terminations.join(', ')}</td><td>{t.steps.join(', ')}</td></tr>)}</tbody>
        </table>
      </details>}
    </div>
  );
}

const num = (v: string, fallback: number) => (v.trim() === '' || !Number.isFinite(Number(v)) ? fallback : Number(v));
const opt = (v: string) => (v.trim() === '' || !Number.isFinite(Number(v)) ? undefined : Number(v));

export function SuitesPanel() {
  const { models: shipped } = useModelIndex();
  const hfLoaded = useHfModel((st) => st.loaded);
  const models = useMemo(() => [...(shipped ?? []), ...hfModelEntries(hfLoaded)], [shipped, hfLoaded]);
  const { running, progress, runs, ended } = useSuites();
  const [suite, setSuite] = useState<Suite>('bfcl');
  const [model, setModel] = useState(GROUND_TRUTH);
  const [user, setUser] = useState('scripted');
  const [split, setSplit] = useState('test');
  const [vitaDomain, setVitaDomain] = useState<VitaDomain>('delivery');
  const [vitaUser, setVitaUser] = useState('policy');
  const [judge, setJudge] = useState('none');
  const [f, setF] = useState({ k: '1', temperature: '0', topP: '1', seed: '0', maxSteps: '', maxNewTokens: '', offset: '', limit: '' });
  const [files, setFiles] = useState<{ questions?: SuiteFile; answers?: SuiteFile; docs: SuiteFile[]; domain: SuiteFile[]; vita: SuiteFile[] }>({ docs: [], domain: [], vita: [] });
  const [localError, setLocalError] = useState<string | null>(null);
  const modelUrl = model === GROUND_TRUTH ? GROUND_TRUTH : models.find((m) => m.name === model)?.url ?? '';
  const roleUrl = (who: string) => (who === 'scripted' ? 'scripted' : who === 'policy' ? modelUrl : hfLoaded?.url ?? '');
  const userUrl = roleUrl(user);
  const ready = suite === 'bfcl' ? Boolean(files.questions && files.answers && files.docs.length)
    : suite === 'vita' ? vitaMissing(vitaDomain, files.vita).length === 0 && model !== GROUND_TRUTH && Boolean(roleUrl(vitaUser)) && (judge === 'none' || Boolean(roleUrl(judge)))
    : files.domain.some((x) => x.name === 'db.json') && files.domain.some((x) => x.name === 'tasks.json');
  const notReady = suite === 'bfcl' ? 'pick the question file, its possible answers and the function-doc files'
    : suite === 'tau2' ? 'pick the domain files (db.json and tasks.json at least)'
    : model === GROUND_TRUTH ? 'VitaBench has no ground truth to replay: choose a policy model' : "pick the domain's VitaBench files (listed above)";

  const request = (): SuiteRunRequest => {
    const common = {
      model: modelUrl, k: num(f.k, 1), temperature: num(f.temperature, 0), topP: num(f.topP, 1), seed: num(f.seed, 0),
      maxSteps: opt(f.maxSteps), maxNewTokens: opt(f.maxNewTokens), offset: opt(f.offset), limit: opt(f.limit),
    };
    if (suite === 'vita') return { suite, ...common, domain: vitaDomain, files: files.vita, user: roleUrl(vitaUser), judge: judge === 'none' ? null : roleUrl(judge) };
    return suite === 'bfcl'
      ? { suite, ...common, questions: files.questions!, answers: files.answers!, funcDocs: files.docs }
      : { suite, ...common, domain: files.domain, split, user: userUrl };
  };
  const pick = (key: 'questions' | 'answers' | 'docs' | 'domain' | 'vita') => async (e: React.ChangeEvent<HTMLInputElement>) => {
    try {
      const got = await readFiles(e.target.files);
      setFiles((s) => (key === 'vita' ? { ...s, vita: addPicked(s.vita, got) } : key === 'docs' || key === 'domain' ? { ...s, [key]: got } : { ...s, [key]: got[0] }));
      setLocalError(null);
    } catch (err) { setLocalError(`cannot read the file: ${errorText(err)}`); }
  };
  const field = (k: keyof typeof f, label: string, title?: string) => (
    <label className="field" title={title}><span>{label}</span>
      <input data-testid={`suite-${k}`} value={f[k]} placeholder={title ? 'default' : undefined} onChange={(e) => setF((s) => ({ ...s, [k]: e.target.value }))} /></label>
  );
  const frac = progress && progress.total > 0 ? progress.done / progress.total : 0;
  const latest = runs[0] ?? null;

  return (
    <Panel title="Paper suites: BFCL-v4 multi-turn, τ²-bench and VitaBench" className="bench-suites" testId="bench-suites">
      <div className="fields">
        <label className="field"><span>suite</span>
          <select data-testid="suite-kind" value={suite} onChange={(e) => setSuite(e.target.value as Suite)}>
            <option value="bfcl">BFCL-v4 multi-turn</option><option value="tau2">τ²-bench</option><option value="vita">VitaBench</option>
          </select></label>
        <label className="field wide"><span>policy</span>
          <select data-testid="suite-model" value={model} onChange={(e) => setModel(e.target.value)}>
            <option value={GROUND_TRUTH} disabled={suite === 'vita'}>ground truth (replay: the harness's own check)</option>
            {models.map((m) => <option key={m.name} value={m.name}>{m.name}</option>)}
          </select></label>
        {suite === 'bfcl' ? <>
          <label className="field wide" title="a BFCL multi-turn question file (JSON Lines), e.g. BFCL_v4_multi_turn_base.json"><span>questions</span>
            <input type="file" accept=".json,.jsonl" data-testid="suite-bfcl-questions" onChange={pick('questions')} /></label>
          <label className="field wide" title="its possible_answer file"><span>possible answers</span>
            <input type="file" accept=".json,.jsonl" data-testid="suite-bfcl-answers" onChange={pick('answers')} /></label>
          <label className="field wide" title="every file of multi_turn_func_doc/"><span>function docs</span>
            <input type="file" multiple accept=".json" data-testid="suite-bfcl-docs" onChange={pick('docs')} /></label>
        </> : suite === 'vita' ? <>
          <label className="field"><span>domain</span>
            <select data-testid="suite-vita-domain" value={vitaDomain} onChange={(e) => setVitaDomain(e.target.value as VitaDomain)}>
              <option value="delivery">delivery</option><option value="instore">in-store</option>
            </select></label>
          <label className="field wide" title="the domain's tasks_en.json and tools file, the three prompt YAMLs and the holiday table; each pick adds to the files picked"><span>VitaBench files</span>
            <input type="file" multiple accept=".json,.yaml" data-testid="suite-vita-files-input" onChange={pick('vita')} /></label>
          <button data-testid="suite-vita-clear" disabled={!files.vita.length} onClick={() => setFiles((s) => ({ ...s, vita: [] }))}>clear files</button>
          <label className="field wide" title="who plays the customer (VitaBench's user simulator prompt)"><span>user</span>
            <select data-testid="suite-vita-user" value={vitaUser} onChange={(e) => setVitaUser(e.target.value)}>
              <option value="policy">the policy's model</option>
              {hfLoaded && <option value="hf">{hfLoaded.url}</option>}
            </select></label>
          <label className="field wide" title="who judges the rubrics over sliding windows of the conversation; without one nothing is scored"><span>judge</span>
            <select data-testid="suite-vita-judge" value={judge} onChange={(e) => setJudge(e.target.value)}>
              <option value="none">none (not judged)</option>
              <option value="policy">the policy's model</option>
              {hfLoaded && <option value="hf">{hfLoaded.url}</option>}
            </select></label>
          <VitaFilesNote domain={vitaDomain} files={files.vita} />
        </> : <>
          <label className="field wide" title="db.json, tasks.json, policy.md and split_tasks.json of one domain folder"><span>domain files</span>
            <input type="file" multiple accept=".json,.md" data-testid="suite-tau2-files" onChange={pick('domain')} /></label>
          <label className="field"><span>split</span>
            <select data-testid="suite-split" value={split} onChange={(e) => setSplit(e.target.value)}>
              <option value="test">test</option><option value="train">train</option><option value="base">base</option>
            </select></label>
          <label className="field wide" title="who plays the customer"><span>user</span>
            <select data-testid="suite-user" value={user} onChange={(e) => setUser(e.target.value)}>
              <option value="scripted">scripted user</option>
              {model !== GROUND_TRUTH && <option value="policy">the policy's model (τ²'s user instructions)</option>}
              {hfLoaded && <option value="hf">{hfLoaded.url}</option>}
            </select></label>
        </>}
        {field('k', 'k (samples)')}{field('temperature', 'temperature')}{field('topP', 'top-p')}{field('seed', 'seed')}
        {field('maxSteps', 'max steps', suite === 'bfcl' ? 'steps per turn before the entry is force-terminated (BFCL: 20)' : suite === 'vita' ? 'steps per conversation (VitaBench: 300)' : 'steps per conversation (τ²: 100)')}
        {field('maxNewTokens', 'max new tokens', "the model's profile (96), 256 for Hugging Face models")}
        {field('offset', 'offset', 'first entry / task')}{field('limit', 'limit', 'all')}
      </div>
      <div className="actions">
        <button className="primary" data-testid="suite-run" disabled={running || !ready || !modelUrl} onClick={() => void start(request())}>{running ? 'running…' : 'Run suite'}</button>
        <button data-testid="suite-cancel" disabled={!running} onClick={() => void api.suiteCancel()}>Cancel</button>
        {!ready && <span className="muted">{notReady}</span>}
      </div>
      {(running || progress) && (
        <div className="progress" data-testid="suite-progress" data-done={progress?.done ?? 0} data-total={progress?.total ?? 0} role="progressbar"
          aria-valuemin={0} aria-valuemax={progress?.total ?? 0} aria-valuenow={progress?.done ?? 0}>
          <div className="progress-track"><div className="progress-fill" style={{ width: `${(100 * frac).toFixed(1)}%` }} /></div>
          <div className="progress-text">{progress ? `${progress.done} / ${progress.total} episodes · ${progress.generations} generations · ${(progress.elapsedMs / 1000).toFixed(1)} s` : 'starting…'}</div>
        </div>
      )}
      {!running && ended?.kind === 'cancelled' && <div className="warn-line" data-testid="suite-cancelled">cancelled: the worker stopped before its next batch of generations</div>}
      <ErrorBox error={localError ?? (ended?.kind === 'error' ? ended.message : null)} />
      {latest ? <Report run={latest} /> : <Empty>Pick the benchmark's files (e.g. from shared/data/bfcl) and run: accuracy with 95% intervals, per category, per backend class and per entry.</Empty>}
      <VsPaper suite={latest?.report.suite ?? suite} runs={runs} />
    </Panel>
  );
}
