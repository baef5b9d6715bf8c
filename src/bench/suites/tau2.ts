// τ²-bench as a benchmark suite: τ²'s half-duplex orchestration around a policy (the agent) and a user (a model
// following τ²'s user-simulator instructions, or the port's scripted user), rewarded by τ²'s evaluator (the
// port's evaluateTask: DB hash against the gold replay, env assertions, required actions, communicated info,
// combined by the task's reward_basis). Browser-safe: the domain comes in built (src/envs/tau2/domain.ts).
//
// The conversation (τ² orchestrator, read from the public source; our words and code): the environment is set to
// the task's initial state (init data, init actions, the message history's tool calls re-executed); without a
// history the agent opens with "Hi! How can I help you today?" and the user answers; with one, whoever the last
// message addresses speaks next. The agent's output is either text for the user or tool calls; every call runs
// on the environment and its result goes back to the agent, which speaks again. The user sees only the agent's
// text (roles flipped: the agent is "user" to the user model). Every message (agent, user, one environment
// answer) is a step. The episode ends when the user's message carries ###STOP###, ###TRANSFER### or
// ###OUT-OF-SCOPE### (user_stop), the agent's text carries ###STOP### (agent_stop), the agent's output is not a
// valid message (agent_error: unparsable calls, an empty output, or a prompt beyond the model's context), the
// user's is empty (user_error), after maxSteps steps (max_steps) or maxErrors tool errors (too_many_errors);
// the last two score 0, as in τ².

import { hashSeed } from '../../agent/rollout-config';
import { stripThink } from '../../agent/protocol';
import type { ChatFormat } from '../../agent/chatTemplate';
import type { TextGenerator } from '../../engine/generator';
import type { Tau2Domain } from '../../envs/tau2/domain';
import { evaluateTask, isSuccessful, passHatKForTask, type TerminationReason } from '../../envs/tau2/evaluator';
import { agentSystemPrompt, type Tau2Task } from '../../envs/tau2/tasks';
import type { Tau2Environment, Tau2Message, Tau2Store, Tau2ToolCall } from '../../envs/tau2/toolkit';
import { isStopMessage, renderUserScenario, ScriptedUser, STOP } from '../../envs/tau2/user';
import type { Message } from '../../envs/types';
import { bootstrap, type Estimate } from '../stats';
import { checkpoint, decodeAct, generateFitted, SUITE_BATCH, suiteProgress, SuiteInputError, toolCallBlock, type AgentRequest, type Sampling, type SuiteAgent, type SuiteProgress } from './agent';

/** τ²'s DEFAULT_FIRST_AGENT_MESSAGE. */
export const FIRST_AGENT_MESSAGE = 'Hi! How can I help you today?';
/** τ²'s orchestrator defaults. */
export const TAU2_MAX_STEPS = 100;
export const TAU2_MAX_ERRORS = 10;

/**
 * The user simulator's guidelines, in our words after τ²'s simulation_guidelines.md: play the customer, one
 * message at a time, only what the scenario says, reveal information when asked, and end with its stop tokens.
 */
export const USER_GUIDELINES = [
  '# How to play the user',
  'You are a customer talking to a customer-service agent. Play that customer realistically and follow the scenario below exactly.',
  '- Write one message at a time, as the customer would.',
  '- Use only information the scenario gives you; anything it does not give you, you do not know.',
  '- Do not copy the scenario word for word: say it in your own words.',
  '- Give information only when the agent asks for it.',
  '- Keep going until the task is done. An offer to do something is not the thing done: wait until the agent says it has been done, and check that every request of the scenario was handled.',
  `- When everything in the scenario has been handled, write '${STOP}' to end the conversation.`,
  "- If you are transferred to another agent, write '###TRANSFER###'.",
  "- If the scenario does not tell you enough to go on, write '###OUT-OF-SCOPE###'.",
].join('\n');

/** The user model's system text: the guidelines, then the task's scenario (τ²'s layout). */
export function userSystemPrompt(task: Tau2Task): string {
  return `${USER_GUIDELINES}\n\n<scenario>\n${renderUserScenario(task)}\n</scenario>`;
}

