// Hugging Face models in the compute worker: the same loader as Node (src/engine/hf: transformers.js loads the
// tokenizer and the ONNX file, the engine's Sampler generates), for a hub id, a URL or a picked folder, with
// download progress, the Cache API as the download cache (hf-cache.ts), and Act / Rehearse rollouts with the model's own chat
// template. Imported on demand by compute.worker.ts: transformers.js is a large module the shipped models never need.
//
// transformers.js runs on the worker's own ORT (runtime-web.ts registers it; package.json's override gives both the same
// onnxruntime-web version): one wasm binary, one heap, and its session runs queue with ours.

import { env } from '@huggingface/transformers';
import { formatForTokenizerConfig, type ChatFormat } from '../agent/chatTemplate';
import { rolloutGroups } from '../agent/rollout';
import { getWorld, taskById } from '../envs/worlds';
import type { TextGenerator } from '../engine/generator';
import { HfModelError } from '../engine/hf/source';
import { loadHfModel, type HfModel } from '../engine/hf/loader';
import { parseHfSource, sourceLabel, type HfSource } from '../engine/hf/source';
import { CancelledError, tokenStrings } from './engine-bridge';
import { HF_CACHE_KEY } from './hf-cache';
import { actAndRehearse, buildHfRolloutConfig, referenceAct } from './hf-rollout-config';
import { realVerdictOf } from './rollout-config';
import { roundProgress, type RoundProgress } from './round-progress';
import type { Task } from '../envs/types';
import {
  HF_REHEARSE_ONLY, HF_URL_PREFIX, type HfLoadProgress, type HfLoadRequest, type HfModelInfo, type HfProgressListener,
  type ProgressListener, type RolloutRequest, type RolloutStepRequest, type RolloutStepResult, type ShownTrajectory,
} from './protocol';
import { ort, type WebRuntime } from './runtime-web';

const DEFAULT_HUB = 'https://huggingface.co/';

interface Loaded { model: HfModel; format: ChatFormat; info: HfModelInfo }
let loaded: Loaded | null = null;
/** Loads configure transformers.js's global env: one at a time. */
let chain: Promise<unknown> = Promise.resolve();

let ortConfigured = false;
function configureOrt(): void {
  if (ortConfigured) return;
  // ORT's files, threads and adapter are the runtime's (runtime-web.ts); transformers.js set the shared env's log
  // level to 'warning' when it loaded, which reports every shape op ORT pins to the CPU.
  ort.env.logLevel = 'error';
  // The wasm binary is ours (served with the app): only model files go into the download cache.
  env.useWasmCache = false;
  env.useBrowserCache = typeof caches !== 'undefined';
  env.cacheKey = HF_CACHE_KEY;
  ortConfigured = true;
}

/** What rollouts name the model by: source and dtype (a picked folder by its name). */
export function hfModelUrl(source: HfSource, dtype: string, hubHost?: string): string {
  const where = source.kind === 'hub' && hubHost && hubHost !== DEFAULT_HUB ? `${sourceLabel(source)} from ${hubHost}` : sourceLabel(source);
  return `${HF_URL_PREFIX}${where}:${dtype}`;
}

const asError = (e: unknown): Error => (e instanceof HfModelError ? new Error(`${e.code}: ${e.message}`) : e instanceof Error ? e : new Error(String(e)));

async function adapterFeatures(): Promise<string[]> {
  const gpu = (navigator as { gpu?: { requestAdapter(): Promise<{ features: Iterable<string> } | null> } }).gpu;
  const a = await gpu?.requestAdapter();
  return a ? [...a.features] : [];
}

export function load(rt: WebRuntime, req: HfLoadRequest, onProgress?: HfProgressListener): Promise<HfModelInfo> {
  const run = chain.then(() => loadNow(rt, req, onProgress));
  chain = run.catch(() => undefined);
  return run;
}

async function loadNow(rt: WebRuntime, req: HfLoadRequest, onProgress?: HfProgressListener): Promise<HfModelInfo> {
  configureOrt();
  const t0 = performance.now();
  let source: HfSource;
  let hubHost: string | undefined;
  try {
    if (req.kind === 'files') source = { kind: 'files', name: req.name, files: req.files };
    else {
      // Nothing in the browser is a local path: a typed reference is a URL or a hub id.
      source = parseHfSource(req.ref, () => false);
      hubHost = req.hubHost?.trim() ? `${req.hubHost.trim().replace(/\/+$/, '')}/` : undefined;
    }
  } catch (e) { throw asError(e); }
  const url = hfModelUrl(source, req.dtype, hubHost);
  if (loaded?.info.url === url) return loaded.info;
  await unload();
  const device = rt.info.kind === 'webgpu' ? 'webgpu' : 'wasm';
  const sizes = new Map<string, number>();
  if (req.kind === 'files') for (const [p, b] of req.files) sizes.set(p, b.size);
  // Download events arrive per network chunk: forward at most one per file every 100 ms, and every state change.
  const last = new Map<string, number>();
  const progress = (p: HfLoadProgress) => {
    if (p.total) sizes.set(p.file, p.total);
    if (!onProgress) return;
    const now = performance.now();
    if (p.status === 'progress' && (p.loaded ?? 0) < (p.total ?? 0) && now - (last.get(p.file) ?? -1e9) < 100) return;
    last.set(p.file, now);
    void Promise.resolve(onProgress(p)).catch(() => undefined);
  };
  let model: HfModel;
  try {
    model = await loadHfModel(source, {
      dtype: req.dtype, device, features: device === 'webgpu' ? await adapterFeatures() : [],
      hubHost: hubHost ?? DEFAULT_HUB, progress, name: url,
    });
  } catch (e) { throw asError(e); }
  const format = formatForTokenizerConfig(model.tokenizerConfig as { chat_template?: string; eos_token?: string });
  const info: HfModelInfo = {
    url,
    name: source.kind === 'files' ? source.name : source.kind === 'hub' ? source.id : source.kind === 'url' ? source.url.split('/').pop() ?? source.url : source.path,
    source: sourceLabel(source) + (hubHost && source.kind === 'hub' ? ` (from ${hubHost})` : ''),
    dtype: req.dtype,
    device,
    config: model.config,
    files: [...sizes].filter(([p]) => !p.startsWith('http')).map(([path, bytes]) => ({ path, bytes })).sort((a, b) => a.path.localeCompare(b.path)),
    chatTemplate: typeof (model.tokenizerConfig as { chat_template?: unknown }).chat_template === 'string',
    loadMs: performance.now() - t0,
  };
  loaded = { model, format, info };
  return info;
}

