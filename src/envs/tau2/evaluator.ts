// τ² v0.2.0 evaluation: environment (DB hash of a replayed gold run vs the agent's run, plus env
// assertions), communicate_info (substring check), actions (gold calls present), combined by the task's
// reward_basis; and pass^k over repeated trials.

import { pyEquals } from './py';
import type { Tau2Task, RewardType, Tau2Action } from './tasks';
import type { EnvAssertion, Tau2Environment, Tau2Message, Tau2Store, Tau2ToolCall } from './toolkit';

type AnyEnv = Tau2Environment<Tau2Store<any>>;

export interface DBCheck { db_match: boolean; db_reward: number }
export interface EnvAssertionCheck { env_assertion: EnvAssertion; met: boolean; reward: number; error?: string }
export interface CommunicateCheck { info: string; met: boolean; justification: string }
export interface ActionCheck { action: Tau2Action; action_match: boolean; action_reward: number }

export interface RewardInfo {
  reward: number;
  db_check?: DBCheck | null;
  env_assertions?: EnvAssertionCheck[] | null;
  action_checks?: ActionCheck[] | null;
  communicate_checks?: CommunicateCheck[] | null;
  reward_basis?: RewardType[] | null;
  reward_breakdown?: Partial<Record<RewardType, number>> | null;
  info?: Record<string, unknown> | null;
}

export type TerminationReason = 'user_stop' | 'agent_stop' | 'max_steps' | 'too_many_errors' | 'agent_error' | 'user_error';

function toolCallsOf(trajectory: Tau2Message[]): Tau2ToolCall[] {
  const out: Tau2ToolCall[] = [];
  for (const m of trajectory) if ((m.role === 'assistant' || m.role === 'user') && m.tool_calls) out.push(...m.tool_calls);
  return out;
}

/** EnvironmentEvaluator.calculate_reward. `trajectory` must include the task's initial message history. */
export function evaluateEnvironment(makeEnv: () => AnyEnv, task: Tau2Task, trajectory: Tau2Message[]): RewardInfo {
  const ec = task.evaluation_criteria;
  if (!ec) return { reward: 1, info: { note: 'No evaluation criteria' } };
  if (ec.actions === null && ec.env_assertions === null) {
    return { reward: 1, db_check: { db_match: true, db_reward: 1 }, info: { note: 'No expected actions or env assertions' } };
  }
  const init = task.initial_state;
  const initOnly = init ? { initialization_data: init.initialization_data, initialization_actions: init.initialization_actions } : null;

  const predicted = makeEnv();
  try {
    predicted.setState(initOnly, trajectory);
  } catch (e) {
    // τ² lets this exception escape; a trajectory that cannot be replayed earns nothing here.
    return { reward: 0, db_check: { db_match: false, db_reward: 0 }, info: { note: 'trajectory replay failed', error: String((e as Error).message ?? e) } };
  }

  const gold = makeEnv();
  gold.setState(initOnly, init?.message_history ?? []);
  const goldErrors: string[] = [];
  for (const a of ec.actions ?? []) {
    try {
      gold.makeToolCall(a.name, a.arguments, a.requestor);
    } catch (e) {
      goldErrors.push(`${a.name}: ${(e as Error).message}`);
    }
  }

  const dbMatch = gold.hash() === predicted.hash();
  const dbReward = dbMatch ? 1 : 0;
  const checks: EnvAssertionCheck[] = [];
  let assertionReward = 1;
  for (const a of ec.env_assertions ?? []) {
    let met = false;
    let error: string | undefined;
    try {
      met = predicted.runEnvAssertion(a);
    } catch (e) {
      error = (e as Error).message;
    }
    checks.push({ env_assertion: a, met, reward: met ? 1 : 0, ...(error ? { error } : {}) });
    assertionReward *= met ? 1 : 0;
  }
  let reward = 1;
  const breakdown: Partial<Record<RewardType, number>> = {};
  if (ec.reward_basis.includes('DB')) { breakdown.DB = dbReward; reward *= dbReward; }
  if (ec.reward_basis.includes('ENV_ASSERTION')) { breakdown.ENV_ASSERTION = assertionReward; reward *= assertionReward; }
  return {
    reward, db_check: { db_match: dbMatch, db_reward: dbReward }, env_assertions: checks,
    reward_basis: ec.reward_basis, reward_breakdown: breakdown,
    info: goldErrors.length ? { gold_action_errors: goldErrors } : null,
  };
}

/** CommunicateEvaluator: each info string must appear (case-insensitive, commas dropped) in an assistant text. */
export function evaluateCommunicate(task: Tau2Task, trajectory: Tau2Message[]): RewardInfo {
  const ec = task.evaluation_criteria;
  if (!ec) return { reward: 1, info: { notes: 'No evaluation criteria' }, reward_breakdown: { COMMUNICATE: 1 } };
  const infos = ec.communicate_info;
  if (!infos || infos.length === 0) return { reward: 1, info: { note: 'No communicate_info to evaluate' }, reward_breakdown: { COMMUNICATE: 1 } };
  const checks = infos.map((info): CommunicateCheck => {
    for (const m of trajectory) {
      if (m.role !== 'assistant' || typeof m.content !== 'string' || m.content.trim() === '') continue;
      if (m.content.toLowerCase().replaceAll(',', '').includes(info.toLowerCase())) {
        return { info, met: true, justification: `Information '${info}' communicated in the message:\n '${m.content}'` };
      }
    }
    return { info, met: false, justification: `Information '${info}' not communicated.` };
  });
  const reward = checks.every((c) => c.met) ? 1 : 0;
  return { reward, communicate_checks: checks, reward_breakdown: { COMMUNICATE: reward } };
}

