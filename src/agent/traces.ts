// Trajectory traces as JSONL (schema in TRACES.md), and an importer for the EnvACE reference code's
// per-step rollout dumps. Import never throws: bad lines are reported with their line number and skipped.

import type { Message, ToolCall } from '../envs/types';
import { parseAct, parseRehearse, resultError, stripThink, errorText, REHEARSE_ERROR_CODES } from './protocol';
import { REHEARSE_MARKER } from './prompts';
import type { Role, Row, Termination, Trajectory } from './types';

export const TRACE_VERSION = 1;

export interface TraceError { line: number; path: string; message: string }

export interface ExportOptions {
  /** Keep row prompt texts (large). Default true. */
  prompts?: boolean;
  /** Keep token ids and logprobs. Default true. */
  tokens?: boolean;
}

/** Non-finite logprobs (−∞ for impossible tokens) have no JSON form; they travel as null. */
function encodeRow(r: Row, opts: ExportOptions): Record<string, unknown> {
  const o: Record<string, unknown> = { ...r };
  if (opts.prompts === false) delete o.prompt;
  if (opts.tokens === false) { o.promptIds = []; o.outputIds = []; o.logprobs = []; }
  else o.logprobs = r.logprobs.map((x) => (Number.isFinite(x) ? x : null));
  return o;
}

export function traceLine(t: Trajectory, opts: ExportOptions = {}): string {
  return JSON.stringify({ v: TRACE_VERSION, ...t, rows: t.rows.map((r) => encodeRow(r, opts)) });
}

export function exportTraces(ts: Trajectory[], opts: ExportOptions = {}): string {
  return ts.map((t) => traceLine(t, opts)).join('\n') + (ts.length ? '\n' : '');
}

// ---------------------------------------------------------------------------------------------------------
// Validation: a hand-written checker so errors name the exact field.

const MODES = ['real', 'simulator', 'rehearsal'];
const TERMINATIONS: Termination[] = ['final_turn', 'required_item_failed', 'parse_error', 'tool_error', 'turn_cap', 'length', 'generation_cap'];
const ROLES: Role[] = ['act', 'rehearse'];

type V = (v: unknown, path: string, errs: string[][]) => void;
const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const bad = (errs: string[][], path: string, msg: string) => { errs.push([path, msg]); };
const str: V = (v, p, e) => { if (typeof v !== 'string') bad(e, p, 'expected string'); };
const num: V = (v, p, e) => { if (typeof v !== 'number' || !Number.isFinite(v)) bad(e, p, 'expected finite number'); };
const bool: V = (v, p, e) => { if (typeof v !== 'boolean') bad(e, p, 'expected boolean'); };
const oneOf = (xs: readonly string[]): V => (v, p, e) => { if (typeof v !== 'string' || !xs.includes(v)) bad(e, p, `expected one of ${xs.join('|')}`); };
const ints: V = (v, p, e) => {
  if (!Array.isArray(v)) return bad(e, p, 'expected array of integers');
  const i = v.findIndex((x) => typeof x !== 'number' || !Number.isInteger(x));
  if (i >= 0) bad(e, `${p}[${i}]`, 'expected integer');
};
const logprobs: V = (v, p, e) => {
  if (!Array.isArray(v)) return bad(e, p, 'expected array of numbers');
  const i = v.findIndex((x) => x !== null && (typeof x !== 'number' || Number.isNaN(x)));
  if (i >= 0) bad(e, `${p}[${i}]`, 'expected number or null');
};
function fields(o: Record<string, unknown>, p: string, e: string[][], req: Record<string, V>, opt: Record<string, V> = {}): void {
  for (const [k, f] of Object.entries(req)) { if (!(k in o)) bad(e, `${p}.${k}`, 'missing'); else f(o[k], `${p}.${k}`, e); }
  for (const [k, f] of Object.entries(opt)) if (o[k] !== undefined) f(o[k], `${p}.${k}`, e);
}
const obj = (req: Record<string, V>, opt: Record<string, V> = {}): V => (v, p, e) => {
  if (!isObj(v)) return bad(e, p, 'expected object');
  fields(v, p, e, req, opt);
};
const arr = (f: V): V => (v, p, e) => { if (!Array.isArray(v)) return bad(e, p, 'expected array'); v.forEach((x, i) => f(x, `${p}[${i}]`, e)); };
const toolCall: V = obj({ name: str, arguments: (v, p, e) => { if (!isObj(v)) bad(e, p, 'expected object'); } });
const observation: V = obj({ text: str, error: bool });
const fidelity: V = obj({ exact: bool, fieldF1: num, errorAgree: bool });
const errShape: V = obj({ code: str, message: str });
const message: V = (v, p, e) => {
  if (!isObj(v)) return bad(e, p, 'expected object');
  const role = v.role;
  if (role === 'system' || role === 'user') fields(v, p, e, { content: str });
  else if (role === 'assistant') fields(v, p, e, { content: str }, { toolCalls: arr(toolCall) });
  else if (role === 'tool') fields(v, p, e, { name: str, content: str }, { error: bool });
  else bad(e, `${p}.role`, 'expected system|user|assistant|tool');
};
const row: V = obj(
  { role: oneOf(ROLES), turn: num, step: num, promptIds: ints, outputIds: ints, logprobs, text: str },
  { call: toolCall, calls: arr(toolCall), imagined: str, real: observation, fidelity, error: errShape, prompt: str,
    finishReason: oneOf(['stop', 'eos', 'length']), parent: num, callIndex: num, frozen: bool },
);
const turnVerdict: V = obj({ turn: num, score: num, terminated: bool, items: arr(obj({ id: str, passed: bool, weight: num, reason: str })) });
const verdict: V = obj({ score: num, turns: arr(turnVerdict), terminatedEarly: bool }, { outcome: obj({ passed: bool, reason: str }) });
const trajectory: V = obj(
  { taskId: str, groupId: str, mode: oneOf(MODES), seed: num, messages: arr(message), rows: arr(row), terminatedBy: oneOf(TERMINATIONS) },
  { verdict, reward: num, error: errShape, v: num },
);

