// Python value semantics the BFCL backend ports need beyond formatting: int/float arithmetic, comparisons,
// truthiness, dict keys, float()/int()/round(), and CPython's argument binding with its exact TypeError
// texts. A model can send any argument types, and BFCL reports whatever Python raises, so the ports go
// through these helpers instead of using JS operators directly.

import { bindPyArgs, PyFloat, PyTuple, pyRepr, pyStrRepr, pyTypeName } from '../python';
import { BfclBackend, BfclPyError } from './backend';

export type PyMap = Map<string | number, unknown>;

export const F = (v: number): PyFloat => new PyFloat(v);

export function typeError(msg: string): BfclPyError { return new BfclPyError('TypeError', msg); }
export function valueError(msg: string): BfclPyError { return new BfclPyError('ValueError', msg); }
export function keyError(key: unknown): BfclPyError { return new BfclPyError('KeyError', pyRepr(key)); }
export function attributeError(v: unknown, attr: string): BfclPyError {
  return new BfclPyError('AttributeError', `'${pyTypeName(v)}' object has no attribute '${attr}'`);
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && [Object.prototype, null].includes(Object.getPrototypeOf(v));
}

export function isPyDict(v: unknown): v is PyMap | Record<string, unknown> {
  return v instanceof Map || isPlainObject(v);
}

export { pyTypeName };

/**
 * Deep copy into the internal model: every dict becomes a Map (so key order survives any later insert),
 * lists are copied, PyFloat and primitives are kept. This is Python's deepcopy for JSON-like values.
 */
export function toPy(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(toPy);
  if (v instanceof Map) return new Map([...v.entries()].map(([k, x]) => [k, toPy(x)]));
  if (isPlainObject(v)) return new Map(Object.entries(v).map(([k, x]) => [k, toPy(x)]));
  if (v instanceof PyTuple) return new PyTuple(v.items.map(toPy));
  if (v instanceof Set) return new Set([...v].map(toPy));
  return v === undefined ? null : v;
}

// ---------- numbers ----------

function isNumeric(v: unknown): v is number | PyFloat | boolean {
  return typeof v === 'number' || v instanceof PyFloat || typeof v === 'boolean';
}

function isPyInt(v: unknown): boolean {
  return typeof v === 'boolean' || (typeof v === 'number' && Number.isInteger(v));
}

function isPyFloatValue(v: unknown): boolean {
  return v instanceof PyFloat || (typeof v === 'number' && !Number.isInteger(v));
}

/** The numeric value of an int/float/bool. */
export function num(v: unknown): number {
  if (v instanceof PyFloat) return v.value;
  if (typeof v === 'boolean') return v ? 1 : 0;
  return v as number;
}

function numResult(a: unknown, b: unknown, value: number): unknown {
  return isPyFloatValue(a) || isPyFloatValue(b) ? new PyFloat(value) : value;
}

const unsupported = (op: string, a: unknown, b: unknown): BfclPyError =>
  typeError(`unsupported operand type(s) for ${op}: '${pyTypeName(a)}' and '${pyTypeName(b)}'`);

export function pyAdd(a: unknown, b: unknown): unknown {
  if (isNumeric(a) && isNumeric(b)) return numResult(a, b, num(a) + num(b));
  if (typeof a === 'string' && typeof b === 'string') return a + b;
  if (Array.isArray(a) && Array.isArray(b)) return [...a, ...b];
  if (typeof a === 'string') throw typeError(`can only concatenate str (not "${pyTypeName(b)}") to str`);
  if (Array.isArray(a)) throw typeError(`can only concatenate list (not "${pyTypeName(b)}") to list`);
  throw unsupported('+', a, b);
}

export function pySub(a: unknown, b: unknown): unknown {
  if (isNumeric(a) && isNumeric(b)) return numResult(a, b, num(a) - num(b));
  throw unsupported('-', a, b);
}

export function pyMul(a: unknown, b: unknown): unknown {
  if (isNumeric(a) && isNumeric(b)) return numResult(a, b, num(a) * num(b));
  const seq = typeof a === 'string' || Array.isArray(a) ? a : typeof b === 'string' || Array.isArray(b) ? b : null;
  if (seq !== null) {
    const times = seq === a ? b : a;
    if (!isPyInt(times)) throw typeError(`can't multiply sequence by non-int of type '${pyTypeName(times)}'`);
    const n = Math.max(0, num(times));
    if (typeof seq === 'string') return seq.repeat(n);
    return Array.from({ length: n }, () => seq).flat();
  }
  throw unsupported('*', a, b);
}

