// Batched multi-turn rollout: many trajectories advance together, one sampler batch per round.
//
// Each trajectory is a small state machine (rollout-trajectory.ts; the reference's per-sample ChecklistEnv):
// awaiting Act → awaiting results (real, imagined or both) → … → judged turn → next user turn | done. This
// file is the loop around those machines and the only place that batches: every round it gathers the
// generation requests of all live trajectories, sends them to the generator in ONE generate() call (two in
// 'simulator' mode: policy and the frozen simulator are different models), and hands each generation back to
// its trajectory in request order (trajectory order, then call order). Request seeds derive from (base seed,
// task id, sample index, row index), so the outcome never depends on batch composition.
//
// Modes: 'real' (the environment answers), 'simulator' (a frozen model answers in the Rehearse role),
// 'rehearsal' (the policy answers itself — EnvACE). In the imagined modes each call is also executed on a
// shadow copy of the real environment, never shown to the policy, to measure fidelity.
//
// The configuration (RolloutConfig, RolloutSpec, limits, defaults, seeds, the default judge) is in
// rollout-config.ts and re-exported here.

import type { Generation } from '../engine/generator';
import type { Task } from '../envs/types';
import { resolveConfig, type ResolvedConfig, type RolloutConfig, type RolloutSpec } from './rollout-config';
import {
  applyAct, applyRehearse, isDone, nextRequests, resultsComplete, setTurnMemory, showResults, startsUserTurn, startTrajectory,
  userTurnStart, type StepRequest, type TrajectoryRun,
} from './rollout-trajectory';
import type { Trajectory } from './types';

export {
  aggregateVerdict, checklistJudge, DEFAULT_LIMITS, ENVACE_FATAL_CODES, ERROR_REWARDS, hashSeed, JUDGE_ON, trajectorySeed,
  type ErrorReward, type JudgeOn, type JudgeStep, type RolloutConfig, type RolloutJudge, type RolloutLimits, type RolloutSpec,
  type SamplingConfig, type UserTurnStart,
} from './rollout-config';

export async function rollout(specs: RolloutSpec[], cfg: RolloutConfig): Promise<Trajectory[]> {
  const rc = resolveConfig(cfg);
  const runs = specs.map((spec, i) => startTrajectory(rc, spec, i));
  for (let round = 0; ; round++) {
    await userTurnHook(rc, runs);
    const reqs = runs.flatMap((t) => nextRequests(rc, t));
    if (reqs.length === 0) break;
    cfg.onRound?.({ round, live: runs.filter((t) => !isDone(t)).length, requests: reqs.length });
    const gens = await generateBatch(rc, reqs);
    // In request order, so shadow environments see calls in sequence.
    reqs.forEach((r, i) => (r.kind === 'act' ? applyAct(rc, r.run, gens[i], r.prompt) : applyRehearse(rc, r.run, r.callIndex!, gens[i], r.prompt)));
    // Real calls of the budget are answered when their turn comes (showResults), so only the rehearsed ones are awaited.
    for (const t of runs) if (resultsComplete(t)) showResults(rc, t);
  }
  return runs.map((t) => t.traj);
}

/** cfg.onUserTurn, once for all trajectories about to make the first Act of a user turn. */
async function userTurnHook(rc: ResolvedConfig, runs: TrajectoryRun[]): Promise<void> {
  const hook = rc.cfg.onUserTurn;
  if (!hook) return;
  const starting = runs.filter(startsUserTurn);
  if (starting.length === 0) return;
  const notes = await hook(starting.map(userTurnStart));
  starting.forEach((t, i) => setTurnMemory(t, notes[i]));
}

/**
 * The batching: one generate() for the policy's requests (Act, and Rehearse unless a frozen simulator
 * answers), then one for the simulator's. Returns the generations in request order.
 */
async function generateBatch(rc: ResolvedConfig, reqs: StepRequest[]): Promise<Generation[]> {
  const bySimulator = (r: StepRequest) => rc.mode === 'simulator' && r.kind === 'rehearse';
  const policyReqs = reqs.filter((r) => !bySimulator(r));
  const simReqs = reqs.filter(bySimulator);
  // One after the other: both may share one accelerator/runtime that does not run sessions concurrently.
  const pg = policyReqs.length ? await rc.policy.generate(policyReqs.map((r) => r.req)) : [];
  const sg = simReqs.length ? await rc.rehearser.generate(simReqs.map((r) => r.req)) : [];
  if (pg.length !== policyReqs.length || sg.length !== simReqs.length) throw new Error('rollout: generator returned a different number of generations than requests');
  let p = 0, s = 0;
  return reqs.map((r) => (bySimulator(r) ? sg[s++] : pg[p++]));
}

/** K samples of every task, grouped by task (trajectory i*K+j is task i, sample j). */
export function rolloutGroups(tasks: Task[], k: number, cfg: RolloutConfig): Promise<Trajectory[]> {
  const specs: RolloutSpec[] = [];
  for (const task of tasks) for (let j = 0; j < k; j++) specs.push({ task, sample: j, groupId: task.id });
  return rollout(specs, cfg);
}
