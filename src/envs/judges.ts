// Rule-based checklist judge (ENVACE.md §2) and outcome verifier helpers.
//
// The reference EnvACE judge is an LLM reading the rubric; our worlds annotate every rubric item with a
// machine-checkable pass condition, so the same protocol runs exactly and reproducibly:
//   - at the end of each user turn every item of that turn is judged; an item passes if ANY assistant step
//     of the turn satisfies it ('not_called' is the exception: it is a property of the whole turn);
//   - turn score = sum of the weights of passed items (weights sum to 1 per turn);
//   - a failed item marked required_for_next_turn ends the episode (later turns score 0);
//   - episode score = sum of turn scores / number of annotated user turns, in [0, 1].
// Every verdict carries a reason string so a failed rollout can be read without re-running it.

import type {
  ChecklistItem, Environment, ItemVerdict, Message, Observation, PassCondition, Task, ToolCall, TurnVerdict, Verdict,
} from './types';

/**
 * One assistant step inside a user turn: a tool call with the observation the agent received for it, or a
 * reply to the user. In rehearsal mode `result` is whatever the rollout fed back (imagined or real); pass
 * the real observation from the shadow env to judge result_contains items strictly.
 */
export interface AssistantStep { call?: ToolCall; result?: Observation; reply?: string }

/** Domain errors come in several shapes: our protocol's error_tool_call, BFCL's {"error": …}, τ²'s "Error: …". */
export function isErrorObservation(obs: Observation | undefined): boolean {
  if (!obs) return false;
  if (obs.error) return true;
  const t = obs.text.trimStart();
  if (/^error\b/i.test(t)) return true;
  if (t.startsWith('{')) {
    try {
      const v = JSON.parse(t) as unknown;
      if (v && typeof v === 'object' && !Array.isArray(v) && ('error' in v || 'error_tool_call' in v)) return true;
    } catch { /* not JSON: not an error by shape */ }
  }
  return false;
}

// ---------------------------------------------------------------------------------------------------------
// Argument matching

function isPrimitive(v: unknown): boolean { return v === null || ['string', 'number', 'boolean'].includes(typeof v); }

/**
 * Expected value vs actual argument. Strings compare exactly (ids such as '#W0012' vs 'W0012' must differ:
 * that difference is what the tool checks too). Lists of primitives compare as multisets because the tools
 * themselves treat them so (τ² sorts item_ids). Objects are compared key by key, exactly.
 */
export function valueMatches(expected: unknown, actual: unknown): boolean {
  if (isPrimitive(expected)) {
    if (typeof expected === 'number' && typeof actual === 'number') return Math.abs(expected - actual) < 1e-9;
    return expected === actual;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length !== expected.length) return false;
    if (expected.every(isPrimitive)) {
      const key = (x: unknown) => JSON.stringify(x);
      const a = expected.map(key).sort();
      const b = actual.map(key).sort();
      return a.every((x, i) => x === b[i]);
    }
    return expected.every((x, i) => valueMatches(x, actual[i]));
  }
  if (typeof expected === 'object' && expected !== null) {
    if (typeof actual !== 'object' || actual === null || Array.isArray(actual)) return false;
    const e = expected as Record<string, unknown>;
    const a = actual as Record<string, unknown>;
    const ek = Object.keys(e); const ak = Object.keys(a);
    return ek.length === ak.length && ek.every((k) => Object.hasOwn(a, k) && valueMatches(e[k], a[k]));
  }
  return false;
}

/** First expected key whose value the call does not match, or null when all (sub)args match. */
export function argMismatch(expected: Record<string, unknown> | undefined, actual: Record<string, unknown> | undefined): string | null {
  if (!expected) return null;
  // Rollouts may hand us whatever the policy emitted: non-object arguments simply match nothing.
  const a = (actual && typeof actual === 'object' && !Array.isArray(actual) ? actual : {}) as Record<string, unknown>;
  for (const [k, v] of Object.entries(expected)) {
    if (!Object.hasOwn(a, k)) return `${k} missing (expected ${JSON.stringify(v)})`;
    if (!valueMatches(v, a[k])) return `${k}=${JSON.stringify(a[k])} (expected ${JSON.stringify(v)})`;
  }
  return null;
}

function callMatches(c: { tool: string; args?: Record<string, unknown> }, step: AssistantStep): boolean {
  return !!step.call && step.call.name === c.tool && argMismatch(c.args, step.call.arguments) === null;
}