export function pyTrueDiv(a: unknown, b: unknown): PyFloat {
  if (!(isNumeric(a) && isNumeric(b))) throw unsupported('/', a, b);
  if (num(b) === 0) {
    throw new BfclPyError('ZeroDivisionError', isPyFloatValue(a) || isPyFloatValue(b) ? 'float division by zero' : 'division by zero');
  }
  return new PyFloat(num(a) / num(b));
}

/** a % b with Python's sign rule (the result takes the divisor's sign). */
export function pyMod(a: unknown, b: unknown): unknown {
  if (!(isNumeric(a) && isNumeric(b))) throw unsupported('%', a, b);
  const x = num(a);
  const y = num(b);
  const isF = isPyFloatValue(a) || isPyFloatValue(b);
  if (y === 0) throw new BfclPyError('ZeroDivisionError', isF ? 'float modulo' : 'integer division or modulo by zero');
  let r = x % y;
  if (r !== 0 && (r < 0) !== (y < 0)) r += y;
  return isF ? new PyFloat(r) : r;
}

export function pyAbs(a: unknown): unknown {
  if (!isNumeric(a)) throw typeError(`bad operand type for abs(): '${pyTypeName(a)}'`);
  return isPyFloatValue(a) ? new PyFloat(Math.abs(num(a))) : Math.abs(num(a));
}

type CmpOp = '<' | '<=' | '>' | '>=';

/** Ordering comparison as Python does it for numbers and strings; other mixes raise TypeError. */
export function pyCmp(op: CmpOp, a: unknown, b: unknown): boolean {
  let c: number;
  if (isNumeric(a) && isNumeric(b)) {
    const x = num(a);
    const y = num(b);
    if (Number.isNaN(x) || Number.isNaN(y)) return false;
    c = x < y ? -1 : x > y ? 1 : 0;
  } else if (typeof a === 'string' && typeof b === 'string') {
    c = compareCodePoints(a, b);
  } else {
    throw typeError(`'${op}' not supported between instances of '${pyTypeName(a)}' and '${pyTypeName(b)}'`);
  }
  return op === '<' ? c < 0 : op === '<=' ? c <= 0 : op === '>' ? c > 0 : c >= 0;
}

function compareCodePoints(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i].codePointAt(0)! - y[i].codePointAt(0)!;
    if (d !== 0) return d < 0 ? -1 : 1;
  }
  return x.length === y.length ? 0 : x.length < y.length ? -1 : 1;
}

function dictEntries(d: PyMap | Record<string, unknown>): [string | number, unknown][] {
  return d instanceof Map ? [...d.entries()] : Object.entries(d);
}

/** Python ==: numbers across int/float/bool, lists and dicts structurally, everything else by identity. */
export function pyEq(a: unknown, b: unknown): boolean {
  if (isNumeric(a) && isNumeric(b)) return num(a) === num(b);
  if (a === null || a === undefined) return b === null || b === undefined;
  if (typeof a === 'string') return a === b;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => pyEq(x, b[i]));
  if (a instanceof PyTuple) {
    return b instanceof PyTuple && a.items.length === b.items.length && a.items.every((x, i) => pyEq(x, b.items[i]));
  }
  if (isPyDict(a)) {
    if (!isPyDict(b)) return false;
    const ea = dictEntries(a);
    const bm = b instanceof Map ? b : new Map(Object.entries(b));
    return ea.length === bm.size && ea.every(([k, v]) => bm.has(k) && pyEq(v, bm.get(k)));
  }
  return a === b;
}

export function pyTruthy(v: unknown): boolean {
  if (v === null || v === undefined || v === false) return false;
  if (v === true) return true;
  if (typeof v === 'number' || v instanceof PyFloat) return num(v) !== 0;
  if (typeof v === 'string' || Array.isArray(v)) return v.length > 0;
  if (v instanceof PyTuple) return v.items.length > 0;
  if (v instanceof Map || v instanceof Set) return v.size > 0;
  if (isPlainObject(v)) return Object.keys(v).length > 0;
  return true;
}

const FLOAT_RE = /^[+-]?(?:(?:\d(?:_?\d)*)(?:\.(?:\d(?:_?\d)*)?)?|\.\d(?:_?\d)*)(?:[eE][+-]?\d(?:_?\d)*)?$/;
const SPECIAL_FLOAT_RE = /^([+-]?)(inf|infinity|nan)$/i;

/** float(x). */
export function pyFloatOf(v: unknown): PyFloat {
  if (v instanceof PyFloat) return v;
  if (typeof v === 'number') return new PyFloat(v);
  if (typeof v === 'boolean') return new PyFloat(v ? 1 : 0);
  if (typeof v === 'string') {
    const s = v.trim();
    if (FLOAT_RE.test(s)) return new PyFloat(Number(s.replace(/_/g, '')));
    const m = SPECIAL_FLOAT_RE.exec(s);
    if (m) return new PyFloat(m[2].toLowerCase() === 'nan' ? NaN : m[1] === '-' ? -Infinity : Infinity);
    throw valueError(`could not convert string to float: ${pyStrRepr(v)}`);
  }
  throw typeError(`float() argument must be a string or a real number, not '${pyTypeName(v)}'`);
}

