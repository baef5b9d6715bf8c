// The Benchmarks page's evaluation in the worker: the same protocol as `npm run eval` (src/bench), in chunks
// sized to memory, with progress through a Comlink.proxy callback and a cancel that the protocol checks
// before every batch of generations (it yields a macrotask there, so the cancel message is answered
// mid-run). One evaluation at a time per worker; a new one cancels the previous.

import { profileFromConfig, rolloutSettings } from '../agent/profile';
import { DEFAULT_MEMORY_BUDGET, EvalCancelled, metricEstimates, runProtocol, type ModelShape } from '../bench/evaluation';
import type { RolloutConfig } from '../agent/rollout';
import type { TextGenerator } from '../engine/generator';
import type { Task } from '../envs/types';
import { HF_PROFILE } from './hf-rollout-config';
import { hashSeed } from '../agent/rollout';
import { fetchFileSource, loadModelFolder, type ModelFolder } from '../engine/modelFolder';
import { samplerFromFolder, type Sampler } from '../engine/sampler';
import { getWorld } from '../envs/worlds';
import { EVAL_CANCELLED, HF_REHEARSE_ONLY, HF_URL_PREFIX, type BenchEvalRequest, type BenchEvalResult, type BenchListener, type BenchProgress, type BenchStatus } from './protocol';
import type { WebRuntime } from './runtime-web';

interface Model { url: string; folder: ModelFolder; sampler: Sampler & { release(): Promise<void> } }
let model: Model | null = null;
let controller: AbortController | null = null;
let current: BenchStatus = { state: 'idle', progress: null };
let running: Promise<unknown> | null = null;

/** The evaluated model: generator for Act (and Rehearse), its rollout settings, its shape for chunk sizing. */
export interface Policy { sampler: TextGenerator; settings: Omit<RolloutConfig, 'mode' | 'policy'>; shape: ModelShape }

export async function policyFor(rt: WebRuntime, url: string): Promise<Policy> {
  if (model?.url !== url) {
    const old = model;
    model = null;
    await old?.sampler.release();
    const folder = await loadModelFolder(fetchFileSource(new URL(url, self.location.origin).href));
    const sampler = await samplerFromFolder(folder, rt.runtime, { mode: 'fast' });
    model = { url, folder, sampler };
  }
  return { sampler: model.sampler, settings: rolloutSettings(profileFromConfig(model.folder.rawConfig)), shape: model.folder.config };
}

/**
 * A Hugging Face model loaded on the Models page (hf-service.ts holds it): the Rollout page's generator, chat
 * template and prompting; with HF_REHEARSE_ONLY, Act replays each task's reference turns and the model plays
 * Rehearse (modes rehearsal and simulator).
 */
export async function hfPolicy(url: string, tasks: readonly Task[]): Promise<Policy> {
  const hf = (await import('./hf-service')).roles(url, tasks);
  const c = hf.config as Partial<ModelShape>;
  const missing = (['num_hidden_layers', 'num_attention_heads', 'hidden_size', 'vocab_size', 'max_position_embeddings'] as const).filter((k) => typeof c[k] !== 'number');
  if (missing.length) throw new Error(`${url}: config.json lacks ${missing.join(', ')} (needed to size evaluation chunks to memory)`);
  const shape: ModelShape = { ...(c as ModelShape), num_key_value_heads: c.num_key_value_heads ?? c.num_attention_heads! };
  return { sampler: hf.generator, settings: { ...rolloutSettings(HF_PROFILE), format: hf.format, simulatorFormat: hf.format }, shape };
}

/** Mode simulator with another model in the Rehearse role: a Hugging Face model loaded on the Models page. */
async function hfSimulator(url: string, tasks: readonly Task[]) {
  if (!url.startsWith(HF_URL_PREFIX)) throw new Error(`simulator ${url}: the Rehearse role takes the policy's own weights or a Hugging Face model loaded on the Models page`);
  if (url.endsWith(HF_REHEARSE_ONLY)) throw new Error(`simulator ${url}: pick the model itself (it plays Rehearse only already)`);
  const hf = (await import('./hf-service')).roles(url, tasks);
  return { generator: hf.generator, format: hf.format };
}

function check(req: BenchEvalRequest): string[] {
  const p: string[] = [];
  if (!req.modelUrl) p.push('no model chosen');
  const int = (k: keyof BenchEvalRequest, min: number, max: number) => {
    const v = req[k] as number;
    if (!Number.isInteger(v) || v < min || v > max) p.push(`${String(k)} must be a whole number in ${min} … ${max} (got ${v})`);
  };
  int('tasks', 1, 100_000); int('k', 1, 64); int('maxTurns', 1, 64); int('maxNewTokens', 1, 4096); int('seed', 0, 2 ** 31 - 1);
  if (req.chunkTasks !== undefined) int('chunkTasks', 1, 100_000);
  if (!(req.temperature >= 0 && req.temperature <= 2)) p.push(`temperature must be in 0 … 2 (got ${req.temperature})`);
  if (!(req.topP > 0 && req.topP <= 1)) p.push(`topP must be in (0, 1] (got ${req.topP})`);
  return p;
}

