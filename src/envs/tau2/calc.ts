// τ²'s `calculate` runs Python's eval() on an expression restricted to "0123456789+-*/(). ", then
// str(round(float(result), 2)). The result text depends on Python's int/float split (ints are exact
// bignums, `/` is always float, `//` floors), its error messages and its rounding, so this is a tiny
// evaluator for that subset of the Python grammar rather than JavaScript arithmetic.

import { pyFloatRepr } from '../python';
import { PyException, pyRound, pyTypeName, typeError, valueError } from './py';

type Val = { k: 'int'; v: bigint } | { k: 'float'; v: number } | { k: 'complex' } | { k: 'tuple' };

const ALLOWED = '0123456789+-*/(). ';
const syntaxError = (msg: string, line = 1) => new PyException('SyntaxError', `${msg} (<string>, line ${line})`);
const zeroDiv = (msg: string) => new PyException('ZeroDivisionError', msg);
const overflow = (msg: string) => new PyException('OverflowError', msg);

type Tok = { t: 'num'; text: string } | { t: 'op'; text: string };

function tokenize(src: string): Tok[] {
  let depth = 0;
  for (const ch of src) {
    if (ch === '(') depth++;
    else if (ch === ')' && --depth < 0) throw syntaxError("unmatched ')'");
  }
  if (depth > 0) throw syntaxError("'(' was never closed");
  const toks: Tok[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i];
    if (c === ' ') { i++; continue; }
    if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(src[i + 1] ?? ''))) {
      const m = /^(\d*\.\d*|\d+)/.exec(src.slice(i))!;
      const text = m[0];
      if (!text.includes('.') && /^0+[1-9]/.test(text)) {
        throw syntaxError('leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers');
      }
      toks.push({ t: 'num', text });
      i += text.length;
      continue;
    }
    if (src.startsWith('**', i) || src.startsWith('//', i)) { toks.push({ t: 'op', text: src.slice(i, i + 2) }); i += 2; continue; }
    toks.push({ t: 'op', text: c });
    i++;
  }
  return toks;
}

// Grammar (Python's, restricted): expr := term (('+'|'-') term)*; term := factor (('*'|'/'|'//') factor)*;
// factor := ('+'|'-') factor | power; power := primary ('**' factor)?; primary := atom ('(' args ')')*;
// atom := NUMBER | '(' expr? ')'. Parsing builds thunks so evaluation order and errors follow Python.
type Node = () => Val;

function parse(toks: Tok[]): Node {
  let p = 0;
  const peek = () => toks[p];
  const isOp = (s: string) => peek()?.t === 'op' && peek()!.text === s;
  const fail = (): never => { throw syntaxError('invalid syntax'); };
  const expr = (): Node => {
    let left = term();
    while (isOp('+') || isOp('-')) {
      const op = toks[p++].text, l = left, r = term();
      left = () => binop(op, l(), r());
    }
    return left;
  };
  const term = (): Node => {
    let left = factor();
    while (isOp('*') || isOp('/') || isOp('//')) {
      const op = toks[p++].text, l = left, r = factor();
      left = () => binop(op, l(), r());
    }
    return left;
  };
  const factor = (): Node => {
    if (isOp('+') || isOp('-')) {
      const op = toks[p++].text, f = factor();
      return () => unary(op, f());
    }
    return power();
  };
  const power = (): Node => {
    const base = primary();
    if (isOp('**')) {
      p++;
      const ex = factor();
      return () => binop('**', base(), ex());
    }
    return base;
  };
  const primary = (): Node => {
    let node = atom();
    while (isOp('(')) {
      p++;
      const arg = isOp(')') ? null : expr();
      if (!isOp(')')) fail();
      p++;
      const callee = node;
      node = () => {
        const c = callee();
        if (arg) arg();
        throw typeError(`'${c.k}' object is not callable`);
      };
    }
    return node;
  };
  const atom = (): Node => {
    const t = peek();
    if (!t) return fail();
    if (t.t === 'num') {
      p++;
      const v: Val = t.text.includes('.') ? { k: 'float', v: Number(t.text) } : { k: 'int', v: BigInt(t.text) };
      return () => v;
    }
    if (t.text === '(') {
      p++;
      if (isOp(')')) { p++; return () => ({ k: 'tuple' }); }
      const inner = expr();
      if (!isOp(')')) fail();
      p++;
      return inner;
    }
    return fail();
  };
  const root = expr();
  if (p !== toks.length) fail();
  return root;
}

function toFloat(x: Val): number {
  if (x.k === 'float') return x.v;
  if (x.k === 'int') {
    const n = Number(x.v);
    if (!Number.isFinite(n)) throw overflow('int too large to convert to float');
    return n;
  }
  throw typeError(`float() argument must be a string or a real number, not '${x.k}'`);
}

function unary(op: string, x: Val): Val {
  if (x.k === 'int') return { k: 'int', v: op === '-' ? -x.v : x.v };
  if (x.k === 'float') return { k: 'float', v: op === '-' ? -x.v : x.v };
  if (x.k === 'complex') return x;
  throw typeError(`bad operand type for unary ${op}: '${x.k}'`);
}

