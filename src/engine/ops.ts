// Every op the engine uses, each defined once: the builder (with shape inference) and, right
// below it, its vector-Jacobian rule. Ops without a rule are either `nondiff` (gradient stops:
// comparisons, casts, ReduceMax used as a constant shift) or unsupported by autodiff.
import { ELEM, type DType, type Dim, type GNode, type Shape, Value } from './graph';

export type VJP = (n: GNode, dy: Value, need: boolean[]) => (Value | null)[];
export interface Rule { vjp?: VJP; nondiff?: boolean }
export const RULES: Record<string, Rule> = Object.create(null);
const rule = (op: string, r: Rule) => { RULES[op] = r; };

type VN = Value | number;

// ---------- shape helpers ----------
const sameDim = (a: Dim, b: Dim) => a === b;
export function broadcastShapes(...shapes: Shape[]): Shape {
  const n = Math.max(...shapes.map((s) => s.length));
  const out: Shape = [];
  for (let i = 0; i < n; i++) {
    let d: Dim = 1;
    for (const s of shapes) {
      const x = s[s.length - n + i] ?? 1;
      if (x === 1) continue;
      if (d === 1 || sameDim(d, x)) d = x;
      else if (typeof d === 'number' && typeof x === 'number') throw new Error(`cannot broadcast ${shapes.map((q) => `[${q}]`).join(' ')}`);
      else if (typeof d === 'string' && typeof x === 'number') d = x;
    }
    out.push(d);
  }
  return out;
}
const sameShape = (a: Shape, b: Shape) => a.length === b.length && a.every((d, i) => sameDim(d, b[i]));
const normAxis = (a: number, rank: number) => (a < 0 ? a + rank : a);

function operands(a: VN, b: VN): [Value, Value] {
  if (a instanceof Value) return [a, b instanceof Value ? b : a.g.const(b, [], a.dtype)];
  if (b instanceof Value) return [b.g.const(a, [], b.dtype), b];
  throw new Error('at least one operand must be a Value');
}

/** Sums dy down to `shape` (the reverse of broadcasting). */
export function unbroadcast(dy: Value, shape: Shape): Value {
  if (sameShape(dy.shape, shape)) return dy;
  const lead = dy.rank - shape.length;
  const axes: number[] = [];
  for (let i = 0; i < dy.rank; i++) {
    if (i < lead || (shape[i - lead] === 1 && dy.shape[i] !== 1)) axes.push(i);
  }
  const r = axes.length ? reduceSum(dy, axes, true) : dy;
  return sameShape(r.shape, shape) ? r : reshape(r, shape);
}

// ---------- elementwise binary ----------
function binary(op: string, a: VN, b: VN, dtype?: DType): Value {
  const [x, y] = operands(a, b);
  return x.g.node(op, [x, y], [{ dtype: dtype ?? x.dtype, shape: broadcastShapes(x.shape, y.shape) }])[0];
}

export const add = (a: VN, b: VN) => binary('Add', a, b);
rule('Add', { vjp: (n, dy) => [unbroadcast(dy, n.inputs[0]!.shape), unbroadcast(dy, n.inputs[1]!.shape)] });

export const sub = (a: VN, b: VN) => binary('Sub', a, b);
rule('Sub', { vjp: (n, dy) => [unbroadcast(dy, n.inputs[0]!.shape), unbroadcast(neg(dy), n.inputs[1]!.shape)] });

export const mul = (a: VN, b: VN) => binary('Mul', a, b);
rule('Mul', {
  vjp: (n, dy, need) => {
    const [a, b] = n.inputs as Value[];
    return [need[0] ? unbroadcast(mul(dy, b), a.shape) : null, need[1] ? unbroadcast(mul(dy, a), b.shape) : null];
  },
});

export const div = (a: VN, b: VN) => binary('Div', a, b);
rule('Div', {
  vjp: (n, dy, need) => {
    const [a, b] = n.inputs as Value[];
    const y = n.outputs[0];
    return [need[0] ? unbroadcast(div(dy, b), a.shape) : null, need[1] ? unbroadcast(neg(div(mul(dy, y), b)), b.shape) : null];
  },
});

export const equal = (a: VN, b: VN) => binary('Equal', a, b, 'bool');
export const less = (a: VN, b: VN) => binary('Less', a, b, 'bool');
export const greater = (a: VN, b: VN) => binary('Greater', a, b, 'bool');
for (const op of ['Equal', 'Less', 'Greater']) rule(op, { nondiff: true });

