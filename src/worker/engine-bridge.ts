// The only worker file that imports src/engine, src/agent, src/rl and src/bench. Keeping those imports
// here means the RPC surface (compute.worker.ts) stays stable while the layers below grow, and a missing
// capability is reported as "not available yet: <reason>" instead of breaking the build.

import { rolloutGroups } from '../agent/rollout';
import type { Trajectory } from '../agent/types';
import { getWorld, listWorlds, taskById } from '../envs/worlds';
import { countParams } from '../engine/decoder';
import { fetchFileSource, loadModelFolder, type ModelFolder } from '../engine/modelFolder';
import { samplerFromFolder, type Sampler } from '../engine/sampler';
import type { WebRuntime } from './runtime-web';
import { engineSelfTest, type SelfTestOptions } from './selftest';
import {
  NOT_AVAILABLE, type BenchRequest, type BenchResult, type Capabilities, type LoadedModel, type RolloutRequest,
  type SampleRequest, type SampleResult, type WorldInfo, type SelfTestResult, type TrainMetrics, type TrainRequest,
} from './protocol';

export type { SelfTestOptions };

const REASONS = {
  train: 'RL trainer (src/rl) is not wired into the worker yet',
  bench: 'benchmark suites (src/bench) are not wired into the worker yet',
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
    train: { available: false, reason: REASONS.train },
    bench: { available: false, reason: REASONS.bench },
  };
}

export function selfTest(rt: WebRuntime, opts: SelfTestOptions = {}): Promise<SelfTestResult> {
  return engineSelfTest(rt.runtime, opts);
}

// ---- models + sampling ----------------------------------------------------------------------------

interface Loaded { url: string; folder: ModelFolder; sampler: Sampler & { release(): Promise<void> }; info: LoadedModel }
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
  const info: LoadedModel = {
    name: url.replace(/\/+$/, '').split('/').pop() ?? url,
    url,
    config: folder.rawConfig,
    parameters: countParams(folder.config),
    loadMs: performance.now() - t0,
  };
  loaded = { url, folder, sampler, info };
  return info;
}

export async function unloadModel(): Promise<void> {
  const l = loaded;
  loaded = null;
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
export async function rollout(rt: WebRuntime, req: RolloutRequest): Promise<Trajectory[]> {
  if (!req.modelUrl) throw new Error(REASONS.model);
  await loadModel(rt, req.modelUrl);
  const policy = loaded!.sampler;
  const world = getWorld(req.world);
  const task = req.taskId ? taskById(req.taskId) : world.tasks({ split: 'test', count: 1 })[0];
  if (!task) throw new Error(`world ${req.world} has no test task`);
  if (task.world !== world.name) throw new Error(`task ${task.id} is not in world ${world.name}`);
  const sampling = { temperature: req.temperature, maxNewTokens: req.maxNewTokens };
  return rolloutGroups([task], req.k, {
    mode: req.mode,
    policy,
    simulator: req.mode === 'simulator' ? policy : undefined,
    seed: req.seed,
    act: sampling,
    rehearse: sampling,
    limits: { maxAssistantTurns: req.maxTurns },
  });
}

export async function trainStep(_req: TrainRequest): Promise<TrainMetrics> {
  throw notAvailable(REASONS.train);
}

export async function bench(_req: BenchRequest): Promise<BenchResult> {
  throw notAvailable(REASONS.bench);
}
