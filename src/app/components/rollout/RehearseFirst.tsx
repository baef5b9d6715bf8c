// "Rehearse first" on the Rollout page (src/tts/): before every user turn the policy privately imagines N
// attempts (the Rehearse role imagines every result), each is assessed, the attempts are condensed into a
// bounded memory, and the one committed execution runs in the real environment with that memory in Act's
// system prompt. Shown per turn: the attempts folded (each with its self-evaluation), then the memory, then
// the committed run's timeline. Settings live in the URL (r.tts, r.ttss, r.ttsm); autorun=1 with r.tts > 0
// reproduces the view on open.

import * as Comlink from 'comlink';
import { useEffect, useRef, useState } from 'react';
import { create } from 'zustand';
import type { Progress, RehearseFirstRequest, RehearseFirstResult, RolloutRequest, TaskInfo } from '../../../worker/protocol';
import type { Attempt, TurnRehearsal } from '../../../tts/rehearse';
import { useApp } from '../../store';
import { api, errorText } from '../../worker';
import { Empty, ErrorBox, Field, fmt, Panel, ProgressBar } from '../ui';
import { TrajectoryView } from './Timeline';
import './rehearse-first.css';

interface State {
  result: RehearseFirstResult | null;
  key: string | null;
  busy: boolean;
  progress: Progress | null;
  error: string | null;
  selected: number;
}

// Module-level so a result survives switching tabs.
const useRehearse = create<State>(() => ({ result: null, key: null, busy: false, progress: null, error: null, selected: 0 }));

let token = 0;

async function runRehearseFirst(req: RehearseFirstRequest): Promise<void> {
  const my = ++token;
  useRehearse.setState({ busy: true, error: null, progress: null });
  const onProgress = Comlink.proxy((p: Progress) => { if (my === token) useRehearse.setState({ progress: p }); });
  try {
    const result = await api.rehearseFirst(req, onProgress);
    if (my === token) useRehearse.setState({ result, key: JSON.stringify(req), selected: 0 });
  } catch (e) {
    if (my === token) useRehearse.setState({ error: errorText(e) });
  } finally {
    if (my === token) useRehearse.setState({ busy: false, progress: null });
  }
}

function stepText(s: Attempt['steps'][number]): string {
  if (s.call) return `${s.call.name}(${JSON.stringify(s.call.arguments)}) ⇒ ${s.result ?? ''}`;
  if (s.reply !== undefined) return `reply: ${s.reply}`;
  return `unparsable output (${s.actError})`;
}

function AttemptView(props: { a: Attempt; best: boolean }) {
  const { a } = props;
  return (
    <details className="tts-attempt" data-testid="tts-attempt">
      <summary>
        attempt {a.index + 1}{props.best && <b> · best</b>} · <span title="rule score (ranks attempts)">score {fmt(a.assessment.score, 1)}</span>
        {' · '}{a.steps.filter((s) => s.call).length} imagined call(s) · {a.trajectory.terminatedBy}
        {a.assessment.flags.length > 0 && <span className="muted"> · {a.assessment.flags.join(', ')}</span>}
      </summary>
      {a.shown && <div className="muted">shown the earlier attempts:<pre className="tts-memory">{a.shown}</pre></div>}
      <ol className="tts-steps">
        {a.steps.map((s, i) => <li key={i} className={s.resultError || s.actError ? 'bad' : undefined}>{stepText(s)}</li>)}
      </ol>
      <div className="tts-eval" data-testid="tts-eval">
        <span className="badge">self-evaluation · {a.assessment.by === 'rules' ? 'rule-based' : 'written by the policy'}</span>
        <div><b>assessment</b>: {a.assessment.assessment}</div>
        <div><b>revision</b>: {a.assessment.revision}</div>
      </div>
    </details>
  );
}

function TurnView(props: { h: TurnRehearsal; user?: string }) {
  const { h } = props;
  return (
    <div className="tts-turn" data-testid="tts-turn">
      <div className="subhead">turn {h.userTurn + 1}: {h.attempts.length} imagined attempt{h.attempts.length === 1 ? '' : 's'}{props.user ? ` at “${props.user}”` : ''}</div>
      {h.attempts.map((a) => <AttemptView key={a.index} a={a} best={a.index === h.best} />)}
      <div className="muted">memory shown to Act for this turn ({h.memoryTokens} tokens) · real state unchanged by rehearsal: <b data-testid="tts-state-ok">{h.stateHashAfter === h.stateHashBefore ? 'yes' : 'NO'}</b></div>
      {h.memory ? <pre className="tts-memory" data-testid="tts-memory">{h.memory}</pre> : <div className="muted">(no memory: nothing fit, or N = 0)</div>}
    </div>
  );
}

