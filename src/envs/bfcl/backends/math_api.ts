// BFCL's MathAPI (func_source_code/math_api.py). Stateless, but its results must keep Python's
// number semantics: int vs float, float repr, and two arbitrary-precision paths whose results reach
// the model through str(dict): `logarithm` (mpmath, repr "mpf('…')") and `square_root`
// (decimal.Decimal, repr "Decimal('…')"). Both are reproduced here with BigInt arithmetic.

import { BfclPyError, registerBackend, type BfclBackend } from '../backend';
import {
  bindMethod,
  pyCompareStr, pyEquals, pyIterate, pyTruthy, pyTypeName, PyFloat, PyOpaque, pyRepr, PyTuple, type PyParam,
} from '../../python';

const CLASS = 'MathAPI';

// ---------------------------------------------------------------- Python numbers

type PyNum = { float: false; v: bigint } | { float: true; v: number };

/** A Python int or float, or null for anything else (bool counts as int, as isinstance does). */
function asNum(v: unknown): PyNum | null {
  if (typeof v === 'boolean') return { float: false, v: v ? 1n : 0n };
  if (typeof v === 'bigint') return { float: false, v };
  if (v instanceof PyFloat) return { float: true, v: v.value };
  if (typeof v === 'number') return Number.isInteger(v) ? { float: false, v: BigInt(v) } : { float: true, v };
  return null;
}

function fromNum(n: PyNum): unknown {
  if (n.float) return new PyFloat(n.v);
  return n.v >= BigInt(Number.MIN_SAFE_INTEGER) && n.v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n.v) : n.v;
}

const toF = (n: PyNum): number => (n.float ? n.v : Number(n.v));

function typeErr(op: string, a: unknown, b: unknown): BfclPyError {
  return new BfclPyError('TypeError', `unsupported operand type(s) for ${op}: '${pyTypeName(a)}' and '${pyTypeName(b)}'`);
}

function pyAdd(a: unknown, b: unknown): unknown {
  const x = asNum(a);
  const y = asNum(b);
  if (x && y) return fromNum(!x.float && !y.float ? { float: false, v: x.v + y.v } : { float: true, v: toF(x) + toF(y) });
  if (typeof a === 'string' && typeof b === 'string') return a + b;
  if (Array.isArray(a) && Array.isArray(b)) return [...a, ...b];
  if (a instanceof PyTuple && b instanceof PyTuple) return new PyTuple([...a.items, ...b.items]);
  throw typeErr('+', a, b);
}

function pySub(a: unknown, b: unknown): unknown {
  const x = asNum(a);
  const y = asNum(b);
  if (x && y) return fromNum(!x.float && !y.float ? { float: false, v: x.v - y.v } : { float: true, v: toF(x) - toF(y) });
  throw typeErr('-', a, b);
}

function pyMul(a: unknown, b: unknown): unknown {
  const x = asNum(a);
  const y = asNum(b);
  if (x && y) return fromNum(!x.float && !y.float ? { float: false, v: x.v * y.v } : { float: true, v: toF(x) * toF(y) });
  throw typeErr('*', a, b);
}

function pyTrueDiv(a: unknown, b: unknown): unknown {
  const x = asNum(a);
  const y = asNum(b);
  if (!x || !y) throw typeErr('/', a, b);
  if (toF(y) === 0 && (!y.float || y.v === 0)) {
    throw new BfclPyError('ZeroDivisionError', !x.float && !y.float ? 'division by zero' : 'float division by zero');
  }
  return new PyFloat(!x.float && !y.float ? intDiv(x.v, y.v) : toF(x) / toF(y));
}

/** int / int correctly rounded, also beyond 2^53. */
function intDiv(a: bigint, b: bigint): number {
  const safe = (v: bigint) => v >= -(2n ** 53n) && v <= 2n ** 53n;
  if (safe(a) && safe(b)) return Number(a) / Number(b);
  const neg = (a < 0n) !== (b < 0n);
  const m = roundRational(a < 0n ? -a : a, b < 0n ? -b : b, 53);
  if (m.man === 0n) return neg ? -0 : 0;
  const v = Number(m.man) * 2 ** m.exp;
  return neg ? -v : v;
}

function pyPow(a: unknown, b: unknown): unknown {
  const x = asNum(a);
  const y = asNum(b);
  if (!x || !y) throw new BfclPyError('TypeError', `unsupported operand type(s) for ** or pow(): '${pyTypeName(a)}' and '${pyTypeName(b)}'`);
  if (!x.float && !y.float && y.v >= 0n) {
    if (y.v > 100000n && x.v !== 0n && x.v !== 1n && x.v !== -1n) throw new BfclPyError('OverflowError', 'exponent too large for this port');
    return fromNum({ float: false, v: x.v ** y.v });
  }
  const fx = toF(x);
  const fy = toF(y);
  if (fx === 0 && fy < 0) throw new BfclPyError('ZeroDivisionError', '0.0 cannot be raised to a negative power');
  const exact = exactIntPow(fx, fy) ?? roundedPow(fx, fy);
  if (exact !== null) return new PyFloat(exact);
  if (fx < 0 && !Number.isInteger(fy) && Number.isFinite(fy)) return complexPow(fx, fy);
  const r = fx ** fy;
  if (!Number.isFinite(r) && Number.isFinite(fx) && Number.isFinite(fy)) throw new BfclPyError('OverflowError', "(34, 'Numerical result out of range')");
  return new PyFloat(r);
}

