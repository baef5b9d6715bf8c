// The one graph the fast sampler runs for prefill, prefix extension and decoding: exportDecodeStep's inputs and
// new.{i}.key/value outputs, but the LM head runs on the last position of each row only. A sampler needs one
// logits row per request, and a prefill of T tokens would otherwise compute [B·T, vocab] logits (with a small
// hidden size, the head is a large share of a prefill's FLOPs) only to keep the last T-th of them.
// One session then serves every call: no second (HF-convention) prefill graph to build and compile.
import { Graph, type Value } from './graph';
import { type LlamaConfig, type Params, NEG_INF, decoderForward, headDim, paramSpecs, ropeTables } from './decoder';
import type { BuiltGraph } from './graphs';
import * as O from './ops';

export function exportSamplerStep(cfg: LlamaConfig, params: Params): BuiltGraph {
  const g = new Graph();
  const H = cfg.num_key_value_heads, hd = headDim(cfg), maxPos = cfg.max_position_embeddings, d = cfg.hidden_size;
  const ids = g.input('input_ids', 'int64', ['batch_size', 'sequence_length']);
  const mask = g.input('attention_mask', 'int64', ['batch_size', 'total_sequence_length']);
  const pos = g.input('position_ids', 'int64', ['batch_size', 'sequence_length']);
  const past = Array.from({ length: cfg.num_hidden_layers }, (_, i) => ({
    key: g.input(`past_key_values.${i}.key`, 'float32', ['batch_size', H, 'past_sequence_length', hd]),
    value: g.input(`past_key_values.${i}.value`, 'float32', ['batch_size', H, 'past_sequence_length', hd]),
  }));
  const W: Record<string, Value> = {};
  for (const { name, shape } of paramSpecs(cfg)) {
    if (!params[name]) throw new Error(`missing parameter ${name}`);
    W[name] = g.initializer(name, params[name], shape);
  }
  // Masks and rotary lookups as in graphs.ts's inference graphs (so the same positions give the same numbers).
  const tables = ropeTables(cfg, maxPos);
  const lookup = (t: Float32Array) => O.unsqueeze(O.gather(g.const(t, [maxPos, hd]), pos), [1]);
  const arange = g.const(Array.from({ length: 2 * maxPos }, (_, i) => i), [2 * maxPos]);
  const P = g.dimValue('past_sequence_length'), total = g.dimValue('total_sequence_length');
  const rows = O.slice(arange, P, total, [0], ['sequence_length']);
  const cols = O.slice(arange, [0], total, [0], ['total_sequence_length']);
  const causal = O.where(O.greater(O.unsqueeze(cols, [0]), O.unsqueeze(rows, [1])), g.const(NEG_INF), 0);
  const padding = O.unsqueeze(O.mul(O.sub(1, O.cast(mask, 'float32')), NEG_INF), [1, 2]);
  const lastOnly = (h: Value) => O.reshape(
    O.slice(O.reshape(h, ['batch_size', 'sequence_length', d]), [-1], [2 ** 31 - 1], [1], ['batch_size', 1, d]), [-1, d]);
  const out = decoderForward(cfg, W, ids, {
    batch: 'batch_size', seq: 'sequence_length',
    cos: lookup(tables.cos), sin: lookup(tables.sin),
    bias: O.add(causal, padding), past, embedding: 'gather', beforeHead: lastOnly,
  });
  g.output(O.reshape(out.logits, ['batch_size', 1, cfg.vocab_size]), 'logits');
  out.newKV.forEach((x, i) => {
    g.output(x.key, `new.${i}.key`, ['batch_size', H, 'sequence_length', hd]);
    g.output(x.value, `new.${i}.value`, ['batch_size', H, 'sequence_length', hd]);
  });
  return { bytes: g.serialize({ docString: 'llama decoder (sampler step, last-position logits)' }), inputNames: g.inputs.map((v) => v.name), outputNames: g.outputs.map((v) => v.name) };
}
