// Python-compatible value formatting. BFCL result strings and τ² DB hashes are produced by CPython's
// json.dumps / str() / repr(), and a port must reproduce them byte for byte. JavaScript loses two
// things Python keeps: the int/float distinction (10000 vs 10000.0) and dict key order for integer-like
// keys. We keep them with two small markers: PyFloat for a float, and Map for an ordered dict.

/** A Python float. Plain JS numbers are treated as int when integral and float otherwise. */
export class PyFloat {
  constructor(public readonly value: number) {}
  valueOf(): number { return this.value; }
}
export const pyFloat = (v: number): PyFloat => new PyFloat(v);

/** A Python tuple (repr with parentheses; json.dumps writes it as a list). */
export class PyTuple {
  constructor(public readonly items: unknown[]) {}
}

/** Any value with its own Python repr (e.g. mpmath's mpf('2.0'), Decimal('1.5')). json.dumps rejects it. */
export class PyOpaque {
  constructor(public readonly repr: string) {}
}

export type PyDict = Map<string | number, unknown> | Record<string, unknown>;

export function isFloat(v: unknown): boolean {
  return v instanceof PyFloat || (typeof v === 'number' && !Number.isInteger(v));
}

export function numberValue(v: unknown): number {
  return v instanceof PyFloat ? v.value : (v as number);
}

/** repr(float): shortest round-trip digits, fixed notation for exponents in [-4, 16), else scientific. */
export function pyFloatRepr(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (x === Infinity) return 'inf';
  if (x === -Infinity) return '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const [mant, expStr] = x.toExponential().split('e');
  const exp = Number(expStr);
  const neg = mant.startsWith('-');
  const digits = mant.replace('-', '').replace('.', '');
  let out: string;
  if (exp >= -4 && exp < 16) {
    if (exp >= 0) {
      const intPart = digits.length > exp + 1 ? digits.slice(0, exp + 1) : digits.padEnd(exp + 1, '0');
      const frac = digits.length > exp + 1 ? digits.slice(exp + 1) : '0';
      out = `${intPart}.${frac}`;
    } else {
      out = `0.${'0'.repeat(-exp - 1)}${digits}`;
    }
  } else {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const e = Math.abs(exp);
    out = `${m}e${exp < 0 ? '-' : '+'}${e < 10 ? '0' + e : e}`;
  }
  return neg ? '-' + out : out;
}

function pyIntRepr(x: number): string {
  return Object.is(x, -0) ? '0' : x.toFixed(0);
}

function numberRepr(v: unknown): string {
  if (v instanceof PyFloat) return pyFloatRepr(v.value);
  if (typeof v === 'bigint') return v.toString();
  const n = v as number;
  return Number.isInteger(n) ? pyIntRepr(n) : pyFloatRepr(n);
}

function entries(d: PyDict): [string | number, unknown][] {
  return d instanceof Map ? [...d.entries()] : Object.entries(d);
}

function isDict(v: unknown): v is PyDict {
  if (v instanceof Map) return true;
  return typeof v === 'object' && v !== null && !Array.isArray(v) && [Object.prototype, null].includes(Object.getPrototypeOf(v));
}

// ---------- json.dumps ----------

export interface DumpsOptions {
  sortKeys?: boolean;
  ensureAscii?: boolean;       // default true, like Python
  itemSeparator?: string;      // default ', '
  keySeparator?: string;       // default ': '
}

export function jsonString(s: string, ensureAscii: boolean): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const ch = s[i];
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\b') out += '\\b';
    else if (ch === '\f') out += '\\f';
    else if (c < 0x20 || (ensureAscii && c > 0x7e)) out += '\\u' + c.toString(16).padStart(4, '0');
    else out += ch;
  }
  return out + '"';
}

export class PyTypeError extends Error {}

