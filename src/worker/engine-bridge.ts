// Models, sampling, rollouts and held-out evaluation for the compute worker: the worker's bridge onto
// src/engine, src/agent and src/envs (training lives in train-service.ts). Keeping these imports here keeps
// the RPC surface (compute.worker.ts) thin; a capability that is not wired yet reports itself through
// capabilities() and a "not available yet: <reason>" error instead of breaking the build.

import { rolloutGroups } from '../agent/rollout';
import { buildRolloutConfig, realVerdictOf } from './rollout-config';
import { getWorld, listWorlds, taskById, type WorldTask } from '../envs/worlds';
import type { GenerateRequest, Generation, TextGenerator } from '../engine/generator';
import { countParams } from '../engine/decoder';
import { fetchFileSource, loadModelFolder, type ModelFolder } from '../engine/modelFolder';
import { samplerFromFolder, type Sampler } from '../engine/sampler';
import type { WebRuntime } from './runtime-web';
import { engineSelfTest, type SelfTestOptions } from './selftest';
import { installInterrupt, type Interrupt } from './interruptible';
import { roundProgress, type RoundProgress } from './round-progress';
import {
  CANCELLED, NOT_AVAILABLE, type ProgressListener, type ShownTrajectory, type Capabilities, type LoadedModel, type RolloutRequest,
  type RolloutStepRequest, type RolloutStepResult, type SampleRequest, type TaskInfo, type SampleResult, type WorldInfo, type SelfTestResult,
} from './protocol';

export type { SelfTestOptions };

const REASONS = {
  model: 'no model loaded: pick one on the Models page',
};

export function notAvailable(reason: string): Error {
  const e = new Error(`${NOT_AVAILABLE}: ${reason}`);
  e.name = 'NotAvailable';
  return e;
}

export function capabilities(): Capabilities {
  return {
    selfTest: { available: true },
    generate: { available: true },
    rollout: { available: true },
    train: { available: true },
    bench: { available: true },
  };
}

export function selfTest(rt: WebRuntime, opts: SelfTestOptions = {}): Promise<SelfTestResult> {
  return engineSelfTest(rt.runtime, opts);
}

// ---- models + sampling ----------------------------------------------------------------------------

interface Loaded { url: string; folder: ModelFolder; sampler: Sampler & { release(): Promise<void> }; info: LoadedModel; interrupt: Interrupt }
let loaded: Loaded | null = null;

/** Load a model folder served under `url` (e.g. /models/<name>/) and build its sampler on this backend. */
export async function loadModel(rt: WebRuntime, url: string): Promise<LoadedModel> {
  if (loaded?.url === url) return loaded.info;
  await unloadModel();
  const t0 = performance.now();
  // Absolute URL: a worker resolves relative fetches against its own script URL (/assets/...), not the page.
  const abs = new URL(url, self.location.origin).href;
  const folder = await loadModelFolder(fetchFileSource(abs));
  const sampler = await samplerFromFolder(folder, rt.runtime, { mode: 'fast' });
  // One throwaway token: ORT allocates and (on WebGPU) compiles on a session's first runs, which would
  // otherwise be billed to the user's first sample and its tok/s.
  await sampler.generate([{ prompt: 'a', maxNewTokens: 2, temperature: 0, topP: 1, topK: 0, stop: [], seed: 0 }]);
  const info: LoadedModel = {
    name: url.replace(/\/+$/, '').split('/').pop() ?? url,
    url,
    config: folder.rawConfig,
    parameters: countParams(folder.config),
    loadMs: performance.now() - t0,
  };
  // Rollouts arm it so Cancel stops between decode steps, not after the whole batch.
  loaded = { url, folder, sampler, info, interrupt: installInterrupt(sampler.model) };
  return info;
}

/** The folder of the loaded model (the trainer starts from its weights). */
export function loadedFolder(): ModelFolder | null { return loaded?.folder ?? null; }

/** The loaded model's sampler (tts-service.ts rehearses with it). */
export function loadedSampler(): Sampler | null { return loaded?.sampler ?? null; }

export async function unloadModel(): Promise<void> {
  const l = loaded;
  loaded = null;
  stepMemo = new Map();
  await l?.sampler.release();
}

