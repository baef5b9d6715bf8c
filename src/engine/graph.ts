// A tiny ONNX graph builder. Values carry a dtype and a shape (numbers, or strings for named
// dynamic dims) so that ops can infer shapes and autodiff can un-broadcast without running anything.
import onnxProto from 'onnx-proto';

const { onnx } = onnxProto;

export type DType = 'float32' | 'int64' | 'int32' | 'bool';
export type Dim = number | string;
export type Shape = Dim[];
export type AttrValue = number | number[] | string;

export const ELEM: Record<DType, number> = { float32: 1, int64: 7, int32: 6, bool: 9 };
// ONNX needs to know float vs int attributes; every float attribute we emit has one of these names.
const FLOAT_ATTRS = new Set(['alpha', 'beta', 'epsilon']);

export class Value {
  producer: GNode | null = null;
  constructor(public readonly g: Graph, public name: string, public readonly dtype: DType, public readonly shape: Shape) {}
  get rank(): number { return this.shape.length; }
  /** Numeric shape; throws on dynamic dims (autodiff and constant folding need static shapes). */
  get dims(): number[] {
    return this.shape.map((d) => {
      if (typeof d !== 'number') throw new Error(`${this.name}: dim ${d} is not static`);
      return d;
    });
  }
}

export interface GNode {
  op: string;
  inputs: (Value | null)[];
  outputs: Value[];
  attrs: Record<string, AttrValue>;
  /** Build-time facts the VJP needs that are not ONNX attributes (e.g. ReduceSum's axes input). */
  meta?: Record<string, unknown>;
}

type InitData = Float32Array | BigInt64Array | Int32Array | Uint8Array;

export interface SerializeOptions { producer?: string; docString?: string }

export class Graph {
  readonly nodes: GNode[] = [];
  readonly inputs: Value[] = [];
  readonly outputs: Value[] = [];
  readonly inits = new Map<Value, InitData>();
  private declared = new Map<Value, Shape>();
  private names = new Set<string>();
  private counter = 0;
  private dimSources = new Map<string, [Value, number]>();
  private dimCache = new Map<string, Value>();
  private scalarCache = new Map<string, Value>();

  fresh(prefix = 't'): string {
    let n: string;
    do n = `${prefix}${this.counter++}`; while (this.names.has(n));
    this.names.add(n);
    return n;
  }

  private claim(name: string): string {
    if (this.names.has(name)) throw new Error(`duplicate tensor name ${name}`);
    this.names.add(name);
    return name;
  }

  input(name: string, dtype: DType, shape: Shape): Value {
    const v = new Value(this, this.claim(name), dtype, shape);
    this.inputs.push(v);
    shape.forEach((d, i) => { if (typeof d === 'string' && !this.dimSources.has(d)) this.dimSources.set(d, [v, i]); });
    return v;
  }

  /** A named initializer (weights baked into the model). */
  initializer(name: string, data: InitData, shape: number[], dtype: DType = 'float32'): Value {
    const v = new Value(this, this.claim(name), dtype, shape);
    if (data.length !== shape.reduce((p, q) => p * q, 1)) throw new Error(`${name}: ${data.length} values for shape [${shape}]`);
    this.inits.set(v, data);
    return v;
  }

  /** An anonymous constant; scalars are deduplicated. */
  const(data: ArrayLike<number> | number, shape?: number[], dtype: DType = 'float32'): Value {
    const arr = typeof data === 'number' ? [data] : Array.from(data);
    const shp = shape ?? (typeof data === 'number' ? [] : [arr.length]);
    const key = arr.length === 1 ? `${dtype}:${arr[0]}:${shp.join(',')}` : '';
    if (key && this.scalarCache.has(key)) return this.scalarCache.get(key)!;
    const buf = dtype === 'float32' ? Float32Array.from(arr)
      : dtype === 'int64' ? BigInt64Array.from(arr.map((x) => BigInt(x)))
      : dtype === 'int32' ? Int32Array.from(arr)
      : Uint8Array.from(arr);
    const name = this.fresh('c');
    this.names.delete(name);
    const v = this.initializer(name, buf, shp, dtype);
    if (key) this.scalarCache.set(key, v);
    return v;
  }

  /** Appends a node. Output dtypes/shapes come from the caller (ops.ts infers them). */
  node(op: string, inputs: (Value | null)[], outs: { dtype: DType; shape: Shape }[], attrs: Record<string, AttrValue> = {}, meta?: Record<string, unknown>): Value[] {
    const outputs = outs.map((o) => new Value(this, this.fresh(), o.dtype, o.shape));
    const n: GNode = { op, inputs, outputs, attrs, meta };
    outputs.forEach((o) => { o.producer = n; });
    this.nodes.push(n);
    return outputs;
  }

