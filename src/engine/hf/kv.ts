// KVModels (the sampler's model interface, ../sampler.ts) over an ONNX decoder in the onnx-community
// convention: full `present.*` caches fed back as `past_key_values.*` ('present' kind). Two backends:
//   - transformersKVModel: a model loaded by @huggingface/transformers (any architecture and quantised format
//     it supports; its forward() builds the feeds the session needs). Caches stay transformers.js tensors.
//   - ortHfKVModel: the same file on our own Runtime (onnxruntime-node / -web sessions we create), for models
//     whose graph needs nothing beyond these inputs (e.g. the Qwen3 fixture) and as a cross-check.
// The sampler on top gives both the engine's batching, per-request seeds, stop strings and log-probs.

import { Tensor } from '@huggingface/transformers';
import type { KVBuf, KVModel, StepOut } from '../sampler';
import type { HostTensor, NativeTensor, Runtime, Session } from '../runtime';
import { checkDecoderIo, HfModelError } from './source';

export interface KvGeometry { layers: number; kvHeads: number; headDim: number; vocab: number }

const toI64 = (a: ArrayLike<number>) => BigInt64Array.from(Array.from(a, (x) => BigInt(x)));

/** The last position's row of [B, T, V] logits. */
function lastRows(logits: Float32Array, B: number, T: number, V: number): Float32Array {
  if (T === 1) return logits;
  const out = new Float32Array(B * V);
  for (let b = 0; b < B; b++) out.set(logits.subarray(((b + 1) * T - 1) * V, (b + 1) * T * V), b * V);
  return out;
}

/**
 * Without `num_logits_to_keep` a graph returns logits for every prompt position ([B, T, vocab]: gigabytes for a
 * long prompt and a 150k vocabulary), so prompts are then prefilled in chunks of this many tokens against the
 * growing cache; only the last chunk's last row is kept.
 */
export const PREFILL_CHUNK = 128;

interface ChunkOut<K> { logits: Float32Array; logitsLen: number; keys: K[]; values: K[] }

/** Runs a left-padded prompt [B, T] as one call or in chunks; `run` gets the chunk and the cache so far. */
async function prefillInChunks<K>(
  ids: Int32Array, mask: Uint8Array, pos: Int32Array, B: number, T: number, chunk: number,
  run: (ids: Int32Array, mask: BigInt64Array, pos: Int32Array, len: number, total: number, past: { keys: K[]; values: K[] } | null) => Promise<ChunkOut<K>>,
): Promise<ChunkOut<K>> {
  let past: { keys: K[]; values: K[] } | null = null;
  let out: ChunkOut<K> | null = null;
  for (let s = 0; s < T; s += chunk) {
    const e = Math.min(T, s + chunk), len = e - s;
    const cid = new Int32Array(B * len), cpos = new Int32Array(B * len), cmask = new BigInt64Array(B * e);
    for (let b = 0; b < B; b++) {
      cid.set(ids.subarray(b * T + s, b * T + e), b * len);
      cpos.set(pos.subarray(b * T + s, b * T + e), b * len);
      for (let j = 0; j < e; j++) cmask[b * e + j] = BigInt(mask[b * T + j]);
    }
    out = await run(cid, cmask, cpos, len, e, past);
    past = { keys: out.keys, values: out.values };
  }
  return out!;
}

// ---------------------------------------------------------------------------------------------------------
// transformers.js

/** What we use of a transformers.js causal LM (PreTrainedModel). */
export interface TransformersCausalLM {
  forward(inputs: Record<string, unknown>): Promise<Record<string, Tensor>>;
  sessions: Record<string, { inputNames: readonly string[]; outputNames: readonly string[] }>;
  dispose(): Promise<unknown>;
}

const wrap = (t: Tensor): NativeTensor => ({ native: t, dims: t.dims, dispose: () => t.dispose() });
const asTensor = (x: KVBuf, dims: number[]): Tensor =>
  (x instanceof Float32Array ? new Tensor('float32', x, dims) : (x as NativeTensor).native as Tensor);

async function floatData(t: Tensor): Promise<Float32Array> {
  if (t.type === 'float32') return t.data as Float32Array;
  // fp16 models return fp16 logits; the sampler works in fp32.
  return Float32Array.from((t.to('float32') as Tensor).data as ArrayLike<number>);
}

export function transformersKVModel(model: TransformersCausalLM, geo: KvGeometry, file = 'onnx/model.onnx'): KVModel {
  const session = model.sessions.model ?? model.sessions.decoder_model_merged;
  if (!session) throw new Error(`transformers.js loaded no decoder session (sessions: ${Object.keys(model.sessions).join(', ')})`);
  checkDecoderIo(session.inputNames, session.outputNames, file);
  const { layers: L, kvHeads: H, headDim: D, vocab: V } = geo;
  const keepOne = session.inputNames.includes('num_logits_to_keep');
  const collect = (out: Record<string, Tensor>) => ({
    keys: Array.from({ length: L }, (_, l) => wrap(out[`present.${l}.key`])),
    values: Array.from({ length: L }, (_, l) => wrap(out[`present.${l}.value`])),
  });
  const forward = async (ids: Int32Array, mask: BigInt64Array, pos: Int32Array, B: number, len: number, total: number, past: { keys: KVBuf[]; values: KVBuf[] } | null) => {
    const feeds: Record<string, unknown> = {
      input_ids: new Tensor('int64', toI64(ids), [B, len]),
      attention_mask: new Tensor('int64', mask, [B, total]),
      position_ids: new Tensor('int64', toI64(pos), [B, len]),
    };
    if (keepOne) feeds.num_logits_to_keep = new Tensor('int64', BigInt64Array.of(1n), []);
    if (past) {
      const pkv: Record<string, Tensor> = Object.create(null);
      for (let l = 0; l < L; l++) {
        pkv[`past_key_values.${l}.key`] = asTensor(past.keys[l], [B, H, total - len, D]);
        pkv[`past_key_values.${l}.value`] = asTensor(past.values[l], [B, H, total - len, D]);
      }
      feeds.past_key_values = pkv;
    }
    const out = await model.forward(feeds);
    return { logits: await floatData(out.logits), logitsLen: out.logits.dims[1], ...collect(out) };
  };
  return {
    numLayers: L, numKvHeads: H, headDim: D, vocabSize: V, stepKind: 'present',
    async prefill(ids, mask, pos, B, T): Promise<StepOut> {
      const out = await prefillInChunks<KVBuf>(ids, mask, pos, B, T, keepOne ? T : PREFILL_CHUNK,
        (cid, cmask, cpos, len, total, past) => forward(cid, cmask, cpos, B, len, total, past));
      return { logits: lastRows(out.logits, B, out.logitsLen, V), keys: out.keys, values: out.values };
    },
    async step(ids, pos, mask, keys, values, B, cap): Promise<StepOut> {
      const out = await forward(ids, mask, pos, B, 1, cap + 1, { keys, values });
      return { logits: out.logits, keys: out.keys, values: out.values };
    },
  };
}

