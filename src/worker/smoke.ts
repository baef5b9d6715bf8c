// A backend smoke graph that does not depend on the engine: softmax(x·W + b) with fixed numbers.
// It proves that the chosen EP executes a graph and returns right numbers (compared with onnxruntime-node
// in e2e/backend.spec.ts), independent of how far the engine is. Pure TypeScript: also imported from Node.

import onnxProto from 'onnx-proto';

const { onnx } = onnxProto;

export const SMOKE_SHAPE = { rows: 4, inner: 16, cols: 8 } as const;

/** Deterministic values in [-1, 1): a tiny LCG so page, worker and Node agree without a seed library. */
function lcg(n: number, seed: number): Float32Array {
  const out = new Float32Array(n);
  let s = seed >>> 0;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = (s / 2 ** 32) * 2 - 1;
  }
  return out;
}

export function smokeInput(): Float32Array {
  return lcg(SMOKE_SHAPE.rows * SMOKE_SHAPE.inner, 7);
}

export function buildSmokeGraph(): Uint8Array {
  const { rows, inner, cols } = SMOKE_SHAPE;
  const F = onnx.TensorProto.DataType.FLOAT;
  const w = lcg(inner * cols, 11);
  const b = lcg(cols, 13);
  const init = (name: string, dims: number[], data: Float32Array) =>
    onnx.TensorProto.create({ name, dims, dataType: F, floatData: Array.from(data) });
  const vi = (name: string, dims: number[]) => onnx.ValueInfoProto.create({
    name,
    type: { tensorType: { elemType: F, shape: { dim: dims.map((d) => ({ dimValue: d })) } } },
  });
  const graph = onnx.GraphProto.create({
    name: 'smoke',
    node: [
      onnx.NodeProto.create({ opType: 'MatMul', input: ['x', 'W'], output: ['xw'], name: 'mm' }),
      onnx.NodeProto.create({ opType: 'Add', input: ['xw', 'b'], output: ['z'], name: 'add' }),
      onnx.NodeProto.create({
        opType: 'Softmax', input: ['z'], output: ['y'], name: 'sm',
        attribute: [onnx.AttributeProto.create({ name: 'axis', type: onnx.AttributeProto.AttributeType.INT, i: -1 })],
      }),
    ],
    initializer: [init('W', [inner, cols], w), init('b', [cols], b)],
    input: [vi('x', [rows, inner])],
    output: [vi('y', [rows, cols])],
  });
  const model = onnx.ModelProto.create({
    irVersion: 8,
    producerName: 'envace-smoke',
    opsetImport: [{ domain: '', version: 17 }],
    graph,
  });
  return onnx.ModelProto.encode(model).finish();
}