/** Who plays the user. */
export type Tau2User =
  | { kind: 'scripted' }
  | { kind: 'model'; name: string; generator: TextGenerator; format: ChatFormat; maxNewTokens: number } & Sampling;

export interface Tau2SuiteOptions {
  k: number;
  seed: number;
  /** 'test', 'train', 'base', … from split_tasks.json; a domain without one has every task in every split. */
  split: string;
  offset?: number;
  limit?: number;
  maxSteps?: number;
  maxErrors?: number;
  /**
   * Episodes in flight at once (a sliding window: a finished one makes room for the next). Bounds the sampler's
   * batch and its memory; results do not depend on it (every request's seed is its own). Default 16.
   */
  batch?: number;
  signal?: AbortSignal;
  yieldToEventLoop?: boolean;
  onProgress?: (p: SuiteProgress) => void;
}

export interface Tau2TaskResult {
  task: string;
  samples: number;
  /** Mean reward over the k samples. */
  reward: number;
  rewards: number[];
  /** Share of samples with reward 1 (τ²'s success). */
  success: number;
  terminations: TerminationReason[];
  dbMatch: (boolean | null)[];
  steps: number[];
  /** Per sample: the conversation (τ² messages, the initial history included). */
  messages?: Tau2Message[][];
}

export interface Tau2SuiteResult {
  tasks: Tau2TaskResult[];
  splitSource: 'split_tasks.json' | 'all tasks (the domain has no split file)';
  generations: { agent: number; user: number };
  overflows: number;
  seconds: number;
}

/** The tasks of a split (offset, limit); problems as SuiteInputError. */
export function tau2Tasks(domain: Tau2Domain, o: Pick<Tau2SuiteOptions, 'split' | 'offset' | 'limit'>): { tasks: Tau2Task[]; splitSource: Tau2SuiteResult['splitSource'] } {
  const problems: string[] = [];
  let pool = domain.tasks;
  let splitSource: Tau2SuiteResult['splitSource'] = 'all tasks (the domain has no split file)';
  if (domain.split) {
    const ids = domain.split[o.split];
    if (!ids) problems.push(`split '${o.split}' is not in split_tasks.json (it has ${Object.keys(domain.split).join(', ')})`);
    else { const keep = new Set(ids); pool = pool.filter((t) => keep.has(t.id)); splitSource = 'split_tasks.json'; }
  }
  const offset = o.offset ?? 0;
  const tasks = pool.slice(offset, o.limit === undefined ? undefined : offset + o.limit);
  if (domain.tasks.length === 0) problems.push('the domain has no tasks (tasks.json)');
  else if (!problems.length && tasks.length === 0) problems.push(`no tasks from offset ${offset} (split '${o.split}' has ${pool.length})`);
  if (problems.length) throw new SuiteInputError(problems);
  return { tasks, splitSource };
}

type Env = Tau2Environment<Tau2Store<any>>;
type Speaker = 'agent' | 'user';

interface Episode {
  task: Tau2Task;
  sample: number;
  env: Env;
  trajectory: Tau2Message[];
  next: Speaker;
  steps: number;
  errors: number;
  agentSteps: number;
  done: boolean;
  termination: TerminationReason;
  scripted?: ScriptedUser;
  callNames: Map<string, string>;
  calls: number;
  /** Messages the user simulator wrote in this episode. */
  userSpoke: number;
}

/** The agent's view of a τ² trajectory: our Message shape (tool messages named by their call). */
function agentConversation(ep: Episode): Message[] {
  const out: Message[] = [];
  for (const m of ep.trajectory) {
    if (m.role === 'system') continue;
    if (m.role === 'tool') { out.push({ role: 'tool', name: ep.callNames.get(m.id) ?? 'tool', content: m.content, error: m.error }); continue; }
    const calls = (m.tool_calls ?? []).map((c) => ({ name: c.name, arguments: (c.arguments ?? {}) as Record<string, unknown> }));
    if (m.role === 'user') { if (!calls.length) out.push({ role: 'user', content: m.content ?? '' }); continue; }
    out.push(calls.length ? { role: 'assistant', content: m.content ?? '', toolCalls: calls } : { role: 'assistant', content: m.content ?? '' });
  }
  return out;
}

