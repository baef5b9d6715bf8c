// Fuzz surfaces of Hugging Face model folders (issue 21):
//   onnx-bytes  — a small onnx-community decoder graph (the Qwen3 fixture architecture) truncated, with bytes flipped,
//                 spliced or replaced, loaded on onnxruntime-node through ortHfKVModel and run for one prefill;
//                 documented error: HfModelError (BAD_ONNX, NOT_A_DECODER).
//   hf-folder   — a picked folder (config.json, tokenizer.json, tokenizer_config.json with the real Qwen3 chat
//                 template) with files missing, JSON fields dropped/retyped, templates cut, spliced or injected,
//                 read as the loader reads it (loadHfTokenizer: transformers.js through the picked-folder cache), the
//                 tokenizer run on text, the template rendered with tools; documented errors: HfModelError,
//                 ChatTemplateError. A loaded tokenizer that yields non-integer ids is a violation.

import onnxProto from 'onnx-proto';
import { qwen3FixtureConfig } from '../../engine/hf/fixture';
import { qwen3TokenizerFiles } from '../../engine/hf/fixture-node';
import { ortHfKVModel } from '../../engine/hf/kv';
import { loadHfTokenizer } from '../../engine/hf/loader';
import { buildQwen3Inference, initQwen3Params } from '../../engine/hf/qwen3';
import { HfModelError, kvGeometry } from '../../engine/hf/source';
import { createNodeRuntime } from '../../engine/runtime-node';
import type { Runtime } from '../../engine/runtime';
import { initParams, makeConfig } from '../../engine/decoder';
import { modelFolderFiles } from '../../engine/modelFolder';
import { trainBPE } from '../../engine/tokenizer';
import { syntheticCorpus } from '../../engine/corpus';
import { ChatTemplateError, jinjaFormat } from '../../agent/chatTemplate';
import { getWorld } from '../../envs/worlds';
import type { Message } from '../../envs/types';
import type { ToolSchema } from '../../envs/types';
import { FuzzRng, mutateN, mutateValue, NASTY_STRINGS } from './gen';
import { FuzzViolation, type Surface } from './harness';

const enc = new TextEncoder();
const dec = new TextDecoder();

// ---- onnx-bytes ---------------------------------------------------------------------------------------------

const ONNX_CFG = { ...qwen3FixtureConfig({ hiddenSize: 16, layers: 1, heads: 2, kvHeads: 1, headDim: 8, intermediateSize: 16, maxPositions: 64 }), vocab_size: 64 };
let onnxBase: Uint8Array | null = null;
let runtime: Runtime | null = null;

/**
 * The undamaged graph, as a plain Uint8Array. protobufjs's `finish()` returns a Node Buffer, whose `slice()` is a
 * view, not a copy: with it every damage below wrote into the shared graph, the damages piled up from case to case
 * and after a dozen cases every input — the undamaged control included — was a graph ONNX Runtime could not parse
 * (the "all BAD_ONNX" seen under vitest; tests/bench/fuzz-hf.test.ts).
 */
export function baseOnnx(): Uint8Array {
  onnxBase ??= Uint8Array.from(buildQwen3Inference(ONNX_CFG, initQwen3Params(ONNX_CFG, 1)).bytes);
  return onnxBase;
}

const { onnx } = onnxProto;
const OPS = ['Add', 'Mul', 'Sub', 'MatMul', 'Gemm', 'Reshape', 'Transpose', 'Softmax', 'Concat', 'Gather', 'Cast', 'Identity', 'Relu', 'NoSuchOp'];
const DTYPES = [1, 6, 7, 10, 11, 0, 99]; // float, int32, int64, float16, double, undefined, not a type

/**
 * A graph that still parses as ONNX but whose structure is wrong: the model is decoded with onnx-proto, one field
 * changed (graph inputs/outputs renamed or dropped, a node dropped, an operator or an edge changed, an initializer's
 * shape, type or bytes changed, an attribute or the opset changed) and encoded again. These reach ORT's graph
 * checks, shape inference and the run, and ortHfKVModel's own output checks — byte damage mostly stops at the parser.
 */
