// A model folder in the Hugging Face layout, readable by transformers.js and by us:
//   config.json, generation_config.json, tokenizer.json, tokenizer_config.json,
//   model.safetensors (weights for reloading / continued training), onnx/model.onnx (HF-convention graph).
// Reading goes through a small FileSource so the same code serves Node (fs) and browsers (fetch).
import { BPETokenizer, tokenizerConfig, type TokenizerJSON } from './tokenizer';
import { readSafetensors, writeSafetensors, type SafeTensors } from './safetensors';
import { headDim, paramSpecs, type LlamaConfig, type Params } from './decoder';
import { exportInference } from './graphs';

export const ONNX_PATH = 'onnx/model.onnx';

export interface SpecialIds { bos: number; eos: number; pad: number }

/** config.json: the engine's LlamaConfig plus the fields HF loaders read. */
export function toHfConfig(cfg: LlamaConfig, ids: SpecialIds, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    ...cfg,
    architectures: ['LlamaForCausalLM'],
    model_type: 'llama',
    head_dim: headDim(cfg),
    attention_bias: false,
    mlp_bias: false,
    bos_token_id: ids.bos,
    eos_token_id: ids.eos,
    pad_token_id: ids.pad,
    torch_dtype: 'float32',
    use_cache: true,
    ...extra,
  };
}

/**
 * Why a model folder could not be loaded. Every failure of `loadModelFolder` is one of these, so a page or
 * CLI can show the code and message for a folder from anywhere (a URL, a user's disk) without crashing.
 */
export type ModelFolderErrorCode = 'missing_file' | 'bad_json' | 'bad_config' | 'bad_tokenizer' | 'tokenizer_mismatch' | 'bad_weights';

export class ModelFolderError extends Error {
  constructor(readonly code: ModelFolderErrorCode, message: string) {
    super(message);
    this.name = 'ModelFolderError';
  }
}

const isObject = (v: unknown): v is Record<string, any> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isCount = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) > 0;

/** The LlamaConfig inside a config.json (unknown keys such as our provenance block are dropped). */
export function fromHfConfig(c: Record<string, any>): LlamaConfig {
  const bad = (why: string) => new ModelFolderError('bad_config', `config.json: ${why}`);
  if (!isObject(c)) throw bad('not a JSON object');
  if (c.model_type !== 'llama') throw bad(`unsupported model_type ${JSON.stringify(c.model_type)}`);
  for (const k of ['hidden_size', 'intermediate_size', 'num_hidden_layers', 'num_attention_heads', 'vocab_size', 'max_position_embeddings']) {
    if (!isCount(c[k])) throw bad(`${k} must be a positive integer (got ${JSON.stringify(c[k])})`);
  }
  const kvHeads = c.num_key_value_heads ?? c.num_attention_heads;
  if (!isCount(kvHeads) || c.num_attention_heads % kvHeads) throw bad(`num_key_value_heads must divide num_attention_heads (grouped-query attention; got ${JSON.stringify(kvHeads)} for ${c.num_attention_heads} heads)`);
  if (c.hidden_size % c.num_attention_heads || (c.hidden_size / c.num_attention_heads) % 2) throw bad('hidden_size / num_attention_heads must be an even integer (rotary)');
  if (c.head_dim !== undefined && c.head_dim !== null && c.head_dim !== c.hidden_size / c.num_attention_heads) throw bad(`head_dim ${JSON.stringify(c.head_dim)} ≠ hidden_size / num_attention_heads (${c.hidden_size / c.num_attention_heads}) is not supported`);
  if (c.rope_scaling !== undefined && c.rope_scaling !== null) throw bad('rope_scaling is not supported');
  for (const k of ['attention_bias', 'mlp_bias']) if (c[k] === true) throw bad(`${k}: true is not supported (Llama projections without biases)`);
  if (c.hidden_act !== undefined && c.hidden_act !== 'silu') throw bad(`hidden_act ${JSON.stringify(c.hidden_act)} is not supported (silu)`);
  for (const k of ['rms_norm_eps', 'rope_theta']) {
    if (c[k] !== undefined && !(typeof c[k] === 'number' && Number.isFinite(c[k]) && c[k] > 0)) throw bad(`${k} must be a positive number (got ${JSON.stringify(c[k])})`);
  }
  if (c.tie_word_embeddings !== undefined && typeof c.tie_word_embeddings !== 'boolean') throw bad(`tie_word_embeddings must be true or false (got ${JSON.stringify(c.tie_word_embeddings)})`);
  if (c.architectures !== undefined && !(Array.isArray(c.architectures) && c.architectures.every((a: unknown) => typeof a === 'string'))) throw bad('architectures must be a list of names');
  for (const k of ['bos_token_id', 'eos_token_id', 'pad_token_id']) {
    const v = c[k];
    if (v !== undefined && v !== null && !(Number.isSafeInteger(v) && v >= 0 && v < c.vocab_size)) throw bad(`${k} must be a token id below vocab_size (got ${JSON.stringify(v)})`);
  }
  return {
    model_type: 'llama',
    architectures: c.architectures ?? ['LlamaForCausalLM'],
    hidden_size: c.hidden_size,
    intermediate_size: c.intermediate_size,
    num_hidden_layers: c.num_hidden_layers,
    num_attention_heads: c.num_attention_heads,
    num_key_value_heads: kvHeads,
    vocab_size: c.vocab_size,
    max_position_embeddings: c.max_position_embeddings,
    rms_norm_eps: c.rms_norm_eps ?? 1e-6,
    rope_theta: c.rope_theta ?? 10000,
    tie_word_embeddings: c.tie_word_embeddings ?? false,
    hidden_act: 'silu',
    bos_token_id: c.bos_token_id,
    eos_token_id: c.eos_token_id,
    pad_token_id: c.pad_token_id,
    torch_dtype: 'float32',
  };
}

