// The deterministic parts of VitaBench's judge (TrajectoryEvaluator, evaluation type "trajectory"):
// short-circuits, the rubric list, the sliding windows, the system and user prompts byte for byte,
// the parsing of a judge's reply, and the aggregation (reward, fraction met, success, pass^k).
// The per-window verdicts need an LLM judge; callers pass one in (or a recorded reply).

import { jsonString, parsePyJson, PyFloat, pyRepr } from '../python';
import type { VitaTask } from './data';
import { weekdayName } from './pytime';

export const WINDOW_SIZE = 10;
export const WINDOW_OVERLAP = 2;

export interface VitaToolCallRecord { id: string; name: string; arguments: unknown }

export type VitaMessage =
  | { role: 'assistant'; content: string | null; tool_calls?: VitaToolCallRecord[] | null }
  | { role: 'user'; content: string | null }
  | { role: 'tool'; id: string; name?: string; content: string; error?: boolean };

export interface RubricState { rubric: string; justification: unknown; meetExpectation: unknown }

/** _initialize_rubric_states: state rubrics of each expected state, then overall rubrics, exact duplicates skipped. */
export function initialRubricStates(task: VitaTask): Map<string, RubricState> {
  const out = new Map<string, RubricState>();
  const seen = new Set<string>();
  const add = (r: string) => {
    if (seen.has(r)) return;
    seen.add(r);
    out.set(`rubric_${out.size}`, { rubric: r, justification: 'Not evaluated yet', meetExpectation: false });
  };
  for (const s of task.evaluation_criteria?.expected_states ?? []) for (const r of s.state_rubrics ?? []) add(r);
  for (const r of task.evaluation_criteria?.overall_rubrics ?? []) add(r);
  return out;
}

/** _create_sliding_windows: the whole trajectory if short, else windows of 10 every 8 until one reaches the end. */
export function slidingWindows<T>(messages: T[], size = WINDOW_SIZE, overlap = WINDOW_OVERLAP): { start: number; messages: T[] }[] {
  if (messages.length <= size) return [{ start: 0, messages }];
  const out: { start: number; messages: T[] }[] = [];
  for (let i = 0; i < messages.length; i += size - overlap) {
    const w = messages.slice(i, i + size);
    if (w.length) out.push({ start: i, messages: w });
    if (i + size >= messages.length) break;
  }
  return out;
}

/** Python repr of a JSON-decoded argument value (floats keep their fraction via PyFloat). */
const argRepr = (v: unknown) => pyRepr(v);

/** _format_window_content: "[global index] role: content", tool calls as name(k=repr(v), …) joined by ".". */
export function formatWindowContent(window: VitaMessage[], start: number): string {
  const lines: string[] = [];
  window.forEach((m, i) => {
    let full: string | null = m.content ?? null;
    if (m.role === 'assistant' && m.tool_calls && m.tool_calls.length) {
      const calls = m.tool_calls.map((tc) => {
        const a = tc.arguments;
        const isDict = a instanceof Map || (typeof a === 'object' && a !== null && !Array.isArray(a) && !(a instanceof PyFloat));
        const args = isDict
          ? (a instanceof Map ? [...a.entries()] : Object.entries(a as Record<string, unknown>)).map(([k, v]) => `${String(k)}=${argRepr(v)}`).join(', ')
          : pyRepr(a);
        return `${tc.name}(${args})`;
      }).join('.');
      full = full ? `${full} ${calls}` : calls;
    }
    if (full) lines.push(`[${start + i + 1}] ${m.role}: ${full}`);
  });
  return lines.join('\n');
}

// ---------- json.dumps(..., ensure_ascii=False, indent=2) ----------

/** A JSON string as Python writes it with ensure_ascii=False. */
const jsonStr = (s: string): string => jsonString(s, false);

/** json.dumps(v, ensure_ascii=False, indent=2) for JSON-decoded values. */
export function jsonDumpsIndent(v: unknown, indent = 2, level = 0): string {
  const pad = (n: number) => ' '.repeat(indent * n);
  if (v === null || v === undefined) return 'null';
  if (v === true) return 'true';
  if (v === false) return 'false';
  if (typeof v === 'string') return jsonStr(v);
  if (v instanceof PyFloat || typeof v === 'number') return pyRepr(v instanceof PyFloat ? v : v).replace(/^inf$/, 'Infinity').replace(/^-inf$/, '-Infinity').replace(/^nan$/, 'NaN');
  if (Array.isArray(v)) {
    if (!v.length) return '[]';
    return `[\n${v.map((x) => pad(level + 1) + jsonDumpsIndent(x, indent, level + 1)).join(',\n')}\n${pad(level)}]`;
  }
  const entries = v instanceof Map ? [...v.entries()].map(([k, x]) => [String(k), x] as const) : Object.entries(v as Record<string, unknown>);
  if (!entries.length) return '{}';
  return `{\n${entries.map(([k, x]) => `${pad(level + 1)}${jsonStr(k)}: ${jsonDumpsIndent(x, indent, level + 1)}`).join(',\n')}\n${pad(level)}}`;
}

