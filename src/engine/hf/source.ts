// Where a Hugging Face model comes from (a hub id, a URL, or a local folder), which ONNX file a dtype means in
// the onnx-community layout, and the checks that turn a wrong folder into a message naming the file or feature.
// Browser-safe: file access is injected (Node: ./node.ts; the browser: a folder picker or fetch).

export type HfSource =
  | { kind: 'local'; path: string }
  | { kind: 'hub'; id: string; revision: string }
  | { kind: 'url'; url: string }
  /** A folder the user picked or dropped in the browser: relative path (e.g. 'onnx/model.onnx') → contents. */
  | { kind: 'files'; name: string; files: ReadonlyMap<string, Uint8Array | Blob> };

/** The dtypes transformers.js maps to onnx-community file names (onnx/model{suffix}.onnx). */
export const HF_DTYPES = ['fp32', 'fp16', 'q8', 'q4', 'q4f16'] as const;
export type HfDtype = typeof HF_DTYPES[number];
const SUFFIX: Record<HfDtype, string> = { fp32: '', fp16: '_fp16', q8: '_quantized', q4: '_q4', q4f16: '_q4f16' };

export type HfErrorCode = 'MISSING_FILE' | 'BAD_LAYOUT' | 'UNSUPPORTED_DTYPE' | 'UNSUPPORTED_FEATURE' | 'OFFLINE' | 'NOT_A_DECODER' | 'OUT_OF_MEMORY' | 'BAD_SOURCE' | 'BAD_ONNX' | 'BAD_TOKENIZER';

export class HfModelError extends Error {
  constructor(readonly code: HfErrorCode, message: string, readonly file?: string) {
    super(message);
    this.name = 'HfModelError';
  }
}

export const onnxFileFor = (dtype: HfDtype) => `onnx/model${SUFFIX[dtype]}.onnx`;

export function parseDtype(s: string): HfDtype {
  if ((HF_DTYPES as readonly string[]).includes(s)) return s as HfDtype;
  throw new HfModelError('UNSUPPORTED_DTYPE', `dtype '${s}' is not supported (supported: ${HF_DTYPES.join(', ')})`);
}

const HUB_ID = /^[A-Za-z0-9][\w.-]*\/[\w.-]+$/;
/** A branch, tag or commit: git-ref characters only, '/'-separated, no '.'/'..' segment (it goes into a URL path). */
const REVISION = /^[\w][\w.-]*(\/[\w][\w.-]*)*$/;

/** Why a hub id or revision cannot be used, or null: a '.' or '..' part would walk out of the repository's URL. */
function hubProblem(id: string, revision: string): string | null {
  if (!HUB_ID.test(id) || id.split('/').some((p) => p === '.' || p.includes('..'))) return `'${id}' is not a hub id (owner/name)`;
  if (revision.length > 256 || !REVISION.test(revision) || revision.includes('..') || revision.endsWith('.lock')) {
    return `revision '${revision}' is not a branch, tag or commit name`;
  }
  return null;
}

/**
 * A model reference as the user typed it. `isLocal` says whether a path exists here (Node: fs; browser: never),
 * so that `owner/name` is a local folder when one exists and a hub id otherwise. `hf:owner/name@rev` forces the hub.
 */