/** Field-level problems of one decoded trace object (empty = valid). */
export function validateTrajectory(v: unknown): { path: string; message: string }[] {
  const errs: string[][] = [];
  trajectory(v, '$', errs);
  if (isObj(v) && v.v !== undefined && v.v !== TRACE_VERSION) errs.push(['$.v', `unsupported version ${JSON.stringify(v.v) ?? typeof v.v}`]); // String() throws on an object whose own toString is not a function
  return errs.map(([path, message]) => ({ path, message }));
}

function decode(v: Record<string, unknown>): Trajectory {
  const { v: _version, ...rest } = v;
  const t = rest as unknown as Trajectory;
  return { ...t, rows: t.rows.map((r) => ({ ...r, logprobs: (r.logprobs as (number | null)[]).map((x) => (x === null ? -Infinity : x)) })) };
}

/** Parses JSONL traces. Blank lines are skipped; every bad line yields errors with its 1-based number. */
export function importTraces(text: string): { trajectories: Trajectory[]; errors: TraceError[] } {
  const trajectories: Trajectory[] = [];
  const errors: TraceError[] = [];
  const lines = typeof text === 'string' ? text.split(/\r?\n/) : [];
  lines.forEach((ln, i) => {
    if (ln.trim() === '') return;
    let v: unknown;
    try { v = JSON.parse(ln); } catch (e) { errors.push({ line: i + 1, path: '$', message: `invalid JSON: ${e instanceof Error ? e.message : String(e)}` }); return; }
    const es = validateTrajectory(v);
    if (es.length) { for (const x of es) errors.push({ line: i + 1, ...x }); return; }
    trajectories.push(decode(v as Record<string, unknown>));
  });
  return { trajectories, errors };
}

// ---------------------------------------------------------------------------------------------------------
// Reference dumps: verl's trainer.rollout_data_dir writes {step}.jsonl with one line per generation:
// {"input": prompt decoded without special tokens, "output": response likewise, "score": trajectory score,
//  "step": training step, ...reward extras}. No trajectory ids: we rebuild them from the text itself.

export interface DumpRecord { line: number; input: string; output: string; score: number | null; step: number | string; extra: Record<string, unknown> }

export interface DumpImport {
  trajectories: Trajectory[];
  records: number;
  errors: TraceError[];
  /** Rehearse rows that could not be attached to an Act row. */
  unlinked: number;
  /** Placeholder generations of inactive samples, skipped. */
  dummies: number;
}