/** CPython json.dumps with default arguments unless overridden. Throws PyTypeError where Python would. */
export function pyJsonDumps(v: unknown, opts: DumpsOptions = {}): string {
  const ascii = opts.ensureAscii ?? true;
  const itemSep = opts.itemSeparator ?? ', ';
  const keySep = opts.keySeparator ?? ': ';
  const enc = (x: unknown): string => {
    if (x === null || x === undefined) return 'null';
    if (x === true) return 'true';
    if (x === false) return 'false';
    if (typeof x === 'string') return jsonString(x, ascii);
    if (typeof x === 'bigint') return x.toString();
    if (typeof x === 'number' || x instanceof PyFloat) {
      const n = numberValue(x);
      if (Number.isNaN(n)) return 'NaN';
      if (n === Infinity) return 'Infinity';
      if (n === -Infinity) return '-Infinity';
      return numberRepr(x);
    }
    if (Array.isArray(x)) return '[' + x.map(enc).join(itemSep) + ']';
    if (x instanceof PyTuple) return '[' + x.items.map(enc).join(itemSep) + ']';
    if (isDict(x)) {
      let es = entries(x).map(([k, val]) => [dictKeyToJson(k), val] as [string, unknown]);
      if (opts.sortKeys) es = es.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
      return '{' + es.map(([k, val]) => jsonString(k, ascii) + keySep + enc(val)).join(itemSep) + '}';
    }
    throw new PyTypeError(`Object of type ${x instanceof PyOpaque ? x.repr.split('(')[0] : typeof x} is not JSON serializable`);
  };
  return enc(v);
}

function dictKeyToJson(k: unknown): string {
  if (typeof k === 'string') return k;
  if (typeof k === 'number' || typeof k === 'bigint' || k instanceof PyFloat) return numberRepr(k);
  if (k === true) return 'true';
  if (k === false) return 'false';
  if (k === null) return 'null';
  throw new PyTypeError(`keys must be str, int, float, bool or None, not ${typeof k}`);
}

// ---------- repr / str ----------

/** repr(str): single quotes unless the text has ' and no ". */
export function pyStrRepr(s: string): string {
  const q = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = q;
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === q || ch === '\\') out += '\\' + ch;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (c < 0x20 || c === 0x7f) out += '\\x' + c.toString(16).padStart(2, '0');
    else if (c >= 0x80 && c < 0xa0) out += '\\x' + c.toString(16).padStart(2, '0');
    else out += ch;
  }
  return out + q;
}

export function pyRepr(v: unknown): string {
  if (v === null || v === undefined) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (typeof v === 'string') return pyStrRepr(v);
  if (typeof v === 'number' || typeof v === 'bigint' || v instanceof PyFloat) return numberRepr(v);
  if (v instanceof PyOpaque) return v.repr;
  if (v instanceof PyTuple) return v.items.length === 1 ? `(${pyRepr(v.items[0])},)` : '(' + v.items.map(pyRepr).join(', ') + ')';
  if (v instanceof Set) return v.size === 0 ? 'set()' : '{' + [...v].map(pyRepr).join(', ') + '}';
  if (Array.isArray(v)) return '[' + v.map(pyRepr).join(', ') + ']';
  if (isDict(v)) return '{' + entries(v).map(([k, val]) => `${pyRepr(k)}: ${pyRepr(val)}`).join(', ') + '}';
  return String(v);
}

/** str(x): like repr except that a bare string is itself. */
export function pyStr(v: unknown): string {
  return typeof v === 'string' ? v : pyRepr(v);
}

// ---------- order- and float-preserving JSON parse ----------

export interface ParseOptions {
  /** Wrap numbers written with '.', 'e' or 'E' as PyFloat (so 10000.0 survives). Default true. */
  wrapFloats?: boolean;
  /** 'auto': a plain object unless some key is integer-like (then a Map keeps the order); 'map': always Map. */
  objects?: 'auto' | 'map';
}

