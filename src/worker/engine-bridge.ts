// The only worker file that imports src/engine, src/agent, src/rl and src/bench. Keeping those imports
// here means the RPC surface (compute.worker.ts) stays stable while the layers below grow, and a missing
// capability is reported as "not available yet: <reason>" instead of breaking the build.

import type { Trajectory } from '../agent/types';
import type { WebRuntime } from './runtime-web';
import { engineSelfTest, type SelfTestOptions } from './selftest';
import {
  NOT_AVAILABLE, type BenchRequest, type BenchResult, type Capabilities, type LoadedModel, type RolloutRequest,
  type SampleRequest, type SampleResult, type SelfTestResult, type TrainMetrics, type TrainRequest,
} from './protocol';

export type { SelfTestOptions };

const REASONS = {
  engine: 'engine graph builders (src/engine) are not published yet',
  rollout: 'rollout loop (src/agent) is not wired into the worker yet',
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
    generate: { available: false, reason: REASONS.engine },
    rollout: { available: false, reason: REASONS.rollout },
    train: { available: false, reason: REASONS.train },
    bench: { available: false, reason: REASONS.bench },
  };
}

export function selfTest(rt: WebRuntime, opts: SelfTestOptions = {}): Promise<SelfTestResult> {
  return engineSelfTest(rt.runtime, opts);
}

export async function loadModel(_rt: WebRuntime, _url: string): Promise<LoadedModel> {
  throw notAvailable(REASONS.engine);
}

export async function unloadModel(): Promise<void> {}

export async function sample(_req: SampleRequest): Promise<SampleResult> {
  throw notAvailable(REASONS.engine);
}

export async function rollout(_req: RolloutRequest): Promise<Trajectory[]> {
  throw notAvailable(REASONS.rollout);
}

export async function trainStep(_req: TrainRequest): Promise<TrainMetrics> {
  throw notAvailable(REASONS.train);
}

export async function bench(_req: BenchRequest): Promise<BenchResult> {
  throw notAvailable(REASONS.bench);
}
