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

/** The LlamaConfig inside a config.json (unknown keys such as our provenance block are dropped). */
export function fromHfConfig(c: Record<string, any>): LlamaConfig {
  if (c.model_type !== 'llama') throw new Error(`unsupported model_type ${c.model_type}`);
  return {
    model_type: 'llama',
    architectures: c.architectures ?? ['LlamaForCausalLM'],
    hidden_size: c.hidden_size,
    intermediate_size: c.intermediate_size,
    num_hidden_layers: c.num_hidden_layers,
    num_attention_heads: c.num_attention_heads,
    num_key_value_heads: c.num_key_value_heads ?? c.num_attention_heads,
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
    if (!x) throw new Error(`model.safetensors lacks ${name}`);
    if (x.dtype !== 'F32' || x.shape.join(',') !== shape.join(',')) throw new Error(`${name}: expected F32 [${shape}], got ${x.dtype} [${x.shape}]`);
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
  const readJson = async (p: string) => JSON.parse(dec.decode(await source.read(p)));
  const [rawConfig, tokenizerJson, tokCfg, weightsBytes] = await Promise.all([
    readJson('config.json') as Promise<Record<string, any>>,
    readJson('tokenizer.json') as Promise<TokenizerJSON>,
    readJson('tokenizer_config.json') as Promise<Record<string, unknown>>,
    source.read('model.safetensors'),
  ]);
  const generationConfig = (await source.has('generation_config.json')) ? await readJson('generation_config.json') : {};
  const config = fromHfConfig(rawConfig);
  const ids = { bos: rawConfig.bos_token_id, eos: rawConfig.eos_token_id, pad: rawConfig.pad_token_id ?? rawConfig.eos_token_id };
  return {
    rawConfig, config, ids, generationConfig, tokenizerJson, tokenizerConfig: tokCfg,
    tokenizer: new BPETokenizer(tokenizerJson),
    params: paramsFromSafetensors(config, readSafetensors(weightsBytes).tensors),
    readOnnx: async () => ((await source.has(ONNX_PATH)) ? source.read(ONNX_PATH) : null),
    source,
  };
}