/** JSON.parse that keeps what Python keeps. Throws SyntaxError on malformed text. */
export function parsePyJson(text: string, opts: ParseOptions = {}): unknown {
  const wrap = opts.wrapFloats ?? true;
  const mode = opts.objects ?? 'auto';
  let i = 0;
  const ws = () => { while (i < text.length && ' \t\n\r'.includes(text[i])) i++; };
  const fail = (msg: string): never => { throw new SyntaxError(`${msg} at position ${i}`); };
  const value = (): unknown => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      const pairs: [string, unknown][] = [];
      ws();
      if (text[i] === '}') { i++; return build(pairs); }
      for (;;) {
        ws();
        if (text[i] !== '"') fail('expected string key');
        const k = str();
        ws();
        if (text[i] !== ':') fail("expected ':'");
        i++;
        pairs.push([k, value()]);
        ws();
        if (text[i] === ',') { i++; continue; }
        if (text[i] === '}') { i++; return build(pairs); }
        fail("expected ',' or '}'");
      }
    }
    if (c === '[') {
      i++;
      const arr: unknown[] = [];
      ws();
      if (text[i] === ']') { i++; return arr; }
      for (;;) {
        arr.push(value());
        ws();
        if (text[i] === ',') { i++; continue; }
        if (text[i] === ']') { i++; return arr; }
        fail("expected ',' or ']'");
      }
    }
    if (c === '"') return str();
    if (text.startsWith('true', i)) { i += 4; return true; }
    if (text.startsWith('false', i)) { i += 5; return false; }
    if (text.startsWith('null', i)) { i += 4; return null; }
    if (text.startsWith('NaN', i)) { i += 3; return wrap ? new PyFloat(NaN) : NaN; }
    if (text.startsWith('Infinity', i)) { i += 8; return wrap ? new PyFloat(Infinity) : Infinity; }
    if (text.startsWith('-Infinity', i)) { i += 9; return wrap ? new PyFloat(-Infinity) : -Infinity; }
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
    if (!m) return fail('unexpected token');
    i += m[0].length;
    const n = Number(m[0]);
    return wrap && (m[2] || m[3]) ? new PyFloat(n) : n;
  };
  const str = (): string => {
    const start = i;
    i++;
    while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    if (i >= text.length) fail('unterminated string');
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  const build = (pairs: [string, unknown][]): unknown => {
    if (mode === 'map' || pairs.some(([k]) => /^(0|[1-9]\d*)$/.test(k))) return new Map(pairs);
    const o: Record<string, unknown> = Object.create(null);
    for (const [k, v] of pairs) o[k] = v;
    return o;
  };
  const out = value();
  ws();
  if (i !== text.length) fail('trailing data');
  return out;
}

/** Strip PyFloat markers and turn Maps into plain objects (for display or JS-side logic). */
export function toPlain(v: unknown): unknown {
  if (v instanceof PyFloat) return v.value;
  if (v instanceof PyTuple) return v.items.map(toPlain);
  if (Array.isArray(v)) return v.map(toPlain);
  if (v instanceof Map) return Object.fromEntries([...v.entries()].map(([k, x]) => [String(k), toPlain(x)]));
  if (isDict(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, toPlain(x)]));
  return v;
}

// ---------- value semantics (BFCL backends) ----------

/** A Python object with its own __eq__ (e.g. BFCL's File/Directory). */
export interface PyEq { pyEq(other: unknown): boolean }

function hasPyEq(v: unknown): v is PyEq {
  return typeof v === 'object' && v !== null && typeof (v as PyEq).pyEq === 'function';
}

function isNum(v: unknown): boolean {
  return typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean' || v instanceof PyFloat;
}

/** Key as Python hashes it: True/1/1.0 are the same dict key, '1' is not. */
export function pyKey(k: unknown): unknown {
  if (k === true) return 1;
  if (k === false) return 0;
  if (k instanceof PyFloat) return k.value;
  return k;
}

/** Python `==` over the value model of this file (bool is an int, list != tuple, dict order ignored). */
export function pyEquals(a: unknown, b: unknown): boolean {
  if (a === undefined) a = null;
  if (b === undefined) b = null;
  if (a === b) return true;
  if (hasPyEq(a)) return a.pyEq(b);
  if (hasPyEq(b)) return b.pyEq(a);
  if (isNum(a) && isNum(b)) {
    const x = pyKey(a);
    const y = pyKey(b);
    if (typeof x === 'bigint' || typeof y === 'bigint') {
      if (typeof x === 'bigint' && typeof y === 'bigint') return x === y;
      const n = (typeof x === 'bigint' ? y : x) as number;
      return Number.isInteger(n) && BigInt(n) === (typeof x === 'bigint' ? x : y);
    }
    return x === y;
  }
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => pyEquals(x, b[i]));
  if (a instanceof PyTuple) return b instanceof PyTuple && a.items.length === b.items.length && a.items.every((x, i) => pyEquals(x, b.items[i]));
  if (a instanceof PyOpaque) return b instanceof PyOpaque && a.repr === b.repr;
  if (a instanceof Set) {
    if (!(b instanceof Set) || a.size !== b.size) return false;
    for (const x of a) if (![...b].some((y) => pyEquals(x, y))) return false;
    return true;
  }
  if (isDict(a) && isDict(b)) {
    const ea = entries(a);
    const eb = entries(b);
    if (ea.length !== eb.length) return false;
    const mb = new Map<unknown, unknown>(eb.map(([k, v]) => [pyKey(k), v]));
    return ea.every(([k, v]) => mb.has(pyKey(k)) && pyEquals(v, mb.get(pyKey(k))));
  }
  return false;
}