export async function unload(): Promise<void> {
  const l = loaded;
  loaded = null;
  await l?.model.generator.release();
}

export function current(): HfModelInfo | null { return loaded?.info ?? null; }

// ---- rollouts -------------------------------------------------------------------------------------

let seq = 0;
let cancelledUpTo = 0;
export function cancelRollouts(): void { cancelledUpTo = seq; }

const macrotask = () => new Promise<void>((r) => setTimeout(r, 0));

function need(modelUrl: string): Loaded {
  if (!loaded || loaded.info.url !== modelUrl) {
    throw new Error(`${modelUrl.slice(HF_URL_PREFIX.length)} is not loaded in the worker (it loads from the Models page: add it there again after a page reload)`);
  }
  return loaded;
}

/** What the Rollout page's "rehearse first" and the Benchmarks page run a Hugging Face model URL with. */
export interface HfRoles {
  /** Act and Rehearse requests (rehearse-only: Act replays each task's reference turns). */
  generator: TextGenerator;
  format: ChatFormat;
  /** The model's config.json (chunk sizing reads its shape). */
  config: Record<string, unknown>;
  tokenizer: { decode(ids: ArrayLike<number>): string };
  rehearseOnly: boolean;
}

/**
 * The loaded model behind `modelUrl` (an `hf:` URL, optionally with HF_REHEARSE_ONLY), for the given tasks: the
 * same generator, chat template and role split the Rollout page's rollouts use.
 */
export function roles(modelUrl: string, tasks: readonly Task[]): HfRoles {
  const rehearseOnly = modelUrl.endsWith(HF_REHEARSE_ONLY);
  const l = need(rehearseOnly ? modelUrl.slice(0, -HF_REHEARSE_ONLY.length) : modelUrl);
  return {
    generator: rehearseOnly ? actAndRehearse(referenceAct(tasks, l.format), l.model.generator) : l.model.generator,
    format: l.format,
    config: l.model.config,
    tokenizer: { decode: (ids) => l.model.tokenizer.decode(Array.from(ids)) },
    rehearseOnly,
  };
}

async function run(req: RolloutRequest, cap: number | null, onProgress?: ProgressListener) {
  const world = getWorld(req.world);
  const task = req.taskId ? taskById(req.taskId) : world.tasks({ split: 'test', count: 1 })[0];
  if (!task) throw new Error(`world ${req.world} has no test task`);
  if (task.world !== world.name) throw new Error(`task ${task.id} is not in world ${world.name}`);
  const r = roles(req.modelUrl, [task]);
  const my = ++seq;
  const t0 = performance.now();
  // Assigned before the rollout asks for its first generation.
  let progress: RoundProgress | null = null;
  const inner = r.generator;
  const policy: TextGenerator = {
    name: inner.name, maxContext: inner.maxContext, countTokens: (t) => inner.countTokens(t),
    async generate(reqs) {
      await macrotask();
      if (cancelledUpTo >= my) throw new CancelledError(progress?.stopped() ?? 'rollout stopped after 0 rounds (0 generations)');
      return inner.generate(reqs);
    },
  };
  const built = buildHfRolloutConfig(r.format, req, policy, cap);
  const rp = roundProgress(req.k, built.maxRounds, onProgress, t0);
  progress = rp;
  const trajectories = await rolloutGroups([task], req.k, { ...built.cfg, onRound: rp.onRound });
  for (const t of trajectories) {
    for (const row of t.rows) row.outputTokens = tokenStrings(r.tokenizer, row.outputIds);
    const rv = realVerdictOf(task, t);
    if (rv) (t as ShownTrajectory).realVerdict = rv;
  }
  return { trajectories: trajectories as ShownTrajectory[], naturalCap: built.naturalCap };
}

export async function rollout(req: RolloutRequest, onProgress?: ProgressListener): Promise<ShownTrajectory[]> {
  return (await run(req, null, onProgress)).trajectories;
}

/** As engine-bridge's rolloutStep, without its memo (each step recomputes the prefix: HF models here are small). */
export async function rolloutStep(req: RolloutStepRequest, onProgress?: ProgressListener): Promise<RolloutStepResult> {
  let k = Math.max(1, Math.floor(req.generations));
  let computed = 0;
  for (;;) {
    const r = await run(req, k, onProgress);
    computed += r.trajectories.reduce((s, t) => s + t.rows.length, 0);
    const cut = r.trajectories.filter((t) => t.terminatedBy === 'generation_cap' && k < r.naturalCap);
    const grew = r.trajectories.some((t) => t.rows.length === k);
    if (!req.advance || grew || cut.length === 0 || k >= r.naturalCap) {
      return { trajectories: r.trajectories, generations: k, done: cut.length === 0, computed };
    }
    k++;
  }
}
