// The shipped demo trace, bundled with the page (no worker, no model download): the Rollout page draws it
// on first paint. Produced by `npx tsx src/cli/demo-trace.ts` (see request.ts and demo-meta.json).

import { importTraces } from '../../agent/traces';
import type { ShownTrajectory, TaskInfo } from '../../worker/protocol';
import meta from './demo-meta.json';
import text from './demo-trace.jsonl?raw';

export interface DemoMeta {
  request: { modelUrl: string; world: string; mode: string; k: number; seed: number; temperature: number; maxTurns: number; maxNewTokens: number; topP: number; topK: number; taskId: string };
  model: string;
  task: TaskInfo;
  why: string;
  differingRows: number;
  imaginedTicks: number;
  command: string;
}

const parsed = importTraces(text);
if (parsed.errors.length) console.warn('demo trace: problems in the shipped file', parsed.errors.slice(0, 5));

export const DEMO = {
  meta: meta as DemoMeta,
  trajectories: parsed.trajectories as ShownTrajectory[],
};