/** type(x).__name__ for error messages. */
export function pyTypeName(v: unknown): string {
  if (v === null || v === undefined) return 'NoneType';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'string') return 'str';
  if (v instanceof PyFloat) return 'float';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int' : 'float';
  if (typeof v === 'bigint') return 'int';
  if (Array.isArray(v)) return 'list';
  if (v instanceof PyTuple) return 'tuple';
  if (v instanceof Set) return 'set';
  if (isDict(v)) return 'dict';
  if (v instanceof PyOpaque) return v.repr.split('(')[0];
  const name = (v as { pyTypeName?: string }).pyTypeName;
  return typeof name === 'string' ? name : 'object';
}

/**
 * copy.deepcopy for the value model: shared sub-objects stay shared within the copy (memo), objects
 * with a `pyDeepCopy(memo)` method copy themselves.
 */
export function pyDeepCopy<T>(v: T, memo: Map<unknown, unknown> = new Map()): T {
  if (typeof v !== 'object' || v === null || v instanceof PyFloat || v instanceof PyOpaque) return v;
  if (memo.has(v)) return memo.get(v) as T;
  const custom = (v as { pyDeepCopy?: (m: Map<unknown, unknown>) => unknown }).pyDeepCopy;
  if (typeof custom === 'function') return custom.call(v, memo) as T;
  if (Array.isArray(v)) {
    const out: unknown[] = [];
    memo.set(v, out);
    for (const x of v) out.push(pyDeepCopy(x, memo));
    return out as T;
  }
  if (v instanceof PyTuple) {
    const out = new PyTuple(v.items.map((x) => pyDeepCopy(x, memo)));
    memo.set(v, out);
    return out as T;
  }
  if (v instanceof Set) {
    const out = new Set<unknown>();
    memo.set(v, out);
    for (const x of v) out.add(pyDeepCopy(x, memo));
    return out as T;
  }
  if (v instanceof Map) {
    const out = new Map<unknown, unknown>();
    memo.set(v, out);
    for (const [k, x] of v) out.set(k, pyDeepCopy(x, memo));
    return out as T;
  }
  if (isDict(v)) {
    const out: Record<string, unknown> = Object.create(null);
    memo.set(v, out);
    for (const [k, x] of Object.entries(v)) out[k] = pyDeepCopy(x, memo);
    return out as T;
  }
  return v;
}

/** Every dict (plain object or Map) becomes a Map, recursively, keeping key order. */
export function toMapDeep(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(toMapDeep);
  if (v instanceof PyTuple) return new PyTuple(v.items.map(toMapDeep));
  if (v instanceof Map) return new Map([...v.entries()].map(([k, x]) => [k, toMapDeep(x)]));
  if (isDict(v)) return new Map(Object.entries(v).map(([k, x]) => [k, toMapDeep(x)]));
  return v;
}

/** Python raised an exception: `pyType` is the class name, `message` is str(e). */
export class PyException extends Error {
  constructor(public readonly pyType: string, message: string) { super(message); }
}

export interface PyParam { name: string; default?: unknown; hasDefault?: boolean }

function joinNames(names: string[]): string {
  const q = names.map((n) => `'${n}'`);
  if (q.length === 1) return q[0];
  if (q.length === 2) return `${q[0]} and ${q[1]}`;
  return `${q.slice(0, -1).join(', ')}, and ${q[q.length - 1]}`;
}

/**
 * Bind a call to a Python method's parameters (self excluded) the way CPython 3.11 does, raising the
 * same TypeError texts in the same order: unexpected/duplicate keyword, too many positional, missing.
 */
