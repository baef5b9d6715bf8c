// One trajectory as a timeline of user turns: the replayed user message, every Act generation (its think
// block and calls or reply, shaded by token log-probability), and for each call the rehearsed result beside
// the real one with field-level differences, then the turn's checklist as the judge scored it.

import { useMemo, useState } from 'react';
import type { Message } from '../../../envs/types';
import type { Row } from '../../../agent/types';
import type { ShownTrajectory, TaskInfo } from '../../../worker/protocol';
import type { TurnVerdict } from '../../../envs/types';
import { fmt, Metric, METRICS, plural, Term } from '../ui';
import { diffCounts, fieldDiff } from './fieldDiff';
import { TokenText } from './TokenText';

type Item = TaskInfo['checklist'][number][number];

function pretty(text: string): string {
  try { return JSON.stringify(JSON.parse(text), null, 1); } catch { return text; }
}

function callText(c: { name: string; arguments: Record<string, unknown> }): string {
  return `${c.name}(${JSON.stringify(c.arguments)})`;
}

/** Tool messages that followed the i-th assistant message: what the policy was shown after that Act row. */
function shownResults(messages: Message[]): Message[][] {
  const out: Message[][] = [];
  for (const m of messages) {
    if (m.role === 'assistant') out.push([]);
    else if (m.role === 'tool' && out.length) out[out.length - 1]!.push(m);
  }
  return out;
}

export function TrajectoryView(props: { t: ShownTrajectory; task?: TaskInfo | null; inProgress?: boolean; stepLabel?: string; baseSeed?: number }) {
  const { t, inProgress } = props;
  const task = props.task && props.task.id === t.taskId ? props.task : null;
  const layout = useMemo(() => {
    const users = t.messages.filter((m) => m.role === 'user').map((m) => m.content);
    const shown = shownResults(t.messages);
    const acts = t.rows.filter((r) => r.role === 'act');
    const kids = new Map<number, Row[]>();
    for (const r of t.rows) if (r.role === 'rehearse' && r.parent !== undefined) kids.set(r.parent, [...(kids.get(r.parent) ?? []), r]);
    const orphans = t.rows.filter((r) => r.role === 'rehearse' && (r.parent === undefined || !acts.some((a) => a.step === r.parent)));
    const turns = Math.max(users.length, ...t.rows.map((r) => r.turn + 1), ...(t.verdict?.turns ?? []).map((v) => v.turn + 1), 0);
    // A reply ends its user turn, and the judge scores a turn only then: in a cut (stepped) trajectory the
    // verdict of the turn still running is the judge's view of an unfinished turn, so it is not shown.
    const ended = (u: number) => acts.some((a) => a.turn === u && !a.error && !a.call);
    return { users, shown, acts, kids, orphans, turns, ended };
  }, [t]);
  const v = t.verdict;
  return (
    <div className="traj" data-testid="trajectory">
      <div className="traj-head">
        <span>task <b>{t.taskId}</b></span><span>mode <b>{t.mode}</b></span>
        <span title={METRICS.seed} data-testid="traj-seed">trajectory seed <b>{t.seed}</b>{props.baseSeed !== undefined && <span className="muted"> (from seed field {props.baseSeed}, task and sample index)</span>}</span>
        <span>{plural(t.rows.length, 'generation')}</span>
        {inProgress && <span className="badge warn" data-testid="in-progress">in progress{props.stepLabel ? ` · ${props.stepLabel}` : ''}</span>}
      </div>
      {layout.turns === 0 && t.rows.length === 0 && <div className="muted">No generations: the episode ended ({t.terminatedBy}) before the first one.</div>}
      {Array.from({ length: layout.turns }, (_, u) => (
        <section key={u} className="turn" data-testid="turn">
          <div className="turn-label">user turn {u + 1}</div>
          {layout.users[u] !== undefined && <div className="msg msg-user"><span className="msg-role">user</span><pre className="msg-body">{layout.users[u]}</pre></div>}
          {layout.acts.filter((a) => a.turn === u).map((a) => (
            <ActCard key={a.step} row={a} shown={layout.shown[layout.acts.indexOf(a)] ?? []} kids={layout.kids.get(a.step) ?? []} />
          ))}
          <Checklist turn={u} verdict={inProgress && !layout.ended(u) ? undefined : v?.turns.find((x) => x.turn === u)} items={task?.checklist[u]} pending={!!inProgress}
            real={inProgress ? undefined : t.realVerdict?.turns.find((x) => x.turn === u)} imaginedMode={t.mode !== 'real'} />
        </section>
      ))}
      {layout.orphans.map((r) => <RehearseCard key={`o${r.step}`} row={r} />)}
      <div className={`traj-end${inProgress ? ' pending' : ''}`} data-testid="traj-end">
        {inProgress ? (
          <span>stopped after {plural(t.rows.length, 'generation')} ({props.stepLabel ?? 'step'}): Step continues it, Run plays it out</span>
        ) : <>
          <span><Metric name="reward" /> <b data-testid="reward">{fmt(t.reward ?? null)}</b>{t.error && (t.reward ?? 0) === 0 && (v?.score ?? 0) > 0 ? <span className="muted"> (0: an error ended the episode)</span> : null}</span>
          <span>ended by <b data-testid="termination" title={METRICS.termination}>{t.terminatedBy}</b></span>
          {v && <span><Metric name="checklist" /> <b>{fmt(v.score)}</b>{v.terminatedEarly ? ' (terminated early)' : ''}
            {t.realVerdict && t.mode !== 'real' && <span className="muted" data-testid="real-checklist" title="the same judge on the real environment's answers"> · on real results <b>{fmt(t.realVerdict.score)}</b></span>}</span>}
          {v?.outcome && <span data-testid="state-check"><Metric name="state check" /> <b title={v.outcome.reason}>{v.outcome.passed ? 'passed' : 'failed'}</b>
            <span className="muted"> · <Metric name="success" label="success" /> needs the state check and every checklist item: <b>{v.outcome.passed && v.score >= 1 - 1e-9 ? 'yes' : 'no'}</b></span></span>}
          {t.error && <span className="err">error <b>{t.error.code}</b>: {t.error.message}</span>}
        </>}
      </div>
    </div>
  );
}

