// The two output formats of the EnvACE policy and their strict parsers.
//
// Act:      [<think>…</think>] then zero or more "\n<tool_call>\n{json}\n</tool_call>" blocks; no block = reply.
// Rehearse: [<think>…</think>] then "\n<execution_result>\n{JSON object or array}\n</execution_result>".
//
// The parsers mirror the reference code's decision order (so error codes, and therefore which episodes
// end, match it) and never throw: every input yields either a parse or a ToolError with an EnvACE code.
// Errors always use the single shape {"error_tool_call": {code, message, details}}; the reference's Act
// side used bare strings for a few of them, which we deliberately unify.

import type { JSONSchema, Message, ToolCall, ToolError, ToolErrorCode, ToolSchema } from '../envs/types';

export const TOOL_CALL_START = '<tool_call>';
export const TOOL_CALL_OPEN = '\n<tool_call>\n';
export const TOOL_CALL_CLOSE = '\n</tool_call>';
export const RESULT_START = '<execution_result>';
export const RESULT_OPEN = '\n<execution_result>\n';
export const RESULT_CLOSE = '\n</execution_result>';
export const THINK_OPEN = '<think>';
export const THINK_CLOSE = '</think>';

export const ACT_ERROR_CODES = [
  'NO_TOOL_CALL_FOUND', 'JSON_DECODE_ERROR', 'NO_ARGUMENTS', 'INVALID_TOOL_NAME', 'NON_SERIALIZABLE_ARGUMENTS',
] as const satisfies readonly ToolErrorCode[];
export const REHEARSE_ERROR_CODES = [
  'EMPTY_SIMULATOR_OUTPUT', 'NO_EXECUTION_RESULT_TAG_FOUND', 'EXECUTION_RESULT_TAG_MALFORMED',
  'SIMULATOR_JSON_DECODE_ERROR', 'INVALID_EXECUTION_RESULT_TYPE',
] as const satisfies readonly ToolErrorCode[];
export const VALIDATION_CODES = [
  'INVALID_TOOL_CALL_FORMAT', 'TOOL_NOT_AVAILABLE', 'INVALID_PARAMETERS',
] as const satisfies readonly ToolErrorCode[];
export const ALL_ERROR_CODES: readonly ToolErrorCode[] = [
  ...ACT_ERROR_CODES, ...REHEARSE_ERROR_CODES, ...VALIDATION_CODES, 'TOOL_EXECUTION_ERROR',
];

export type ActParse =
  | { ok: true; kind: 'reply'; think?: string; content: string }
  | { ok: true; kind: 'calls'; think?: string; content: string; calls: ToolCall[] }
  | { ok: false; think?: string; content: string; error: ToolError };

export type RehearseParse =
  | { ok: true; think?: string; value: Record<string, unknown> | unknown[]; text: string }
  | { ok: false; think?: string; error: ToolError };

// Nesting bound: canonicalisation and validation recurse, and a model can emit "[[[[…" for ever.
const MAX_DEPTH = 64;
const PREVIEW = 200;

export function toolError(code: ToolErrorCode, message: string, details?: unknown): ToolError {
  return details === undefined ? { code, message } : { code, message, details };
}

/** The one error wire shape, as the text a tool message carries. */
export function errorText(e: ToolError): string {
  return JSON.stringify({ error_tool_call: { code: e.code, message: e.message, details: e.details ?? null } });
}

/** The leading think block, if the text opens with one (after whitespace). */
export function leadingThink(text: string): { think?: string; rest: string } {
  const t = text.replace(/^\s+/, '');
  if (!t.startsWith(THINK_OPEN)) return { rest: text };
  const end = t.indexOf(THINK_CLOSE, THINK_OPEN.length);
  if (end < 0) return { rest: text };
  return { think: t.slice(THINK_OPEN.length, end), rest: t.slice(end + THINK_CLOSE.length) };
}