export function RehearseFirst(props: { req: RolloutRequest; ready: boolean; task: TaskInfo | null }) {
  const s = useApp((st) => st.settings);
  const { result, key, busy, progress, error, selected } = useRehearse();
  const { mode: _mode, ...base } = props.req;
  const req: RehearseFirstRequest = { ...base, n: s['r.tts'], strategy: s['r.ttss'] as RehearseFirstRequest['strategy'], memory: s['r.ttsm'] as RehearseFirstRequest['memory'] };
  const stale = result && key !== JSON.stringify(req);
  const [opened, setOpened] = useState(false);

  // autorun=1 with rehearsal on: reproduce the linked view once (the page's own autorun then stays off).
  const autoran = useRef(false);
  useEffect(() => {
    if (autoran.current || !props.ready || s.autorun !== 1 || s['r.tts'] === 0 || busy) return;
    autoran.current = true;
    void runRehearseFirst(req);
  }, [props.ready, s.autorun]);

  const runs = result?.runs ?? [];
  const cur = runs[Math.min(selected, runs.length - 1)];
  const users = cur?.trajectory.messages.filter((m) => m.role === 'user').map((m) => m.content) ?? [];
  return (
    <Panel title="Rehearse first" className="rehearse-first" testId="rehearse-first"
      right={runs.length > 1 && (
        <span className="traj-picker">
          {runs.map((r, i) => (
            <button key={i} className={i === selected ? 'on' : ''} onClick={() => useRehearse.setState({ selected: i })}>#{i} {fmt(r.trajectory.reward ?? null, 2)}</button>
          ))}
        </span>
      )}>
      <div className="fields">
        <Field k="r.tts" label="rehearse first: N" title="imagined attempts per user turn before the one committed real run (0 = off)" />
        <Field k="r.ttss" label="strategy" title="parallel: independent attempts · sequential: each attempt sees the earlier ones and their self-evaluations" />
        <Field k="r.ttsm" label="memory" title="full: plan, calls to avoid, each attempt with its self-evaluation · best-calls: the best attempt's calls alone" />
      </div>
      <div className="actions">
        <button className="primary" data-testid="rehearse-run" disabled={busy || !props.ready || s['r.tts'] === 0}
          title="rehearse each user turn N times in imagination, then run once in the real environment"
          onClick={() => { setOpened(true); void runRehearseFirst(req); }}>
          {busy ? 'rehearsing…' : `Rehearse ${s['r.tts']}× first, then run`}
        </button>
        <span className="muted">uses the settings above (mode: the committed run is real); self-evaluations are rule-based (our tiny policies cannot write one)</span>
      </div>
      {busy && <ProgressBar testId="rehearse-progress" progress={progress} label="rehearsing and running in the worker" />}
      <ErrorBox error={error} />
      {!cur ? (s['r.tts'] === 0 ? <Empty>Set N above 0 to rehearse privately before the committed run.</Empty> : !opened && <Empty>Not run yet.</Empty>) : (
        <div data-testid="rehearse-result">
          <div className="muted run-status" data-testid="rehearse-status">
            {cur.rehearsals.length} turn(s) · {cur.rehearsals.reduce((n, h) => n + h.attempts.length, 0)} imagined attempts ·
            real environment received {cur.realCalls} call(s), {cur.realMatchesCommitted ? 'exactly the committed ones' : 'NOT the committed ones'} ·
            reward {fmt(cur.trajectory.reward ?? null, 2)} · {fmt((result!.ms) / 1000, 2)} s{stale && ' · settings changed since'}
          </div>
          {cur.rehearsals.map((h) => <TurnView key={h.userTurn} h={h} user={users[h.userTurn]} />)}
          <div className="subhead">the committed run (real environment)</div>
          <TrajectoryView t={cur.trajectory} task={props.task} baseSeed={props.req.seed} />
        </div>
      )}
    </Panel>
  );
}
