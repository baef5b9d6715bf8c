// npm run fixture:qwen3 -- --out DIR [--seed S]
// Writes an offline Qwen3-architecture model folder (onnx-community layout, tiny random weights, the real Qwen3
// tokenizer and chat template): see src/engine/hf/fixture.ts. Load it with `npm run rollout -- --model DIR …`.

import { cliArgs, defineCli } from './args';
import { writeQwen3Fixture } from '../engine/hf/fixture-node';

const def = defineCli({
  name: 'fixture:qwen3',
  summary: 'Write a Qwen3-architecture fixture folder with random weights (for offline tests of the Hugging Face model path).',
  options: {
    out: { type: 'string', help: 'output folder', required: true },
    seed: { type: 'int', help: 'weight seed', default: 0, min: 0 },
    hidden: { type: 'int', help: 'hidden size', default: 32, min: 2 },
    layers: { type: 'int', help: 'decoder layers', default: 2, min: 1 },
    heads: { type: 'int', help: 'query heads', default: 4, min: 1 },
    'kv-heads': { type: 'int', help: 'key/value heads (grouped-query attention)', default: 2, min: 1 },
    'head-dim': { type: 'int', help: 'head dimension (even)', default: 16, min: 2 },
    json: { type: 'boolean', help: 'print the summary as JSON' },
  },
});

const a = cliArgs(def);
const f = writeQwen3Fixture(a.out, {
  seed: a.seed, hiddenSize: a.hidden, layers: a.layers, heads: a.heads, kvHeads: a['kv-heads'], headDim: a['head-dim'],
});
const summary = {
  out: a.out, files: Object.fromEntries(Object.entries(f.files).map(([k, v]) => [k, v.length])),
  params: Object.values(f.params).reduce((s, p) => s + p.length, 0),
  config: { hidden_size: f.config.hidden_size, num_hidden_layers: f.config.num_hidden_layers, num_attention_heads: f.config.num_attention_heads, num_key_value_heads: f.config.num_key_value_heads, head_dim: f.config.head_dim, vocab_size: f.config.vocab_size },
};
if (a.json) console.log(JSON.stringify(summary, null, 2));
else {
  console.log(`wrote ${a.out}: Qwen3 architecture, ${summary.params.toLocaleString('en-US')} random parameters (seed ${a.seed})`);
  for (const [k, v] of Object.entries(summary.files)) console.log(`  ${k} (${v.toLocaleString('en-US')} bytes)`);
}