/** The user's view: the agent's text as "user", its own messages as "assistant"; tool traffic is not shown. */
function userConversation(ep: Episode): Message[] {
  const out: Message[] = [];
  for (const m of ep.trajectory) {
    if ((m.role === 'assistant' || m.role === 'user') && !(m.tool_calls?.length) && typeof m.content === 'string' && m.content !== '') {
      out.push({ role: m.role === 'assistant' ? 'user' : 'assistant', content: m.content });
    }
  }
  return out;
}

function startEpisode(domain: Tau2Domain, task: Tau2Task, sample: number, user: Tau2User): Episode {
  const env = domain.makeEnv();
  env.setState(task.initial_state);
  const history = [...(task.initial_state?.message_history ?? [])];
  const ep: Episode = {
    task, sample, env, trajectory: history, next: 'user', steps: 0, errors: 0, agentSteps: 0, done: false, termination: 'user_stop',
    scripted: user.kind === 'scripted' ? new ScriptedUser(task) : undefined, callNames: new Map(), calls: 0, userSpoke: 0,
  };
  for (const m of history) if ((m.role === 'assistant' || m.role === 'user') && m.tool_calls) for (const c of m.tool_calls) ep.callNames.set(c.id ?? '', c.name);
  const last = history[history.length - 1];
  if (!last) ep.trajectory.push({ role: 'assistant', content: FIRST_AGENT_MESSAGE });
  else if (last.role === 'assistant' && !last.tool_calls?.length) ep.next = 'user';
  else ep.next = 'agent';
  return ep;
}

function finish(ep: Episode, why: TerminationReason): void { ep.done = true; ep.termination = why; }

function afterStep(ep: Episode, maxSteps: number, maxErrors: number): void {
  if (ep.done) return;
  if (ep.steps >= maxSteps) finish(ep, 'max_steps');
  else if (ep.errors >= maxErrors) finish(ep, 'too_many_errors');
}

function applyAgent(ep: Episode, text: string, overflow: boolean): void {
  ep.steps++;
  ep.agentSteps++;
  const d = decodeAct(text);
  if (overflow || d.kind === 'error') { finish(ep, 'agent_error'); return; }
  if (d.kind === 'reply') {
    if (d.content === '') { finish(ep, 'agent_error'); return; }
    ep.trajectory.push({ role: 'assistant', content: d.content });
    if (d.content.includes(STOP)) finish(ep, 'agent_stop');
    else ep.next = 'user';
    return;
  }
  // A message carries text or tool calls, never both (τ²'s rule): the calls are the message.
  const calls: Tau2ToolCall[] = d.calls.map((c, i) => ({ id: `call_${ep.agentSteps}_${i}`, name: c.function, arguments: c.kwargs, requestor: 'assistant' }));
  ep.trajectory.push({ role: 'assistant', content: null, tool_calls: calls });
  for (const c of calls) {
    ep.callNames.set(c.id!, c.name);
    const r = ep.env.getResponse(c);
    if (r.error) ep.errors++;
    ep.trajectory.push({ role: 'tool', id: c.id!, content: r.content, requestor: 'assistant', error: r.error });
  }
  ep.calls += calls.length;
  ep.steps++;   // the environment's answer
  ep.next = 'agent';
}

function applyUser(ep: Episode, text: string): void {
  ep.steps++;
  ep.userSpoke++;
  const content = stripThink(text).trim();
  if (content === '') { finish(ep, 'user_error'); return; }
  ep.trajectory.push({ role: 'user', content });
  if (isStopMessage(content)) finish(ep, 'user_stop');
  else ep.next = 'agent';
}