export function parseHfSource(ref: string, isLocal: (p: string) => boolean): HfSource {
  const s = ref.trim();
  if (!s) throw new HfModelError('BAD_SOURCE', 'empty model reference');
  if (/^https?:\/\//i.test(s)) {
    const url = s.replace(/\/+$/, '');
    let host = '';
    try { host = new URL(url).host; } catch { /* reported below */ }
    if (!host || !/^https?:\/\//i.test(url)) throw new HfModelError('BAD_SOURCE', `'${ref}' is not a usable URL (it names no host)`);
    return { kind: 'url', url };
  }
  const forced = s.startsWith('hf:') ? s.slice(3) : null;
  if (forced === null && isLocal(s)) return { kind: 'local', path: s };
  const rest = forced ?? s;
  const at = rest.indexOf('@');
  const id = at < 0 ? rest : rest.slice(0, at);
  const revision = at < 0 ? 'main' : rest.slice(at + 1);
  if (HUB_ID.test(id)) {
    const problem = hubProblem(id, revision);
    if (problem) throw new HfModelError('BAD_SOURCE', `'${ref}': ${problem}`);
    return { kind: 'hub', id, revision };
  }
  throw new HfModelError('BAD_SOURCE', `'${ref}' is neither an existing folder, a URL, nor a hub id (owner/name)`);
}

export const sourceLabel = (s: HfSource) =>
  (s.kind === 'local' ? s.path : s.kind === 'url' ? s.url : s.kind === 'files' ? `picked folder ${s.name}` : `${s.id}@${s.revision}`);

/**
 * The onnx-community layout for one dtype: the files a folder must have, each checked by name, so a wrong
 * folder is reported as "missing onnx/model_q4.onnx" rather than as a loader stack trace.
 */
export function checkLayout(has: (rel: string) => boolean, dtype: HfDtype, where: string): void {
  const need = ['config.json', 'tokenizer.json', 'tokenizer_config.json'];
  for (const f of need) if (!has(f)) throw new HfModelError('MISSING_FILE', `${where}: missing ${f} (an onnx-community model folder has config.json, tokenizer.json, tokenizer_config.json and onnx/model*.onnx)`, f);
  const onnx = onnxFileFor(dtype);
  if (!has(onnx)) {
    const present = HF_DTYPES.filter((d) => has(onnxFileFor(d)));
    const hint = present.length ? ` (this folder has ${present.map((d) => `${onnxFileFor(d)} = --dtype ${d}`).join(', ')})`
      : has('model.onnx') ? ' (model.onnx is at the top level; the onnx-community layout keeps it under onnx/)' : '';
    throw new HfModelError('MISSING_FILE', `${where}: missing ${onnx} for dtype ${dtype}${hint}`, onnx);
  }
}

/** config.json as an object, or an error naming it. */
export function parseConfigJson(text: string, where: string): Record<string, unknown> {
  let c: unknown;
  try { c = JSON.parse(text); } catch (e) {
    throw new HfModelError('BAD_LAYOUT', `${where}: config.json is not valid JSON (${(e as Error).message})`, 'config.json');
  }
  if (!c || typeof c !== 'object' || Array.isArray(c)) throw new HfModelError('BAD_LAYOUT', `${where}: config.json must hold an object`, 'config.json');
  const cfg = c as Record<string, unknown>;
  if (typeof cfg.model_type !== 'string') throw new HfModelError('BAD_LAYOUT', `${where}: config.json has no model_type`, 'config.json');
  return cfg;
}

/**
 * Whether a device can run a dtype: fp16 weights or activations on WebGPU need the adapter feature
 * 'shader-f16'. `features` is the adapter's feature list (GPUAdapter.features), ignored off WebGPU.
 */
export function checkDtypeSupport(dtype: HfDtype, device: 'cpu' | 'wasm' | 'webgpu', features: readonly string[] = []): void {
  if (device === 'webgpu' && (dtype === 'fp16' || dtype === 'q4f16') && !features.includes('shader-f16')) {
    throw new HfModelError('UNSUPPORTED_FEATURE', `dtype ${dtype} needs the WebGPU feature 'shader-f16', which this adapter lacks: use --dtype q4 or fp32, or the WASM backend`);
  }
}

/** The decoder I/O the rollout needs; a model exported without a KV cache is refused by name. */
export function checkDecoderIo(inputNames: readonly string[], outputNames: readonly string[], file: string): void {
  const missing = [
    ...['input_ids', 'attention_mask', 'past_key_values.0.key', 'past_key_values.0.value'].filter((n) => !inputNames.includes(n)),
    ...['logits', 'present.0.key', 'present.0.value'].filter((n) => !outputNames.includes(n)),
  ];
  if (missing.length) {
    throw new HfModelError('NOT_A_DECODER', `${file} is not a causal LM with a KV cache in the onnx-community convention: missing ${missing.join(', ')} (inputs: ${inputNames.join(', ')}; outputs: ${outputNames.slice(0, 6).join(', ')}${outputNames.length > 6 ? ', …' : ''})`, file);
  }
}

/** Cache geometry from config.json (HF names; head_dim may be explicit, as in Qwen3). */
export function kvGeometry(c: Record<string, unknown>): { layers: number; kvHeads: number; headDim: number; vocab: number; maxContext: number } {
  const n = (k: string) => (typeof c[k] === 'number' ? c[k] as number : undefined);
  const layers = n('num_hidden_layers'), heads = n('num_attention_heads'), hidden = n('hidden_size'), vocab = n('vocab_size');
  if (!layers || !heads || !hidden || !vocab) throw new HfModelError('BAD_LAYOUT', 'config.json lacks num_hidden_layers, num_attention_heads, hidden_size or vocab_size', 'config.json');
  return {
    layers, vocab, kvHeads: n('num_key_value_heads') ?? heads, headDim: n('head_dim') ?? hidden / heads,
    maxContext: n('max_position_embeddings') ?? 2048,
  };
}