export interface DumpImportOptions {
  /** Only link rows with equal scores (every row of a trajectory carries its score). Default true. */
  matchScore?: boolean;
}

const REF_SIM_SYSTEM = 'You are a precise tool simulator';
const REF_SIM_SECTION = 'Current tool to simulate:';
const REF_CALLER_SECTION = "RL model's latest response:\n";
const REF_NAME = '\n- name: ';
const REF_ARGS = "- arguments (JSON, parsed from caller's tool_call):\n";
const OUR_RAW = 'Agent output:\n';
const OUR_CALL = '\n\nCall to execute:';

/** Which role produced a dump row (Rehearse prompts carry the simulator's instruction and sections). */
export function dumpRole(input: string): Role | 'dummy' {
  const norm = input.replace(/\s+/g, ' ').trim();
  if (norm === 'system . user . assistant' || norm === '') return 'dummy';
  if (input.includes(REF_SIM_SECTION) || input.includes(REF_SIM_SYSTEM) || input.includes(REHEARSE_MARKER)) return 'rehearse';
  return 'act';
}

function between(s: string, start: string, end: string | string[]): string | undefined {
  const a = s.indexOf(start);
  if (a < 0) return undefined;
  const from = a + start.length;
  let b = -1;
  for (const e of Array.isArray(end) ? end : [end]) { const j = s.indexOf(e, from); if (j >= 0 && (b < 0 || j < b)) b = j; }
  return b < 0 ? s.slice(from) : s.slice(from, b);
}

/** The Act output a Rehearse prompt quotes (reference or our own prompt layout). */
export function quotedActOutput(input: string): string | undefined {
  return between(input, REF_CALLER_SECTION, `\n\n${REF_SIM_SECTION}`) ?? between(input, OUR_RAW, OUR_CALL);
}

/** The call a Rehearse prompt asks to execute. */
export function quotedCall(input: string): ToolCall | undefined {
  let name = between(input, REF_NAME, '\n');
  let args = between(input, REF_ARGS, ['\n\n/think', '\n\n/no_think', '\nassistant\n']);
  if (name === undefined) {
    name = between(input, REHEARSE_MARKER, '\n');
    args = between(input, '\narguments: ', '\n');
  }
  if (name === undefined) return undefined;
  let parsed: unknown = {};
  try { parsed = args === undefined ? {} : JSON.parse(args.trim()); } catch { parsed = {}; }
  return { name: name.trim(), arguments: isObj(parsed) ? parsed : {} };
}

function parseDumpLines(text: string, errors: TraceError[]): DumpRecord[] {
  const out: DumpRecord[] = [];
  (typeof text === 'string' ? text.split(/\r?\n/) : []).forEach((ln, i) => {
    if (ln.trim() === '') return;
    let v: unknown;
    try { v = JSON.parse(ln); } catch (e) { errors.push({ line: i + 1, path: '$', message: `invalid JSON: ${e instanceof Error ? e.message : String(e)}` }); return; }
    if (!isObj(v)) { errors.push({ line: i + 1, path: '$', message: 'expected object' }); return; }
    const es: string[][] = [];
    str(v.input, '$.input', es);
    str(v.output, '$.output', es);
    if (v.score !== undefined && v.score !== null) num(v.score, '$.score', es);
    if (v.step !== undefined && typeof v.step !== 'number' && typeof v.step !== 'string') es.push(['$.step', 'expected number or string']);
    if (es.length) { for (const [path, message] of es) errors.push({ line: i + 1, path, message }); return; }
    const { input, output, score, step, ...extra } = v;
    out.push({ line: i + 1, input: input as string, output: output as string, score: (score as number | null | undefined) ?? null,
      step: (step as number | string | undefined) ?? 0, extra });
  });
  return out;
}