/** Runs one evaluation. Rejects with "evaluation cancelled" after cancel(), or with a clear error. */
export async function run(rt: WebRuntime, req: BenchEvalRequest, onProgress?: BenchListener): Promise<BenchEvalResult> {
  if (controller) { controller.abort(); await running?.catch(() => {}); }
  const problems = check(req);
  if (problems.length) throw new Error(`bad evaluation request: ${problems.join('; ')}`);
  const ac = new AbortController();
  controller = ac;
  current = { state: 'running', progress: null };
  const t0 = performance.now();
  const emit = (p: BenchProgress) => {
    current = { state: 'running', progress: p };
    try { Promise.resolve(onProgress?.(p)).catch(() => {}); } catch { /* the page went away */ }
  };
  const work = (async () => {
    const tasks = getWorld(req.world).tasks({ split: 'test', count: req.tasks });
    const m = req.modelUrl.startsWith(HF_URL_PREFIX) ? await hfPolicy(req.modelUrl, tasks) : await policyFor(rt, req.modelUrl);
    const sim = req.mode === 'simulator' && req.simulatorUrl && req.simulatorUrl !== req.modelUrl ? await hfSimulator(req.simulatorUrl, tasks) : null;
    if (ac.signal.aborted) throw new EvalCancelled();
    const settings = m.settings;
    const r = await runProtocol(tasks, m.sampler, {
      mode: req.mode, k: req.k, temperature: req.temperature, topP: req.topP, seed: req.seed,
      simulator: req.mode === 'simulator' ? sim?.generator ?? m.sampler : undefined,
      rollout: {
        ...settings,
        // A Hugging Face simulator is prompted as on the Rollout page: its chat template, the reference's simulator prompt.
        ...(sim ? { simulatorFormat: sim.format, rehearsePrompt: HF_PROFILE.rehearsePrompt } : {}),
        act: { ...settings.act, maxNewTokens: req.maxNewTokens },
        rehearse: { ...settings.rehearse, maxNewTokens: req.maxNewTokens },
        limits: { ...settings.limits, maxAssistantTurns: req.maxTurns },
      },
      model: m.shape,
      // wasm32 heaps stop at 4 GiB and ORT keeps its arenas: half a gigabyte of worst-case activations.
      memoryBudgetBytes: DEFAULT_MEMORY_BUDGET,
      chunkTasks: req.chunkTasks,
      signal: ac.signal,
      // A cancel waits for at most one slice of generations (the issue asks for a stop within 2 s).
      sliceMs: 400,
      onProgress: emit,
    });
    const s = r.summary;
    const result: BenchEvalResult = {
      request: req,
      // A Hugging Face model is named by its whole URL: that is its name in the model selects (and in rolloutLink).
      model: req.modelUrl.startsWith(HF_URL_PREFIX) ? req.modelUrl : req.modelUrl.replace(/\/+$/, '').split('/').pop() ?? req.modelUrl,
      suite: `${req.world} test · ${tasks.length} tasks · ${req.mode}${sim ? ` (Rehearse: ${req.simulatorUrl})` : ''} · k=${req.k}`,
      summary: {
        success: s.success, outcome: s.outcome, checklist: s.checklist, passAtK: s.passAtK,
        fidelityF1: s.fidelity.meanF1, fidelityExact: s.fidelity.exactRate, errorAgree: s.fidelity.errorAgreeRate,
      },
      estimates: metricEstimates(r.perTask, { seed: hashSeed('bootstrap', req.seed) }),
      terminations: s.terminations,
      rows: r.perTask.map((t) => ({ task: t.task, samples: t.samples, success: t.success, outcome: t.outcome, checklist: t.checklist, passAtK: t.passAtK, fidelityF1: t.fidelityF1, terminations: t.terminations })),
      chunks: r.chunks, chunkTasks: r.chunkTasks, generations: s.generations,
      ms: performance.now() - t0,
    };
    return result;
  })();
  running = work;
  try {
    const result = await work;
    current = { state: 'done', progress: current.progress };
    return result;
  } catch (e) {
    const cancelled = e instanceof EvalCancelled || ac.signal.aborted;
    current = { state: cancelled ? 'cancelled' : 'error', progress: current.progress, error: cancelled ? undefined : (e as Error).message };
    throw cancelled ? new Error(EVAL_CANCELLED) : e;
  } finally {
    if (controller === ac) controller = null;
    running = null;
  }
}

/** Stops the running evaluation before its next batch of generations. */
export function cancel(): boolean {
  if (!controller) return false;
  controller.abort();
  return true;
}

export function status(): BenchStatus { return current; }