/**
 * Shape checks of a tokenizer.json before BPETokenizer reads it, and the ids it may use against the
 * model's vocabulary: an id at or above vocab_size would index past the embedding table.
 */
function checkTokenizer(t: unknown, vocabSize: number): TokenizerJSON {
  const bad = (why: string) => new ModelFolderError('bad_tokenizer', `tokenizer.json: ${why}`);
  if (!isObject(t)) throw bad('not a JSON object');
  const m = t.model;
  if (!isObject(m) || m.type !== 'BPE') throw bad('model.type must be "BPE"');
  if (!isObject(m.vocab)) throw bad('model.vocab must be an object of token → id');
  if (!Array.isArray(m.merges) || !m.merges.every((x: unknown) => (Array.isArray(x) && x.length === 2 && x.every((y) => typeof y === 'string')) || typeof x === 'string')) {
    throw bad('model.merges must be a list of [left, right] pairs');
  }
  if (!Array.isArray(t.added_tokens) || !t.added_tokens.every((a: unknown) => isObject(a) && typeof a.content === 'string' && Number.isSafeInteger(a.id))) {
    throw bad('added_tokens must be a list of {id, content}');
  }
  const ids = [...Object.values(m.vocab), ...t.added_tokens.map((a: { id: number }) => a.id)];
  for (const id of ids) {
    if (!Number.isSafeInteger(id) || (id as number) < 0) throw bad(`token ids must be integers ≥ 0 (got ${JSON.stringify(id)})`);
    if ((id as number) >= vocabSize) throw new ModelFolderError('tokenizer_mismatch', `tokenizer.json has id ${id}, but config.json vocab_size is ${vocabSize}`);
  }
  return t as unknown as TokenizerJSON;
}

export interface FileSource {
  read(path: string): Promise<Uint8Array>;
  has(path: string): Promise<boolean>;
}

/** Files under a directory on disk (Node only; fs is imported lazily so browsers never load it). */
export function nodeFileSource(dir: string): FileSource {
  const full = async (p: string) => (await import('node:path')).join(dir, p);
  return {
    async read(p) {
      const fs = await import('node:fs/promises');
      const b = await fs.readFile(await full(p));
      return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
    },
    async has(p) {
      const fs = await import('node:fs/promises');
      try { await fs.access(await full(p)); return true; } catch { return false; }
    },
  };
}

/** Files under a URL prefix (browser, worker, or Node with fetch). */
export function fetchFileSource(baseUrl: string, fetchImpl: typeof fetch = fetch): FileSource {
  const url = (p: string) => `${baseUrl.replace(/\/+$/, '')}/${p}`;
  return {
    async read(p) {
      const r = await fetchImpl(url(p));
      if (!r.ok) throw new Error(`fetch ${url(p)}: ${r.status}`);
      return new Uint8Array(await r.arrayBuffer());
    },
    async has(p) {
      try { const r = await fetchImpl(url(p), { method: 'HEAD' }); return r.ok; } catch { return false; }
    },
  };
}