function ActCard(props: { row: Row; shown: Message[]; kids: Row[] }) {
  const r = props.row;
  const calls = r.calls ?? (r.call ? [r.call] : []);
  const rehearsed = props.kids.length > 0;
  return (
    <div className={`card act${r.error ? ' has-error' : ''}`} data-testid="act-row" data-step={r.step}>
      <div className="card-head">
        <span className="role"><Term name="Act" label="act" /></span><span>step {r.step}</span><span>{r.outputIds.length} tok</span>
        {r.finishReason && <span>{r.finishReason}</span>}
        {r.error ? <span className="badge bad">{r.error.code}</span>
          : calls.length ? <span className="badge">{calls.length} call{calls.length > 1 ? 's' : ''}</span>
          : <span className="badge ok">reply</span>}
      </div>
      <TokenText text={r.text} tokens={r.outputTokens} logprobs={r.logprobs} />
      {r.error && <div className="err">{r.error.message}</div>}
      {calls.map((c, i) => {
        const kid = props.kids.find((k) => (k.callIndex ?? 0) === i);
        const real = props.shown[i];
        return (
          <div key={i} className="call-block">
            <div className="call-line">→ <code>{callText(c)}</code></div>
            {kid ? <RehearseCard row={kid} />
              : !rehearsed && real ? (
                <div className="obs real" data-testid="real-result">
                  <div className="obs-title">environment result{real.role === 'tool' && real.error ? ' (error)' : ''}</div>
                  <pre>{pretty(real.content)}</pre>
                </div>
              ) : <div className="muted">no result (the episode stopped before this call was answered)</div>}
          </div>
        );
      })}
    </div>
  );
}