export async function sample(req: SampleRequest): Promise<SampleResult> {
  if (!loaded) throw new Error(REASONS.model);
  const t0 = performance.now();
  const [g] = await loaded.sampler.generate([{
    prompt: req.prompt, maxNewTokens: req.maxNewTokens, temperature: req.temperature,
    topP: req.topP, topK: req.topK, stop: req.stop ?? [], seed: req.seed,
  }]);
  const ms = performance.now() - t0;
  return {
    text: g!.text,
    promptTokens: g!.promptIds.length,
    outputTokens: g!.outputIds.length,
    finishReason: g!.finishReason,
    ms,
    tokensPerSecond: g!.outputIds.length / Math.max(1e-3, ms / 1000),
  };
}

// ---- worlds + rollout ------------------------------------------------------------------------------

export function worlds(): WorldInfo[] {
  return listWorlds().map((w) => ({
    name: w.name,
    description: w.description,
    tools: w.tools().length,
    testTasks: w.seeds({ split: 'test', count: 20 }).map((s) => `${w.name}-${s}`),
    trainTasks: w.seeds({ split: 'train', count: 20 }).map((s) => `${w.name}-${s}`),
  }));
}

/**
 * K trajectories of one task with the loaded model as the policy. In 'simulator' mode the same loaded
 * weights, frozen, play the Rehearse role (the playground has one model until the RL work adds a policy
 * that trains away from it).
 */
export async function rollout(rt: WebRuntime, req: RolloutRequest, onProgress?: ProgressListener): Promise<ShownTrajectory[]> {
  const { trajectories } = await runRollout(rt, req, null, false, onProgress);
  return trajectories;
}

/** A rollout cut at `generations` per trajectory (see RolloutStepRequest in protocol.ts). */
export async function rolloutStep(rt: WebRuntime, req: RolloutStepRequest, onProgress?: ProgressListener): Promise<RolloutStepResult> {
  let k = Math.max(1, Math.floor(req.generations));
  let computed = 0;
  for (;;) {
    const r = await runRollout(rt, req, k, true, onProgress);
    computed += r.computed;
    const cut = r.trajectories.filter((t) => t.terminatedBy === 'generation_cap' && k < r.naturalCap);
    const grew = r.trajectories.some((t) => t.rows.length === k);
    if (!req.advance || grew || cut.length === 0 || k >= r.naturalCap) {
      return { trajectories: r.trajectories, generations: k, done: cut.length === 0, computed };
    }
    k++;
  }
}

/** Task metadata for the page (split, difficulty, user turns) without running anything. */
export function taskInfo(world: string, id?: string): TaskInfo {
  const w = getWorld(world);
  const task = id ? taskById(id) : w.tasks({ split: 'test', count: 1 })[0];
  if (!task) throw new Error(`world ${world} has no test task`);
  const t = task as WorldTask;
  return {
    id: t.id, world: t.world, seed: t.seed, split: t.split, difficulty: t.difficulty,
    userTurns: t.userTurns,
    checklist: t.checklist.map((turn) => turn.map((c) => ({ id: c.id, question: c.question, weight: c.weight, required: c.required_for_next_turn }))),
    tools: t.makeEnv().tools().length,
  };
}

// Generations of stepping calls, keyed by everything that determines them (prompt, budget, sampling,
// seed) on the loaded model: step k+1 replays the first k from here and samples one new one.
const MEMO_MAX = 2048;
let stepMemo = new Map<string, Generation>();

function memoGenerator(inner: TextGenerator, memo: Map<string, Generation>, counter: { computed: number }): TextGenerator {
  const keyOf = (r: GenerateRequest) => JSON.stringify([r.prompt, r.maxNewTokens, r.temperature, r.topP, r.topK, r.stop, r.seed]);
  return {
    name: inner.name,
    maxContext: inner.maxContext,
    countTokens: (t) => inner.countTokens(t),
    async generate(reqs) {
      const keys = reqs.map(keyOf);
      const miss = reqs.filter((_, i) => !memo.has(keys[i]!));
      const fresh = miss.length ? await inner.generate(miss) : [];
      counter.computed += fresh.length;
      let j = 0;
      const out = reqs.map((_, i) => memo.get(keys[i]!) ?? fresh[j++]!);
      // Stored after reading so a batch with a repeated request stays consistent.
      reqs.forEach((_, i) => { if (!memo.has(keys[i]!)) memo.set(keys[i]!, out[i]!); });
      while (memo.size > MEMO_MAX) memo.delete(memo.keys().next().value!);
      return out;
    },
  };
}