function norm(s: string): string { return s.toLowerCase().replace(/\s+/g, ' '); }

function describeCall(c: ToolCall): string {
  const s = JSON.stringify(c.arguments ?? {});
  return `${c.name}(${s.length > 80 ? s.slice(0, 77) + '...' : s})`;
}

// ---------------------------------------------------------------------------------------------------------
// Items and turns

export interface ConditionResult { passed: boolean; reason: string }

/** Evaluate one pass condition over all steps of a turn. */
export function evaluateCondition(cond: PassCondition, steps: AssistantStep[]): ConditionResult {
  switch (cond.kind) {
    case 'called': {
      const sameTool = steps.map((s, i) => ({ s, i })).filter(({ s }) => s.call?.name === cond.tool);
      for (const { s, i } of sameTool) {
        if (!callMatches(cond, s)) continue;
        if (cond.ok && isErrorObservation(s.result)) continue;
        return { passed: true, reason: `step ${i} called ${describeCall(s.call!)}` };
      }
      if (sameTool.length === 0) {
        const tools = [...new Set(steps.flatMap((s) => (s.call ? [s.call.name] : [])))];
        return { passed: false, reason: `no call to ${cond.tool} (calls: ${tools.length ? tools.join(', ') : 'none'})` };
      }
      const why = sameTool.map(({ s, i }) => {
        const mm = argMismatch(cond.args, s.call!.arguments);
        return mm ? `step ${i}: ${mm}` : `step ${i}: result was an error`;
      });
      return { passed: false, reason: `${cond.tool} called but not as required: ${why.join('; ')}` };
    }
    case 'not_called': {
      const hits = steps.map((s, i) => ({ s, i })).filter(({ s }) => callMatches(cond, s));
      if (hits.length === 0) return { passed: true, reason: `${cond.tool}${cond.args ? ' with ' + JSON.stringify(cond.args) : ''} not called` };
      return { passed: false, reason: `forbidden call at step ${hits[0].i}: ${describeCall(hits[0].s.call!)}` };
    }
    case 'reply_contains': {
      const want = cond.text.map(norm);
      const replies = steps.map((s, i) => ({ s, i })).filter(({ s }) => typeof s.reply === 'string');
      for (const { s, i } of replies) {
        const r = norm(s.reply!);
        if (want.every((w) => r.includes(w))) return { passed: true, reason: `reply at step ${i} mentions ${JSON.stringify(cond.text)}` };
      }
      if (replies.length === 0) return { passed: false, reason: 'no reply to the user in this turn' };
      const last = norm(replies[replies.length - 1].s.reply!);
      const missing = cond.text.filter((w) => !last.includes(norm(w)));
      return { passed: false, reason: `no reply mentions all of ${JSON.stringify(cond.text)} (last reply misses ${JSON.stringify(missing)})` };
    }
    case 'result_contains': {
      const calls = steps.map((s, i) => ({ s, i })).filter(({ s }) => s.call?.name === cond.tool);
      for (const { s, i } of calls) {
        if (s.result && s.result.text.includes(cond.text)) return { passed: true, reason: `result of step ${i} contains ${JSON.stringify(cond.text)}` };
      }
      return { passed: false, reason: calls.length === 0 ? `no call to ${cond.tool}` : `no ${cond.tool} result contains ${JSON.stringify(cond.text)}` };
    }
    default: {
      const k = (cond as { kind: string }).kind;
      return { passed: false, reason: `unknown pass condition kind '${k}'` };
    }
  }
}

/** Round away float noise so that an all-pass turn scores exactly 1. */
function clean(x: number): number {
  const snapped = Math.abs(x - Math.round(x)) < 1e-9 ? Math.round(x) : x;
  return Math.min(1, Math.max(0, snapped));
}

export function judgeItems(items: ChecklistItem[], turn: number, steps: AssistantStep[]): TurnVerdict {
  const verdicts: ItemVerdict[] = items.map((it) => {
    const r = evaluateCondition(it.pass_condition, steps);
    return { id: it.id, passed: r.passed, weight: it.weight, reason: `${r.passed ? 'PASS' : 'FAIL'} ${it.id}: ${r.reason}` };
  });
  const score = clean(verdicts.reduce((a, v) => a + (v.passed ? v.weight : 0), 0));
  const terminated = items.some((it, i) => it.required_for_next_turn && !verdicts[i].passed);
  return { turn, score, items: verdicts, terminated };
}

