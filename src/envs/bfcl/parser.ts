// Parser for the tool calls BFCL multi-turn exchanges: Python call strings such as
// `mv(source='a.txt', destination="tmp")` (ground truth, and what decode_execute hands the checker) and
// JSON tool calls. Only literal arguments are accepted: BFCL `eval`s the string, but every ground-truth
// call and every decode_execute output is a call with literal arguments, and evaluating anything
// richer would mean embedding a Python interpreter. Nothing here throws.

import { parsePyJson, PyFloat, pyRepr, PyTuple } from '../python';
import type { ToolError } from '../types';

export interface ParsedCall {
  function: string;
  args: unknown[];
  kwargs: Record<string, unknown>;
}

export type ParseResult = ({ ok: true } & ParsedCall) | { ok: false; error: ToolError };

class ParseFail extends Error {
  constructor(message: string, public readonly pos: number) { super(message); }
}

const IDENT = /[A-Za-z_][A-Za-z0-9_]*/y;

function isIdentStart(c: string | undefined): boolean {
  return c !== undefined && /[A-Za-z_]/.test(c);
}

/** A dict literal: a plain object while that keeps order and key types, else a Map. */
function buildDict(pairs: [unknown, unknown][]): unknown {
  const plain = pairs.every(([k]) => typeof k === 'string' && k !== '__proto__' && !/^(0|[1-9]\d*)$/.test(k));
  if (!plain) return new Map(pairs as [string | number, unknown][]);
  const o: Record<string, unknown> = Object.create(null);
  for (const [k, v] of pairs) o[k as string] = v;
  return o;
}

class PyLiteralParser {
  i = 0;
  constructor(readonly s: string) {}

  fail(msg: string): never { throw new ParseFail(msg, this.i); }