/** Runs every task × k samples; each round batches the agent turns of all episodes, then the user turns. */
export async function runTau2Suite(domain: Tau2Domain, agent: SuiteAgent, user: Tau2User, o: Tau2SuiteOptions): Promise<Tau2SuiteResult> {
  const t0 = performance.now();
  if (!Number.isInteger(o.k) || o.k < 1) throw new SuiteInputError([`k must be a positive integer (got ${o.k})`]);
  const maxSteps = o.maxSteps ?? TAU2_MAX_STEPS, maxErrors = o.maxErrors ?? TAU2_MAX_ERRORS;
  const { tasks, splitSource } = tau2Tasks(domain, o);
  const episodes: Episode[] = [];
  for (const t of tasks) for (let s = 0; s < o.k; s++) {
    try { episodes.push(startEpisode(domain, t, s, user)); } catch (e) {
      throw new SuiteInputError([`task ${t.id}: its initial state cannot be set: ${(e as Error).message}`]);
    }
  }
  const system = agentSystemPrompt(domain.policy);
  const tools = domain.makeEnv().tools();
  const gens = { agent: 0, user: 0 };
  let overflows = 0;
  const report = () => {
    o.onProgress?.(suiteProgress(t0, episodes.filter((e) => e.done).length, episodes.length, gens.agent + gens.user));
  };
  report();
  const window = Math.max(1, Math.floor(o.batch ?? SUITE_BATCH));
  for (;;) {
    const live = episodes.filter((e) => !e.done).slice(0, window);
    if (live.length === 0) break;
    await checkpoint(o.signal, o.yieldToEventLoop ?? true);
    const agents = live.filter((e) => e.next === 'agent');
    if (agents.length) {
      const reqs: AgentRequest[] = agents.map((ep) => ({
        system, tools, conversation: agentConversation(ep),
        seed: hashSeed('tau2-agent', o.seed, ep.task.id, ep.sample, ep.agentSteps),
        meta: { suite: 'tau2', task: ep.task.id, sample: ep.sample, step: ep.agentSteps },
      }));
      const outs = await agent.act(reqs);
      if (outs.length !== reqs.length) throw new Error(`agent ${agent.name} returned ${outs.length} outputs for ${reqs.length} requests`);
      gens.agent += outs.filter((x) => x.finishReason !== 'scripted').length;
      agents.forEach((ep, i) => {
        if (outs[i].finishReason === 'overflow') overflows++;
        applyAgent(ep, outs[i].text, outs[i].finishReason === 'overflow');
        afterStep(ep, maxSteps, maxErrors);
      });
    }
    const users = live.filter((e) => !e.done && e.next === 'user');
    if (users.length) {
      let texts: string[];
      if (user.kind === 'scripted') {
        texts = users.map((ep) => {
          // Its first message of the episode states the request (also after a task's message history).
          const last = [...ep.trajectory].reverse().find((m) => m.role === 'assistant' && typeof m.content === 'string' && m.content);
          return ep.userSpoke === 0 ? ep.scripted!.start().content : ep.scripted!.respond((last as { content?: string } | undefined)?.content ?? '').content;
        });
      } else {
        await checkpoint(o.signal, o.yieldToEventLoop ?? true);
        const outs = await generateFitted(user.generator, users.length, (i) => {
          const sys: Message = { role: 'system', content: userSystemPrompt(users[i].task) };
          const conv = userConversation(users[i]);
          // Fullest first; then old messages go (the first one stays).
          const variants = [conv];
          for (const h of [8, 4, 2]) if (conv.length > h + 1) variants.push([conv[0], ...conv.slice(-h)]);
          return variants.map((c) => user.format.render([sys, ...c], { addGenerationPrompt: true }));
        }, (i) => hashSeed('tau2-user', o.seed, users[i].task.id, users[i].sample, users[i].steps), { ...user, stop: user.format.stop });
        gens.user += outs.length;
        texts = outs.map((x) => x.text);
      }
      users.forEach((ep, i) => { applyUser(ep, texts[i]); afterStep(ep, maxSteps, maxErrors); });
    }
    report();
  }
  const results = tasks.map((task): Tau2TaskResult => {
    const eps = episodes.filter((e) => e.task === task);
    const infos = eps.map((ep) => evaluateTask(domain.makeEnv, task, ep.trajectory, ep.termination));
    const rewards = infos.map((r) => r.reward);
    return {
      task: task.id, samples: eps.length,
      reward: rewards.reduce((a, b) => a + b, 0) / Math.max(1, rewards.length), rewards,
      success: rewards.filter(isSuccessful).length / Math.max(1, rewards.length),
      terminations: eps.map((e) => e.termination), dbMatch: infos.map((r) => r.db_check?.db_match ?? null),
      steps: eps.map((e) => e.steps), messages: eps.map((e) => e.trajectory),
    };
  });
  return { tasks: results, splitSource, generations: gens, overflows, seconds: (performance.now() - t0) / 1000 };
}

