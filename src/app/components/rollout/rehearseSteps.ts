// Step through a rehearse-first run (RehearseFirst.tsx): the run, as it happened, flattened into one list of
// events in the order the worker produced them. For each user turn: every imagined attempt's generations one
// by one (an Act output, then the Rehearse role's imagined result of each call), that attempt's
// self-evaluation, the next attempt …, the memory built from them, then the committed run's generations of
// that turn in the real environment. A cursor c shows events 0 … c−1 (the last one is the current event) and
// hides everything after; the run is computed in full once, stepping only reveals it.

import type { Message } from '../../../envs/types';
import type { Row } from '../../../agent/types';
import type { Attempt } from '../../../tts/rehearse';
import type { RehearseFirstRun, ShownTrajectory } from '../../../worker/protocol';

export type RehearseEvent =
  /** Generation `row` (index into attemptRows) of an imagined attempt: an Act output or an imagined result. */
  | { kind: 'attempt-gen'; turn: number; attempt: number; row: number }
  | { kind: 'self-eval'; turn: number; attempt: number }
  | { kind: 'memory'; turn: number }
  /** Generation `row` (index into trajectory.rows) of the committed run. */
  | { kind: 'commit-gen'; turn: number; row: number };

/** An attempt's generations at its user turn, in order (an attempt rollout covers that one turn). */
export function attemptRows(a: Attempt): Row[] {
  return a.trajectory.rows.filter((r) => r.turn === a.userTurn);
}

/** The whole run as events, in the order they happened (see the file comment). */
export function rehearseEvents(run: RehearseFirstRun): RehearseEvent[] {
  const rows = run.trajectory.rows;
  const turns = [...new Set([...run.rehearsals.map((h) => h.userTurn), ...rows.map((r) => r.turn)])].sort((a, b) => a - b);
  const out: RehearseEvent[] = [];
  for (const turn of turns) {
    const h = run.rehearsals.find((x) => x.userTurn === turn);
    if (h) {
      for (const a of h.attempts) {
        attemptRows(a).forEach((_, row) => out.push({ kind: 'attempt-gen', turn, attempt: a.index, row }));
        out.push({ kind: 'self-eval', turn, attempt: a.index });
      }
      out.push({ kind: 'memory', turn });
    }
    rows.forEach((r, row) => { if (r.turn === turn) out.push({ kind: 'commit-gen', turn, row }); });
  }
  return out;
}

/** What the first `shown` events reveal (everything when shown ≥ events.length). */
export interface Revealed {
  /** User turns any shown event belongs to. */
  turns: Set<number>;
  /** `${turn}/${attempt}` → generations shown (an attempt appears once one of its events is shown). */
  attemptRows: Map<string, number>;
  /** `${turn}/${attempt}` of attempts whose self-evaluation is shown. */
  evals: Set<string>;
  memories: Set<number>;
  /** A prefix of the committed trajectory's rows (its events come in row order). */
  commitRows: number;
  current: RehearseEvent | null;
  /** Every event is shown. */
  complete: boolean;
}

export const attemptKey = (turn: number, attempt: number) => `${turn}/${attempt}`;

export function reveal(events: RehearseEvent[], shown: number): Revealed {
  const n = Math.max(0, Math.min(shown, events.length));
  const r: Revealed = { turns: new Set(), attemptRows: new Map(), evals: new Set(), memories: new Set(), commitRows: 0, current: n > 0 ? events[n - 1]! : null, complete: n === events.length };
  for (const e of events.slice(0, n)) {
    r.turns.add(e.turn);
    if (e.kind === 'attempt-gen') r.attemptRows.set(attemptKey(e.turn, e.attempt), e.row + 1);
    else if (e.kind === 'self-eval') {
      const k = attemptKey(e.turn, e.attempt);
      if (!r.attemptRows.has(k)) r.attemptRows.set(k, 0);
      r.evals.add(k);
    } else if (e.kind === 'memory') r.memories.add(e.turn);
    else r.commitRows = e.row + 1;
  }
  return r;
}

/**
 * The committed trajectory as far as the shown events go: its first `rows` generations, and the messages up
 * to the last shown Act output's results, plus the user messages of turns up to `throughTurn` (a turn's
 * request is on screen once its rehearsal starts). Verdict and reward stay on it; the view hides them while
 * the trajectory is in progress.
 */
export function cutTrajectory(t: ShownTrajectory, rows: number, throughTurn: number): ShownTrajectory {
  const kept = t.rows.slice(0, rows);
  const acts = kept.filter((r) => r.role === 'act').length;
  const messages: Message[] = [];
  let assistants = 0, users = 0;
  for (const m of t.messages) {
    if (m.role === 'assistant') { if (assistants >= acts) break; assistants++; }
    if (m.role === 'user') { if (users > throughTurn) break; users++; }
    messages.push(m);
  }
  return { ...t, rows: kept, messages };
}

/** One line naming an event, e.g. "turn 1 · attempt 2 · generation 3: imagined result of cd". */
export function eventLabel(run: RehearseFirstRun, e: RehearseEvent): string {
  const turn = `turn ${e.turn + 1}`;
  if (e.kind === 'memory') return `${turn} · the memory the committed run is shown`;
  if (e.kind === 'commit-gen') {
    const r = run.trajectory.rows[e.row]!;
    return `${turn} · committed run (real environment) · generation ${e.row + 1}: ${actText(r)}`;
  }
  const a = run.rehearsals.find((h) => h.userTurn === e.turn)?.attempts.find((x) => x.index === e.attempt);
  const head = `${turn} · imagined attempt ${e.attempt + 1}`;
  if (e.kind === 'self-eval') return `${head} · self-evaluation (${a?.assessment.by === 'policy' ? 'written by the policy' : 'rule-based'})`;
  const r = a ? attemptRows(a)[e.row] : undefined;
  return `${head} · generation ${e.row + 1}: ${r ? (r.role === 'act' ? actText(r) : `imagined result of ${r.call?.name ?? 'a call'}`) : '?'}`;
}

function actText(r: Row): string {
  if (r.role !== 'act') return `result of ${r.call?.name ?? 'a call'}`;
  if (r.error) return `unparsable output (${r.error.code})`;
  const calls = r.calls ?? (r.call ? [r.call] : []);
  return calls.length ? `call ${calls.map((c) => c.name).join(', ')}` : 'reply';
}