/**
 * x ** n for an integral n, correctly rounded from the exact value (C's pow is, JS's is not always).
 * Null when the result leaves the normal double range, where the caller falls back to JS.
 */
function exactIntPow(x: number, n: number): number | null {
  if (!Number.isFinite(x) || x === 0 || !Number.isInteger(n) || Math.abs(n) > 1100) return null;
  const d = decomposeDouble(x);
  const k = BigInt(Math.abs(n));
  const man = d.man ** k;
  const exp = d.exp * Math.abs(n);
  const r = n >= 0 ? roundRational(man, 1n, 53) : roundRational(1n, man, 53);
  const e = n >= 0 ? r.exp + exp : r.exp - exp;
  const top = e + bitLen(r.man);
  if (top > 1024 || top < -1021) return null;
  const v = Number(r.man) * 2 ** e;
  return d.neg && (Math.abs(n) % 2 === 1) ? -v : v;
}

/** exp(v * 2^-w) * 2^w for a fixed-point v (|v| small after reduction by the caller). */
function expFixed(v: bigint, w: number): bigint {
  const one = 1n << BigInt(w);
  let term = one;
  let sum = 0n;
  for (let i = 1n; term !== 0n; i++) { sum += term; term = (term * v) / (one * i); }
  return sum;
}

/**
 * x ** y for finite x > 0 and non-integral y, rounded from a 160-bit evaluation of exp(y ln x):
 * matches C's (correctly rounded in practice) pow where JS's Math.pow can be an ulp off.
 */
function roundedPow(x: number, y: number): number | null {
  if (!(x > 0) || !Number.isFinite(x) || !Number.isFinite(y) || Number.isInteger(y)) return null;
  const approx = Math.log2(x) * y;
  if (!(Math.abs(approx) < 1000)) return null;
  const w = 160;
  const W = BigInt(w);
  const dx = decomposeDouble(x);
  const dy = decomposeDouble(y);
  let t = lnFixed(dx.man, dx.exp, w) * dy.man;
  t = dy.exp >= 0 ? t << BigInt(dy.exp) : t >> BigInt(-dy.exp);
  if (dy.neg) t = -t;
  const ln2 = ln2Fixed(w);
  // t = k ln2 + r with |r| <= ln2/2
  let k = t / ln2;
  let r = t - k * ln2;
  if (r * 2n > ln2) { k += 1n; r -= ln2; } else if (r * 2n < -ln2) { k -= 1n; r += ln2; }
  const e = expFixed(r, w);
  const m = roundRational(e, 1n << W, 53);
  const exp = m.exp + Number(k);
  const top = exp + bitLen(m.man);
  if (top > 1024 || top < -1021) return null;
  return Number(m.man) * 2 ** exp;
}

/** A negative float to a fractional power is a complex number in Python 3. */
function complexPow(x: number, y: number): PyOpaque {
  const len = Math.abs(x) ** y;
  const phase = Math.atan2(0, x) * y;
  const re = len * Math.cos(phase);
  const im = len * Math.sin(phase);
  // complex repr writes its parts like float repr minus a trailing '.0', and drops a +0.0 real part.
  const f = (v: number) => pyRepr(new PyFloat(v)).replace(/\.0$/, '');
  if (re === 0 && !Object.is(re, -0)) return new PyOpaque(`${f(im)}j`);
  const imS = (im < 0 || Object.is(im, -0) ? '-' : '+') + f(Math.abs(im));
  return new PyOpaque(`(${f(re)}${imS}j)`);
}

function pyAbs(a: unknown): unknown {
  const x = asNum(a);
  if (!x) throw new BfclPyError('TypeError', `bad operand type for abs(): '${pyTypeName(a)}'`);
  return fromNum(x.float ? { float: true, v: Math.abs(x.v) } : { float: false, v: x.v < 0n ? -x.v : x.v });
}

function pyLt(a: unknown, b: unknown): boolean {
  const x = asNum(a);
  const y = asNum(b);
  if (x && y) {
    if (!x.float && !y.float) return x.v < y.v;
    return toF(x) < toF(y);
  }
  if (typeof a === 'string' && typeof b === 'string') return pyCompareStr(a, b) < 0;
  throw new BfclPyError('TypeError', `'<' not supported between instances of '${pyTypeName(a)}' and '${pyTypeName(b)}'`);
}

function pySum(items: unknown): unknown {
  let acc: unknown = 0;
  for (const x of pyIterate(items)) acc = pyAdd(acc, x);
  return acc;
}

function pyLen(v: unknown): number {
  if (typeof v === 'string') return [...v].length;
  if (Array.isArray(v)) return v.length;
  if (v instanceof PyTuple) return v.items.length;
  if (v instanceof Set || v instanceof Map) return v.size;
  if (typeof v === 'object' && v !== null && [Object.prototype, null].includes(Object.getPrototypeOf(v))) return Object.keys(v).length;
  throw new BfclPyError('TypeError', `object of type '${pyTypeName(v)}' has no len()`);
}

