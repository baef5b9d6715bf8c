// "Rehearse first" on the Rollout page (src/tts/): before every user turn the policy privately imagines N
// attempts (the Rehearse role imagines every result), each is assessed, the attempts are condensed into a
// bounded memory, and the one committed execution runs in the real environment with that memory in Act's
// system prompt. Shown per turn: the attempts folded (each with its self-evaluation), then the memory, then
// the committed run's timeline. Settings live in the URL (r.tts, r.ttss, r.ttsm); autorun=1 with r.tts > 0
// reproduces the view on open.
//
// Step works through the run as it happened (rehearseSteps.ts): each attempt's generations one by one, its
// self-evaluation, the next attempt, the memory, the committed generations of the turn, then the next turn.
// The run is computed once in full (the first Step computes it); stepping reveals it, the current event
// highlighted and everything after it hidden. r.ttsstep in the URL is the number of events shown (0 = all).
// Cancel stops the worker before its next batch of generations; a cancelled run shows no results.

import * as Comlink from 'comlink';
import { useEffect, useMemo, useRef, useState } from 'react';
import { create } from 'zustand';
import { CANCELLED, type Progress, type RehearseFirstRequest, type RehearseFirstResult, type RolloutRequest, type TaskInfo } from '../../../worker/protocol';
import type { Row } from '../../../agent/types';
import type { ModelEntry } from '../../../worker/protocol';
import { defaultRehearsePolicy, memoryTrained, policyWhy, unparsableText } from './rehearsePolicy';
import type { Attempt, EffectAgainstBaseline, RehearsalEffect, TurnRehearsal } from '../../../tts/rehearse';
import { useApp } from '../../store';
import { api, errorText } from '../../worker';
import { userError } from '../../errors';
import { Empty, ErrorBox, Field, fmt, Panel, ProgressBar } from '../ui';
import { TrajectoryView } from './Timeline';
import { attemptKey, attemptRows, cutTrajectory, eventLabel, rehearseEvents, reveal, type RehearseEvent, type Revealed } from './rehearseSteps';
import './rehearse-first.css';

interface State {
  result: RehearseFirstResult | null;
  key: string | null;
  busy: boolean;
  progress: Progress | null;
  error: string | null;
  /** The last run was cancelled: what it had done when it stopped (its results are not shown), and ms from
   * the Cancel click to the worker's run rejecting. */
  cancelled: { what: string; ms: number | null } | null;
  selected: number;
}

// Module-level so a result survives switching tabs.
const useRehearse = create<State>(() => ({ result: null, key: null, busy: false, progress: null, error: null, cancelled: null, selected: 0 }));

let token = 0;
let cancelAskedAt: number | null = null;

/** Runs rehearse-first; `step` = the events to show once done (0 = all). */
async function runRehearseFirst(req: RehearseFirstRequest, step: number): Promise<void> {
  const my = ++token;
  cancelAskedAt = null;
  // A run replaces the shown one: while it runs, and if it is cancelled, nothing of an older run is shown.
  useRehearse.setState({ busy: true, error: null, cancelled: null, progress: null, result: null, key: null });
  const onProgress = Comlink.proxy((p: Progress) => { if (my === token) useRehearse.setState({ progress: p }); });
  try {
    const result = await api.rehearseFirst(req, onProgress);
    if (my !== token) return;
    useRehearse.setState({ result, key: JSON.stringify(req), selected: 0 });
    useApp.getState().set('r.ttsstep', step);
  } catch (e) {
    if (my !== token) return;
    const msg = errorText(e);
    if (msg.includes(`${CANCELLED}:`)) {
      const what = msg.slice(msg.indexOf(`${CANCELLED}:`) + CANCELLED.length + 1).trim();
      useRehearse.setState({ cancelled: { what, ms: cancelAskedAt === null ? null : performance.now() - cancelAskedAt } });
    }
    else useRehearse.setState({ error: userError(e, 'rehearse-first') });
  } finally {
    if (my === token) useRehearse.setState({ busy: false, progress: null });
  }
}

function cancelRehearseFirst(): void {
  cancelAskedAt ??= performance.now();
  void api.rehearseFirstCancel();
}

function pretty(text: string): string {
  try { return JSON.stringify(JSON.parse(text)); } catch { return text; }
}

