// Any Hugging Face ONNX causal LM (onnx-community layout) as a TextGenerator for Act and/or Rehearse.
// One path for every source: the reference is parsed (local folder / hub id / URL), a local folder's layout is
// checked file by file, then transformers.js loads tokenizer and model (architectures and quantised formats our
// runtime does not build) and the engine's Sampler generates on top (batching, per-request seeds, stop strings,
// log-probs), so a hub model and the offline fixture are prompted and sampled by the same code.
// The chat template stays with the caller (agent layer): `tokenizerConfig` is the folder's tokenizer_config.json.

import { AutoModelForCausalLM, AutoTokenizer, env, ModelFileNotFoundError } from '@huggingface/transformers';
import { Sampler } from '../sampler';
import type { TextGenerator } from '../generator';
import type { Runtime } from '../runtime';
import type { BPETokenizer } from '../tokenizer';
import { ortHfKVModel, transformersKVModel, type TransformersCausalLM } from './kv';
import {
  checkDtypeSupport, checkLayout, HfModelError, kvGeometry, onnxFileFor, parseConfigJson, parseHfSource, sourceLabel,
  type HfDtype, type HfSource,
} from './source';

export type HfDevice = 'cpu' | 'wasm' | 'webgpu';

/** File access for local folders (Node: ./node.ts; absent in the browser, where sources are hub ids or URLs). */
export interface LocalFiles {
  exists(path: string): boolean;
  read(path: string): Uint8Array;
}

export interface HfProgress { file: string; status: string; loaded?: number; total?: number }

export interface HfLoadOptions {
  dtype?: HfDtype;
  device?: HfDevice;
  /** WebGPU adapter features (for the shader-f16 check). */
  features?: readonly string[];
  name?: string;
  local?: LocalFiles;
  progress?: (p: HfProgress) => void;
  /**
   * 'transformers' (default): transformers.js runs the ONNX file. 'engine': our Runtime runs it (local folders;
   * graphs whose inputs are the standard decoder ones), e.g. to cross-check the two.
   */
  backend?: 'transformers' | 'engine';
  runtime?: Runtime;
  /** Hub host for `owner/name` ids (default https://huggingface.co/; e.g. a mirror, or a local server in tests). */
  hubHost?: string;
  /**
   * Where downloads are cached (Node: a folder; transformers.js's default is inside its package). null: no
   * file cache. In the browser transformers.js caches in the Cache API (env.useBrowserCache).
   */
  cacheDir?: string | null;
  /** ORT session options for transformers.js's sessions (Node: ./node.ts turns thread spinning off). */
  sessionOptions?: Record<string, unknown>;
}

export interface HfTokenizer {
  encode(text: string): number[];
  decode(ids: number[]): string;
}

export interface HfModel {
  generator: TextGenerator & { release(): Promise<void> };
  tokenizer: HfTokenizer;
  source: HfSource;
  dtype: HfDtype;
  config: Record<string, unknown>;
  tokenizerConfig: Record<string, unknown>;
}

const joinPath = (a: string, b: string) => `${a.replace(/\/+$/, '')}/${b}`;
function splitPath(p: string): { dir: string; base: string } {
  const s = p.replace(/\/+$/, '');
  const i = s.lastIndexOf('/');
  return i < 0 ? { dir: '.', base: s } : { dir: s.slice(0, i) || '/', base: s.slice(i + 1) };
}

/** The host name picked folders are served under (through the cache below; nothing is fetched from it). */
const PICKED_HOST = 'https://picked-folder.invalid/';

/**
 * A picked or dropped folder as a Web-Cache-shaped object: transformers.js looks every file up in its cache
 * before fetching, so serving the folder from here loads it through the same path as a download.
 */