export function bindPyArgs(qualname: string, params: PyParam[], args: unknown[], kwargs: Record<string, unknown>): unknown[] {
  const bound: unknown[] = new Array(params.length);
  const set = new Array<boolean>(params.length).fill(false);
  for (let i = 0; i < Math.min(args.length, params.length); i++) { bound[i] = args[i]; set[i] = true; }
  for (const [k, v] of Object.entries(kwargs)) {
    // `self` is bound positionally by the method call itself, so a keyword for it is a duplicate.
    if (k === 'self') throw new PyException('TypeError', `${qualname}() got multiple values for argument 'self'`);
    const idx = params.findIndex((p) => p.name === k);
    if (idx < 0) throw new PyException('TypeError', `${qualname}() got an unexpected keyword argument '${k}'`);
    if (set[idx]) throw new PyException('TypeError', `${qualname}() got multiple values for argument '${k}'`);
    bound[idx] = v;
    set[idx] = true;
  }
  if (args.length > params.length) {
    const nDefaults = params.filter((p) => p.hasDefault).length;
    const max = params.length + 1;
    const min = max - nDefaults;
    const takes = min === max ? `${max} positional argument${max === 1 ? '' : 's'}` : `from ${min} to ${max} positional arguments`;
    const given = args.length + 1;
    throw new PyException('TypeError', `${qualname}() takes ${takes} but ${given} ${given === 1 ? 'was' : 'were'} given`);
  }
  const missing: string[] = [];
  params.forEach((p, i) => {
    if (set[i]) return;
    if (p.hasDefault) bound[i] = p.default;
    else missing.push(p.name);
  });
  if (missing.length) {
    throw new PyException('TypeError', `${qualname}() missing ${missing.length} required positional argument${missing.length === 1 ? '' : 's'}: ${joinNames(missing)}`);
  }
  return bound;
}

/**
 * A port's method call: look `method` up in its signature table (AttributeError if absent, as getattr
 * would raise) and bind the arguments like CPython.
 */
export function bindMethod(className: string, table: Record<string, PyParam[]>, method: string, args: unknown[], kwargs: Record<string, unknown>): unknown[] {
  const params = Object.prototype.hasOwnProperty.call(table, method) ? table[method] : undefined;
  if (!params) throw new PyException('AttributeError', `'${className}' object has no attribute '${method}'`);
  return bindPyArgs(`${className}.${method}`, params, args, kwargs);
}

/** A value used as a dict (`.keys()`, `.items()`…): AttributeError naming its real type otherwise. */
export function asPyMap(v: unknown, attr: string): Map<unknown, unknown> {
  if (v instanceof Map) return v;
  throw new PyException('AttributeError', `'${pyTypeName(v)}' object has no attribute '${attr}'`);
}

/** A value used as a list (`.append()`…): AttributeError naming its real type otherwise. */
export function asPyList(v: unknown, attr: string): unknown[] {
  if (Array.isArray(v)) return v;
  throw new PyException('AttributeError', `'${pyTypeName(v)}' object has no attribute '${attr}'`);
}

/** bool(x). */
export function pyTruthy(v: unknown): boolean {
  if (v === null || v === undefined || v === false) return false;
  if (v === true) return true;
  if (typeof v === 'number') return v !== 0 && !Number.isNaN(v) ? true : Number.isNaN(v);
  if (typeof v === 'bigint') return v !== 0n;
  if (v instanceof PyFloat) return v.value !== 0;
  if (typeof v === 'string') return v.length > 0;
  if (Array.isArray(v)) return v.length > 0;
  if (v instanceof PyTuple) return v.items.length > 0;
  if (v instanceof Set || v instanceof Map) return v.size > 0;
  if (isDict(v)) return Object.keys(v).length > 0;
  return true;
}

/** str.splitlines() (no keepends): every line boundary Python recognises. */
export function pySplitlines(s: string): string[] {
  const out: string[] = [];
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '\r' && s[i + 1] === '\n') { out.push(s.slice(start, i)); i++; start = i + 1; continue; }
    if ('\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029'.includes(c)) { out.push(s.slice(start, i)); start = i + 1; }
  }
  if (start < s.length) out.push(s.slice(start));
  return out;
}