/** In-memory folder, e.g. what `modelFolderFiles` produced (tests, OPFS caches). */
export function memoryFileSource(files: Record<string, Uint8Array>): FileSource {
  return {
    async read(p) { const f = files[p]; if (!f) throw new Error(`no file ${p}`); return f; },
    async has(p) { return p in files; },
  };
}

export interface ModelFolderParts {
  config: LlamaConfig;
  params: Params;
  tokenizer: TokenizerJSON;
  /** HF-convention inference graph; built from config + params when omitted. */
  onnx?: Uint8Array;
  /** false: write no ONNX graph (weights-only checkpoints). */
  withOnnx?: boolean;
  chatTemplate?: string;
  /** Names of the bos/eos/pad special tokens in the tokenizer. */
  specialNames?: { bos: string; eos: string; pad: string };
  /** Free-form provenance stored in config.json under "envace" (size name, steps, seed…). */
  meta?: Record<string, unknown>;
  generation?: Record<string, unknown>;
}

const enc = new TextEncoder();
const json = (o: unknown) => enc.encode(JSON.stringify(o, null, 2) + '\n');

/** The special-token ids of a tokenizer, by name. */
export function specialIds(tokenizer: TokenizerJSON, names = { bos: '<|bos|>', eos: '<|eos|>', pad: '<|pad|>' }): SpecialIds {
  const id = (n: string) => {
    const t = tokenizer.added_tokens.find((a) => a.content === n);
    if (!t) throw new Error(`tokenizer has no ${n}`);
    return t.id;
  };
  return { bos: id(names.bos), eos: id(names.eos), pad: id(names.pad) };
}

/** Parameters as safetensors, shaped by the config's parameter list. */
export function paramsToSafetensors(cfg: LlamaConfig, params: Params): SafeTensors {
  const out: SafeTensors = {};
  for (const { name, shape } of paramSpecs(cfg)) {
    const a = params[name];
    if (!a) throw new Error(`missing parameter ${name}`);
    out[name] = { dtype: 'F32', shape, data: a };
  }
  return out;
}

export function paramsFromSafetensors(cfg: LlamaConfig, t: SafeTensors): Params {
  const out: Params = {};
  for (const { name, shape } of paramSpecs(cfg)) {
    const x = t[name];
    if (!x) throw new ModelFolderError('bad_weights', `model.safetensors lacks ${name}`);
    if (x.dtype !== 'F32' || x.shape.join(',') !== shape.join(',')) throw new ModelFolderError('bad_weights', `${name}: expected F32 [${shape}], got ${x.dtype} [${x.shape}]`);
    out[name] = x.data as Float32Array;
  }
  return out;
}

/** All files of a folder as bytes, keyed by relative path. */
export function modelFolderFiles(p: ModelFolderParts): Record<string, Uint8Array> {
  const names = p.specialNames ?? { bos: '<|bos|>', eos: '<|eos|>', pad: '<|pad|>' };
  const ids = specialIds(p.tokenizer, names);
  const vocab = new BPETokenizer(p.tokenizer).vocabSize;
  if (vocab !== p.config.vocab_size) throw new Error(`tokenizer has ${vocab} ids, model ${p.config.vocab_size}`);
  const config = { ...p.config, bos_token_id: ids.bos, eos_token_id: ids.eos, pad_token_id: ids.pad };
  const files: Record<string, Uint8Array> = {
    'config.json': json(toHfConfig(config, ids, p.meta ? { envace: p.meta } : {})),
    'generation_config.json': json({
      bos_token_id: ids.bos, eos_token_id: ids.eos, pad_token_id: ids.pad, ...(p.generation ?? {}),
    }),
    'tokenizer.json': enc.encode(JSON.stringify(p.tokenizer)),
    'tokenizer_config.json': json(tokenizerConfig({
      addedTokens: p.tokenizer.added_tokens, bos: names.bos, eos: names.eos, pad: names.pad,
      chatTemplate: p.chatTemplate, maxLength: p.config.max_position_embeddings,
    })),
    'special_tokens_map.json': json({ bos_token: names.bos, eos_token: names.eos, pad_token: names.pad }),
    'model.safetensors': writeSafetensors(paramsToSafetensors(config, p.params), { format: 'pt' }),
  };
  if (p.withOnnx !== false) files[ONNX_PATH] = p.onnx ?? exportInference(config, p.params).bytes;
  return files;
}