export function damageGraph(r: FuzzRng, b: Uint8Array): { bytes: Uint8Array; what: string } {
  const m = onnx.ModelProto.decode(b);
  const g = m.graph!;
  const nodes = g.node!, inits = g.initializer!, ins = g.input!, outs = g.output!;
  const names = [...ins.map((v) => v.name!), ...inits.map((t) => t.name!), ...nodes.flatMap((n) => n.output!)];
  let what: string;
  switch (r.int(11)) {
    case 0: { const v = r.pick(outs); const was = v.name; v.name = r.bool() ? `${was}_` : r.pick(names); what = `output ${was} renamed ${v.name}`; break; }
    case 1: { const i = r.int(ins.length); what = `input ${ins[i].name} dropped`; ins.splice(i, 1); break; }
    case 2: { const i = r.int(outs.length); what = `output ${outs[i].name} dropped`; outs.splice(i, 1); break; }
    case 3: { const i = r.int(nodes.length); what = `node ${i} (${nodes[i].opType}) dropped`; nodes.splice(i, 1); break; }
    case 4: { const n = r.pick(nodes); const was = n.opType; n.opType = r.pick(OPS); what = `node ${was} became ${n.opType}`; break; }
    case 5: { // an edge rewired to another tensor of the graph
      const n = r.pick(nodes);
      if (!n.input!.length) { what = 'none'; break; }
      const k = r.int(n.input!.length); const was = n.input![k]; n.input![k] = r.pick(names);
      what = `${n.opType} input ${was} rewired to ${n.input![k]}`; break;
    }
    case 6: { // an initializer's shape changed (its bytes kept)
      const t = r.pick(inits);
      const was = (t.dims ?? []).map(Number);
      const dims = was.length && r.bool(0.7) ? was.map((d, j) => (j === r.int(was.length) ? Math.max(0, d + r.pick([-1, 1, 2])) : d)) : r.bool() ? [...was, 1] : was.slice(1);
      t.dims = dims;
      what = `initializer ${t.name} reshaped [${was}] → [${dims}]`; break;
    }
    case 7: { const t = r.pick(inits); const was = t.dataType; t.dataType = r.pick(DTYPES); what = `initializer ${t.name} dtype ${was} → ${t.dataType}`; break; }
    case 8: { // an initializer's bytes: an int64 shape/index constant set to a hostile value, or float data cut
      const t = r.pick(inits);
      const raw = Uint8Array.from(t.rawData ?? []);
      if (t.dataType === 7 && raw.length >= 8) {
        const v = r.pick([-1n, 0n, 1n, 2n, 3n, 64n, -64n, 2n ** 31n, -(2n ** 63n), 2n ** 62n]);
        new DataView(raw.buffer).setBigInt64(8 * r.int(raw.length / 8), v, true);
        t.rawData = raw;
        what = `int64 constant ${t.name} gets ${v}`;
      } else {
        t.rawData = raw.subarray(0, r.int(raw.length + 1));
        what = `initializer ${t.name} data cut to ${t.rawData.length} of ${raw.length} bytes`;
      }
      break;
    }
    case 9: { // an attribute's value changed
      const withAttr = nodes.filter((n) => n.attribute!.length);
      const n = r.pick(withAttr), a = r.pick(n.attribute!);
      const v = r.pick([-3, -1, 0, 1, 2, 5, 1 << 20]);
      if (a.ints && a.ints.length) a.ints[r.int(a.ints.length)] = v; else a.i = v;
      if (r.bool(0.2)) a.type = r.pick([1, 2, 3, 7]); // FLOAT, INT, STRING, INTS
      what = `${n.opType}.${a.name} set to ${v}${a.type ? ` (type ${a.type})` : ''}`; break;
    }
    default: { const was = Number(m.opsetImport![0].version); m.opsetImport![0].version = r.pick([1, 7, 11, 13, 21, 99, 0]); what = `opset ${was} → ${m.opsetImport![0].version}`; }
  }
  return { bytes: Uint8Array.from(onnx.ModelProto.encode(m).finish()), what: `graph: ${what}` };
}