/** operator.index(x) as used for precision arguments. */
function pyIndex(v: unknown): bigint {
  if (typeof v === 'boolean') return v ? 1n : 0n;
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v);
  throw new BfclPyError('TypeError', `'${pyTypeName(v)}' object cannot be interpreted as an integer`);
}

/** int(x) as mpmath's dps setter applies it. */
function pyIntConv(v: unknown): bigint {
  const n = asNum(v);
  if (n) return n.float ? BigInt(Math.trunc(n.v)) : n.v;
  if (typeof v === 'string') {
    const t = v.trim().replace(/_(?=\d)/g, '');
    if (/^[+-]?\d+$/.test(t)) return BigInt(t);
    throw new BfclPyError('ValueError', `invalid literal for int() with base 10: ${pyRepr(v)}`);
  }
  throw new BfclPyError('TypeError', `int() argument must be a string, a bytes-like object or a real number, not '${pyTypeName(v)}'`);
}

// ---------------------------------------------------------------- exact binary floats

const bitLen = (n: bigint): number => (n === 0n ? 0 : n.toString(2).length);

/** A nonnegative binary float man * 2^exp. */
interface Bin { man: bigint; exp: number }

/** n/d (both > 0) rounded to `prec` bits, ties to even. */
function roundRational(n: bigint, d: bigint, prec: number): Bin {
  if (n === 0n) return { man: 0n, exp: 0 };
  const s = prec + 2 - (bitLen(n) - bitLen(d));
  const N = s >= 0 ? n << BigInt(s) : n;
  const D = s >= 0 ? d : d << BigInt(-s);
  let q = N / D;
  const r = N % D;
  const extra = bitLen(q) - prec;
  if (extra <= 0) return { man: q, exp: -s };
  const low = q & ((1n << BigInt(extra)) - 1n);
  q >>= BigInt(extra);
  const half = 1n << BigInt(extra - 1);
  if (low > half || (low === half && (r !== 0n || (q & 1n) === 1n))) q += 1n;
  return { man: q, exp: extra - s };
}

/** The exact value of a finite double as sign * man * 2^exp. */
function decomposeDouble(x: number): { neg: boolean; man: bigint; exp: number } {
  const dv = new DataView(new ArrayBuffer(8));
  dv.setFloat64(0, x);
  const hi = dv.getUint32(0);
  const lo = dv.getUint32(4);
  const neg = (hi >>> 31) === 1;
  const e = (hi >>> 20) & 0x7ff;
  let man = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  let exp: number;
  if (e === 0) exp = -1074;
  else { man |= 1n << 52n; exp = e - 1075; }
  return { neg, man, exp };
}

// ---------------------------------------------------------------- mpmath mpf subset

type Mpf =
  | { kind: 'num'; neg: boolean; man: bigint; exp: number }
  | { kind: 'zero' } | { kind: 'inf'; neg: boolean } | { kind: 'nan' };

const LOG2_10 = 3.3219280948873626;
const dpsToPrec = (n: bigint): number => Math.max(1, Math.round((Number(n) + 1) * LOG2_10));
const precToDps = (n: number): number => Math.max(1, Math.trunc(pyRound0(n / LOG2_10) - 1));
const reprDps = (prec: number): number => { const d = precToDps(prec); return d === 15 ? 17 : d + 3; };

/** Python's round(x) for a float (ties to even). */
function pyRound0(x: number): number {
  const f = Math.floor(x);
  const diff = x - f;
  if (diff > 0.5) return f + 1;
  if (diff < 0.5) return f;
  return f % 2 === 0 ? f : f + 1;
}

function mpfFromRational(neg: boolean, n: bigint, d: bigint, prec: number): Mpf {
  if (n === 0n) return { kind: 'zero' };
  const r = roundRational(n, d, prec);
  return { kind: 'num', neg, man: r.man, exp: r.exp };
}