export function where(cond: Value, a: VN, b: VN): Value {
  const [x, y] = operands(a, b);
  return x.g.node('Where', [cond, x, y], [{ dtype: x.dtype, shape: broadcastShapes(cond.shape, x.shape, y.shape) }])[0];
}
rule('Where', {
  vjp: (n, dy, need) => {
    const [c, a, b] = n.inputs as Value[];
    return [null, need[1] ? unbroadcast(where(c, dy, 0), a.shape) : null, need[2] ? unbroadcast(where(c, 0, dy), b.shape) : null];
  },
});

// Elementwise Min/Max are missing from the WebGPU EP: express them with Where (ties pick `a`).
export const minimum = (a: VN, b: VN) => { const [x, y] = operands(a, b); return where(less(y, x), y, x); };
export const maximum = (a: VN, b: VN) => { const [x, y] = operands(a, b); return where(greater(y, x), y, x); };
export const clamp = (x: Value, lo: VN, hi: VN) => minimum(maximum(x, lo), hi);

// ---------- elementwise unary ----------
function unary(op: string, x: Value): Value {
  return x.g.node(op, [x], [{ dtype: x.dtype, shape: x.shape }])[0];
}

export const neg = (x: Value) => unary('Neg', x);
rule('Neg', { vjp: (_n, dy) => [neg(dy)] });

export const exp = (x: Value) => unary('Exp', x);
rule('Exp', { vjp: (n, dy) => [mul(dy, n.outputs[0])] });

export const log = (x: Value) => unary('Log', x);
rule('Log', { vjp: (n, dy) => [div(dy, n.inputs[0]!)] });

export const sqrt = (x: Value) => unary('Sqrt', x);
rule('Sqrt', { vjp: (n, dy) => [div(mul(dy, 0.5), n.outputs[0])] });

export const reciprocal = (x: Value) => unary('Reciprocal', x);
rule('Reciprocal', { vjp: (n, dy) => { const y = n.outputs[0]; return [neg(mul(dy, mul(y, y)))]; } });

export const sigmoid = (x: Value) => unary('Sigmoid', x);
rule('Sigmoid', { vjp: (n, dy) => { const y = n.outputs[0]; return [mul(dy, mul(y, sub(1, y)))]; } });

export function cast(x: Value, to: DType): Value {
  return x.g.node('Cast', [x], [{ dtype: to, shape: x.shape }], { to: ELEM[to] })[0];
}
rule('Cast', { nondiff: true });

// ---------- matrix products ----------
function swapLast(x: Value): Value {
  const perm = x.shape.map((_, i) => i);
  [perm[x.rank - 2], perm[x.rank - 1]] = [perm[x.rank - 1], perm[x.rank - 2]];
  return transpose(x, perm);
}

export function matmul(a: Value, b: Value): Value {
  if (a.rank < 2 || b.rank < 2) throw new Error('matmul needs rank >= 2');
  const batch = broadcastShapes(a.shape.slice(0, -2), b.shape.slice(0, -2));
  return a.g.node('MatMul', [a, b], [{ dtype: a.dtype, shape: [...batch, a.shape[a.rank - 2], b.shape[b.rank - 1]] }])[0];
}
rule('MatMul', {
  vjp: (n, dy, need) => {
    const [a, b] = n.inputs as Value[];
    return [
      need[0] ? unbroadcast(matmul(dy, swapLast(b)), a.shape) : null,
      need[1] ? unbroadcast(matmul(swapLast(a), dy), b.shape) : null,
    ];
  },
});

/** 2-D product op(a)·op(b); with transB it is a linear layer on a [out, in] weight. */
export function gemm(a: Value, b: Value, transA = 0, transB = 0): Value {
  const m = transA ? a.shape[1] : a.shape[0];
  const k = transB ? b.shape[0] : b.shape[1];
  return a.g.node('Gemm', [a, b], [{ dtype: a.dtype, shape: [m, k] }], { transA, transB })[0];
}
rule('Gemm', {
  vjp: (n, dy, need) => {
    const [a, b] = n.inputs as Value[];
    const tA = n.attrs.transA as number, tB = n.attrs.transB as number;
    // Y = op(A) op(B): each case is the transpose-aware form of dA = dY Bᵀ, dB = Aᵀ dY.
    const dA = !need[0] ? null
      : !tA ? gemm(dy, b, 0, tB ? 0 : 1)
      : gemm(b, dy, tB ? 1 : 0, 1);
    const dB = !need[1] ? null
      : !tB ? gemm(a, dy, tA ? 0 : 1, 0)
      : gemm(dy, a, 1, tA ? 1 : 0);
    return [dA, dB];
  },
});