// ---------------------------------------------------------------------------------------------------------
// Our runtime

export async function ortHfKVModel(runtime: Runtime, onnx: Uint8Array, geo: KvGeometry, file = 'onnx/model.onnx'): Promise<KVModel & { release(): Promise<void> }> {
  let session: Session;
  // A damaged or foreign graph is the folder's fault, said with its file name (issue 21: fuzzed as onnx-bytes).
  try { session = await runtime.createSession(onnx); } catch (e) {
    throw new HfModelError('BAD_ONNX', `${file}: ONNX Runtime cannot load this graph (${e instanceof Error ? e.message : String(e)})`, file);
  }
  checkDecoderIo(session.inputNames, session.outputNames, file);
  const { layers: L, kvHeads: H, headDim: D, vocab: V } = geo;
  const needsPos = session.inputNames.includes('position_ids');
  const keepOne = session.inputNames.includes('num_logits_to_keep');
  const forward = async (ids: Int32Array, mask: BigInt64Array, pos: Int32Array, B: number, len: number, total: number, past: { keys: KVBuf[]; values: KVBuf[] } | null) => {
    const P = total - len;
    const feeds: Record<string, HostTensor> = {
      input_ids: { type: 'int64', data: toI64(ids), dims: [B, len] },
      attention_mask: { type: 'int64', data: mask, dims: [B, total] },
    };
    if (needsPos) feeds.position_ids = { type: 'int64', data: toI64(pos), dims: [B, len] };
    if (keepOne) feeds.num_logits_to_keep = { type: 'int64', data: BigInt64Array.of(1n), dims: [] };
    for (let l = 0; l < L; l++) {
      const k = past?.keys[l], v = past?.values[l];
      if ((k && !(k instanceof Float32Array)) || (v && !(v instanceof Float32Array))) throw new Error('ortHfKVModel keeps its cache on the host');
      feeds[`past_key_values.${l}.key`] = { type: 'float32', data: (k as Float32Array | undefined) ?? new Float32Array(0), dims: [B, H, P, D] };
      feeds[`past_key_values.${l}.value`] = { type: 'float32', data: (v as Float32Array | undefined) ?? new Float32Array(0), dims: [B, H, P, D] };
    }
    let out: Awaited<ReturnType<Session['run']>>;
    try { out = await session.run(feeds); } catch (e) {
      throw new HfModelError('BAD_ONNX', `${file}: the graph failed to run (${e instanceof Error ? e.message : String(e)})`, file);
    }
    const need = ['logits', ...Array.from({ length: L }, (_, l) => [`present.${l}.key`, `present.${l}.value`]).flat()];
    const wrong = need.filter((n) => !(out[n]?.data instanceof Float32Array));
    if (wrong.length) throw new HfModelError('BAD_ONNX', `${file}: the graph's outputs ${wrong.join(', ')} are missing or not float32`, file);
    const logitsSize = out.logits.dims.length === 3 && out.logits.dims[0] === B && out.logits.dims[2] === V && (out.logits.data as Float32Array).length === B * out.logits.dims[1] * V;
    if (!logitsSize) throw new HfModelError('BAD_ONNX', `${file}: logits have shape [${out.logits.dims.join(', ')}], expected [${B}, n, ${V}] (config.json vocab_size)`, file);
    return {
      logits: out.logits.data as Float32Array, logitsLen: out.logits.dims[1],
      keys: Array.from({ length: L }, (_, l): KVBuf => out[`present.${l}.key`].data as Float32Array),
      values: Array.from({ length: L }, (_, l): KVBuf => out[`present.${l}.value`].data as Float32Array),
    };
  };
  return {
    numLayers: L, numKvHeads: H, headDim: D, vocabSize: V, stepKind: 'present',
    async prefill(ids, mask, pos, B, T) {
      const out = await prefillInChunks<KVBuf>(ids, mask, pos, B, T, keepOne ? T : PREFILL_CHUNK,
        (cid, cmask, cpos, len, total, past) => forward(cid, cmask, cpos, B, len, total, past));
      return { logits: lastRows(out.logits, B, out.logitsLen, V), keys: out.keys, values: out.values };
    },
    async step(ids, pos, mask, keys, values, B, cap) {
      const out = await forward(ids, mask, pos, B, 1, cap + 1, { keys, values });
      return { logits: out.logits, keys: out.keys, values: out.values };
    },
    release: () => session.release(),
  };
}
