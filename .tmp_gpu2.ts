import * as ort from 'onnxruntime-node';
import { Graph } from './src/engine/graph';
import * as O from './src/engine/ops';
const tries: [string, (g: Graph) => void][] = [
  ['equal i32 onehot', (g) => { const x = g.input('x', 'int32', [2, 4]); g.output(O.cast(O.equal(O.unsqueeze(O.reshape(x, [-1]), [-1]), g.const([1, 2, 3, 4, 5], [5], 'int32')), 'float32'), 'y'); }],
  ['gather i32 idx', (g) => { const x = g.input('x', 'int32', [4]); g.output(O.gather(g.const([1, 2, 3, 4, 5], [5]), x), 'y'); }],
  ['cast i32->f32', (g) => { const x = g.input('x', 'int32', [4]); g.output(O.cast(x, 'float32'), 'y'); }],
];
for (const [name, f] of tries) {
  const g = new Graph(); f(g);
  const s = await ort.InferenceSession.create(g.serialize(), { executionProviders: ['webgpu'], logSeverityLevel: 1 } as any);
  console.log('RESULT', name);
}