/** Writes a folder to disk (Node). Files are written to a temp name first so readers never see halves. */
export async function writeModelFolder(dir: string, p: ModelFolderParts): Promise<void> {
  const fs = await import('node:fs/promises');
  const path = await import('node:path');
  const files = modelFolderFiles(p);
  for (const [rel, bytes] of Object.entries(files)) {
    const full = path.join(dir, rel);
    await fs.mkdir(path.dirname(full), { recursive: true });
    await fs.writeFile(full + '.tmp', bytes);
    await fs.rename(full + '.tmp', full);
  }
}

export interface ModelFolder {
  /** config.json as stored (including provenance). */
  rawConfig: Record<string, unknown>;
  config: LlamaConfig;
  ids: SpecialIds;
  generationConfig: Record<string, unknown>;
  tokenizerJson: TokenizerJSON;
  tokenizerConfig: Record<string, unknown>;
  tokenizer: BPETokenizer;
  params: Params;
  /** The HF-convention ONNX graph, if the folder has one (read lazily: it can be large). */
  readOnnx(): Promise<Uint8Array | null>;
  source: FileSource;
}

const dec = new TextDecoder();

/** Reads a folder from a path (Node), a URL (fetch), or any FileSource. */
export async function loadModelFolder(src: string | FileSource): Promise<ModelFolder> {
  const source = typeof src === 'string'
    ? (/^(https?:|blob:|\/\/)/.test(src) || typeof process === 'undefined' || !process.versions?.node ? fetchFileSource(src) : nodeFileSource(src))
    : src;
  const read = async (p: string): Promise<Uint8Array> => {
    try { return await source.read(p); } catch (e) { throw new ModelFolderError('missing_file', `${p}: ${(e as Error)?.message ?? String(e)}`); }
  };
  const readJson = async (p: string): Promise<Record<string, any>> => {
    const bytes = await read(p);
    let v: unknown;
    try { v = JSON.parse(dec.decode(bytes)); } catch (e) { throw new ModelFolderError('bad_json', `${p}: ${(e as Error).message}`); }
    if (!isObject(v)) throw new ModelFolderError('bad_json', `${p}: not a JSON object`);
    return v;
  };
  // Read in parallel (over fetch these are round trips), then report the first failure in file order;
  // allSettled so the other reads' rejections are never left unhandled.
  const settled = await Promise.allSettled([readJson('config.json'), readJson('tokenizer.json'), readJson('tokenizer_config.json'), read('model.safetensors')]);
  for (const r of settled) if (r.status === 'rejected') throw r.reason;
  const [rawConfig, tokenizerRaw, tokCfg] = settled.slice(0, 3).map((r) => (r as PromiseFulfilledResult<Record<string, any>>).value);
  const weightsBytes = (settled[3] as PromiseFulfilledResult<Uint8Array>).value;
  const config = fromHfConfig(rawConfig);
  const tokenizerJson = checkTokenizer(tokenizerRaw, config.vocab_size);
  const generationConfig = (await source.has('generation_config.json')) ? await readJson('generation_config.json') : {};
  const ids = { bos: rawConfig.bos_token_id, eos: rawConfig.eos_token_id, pad: rawConfig.pad_token_id ?? rawConfig.eos_token_id };
  let tensors: SafeTensors;
  try { tensors = readSafetensors(weightsBytes, { widen: true }).tensors; } catch (e) { throw new ModelFolderError('bad_weights', `model.safetensors: ${(e as Error).message}`); }
  // The shapes were checked above; what the constructor still refuses is inconsistency (a merge of tokens
  // the vocabulary lacks, a missing byte symbol).
  let tokenizer: BPETokenizer;
  try { tokenizer = new BPETokenizer(tokenizerJson); } catch (e) { throw new ModelFolderError('bad_tokenizer', `tokenizer.json: ${(e as Error).message}`); }
  return {
    rawConfig, config, ids, generationConfig, tokenizerJson, tokenizerConfig: tokCfg,
    tokenizer,
    params: paramsFromSafetensors(config, tensors),
    readOnnx: async () => ((await source.has(ONNX_PATH)) ? source.read(ONNX_PATH) : null),
    source,
  };
}