/** Conversation messages from a Qwen-style prompt decoded without special tokens (best effort). */
export function messagesFromFlatPrompt(input: string): Message[] {
  const out: Message[] = [];
  const re = /(^|\n)(system|user|assistant)\n/g;
  const marks: { role: string; start: number; body: number }[] = [];
  const names: string[] = []; // tool responses carry no name: take it from the calls they answer
  for (let m = re.exec(input); m; m = re.exec(input)) marks.push({ role: m[2], start: m.index + m[1].length, body: m.index + m[0].length });
  marks.forEach((mk, i) => {
    const end = i + 1 < marks.length ? marks[i + 1].start : input.length;
    const body = input.slice(mk.body, end).replace(/\n$/, '');
    if (i === marks.length - 1 && mk.role === 'assistant' && body === '') return; // the generation prompt
    if (mk.role === 'user' && body.trimStart().startsWith('<tool_response>')) {
      for (const r of body.split('<tool_response>').slice(1)) out.push({ role: 'tool', name: names.shift() ?? '', content: r.split('</tool_response>')[0].trim() });
    } else if (mk.role === 'assistant') {
      // Qwen-style templates omit the newline before a first tool call when there is no content.
      const p = parseAct(body.startsWith('<tool_call>') ? `\n${body}` : body);
      out.push(p.ok && p.kind === 'calls' ? { role: 'assistant', content: p.content, toolCalls: p.calls } : { role: 'assistant', content: p.content });
      names.length = 0;
      if (p.ok && p.kind === 'calls') names.push(...p.calls.map((c) => c.name));
    } else out.push({ role: mk.role as 'system' | 'user', content: body });
  });
  return out;
}

interface DRow { rec: DumpRecord; role: Role; norm: string; calls: ToolCall[]; children: DRow[]; next?: DRow; prev?: DRow; traj?: number }

const squash = (s: string) => s.replace(/\s+/g, '');

/** Whether b's prompt goes on with a's output (think blocks and whitespace ignored, first 64 characters). */
function continues(a: DRow, b: DRow): boolean {
  const out = squash(stripThink(a.rec.output)).slice(0, 64);
  return out.length > 0 && squash(b.norm.slice(a.norm.length)).startsWith(out);
}

function hashText(s: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) { h ^= s.charCodeAt(i); h = Math.imul(h, 0x01000193); }
  return (h >>> 0).toString(16).padStart(8, '0');
}

/**
 * Rebuilds trajectories from a reference dump. Act rows chain when one's prompt (think blocks removed, as
 * chat templates drop old reasoning) is a prefix of a later one's; Rehearse rows attach to the nearest
 * preceding Act row whose output they quote and whose calls are not all answered. Scores must agree
 * (matchScore). The rebuilt conversation is parsed from the last Act prompt of each chain.
 */
export function importReferenceDump(text: string, opts: DumpImportOptions = {}): DumpImport {
  const errors: TraceError[] = [];
  const recs = parseDumpLines(text, errors);
  const matchScore = opts.matchScore ?? true;
  const sameScore = (a: DumpRecord, b: DumpRecord) => !matchScore || a.score === b.score;
  const bySteps = new Map<string, DRow[]>();
  let dummies = 0;
  for (const rec of recs) {
    const role = dumpRole(rec.input);
    if (role === 'dummy') { dummies++; continue; }
    const key = String(rec.step);
    const l = bySteps.get(key) ?? [];
    const calls = role === 'act' ? ((p) => (p.ok && p.kind === 'calls' ? p.calls : []))(parseAct(rec.output)) : [];
    l.push({ rec, role, norm: role === 'act' ? stripThink(rec.input) : '', calls, children: [] });
    bySteps.set(key, l);
  }

  const trajectories: Trajectory[] = [];
  let unlinked = 0;
  for (const [stepKey, rows] of bySteps) {
    const tails: DRow[] = [];
    const acts: DRow[] = [];
    // A parent's prompt is always shorter than its child's, so shortest-first makes linking order-free.
    const byLength = rows.filter((r) => r.role === 'act').sort((x, y) => x.norm.length - y.norm.length || x.rec.line - y.rec.line);
    for (const r of byLength) {
      // K samples of a task share their first prompt, so a prefix alone is ambiguous: prefer the candidate
      // whose own output is what the later prompt continues with.
      let best: DRow | undefined;
      let bestKey = -1;
      for (const t of tails) {
        if (t.next || !sameScore(t.rec, r.rec) || t.norm.length >= r.norm.length || !r.norm.startsWith(t.norm)) continue;
        const key = t.norm.length * 2 + (continues(t, r) ? 1 : 0);
        if (key > bestKey) { best = t; bestKey = key; }
      }
      if (best) { best.next = r; r.prev = best; tails.splice(tails.indexOf(best), 1); }
      tails.push(r);
      acts.push(r);
    }
    // Rehearse rows: prefer the latest Act row before them (share-mode order), else any (split-by-model order).
    rows.forEach((r, idx) => {
      if (r.role !== 'rehearse') return;
      const quoted = quotedActOutput(r.rec.input)?.trim();
      const fits = (a: DRow) => a.calls.length > a.children.length && sameScore(a.rec, r.rec) && quoted !== undefined && a.rec.output.trim() === quoted;
      let parent: DRow | undefined;
      for (let j = idx - 1; j >= 0 && !parent; j--) if (rows[j].role === 'act' && fits(rows[j])) parent = rows[j];
      if (!parent) parent = acts.find(fits);
      if (parent) parent.children.push(r); else unlinked++;
    });
    for (const head of acts.filter((a) => !a.prev)) trajectories.push(buildTrajectory(head, stepKey));
  }
  return { trajectories, records: recs.length, errors, unlinked, dummies };
}