function pickedFolderCache(name: string, files: ReadonlyMap<string, Uint8Array | Blob>) {
  const prefix = `${PICKED_HOST}${name}/`;
  return {
    async match(key: string | { url: string }) {
      const url = typeof key === 'string' ? key : key.url;
      const f = url.startsWith(prefix) ? files.get(url.slice(prefix.length)) : undefined;
      if (f === undefined) return undefined;
      const size = f instanceof Uint8Array ? f.byteLength : f.size;
      return new Response(f as BodyInit, { status: 200, headers: { 'content-length': String(size) } });
    },
    async put() { /* the files are already here */ },
  };
}

/** transformers.js resolves `id` against its env; point it at exactly this source (and nowhere else). */
function configureEnv(source: HfSource, opts: HfLoadOptions): string {
  if (opts.cacheDir === null) env.useFSCache = false;
  else if (opts.cacheDir !== undefined) { env.useFSCache = true; env.cacheDir = opts.cacheDir; }
  const picked = source.kind === 'files';
  env.useCustomCache = picked;
  env.customCache = picked ? pickedFolderCache(source.name, source.files) as unknown as typeof env.customCache : null;
  if (picked) {
    env.allowLocalModels = false;
    env.allowRemoteModels = true;
    env.remoteHost = PICKED_HOST;
    env.remotePathTemplate = '{model}/';
    return source.name;
  }
  if (source.kind === 'local') {
    const { dir, base } = splitPath(source.path);
    env.allowLocalModels = true;
    env.allowRemoteModels = false;
    env.localModelPath = `${dir}/`;
    return base;
  }
  env.allowLocalModels = false;
  env.allowRemoteModels = true;
  if (source.kind === 'url') {
    const { dir, base } = splitPath(source.url);
    env.remoteHost = `${dir}/`;
    env.remotePathTemplate = '{model}/';
    return base;
  }
  env.remoteHost = opts.hubHost ?? 'https://huggingface.co/';
  env.remotePathTemplate = '{model}/resolve/{revision}/';
  return source.id;
}

/** transformers.js / fetch failures → a message naming the source and the file or the reason. */
function explainLoadError(e: unknown, where: string, dtype: HfDtype): HfModelError {
  if (e instanceof HfModelError) return e;
  const err = e as Error & { cause?: { code?: string } };
  const msg = err?.message ?? String(e);
  const file = /(onnx\/[\w.-]+\.onnx|[\w.-]+\.json)/.exec(msg)?.[1];
  if (e instanceof ModelFileNotFoundError || /could not locate file|file was not found|404/i.test(msg)) {
    return new HfModelError('MISSING_FILE', `${where}: missing ${file ?? `a model file (${onnxFileFor(dtype)}?)`} (${msg})`, file);
  }
  if (/fetch failed|ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ENETUNREACH|network|Failed to fetch/i.test(`${msg} ${err?.cause?.code ?? ''}`)) {
    return new HfModelError('OFFLINE', `cannot download ${where}${file ? ` (${file})` : ''}: ${msg}${err?.cause?.code ? ` [${err.cause.code}]` : ''}. The host could not be reached (offline?) or dropped the connection: download the folder where you can and pass its path`, file);
  }
  if (/out of memory|bad_alloc|allocation failed|RangeError: Array buffer allocation/i.test(msg)) {
    return new HfModelError('OUT_OF_MEMORY', `${where}: not enough memory to load ${onnxFileFor(dtype)} (${msg}); try a smaller dtype (q4) or model`, onnxFileFor(dtype));
  }
  // A URL or hub id with no model behind it: transformers.js reads the missing (or HTML) tokenizer_config.json as
  // undefined and fails on a property of it. Said in the page's words, not as the raw TypeError.
  if (e instanceof TypeError || /Cannot read propert(y|ies) of (undefined|null)|Unexpected token '?<|is not valid JSON/i.test(msg)) {
    return new HfModelError('MISSING_FILE', `${where}: no model was found there (its tokenizer_config.json, tokenizer.json or config.json could not be read). Check that the URL or hub id names a model folder that holds config.json, tokenizer.json, tokenizer_config.json and ${onnxFileFor(dtype)}`, file ?? 'tokenizer_config.json');
  }
  if (/Unsupported model type|Unknown model class|not supported/i.test(msg)) {
    return new HfModelError('BAD_LAYOUT', `${where}: transformers.js cannot load this architecture (${msg})`, 'config.json');
  }
  return new HfModelError('BAD_LAYOUT', `${where}: ${msg}`, file);
}