function floatFloorDiv(a: number, b: number): number {
  if (b === 0) throw zeroDiv('float floor division by zero');
  let mod = a % b;
  let div = (a - mod) / b;
  if (mod) {
    if ((b < 0) !== (mod < 0)) { mod += b; div -= 1; }
  }
  if (div) {
    let fl = Math.floor(div);
    if (div - fl > 0.5) fl += 1;
    return fl;
  }
  return Math.sign(a / b) < 0 || Object.is(a / b, -0) ? -0 : 0;
}

function intTrueDiv(a: bigint, b: bigint): number {
  if (b === 0n) throw zeroDiv('division by zero');
  const lim = 2n ** 53n;
  const abs = (x: bigint) => (x < 0n ? -x : x);
  if (abs(a) <= lim && abs(b) <= lim) return Number(a) / Number(b);
  const r = Number(a) / Number(b);
  if (!Number.isFinite(r)) throw overflow('integer division result too large for a float');
  return r;
}

function binop(op: string, a: Val, b: Val): Val {
  if (a.k === 'tuple' || b.k === 'tuple') {
    if (op === '+' && a.k === 'tuple') throw typeError(`can only concatenate tuple (not "${b.k}") to tuple`);
    throw typeError(`unsupported operand type(s) for ${op}: '${a.k}' and '${b.k}'`);
  }
  if (a.k === 'complex' || b.k === 'complex') {
    if (op === '//') throw typeError("unsupported operand type(s) for //: 'complex' and 'complex'");
    return { k: 'complex' };
  }
  if (a.k === 'int' && b.k === 'int') {
    switch (op) {
      case '+': return { k: 'int', v: a.v + b.v };
      case '-': return { k: 'int', v: a.v - b.v };
      case '*': return { k: 'int', v: a.v * b.v };
      case '/': return { k: 'float', v: intTrueDiv(a.v, b.v) };
      case '//': {
        if (b.v === 0n) throw zeroDiv('integer division or modulo by zero');
        let q = a.v / b.v;
        if ((a.v % b.v !== 0n) && ((a.v < 0n) !== (b.v < 0n))) q -= 1n;
        return { k: 'int', v: q };
      }
      case '**': {
        if (b.v < 0n) {
          if (a.v === 0n) throw zeroDiv('0.0 cannot be raised to a negative power');
          return { k: 'float', v: Math.pow(toFloat(a), toFloat(b)) };
        }
        const bits = a.v === 0n || a.v === 1n || a.v === -1n ? 1 : a.v.toString(2).length * Number(b.v);
        // Python would build the huge int; anything this large only ends as an overflow in float().
        if (bits > 1_000_000) throw overflow('int too large to convert to float');
        return { k: 'int', v: a.v ** b.v };
      }
    }
  }
  const x = toFloat(a), y = toFloat(b);
  switch (op) {
    case '+': return { k: 'float', v: x + y };
    case '-': return { k: 'float', v: x - y };
    case '*': return { k: 'float', v: x * y };
    case '/':
      if (y === 0) throw zeroDiv('float division by zero');
      return { k: 'float', v: x / y };
    case '//': return { k: 'float', v: floatFloorDiv(x, y) };
    case '**': {
      if (x === 0 && y < 0) throw zeroDiv('0.0 cannot be raised to a negative power');
      if (x < 0 && Number.isFinite(y) && !Number.isInteger(y)) return { k: 'complex' };
      const r = Math.pow(x, y);
      if (!Number.isFinite(r) && Number.isFinite(x) && Number.isFinite(y)) throw overflow("(34, 'Numerical result out of range')");
      return { k: 'float', v: r };
    }
  }
  throw valueError(`unknown operator ${op}`);
}

/** τ² `calculate(expression)`: returns the result text or throws PyException. */
export function calculate(expression: unknown): string {
  if (typeof expression !== 'string') {
    // Python iterates the argument for the character check before eval() rejects it.
    if (Array.isArray(expression)) {
      for (const ch of expression) {
        if (typeof ch !== 'string') throw typeError(`'in <string>' requires string as left operand, not ${pyTypeName(ch)}`);
        if (!ALLOWED.includes(ch)) throw valueError('Invalid characters in expression');
      }
      throw typeError('eval() arg 1 must be a string, bytes or code object');
    }
    if (expression !== null && typeof expression === 'object') {
      for (const ch of Object.keys(expression)) if (!ALLOWED.includes(ch)) throw valueError('Invalid characters in expression');
      throw typeError('eval() arg 1 must be a string, bytes or code object');
    }
    throw typeError(`'${pyTypeName(expression)}' object is not iterable`);
  }
  for (const ch of expression) if (!ALLOWED.includes(ch)) throw valueError('Invalid characters in expression');
  const src = expression.replace(/^ +/, '');
  if (src.trim() === '') throw syntaxError('invalid syntax', 0);
  const value = parse(tokenize(src))();
  return pyFloatRepr(pyRound(toFloat(value), 2));
}