// ---------- shape ops ----------
export function transpose(x: Value, perm: number[]): Value {
  return x.g.node('Transpose', [x], [{ dtype: x.dtype, shape: perm.map((p) => x.shape[p]) }], { perm })[0];
}
rule('Transpose', {
  vjp: (n, dy) => {
    const perm = n.attrs.perm as number[];
    const inv = perm.map((_, i) => perm.indexOf(i));
    return [transpose(dy, inv)];
  },
});

/** Reshape to dims; string dims are resolved at run time from the graph inputs that declared them, -1 is inferred. */
export function reshape(x: Value, dims: Shape): Value {
  const g = x.g;
  let shapeV: Value;
  if (dims.every((d) => typeof d === 'number')) shapeV = g.const(dims as number[], [dims.length], 'int64');
  else shapeV = concat(dims.map((d) => g.dimValue(d)), 0);
  const out: Shape = dims.slice();
  const hole = dims.indexOf(-1);
  if (hole >= 0) {
    const known = dims.filter((d, i) => i !== hole);
    if (x.shape.every((d) => typeof d === 'number') && known.every((d) => typeof d === 'number')) {
      const total = (x.shape as number[]).reduce((p, q) => p * q, 1);
      out[hole] = total / (known as number[]).reduce((p, q) => p * q, 1);
    } else {
      const rest = x.shape.filter((d) => !known.includes(d));
      out[hole] = rest.join('*') || 1;
    }
  }
  return g.node('Reshape', [x, shapeV], [{ dtype: x.dtype, shape: out }])[0];
}
rule('Reshape', { vjp: (n, dy) => [reshape(dy, n.inputs[0]!.shape), null] });

export function unsqueeze(x: Value, axes: number[]): Value {
  const rank = x.rank + axes.length;
  const ax = axes.map((a) => normAxis(a, rank));
  const out: Shape = [];
  let j = 0;
  for (let i = 0; i < rank; i++) out.push(ax.includes(i) ? 1 : x.shape[j++]);
  return x.g.node('Unsqueeze', [x, x.g.const(ax, [ax.length], 'int64')], [{ dtype: x.dtype, shape: out }])[0];
}
rule('Unsqueeze', { vjp: (n, dy) => [reshape(dy, n.inputs[0]!.shape), null] });

export function expand(x: Value, shape: number[]): Value {
  const out = broadcastShapes(x.shape, shape);
  return x.g.node('Expand', [x, x.g.const(shape, [shape.length], 'int64')], [{ dtype: x.dtype, shape: out }])[0];
}
rule('Expand', { vjp: (n, dy) => [unbroadcast(dy, n.inputs[0]!.shape), null] });

export function concat(xs: Value[], axis: number): Value {
  const ax = normAxis(axis, xs[0].rank);
  const out = xs[0].shape.slice();
  const parts = xs.map((x) => x.shape[ax]);
  out[ax] = parts.every((d) => typeof d === 'number') ? (parts as number[]).reduce((p, q) => p + q, 0) : parts.join('+');
  return xs[0].g.node('Concat', xs, [{ dtype: xs[0].dtype, shape: out }], { axis: ax })[0];
}
rule('Concat', {
  vjp: (n, dy, need) => {
    const ax = n.attrs.axis as number;
    let at = 0;
    return n.inputs.map((x, i) => {
      const len = x!.dims[ax];
      const piece = need[i] ? slice(dy, [at], [at + len], [ax]) : null;
      at += len;
      return piece;
    });
  },
});

/** Slice along axes; starts/ends may be Values (dynamic), then `outShape` must be given. */
export function slice(x: Value, starts: number[] | Value, ends: number[] | Value, axes: number[], outShape?: Shape): Value {
  const g = x.g;
  const ax = axes.map((a) => normAxis(a, x.rank));
  let shape = outShape;
  if (!shape) {
    if (!Array.isArray(starts) || !Array.isArray(ends)) throw new Error('dynamic slice needs outShape');
    shape = x.shape.slice();
    ax.forEach((a, i) => {
      const d = x.shape[a];
      if (typeof d !== 'number') throw new Error('slice of a dynamic dim needs outShape');
      const s = starts[i] < 0 ? Math.max(0, d + starts[i]) : Math.min(starts[i], d);
      const e = ends[i] < 0 ? Math.max(0, d + ends[i]) : Math.min(ends[i], d);
      shape![a] = Math.max(0, e - s);
    });
  }
  const sv = Array.isArray(starts) ? g.const(starts, [starts.length], 'int64') : starts;
  const ev = Array.isArray(ends) ? g.const(ends, [ends.length], 'int64') : ends;
  return g.node('Slice', [x, sv, ev, g.const(ax, [ax.length], 'int64')], [{ dtype: x.dtype, shape }])[0];
}