/** Removes every complete think block (what the reference does before reading a Rehearse output). */
export function stripThink(text: string): string {
  let out = '';
  let i = 0;
  for (;;) {
    const s = text.indexOf(THINK_OPEN, i);
    if (s < 0) break;
    const e = text.indexOf(THINK_CLOSE, s + THINK_OPEN.length);
    if (e < 0) break;
    out += text.slice(i, s);
    i = e + THINK_CLOSE.length;
  }
  return out + text.slice(i);
}

/** Non-overlapping open…close spans, leftmost-shortest (what a lazy DOTALL regex findall returns). */
/** The bodies between every `open` … `close` pair, in order (an unclosed last one is dropped). */
export function blocks(text: string, open: string, close: string): string[] {
  const out: string[] = [];
  let from = 0;
  for (;;) {
    const s = text.indexOf(open, from);
    if (s < 0) return out;
    const e = text.indexOf(close, s + open.length);
    if (e < 0) return out;
    out.push(text.slice(s + open.length, e));
    from = e + close.length;
  }
}

function safeJson(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (e) {
    return { ok: false, error: e instanceof Error ? e.message : String(e) };
  }
}

function depthOf(v: unknown, limit: number, d = 0): number {
  if (d > limit) return d;
  if (Array.isArray(v)) { let m = d; for (const x of v) { m = Math.max(m, depthOf(x, limit, d + 1)); if (m > limit) break; } return m; }
  if (v && typeof v === 'object') { let m = d; for (const x of Object.values(v)) { m = Math.max(m, depthOf(x, limit, d + 1)); if (m > limit) break; } return m; }
  return d;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Why arguments cannot travel on: JSON.parse output always re-serialises, so the JS analogue of the
 * reference's check is what breaks downstream — lone surrogates (not encodable as UTF-8, so the tokenizer
 * cannot take them) and nesting too deep to canonicalise safely.
 */
function unserializableReason(v: unknown): string | null {
  if (depthOf(v, MAX_DEPTH) > MAX_DEPTH) return `nesting deeper than ${MAX_DEPTH}`;
  let s: string;
  try { s = JSON.stringify(v); } catch (e) { return e instanceof Error ? e.message : String(e); }
  // JSON.stringify escapes lone surrogates as \udXXX, so look at the raw string values instead.
  const stack: unknown[] = [v];
  while (stack.length) {
    const x = stack.pop();
    if (typeof x === 'string') { if (LONE_SURROGATE.test(x)) return 'string contains a lone UTF-16 surrogate'; }
    else if (typeof x === 'number') { if (!Number.isFinite(x)) return 'number out of range (would serialise as null)'; }
    else if (Array.isArray(x)) { for (const y of x) stack.push(y); }
    else if (x && typeof x === 'object') for (const [k, y] of Object.entries(x)) { stack.push(k, y); }
  }
  return s === undefined ? 'not serialisable' : null;
}