export function formatCurrentRubrics(states: Map<string, RubricState>): string {
  return jsonDumpsIndent([...states.entries()].map(([k, s]) => new Map<string, unknown>([
    ['rubric_idx', k], ['rubric', s.rubric], ['justification', s.justification], ['meetExpectation', s.meetExpectation],
  ])));
}

/** str.format with named fields ({{ and }} are literal braces). */
export function pyFormat(template: string, fields: Record<string, string>): string {
  return template.replace(/\{\{|\}\}|\{([^{}]*)\}/g, (m, name: string | undefined) => {
    if (m === '{{') return '{';
    if (m === '}}') return '}';
    if (name === undefined || !(name in fields)) throw new Error(`prompt template: unknown field {${name}}`);
    return fields[name];
  });
}

/** env_info as the reference renders it: str({'system_time': '<time> <Weekday>', 'database': []}). */
export function envInfo(task: VitaTask): string {
  const t = (task.environment instanceof Map ? task.environment.get('time') : (task.environment as Record<string, unknown>)?.time) ?? '';
  const systemTime = typeof t === 'string' && t ? `${t} ${weekdayName(t)}` : '';
  return pyRepr(new Map<string, unknown>([['system_time', systemTime], ['database', []]]));
}

export function judgeSystemPrompt(template: string, task: VitaTask, windowIdx: number, totalWindows: number): string {
  return pyFormat(template, { env_info: envInfo(task), user_instruction: task.instructions, window_idx: String(windowIdx), total_windows: String(totalWindows) });
}

export function judgeUserPrompt(windowContent: string, currentRubrics: string): string {
  return `\n# Input\n<window_content>\n${windowContent}\n</window_content>\n\n<current_rubrics>\n${currentRubrics}\n</current_rubrics>\n`;
}

// ---------- the judge's reply ----------

/**
 * evaluator_extracter(content) = json.loads(json_repair.repair_json(content)), for the replies a judge
 * gives in practice: strict JSON, JSON inside a ```json fence, or JSON after some prose (the first
 * '[' or '{' to its matching bracket). Anything else parses to nothing, which the reference treats as
 * "keep the current states". json_repair's repair of broken JSON (missing quotes, trailing commas, …)
 * is not reproduced beyond trailing commas.
 */
export function parseJudgeReply(content: string | null): unknown {
  if (!content) return null;
  const fence = /```(?:json)?\s*\n?([\s\S]*?)```/.exec(content);
  const candidates = [content.trim(), ...(fence ? [fence[1].trim()] : [])];
  const start = content.search(/[[{]/);
  if (start >= 0) candidates.push(balanced(content, start));
  for (const c of candidates) {
    for (const text of [c, c.replace(/,\s*([\]}])/g, '$1')]) {
      try {
        return parsePyJson(text);
      } catch { /* next candidate */ }
    }
  }
  return null;
}

function balanced(s: string, start: number): string {
  let depth = 0, inStr = false;
  for (let i = start; i < s.length; i++) {
    const c = s[i];
    if (inStr) {
      if (c === '\\') i++;
      else if (c === '"') inStr = false;
    } else if (c === '"') inStr = true;
    else if (c === '[' || c === '{') depth++;
    else if (c === ']' || c === '}') {
      depth--;
      if (depth === 0) return s.slice(start, i + 1);
    }
  }
  return s.slice(start);
}