export function gather(data: Value, indices: Value, axis = 0): Value {
  const ax = normAxis(axis, data.rank);
  const shape = [...data.shape.slice(0, ax), ...indices.shape, ...data.shape.slice(ax + 1)];
  return data.g.node('Gather', [data, indices], [{ dtype: data.dtype, shape }], { axis: ax })[0];
}

// ---------- reductions ----------
function reducedShape(x: Value, axes: number[], keep: boolean): Shape {
  return keep ? x.shape.map((d, i) => (axes.includes(i) ? 1 : d)) : x.shape.filter((_, i) => !axes.includes(i));
}

/** Sum over axes (all when omitted). */
export function reduceSum(x: Value, axes?: number[], keepdims = false): Value {
  const ax = (axes ?? x.shape.map((_, i) => i)).map((a) => normAxis(a, x.rank));
  return x.g.node('ReduceSum', [x, x.g.const(ax, [ax.length], 'int64')], [{ dtype: x.dtype, shape: reducedShape(x, ax, keepdims) }],
    { keepdims: keepdims ? 1 : 0 }, { axes: ax })[0];
}
function spreadBack(n: GNode, dy: Value): Value {
  const x = n.inputs[0]!;
  const ax = n.meta!.axes as number[];
  const kept = n.attrs.keepdims ? dy : reshape(dy, reducedShape(x, ax, true));
  return expand(kept, x.dims);
}
rule('ReduceSum', { vjp: (n, dy) => [spreadBack(n, dy), null] });

export function reduceMean(x: Value, axes?: number[], keepdims = false): Value {
  const ax = (axes ?? x.shape.map((_, i) => i)).map((a) => normAxis(a, x.rank));
  return x.g.node('ReduceMean', [x], [{ dtype: x.dtype, shape: reducedShape(x, ax, keepdims) }],
    { axes: ax, keepdims: keepdims ? 1 : 0 }, { axes: ax })[0];
}
rule('ReduceMean', {
  vjp: (n, dy) => {
    const x = n.inputs[0]!;
    const count = (n.meta!.axes as number[]).reduce((p, a) => p * x.dims[a], 1);
    return [div(spreadBack(n, dy), count)];
  },
});

/** Max over axes. Non-differentiable on purpose: it is only used as a stability shift (logsumexp). */
export function reduceMax(x: Value, axes: number[], keepdims = false): Value {
  const ax = axes.map((a) => normAxis(a, x.rank));
  return x.g.node('ReduceMax', [x], [{ dtype: x.dtype, shape: reducedShape(x, ax, keepdims) }],
    { axes: ax, keepdims: keepdims ? 1 : 0 })[0];
}
rule('ReduceMax', { nondiff: true });

export function softmax(x: Value, axis = -1): Value {
  return x.g.node('Softmax', [x], [{ dtype: x.dtype, shape: x.shape }], { axis: normAxis(axis, x.rank) })[0];
}
rule('Softmax', {
  vjp: (n, dy) => {
    const y = n.outputs[0];
    return [mul(y, sub(dy, reduceSum(mul(dy, y), [n.attrs.axis as number], true)))];
  },
});

rule('Shape', { nondiff: true });

// ---------- composites (no rules of their own: autodiff sees their parts) ----------
/** log-softmax without LogSoftmax (absent on WebGPU); the max shift is a constant for autodiff, which is exact. */
export function logSoftmax(x: Value, axis = -1): Value {
  const shifted = sub(x, reduceMax(x, [axis], true));
  return sub(shifted, log(reduceSum(exp(shifted), [axis], true)));
}

/** One-hot float encoding of int64 ids along a new last axis (embedding-as-MatMul keeps its gradient a MatMul). */
export function oneHot(ids: Value, depth: number): Value {
  const range = ids.g.const(Array.from({ length: depth }, (_, i) => i), [depth], ids.dtype);
  return cast(equal(unsqueeze(ids, [-1]), range), 'float32');
}