/**
 * The tokenizer of a picked folder, read as loadHfModel reads it (transformers.js through the picked-folder cache),
 * without its graph: config.json checked, tokenizer.json and tokenizer_config.json parsed, encode/decode guarded.
 * Every failure is an HfModelError (issue 21: fuzzed as hf-folder).
 */
export async function loadHfTokenizer(source: Extract<HfSource, { kind: 'files' }>): Promise<{ tokenizer: HfTokenizer; config: Record<string, unknown>; tokenizerConfig: Record<string, unknown> }> {
  const where = sourceLabel(source);
  checkLayout((rel) => source.files.has(rel), 'fp32', where);
  const text = async (rel: string) => { const f = source.files.get(rel)!; return f instanceof Uint8Array ? new TextDecoder().decode(f) : f.text(); };
  const config = parseConfigJson(await text('config.json'), where);
  kvGeometry(config);
  const id = configureEnv(source, { cacheDir: null });
  let tok: Awaited<ReturnType<typeof AutoTokenizer.from_pretrained>>;
  try { tok = await AutoTokenizer.from_pretrained(id); } catch (e) { throw explainLoadError(e, where, 'fp32'); }
  return { tokenizer: guardedTokenizer(tok, where), config, tokenizerConfig: ((tok as unknown as { config?: Record<string, unknown> }).config ?? {}) };
}

/** encode/decode of a folder's tokenizer: a tokenizer.json that breaks them is the folder's fault (BAD_TOKENIZER). */
function guardedTokenizer(tok: Awaited<ReturnType<typeof AutoTokenizer.from_pretrained>>, where: string): HfTokenizer {
  const fail = (what: string, e: unknown) => new HfModelError('BAD_TOKENIZER', `${where}: tokenizer.json failed to ${what} (${e instanceof Error ? e.message : String(e)})`, 'tokenizer.json');
  return {
    encode(text) {
      let ids: number[];
      try { ids = Array.from(tok.encode(text, { add_special_tokens: false }) as ArrayLike<number>, Number); } catch (e) { throw fail('encode', e); }
      if (!ids.every((i) => Number.isSafeInteger(i) && i >= 0)) throw fail('encode', new Error('it produced ids that are not non-negative integers'));
      return ids;
    },
    decode(ids) {
      try { return tok.decode(ids, { skip_special_tokens: false }); } catch (e) { throw fail('decode', e); }
    },
  };
}

const idList = (x: unknown): number[] => (Array.isArray(x) ? x.filter((v): v is number => typeof v === 'number') : typeof x === 'number' ? [x] : []);