/** Judge one user turn of a task. */
export function judgeTurn(task: Pick<Task, 'checklist'>, turnIndex: number, steps: AssistantStep[]): TurnVerdict {
  const items = task.checklist[turnIndex];
  if (!items) return { turn: turnIndex, score: 0, items: [], terminated: true };
  return judgeItems(items, turnIndex, steps);
}

/**
 * Judge a whole episode. turnSteps[t] holds the assistant steps of user turn t (missing turns were never
 * reached and score 0). A failed required item stops judging. With finalEnv the outcome verifier runs too;
 * it is reported next to the checklist score, not folded into it (the EnvACE reward is the checklist).
 */
export function judgeEpisode(task: Pick<Task, 'checklist'> & Partial<Pick<Task, 'verify'>>, turnSteps: AssistantStep[][],
  finalEnv?: Environment): Verdict {
  const n = task.checklist.length;
  const turns: TurnVerdict[] = [];
  let terminatedEarly = false;
  for (let t = 0; t < n; t++) {
    if (terminatedEarly || t >= turnSteps.length) {
      const why = terminatedEarly ? 'episode ended by a failed required item' : 'turn not reached';
      turns.push({ turn: t, score: 0, terminated: false,
        items: task.checklist[t].map((it) => ({ id: it.id, passed: false, weight: it.weight, reason: `FAIL ${it.id}: ${why}` })) });
      continue;
    }
    const v = judgeTurn(task, t, turnSteps[t]);
    turns.push(v);
    if (v.terminated && t < n - 1) terminatedEarly = true;
  }
  const score = n === 0 ? 0 : clean(turns.reduce((a, v) => a + v.score, 0) / n);
  const verdict: Verdict = { score, turns, terminatedEarly };
  if (finalEnv && task.verify) verdict.outcome = task.verify(finalEnv);
  return verdict;
}

/**
 * Split a transcript into per-user-turn assistant steps. Each user message opens a turn; an assistant
 * message with tool calls contributes one step per call (paired in order with the following tool
 * messages); an assistant message without calls is a reply. Messages before the first user message
 * (system prompt) are ignored.
 */
export function stepsFromMessages(messages: Message[]): AssistantStep[][] {
  const turns: AssistantStep[][] = [];
  let cur: AssistantStep[] | null = null;
  let pending: AssistantStep[] = [];   // call steps still waiting for their tool message
  for (const m of messages) {
    if (m.role === 'user') { cur = []; turns.push(cur); pending = []; continue; }
    if (!cur) continue;
    if (m.role === 'assistant') {
      if (m.toolCalls && m.toolCalls.length > 0) {
        pending = m.toolCalls.map((c) => ({ call: c }));
        cur.push(...pending);
      } else {
        cur.push({ reply: m.content });
        pending = [];
      }
    } else if (m.role === 'tool') {
      const idx = pending.findIndex((s) => !s.result && s.call!.name === m.name);
      const step = idx >= 0 ? pending[idx] : pending.find((s) => !s.result);
      if (step) step.result = { text: m.content, error: !!m.error };
    }
  }
  return turns;
}

/** Judge a transcript (Message[] with the user turns in it) directly. */
export function judgeTranscript(task: Pick<Task, 'checklist'> & Partial<Pick<Task, 'verify'>>, messages: Message[],
  finalEnv?: Environment): Verdict {
  return judgeEpisode(task, stepsFromMessages(messages), finalEnv);
}

/** One-line human summary of a verdict (CLI, logs). */
export function explainVerdict(v: Verdict): string {
  const lines = [`score ${v.score.toFixed(3)}${v.terminatedEarly ? ' (terminated early)' : ''}`];
  for (const t of v.turns) {
    lines.push(`  turn ${t.turn}: ${t.score.toFixed(3)}${t.terminated ? ' [required item failed]' : ''}`);
    for (const it of t.items) lines.push(`    [w=${it.weight.toFixed(2)}] ${it.reason}`);
  }
  if (v.outcome) lines.push(`  outcome: ${v.outcome.passed ? 'PASS' : 'FAIL'} ${v.outcome.reason}`);
  return lines.join('\n');
}