/** One generation of an attempt: an Act output (calls, reply or unparsable) or an imagined result. */
function genText(r: Row): string {
  if (r.role === 'rehearse') return `imagined result of ${r.call?.name ?? 'a call'} ⇒ ${pretty(r.imagined ?? r.text)}`;
  if (r.error) return `act: unparsable output (${r.error.code})`;
  const calls = r.calls ?? (r.call ? [r.call] : []);
  if (calls.length) return `act → ${calls.map((c) => `${c.name}(${JSON.stringify(c.arguments)})`).join(', ')}`;
  return `act: reply “${r.text.replace(/^\s*<think>[\s\S]*?<\/think>/, '').trim()}”`;
}

/** Which generations the self-evaluation found bad: unparsable outputs and imagined errors (assess.ts). */
function badRows(a: Attempt, rows: Row[]): boolean[] {
  const callSteps = a.steps.filter((s) => s.call);
  let k = 0;
  return rows.map((r) => (r.role === 'act' ? !!r.error : !!(r.error || callSteps[k++]?.resultError)));
}

type Cur = RehearseEvent | null;
const isCur = (cur: Cur, e: Partial<RehearseEvent> & { kind: RehearseEvent['kind'] }) =>
  !!cur && Object.entries(e).every(([k, v]) => (cur as Record<string, unknown>)[k] === v);

function AttemptView(props: { a: Attempt; best: boolean; turn: number; rev: Revealed | null; cur: Cur }) {
  const { a, rev, cur, turn } = props;
  const rows = attemptRows(a);
  const bad = badRows(a, rows);
  const k = attemptKey(turn, a.index);
  const shownRows = rev ? rev.attemptRows.get(k) ?? 0 : rows.length;
  const evalShown = !rev || rev.evals.has(k);
  const here = !!cur && (cur.kind === 'attempt-gen' || cur.kind === 'self-eval') && cur.turn === turn && cur.attempt === a.index;
  // Stepping opens the attempt being worked through and folds the others; the whole run shows them folded.
  const ref = useRef<HTMLDetailsElement>(null);
  const stepping = !!rev;
  useEffect(() => { if (ref.current) ref.current.open = stepping && here; }, [here, stepping]);
  return (
    <details ref={ref} className={`tts-attempt${here ? ' tts-here' : ''}`} data-testid="tts-attempt">
      <summary>
        attempt {a.index + 1}
        {evalShown ? <>{props.best && <b> · best</b>} · <span title="rule score (ranks attempts)">score {fmt(a.assessment.score, 1)}</span>
          {' · '}{a.steps.filter((s) => s.call).length} imagined call(s) · {a.trajectory.terminatedBy}
          {a.assessment.flags.length > 0 && <span className="muted"> · {a.assessment.flags.join(', ')}</span>}</>
          : <span className="muted"> · {shownRows} of {rows.length} generations shown</span>}
      </summary>
      {a.shown && <div className="muted">shown the earlier attempts:<pre className="tts-memory">{a.shown}</pre></div>}
      <ol className="tts-steps">
        {rows.slice(0, shownRows).map((r, i) => {
          const now = isCur(cur, { kind: 'attempt-gen', turn, attempt: a.index, row: i });
          return (
            <li key={i} className={[bad[i] ? 'bad' : '', now ? 'tts-current' : ''].join(' ').trim() || undefined} data-testid="tts-gen"
              data-event="attempt-gen" data-current={now ? 'true' : undefined}>{genText(r)}</li>
          );
        })}
      </ol>
      {evalShown && (
        <div className={`tts-eval${isCur(cur, { kind: 'self-eval', turn, attempt: a.index }) ? ' tts-current' : ''}`} data-testid="tts-eval" data-event="self-eval"
          data-current={isCur(cur, { kind: 'self-eval', turn, attempt: a.index }) ? 'true' : undefined}>
          <span className="badge">self-evaluation · {a.assessment.by === 'rules' ? 'rule-based' : 'written by the policy'}</span>
          <div><b>assessment</b>: {a.assessment.assessment}</div>
          <div><b>revision</b>: {a.assessment.revision}</div>
        </div>
      )}
    </details>
  );
}