/** One window's update: each element with a known rubric_idx overwrites that rubric's state. */
export function applyJudgeReply(states: Map<string, RubricState>, reply: unknown): { states: Map<string, RubricState>; parsed: boolean } {
  const next = new Map([...states].map(([k, s]) => [k, { ...s }]));
  const items = Array.isArray(reply) ? reply : reply && typeof reply === 'object' && !(reply instanceof PyFloat) ? [reply] : null;
  if (!items || !items.length) return { states: next, parsed: false };
  for (const r of items) {
    if (!r || typeof r !== 'object' || Array.isArray(r) || r instanceof PyFloat) continue;
    const field = (k: string): [boolean, unknown] => (r instanceof Map ? [r.has(k), r.get(k)] : [Object.prototype.hasOwnProperty.call(r, k), (r as Record<string, unknown>)[k]]);
    const [, idx] = field('rubric_idx');
    if (typeof idx !== 'string' || !idx || !next.has(idx)) continue;
    const s = next.get(idx)!;
    const [hasJ, j] = field('justification');
    const [hasM, m] = field('meetExpectation');
    s.justification = hasJ ? j : 'No justification provided';
    if (hasM) s.meetExpectation = m;
  }
  return { states: next, parsed: true };
}

/** pydantic's lax bool for NLRubricCheck.met. */
function metOf(v: unknown): boolean {
  if (typeof v === 'boolean') return v;
  if (v === 0 || v === 1) return v === 1;
  if (typeof v === 'string') return ['1', 'on', 't', 'true', 'y', 'yes'].includes(v.toLowerCase());
  return false;
}

export type TerminationReason = 'user_stop' | 'agent_stop' | 'max_steps' | 'too_many_errors' | 'invalid_agent_message';

export interface VitaRewardInfo {
  reward: number;
  nl_rubrics: { nl_rubric: string; met: boolean; justification: unknown }[] | null;
  reward_breakdown: { NL_ASSERTION: number } | null;
  info: Record<string, unknown>;
}

export interface JudgeWindow { window_idx: number; start_idx: number; system_prompt: string; user_prompt: string }

/** A judge: given one window's prompts, its reply text (or null when it gave none). */
export type VitaJudge = (w: JudgeWindow) => Promise<string | null> | string | null;

/** evaluate_simulation + TrajectoryEvaluator.calculate_reward. */
export async function evaluateTrajectory(
  task: VitaTask, messages: VitaMessage[], judgeTemplate: string, judge: VitaJudge, termination: TerminationReason = 'user_stop',
  onWindow?: (w: JudgeWindow, reply: string | null, parsed: boolean) => void,
): Promise<VitaRewardInfo> {
  if (termination === 'too_many_errors' || termination === 'max_steps' || termination === 'invalid_agent_message') {
    return { reward: 0, nl_rubrics: null, reward_breakdown: null, info: { note: `Simulation terminated prematurely. Termination reason: ${termination}` } };
  }
  const ec = task.evaluation_criteria;
  if (!ec) return { reward: 1, nl_rubrics: null, reward_breakdown: null, info: { note: 'No evaluation criteria' } };
  if (!ec.expected_states?.length && !ec.overall_rubrics?.length) {
    return { reward: 1, nl_rubrics: [], reward_breakdown: { NL_ASSERTION: 1 }, info: { note: 'No rubric to evaluate' } };
  }
  let states = initialRubricStates(task);
  const windows = slidingWindows(messages);
  for (const [i, w] of windows.entries()) {
    const jw: JudgeWindow = {
      window_idx: i + 1, start_idx: w.start,
      system_prompt: judgeSystemPrompt(judgeTemplate, task, i + 1, windows.length),
      user_prompt: judgeUserPrompt(formatWindowContent(w.messages, w.start), formatCurrentRubrics(states)),
    };
    const reply = await judge(jw);
    const applied = applyJudgeReply(states, parseJudgeReply(reply));
    states = applied.states;
    onWindow?.(jw, reply, applied.parsed);
  }
  const checks = [...states.values()].map((s) => ({ nl_rubric: s.rubric, met: metOf(s.meetExpectation), justification: s.justification }));
  const all = checks.length > 0 && checks.every((c) => c.met);
  const fraction = checks.filter((c) => c.met).length / checks.length;
  return {
    reward: all ? 1 : 0, nl_rubrics: checks, reward_breakdown: { NL_ASSERTION: fraction },
    info: { evaluation_method: 'sliding_window', num_windows: windows.length, window_size: WINDOW_SIZE },
  };
}

/** metrics.is_successful */
export const isSuccessful = (reward: number) => reward === 1;

function comb(n: number, k: number): number {
  if (k < 0 || k > n) return 0;
  let r = 1;
  for (let i = 1; i <= k; i++) r = (r * (n - k + i)) / i;
  return Math.round(r);
}

/** pass^k for one task: C(c, k) / C(n, k); requires n >= k. */
export function passHatK(numTrials: number, successCount: number, k: number): number {
  if (numTrials < k) throw new Error(`Number of trials ${numTrials} is less than k ${k}.`);
  return comb(successCount, k) / comb(numTrials, k);
}