/** int(x). */
export function pyIntOf(v: unknown): number {
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'number' || v instanceof PyFloat) {
    const x = num(v);
    if (Number.isNaN(x)) throw valueError('cannot convert float NaN to integer');
    if (!Number.isFinite(x)) throw new BfclPyError('OverflowError', 'cannot convert float infinity to integer');
    return Math.trunc(x) || 0;
  }
  if (typeof v === 'string') {
    const s = v.trim();
    if (/^[+-]?\d(?:_?\d)*$/.test(s)) return Number(s.replace(/_/g, ''));
    throw valueError(`invalid literal for int() with base 10: ${pyStrRepr(v)}`);
  }
  throw typeError(`int() argument must be a string, a bytes-like object or a real number, not '${pyTypeName(v)}'`);
}

/** |x| as an exact decimal: digits / 10^scale (every double has a finite decimal expansion). */
function exactDecimal(x: number): { digits: bigint; scale: number } {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, Math.abs(x));
  const hi = view.getUint32(0);
  const lo = view.getUint32(4);
  const expBits = (hi >>> 20) & 0x7ff;
  let mant = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  let exp: number;
  if (expBits === 0) exp = -1074;
  else { mant |= 1n << 52n; exp = expBits - 1075; }
  if (exp >= 0) return { digits: mant << BigInt(exp), scale: 0 };
  return { digits: mant * 5n ** BigInt(-exp), scale: -exp };
}

/** |x| rounded half-to-even at n decimals, as an integer count of 10^-n units. */
function roundedUnits(x: number, n: number): bigint {
  const { digits, scale } = exactDecimal(x);
  if (scale <= n) return digits * 10n ** BigInt(n - scale);
  const div = 10n ** BigInt(scale - n);
  let q = digits / div;
  const r = digits % div;
  const twice = r * 2n;
  if (twice > div || (twice === div && q % 2n === 1n)) q += 1n;
  return q;
}

/** round(x, n) for n >= 0: ints come back unchanged, floats rounded half-even on their exact value. */
export function pyRound(v: unknown, n: number): unknown {
  if (!isNumeric(v)) throw typeError(`type ${pyTypeName(v)} doesn't define __round__ method`);
  if (isPyInt(v)) return num(v);
  const x = num(v);
  if (!Number.isFinite(x) || x === 0) return new PyFloat(x);
  const q = roundedUnits(x, n);
  const r = Number(`${q}e-${n}`);
  return new PyFloat(x < 0 ? -r : r);
}

/** format(x, '.nf'). */
export function pyFormatFixed(v: unknown, n: number): string {
  if (!isNumeric(v)) throw new BfclPyError('ValueError', `Unknown format code 'f' for object of type '${pyTypeName(v)}'`);
  const x = num(v);
  if (Number.isNaN(x)) return 'nan';
  if (!Number.isFinite(x)) return x < 0 ? '-inf' : 'inf';
  const s = roundedUnits(x, n).toString().padStart(n + 1, '0');
  const body = n > 0 ? `${s.slice(0, s.length - n)}.${s.slice(s.length - n)}` : s;
  return (x < 0 || Object.is(x, -0) ? '-' : '') + body;
}

// ---------- dicts, lists, strings ----------

/** The Map key Python would find for this value (1.0 and True hash like 1). */
export function pyKey(k: unknown): string | number {
  if (typeof k === 'string') return k;
  if (typeof k === 'number') return k;
  if (k instanceof PyFloat) return k.value;
  if (typeof k === 'boolean') return k ? 1 : 0;
  if (k === null || k === undefined) return '\u0000None';
  throw typeError(`unhashable type: '${pyTypeName(k)}'`);
}

export function dictHas(d: PyMap, k: unknown): boolean {
  return d.has(pyKey(k));
}

/** d[k], raising KeyError like Python. */
export function getItem(container: unknown, k: unknown): unknown {
  if (container instanceof Map) {
    const key = pyKey(k);
    if (!container.has(key)) throw keyError(k);
    return container.get(key);
  }
  if (Array.isArray(container) || typeof container === 'string') {
    const kind = Array.isArray(container) ? 'list' : 'string';
    if (!isPyInt(k)) {
      throw typeError(Array.isArray(container)
        ? `list indices must be integers or slices, not ${pyTypeName(k)}`
        : `string indices must be integers, not '${pyTypeName(k)}'`);
    }
    let i = num(k);
    if (i < 0) i += container.length;
    if (i < 0 || i >= container.length) throw new BfclPyError('IndexError', `${kind} index out of range`);
    return container[i];
  }
  throw typeError(`'${pyTypeName(container)}' object is not subscriptable`);
}