  /** A [1]-shaped int64 value holding a dynamic dim, taken from the first input that declared it. */
  dimValue(dim: Dim): Value {
    if (typeof dim === 'number') return this.const([dim], [1], 'int64');
    const hit = this.dimCache.get(dim);
    if (hit) return hit;
    const src = this.dimSources.get(dim);
    if (!src) throw new Error(`unknown dynamic dim ${dim}`);
    const [v] = this.node('Shape', [src[0]], [{ dtype: 'int64', shape: [1] }], { start: src[1], end: src[1] + 1 });
    this.dimCache.set(dim, v);
    return v;
  }

  /**
   * Marks v as a graph output under `name`. Outputs are renamed producers rather than Identity
   * nodes (WebGPU EP lacks Identity); inputs/initializers/already-exported values get an Add-zero copy.
   */
  output(v: Value, name: string, shape?: Shape): Value {
    if (!v.producer || this.outputs.includes(v)) {
      if (v.dtype === 'bool') throw new Error(`${name}: cast bool values before exporting them`);
      const zero = this.const(0, [], v.dtype);
      const [copy] = this.node('Add', [v, zero], [{ dtype: v.dtype, shape: v.shape }]);
      v = copy;
    }
    if (v.name !== name) {
      this.claim(name);
      this.names.delete(v.name);
      v.name = name;
    }
    this.outputs.push(v);
    if (shape) this.declared.set(v, shape); // names the dynamic dims consumers read
    return v;
  }

  /** Nodes needed for the outputs, in order; autodiff may leave unused branches behind. */
  private liveNodes(): GNode[] {
    const need = new Set<Value>(this.outputs);
    const keep: GNode[] = [];
    for (let i = this.nodes.length - 1; i >= 0; i--) {
      const n = this.nodes[i];
      if (!n.outputs.some((o) => need.has(o))) continue;
      keep.push(n);
      for (const x of n.inputs) if (x) need.add(x);
    }
    return keep.reverse();
  }

  toModelProto(opts: SerializeOptions = {}): InstanceType<typeof onnx.ModelProto> {
    const nodes = this.liveNodes();
    const used = new Set<Value>();
    for (const n of nodes) for (const x of n.inputs) if (x) used.add(x);
    for (const o of this.outputs) used.add(o);
    const vinfo = (v: Value) => onnx.ValueInfoProto.create({
      name: v.name,
      type: {
        tensorType: {
          elemType: ELEM[v.dtype],
          shape: { dim: (this.declared.get(v) ?? v.shape).map((d) => (typeof d === 'number' ? { dimValue: d } : { dimParam: d })) },
        },
      },
    });
    const initializer = [...this.inits].filter(([v]) => used.has(v)).map(([v, data]) => onnx.TensorProto.create({
      name: v.name,
      dataType: ELEM[v.dtype],
      dims: v.dims,
      rawData: new Uint8Array(data.buffer, data.byteOffset, data.byteLength),
    }));
    const node = nodes.map((n, i) => onnx.NodeProto.create({
      name: `${n.op}_${i}`,
      opType: n.op,
      input: n.inputs.map((x) => (x ? x.name : '')),
      output: n.outputs.map((o) => o.name),
      attribute: Object.entries(n.attrs).map(([name, a]) => attrProto(name, a)),
    }));
    return onnx.ModelProto.create({
      irVersion: 8,
      producerName: opts.producer ?? 'envace-engine',
      docString: opts.docString ?? '',
      opsetImport: [{ domain: '', version: 17 }],
      graph: {
        name: 'g',
        node,
        initializer,
        input: this.inputs.map(vinfo),
        output: this.outputs.map(vinfo),
      },
    });
  }

  serialize(opts: SerializeOptions = {}): Uint8Array {
    return onnx.ModelProto.encode(this.toModelProto(opts)).finish();
  }
}

function attrProto(name: string, a: AttrValue) {
  const T = onnx.AttributeProto.AttributeType;
  if (typeof a === 'string') return { name, type: T.STRING, s: new TextEncoder().encode(a) };
  if (Array.isArray(a)) {
    return FLOAT_ATTRS.has(name) ? { name, type: T.FLOATS, floats: a } : { name, type: T.INTS, ints: a };
  }
  return FLOAT_ATTRS.has(name) ? { name, type: T.FLOAT, f: a } : { name, type: T.INT, i: a };
}