function buildTrajectory(head: DRow, stepKey: string): Trajectory {
  const rows: Row[] = [];
  let turn = 0;
  let last: DRow = head;
  let terminatedBy: Termination = 'length';
  let lastRow: Row | undefined;
  const tail: Message[] = [];
  for (let a: DRow | undefined = head; a; a = a.next) {
    last = a;
    const p = parseAct(a.rec.output);
    const actRow: Row = { role: 'act', turn, step: rows.length, promptIds: [], outputIds: [], logprobs: [], text: a.rec.output, prompt: a.rec.input };
    if (!p.ok) actRow.error = { code: p.error.code, message: p.error.message };
    else if (p.kind === 'calls') { actRow.call = p.calls[0]; actRow.calls = p.calls; }
    rows.push(actRow);
    lastRow = actRow;
    const callMap = new Map<DRow, number>();
    a.children.forEach((c, i) => {
      const q = quotedCall(c.rec.input);
      let ci = q ? a.calls.findIndex((x, j) => x.name === q.name && ![...callMap.values()].includes(j)) : -1;
      if (ci < 0) ci = i;
      callMap.set(c, ci);
    });
    const kids = [...a.children].sort((x, y) => callMap.get(x)! - callMap.get(y)!);
    tail.length = 0;
    tail.push(p.ok && p.kind === 'calls' ? { role: 'assistant', content: p.content, toolCalls: p.calls } : { role: 'assistant', content: p.content });
    for (const c of kids) {
      const rp = parseRehearse(c.rec.output);
      const imagined = rp.ok ? rp.text : errorText(rp.error);
      const err = rp.ok ? resultError(rp.value) : rp.error;
      const ci = callMap.get(c)!;
      const r: Row = { role: 'rehearse', turn, step: rows.length, promptIds: [], outputIds: [], logprobs: [], text: c.rec.output, prompt: c.rec.input,
        parent: actRow.step, callIndex: ci, call: a.calls[ci] ?? quotedCall(c.rec.input), imagined };
      if (err) r.error = { code: err.code, message: err.message };
      rows.push(r);
      lastRow = r;
      tail.push({ role: 'tool', name: r.call?.name ?? '', content: imagined, error: err ? true : undefined });
    }
    if (p.ok && p.kind === 'reply') turn++;
  }
  if (lastRow?.error) terminatedBy = lastRow.role === 'act' || (REHEARSE_ERROR_CODES as readonly string[]).includes(lastRow.error.code) ? 'parse_error' : 'tool_error';
  else if (lastRow?.role === 'act' && !lastRow.call) terminatedBy = 'final_turn';
  const messages = [...messagesFromFlatPrompt(last.rec.input), ...tail];
  const firstUser = messages.find((m) => m.role === 'user')?.content ?? head.rec.input;
  const taskId = `dump:${hashText(firstUser)}`;
  return {
    taskId, groupId: `${taskId}@${stepKey}`, mode: 'rehearsal', seed: 0, messages, rows,
    reward: head.rec.score ?? undefined, terminatedBy,
  };
}