/**
 * Text of each output token. Decoding the growing prefix (rather than each id alone) keeps multi-byte
 * characters split across byte-level tokens intact: the token that completes a character carries it.
 */
export function tokenStrings(tok: { decode(ids: ArrayLike<number>): string }, ids: number[]): string[] {
  const out: string[] = [];
  let prev = '';
  for (let i = 0; i < ids.length; i++) {
    const s = tok.decode(ids.slice(0, i + 1)).replace(/\uFFFD+$/, '');
    out.push(s.startsWith(prev) ? s.slice(prev.length) : s);
    prev = s.startsWith(prev) ? s : prev + s;
  }
  return out;
}

// Cancelling: every rollout call takes a number; cancelRollouts() marks all calls up to the newest as
// cancelled, and each one checks its mark between sampler rounds (a round is one batch of generations)
// and, through the loaded model's interrupt, before every forward pass inside a round.
let rolloutSeq = 0;
let rolloutCancelledUpTo = 0;

/** Stop the running rollout (or step) before its next forward pass. */
export function cancelRollouts(): void { rolloutCancelledUpTo = rolloutSeq; }

export class CancelledError extends Error {
  constructor(what: string) { super(`${CANCELLED}: ${what}`); this.name = 'Cancelled'; }
}

/** Yield one macrotask: ORT-web's WASM runs resolve through microtasks only, which would keep the
 * worker's message queue (and so the cancel RPC) waiting until the whole rollout is done. */
const macrotask = () => new Promise<void>((r) => setTimeout(r, 0));

/** The generator with a cancel check before every batch of generations. */
function cancellable(inner: TextGenerator, cancelled: () => boolean, what: () => string): TextGenerator {
  return {
    name: inner.name,
    maxContext: inner.maxContext,
    countTokens: (t) => inner.countTokens(t),
    async generate(reqs) {
      await macrotask();
      if (cancelled()) throw new CancelledError(what());
      return inner.generate(reqs);
    },
  };
}

async function runRollout(rt: WebRuntime, req: RolloutRequest, cap: number | null, memoise: boolean, onProgress?: ProgressListener) {
  if (!req.modelUrl) throw new Error(REASONS.model);
  const my = ++rolloutSeq;
  const t0 = performance.now();
  await loadModel(rt, req.modelUrl);
  const l = loaded!;
  const counter = { computed: 0 };
  // Read after loadModel: switching models replaces the memo.
  const inner: TextGenerator = memoise ? memoGenerator(l.sampler, stepMemo, counter) : l.sampler;
  // Assigned before the rollout asks for its first generation.
  let progress: RoundProgress | null = null;
  const stopped = () => progress?.stopped() ?? 'rollout stopped after 0 rounds (0 generations)';
  const policy = cancellable(inner, () => rolloutCancelledUpTo >= my, stopped);
  const world = getWorld(req.world);
  const task = req.taskId ? taskById(req.taskId) : world.tasks({ split: 'test', count: 1 })[0];
  if (!task) throw new Error(`world ${req.world} has no test task`);
  if (task.world !== world.name) throw new Error(`task ${task.id} is not in world ${world.name}`);
  const built = buildRolloutConfig(l.folder.rawConfig, req, policy, cap);
  const rp = roundProgress(req.k, built.maxRounds, onProgress, t0);
  progress = rp;
  const disarmed = l.interrupt.arm(() => { if (rolloutCancelledUpTo >= my) throw new CancelledError(`${stopped()}, inside round ${rp.rounds + 1}`); });
  const trajectories = await rolloutGroups([task], req.k, {
    ...built.cfg,
    onRound: rp.onRound,
  }).finally(() => l.interrupt.arm(disarmed));
  for (const t of trajectories) {
    for (const r of t.rows) r.outputTokens = tokenStrings(l.sampler.tokenizer, r.outputIds);
    const rv = realVerdictOf(task, t);
    if (rv) (t as ShownTrajectory).realVerdict = rv;
  }
  return { trajectories: trajectories as ShownTrajectory[], computed: counter.computed, naturalCap: built.naturalCap };
}