const PY_WS = /[\t\n\v\f\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/;

/** str.split() with no separator. */
export function pySplitWhitespace(s: string): string[] {
  return s.split(PY_WS).filter((x) => x !== '');
}

/** Python str ordering (by code point; JS compares UTF-16 units). */
export function pyCompareStr(a: string, b: string): number {
  const A = [...a];
  const B = [...b];
  for (let i = 0; i < Math.min(A.length, B.length); i++) {
    const d = A[i].codePointAt(0)! - B[i].codePointAt(0)!;
    if (d) return d < 0 ? -1 : 1;
  }
  return A.length === B.length ? 0 : A.length < B.length ? -1 : 1;
}

/** Items of `for x in v`; throws PyException(TypeError) where Python would. */
export function pyIterate(v: unknown): unknown[] {
  if (typeof v === 'string') return [...v];
  if (Array.isArray(v)) return v;
  if (v instanceof PyTuple) return v.items;
  if (v instanceof Set) return [...v];
  if (v instanceof Map) return [...v.keys()];
  if (isDict(v)) return Object.keys(v);
  throw new PyException('TypeError', `'${pyTypeName(v)}' object is not iterable`);
}

/** hash(x) would succeed. */
export function pyHashable(v: unknown): boolean {
  if (Array.isArray(v) || v instanceof Set || v instanceof Map || isDict(v)) return false;
  if (v instanceof PyTuple) return v.items.every(pyHashable);
  return true;
}

/** The existing key of a Map-backed dict that equals `key` the Python way (or undefined). */
export function pyDictFindKey(d: Map<unknown, unknown>, key: unknown): { found: boolean; key: unknown } {
  if (!pyHashable(key)) throw new PyException('TypeError', `unhashable type: '${pyTypeName(key)}'`);
  if (d.has(key)) return { found: true, key };
  const k = pyKey(key);
  for (const existing of d.keys()) {
    const e = pyKey(existing);
    if (e === k || ((typeof e === 'number' || typeof e === 'bigint') && (typeof k === 'number' || typeof k === 'bigint') && pyEquals(e, k))
      || (e instanceof PyTuple && pyEquals(e, k))) return { found: true, key: existing };
  }
  return { found: false, key };
}

/** `x in container` for the containers the backends use. */
export function pyContains(container: unknown, x: unknown): boolean {
  if (typeof container === 'string') {
    if (typeof x !== 'string') throw new PyException('TypeError', `'in <string>' requires string as left operand, not ${pyTypeName(x)}`);
    return container.includes(x);
  }
  if (container instanceof Map) return pyDictFindKey(container, x).found;
  if (isDict(container)) {
    if (!pyHashable(x)) throw new PyException('TypeError', `unhashable type: '${pyTypeName(x)}'`);
    return typeof x === 'string' && Object.prototype.hasOwnProperty.call(container, x);
  }
  if (container instanceof Set) {
    if (!pyHashable(x)) throw new PyException('TypeError', `unhashable type: '${pyTypeName(x)}'`);
    for (const y of container) if (pyEquals(x, y)) return true;
    return false;
  }
  if (Array.isArray(container) || container instanceof PyTuple) return pyIterate(container).some((y) => pyEquals(x, y));
  throw new PyException('TypeError', `argument of type '${pyTypeName(container)}' is not iterable`);
}

/** f"{x:.{d}f}": exact binary value rounded half-even (JS toFixed rounds ties away from zero). */
export function pyFormatFixed(x: number, d: number): string {
  if (!Number.isFinite(x)) return Number.isNaN(x) ? 'nan' : x > 0 ? 'inf' : '-inf';
  if (Math.abs(x) >= 1e21) return BigInt(x).toString() + (d > 0 ? '.' + '0'.repeat(d) : '');
  const neg = x < 0 || Object.is(x, -0);
  const exact = Math.abs(x).toFixed(100);
  const [ip, fp] = exact.split('.');
  const keep = fp.slice(0, d);
  const rest = fp.slice(d);
  let digits = BigInt(ip + keep);
  const first = rest[0] ?? '0';
  const tail = rest.slice(1).replace(/0+$/, '');
  const lastEven = Number((ip + keep).slice(-1)) % 2 === 0;
  if (first > '5' || (first === '5' && (tail !== '' || !lastEven))) digits += 1n;
  let s = digits.toString().padStart(d + 1, '0');
  s = d > 0 ? `${s.slice(0, s.length - d)}.${s.slice(s.length - d)}` : s;
  return (neg ? '-' : '') + s;
}
