// "Rehearse first" for the Rollout page: the page's rollout request, run as committed executions in the real
// environment with private rehearsal (src/tts/) before every user turn, on the loaded model in this worker.

import { compactFormat } from '../agent/chatTemplate';
import { taskById, getWorld } from '../envs/worlds';
import { realMatchesCommitted, runTts } from '../tts/rehearse';
import { loadModel, loadedFolder, loadedSampler, tokenStrings } from './engine-bridge';
import { buildRolloutConfig } from './rollout-config';
import type { ProgressListener, RehearseFirstRequest, RehearseFirstResult } from './protocol';
import type { WebRuntime } from './runtime-web';

export async function rehearseFirst(rt: WebRuntime, req: RehearseFirstRequest, onProgress?: ProgressListener): Promise<RehearseFirstResult> {
  if (!req.modelUrl) throw new Error('no model loaded: pick one on the Models page');
  if (!Number.isInteger(req.n) || req.n < 0 || req.n > 16) throw new Error(`rehearse first: n must be a whole number in 0 … 16 (got ${req.n})`);
  const t0 = performance.now();
  await loadModel(rt, req.modelUrl);
  const sampler = loadedSampler()!;
  const folder = loadedFolder()!;
  const world = getWorld(req.world);
  const task = req.taskId ? taskById(req.taskId) : world.tasks({ split: 'test', count: 1 })[0];
  if (!task) throw new Error(`world ${req.world} has no test task`);
  if (task.world !== world.name) throw new Error(`task ${task.id} is not in world ${world.name}`);
  // The committed run is the page's real-mode rollout with the same settings (N = 0 is exactly that run).
  const built = buildRolloutConfig(folder.rawConfig, { ...req, mode: 'real' }, sampler);
  const { mode: _mode, ...cfg } = built.cfg;
  let rounds = 0;
  const runs = await runTts([...Array(req.k).keys()].map((j) => ({ task, sample: j, groupId: task.id })), {
    policy: sampler, format: cfg.format ?? compactFormat,
    cfg: {
      ...cfg,
      onRound: () => {
        rounds++;
        if (onProgress) void Promise.resolve(onProgress({ done: rounds, total: built.maxRounds, unit: 'rounds', detail: `committed round ${rounds} (each turn rehearsed ${req.n}× first)`, elapsedMs: performance.now() - t0, etaMs: null, etaIsBound: true })).catch(() => undefined);
      },
    },
    opts: { n: req.n, strategy: req.strategy, memory: req.memory },
  });
  for (const r of runs) for (const row of r.trajectory.rows) row.outputTokens = tokenStrings(sampler.tokenizer, row.outputIds);
  return {
    runs: runs.map((r) => ({ trajectory: r.trajectory, rehearsals: r.rehearsals, realCalls: r.realCalls.length, realMatchesCommitted: realMatchesCommitted(r) })),
    ms: performance.now() - t0,
  };
}
