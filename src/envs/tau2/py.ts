// Small pieces of Python/pydantic runtime behaviour that τ² tool results depend on: exception text,
// keyword binding errors, dict lookups with unhashable keys, round(), ==, and pydantic's
// ValidationError rendering. Tools raise PyException and the environment turns it into "Error: …".

import { PyFloat, pyRepr, pyStr } from '../python';

export class PyException extends Error {
  constructor(public readonly pyType: string, message: string) {
    super(message);
  }
}

export const valueError = (msg: string) => new PyException('ValueError', msg);
export const typeError = (msg: string) => new PyException('TypeError', msg);

// A null-prototype record (how src/ starts a dictionary: tests/dictionaries.test.ts) is a dict as much as a plain one.
export function isPyDict(v: unknown): v is Map<unknown, unknown> | Record<string, unknown> {
  if (v instanceof Map) return true;
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof PyFloat)
    && [Object.prototype, null].includes(Object.getPrototypeOf(v));
}

/** type(v).__name__ for values that arrive through JSON. */
export function pyTypeName(v: unknown): string {
  if (v === null || v === undefined) return 'NoneType';
  if (typeof v === 'boolean') return 'bool';
  if (v instanceof PyFloat) return 'float';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int' : 'float';
  if (typeof v === 'string') return 'str';
  if (Array.isArray(v)) return 'list';
  if (isPyDict(v)) return 'dict';
  return typeof v;
}

/** `key in d` / `d[key]` on a str-keyed dict: lists and dicts are unhashable, other non-str keys just miss. */
export function dictGet<V>(d: Map<string, V>, key: unknown): V | undefined {
  if (Array.isArray(key) || isPyDict(key)) throw typeError(`unhashable type: '${pyTypeName(key)}'`);
  return typeof key === 'string' ? d.get(key) : undefined;
}

/** Python membership in a set/dict of strings (same hashing rules as dictGet). */
export function inStrSet(set: ReadonlySet<string>, key: unknown): boolean {
  if (Array.isArray(key) || isPyDict(key)) throw typeError(`unhashable type: '${pyTypeName(key)}'`);
  return typeof key === 'string' && set.has(key);
}

/** Iterate like `for x in v`: lists, str characters, dict keys; anything else is not iterable. */
export function pyIter(v: unknown): unknown[] {
  if (Array.isArray(v)) return v;
  if (typeof v === 'string') return [...v];
  if (v instanceof Map) return [...v.keys()];
  if (isPyDict(v)) return Object.keys(v);
  throw typeError(`'${pyTypeName(v)}' object is not iterable`);
}

/** Python == for JSON-like values (1 == 1.0 == True; dict equality ignores order). */
export function pyEquals(a: unknown, b: unknown): boolean {
  const num = (x: unknown): number | undefined =>
    x instanceof PyFloat ? x.value : typeof x === 'number' ? x : typeof x === 'boolean' ? Number(x) : undefined;
  const na = num(a), nb = num(b);
  if (na !== undefined || nb !== undefined) return na !== undefined && nb !== undefined && na === nb;
  if (a === null || a === undefined || b === null || b === undefined) return (a ?? null) === (b ?? null);
  if (typeof a === 'string' || typeof b === 'string') return a === b;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => pyEquals(x, b[i]));
  }
  if (isPyDict(a) && isPyDict(b)) {
    const ea = dictEntries(a), eb = new Map(dictEntries(b));
    return ea.length === eb.size && ea.every(([k, v]) => eb.has(k) && pyEquals(v, eb.get(k)));
  }
  return a === b;
}

export function dictEntries(d: Map<unknown, unknown> | Record<string, unknown>): [unknown, unknown][] {
  return d instanceof Map ? [...d.entries()] : Object.entries(d);
}

/** Python list.count with == semantics. */
export function pyCount(list: unknown[], x: unknown): number {
  let n = 0;
  for (const y of list) if (pyEquals(y, x)) n++;
  return n;
}

/** Python's sorted() on a list of str (code-point order); mixed types raise like Python. */
export function pySortedStrings(items: unknown[]): unknown[] {
  const out = [...items];
  const allStr = out.every((x) => typeof x === 'string');
  if (!allStr && out.length > 1) {
    const t = out.map(pyTypeName);
    const other = t.find((x) => x !== t[0]);
    if (other !== undefined) throw typeError(`'<' not supported between instances of '${other}' and '${t[0]}'`);
  }
  return out.sort((a, b) => {
    const x = String(a), y = String(b);
    return x < y ? -1 : x > y ? 1 : 0;
  });
}