function RehearseCard(props: { row: Row }) {
  const r = props.row;
  const imagined = r.imagined ?? '';
  const real = r.real;
  const lines = useMemo(() => (real ? fieldDiff(imagined, real.text) : []), [imagined, real]);
  const counts = diffCounts(lines);
  const f = r.fidelity;
  const [rawOpen, setRawOpen] = useState(false);
  return (
    <div className={`card rehearse${r.frozen ? ' frozen' : ''}`} data-testid="rehearse-row" data-step={r.step}>
      <div className="card-head">
        <span className="role">{r.frozen ? <Term name="simulator" /> : <Term name="Rehearse" label="rehearse" />}</span><span>step {r.step}</span><span>{r.outputIds.length} tok</span>
        {r.error && <span className="badge bad">{r.error.code}</span>}
        {f && (
          <span className="fidelity" data-testid="fidelity">
            <Term name="fidelity" />
            <span className={`badge ${f.exact ? 'ok' : 'bad'}`} title={METRICS.exact} data-term="exact">exact {f.exact ? '✓' : '✗'}</span>
            <span className="badge" title={METRICS['field F1']} data-term="field F1">field F1 {fmt(f.fieldF1, 3)}</span>
            <span className={`badge ${f.errorAgree ? 'ok' : 'bad'}`} title={METRICS['error agreement']} data-term="error agreement">error agreement {f.errorAgree ? '✓' : '✗'}</span>
          </span>
        )}
      </div>
      <div className="side-by-side">
        <div className="obs imagined" data-testid="imagined-panel">
          <div className="obs-title">rehearsed (imagined)</div>
          <pre>{pretty(imagined)}</pre>
        </div>
        <div className="obs real" data-testid="real-panel">
          <div className="obs-title">real (shadow environment){real?.error ? ' · error' : ''}</div>
          {real ? <pre>{pretty(real.text)}</pre> : <div className="muted">not recorded (no shadow environment for this row)</div>}
        </div>
      </div>
      {real && (
        <details className="diff" open={!f?.exact}>
          <summary>
            fields: {counts.same} same · <span className="d-differ">{counts.differ} differ</span> · <span className="d-missing">{counts.missing} missing</span> · <span className="d-extra">{counts.extra} extra</span>
          </summary>
          <table className="field-diff" data-testid="field-diff">
            <thead><tr><th>field</th><th>imagined</th><th>real</th></tr></thead>
            <tbody>
              {lines.map((l) => (
                <tr key={l.path} className={`d-${l.status}`} title={l.status}>
                  <td>{l.path}</td><td>{l.imagined ?? '—'}</td><td>{l.real ?? '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </details>
      )}
      <details className="raw" onToggle={(e) => setRawOpen((e.currentTarget as HTMLDetailsElement).open)}>
        <summary>generated text</summary>
        {/* Token spans (hundreds per card) are built on open; closed, the plain text is enough. */}
        {rawOpen ? <TokenText text={r.text} tokens={r.outputTokens} logprobs={r.logprobs} /> : <pre className="gen-text">{r.text}</pre>}
      </details>
    </div>
  );
}

function Checklist(props: { turn: number; verdict?: TurnVerdict; items?: Item[]; pending: boolean; real?: TurnVerdict; imaginedMode: boolean }) {
  const { verdict, items, real } = props;
  if (!verdict && !items?.length) return null;
  const byId = new Map((items ?? []).map((i) => [i.id, i]));
  type Shown = { id: string; weight: number; passed?: boolean; reason?: string };
  const shown: Shown[] = verdict ? verdict.items : (items ?? []).map((i) => ({ id: i.id, weight: i.weight }));
  return (
    <div className="checklist" data-testid="checklist">
      <div className="checklist-head">
        <Term name="checklist" /> {verdict ? <>· turn score <b>{fmt(verdict.score, 3)}</b>{verdict.terminated ? ' · a required item failed' : ''}</> : <span className="muted">· {props.pending ? 'judged when the turn ends' : 'not judged (the episode ended first)'}</span>}
        {verdict && props.imaginedMode && (real
          ? <span className="muted"> · judged on the imagined results, as in training; on the real environment's answers: <b data-testid="real-turn-score">{fmt(real.score, 3)}</b></span>
          : <span className="muted"> · judged on the imagined results, as in training</span>)}
      </div>
      <ul>
        {shown.map((it) => {
          const judged = it.passed !== undefined ? it : null;
          const spec = byId.get(it.id);
          const mark = judged ? (judged.passed ? '✓' : '✗') : '○';
          const r = real?.items.find((x) => x.id === it.id);
          // A tick that the real environment would not have given rests on an imagined result.
          const imaginedOnly = !!(judged && r && judged.passed && !r.passed);
          return (
            <li key={it.id} className={judged ? (judged.passed ? 'pass' : 'fail') : 'pending'} data-testid="checklist-item"
              data-imagined={imaginedOnly ? 'true' : undefined} title={judged ? judged.reason : 'not judged yet'}>
              <details>
                <summary>
                  <span className="mark">{mark}</span> <span data-testid="checklist-question">{spec?.question ?? it.id}</span>
                  {spec?.required && <span className="badge bad" data-testid="checklist-required" title="required_for_next_turn: failing it ends the episode">required</span>}
                  <span className="muted"> w {fmt(it.weight, 2)}</span>
                  {judged && props.imaginedMode && <span className="badge imagined" title="the judge read the rehearsed (imagined) results of this turn">imagined</span>}
                  {r && <span className={`real-verdict ${r.passed ? 'pass' : 'fail'}`} data-testid="real-verdict" title={r.reason}>real env: {r.passed ? '✓' : '✗'}{imaginedOnly ? ' (ticked only on imagination)' : ''}</span>}
                </summary>
                <div className="reason">{judged ? judged.reason : 'not judged yet'}</div>
                {r && <div className="reason">on the real results: {r.reason}</div>}
                {!spec && <div className="reason muted">question unknown: the task is not a built-in one (id {it.id})</div>}
              </details>
            </li>
          );
        })}
      </ul>
    </div>
  );
}