/** mpmath's conversion of a Python value to mpf at the working precision. */
function toMpf(v: unknown, prec: number): Mpf {
  const n = asNum(v);
  if (n && !n.float) {
    const a = n.v < 0n ? -n.v : n.v;
    return a === 0n ? { kind: 'zero' } : mpfFromRational(n.v < 0n, a, 1n, Math.max(prec, bitLen(a)));
  }
  if (n && n.float) return mpfFromDouble(n.v);
  if (typeof v === 'string' && /^\s*[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?\s*$/i.test(v)) {
    const m = /^\s*([+-]?)(\d*)\.?(\d*)(?:e([+-]?\d+))?\s*$/i.exec(v)!;
    const digits = BigInt((m[2] + m[3]) || '0');
    const e10 = Number(m[4] ?? 0) - m[3].length;
    const num = e10 >= 0 ? digits * 10n ** BigInt(e10) : digits;
    const den = e10 >= 0 ? 1n : 10n ** BigInt(-e10);
    return mpfFromRational(m[1] === '-', num, den, prec);
  }
  throw new BfclPyError('TypeError', `cannot create mpf from ${pyRepr(v)}`);
}

function mpfFromDouble(x: number): Mpf {
  if (Number.isNaN(x)) return { kind: 'nan' };
  if (!Number.isFinite(x)) return { kind: 'inf', neg: x < 0 };
  if (x === 0) return { kind: 'zero' };
  const d = decomposeDouble(x);
  return { kind: 'num', neg: d.neg, man: d.man, exp: d.exp };
}

// Fixed-point natural logarithms with `w` fractional bits.
const ln2Cache = new Map<number, bigint>();
function atanhInv(k: bigint, w: number): bigint {
  // atanh(1/k) = sum 1/((2i+1) k^(2i+1))
  const one = 1n << BigInt(w);
  let term = one / k;
  const k2 = k * k;
  let sum = 0n;
  for (let i = 1n; term !== 0n; i += 2n) { sum += term / i; term /= k2; }
  return sum;
}
function ln2Fixed(w: number): bigint {
  let v = ln2Cache.get(w);
  if (v === undefined) { v = 2n * atanhInv(3n, w); ln2Cache.set(w, v); }
  return v;
}
function piFixed(w: number): bigint {
  // Machin: pi = 16 atan(1/5) - 4 atan(1/239)
  const atanInv = (k: bigint): bigint => {
    const one = 1n << BigInt(w + 8);
    let term = one / k;
    const k2 = k * k;
    let sum = 0n;
    for (let i = 1n, sgn = 1n; term !== 0n; i += 2n, sgn = -sgn) { sum += (sgn * term) / i; term /= k2; }
    return sum;
  };
  return (16n * atanInv(5n) - 4n * atanInv(239n)) >> 8n;
}
/** ln(man * 2^exp) * 2^w (man > 0), accurate to a few units. */
function lnFixed(man: bigint, exp: number, w: number): bigint {
  const b = bitLen(man);
  // y = man / 2^b in [0.5, 1); move it into [1/sqrt2, sqrt2).
  let k = exp + b;
  const W = BigInt(w);
  let y = b <= w ? man << BigInt(w - b) : man >> BigInt(b - w);
  const one = 1n << W;
  if (y * y < (one * one) / 2n) { y <<= 1n; k -= 1; }
  const zs = ((y - one) << W) / (y + one);
  // atanh is odd: sum on |z| so the truncating shifts reach zero.
  const z = zs < 0n ? -zs : zs;
  const z2 = (z * z) >> W;
  let term = z;
  let sum = 0n;
  for (let i = 1n; term !== 0n; i += 2n) { sum += term / i; term = (term * z2) >> W; }
  return 2n * (zs < 0n ? -sum : sum) + BigInt(k) * ln2Fixed(w);
}

/** A fixed-point approximation v * 2^-w rounded to `prec` bits (adequate guard bits assumed). */
function roundFixed(v: bigint, w: number, prec: number): Mpf {
  if (v === 0n) return { kind: 'zero' };
  const neg = v < 0n;
  const r = roundRational(neg ? -v : v, 1n, prec);
  return { kind: 'num', neg, man: r.man, exp: r.exp - w };
}

/** mpmath.log(x) for real x at `prec` bits; a negative x gives a complex pair. */
function mpLog(x: Mpf, prec: number): { re: Mpf; im?: Mpf } {
  if (x.kind === 'zero') return { re: { kind: 'inf', neg: true } };
  if (x.kind === 'nan') return { re: x };
  if (x.kind === 'inf') {
    if (!x.neg) return { re: x };
    return { re: { kind: 'inf', neg: false }, im: roundFixed(piFixed(prec + 40), prec + 40, prec) };
  }
  let man = x.man;
  let exp = x.exp;
  while ((man & 1n) === 0n) { man >>= 1n; exp += 1; }
  const lnAbs = (): Mpf => {
    if (man === 1n && exp === 0) return { kind: 'zero' };
    for (let guard = 64; ; guard *= 2) {
      const w = prec + guard;
      const v = lnFixed(man, exp, w);
      if (v === 0n || bitLen(v < 0n ? -v : v) < prec + 24) {
        if (guard > 1 << 14) return roundFixed(v, w, prec);
        continue;
      }
      return roundFixed(v, w, prec);
    }
  };
  const re = lnAbs();
  if (!x.neg) return { re };
  return { re, im: roundFixed(piFixed(prec + 40), prec + 40, prec) };
}

function mpDiv(a: Mpf, b: Mpf, prec: number): Mpf {
  if (a.kind === 'zero') {
    if (b.kind === 'zero') throw new BfclPyError('ZeroDivisionError', '');
    if (b.kind === 'nan') return b;
    return { kind: 'zero' };
  }
  if (b.kind === 'zero') throw new BfclPyError('ZeroDivisionError', '');
  if (a.kind === 'nan' || b.kind === 'nan') return { kind: 'nan' };
  if (a.kind === 'inf' && b.kind === 'inf') return { kind: 'nan' };
  if (a.kind === 'inf') return { kind: 'inf', neg: a.neg !== (b as { neg: boolean }).neg };
  if (b.kind === 'inf') return { kind: 'zero' };
  const an = a as Extract<Mpf, { kind: 'num' }>;
  const bn = b as Extract<Mpf, { kind: 'num' }>;
  const r = roundRational(an.man, bn.man, prec);
  return { kind: 'num', neg: an.neg !== bn.neg, man: r.man, exp: r.exp + an.exp - bn.exp };
}

function mpMulExact(a: Mpf, b: Mpf): Mpf {
  if (a.kind !== 'num' || b.kind !== 'num') {
    if (a.kind === 'zero' || b.kind === 'zero') return { kind: 'zero' };
    throw new BfclPyError('ValueError', 'non-finite complex logarithm is not supported by this port');
  }
  return { kind: 'num', neg: a.neg !== b.neg, man: a.man * b.man, exp: a.exp + b.exp };
}

function mpAddRound(a: Mpf, b: Mpf, prec: number, negateB = false): Mpf {
  const val = (m: Mpf, flip: boolean): { num: bigint; exp: number } | null => {
    if (m.kind === 'zero') return null;
    if (m.kind !== 'num') throw new BfclPyError('ValueError', 'non-finite complex logarithm is not supported by this port');
    return { num: (m.neg !== flip ? -1n : 1n) * m.man, exp: m.exp };
  };
  const x = val(a, false);
  const y = val(b, negateB);
  if (!x && !y) return { kind: 'zero' };
  if (!x) return roundBig(y!.num, y!.exp, prec);
  if (!y) return roundBig(x.num, x.exp, prec);
  const e = Math.min(x.exp, y.exp);
  const s = (x.num << BigInt(x.exp - e)) + (y.num << BigInt(y.exp - e));
  return roundBig(s, e, prec);
}

function roundBig(num: bigint, exp: number, prec: number): Mpf {
  if (num === 0n) return { kind: 'zero' };
  const neg = num < 0n;
  const r = roundRational(neg ? -num : num, 1n, prec);
  return { kind: 'num', neg, man: r.man, exp: r.exp + exp };
}

/** libmp.to_str(x, dps) with mpmath's defaults (the text inside mpf('…')). */
function mpfToStr(x: Mpf, dps: number): string {
  if (x.kind === 'zero') return '0.0';
  if (x.kind === 'inf') return x.neg ? '-inf' : '+inf';
  if (x.kind === 'nan') return 'nan';
  const sign = x.neg ? '-' : '';
  const minFixed = Math.min(-Math.floor(dps / 3), -5);
  const maxFixed = dps;
  // to_digits_exp(x, dps + 3): truncated decimal digits
  const ddps = dps + 3;
  const bitprec = Math.trunc(ddps * LOG2_10) + 10;
  const bc = bitLen(x.man);
  const fixprec = Math.max(bitprec - x.exp - bc, 0);
  const fixdps = Math.trunc(fixprec / LOG2_10 + 0.5);
  const off = x.exp + fixprec;
  const sf = off >= 0 ? x.man << BigInt(off) : x.man >> BigInt(-off);
  const sd = (sf * 10n ** BigInt(fixdps)) >> BigInt(fixprec);
  let digits = sd.toString();
  let exponent = digits.length - fixdps - 1;
  if (digits.length > dps && '56789'.includes(digits[dps])) {
    digits = digits.slice(0, dps);
    let i = dps - 1;
    while (i >= 0 && digits[i] === '9') i--;
    if (i >= 0) digits = digits.slice(0, i) + String(Number(digits[i]) + 1) + '0'.repeat(dps - i - 1);
    else { digits = '1' + '0'.repeat(dps - 1); exponent += 1; }
  } else {
    digits = digits.slice(0, dps);
  }
  let split: number;
  if (minFixed < exponent && exponent < maxFixed) {
    if (exponent < 0) { digits = '0'.repeat(-exponent) + digits; split = 1; }
    else { split = exponent + 1; if (split > dps) digits += '0'.repeat(split - dps); }
    exponent = 0;
  } else {
    split = 1;
  }
  digits = digits.slice(0, split) + '.' + digits.slice(split);
  digits = digits.replace(/0+$/, '');
  if (digits.endsWith('.')) digits += '0';
  if (exponent === 0) return sign + digits;
  return sign + digits + (exponent > 0 ? 'e+' : 'e') + String(exponent);
}

const LOG_MAX_DPS = 10000n;

function logarithm(value: unknown, base: unknown, precision: unknown): unknown {
  // mpmath.mp.dps = precision
  const dps = pyIntConv(precision);
  // The port's fixed-point series cost grows about cubically with the digits (10,000 digits ≈ 1.4 s, 20,000 ≈ 10 s,
  // 86,426 ≈ minutes: a hang the fuzzer found, issue 21), where mpmath takes milliseconds: past 10,000 digits the
  // port refuses instead of freezing the worker. BFCL's tasks ask for tens of digits.
  if (dps > LOG_MAX_DPS) throw new BfclPyError('MemoryError', 'precision too large for this port');
  const prec = dpsToPrec(dps);
  const rd = reprDps(prec);
  const lv = mpLog(toMpf(value, prec), prec);
  const lb = mpLog(toMpf(base, prec), prec);
  if (!lv.im && !lb.im) return new PyOpaque(`mpf('${mpfToStr(mpDiv(lv.re, lb.re, prec), rd)}')`);
  let re: Mpf;
  let im: Mpf;
  if (!lb.im) {
    re = mpDiv(lv.re, lb.re, prec);
    im = mpDiv(lv.im!, lb.re, prec);
  } else {
    // libmpc.mpc_div: ((a c + b d) + (b c - a d) i) / (c^2 + d^2) with prec + 10 working bits
    const a = lv.re;
    const b = lv.im ?? ({ kind: 'zero' } as Mpf);
    const c = lb.re;
    const d = lb.im;
    const wp = prec + 10;
    const mag = mpAddRound(mpMulExact(c, c), mpMulExact(d, d), wp);
    const t = mpAddRound(mpMulExact(a, c), mpMulExact(b, d), wp);
    const u = mpAddRound(mpMulExact(b, c), mpMulExact(a, d), wp, true);
    re = mpDiv(t, mag, prec);
    im = mpDiv(u, mag, prec);
  }
  return new PyOpaque(`mpc(real='${mpfToStr(re, rd)}', imag='${mpfToStr(im, rd)}')`);
}

// ---------------------------------------------------------------- decimal.Decimal subset

interface Dec { neg: boolean; coef: bigint; exp: number }

function decFrom(v: unknown): Dec {
  const n = asNum(v)!;
  if (!n.float) return { neg: n.v < 0n, coef: n.v < 0n ? -n.v : n.v, exp: 0 };
  if (!Number.isFinite(n.v)) throw new BfclPyError('InvalidOperation', "[<class 'decimal.InvalidOperation'>]");
  const d = decomposeDouble(n.v);
  let man = d.man;
  let exp = d.exp;
  while (man !== 0n && (man & 1n) === 0n) { man >>= 1n; exp += 1; }
  if (man === 0n) return { neg: d.neg, coef: 0n, exp: 0 };
  if (exp >= 0) return { neg: d.neg, coef: man << BigInt(exp), exp: 0 };
  return { neg: d.neg, coef: man * 5n ** BigInt(-exp), exp };
}

function isqrt(n: bigint): bigint {
  if (n < 2n) return n;
  let x = 1n << BigInt(Math.ceil(bitLen(n) / 2));
  for (;;) {
    const y = (x + n / x) >> 1n;
    if (y >= x) return x;
    x = y;
  }
}

/** Decimal.sqrt() under a context of `prec` digits, ROUND_HALF_EVEN (CPython's algorithm). */
function decSqrt(x: Dec, prec: number): Dec {
  if (x.coef === 0n) return { neg: x.neg, coef: 0n, exp: x.exp >> 1 };
  const p = prec + 1;
  const nd = x.coef.toString().length;
  let e = x.exp >> 1;
  let c: bigint;
  let l: number;
  if (x.exp & 1) { c = x.coef * 10n; l = (nd >> 1) + 1; } else { c = x.coef; l = (nd + 1) >> 1; }
  const shift = p - l;
  let exact: boolean;
  if (shift >= 0) { c *= 100n ** BigInt(shift); exact = true; } else {
    const q = 100n ** BigInt(-shift);
    exact = c % q === 0n;
    c /= q;
  }
  e -= shift;
  let n = isqrt(c);
  exact = exact && n * n === c;
  if (exact) {
    if (shift >= 0) n /= 10n ** BigInt(shift); else n *= 10n ** BigInt(-shift);
    e += shift;
  } else if (n % 5n === 0n) {
    n += 1n;
  }
  return decRound({ neg: false, coef: n, exp: e }, prec);
}

function decRound(d: Dec, prec: number): Dec {
  const s = d.coef.toString();
  if (s.length <= prec) return d;
  const drop = s.length - prec;
  const p = 10n ** BigInt(drop);
  let q = d.coef / p;
  const r = d.coef % p;
  const half = p / 2n;
  if (r > half || (r === half && (q & 1n) === 1n)) q += 1n;
  let exp = d.exp + drop;
  if (q.toString().length > prec) { q /= 10n; exp += 1; }
  return { neg: d.neg, coef: q, exp };
}

/** str(Decimal) (to-scientific-string). */
function decToStr(d: Dec): string {
  const int = d.coef.toString();
  const left = d.exp + int.length;
  const dot = d.exp <= 0 && left > -6 ? left : 1;
  let ip: string;
  let fp: string;
  if (dot <= 0) { ip = '0'; fp = '.' + '0'.repeat(-dot) + int; } else if (dot >= int.length) { ip = int + '0'.repeat(dot - int.length); fp = ''; } else {
    ip = int.slice(0, dot);
    fp = '.' + int.slice(dot);
  }
  const ex = left === dot ? '' : 'E' + (left - dot >= 0 ? '+' : '-') + String(Math.abs(left - dot));
  return (d.neg ? '-' : '') + ip + fp + ex;
}

// ---------------------------------------------------------------- round()

/** round(number, ndigits) for the value model: floats via exact decimal digits, ints exactly. */
function pyRoundN(number: unknown, nd: unknown): unknown {
  const x = asNum(number);
  if (!x) throw new BfclPyError('TypeError', `type ${pyTypeName(number)} doesn't define __round__ method`);
  if (nd === null || nd === undefined) {
    if (!x.float) return fromNum(x);
    if (!Number.isFinite(x.v)) throw new BfclPyError(Number.isNaN(x.v) ? 'ValueError' : 'OverflowError', Number.isNaN(x.v) ? 'cannot convert float NaN to integer' : 'cannot convert float infinity to integer');
    return fromNum({ float: false, v: BigInt(roundDecimal(x.v, 0)) });
  }
  const n = pyIndex(nd);
  if (!x.float) {
    if (n >= 0n) return fromNum(x);
    const p = 10n ** -n;
    const neg = x.v < 0n;
    const a = neg ? -x.v : x.v;
    let q = a / p;
    const r = a % p;
    if (r * 2n > p || (r * 2n === p && (q & 1n) === 1n)) q += 1n;
    return fromNum({ float: false, v: (neg ? -q : q) * p });
  }
  if (!Number.isFinite(x.v)) return new PyFloat(x.v);
  if (n > 323n) return new PyFloat(x.v);
  if (n < -308n) return new PyFloat(0 * x.v);
  return new PyFloat(roundDecimal(x.v, Number(n)));
}

/** x rounded half-even to `nd` decimal places on its exact binary value, read back as a double. */
function roundDecimal(x: number, nd: number): number {
  if (nd >= 100) return x;
  const neg = x < 0 || Object.is(x, -0);
  const a = Math.abs(x);
  const exact = a >= 1e21 ? BigInt(a).toString() + '.' + '0'.repeat(100) : a.toFixed(100);
  const [ip, fp] = exact.split('.');
  let all = ip + fp;
  let cut = ip.length + nd;
  if (cut <= 0) { all = '0'.repeat(1 - cut) + all; cut = 1; }
  const keep = all.slice(0, cut);
  const first = all[cut] ?? '0';
  const tail = all.slice(cut + 1).replace(/0+$/, '');
  let q = BigInt(keep);
  const odd = (q & 1n) === 1n;
  if (first > '5' || (first === '5' && (tail !== '' || odd))) q += 1n;
  const s = nd >= 0 ? q.toString() + 'e-' + nd : q.toString() + 'e+' + -nd;
  const v = Number(s);
  return neg ? -v : v;
}

// ---------------------------------------------------------------- the API

const METHODS: Record<string, PyParam[]> = {
  logarithm: [{ name: 'value' }, { name: 'base' }, { name: 'precision' }],
  mean: [{ name: 'numbers' }],
  standard_deviation: [{ name: 'numbers' }],
  si_unit_conversion: [{ name: 'value' }, { name: 'unit_in' }, { name: 'unit_out' }],
  imperial_si_conversion: [{ name: 'value' }, { name: 'unit_in' }, { name: 'unit_out' }],
  add: [{ name: 'a' }, { name: 'b' }],
  subtract: [{ name: 'a' }, { name: 'b' }],
  multiply: [{ name: 'a' }, { name: 'b' }],
  divide: [{ name: 'a' }, { name: 'b' }],
  power: [{ name: 'base' }, { name: 'exponent' }],
  square_root: [{ name: 'number' }, { name: 'precision' }],
  absolute_value: [{ name: 'number' }],
  round_number: [{ name: 'number' }, { name: 'decimal_places', hasDefault: true, default: 0 }],
  percentage: [{ name: 'part' }, { name: 'whole' }],
  min_value: [{ name: 'numbers' }],
  max_value: [{ name: 'numbers' }],
  sum_values: [{ name: 'numbers' }],
};

const res = (v: unknown) => new Map([['result', v]]);
const err = (m: string) => new Map([['error', m]]);

/** try/except TypeError (and the other classes named) around `f`. */
function guard(f: () => unknown, message: string, types: string[] = ['TypeError']): unknown {
  try { return f(); } catch (e) {
    if (e instanceof BfclPyError && types.includes(e.pyType)) return err(message);
    if (e instanceof Error && types.includes((e as { pyType?: string }).pyType ?? '')) return err(message);
    throw e;
  }
}

const TO_METERS: [string, unknown][] = [['km', 1000], ['m', 1], ['cm', new PyFloat(0.01)], ['mm', new PyFloat(0.001)], ['um', new PyFloat(1e-6)], ['nm', new PyFloat(1e-9)]];
const IMPERIAL: Record<string, number> = {
  cm_to_in: 0.393701, in_to_cm: 2.54, m_to_ft: 3.28084, ft_to_m: 0.3048, m_to_yd: 1.09361, yd_to_m: 0.9144,
  km_to_miles: 0.621371, miles_to_km: 1.60934, kg_to_lb: 2.20462, lb_to_kg: 0.453592, celsius_to_fahrenheit: 1.8,
  fahrenheit_to_celsius: 5 / 9,
};

function isIntOrFloat(v: unknown): boolean { return asNum(v) !== null; }

function hashCheck(v: unknown): void {
  if (Array.isArray(v) || v instanceof Set || v instanceof Map || (typeof v === 'object' && v !== null && [Object.prototype, null].includes(Object.getPrototypeOf(v)))) {
    throw new BfclPyError('TypeError', `unhashable type: '${pyTypeName(v)}'`);
  }
}

/** f"{x}" for the keys BFCL builds from unit names. */
function fstr(v: unknown): string { return typeof v === 'string' ? v : pyRepr(v); }

export class MathAPI implements BfclBackend {
  readonly className = CLASS;

  loadScenario(_config: unknown, _longContext: boolean): void { /* stateless: BFCL never loads a scenario */ }

  methods(): string[] { return Object.keys(METHODS); }

  invoke(method: string, args: unknown[], kwargs: Record<string, unknown>): unknown {
    const a = bindMethod(CLASS, METHODS, method, args, kwargs);
    switch (method) {
      case 'logarithm':
        try { return res(logarithm(a[0], a[1], a[2])); } catch (e) {
          return err(e instanceof Error ? e.message : String(e));
        }
      case 'mean':
        if (!pyTruthy(a[0])) return err('Cannot calculate mean of an empty list');
        return guard(() => res(pyTrueDiv(pySum(a[0]), pyLen(a[0]))), 'All elements in the list must be numbers');
      case 'standard_deviation':
        if (!pyTruthy(a[0])) return err('Cannot calculate standard deviation of an empty list');
        return guard(() => {
          const n = pyLen(a[0]);
          const mean = pyTrueDiv(pySum(a[0]), n);
          let acc: unknown = 0;
          for (const x of pyIterate(a[0])) { const d = pySub(x, mean); acc = pyAdd(acc, pyPow(d, 2)); }
          const variance = pyTrueDiv(acc, n);
          const v = toF(asNum(variance)!);
          if (v < 0) throw new BfclPyError('ValueError', 'math domain error');
          return res(new PyFloat(Math.sqrt(v)));
        }, 'All elements in the list must be numbers');
      case 'si_unit_conversion': {
        const [value, uin, uout] = a;
        if (!isIntOrFloat(value)) return err('Value must be a number');
        hashCheck(uin);
        const inF = TO_METERS.find(([k]) => pyEquals(k, uin));
        if (inF) hashCheck(uout);
        const outF = inF ? TO_METERS.find(([k]) => pyEquals(k, uout)) : undefined;
        if (!inF || !outF) return err(`Conversion from '${fstr(uin)}' to '${fstr(uout)}' is not supported`);
        const fromMeters = pyTrueDiv(1, outF[1]);
        return res(pyMul(pyMul(value, inF[1]), fromMeters));
      }
      case 'imperial_si_conversion': {
        const [value, uin, uout] = a;
        if (!isIntOrFloat(value)) return err('Value must be a number');
        if (pyEquals(uin, uout)) return res(value);
        const key = `${fstr(uin)}_to_${fstr(uout)}`;
        if (!Object.prototype.hasOwnProperty.call(IMPERIAL, key)) return err(`Conversion from '${fstr(uin)}' to '${fstr(uout)}' is not supported`);
        const f = new PyFloat(IMPERIAL[key]);
        if (uin === 'celsius' && uout === 'fahrenheit') return res(pyAdd(pyMul(value, f), 32));
        if (uin === 'fahrenheit' && uout === 'celsius') return res(pyMul(pySub(value, 32), f));
        return res(pyMul(value, f));
      }
      case 'add': return guard(() => res(pyAdd(a[0], a[1])), 'Both inputs must be numbers');
      case 'subtract': return guard(() => res(pySub(a[0], a[1])), 'Both inputs must be numbers');
      case 'multiply':
        if (!isIntOrFloat(a[0]) || !isIntOrFloat(a[1])) return err('Both inputs must be numbers');
        return res(pyMul(a[0], a[1]));
      case 'divide':
        return guard(() => (pyEquals(a[1], 0) ? err('Cannot divide by zero') : res(pyTrueDiv(a[0], a[1]))), 'Both inputs must be numbers');
      case 'power': return guard(() => res(pyPow(a[0], a[1])), 'Both inputs must be numbers');
      case 'square_root':
        return guard(() => {
          if (pyLt(a[0], 0)) return err('Cannot calculate square root of a negative number');
          const p = pyIndex(a[1]);
          if (p < 1n || p > 999999999999999999n) throw new BfclPyError('ValueError', 'valid range for prec is [1, MAX_PREC]');
          if (p > 100000n) throw new BfclPyError('MemoryError', 'precision too large for this port');
          const d = decSqrt(decFrom(a[0]), Number(p));
          return res(new PyOpaque(`Decimal('${decToStr(d)}')`));
        }, 'Input must be a number or computation resulted in an invalid operation', ['TypeError', 'InvalidOperation']);
      case 'absolute_value': return guard(() => res(pyAbs(a[0])), 'Input must be a number');
      case 'round_number': return guard(() => res(pyRoundN(a[0], a[1])), 'First input must be a number, second input must be an integer');
      case 'percentage':
        return guard(() => (pyEquals(a[1], 0) ? err('Whole value cannot be zero') : res(pyMul(pyTrueDiv(a[0], a[1]), 100))), 'Both inputs must be numbers');
      case 'min_value':
      case 'max_value': {
        if (!pyTruthy(a[0])) return err(`Cannot find ${method === 'min_value' ? 'minimum' : 'maximum'} of an empty list`);
        return guard(() => {
          const items = pyIterate(a[0]);
          if (items.length === 0) throw new BfclPyError('ValueError', `${method === 'min_value' ? 'min' : 'max'}() arg is an empty sequence`);
          let best = items[0];
          for (const x of items.slice(1)) if (method === 'min_value' ? pyLt(x, best) : pyLt(best, x)) best = x;
          return res(best);
        }, 'All elements in the list must be numbers');
      }
      case 'sum_values':
        if (!pyTruthy(a[0])) return err('Cannot calculate sum of an empty list');
        return guard(() => res(pySum(a[0])), 'All elements in the list must be numbers');
    }
    throw new BfclPyError('AttributeError', `'${CLASS}' object has no attribute '${method}'`);
  }

  state(): unknown { return new Map(); }

  clone(): MathAPI { return new MathAPI(); }
}

registerBackend(CLASS, () => new MathAPI());