/** Action.compare_with_tool_call. */
export function actionMatches(action: Tau2Action, call: Tau2ToolCall): boolean {
  if (action.name !== call.name) return false;
  const callArgs = (call.arguments ?? {}) as Record<string, unknown>;
  const keys = action.compare_args ?? Object.keys(callArgs);
  if (keys.length === 0) return true;
  const pick = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([k]) => keys.includes(k)));
  return pyEquals(pick(callArgs), pick(action.arguments));
}

/** ActionEvaluator: every gold action must match some tool call of the trajectory. */
export function evaluateActions(task: Tau2Task, trajectory: Tau2Message[]): RewardInfo {
  const ec = task.evaluation_criteria;
  if (!ec) return { reward: 1, action_checks: [], info: { note: 'No evaluation criteria' }, reward_breakdown: { ACTION: 1 } };
  if (!ec.actions || ec.actions.length === 0) return { reward: 1, info: { note: 'No actions to evaluate' }, reward_breakdown: { ACTION: 1 } };
  const calls = toolCallsOf(trajectory);
  const checks = ec.actions.map((action): ActionCheck => {
    const match = calls.some((c) => actionMatches(action, c));
    return { action, action_match: match, action_reward: match ? 1 : 0 };
  });
  const reward = checks.every((c) => c.action_match) ? 1 : 0;
  return { reward, action_checks: checks, reward_breakdown: { ACTION: reward } };
}

/**
 * evaluate_simulation with EvaluationType.ALL: environment × action × communicate as selected by the
 * task's reward_basis. NL assertions need an LLM judge; a task whose basis contains NL_ASSERTION gets
 * `info.nl_assertions_skipped` and that factor is left out (τ² raises instead).
 */
export function evaluateTask(
  makeEnv: () => AnyEnv,
  task: Tau2Task,
  trajectory: Tau2Message[],
  termination: TerminationReason = 'user_stop',
): RewardInfo {
  if (termination === 'too_many_errors' || termination === 'max_steps') {
    return { reward: 0, info: { note: `Simulation terminated prematurely. Termination reason: ${termination}` } };
  }
  const ec = task.evaluation_criteria;
  if (!ec) return { reward: 1, info: { note: 'No evaluation criteria' } };
  const env = evaluateEnvironment(makeEnv, task, trajectory);
  const act = evaluateActions(task, trajectory);
  const com = evaluateCommunicate(task, trajectory);
  const basis = new Set(ec.reward_basis);
  let reward = 1;
  const breakdown: Partial<Record<RewardType, number>> = {};
  if (basis.has('DB') || basis.has('ENV_ASSERTION')) { Object.assign(breakdown, env.reward_breakdown ?? {}); reward *= env.reward; }
  if (basis.has('ACTION')) { Object.assign(breakdown, act.reward_breakdown ?? {}); reward *= act.reward; }
  if (basis.has('COMMUNICATE')) { Object.assign(breakdown, com.reward_breakdown ?? {}); reward *= com.reward; }
  return {
    reward,
    db_check: env.db_check ?? null,
    env_assertions: env.env_assertions ?? null,
    action_checks: act.action_checks ?? null,
    communicate_checks: com.communicate_checks ?? null,
    reward_basis: ec.reward_basis,
    reward_breakdown: breakdown,
    info: { env: env.info ?? null, communicate: com.info ?? null, action: act.info ?? null, ...(basis.has('NL_ASSERTION') ? { nl_assertions_skipped: true } : {}) },
  };
}

/** τ²'s success test on a reward. */
export const isSuccessful = (reward: number): boolean => reward >= 1 - 1e-6 && reward <= 1 + 1e-6;

function comb(n: number, k: number): number {
  if (k < 0 || k > n) return 0;
  let r = 1;
  for (let i = 1; i <= k; i++) r = (r * (n - k + i)) / i;
  return r;
}

/** pass^k for one task: C(successes, k) / C(trials, k). */
export function passHatKForTask(numTrials: number, successCount: number, k: number): number {
  if (numTrials < k) throw new Error(`Number of trials ${numTrials} is less than k ${k}.`);
  return comb(successCount, k) / comb(numTrials, k);
}

/** Mean pass^k over tasks; `rewards[taskId]` holds one reward per trial. */
export function passHatK(rewards: Record<string, number[]>, k: number): number {
  const ids = Object.keys(rewards);
  if (ids.length === 0) return 0;
  let sum = 0;
  for (const id of ids) {
    const r = rewards[id];
    sum += passHatKForTask(r.length, r.filter(isSuccessful).length, k);
  }
  return sum / ids.length;
}

/** Trajectory messages for a list of tool calls and their results (as τ²'s orchestrator records them). */
export function trajectoryFromCalls(calls: { id: string; name: string; arguments: unknown; requestor?: 'assistant' | 'user'; result: string; error?: boolean }[]): Tau2Message[] {
  const out: Tau2Message[] = [];
  for (const c of calls) {
    out.push({ role: c.requestor === 'user' ? 'user' : 'assistant', content: null, tool_calls: [{ id: c.id, name: c.name, arguments: c.arguments, requestor: c.requestor ?? 'assistant' }] });
    out.push({ role: 'tool', id: c.id, content: c.result, requestor: c.requestor ?? 'assistant', error: c.error ?? false });
  }
  return out;
}