/**
 * `--model ground-truth` for τ²: the task's gold actions (the assistant's), one call per step, then a reply that
 * states every communicate_info string. With the scripted user it checks the loop and the reward end to end.
 */
export function tau2GroundTruthAgent(domain: Tau2Domain): SuiteAgent {
  const byId = new Map(domain.tasks.map((t) => [t.id, t]));
  return {
    name: 'ground-truth',
    async act(reqs) {
      return reqs.map((r) => {
        const m = r.meta as { task: string; step: number };
        const t = byId.get(m.task);
        if (!t) throw new Error(`ground-truth policy: unknown task ${m.task}`);
        const actions = (t.evaluation_criteria?.actions ?? []).filter((a) => a.requestor !== 'user');
        if (m.step < actions.length) return { text: toolCallBlock(actions[m.step].name, actions[m.step].arguments), finishReason: 'scripted' as const };
        const info = t.evaluation_criteria?.communicate_info ?? [];
        return { text: info.length ? `Done. ${info.join('. ')}.` : 'Done.', finishReason: 'scripted' as const };
      });
    },
  };
}

// ---- the report ---------------------------------------------------------------------------------------------

export interface Tau2Report {
  suite: 'tau2';
  protocol: string;
  model: string;
  user: string;
  domain: string;
  split: string;
  split_source: Tau2SuiteResult['splitSource'];
  n_tasks: number;
  offset: number;
  k: number; temperature: number; top_p: number; seed: number;
  max_steps: number; max_errors: number;
  /** Avg@k reward (τ²'s score), bootstrap 95% interval over tasks. */
  reward: Estimate;
  /** Avg@k share of samples with reward 1. */
  success: Estimate;
  /** τ²'s pass^j for j = 1 … k (mean over tasks). */
  pass_hat_k: Record<string, number>;
  terminations: Record<string, number>;
  generations: { agent: number; user: number };
  overflows: number;
  seconds: number;
  bootstrap: { resamples: number; seed: number; level: number; over: 'tasks' };
  per_task?: Omit<Tau2TaskResult, 'messages'>[];
}

export function tau2Report(r: Tau2SuiteResult, meta: { model: string; user: string; domain: string; split: string; offset?: number; k: number; temperature: number; topP: number; seed: number; maxSteps?: number; maxErrors?: number; protocol: string },
  boot: { resamples: number; seed: number }, perTask = false): Tau2Report {
  const terminations: Record<string, number> = Object.create(null);
  for (const t of r.tasks) for (const x of t.terminations) terminations[x] = (terminations[x] ?? 0) + 1;
  const passHat: Record<string, number> = Object.create(null);
  for (let j = 1; j <= meta.k; j++) {
    const xs = r.tasks.map((t) => passHatKForTask(t.rewards.length, t.rewards.filter(isSuccessful).length, j));
    passHat[String(j)] = xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
  }
  return {
    suite: 'tau2', protocol: meta.protocol, model: meta.model, user: meta.user, domain: meta.domain, split: meta.split, split_source: r.splitSource,
    n_tasks: r.tasks.length, offset: meta.offset ?? 0, k: meta.k, temperature: meta.temperature, top_p: meta.topP, seed: meta.seed,
    max_steps: meta.maxSteps ?? TAU2_MAX_STEPS, max_errors: meta.maxErrors ?? TAU2_MAX_ERRORS,
    reward: bootstrap(r.tasks.map((t) => t.reward), boot),
    success: bootstrap(r.tasks.map((t) => t.success), boot),
    pass_hat_k: passHat, terminations, generations: r.generations, overflows: r.overflows,
    seconds: Number(r.seconds.toFixed(2)),
    bootstrap: { ...boot, level: 0.95, over: 'tasks' },
    ...(perTask ? { per_task: r.tasks.map(({ messages: _m, ...rest }) => rest) } : {}),
  };
}