// No node cap: the walk is linear in the parsed input, and a cap let a non-finite number past the millionth value
// through (a result serialised with null in its place: corrupted, not rejected).
function hasNonFinite(v: unknown): boolean {
  const stack: unknown[] = [v];
  while (stack.length) {
    const x = stack.pop();
    if (typeof x === 'number') { if (!Number.isFinite(x)) return true; }
    else if (Array.isArray(x)) { for (const y of x) stack.push(y); }
    else if (x && typeof x === 'object') for (const y of Object.values(x)) stack.push(y);
  }
  return false;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Parses an Act output. Decision order follows the reference parser: no "<tool_call>" at all → reply;
 * the marker but no well-formed block → NO_TOOL_CALL_FOUND; then per block JSON, then per call arguments
 * before name. A block may hold one call or a JSON array of calls; "parameters" is accepted as an alias of
 * "arguments". One bad call invalidates the whole output. Deviations (documented, stricter): arguments
 * must be a JSON object (a JSON string that decodes to an object is accepted, as OpenAI-style models emit
 * that), anything else is NO_ARGUMENTS; a block holding an empty array is NO_TOOL_CALL_FOUND.
 */
export function parseAct(text: string): ActParse {
  const src = typeof text === 'string' ? text : '';
  const { think } = leadingThink(src);
  if (!src.includes(TOOL_CALL_START)) {
    const content = think === undefined ? src : leadingThink(src).rest.replace(/^\n/, '');
    return { ok: true, kind: 'reply', think, content };
  }
  const firstOpen = src.indexOf(TOOL_CALL_OPEN);
  const before = firstOpen >= 0 ? src.slice(0, firstOpen) : src;
  const content = think === undefined ? before : leadingThink(before).rest.replace(/^\n/, '');
  const fail = (code: ToolErrorCode, message: string, details?: unknown): ActParse =>
    ({ ok: false, think, content, error: toolError(code, message, details) });

  const found = blocks(src, TOOL_CALL_OPEN, TOOL_CALL_CLOSE);
  if (found.length === 0) {
    return fail('NO_TOOL_CALL_FOUND', 'No tool call found. Expected "\\n<tool_call>\\n{"name": ..., "arguments": {...}}\\n</tool_call>".',
      { raw_preview: src.slice(0, PREVIEW) });
  }
  const calls: ToolCall[] = [];
  for (const block of found) {
    const body = block.trim();
    const parsed = safeJson(body);
    if (!parsed.ok) return fail('JSON_DECODE_ERROR', 'A tool call is not valid JSON.', { raw_preview: body.slice(0, PREVIEW), error: parsed.error });
    const items = Array.isArray(parsed.value) ? parsed.value : [parsed.value];
    if (items.length === 0) return fail('NO_TOOL_CALL_FOUND', 'A tool call block holds an empty list.', { raw_preview: body.slice(0, PREVIEW) });
    for (const item of items) {
      const obj = isPlainObject(item) ? item : undefined;
      let args: unknown = obj ? (obj.parameters ?? obj.arguments) : undefined;
      if (args === undefined || args === null) {
        return fail('NO_ARGUMENTS', 'No arguments found in a tool call. Use {} when there are none.', { raw_preview: body.slice(0, PREVIEW) });
      }
      if (typeof args === 'string') {
        const inner = safeJson(args);
        if (inner.ok && isPlainObject(inner.value)) args = inner.value;
      }
      if (!isPlainObject(args)) {
        return fail('NO_ARGUMENTS', 'Tool call arguments must be a JSON object.', { got_type: Array.isArray(args) ? 'array' : typeof args });
      }
      const why = unserializableReason(args);
      if (why) return fail('NON_SERIALIZABLE_ARGUMENTS', 'Tool call arguments cannot be serialised.', { error: why });
      const name = obj!.name;
      if (typeof name !== 'string' || name.trim() === '') {
        return fail('INVALID_TOOL_NAME', 'A tool call has no valid name.', { raw_name: name === undefined ? null : String(name) });
      }
      if (LONE_SURROGATE.test(name)) return fail('INVALID_TOOL_NAME', 'A tool call has no valid name.', { raw_name: 'non-UTF-8 name' });
      calls.push({ name: name.trim(), arguments: args });
    }
  }
  return { ok: true, kind: 'calls', think, content, calls };
}

/**
 * Parses a Rehearse output exactly in the reference's phases: drop think blocks; empty → EMPTY_SIMULATOR_OUTPUT;
 * no tag → NO_EXECUTION_RESULT_TAG_FOUND; no "\n"-bounded open/close pair → EXECUTION_RESULT_TAG_MALFORMED;
 * first block not JSON → SIMULATOR_JSON_DECODE_ERROR; not a non-empty object or an array →
 * INVALID_EXECUTION_RESULT_TYPE. A successfully parsed result may itself be an error verdict
 * ({"error_tool_call": …}); use resultError() to tell.
 */
export function parseRehearse(text: string): RehearseParse {
  const src = typeof text === 'string' ? text : '';
  const { think } = leadingThink(src);
  const body = stripThink(src);
  const fail = (code: ToolErrorCode, message: string, details?: unknown): RehearseParse =>
    ({ ok: false, think, error: toolError(code, message, details) });
  if (body.trim() === '') return fail('EMPTY_SIMULATOR_OUTPUT', 'Empty simulator output.', { expected: '<execution_result>...</execution_result>' });
  if (!body.includes(RESULT_START)) {
    return fail('NO_EXECUTION_RESULT_TAG_FOUND', "No '<execution_result>' tag found in simulator output.", { raw_preview: body.slice(0, PREVIEW) });
  }
  const found = blocks(body, RESULT_OPEN, RESULT_CLOSE);
  if (found.length === 0) {
    return fail('EXECUTION_RESULT_TAG_MALFORMED', "'<execution_result>' found but the \\n boundary or the closing tag is missing.",
      { raw_preview: body.slice(0, PREVIEW) });
  }
  const block = found[0].trim();
  const parsed = safeJson(block);
  if (!parsed.ok) {
    return fail('SIMULATOR_JSON_DECODE_ERROR', 'The execution result is not valid JSON.', { raw_preview: block.slice(0, PREVIEW), error: parsed.error });
  }
  const v = parsed.value;
  // 1e999 is valid JSON syntax but parses to Infinity, which cannot be written back: reject, don't corrupt.
  if (hasNonFinite(v)) {
    return fail('SIMULATOR_JSON_DECODE_ERROR', 'The execution result holds a number out of range.', { raw_preview: block.slice(0, PREVIEW) });
  }
  if (Array.isArray(v) || (isPlainObject(v) && Object.keys(v).length > 0)) {
    if (depthOf(v, MAX_DEPTH) > MAX_DEPTH) {
      return fail('INVALID_EXECUTION_RESULT_TYPE', `The execution result nests deeper than ${MAX_DEPTH}.`, { got_type: 'deep' });
    }
    return { ok: true, think, value: v as Record<string, unknown> | unknown[], text: JSON.stringify(v) };
  }
  return fail('INVALID_EXECUTION_RESULT_TYPE', 'The execution result must be a non-empty object or an array.',
    { got_type: v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v });
}

/** The error carried by a result value or text ({"error_tool_call": …}), or null. Never throws. */
export function resultError(result: unknown): ToolError | null {
  let v = result;
  if (typeof v === 'string') { const p = safeJson(v); if (!p.ok) return null; v = p.value; }
  if (!isPlainObject(v) || !('error_tool_call' in v)) return null;
  const e = v.error_tool_call;
  if (isPlainObject(e)) {
    const code = typeof e.code === 'string' && (ALL_ERROR_CODES as readonly string[]).includes(e.code)
      ? e.code as ToolErrorCode : 'TOOL_EXECUTION_ERROR';
    return toolError(code, typeof e.message === 'string' ? e.message : String(e.message ?? ''), e.details ?? undefined);
  }
  return toolError('TOOL_EXECUTION_ERROR', typeof e === 'string' ? e : JSON.stringify(e) ?? '');
}

// ---------------------------------------------------------------------------------------------------------
// Validation: the verdicts a faithful simulator should reach before inventing a result.

export interface ValidationResult { ok: boolean; errors: string[] }

export interface ValidateOptions {
  /** Unknown properties are errors unless the schema says additionalProperties (the reference's strict default). */
  strict?: boolean;
}

function typeMatches(v: unknown, t: string): boolean {
  switch (t) {
    case 'string': return typeof v === 'string';
    case 'number': return typeof v === 'number' && Number.isFinite(v);
    case 'integer': return typeof v === 'number' && Number.isInteger(v);
    case 'boolean': return typeof v === 'boolean';
    case 'null': return v === null;
    case 'object': return isPlainObject(v);
    case 'array': return Array.isArray(v);
    default: return true; // unknown type names are not ours to reject
  }
}

function jsonEqual(a: unknown, b: unknown): boolean {
  return canonicalJson(a) === canonicalJson(b);
}

/** Sorted-key compact JSON: the identity used for exact comparisons everywhere in the agent layer. */
export function canonicalJson(v: unknown): string {
  if (v === undefined) return 'null';
  if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'null';
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  const keys = Object.keys(v as object).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson((v as Record<string, unknown>)[k])}`).join(',')}}`;
}