  ws(): void {
    for (;;) {
      const c = this.s[this.i];
      if (c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f') this.i++;
      else if (c === '\\' && (this.s[this.i + 1] === '\n' || this.s[this.i + 1] === '\r')) this.i += 2;
      else return;
    }
  }

  peek(): string | undefined { this.ws(); return this.s[this.i]; }

  expect(ch: string): void {
    if (this.peek() !== ch) this.fail(`expected '${ch}'`);
    this.i++;
  }

  ident(): string {
    this.ws();
    IDENT.lastIndex = this.i;
    const m = IDENT.exec(this.s);
    if (!m) this.fail('expected a name');
    this.i += m[0].length;
    return m[0];
  }

  /** NAME('.' NAME)* '(' arguments ')' */
  call(): ParsedCall {
    let name = this.ident();
    while (this.peek() === '.') { this.i++; name += '.' + this.ident(); }
    this.expect('(');
    const args: unknown[] = [];
    const kwargs: Record<string, unknown> = Object.create(null);
    let sawKw = false;
    while (this.peek() !== ')') {
      if (this.i >= this.s.length) this.fail("'(' was never closed");
      const save = this.i;
      let key: string | null = null;
      if (isIdentStart(this.peek())) {
        const id = this.ident();
        if (this.peek() === '=' && this.s[this.i + 1] !== '=') { this.i++; key = id; } else this.i = save;
      }
      const v = this.expr();
      if (key !== null) {
        if (Object.prototype.hasOwnProperty.call(kwargs, key)) this.fail(`keyword argument repeated: ${key}`);
        Object.defineProperty(kwargs, key, { value: v, enumerable: true, writable: true, configurable: true });
        sawKw = true;
      } else {
        if (sawKw) this.fail('positional argument follows keyword argument');
        args.push(v);
      }
      if (this.peek() === ',') { this.i++; continue; }
      if (this.peek() !== ')') this.fail("expected ',' or ')'");
    }
    this.i++;
    return { function: name, args, kwargs };
  }

  expr(): unknown {
    const c = this.peek();
    if (c === undefined) this.fail('unexpected end of input');
    if (c === '-' || c === '+') {
      this.i++;
      const v = this.expr();
      if (typeof v === 'number') return c === '-' ? -v : v;
      if (typeof v === 'bigint') return c === '-' ? -v : v;
      if (v instanceof PyFloat) return new PyFloat(c === '-' ? -v.value : v.value);
      if (typeof v === 'boolean') return c === '-' ? -Number(v) : Number(v);
      this.fail('bad operand for unary ' + c);
    }
    if (c === '[') return this.seq('[', ']');
    if (c === '(') {
      this.i++;
      if (this.peek() === ')') { this.i++; return new PyTuple([]); }
      const first = this.expr();
      if (this.peek() === ')') { this.i++; return first; }
      const items = [first];
      while (this.peek() === ',') {
        this.i++;
        if (this.peek() === ')') break;
        items.push(this.expr());
      }
      this.expect(')');
      return new PyTuple(items);
    }
    if (c === '{') return this.braces();
    if (c === '"' || c === "'") return this.strings();
    if (/[0-9.]/.test(c)) return this.number();
    if (isIdentStart(c)) {
      const save = this.i;
      const id = this.ident();
      const nxt = this.s[this.i];
      if (/^[rRuUbBfF]{1,2}$/.test(id) && (nxt === '"' || nxt === "'")) { this.i = save; return this.strings(); }
      if (id === 'True') return true;
      if (id === 'False') return false;
      if (id === 'None') return null;
      if (id === 'inf' || id === 'nan') this.fail(`name '${id}' is not defined`);
      if (this.peek() === '(' || this.peek() === '.') this.fail('nested calls are not supported');
      this.fail(`name '${id}' is not defined`);
    }
    this.fail('invalid syntax');
  }

  seq(open: string, close: string): unknown[] {
    this.expect(open);
    const out: unknown[] = [];
    while (this.peek() !== close) {
      out.push(this.expr());
      if (this.peek() === ',') { this.i++; continue; }
      if (this.peek() !== close) this.fail(`expected ',' or '${close}'`);
    }
    this.i++;
    return out;
  }

  braces(): unknown {
    this.expect('{');
    if (this.peek() === '}') { this.i++; return buildDict([]); }
    const first = this.expr();
    if (this.peek() === ':') {
      const pairs: [unknown, unknown][] = [];
      this.i++;
      pairs.push([first, this.expr()]);
      while (this.peek() === ',') {
        this.i++;
        if (this.peek() === '}') break;
        const k = this.expr();
        this.expect(':');
        pairs.push([k, this.expr()]);
      }
      this.expect('}');
      for (const [k] of pairs) {
        if (Array.isArray(k) || (typeof k === 'object' && k !== null && !(k instanceof PyFloat) && !(k instanceof PyTuple))) this.fail('unhashable dict key');
      }
      // Python keeps the first position and the last value of a repeated key.
      const merged = new Map<unknown, [unknown, unknown]>();
      for (const [k, v] of pairs) {
        const norm = k === true ? 1 : k === false ? 0 : k instanceof PyFloat && Number.isInteger(k.value) ? k.value : k;
        const prev = merged.get(norm);
        merged.set(norm, [prev ? prev[0] : k, v]);
      }
      return buildDict([...merged.values()]);
    }
    const items = new Set<unknown>([first]);
    while (this.peek() === ',') {
      this.i++;
      if (this.peek() === '}') break;
      items.add(this.expr());
    }
    this.expect('}');
    return items;
  }

  number(): unknown {
    const rest = this.s.slice(this.i);
    let m = /^0[xX][0-9a-fA-F_]+|^0[oO][0-7_]+|^0[bB][01_]+/.exec(rest);
    if (m) {
      this.i += m[0].length;
      const body = m[0].replace(/_/g, '');
      return Number(body.toLowerCase().startsWith('0o') ? '0o' + body.slice(2) : body);
    }
    m = /^(\d[\d_]*)?(\.[\d_]*)?([eE][+-]?\d[\d_]*)?/.exec(rest);
    if (!m || m[0] === '' || m[0] === '.') this.fail('invalid syntax');
    const text = m[0].replace(/_/g, '');
    this.i += m[0].length;
    if (/[jJ]/.test(this.s[this.i] ?? '')) this.fail('complex numbers are not supported');
    if (m[2] !== undefined || m[3] !== undefined) return new PyFloat(Number(text));
    if (/^0\d/.test(text) && /[1-9]/.test(text)) this.fail('leading zeros in decimal integer literals are not permitted');
    const n = Number(text);
    // Python ints are unbounded: keep the exact value once a double cannot hold it.
    return Number.isSafeInteger(n) ? n : BigInt(text);
  }

  /** One or more adjacent string literals (Python concatenates them). */
  strings(): string {
    let out = '';
    let any = false;
    for (;;) {
      const c = this.peek();
      const save = this.i;
      let prefix = '';
      if (isIdentStart(c)) {
        IDENT.lastIndex = this.i;
        const m = IDENT.exec(this.s);
        if (!m || !/^[rRuUbBfF]{1,2}$/.test(m[0]) || (this.s[this.i + m[0].length] !== '"' && this.s[this.i + m[0].length] !== "'")) break;
        prefix = m[0].toLowerCase();
        this.i += m[0].length;
      } else if (c !== '"' && c !== "'") break;
      if (prefix.includes('b') || prefix.includes('f')) { this.i = save; this.fail('byte and f-strings are not supported'); }
      out += this.oneString(prefix.includes('r'));
      any = true;
    }
    if (!any) this.fail('expected a string');
    return out;
  }

  oneString(raw: boolean): string {
    const q = this.s[this.i];
    const triple = this.s.startsWith(q.repeat(3), this.i);
    const end = triple ? q.repeat(3) : q;
    this.i += end.length;
    let out = '';
    for (;;) {
      if (this.i >= this.s.length) this.fail('unterminated string literal');
      if (this.s.startsWith(end, this.i)) { this.i += end.length; return out; }
      const ch = this.s[this.i];
      if (!triple && (ch === '\n' || ch === '\r')) this.fail('unterminated string literal');
      if (ch !== '\\') { out += ch; this.i++; continue; }
      const nx = this.s[this.i + 1];
      if (nx === undefined) this.fail('unterminated string literal');
      if (raw) { out += ch + nx; this.i += 2; continue; }
      this.i += 2;
      switch (nx) {
        case '\n': break;
        case '\\': out += '\\'; break;
        case "'": out += "'"; break;
        case '"': out += '"'; break;
        case 'a': out += '\x07'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'v': out += '\v'; break;
        case 'x': out += this.hexEscape(2); break;
        case 'u': out += this.hexEscape(4); break;
        case 'U': out += this.hexEscape(8); break;
        case 'N': this.fail('\\N{...} escapes are not supported');
        default:
          if (/[0-7]/.test(nx)) {
            let digits = nx;
            while (digits.length < 3 && /[0-7]/.test(this.s[this.i] ?? '')) digits += this.s[this.i++];
            out += String.fromCodePoint(parseInt(digits, 8));
          } else {
            // Python keeps unknown escapes verbatim (with a warning).
            out += '\\' + nx;
          }
      }
    }
  }

  hexEscape(n: number): string {
    const h = this.s.slice(this.i, this.i + n);
    if (h.length < n || !/^[0-9a-fA-F]+$/.test(h)) this.fail('truncated \\x/\\u/\\U escape');
    this.i += n;
    const cp = parseInt(h, 16);
    if (cp > 0x10ffff) this.fail('illegal Unicode character');
    return String.fromCodePoint(cp);
  }
}

function failure(code: ToolError['code'], message: string, details?: unknown): { ok: false; error: ToolError } {
  return { ok: false, error: { code, message, details: details ?? null } };
}

/** Parse one Python call string `name(arg, key=value, ...)` with literal arguments. */
export function parsePythonCall(text: unknown): ParseResult {
  if (typeof text !== 'string') return failure('INVALID_TOOL_CALL_FORMAT', 'a tool call must be a string');
  if (text.trim() === '') return failure('NO_TOOL_CALL_FOUND', 'empty tool call');
  const p = new PyLiteralParser(text);
  try {
    const call = p.call();
    p.ws();
    if (p.i !== text.length) p.fail('unexpected text after the call');
    return { ok: true, ...call };
  } catch (e) {
    if (e instanceof ParseFail) return failure('INVALID_TOOL_CALL_FORMAT', e.message, { position: e.pos, text });
    return failure('INVALID_TOOL_CALL_FORMAT', String((e as Error)?.message ?? e), { text });
  }
}

/** Parse `[f(a=1), g()]` (or a bare `f(a=1), g()`) into its calls. */
export function parsePythonCallList(text: unknown): { ok: true; calls: ParsedCall[] } | { ok: false; error: ToolError } {
  if (typeof text !== 'string') return failure('INVALID_TOOL_CALL_FORMAT', 'a tool call list must be a string');
  const p = new PyLiteralParser(text);
  try {
    const calls: ParsedCall[] = [];
    const bracket = p.peek() === '[';
    if (bracket) p.i++;
    while (p.peek() !== undefined && p.peek() !== ']') {
      calls.push(p.call());
      if (p.peek() === ',') { p.i++; continue; }
      break;
    }
    if (bracket) p.expect(']');
    p.ws();
    if (p.i !== text.length) p.fail('unexpected text after the calls');
    if (calls.length === 0) return failure('NO_TOOL_CALL_FOUND', 'no tool call found');
    return { ok: true, calls };
  } catch (e) {
    if (e instanceof ParseFail) return failure('INVALID_TOOL_CALL_FORMAT', e.message, { position: e.pos, text });
    return failure('INVALID_TOOL_CALL_FORMAT', String((e as Error)?.message ?? e), { text });
  }
}

/**
 * A JSON tool call: `{"name": ..., "arguments": {...}}` (arguments may also be a JSON string, as in
 * OpenAI responses). Floats stay PyFloat and dict key order is kept.
 */
export function parseJsonToolCall(text: unknown): ParseResult {
  let obj: unknown = text;
  if (typeof text === 'string') {
    if (text.trim() === '') return failure('NO_TOOL_CALL_FOUND', 'empty tool call');
    try { obj = parsePyJson(text); } catch (e) { return failure('JSON_DECODE_ERROR', (e as Error).message, { text }); }
  }
  const get = (o: unknown, k: string): unknown => (o instanceof Map ? o.get(k) : typeof o === 'object' && o !== null ? (o as Record<string, unknown>)[k] : undefined);
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) return failure('INVALID_TOOL_CALL_FORMAT', 'a tool call must be a JSON object');
  const name = get(obj, 'name');
  if (typeof name !== 'string' || name === '') return failure('INVALID_TOOL_NAME', 'tool call has no string "name"');
  const args = normaliseJsonArgs(get(obj, 'arguments') ?? get(obj, 'parameters'));
  if (!args.ok) return args;
  return { ok: true, function: name, args: [], kwargs: args.kwargs };
}