/** One damaged copy of `b` (never a view of it: `b` stays as it was). */
export function damageBytes(r: FuzzRng, b: Uint8Array): { bytes: Uint8Array; what: string } {
  b = Uint8Array.prototype.slice.call(b) as Uint8Array; // a copy even when `b` is a Buffer
  if (r.bool(0.4)) return damageGraph(r, b);
  switch (r.int(8)) {
    case 7: return { bytes: b, what: 'unchanged (the control: it must load and run)' };
    case 6: { // one low bit flipped in the middle third: mostly weight data, so the graph often still loads and runs
      const out = b.slice();
      const at = Math.floor(out.length / 3) + r.int(Math.floor(out.length / 3));
      out[at] ^= 1 << r.int(3);
      return { bytes: out, what: `a low bit flipped at ${at}` };
    }
    case 0: { const n = r.int(b.length); return { bytes: b.slice(0, n), what: `truncated to ${n}` }; }
    case 1: {
      const out = b.slice();
      const k = r.range(1, 16);
      for (let i = 0; i < k; i++) out[r.int(out.length)] = r.int(256);
      return { bytes: out, what: `${k} bytes flipped` };
    }
    case 2: { // a flipped byte in the first kilobyte: the graph structure, not the weights
      const out = b.slice();
      const k = r.range(1, 4);
      for (let i = 0; i < k; i++) out[r.int(Math.min(1024, out.length))] ^= 1 << r.int(8);
      return { bytes: out, what: `${k} header bits flipped` };
    }
    case 3: { // a span copied over another (protobuf fields duplicated or cut mid-field)
      const out = b.slice();
      const len = r.range(1, 256), from = r.int(out.length), to = r.int(out.length);
      out.copyWithin(to, from, Math.min(out.length, from + len));
      return { bytes: out, what: `span ${from}+${len} copied to ${to}` };
    }
    case 4: { const n = r.pick([0, 1, 8, 100, 4096]); const out = new Uint8Array(n); for (let i = 0; i < n; i++) out[i] = r.int(256); return { bytes: out, what: `${n} random bytes` }; }
    default: { // a byte inserted or removed (every later length prefix is off by one)
      const at = r.int(b.length);
      const insert = r.bool();
      const out = new Uint8Array(b.length + (insert ? 1 : -1));
      out.set(b.subarray(0, at));
      if (insert) { out[at] = r.int(256); out.set(b.subarray(at), at + 1); } else out.set(b.subarray(at + 1), at);
      return { bytes: out, what: `a byte ${out.length > b.length ? 'inserted' : 'removed'} at ${at}` };
    }
  }
}

/** A one-thread CPU runtime whose sessions do not log: a graph that fails to run is an outcome here, not news. */
function quietRuntime(): Runtime {
  const rt = createNodeRuntime({ threads: 1 });
  return { ...rt, createSession: (bytes, o = {}) => rt.createSession(bytes, { ...o, extra: { logSeverityLevel: 4, ...o.extra } }) };
}

/** The documented error's code and where it stopped the graph (the outcome codes of the surface). */
export function onnxErrorKind(e: HfModelError): string {
  if (e.code !== 'BAD_ONNX') return e.code;
  const m = e.message;
  return /protobuf parsing failed/.test(m) ? 'BAD_ONNX:unparsable' : /cannot load this graph/.test(m) ? 'BAD_ONNX:load'
    : /failed to run/.test(m) ? 'BAD_ONNX:run' : /outputs .* missing/.test(m) ? 'BAD_ONNX:outputs' : /logits have shape/.test(m) ? 'BAD_ONNX:logits-shape' : 'BAD_ONNX';
}

export const onnxBytesSurface: Surface<{ bytes: Uint8Array; what: string }> = {
  name: 'onnx-bytes',
  about: 'ONNX bytes of an onnx-community decoder — bytes damaged (truncated, flipped bytes and header bits, copied spans, random bytes, inserted/removed bytes) or, in 40% of cases, the graph decoded, one structural field changed (inputs/outputs renamed or dropped, nodes dropped, operators, edges, initializer shapes/types/bytes, attributes, opset) and re-encoded — loaded on onnxruntime-node by ortHfKVModel and run for one prefill; documented error: HfModelError (BAD_ONNX, coded by where it stopped: unparsable, load, run, outputs, logits-shape; NOT_A_DECODER)',
  setup: () => { baseOnnx(); runtime ??= quietRuntime(); },
  generate: (r) => damageBytes(r, baseOnnx()),
  async run({ bytes }) {
    runtime ??= quietRuntime();
    const m = await ortHfKVModel(runtime, bytes, kvGeometry(ONNX_CFG));
    try {
      const T = 3;
      const out = await m.prefill(Int32Array.of(1, 2, 3), Uint8Array.of(1, 1, 1), Int32Array.of(0, 1, 2), 1, T);
      if (out.logits.length !== ONNX_CFG.vocab_size) return 'ok:odd-logits';
      return out.logits.every(Number.isFinite) ? 'ok' : 'ok:non-finite-logits';
    } finally {
      await m.release();
    }
  },
  documented: (e) => (e instanceof HfModelError ? onnxErrorKind(e) : null),
  show: ({ what }) => what,
};