function validateAt(schema: JSONSchema | boolean | undefined, v: unknown, path: string, errs: string[], strict: boolean, depth: number): void {
  if (schema === undefined || schema === true) return;
  if (schema === false) { errs.push(`${path}: not allowed`); return; }
  if (typeof schema !== 'object' || schema === null) return;
  if (depth > MAX_DEPTH) { errs.push(`${path}: nested too deeply`); return; }
  const t = schema.type;
  if (t !== undefined) {
    const ts = Array.isArray(t) ? t : [t];
    if (!ts.some((x) => typeMatches(v, String(x)))) { errs.push(`${path}: expected ${ts.join('|')}`); return; }
  }
  if (Array.isArray(schema.enum) && !schema.enum.some((e) => jsonEqual(e, v))) errs.push(`${path}: not one of ${JSON.stringify(schema.enum)}`);
  if (Object.hasOwn(schema, 'const') && !jsonEqual(schema.const, v)) errs.push(`${path}: must equal ${JSON.stringify(schema.const)}`);
  if (typeof v === 'number') {
    if (typeof schema.minimum === 'number' && v < schema.minimum) errs.push(`${path}: below minimum ${schema.minimum}`);
    if (typeof schema.maximum === 'number' && v > schema.maximum) errs.push(`${path}: above maximum ${schema.maximum}`);
  }
  if (typeof v === 'string') {
    if (typeof schema.minLength === 'number' && v.length < schema.minLength) errs.push(`${path}: shorter than ${schema.minLength}`);
    if (typeof schema.maxLength === 'number' && v.length > schema.maxLength) errs.push(`${path}: longer than ${schema.maxLength}`);
    if (typeof schema.pattern === 'string') {
      try { if (!new RegExp(schema.pattern, 'u').test(v)) errs.push(`${path}: does not match ${schema.pattern}`); } catch { /* a broken pattern is the schema's fault, not the call's */ }
    }
  }
  if (Array.isArray(v)) {
    if (typeof schema.minItems === 'number' && v.length < schema.minItems) errs.push(`${path}: fewer than ${schema.minItems} items`);
    if (typeof schema.maxItems === 'number' && v.length > schema.maxItems) errs.push(`${path}: more than ${schema.maxItems} items`);
    if (schema.items && typeof schema.items === 'object') v.forEach((x, i) => validateAt(schema.items, x, `${path}[${i}]`, errs, strict, depth + 1));
  }
  if (isPlainObject(v)) {
    // Own properties only, on both sides: argument and property names come from data, and a name such as
    // 'toString', 'constructor' or '__proto__' must not be found on Object.prototype (JSON.parse makes an own
    // '__proto__' key).
    const props = isPlainObject(schema.properties) ? schema.properties as Record<string, JSONSchema> : {};
    for (const k of Array.isArray(schema.required) ? schema.required : []) {
      if (!Object.hasOwn(v, String(k))) errs.push(`${path}: missing required field '${String(k)}'`);
    }
    const extra = schema.additionalProperties as JSONSchema | boolean | undefined;
    for (const [k, x] of Object.entries(v)) {
      if (Object.hasOwn(props, k)) validateAt(props[k], x, `${path}.${k}`, errs, strict, depth + 1);
      else if (extra === false || (extra === undefined && strict && schema.properties !== undefined)) errs.push(`${path}: unexpected field '${k}'`);
      else if (extra && typeof extra === 'object') validateAt(extra, x, `${path}.${k}`, errs, strict, depth + 1);
    }
  }
  for (const key of ['anyOf', 'oneOf'] as const) {
    const alts = schema[key];
    if (Array.isArray(alts) && alts.length > 0) {
      const passing = alts.filter((s) => { const e: string[] = []; validateAt(s as JSONSchema, v, path, e, strict, depth + 1); return e.length === 0; }).length;
      if (key === 'anyOf' ? passing === 0 : passing !== 1) errs.push(`${path}: does not match ${key}`);
    }
  }
}