/** round(x, ndigits) for a float: round-half-even on the exact binary value, as CPython does. */
export function pyRound(x: number, ndigits: number): number {
  if (!Number.isFinite(x) || x === 0) return x;
  if (Math.abs(x) >= 1e21 || ndigits > 20) return x;
  const fixed = x.toFixed(ndigits);
  // toFixed breaks exact ties upward; only an exact binary tie can disagree with Python.
  const exact = exactDecimal(Math.abs(x));
  const [, frac = ''] = exact.split('.');
  const rest = frac.slice(ndigits);
  if (rest.length > 0 && /^50*$/.test(rest)) {
    const [intPart] = exact.split('.');
    const truncated = BigInt(intPart + frac.slice(0, ndigits));
    const q = truncated % 2n === 0n ? truncated : truncated + 1n;
    const s = q.toString().padStart(ndigits + 1, '0');
    const r = Number(ndigits > 0 ? `${s.slice(0, -ndigits)}.${s.slice(-ndigits)}` : s);
    return x < 0 ? -r : r;
  }
  const r = Number(fixed);
  return r === 0 && x < 0 ? -0 : r;
}

/** Exact decimal expansion of a finite non-negative double. */
function exactDecimal(x: number): string {
  const buf = new DataView(new ArrayBuffer(8));
  buf.setFloat64(0, x);
  const hi = buf.getUint32(0), lo = buf.getUint32(4);
  const expBits = (hi >>> 20) & 0x7ff;
  let mant = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  let e: number;
  if (expBits === 0) e = -1074;
  else { mant |= 1n << 52n; e = expBits - 1075; }
  if (e >= 0) return (mant << BigInt(e)).toString();
  const digits = (mant * 5n ** BigInt(-e)).toString().padStart(-e + 1, '0');
  return `${digits.slice(0, digits.length + e)}.${digits.slice(digits.length + e)}`;
}

/** CPython's "f() missing N required positional argument(s): 'a', 'b', and 'c'". */
export function missingArgsMessage(qualname: string, names: string[]): string {
  const q = names.map((n) => `'${n}'`);
  const list = q.length === 1 ? q[0] : q.length === 2 ? `${q[0]} and ${q[1]}` : `${q.slice(0, -1).join(', ')}, and ${q[q.length - 1]}`;
  return `${qualname}() missing ${names.length} required positional argument${names.length === 1 ? '' : 's'}: ${list}`;
}

export interface ParamSpec {
  name: string;
  required: boolean;
  default?: unknown;
}

export type BindResult = { ok: true; args: Record<string, unknown> } | { ok: false; message: string };

/** Bind `f(**kwargs)` the way CPython does: the first unknown keyword wins, then missing ones are listed. */
export function bindKwargs(qualname: string, params: ParamSpec[], kwargs: unknown): BindResult {
  let entries: [unknown, unknown][];
  if (kwargs === undefined || kwargs === null) entries = [];
  else if (isPyDict(kwargs)) entries = dictEntries(kwargs);
  else return { ok: false, message: `${qualname}() argument after ** must be a mapping, not ${pyTypeName(kwargs)}` };
  const known = new Map(params.map((p) => [p.name, p]));
  const out: Record<string, unknown> = Object.create(null);
  for (const [k, v] of entries) {
    if (typeof k !== 'string') return { ok: false, message: 'keywords must be strings' };
    // `self` is already bound positionally on a method.
    if (k === 'self') return { ok: false, message: `${qualname}() got multiple values for argument 'self'` };
    if (!known.has(k)) return { ok: false, message: `${qualname}() got an unexpected keyword argument '${k}'` };
    out[k] = v;
  }
  const missing = params.filter((p) => p.required && !(p.name in out)).map((p) => p.name);
  if (missing.length) return { ok: false, message: missingArgsMessage(qualname, missing) };
  for (const p of params) if (!(p.name in out)) out[p.name] = p.default ?? null;
  return { ok: true, args: out };
}

// ---------- pydantic v2 validation errors ----------

const PYDANTIC_DOCS = 'https://errors.pydantic.dev/2.13/v/';

export interface FieldError { loc: string; type: string; msg: string; input: unknown }

export function validationError(model: string, errors: FieldError[]): PyException {
  const lines = [`${errors.length} validation error${errors.length === 1 ? '' : 's'} for ${model}`];
  for (const e of errors) {
    lines.push(e.loc);
    const shown = e.type === 'missing' ? pyRepr(e.input) : truncateRepr(pyRepr(e.input));
    lines.push(`  ${e.msg} [type=${e.type}, input_value=${shown}, input_type=${pyTypeName(e.input)}]`);
    lines.push(`    For further information visit ${PYDANTIC_DOCS}${e.type}`);
  }
  return new PyException('ValidationError', lines.join('\n'));
}

// pydantic shortens long input reprs to their first and last 25 characters.
function truncateRepr(s: string): string {
  return s.length > 50 ? `${s.slice(0, 25)}...${s.slice(-24)}` : s;
}

/** A str field in lax mode: only real strings pass. */
export function checkStr(errors: FieldError[], loc: string, v: unknown, optional = false): void {
  if (typeof v === 'string' || (optional && (v === null || v === undefined))) return;
  errors.push({ loc, type: 'string_type', msg: 'Input should be a valid string', input: v });
}

export { pyStr };
