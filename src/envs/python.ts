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
  const n = v as number;
  return Number.isInteger(n) ? pyIntRepr(n) : pyFloatRepr(n);
}

function entries(d: PyDict): [string | number, unknown][] {
  return d instanceof Map ? [...d.entries()] : Object.entries(d);
}

function isDict(v: unknown): v is PyDict {
  if (v instanceof Map) return true;
  return typeof v === 'object' && v !== null && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype;
}

// ---------- json.dumps ----------

export interface DumpsOptions {
  sortKeys?: boolean;
  ensureAscii?: boolean;       // default true, like Python
  itemSeparator?: string;      // default ', '
  keySeparator?: string;       // default ': '
}

function jsonString(s: string, ensureAscii: boolean): string {
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
  if (typeof k === 'number' || k instanceof PyFloat) return numberRepr(k);
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
  if (typeof v === 'number' || v instanceof PyFloat) return numberRepr(v);
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
    const o: Record<string, unknown> = {};
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