/** A small JSON-schema subset: type, enum, const, required, properties, additionalProperties, items, bounds, anyOf/oneOf. */
export function validateArguments(schema: JSONSchema | undefined, args: unknown, opts: ValidateOptions = {}): ValidationResult {
  const errors: string[] = [];
  const root: JSONSchema = schema && typeof schema === 'object' ? schema : { type: 'object' };
  if (!isPlainObject(args)) return { ok: false, errors: ['$: arguments must be a JSON object'] };
  try { validateAt({ type: 'object', ...root }, args, '$', errors, opts.strict ?? true, 0); } catch (e) { errors.push(`$: ${String(e)}`); }
  return { ok: errors.length === 0, errors };
}

/**
 * The verdict an ideal simulator reaches on a call before executing it: null when valid, else
 * INVALID_TOOL_CALL_FORMAT / TOOL_NOT_AVAILABLE / INVALID_PARAMETERS. rawAct (Act's raw output) is checked for a
 * well-formed tool-call block when given.
 */
export function validateCall(call: { name: unknown; arguments: unknown }, tools: ToolSchema[], rawAct?: string, opts: ValidateOptions = {}): ToolError | null {
  if (rawAct !== undefined) {
    const p = parseAct(rawAct);
    if (!p.ok || p.kind !== 'calls') return toolError('INVALID_TOOL_CALL_FORMAT', 'The response has no well-formed <tool_call> block.');
  }
  if (typeof call.name !== 'string' || call.name === '') return toolError('INVALID_TOOL_CALL_FORMAT', 'The call has no name.');
  const tool = tools.find((t) => t.name === call.name);
  if (!tool) return toolError('TOOL_NOT_AVAILABLE', `tool name '${call.name}' is not found. Please check your function call and use provided tools.`);
  const v = validateArguments(tool.parameters, call.arguments, opts);
  return v.ok ? null : toolError('INVALID_PARAMETERS', 'Arguments do not match the tool schema.', { errors: v.errors });
}