// ---- hf-folder ----------------------------------------------------------------------------------------------

type Files = Map<string, Uint8Array>;
let folderBase: Record<string, Uint8Array> | null = null;
let messages: Message[] = [];
let tools: ToolSchema[] = [];

function baseFolder(): Record<string, Uint8Array> {
  if (folderBase) return folderBase;
  const tokenizer = trainBPE(syntheticCorpus(20_000, 4), { vocabSize: 300 });
  const llama = makeConfig('tiny', { vocab_size: 300, hidden_size: 16, num_attention_heads: 2, num_key_value_heads: 2, intermediate_size: 32, num_hidden_layers: 1, max_position_embeddings: 32 });
  const ours = modelFolderFiles({ config: llama, params: initParams(llama, 1), tokenizer, withOnnx: false });
  const qwenTemplate = (JSON.parse(dec.decode(qwen3TokenizerFiles().tokenizerConfigJson)) as { chat_template: string }).chat_template;
  const tc = JSON.parse(dec.decode(ours['tokenizer_config.json']!)) as Record<string, unknown>;
  tc.chat_template = qwenTemplate;
  folderBase = {
    'config.json': enc.encode(JSON.stringify({ ...qwen3FixtureConfig({ layers: 1 }), vocab_size: 300, eos_token_id: 1 })),
    'tokenizer.json': ours['tokenizer.json']!,
    'tokenizer_config.json': enc.encode(JSON.stringify(tc)),
    'onnx/model.onnx': new Uint8Array([8, 7]), // present (the layout check), never loaded here
  };
  const task = getWorld('files').tasks({ count: 1 })[0]!;
  messages = task.reference.slice(0, 6);
  tools = task.makeEnv().tools();
  return folderBase;
}

const JSON_FILES = ['config.json', 'tokenizer.json', 'tokenizer_config.json'];
const JINJA_BITS = ['{{', '}}', '{%', '%}', '{% endif %}', '{% endfor %}', '{% if x %}', '{{ messages[99].content }}', "{{ raise_exception('bad') }}",
  '{{ messages | length }}', '{% for m in messages %}{{ m }}{% endfor %}', '{{ tools[0].function.name }}', '{{ 1 / 0 }}', "{{ 'a' * 3 }}",
  '{% set x = namespace(a=1) %}', '{{ x.y.z }}', '{{ none.attr }}', '{% macro m() %}{% endmacro %}{{ m() }}', '{{ range(5) | list }}'];