export async function loadHfModel(ref: string | HfSource, opts: HfLoadOptions = {}): Promise<HfModel> {
  const dtype = opts.dtype ?? 'fp32';
  const device = opts.device ?? 'cpu';
  const local = opts.local;
  const source = typeof ref === 'string' ? parseHfSource(ref, (p) => !!local?.exists(p)) : ref;
  const where = source.kind === 'hub' && opts.hubHost ? `${sourceLabel(source)} (from ${opts.hubHost})` : sourceLabel(source);
  checkDtypeSupport(dtype, device, opts.features);

  let config: Record<string, unknown> | undefined;
  let generationConfig: Record<string, unknown> = Object.create(null);
  if (source.kind === 'local') {
    if (!local) throw new HfModelError('BAD_SOURCE', `${where}: local folders need file access (Node), not available here`);
    checkLayout((rel) => local.exists(joinPath(source.path, rel)), dtype, where);
    config = parseConfigJson(new TextDecoder().decode(local.read(joinPath(source.path, 'config.json'))), where);
    if (local.exists(joinPath(source.path, 'generation_config.json'))) {
      try { generationConfig = JSON.parse(new TextDecoder().decode(local.read(joinPath(source.path, 'generation_config.json')))) as Record<string, unknown>; } catch { /* optional file */ }
    }
  }
  if (source.kind === 'files') {
    checkLayout((rel) => source.files.has(rel), dtype, where);
    const text = async (rel: string) => { const f = source.files.get(rel)!; return f instanceof Uint8Array ? new TextDecoder().decode(f) : f.text(); };
    config = parseConfigJson(await text('config.json'), where);
    if (source.files.has('generation_config.json')) {
      try { generationConfig = JSON.parse(await text('generation_config.json')) as Record<string, unknown>; } catch { /* optional file */ }
    }
  }
  if (opts.backend === 'engine' && (source.kind !== 'local' || !opts.runtime)) {
    throw new HfModelError('BAD_SOURCE', `${where}: the engine backend runs local folders on a given Runtime`);
  }

  const id = configureEnv(source, opts);
  const progress = opts.progress
    ? (p: Record<string, unknown>) => opts.progress!({ file: String(p.file ?? p.name ?? ''), status: String(p.status), loaded: p.loaded as number | undefined, total: p.total as number | undefined })
    : undefined;
  const revision = source.kind === 'hub' ? source.revision : undefined;
  let tok: Awaited<ReturnType<typeof AutoTokenizer.from_pretrained>>;
  let lm: TransformersCausalLM | null = null;
  try {
    tok = await AutoTokenizer.from_pretrained(id, { revision, progress_callback: progress });
    if (opts.backend !== 'engine') {
      lm = await AutoModelForCausalLM.from_pretrained(id, { revision, dtype, device, progress_callback: progress, ...(opts.sessionOptions ? { session_options: opts.sessionOptions } : {}) }) as unknown as TransformersCausalLM;
      config ??= (lm as unknown as { config: Record<string, unknown> }).config;
      const gc = (lm as unknown as { generation_config?: Record<string, unknown> | null }).generation_config;
      if (gc) generationConfig = { ...generationConfig, ...gc };
    }
  } catch (e) {
    throw explainLoadError(e, where, dtype);
  }
  if (!config) throw new HfModelError('BAD_LAYOUT', `${where}: no config.json`, 'config.json');
  const tokenizerConfig = ((tok as unknown as { config?: Record<string, unknown> }).config ?? {});
  const geo = kvGeometry(config);
  const file = onnxFileFor(dtype);

  const kv = opts.backend === 'engine'
    ? await ortHfKVModel(opts.runtime!, local!.read(joinPath((source as { path: string }).path, file)), geo, `${where}/${file}`)
    : transformersKVModel(lm!, geo, `${where}/${file}`);

  const tokenizer: HfTokenizer = guardedTokenizer(tok, where);
  const eos = [...new Set([...idList(generationConfig.eos_token_id), ...idList(config.eos_token_id)])];
  if (eos.length === 0) throw new HfModelError('BAD_LAYOUT', `${where}: config.json names no eos_token_id`, 'config.json');
  const pad = idList(generationConfig.pad_token_id)[0] ?? idList(config.pad_token_id)[0] ?? eos[0];
  // The sampler only calls encode/decode on its tokenizer.
  const sampler = new Sampler(kv, tokenizer as unknown as BPETokenizer, {
    name: opts.name ?? `hf:${where}${dtype === 'fp32' ? '' : `:${dtype}`}${opts.backend === 'engine' ? ':engine' : ''}`,
    maxContext: geo.maxContext,
    eosTokenIds: eos,
    padTokenId: pad,
  });
  const generator = Object.assign(sampler, {
    async release() {
      if ('release' in kv) await (kv as { release(): Promise<void> }).release();
      if (lm) await lm.dispose();
    },
  });
  return { generator, tokenizer, source, dtype, config, tokenizerConfig };
}