function TurnView(props: { h: TurnRehearsal; user?: string; rev: Revealed | null; cur: Cur }) {
  const { h, rev, cur } = props;
  const memoryShown = !rev || rev.memories.has(h.userTurn);
  const attempts = rev ? h.attempts.filter((a) => rev.attemptRows.has(attemptKey(h.userTurn, a.index))) : h.attempts;
  const memNow = isCur(cur, { kind: 'memory', turn: h.userTurn });
  return (
    <div className="tts-turn" data-testid="tts-turn">
      <div className="subhead">turn {h.userTurn + 1}: {h.attempts.length} imagined attempt{h.attempts.length === 1 ? '' : 's'}{props.user ? ` at “${props.user}”` : ''}</div>
      {attempts.map((a) => <AttemptView key={a.index} a={a} best={a.index === h.best} turn={h.userTurn} rev={rev} cur={cur} />)}
      {memoryShown && <div className={memNow ? 'tts-current' : undefined} data-event="memory" data-current={memNow ? 'true' : undefined}>
        <div className="muted">memory shown to Act for this turn ({h.memoryTokens} tokens) · real state unchanged by rehearsal: <b data-testid="tts-state-ok">{h.stateHashAfter === h.stateHashBefore ? 'yes' : 'NO'}</b></div>
        {h.memory ? <pre className="tts-memory" data-testid="tts-memory">{h.memory}</pre> : <div className="muted">(no memory: nothing fit, or N = 0)</div>}
      </div>}
    </div>
  );
}

const EFFECT_MARK: Record<RehearsalEffect, string> = { better: '▲', worse: '▼', same: '=' };

/** Did rehearsing change the committed outcome? Against the same task, sample and seed run without rehearsal (N = 0). */
function EffectLine(props: { e: EffectAgainstBaseline; runs: RehearseFirstResult['runs'] }) {
  const { e } = props;
  const counts = { better: 0, worse: 0, same: 0 };
  for (const r of props.runs) if (r.againstNoRehearsal) counts[r.againstNoRehearsal.effect]++;
  const outcome = (s: 0 | 1, r: number) => `${s ? 'success' : 'failure'}, reward ${fmt(r, 2)}`;
  return (
    <div className={`tts-effect tts-effect-${e.effect}`} data-testid="rehearse-effect" data-effect={e.effect}
      title="the committed run against the same task, sample and seed run without rehearsal (N = 0): success decides, then the reward">
      <b>{EFFECT_MARK[e.effect]} rehearsal {e.effect === 'better' ? 'helped' : e.effect === 'worse' ? 'hurt' : 'changed nothing'}</b>
      {' '}— with rehearsal: {outcome(e.success, e.reward)}; the same seed without: {outcome(e.baselineSuccess, e.baselineReward)}
      {props.runs.length > 1 && <span className="muted"> · over the {props.runs.length} runs: {counts.better} better, {counts.worse} worse, {counts.same} same</span>}
      {counts.worse > 0 && <span className="muted"> · a measured result for this policy, task and seeds (each run is compared with the same seed run without rehearsal), not a fault of the page</span>}
    </div>
  );
}