export function damageFolder(r: FuzzRng, f: Record<string, Uint8Array>): string {
  // tokenizer_config.json as an object, or null when it is missing, not JSON, or (after an earlier damage) a JSON
  // number, string, array or null: a property set on those threw a TypeError in the generator (fuzz run at case 3,443)
  const tc = () => {
    try {
      const v = JSON.parse(dec.decode(f['tokenizer_config.json']!)) as unknown;
      return v !== null && typeof v === 'object' && !Array.isArray(v) ? v as Record<string, unknown> : null;
    } catch { return null; }
  };
  switch (r.int(8)) {
    case 0: { const n = r.pick([...JSON_FILES, 'onnx/model.onnx']); delete f[n]; return `${n} missing`; }
    case 1: { const n = r.pick(JSON_FILES); if (!f[n]) return 'none'; f[n] = f[n].slice(0, r.int(f[n].length)); return `${n} truncated`; }
    case 2: case 3: { // JSON fields dropped, retyped, added (own __proto__ keys included)
      const n = r.pick(JSON_FILES);
      let v: unknown;
      try { v = JSON.parse(dec.decode(f[n]!)); } catch { return 'none'; }
      f[n] = enc.encode(JSON.stringify(mutateValue(r, v)) ?? 'null');
      return `${n} field changed`;
    }
    case 4: { // the chat template cut or spliced
      const c = tc(); if (!c || typeof c.chat_template !== 'string') return 'none';
      const t = c.chat_template;
      const a = r.int(t.length), b = r.int(t.length);
      c.chat_template = r.bool() ? t.slice(0, a) + t.slice(Math.max(a, b)) : t.slice(0, a) + t.slice(b, b + r.range(1, 200)) + t.slice(a);
      f['tokenizer_config.json'] = enc.encode(JSON.stringify(c));
      return 'chat template cut/spliced';
    }
    case 5: { // jinja injected into the chat template
      const c = tc(); if (!c || typeof c.chat_template !== 'string') return 'none';
      const t = c.chat_template, at = r.int(t.length);
      c.chat_template = t.slice(0, at) + r.pick(JINJA_BITS) + t.slice(at);
      f['tokenizer_config.json'] = enc.encode(JSON.stringify(c));
      return 'jinja injected';
    }
    case 6: { // the template's characters edited, or replaced by a nasty string
      const c = tc(); if (!c) return 'none';
      c.chat_template = r.bool(0.7) && typeof c.chat_template === 'string' ? mutateN(r, c.chat_template, 6) : r.pick(NASTY_STRINGS);
      f['tokenizer_config.json'] = enc.encode(JSON.stringify(c));
      return 'chat template edited';
    }
    default: { // special tokens renamed, retyped or pointed at other ids
      const c = tc(); if (!c) return 'none';
      const k = r.pick(['eos_token', 'bos_token', 'pad_token', 'added_tokens_decoder', 'model_max_length']);
      c[k] = r.pick([null, 5, '', '<|im_end|>', { content: 7 }, [], -1, 'x'.repeat(300)]);
      f['tokenizer_config.json'] = enc.encode(JSON.stringify(c));
      return `tokenizer_config ${k} changed`;
    }
  }
}

export const hfFolderSurface: Surface<{ files: Record<string, Uint8Array>; what: string[]; n: number }> = {
  name: 'hf-folder',
  about: 'Hugging Face folders (config.json, tokenizer.json, tokenizer_config.json with the Qwen3 chat template: files missing or truncated, JSON fields changed, templates cut, spliced, edited or injected with Jinja, special tokens changed) read by loadHfTokenizer (transformers.js, the picked-folder path), the tokenizer run and the template rendered with tools; documented errors: HfModelError, ChatTemplateError; a tokenizer that loads and yields ids that are not non-negative integers is a violation',
  setup: () => { baseFolder(); },
  generate(r, i) {
    const files = { ...baseFolder() };
    const what: string[] = [];
    for (let k = r.bool(0.8) ? 1 : r.range(2, 3); k > 0; k--) what.push(damageFolder(r, files));
    return { files, what, n: i };
  },
  async run({ files, n }) {
    const { tokenizer, tokenizerConfig } = await loadHfTokenizer({ kind: 'files', name: `fuzz-${n}`, files: new Map(Object.entries(files)) as Files });
    const ids = tokenizer.encode('The cat reads notes.txt <|im_end|> 🙂');
    if (!ids.every((x) => Number.isSafeInteger(x) && x >= 0)) throw new FuzzViolation('bad-ids', `ids ${ids.slice(0, 8).join(',')}`);
    tokenizer.decode(ids);
    const t = tokenizerConfig.chat_template;
    if (typeof t !== 'string') return 'ok:no-template';
    const eos = typeof tokenizerConfig.eos_token === 'string' ? tokenizerConfig.eos_token : undefined;
    const text = jinjaFormat(t, { stop: eos ? [eos] : [], eosToken: eos }).render(messages, { addGenerationPrompt: true, tools });
    return text.length > 0 ? 'ok' : 'ok:empty';
  },
  documented: (e) => (e instanceof HfModelError ? e.code : e instanceof ChatTemplateError ? e.code : null),
  show: ({ what }) => what.join('; '),
};
