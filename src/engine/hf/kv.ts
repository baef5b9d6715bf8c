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
import { checkDecoderIo } from './source';

export interface KvGeometry { layers: number; kvHeads: number; headDim: number; vocab: number }

const toI64 = (a: ArrayLike<number>) => BigInt64Array.from(Array.from(a, (x) => BigInt(x)));

/** The last position's row of [B, T, V] logits. */
function lastRows(logits: Float32Array, B: number, T: number, V: number): Float32Array {
  if (T === 1) return logits;
  const out = new Float32Array(B * V);
  for (let b = 0; b < B; b++) out.set(logits.subarray(((b + 1) * T - 1) * V, (b + 1) * T * V), b * V);
  return out;
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
  const collect = (out: Record<string, Tensor>) => ({
    keys: Array.from({ length: L }, (_, l) => wrap(out[`present.${l}.key`])),
    values: Array.from({ length: L }, (_, l) => wrap(out[`present.${l}.value`])),
  });
  return {
    numLayers: L, numKvHeads: H, headDim: D, vocabSize: V, stepKind: 'present',
    async prefill(ids, mask, pos, B, T): Promise<StepOut> {
      const out = await model.forward({
        input_ids: new Tensor('int64', toI64(ids), [B, T]),
        attention_mask: new Tensor('int64', toI64(mask), [B, T]),
        position_ids: new Tensor('int64', toI64(pos), [B, T]),
      });
      const logits = out.logits;
      return { logits: lastRows(await floatData(logits), B, logits.dims[1], V), ...collect(out) };
    },
    async step(ids, pos, mask, keys, values, B, cap): Promise<StepOut> {
      const past: Record<string, Tensor> = {};
      for (let l = 0; l < L; l++) {
        past[`past_key_values.${l}.key`] = asTensor(keys[l], [B, H, cap, D]);
        past[`past_key_values.${l}.value`] = asTensor(values[l], [B, H, cap, D]);
      }
      const out = await model.forward({
        input_ids: new Tensor('int64', toI64(ids), [B, 1]),
        attention_mask: new Tensor('int64', mask, [B, cap + 1]),
        position_ids: new Tensor('int64', toI64(pos), [B, 1]),
        past_key_values: past,
      });
      return { logits: await floatData(out.logits), ...collect(out) };
    },
  };
}

// ---------------------------------------------------------------------------------------------------------
// Our runtime

export async function ortHfKVModel(runtime: Runtime, onnx: Uint8Array, geo: KvGeometry, file = 'onnx/model.onnx'): Promise<KVModel & { release(): Promise<void> }> {
  const session: Session = await runtime.createSession(onnx);
  checkDecoderIo(session.inputNames, session.outputNames, file);
  const { layers: L, kvHeads: H, headDim: D, vocab: V } = geo;
  const needsPos = session.inputNames.includes('position_ids');
  const pastFeeds = (feeds: Record<string, HostTensor>, keys: KVBuf[] | null, values: KVBuf[] | null, B: number, P: number) => {
    for (let l = 0; l < L; l++) {
      feeds[`past_key_values.${l}.key`] = { type: 'float32', data: (keys?.[l] as Float32Array | undefined) ?? new Float32Array(0), dims: [B, H, P, D] };
      feeds[`past_key_values.${l}.value`] = { type: 'float32', data: (values?.[l] as Float32Array | undefined) ?? new Float32Array(0), dims: [B, H, P, D] };
    }
    return feeds;
  };
  const collect = (out: Record<string, HostTensor>) => ({
    keys: Array.from({ length: L }, (_, l) => out[`present.${l}.key`].data as Float32Array),
    values: Array.from({ length: L }, (_, l) => out[`present.${l}.value`].data as Float32Array),
  });
  const base = (ids: Int32Array, mask: BigInt64Array, pos: Int32Array, B: number, T: number, W: number): Record<string, HostTensor> => ({
    input_ids: { type: 'int64', data: toI64(ids), dims: [B, T] },
    attention_mask: { type: 'int64', data: mask, dims: [B, W] },
    ...(needsPos ? { position_ids: { type: 'int64' as const, data: toI64(pos), dims: [B, T] } } : {}),
  });
  return {
    numLayers: L, numKvHeads: H, headDim: D, vocabSize: V, stepKind: 'present',
    async prefill(ids, mask, pos, B, T) {
      const out = await session.run(pastFeeds(base(ids, toI64(mask), pos, B, T, T), null, null, B, 0));
      return { logits: lastRows(out.logits.data as Float32Array, B, out.logits.dims[1], V), ...collect(out) };
    },
    async step(ids, pos, mask, keys, values, B, cap) {
      if (!keys.every((k) => k instanceof Float32Array)) throw new Error('ortHfKVModel keeps its cache on the host');
      const out = await session.run(pastFeeds(base(ids, mask, pos, B, 1, cap + 1), keys, values, B, cap));
      return { logits: out.logits.data as Float32Array, ...collect(out) };
    },
    release: () => session.release(),
  };
}