/** Tool-call arguments as keyword arguments: a dict, a JSON-encoded dict, or nothing. */
export function normaliseJsonArgs(raw: unknown): { ok: true; kwargs: Record<string, unknown> } | { ok: false; error: ToolError } {
  let a = raw;
  if (a === undefined || a === null) return { ok: true, kwargs: {} };
  if (typeof a === 'string') {
    if (a.trim() === '') return { ok: true, kwargs: {} };
    try { a = parsePyJson(a); } catch (e) { return failure('JSON_DECODE_ERROR', (e as Error).message, { arguments: raw }); }
  }
  if (a instanceof Map) {
    const o: Record<string, unknown> = Object.create(null);
    for (const [k, v] of a) Object.defineProperty(o, String(k), { value: v, enumerable: true, writable: true, configurable: true });
    return { ok: true, kwargs: o };
  }
  if (typeof a !== 'object' || Array.isArray(a) || a instanceof PyTuple || a instanceof PyFloat) {
    return failure('INVALID_PARAMETERS', 'tool arguments must be an object of named parameters', { arguments: raw });
  }
  return { ok: true, kwargs: a as Record<string, unknown> };
}

/** A parsed call back as a Python call string with repr'd literal arguments (BFCL's execution format). */
export function formatPythonCall(call: ParsedCall): string {
  const parts = [...call.args.map((a) => pyRepr(a)), ...Object.entries(call.kwargs).map(([k, v]) => `${k}=${pyRepr(v)}`)];
  return `${call.function}(${parts.join(', ')})`;
}

/**
 * decode_execute for one model step: the step's text (`[f(a=1), g()]`, or a JSON tool call / list of
 * them) as executable call strings. Undecodable text gives [], which BFCL's runner drops.
 */
export function decodeExecute(step: unknown): string[] {
  if (typeof step === 'string' && /^\s*[[{]/.test(step) && /"name"/.test(step)) {
    try {
      const v = parsePyJson(step);
      const list = Array.isArray(v) ? v : [v];
      const out: string[] = [];
      for (const item of list) {
        const r = parseJsonToolCall(item as string);
        if (!r.ok) return [];
        out.push(formatPythonCall(r));
      }
      return out;
    } catch { /* fall through to the Python form */ }
  }
  if (Array.isArray(step)) {
    const out: string[] = [];
    for (const item of step) {
      const r = typeof item === 'string' ? parsePythonCall(item) : parseJsonToolCall(item as string);
      if (!r.ok) return [];
      out.push(formatPythonCall(r));
    }
    return out;
  }
  const r = parsePythonCallList(step);
  return r.ok ? r.calls.map(formatPythonCall) : [];
}