// ---------------------------------------------------------------------------------------------------------
// Formatters (SFT targets from reference conversations, and the history the Act role re-reads).

/** How a call is written inside a block; compact JSON because our models have tiny contexts. */
export function callJson(c: ToolCall): string {
  return JSON.stringify({ name: c.name, arguments: c.arguments });
}

/** Act output: think (if given) then either tool-call blocks or the reply text. */
export function formatAct(think: string | undefined, callsOrReply: ToolCall[] | string): string {
  const head = think === undefined ? '' : `${THINK_OPEN}${think}${THINK_CLOSE}`;
  if (typeof callsOrReply === 'string') return head === '' ? callsOrReply : `${head}\n${callsOrReply}`;
  return head + callsOrReply.map((c) => `${TOOL_CALL_OPEN}${callJson(c)}${TOOL_CALL_CLOSE}`).join('');
}

/**
 * Any observation text as a valid execution result: JSON objects/arrays pass through canonicalised, and
 * anything else (plain text, scalars, {}) is wrapped as {"result": …} so a real environment's answer can
 * always serve as a Rehearse target.
 */
export function toResultJson(result: unknown): string {
  let v = result;
  if (typeof v === 'string') { const p = safeJson(v); v = p.ok ? p.value : v; }
  if (Array.isArray(v) || (isPlainObject(v) && Object.keys(v).length > 0)) return JSON.stringify(v);
  return JSON.stringify({ result: v ?? null });
}

/** Rehearse output: think (if given) then the tagged result. A string is taken as observation text. */
export function formatRehearse(think: string | undefined, result: unknown): string {
  const head = think === undefined ? '' : `${THINK_OPEN}${think}${THINK_CLOSE}`;
  return `${head}${RESULT_OPEN}${toResultJson(result)}${RESULT_CLOSE}`;
}

/** The message an Act output becomes in the conversation (content = visible text before the first block). */
export function actMessage(text: string, parse: ActParse = parseAct(text)): Extract<Message, { role: 'assistant' }> {
  if (parse.ok && parse.kind === 'calls') return { role: 'assistant', content: parse.content, toolCalls: parse.calls };
  return { role: 'assistant', content: parse.content };
}