export function RehearseFirst(props: { req: RolloutRequest; ready: boolean; task: TaskInfo | null; models: ModelEntry[] | null; rolloutModel: ModelEntry | undefined }) {
  const s = useApp((st) => st.settings);
  const set = useApp((st) => st.set);
  const { result, key, busy, progress, error, cancelled, selected } = useRehearse();
  // The rehearsing policy: r.ttsp names one; '' = the default (a policy trained with memories, see above).
  const recommended = props.models ? defaultRehearsePolicy(props.models, props.req.world, props.rolloutModel) : undefined;
  const policy = s['r.ttsp'] ? props.models?.find((m) => m.name === s['r.ttsp']) : recommended;
  const { mode: _mode, ...base } = { ...props.req, modelUrl: policy?.url ?? '' };
  const req: RehearseFirstRequest = { ...base, n: s['r.tts'], strategy: s['r.ttss'] as RehearseFirstRequest['strategy'], memory: s['r.ttsm'] as RehearseFirstRequest['memory'], hintSource: s['r.ttsh'] as RehearseFirstRequest['hintSource'] };
  const stale = result && key !== JSON.stringify(req);
  const [opened, setOpened] = useState(false);

  // autorun=1 with rehearsal on: reproduce the linked view once (the page's own autorun then stays off),
  // stepped to r.ttsstep events when the link has one.
  const autoran = useRef(false);
  useEffect(() => {
    if (autoran.current || !props.ready || s.autorun !== 1 || s['r.tts'] === 0 || busy) return;
    autoran.current = true;
    void runRehearseFirst(req, s['r.ttsstep']);
  }, [props.ready, s.autorun]);

  const runs = result?.runs ?? [];
  const cur = runs[Math.min(selected, runs.length - 1)];
  const users = cur?.trajectory.messages.filter((m) => m.role === 'user').map((m) => m.content) ?? [];
  const events = useMemo(() => (cur ? rehearseEvents(cur) : []), [cur]);
  // Stepping: the first `shown` events (0 = not stepping: everything).
  const shown = s['r.ttsstep'] > 0 ? Math.min(s['r.ttsstep'], events.length) : 0;
  const rev = cur && shown > 0 ? reveal(events, shown) : null;
  const current = rev?.current ?? null;

  const step = (to: number) => set('r.ttsstep', Math.max(1, Math.min(to, events.length)));
  const onStep = () => {
    setOpened(true);
    // The run is computed once in full; stepping reveals it. Without a result (or with one for other
    // settings) Step computes it first and shows its first event.
    if (!cur || stale) void runRehearseFirst(req, 1);
    else step(shown === 0 ? 1 : shown + 1);
  };

  // The committed run's current generation is drawn by the timeline: mark it there, and bring the current
  // event into view.
  const body = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const root = body.current;
    if (!root) return;
    root.querySelectorAll('[data-testid="act-row"][data-current]').forEach((el) => { el.removeAttribute('data-current'); el.classList.remove('tts-current'); });
    if (current?.kind === 'commit-gen') {
      const el = root.querySelector(`.tts-committed [data-testid="act-row"][data-step="${cur!.trajectory.rows[current.row]!.step}"]`);
      el?.setAttribute('data-current', 'true');
      el?.classList.add('tts-current');
    }
    root.querySelector('[data-current="true"]')?.scrollIntoView?.({ block: 'nearest' });
  }, [shown, cur, stale]);

  const committedRows = rev ? rev.commitRows : cur?.trajectory.rows.length ?? 0;
  const inProgress = !!rev && !rev.complete;
  const throughTurn = rev ? Math.max(-1, ...rev.turns) : -1;
  const committed = useMemo(() => cur && (shown > 0 ? cutTrajectory(cur.trajectory, committedRows, throughTurn) : cur.trajectory), [cur, shown > 0, committedRows, throughTurn]);
  return (
    <Panel title="Rehearse first" className="rehearse-first" testId="rehearse-first"
      right={runs.length > 1 && (
        <span className="traj-picker">
          {runs.map((r, i) => (
            <button key={i} className={i === selected ? 'on' : ''} onClick={() => useRehearse.setState({ selected: i })}
              title={r.againstNoRehearsal ? `rehearsal made this run ${r.againstNoRehearsal.effect === 'same' ? 'no different' : r.againstNoRehearsal.effect} than the same seed without it` : undefined}>
              #{i} {fmt(r.trajectory.reward ?? null, 2)}{r.againstNoRehearsal && ` ${EFFECT_MARK[r.againstNoRehearsal.effect]}`}
            </button>
          ))}
        </span>
      )}>
      <div className="fields">
        <label className="field wide" htmlFor="f-r.ttsp" title="the policy that rehearses and commits (the Rollout policy above is not used here)">
          <span className="field-label">policy (rehearses, then commits)</span>
          <select id="f-r.ttsp" data-testid="rehearse-policy" value={policy?.name ?? s['r.ttsp']} onChange={(e) => set('r.ttsp', e.target.value === recommended?.name ? '' : e.target.value)}>
            {!props.models && <option value={s['r.ttsp']}>(loading…)</option>}
            {props.models?.map((m) => <option key={m.name} value={m.name}>{m.name}{memoryTrained(m) ? ' · trained with memories' : ''}{m === recommended ? ' (default)' : ''}</option>)}
            {props.models && s['r.ttsp'] && !policy && <option value={s['r.ttsp']}>{s['r.ttsp']} (unknown)</option>}
          </select>
        </label>
        <Field k="r.tts" label="rehearse first: N" title="imagined attempts per user turn before the one committed real run (0 = off)" />
        <Field k="r.ttss" label="strategy" title="parallel: independent attempts · sequential: each attempt sees the earlier ones and their self-evaluations" />
        <Field k="r.ttsm" label="memory" title="full: plan, calls to avoid, each attempt with its self-evaluation · best-calls: the best attempt's calls alone" />
        <Field k="r.ttsh" label="rehearse hints" title="episode (default): the imagined tool results are shown only this episode's real calls and results, as a deployed agent would be · oracle: the test task's own reference calls and results (gold; a reference line, not a deployable setting)" />
      </div>
      {policy && <div className={memoryTrained(policy) ? 'muted' : 'warn-line'} data-testid="rehearse-policy-why" data-memory-trained={memoryTrained(policy) ? 'true' : 'false'}>{policyWhy(policy, props.rolloutModel)}</div>}
      <div className="actions">
        <button className="primary" data-testid="rehearse-run" disabled={busy || !props.ready || !policy || s['r.tts'] === 0}
          title="rehearse each user turn N times in imagination, then run once in the real environment"
          onClick={() => { setOpened(true); void runRehearseFirst(req, 0); }}>
          {busy ? 'rehearsing…' : `Rehearse ${s['r.tts']}× first, then run`}
        </button>
        {busy && <button data-testid="rehearse-cancel" onClick={cancelRehearseFirst} title="stop the worker before its next batch of generations">Cancel</button>}
        <span className="muted">uses the settings above (mode: the committed run is real); self-evaluations are rule-based (our tiny policies cannot write one)</span>
      </div>
      <div className="actions tts-stepper" data-testid="rehearse-stepper">
        <button data-testid="rehearse-back" disabled={busy || shown <= 1} onClick={() => step(shown - 1)} title="one event back">Back</button>
        <button data-testid="rehearse-step" disabled={busy || !props.ready || !policy || s['r.tts'] === 0 || (shown > 0 && shown >= events.length && !stale)} onClick={onStep}
          title="one more event: a generation of an imagined attempt, a self-evaluation, the memory, or a committed generation (the first Step computes the whole run)">
          {shown > 0 && !stale ? `Step (${Math.min(shown + 1, events.length)} of ${events.length})` : 'Step'}
        </button>
        <button data-testid="rehearse-to-end" disabled={busy || shown === 0} onClick={() => set('r.ttsstep', 0)} title="show the whole run">Run to end</button>
        {rev && current && (
          <span className="tts-step-label" data-testid="rehearse-step-label">
            event <b>{shown}</b> of {events.length}: {eventLabel(cur!, current)}{rev.complete ? ' · the end' : ''}
          </span>
        )}
      </div>
      {busy && <ProgressBar testId="rehearse-progress" progress={progress} label="rehearsing and running in the worker" />}
      {cancelled && (
        <div className="not-available" role="status" data-testid="rehearse-cancelled" data-cancel-ms={cancelled.ms === null ? '' : cancelled.ms.toFixed(0)}>
          <strong>cancelled</strong>{cancelled.ms !== null && ` in ${fmt(cancelled.ms / 1000, 2)} s`}: {cancelled.what}; nothing of it is shown (an unfinished run is no result)
        </div>
      )}
      <ErrorBox error={error} />
      {!cur ? (s['r.tts'] === 0 ? <Empty>Set N above 0 to rehearse privately before the committed run.</Empty> : !opened && !cancelled && <Empty>Not run yet.</Empty>) : (
        <div data-testid="rehearse-result" ref={body}>
          <div className="muted run-status" data-testid="rehearse-status" data-terminated-by={cur.trajectory.terminatedBy}>
            {cur.rehearsals.length} turn(s) · {cur.rehearsals.reduce((n, h) => n + h.attempts.length, 0)} imagined attempts ·
            real environment received {cur.realCalls} call(s), {cur.realMatchesCommitted ? 'exactly the committed ones' : 'NOT the committed ones'} ·
            reward {fmt(cur.trajectory.reward ?? null, 2)} · {fmt((result!.ms) / 1000, 2)} s{stale && ' · settings changed since'}
            {rev && ` · stepping: ${shown} of ${events.length} events shown`}
          </div>
          {cur.againstNoRehearsal && <EffectLine e={cur.againstNoRehearsal} runs={runs} />}
          {unparsableText(cur.trajectory) && <div className="warn-line" data-testid="rehearse-unparsable">Run #{selected}: {unparsableText(cur.trajectory)}{runs.length > 1 && ` · ${runs.filter((r) => unparsableText(r.trajectory)).length} of ${runs.length} committed runs ended this way`}.</div>}
          {cur.rehearsals.filter((h) => !rev || rev.turns.has(h.userTurn)).map((h) => <TurnView key={h.userTurn} h={h} user={users[h.userTurn]} rev={rev} cur={current} />)}
          {committed && (!rev || committedRows > 0) && <>
            <div className="subhead">the committed run (real environment){inProgress && ` · ${committedRows} of ${cur.trajectory.rows.length} generations shown`}</div>
            <div className="tts-committed">
              <TrajectoryView t={committed} task={props.task} baseSeed={props.req.seed} inProgress={inProgress} stepLabel={inProgress ? `event ${shown} of ${events.length}` : undefined} />
            </div>
          </>}
        </div>
      )}
    </Panel>
  );
}