/** d.get(k, default). */
export function dictGet(d: unknown, k: unknown, dflt: unknown = null): unknown {
  if (!(d instanceof Map)) throw attributeError(d, 'get');
  const key = pyKey(k);
  return d.has(key) ? d.get(key) : dflt;
}

export function setItem(container: unknown, k: unknown, v: unknown): void {
  if (container instanceof Map) { container.set(pyKey(k), v); return; }
  throw typeError(`'${pyTypeName(container)}' object does not support item assignment`);
}

/** `x in container` for lists, dicts and strings. */
export function pyIn(x: unknown, container: unknown): boolean {
  if (container instanceof Map) return container.has(pyKey(x));
  if (Array.isArray(container)) return container.some((y) => pyEq(y, x));
  if (typeof container === 'string') {
    if (typeof x !== 'string') throw typeError(`'in <string>' requires string as left operand, not ${pyTypeName(x)}`);
    return container.includes(x);
  }
  throw typeError(`argument of type '${pyTypeName(container)}' is not iterable`);
}

/** iter(x) for the iterables a tool argument can be: list, tuple, str (characters), dict (keys). */
export function pyIter(v: unknown): unknown[] {
  if (Array.isArray(v)) return v;
  if (v instanceof PyTuple) return v.items;
  if (typeof v === 'string') return [...v];
  if (v instanceof Map) return [...v.keys()];
  if (v instanceof Set) return [...v];
  throw typeError(`'${pyTypeName(v)}' object is not iterable`);
}

export function strMethod(v: unknown, name: string): string {
  if (typeof v !== 'string') throw attributeError(v, name);
  return v;
}

// ---------- calls ----------

export const REQUIRED = Symbol('required');
export interface ParamSpec { name: string; default?: unknown }
export const req = (name: string): ParamSpec => ({ name, default: REQUIRED });
export const opt = (name: string, dflt: unknown = null): ParamSpec => ({ name, default: dflt });

/** CPython 3.11 argument binding (the one implementation lives in python.ts). */
export function bindArgs(qualname: string, params: ParamSpec[], args: unknown[], kwargs: Record<string, unknown>): unknown[] {
  return bindPyArgs(qualname, params.map((p) => (p.default === REQUIRED ? { name: p.name } : { name: p.name, default: p.default, hasDefault: true })), args, kwargs);
}

export interface MethodSpec<T> { params: ParamSpec[]; fn: (this: T, ...a: any[]) => unknown }

/**
 * Shared plumbing for the ports: a method table with Python signatures, argument binding, and argument
 * values converted to the internal model (dicts as Maps) so the methods see what Python would.
 */
export abstract class PyBackend<T extends PyBackend<T>> implements BfclBackend {
  abstract readonly className: string;
  protected abstract table(): Record<string, MethodSpec<T>>;
  abstract loadScenario(config: unknown, longContext: boolean): void;
  abstract state(): unknown;
  abstract clone(): BfclBackend;

  methods(): string[] {
    return Object.keys(this.table());
  }

  invoke(method: string, args: unknown[], kwargs: Record<string, unknown>): unknown {
    const spec = Object.prototype.hasOwnProperty.call(this.table(), method) ? this.table()[method] : undefined;
    if (!spec) throw new BfclPyError('AttributeError', `'${this.className}' object has no attribute '${method}'`);
    const pyKwargs: Record<string, unknown> = Object.create(null);
    for (const [k, v] of Object.entries(kwargs ?? {})) pyKwargs[k] = toPy(v);
    const bound = bindArgs(`${this.className}.${method}`, spec.params, (args ?? []).map(toPy), pyKwargs);
    return spec.fn.apply(this as unknown as T, bound);
  }
}

/** random.Random(seed) for the int seeds configs carry; CPython hashes other seed types, which is not ported. */
export function seedOf(v: unknown): number {
  if (typeof v === 'number' && Number.isInteger(v)) return v;
  if (typeof v === 'boolean') return v ? 1 : 0;
  throw new Error(`random_seed must be an int, got ${pyTypeName(v)}`);
}

/** scenario.get(key, default) on a config dict. */
export function cfg(scenario: PyMap, key: string, dflt: unknown): unknown {
  return scenario.has(key) ? scenario.get(key) : dflt;
}

/** The config as the ports read it: a Map (an absent config is {} in BFCL). */
export function configMap(config: unknown): PyMap {
  if (config === null || config === undefined) return new Map();
  const m = toPy(config);
  if (!(m instanceof Map)) throw attributeError(m, 'get');
  return m;
}
