// VitaBench (delivery, in-store) as a benchmark suite: VitaBench's orchestration around a policy (the agent),
// a user simulator and a judge, each played by a model given, scored by the port's evaluator (the judge's
// sliding windows over the conversation, reward 1 iff every rubric is met). Browser-safe: data comes in built.
//
// The conversation (VitaBench orchestrator, read from the public source; our words and code): the task's DB is
// built fresh; the agent opens with the fixed "Hello, how can I help you?", addressed to the user. The agent's
// output is text for the user or tool calls; every call runs on the environment and its result goes back to
// the agent. The user sees the conversation with roles flipped and never sees tool traffic. Every hop (agent
// message, user message, the environment's answer) is a step. It ends when the user's message carries
// ###STOP###, ###TRANSFER### or ###OUT-OF-SCOPE### (user_stop), the agent's carries ###STOP### (agent_stop), the
// agent gives no usable message three times in a row (invalid_agent_message), or after maxSteps steps
// (max_steps, default 300). The last two score 0 without a judge, as in VitaBench.

import { hashSeed } from '../../agent/rollout-config';
import { stripThink } from '../../agent/protocol';
import type { ChatFormat } from '../../agent/chatTemplate';
import type { TextGenerator } from '../../engine/generator';
import { pyJsonDumps, pyRepr } from '../../envs/python';
import type { VitaData, VitaTask } from '../../envs/vitabench/data';
import { VitaEnv } from '../../envs/vitabench/env';
import { evaluateTrajectory, isSuccessful, passHatK, pyFormat, type TerminationReason, type VitaJudge, type VitaMessage, type VitaRewardInfo } from '../../envs/vitabench/evaluator';
import { weekdayName } from '../../envs/vitabench/pytime';
import type { Message, ToolSchema } from '../../envs/types';
import { bootstrap, type Estimate } from '../stats';
import { checkpoint, decodeAct, generateFitted, SUITE_BATCH, suiteProgress, SuiteInputError, type AgentRequest, type Sampling, type SuiteAgent, type SuiteProgress } from './agent';

export const VITA_FIRST_AGENT_MESSAGE = 'Hello, how can I help you?';
export const VITA_MAX_STEPS = 300;
const USER_STOPS = ['###STOP###', '###TRANSFER###', '###OUT-OF-SCOPE###'];
const AGENT_STOP = '###STOP###';
const AGENT_RETRIES = 3;

/** A model playing the user simulator or the judge. */
export interface VitaModelRole extends Sampling { name: string; generator: TextGenerator; format: ChatFormat; maxNewTokens: number }

export interface VitaSuiteOptions {
  k: number;
  seed: number;
  offset?: number;
  limit?: number;
  maxSteps?: number;
  batch?: number;
  signal?: AbortSignal;
  yieldToEventLoop?: boolean;
  onProgress?: (p: SuiteProgress) => void;
}

export interface VitaTaskResult {
  task: string;
  samples: number;
  /** Per sample: the reward, or null when the sample needed a judge and none was given. */
  rewards: (number | null)[];
  /** Per sample: the fraction of rubrics met (reward_breakdown.NL_ASSERTION), null when not judged. */
  rubric_fraction: (number | null)[];
  terminations: TerminationReason[];
  steps: number[];
  tool_calls: number[];
  /** Judge windows whose reply could not be parsed (the reference keeps the states then). */
  unparsed_windows: number[];
  messages?: VitaMessage[][];
}

export interface VitaSuiteResult {
  tasks: VitaTaskResult[];
  judged: boolean;
  generations: { agent: number; user: number; judge: number };
  overflows: number;
  seconds: number;
}

/** The agent's system text: agent_system_prompt with "<db.time> <Weekday>". */
export function vitaAgentSystemPrompt(data: VitaData, task: VitaTask): string {
  const t = (task.environment as Record<string, unknown>).time;
  return pyFormat(data.prompts.agent, { time: typeof t === 'string' ? `${t} ${weekdayName(t)}` : '' });
}

/** The user simulator's system text: persona = str(user_profile), instructions = task.instructions. */
export function vitaUserSystemPrompt(data: VitaData, task: VitaTask): string {
  return pyFormat(data.prompts.user, { persona: pyRepr(task.user_profile), instructions: task.instructions });
}

export const vitaToolSchemas = (data: VitaData): ToolSchema[] =>
  data.tools.map((t) => ({ name: t.function.name, description: t.function.description, parameters: t.function.parameters as ToolSchema['parameters'] }));

interface Episode {
  task: VitaTask;
  sample: number;
  env: VitaEnv;
  trajectory: VitaMessage[];
  next: 'agent' | 'user';
  steps: number;
  agentSteps: number;
  retries: number;
  calls: number;
  done: boolean;
  termination: TerminationReason;
}

function agentConversation(ep: Episode): Message[] {
  const names = new Map<string, string>();
  const out: Message[] = [];
  for (const m of ep.trajectory) {
    if (m.role === 'tool') { out.push({ role: 'tool', name: names.get(m.id) ?? m.name ?? 'tool', content: m.content, error: m.error }); continue; }
    if (m.role === 'user') { out.push({ role: 'user', content: m.content ?? '' }); continue; }
    const calls = (m.tool_calls ?? []).map((c) => { names.set(c.id, c.name); return { name: c.name, arguments: (c.arguments ?? {}) as Record<string, unknown> }; });
    out.push(calls.length ? { role: 'assistant', content: m.content ?? '', toolCalls: calls } : { role: 'assistant', content: m.content ?? '' });
  }
  return out;
}

function userConversation(ep: Episode): Message[] {
  const out: Message[] = [];
  for (const m of ep.trajectory) {
    if (m.role === 'tool' || !m.content) continue;
    out.push({ role: m.role === 'assistant' ? 'user' : 'assistant', content: m.content });
  }
  return out;
}

function finish(ep: Episode, why: TerminationReason): void { ep.done = true; ep.termination = why; }

function applyAgent(ep: Episode, text: string, overflow: boolean): void {
  const d = overflow ? null : decodeAct(text);
  const usable = d !== null && d.kind !== 'error' && (d.kind === 'calls' ? d.calls.length > 0 : d.content !== '');
  if (!usable) {
    // VitaBench regenerates an empty agent message up to three times, then ends the run.
    ep.retries++;
    if (ep.retries >= AGENT_RETRIES) { ep.steps++; finish(ep, 'invalid_agent_message'); }
    return;
  }
  ep.retries = 0;
  ep.steps++;
  ep.agentSteps++;
  if (d.kind === 'reply') {
    ep.trajectory.push({ role: 'assistant', content: d.content });
    if (d.content.includes(AGENT_STOP)) finish(ep, 'agent_stop');
    else ep.next = 'user';
    return;
  }
  const calls = d.calls.map((c, i) => ({ id: `call_${ep.agentSteps}_${i}`, name: c.function, arguments: c.kwargs as unknown }));
  const content = d.content.trim();
  ep.trajectory.push({ role: 'assistant', content: content || null, tool_calls: calls });
  if (content.includes(AGENT_STOP)) { finish(ep, 'agent_stop'); return; }
  for (const c of calls) {
    const r = ep.env.call({ id: c.id, name: c.name, arguments: c.arguments });
    ep.trajectory.push({ role: 'tool', id: c.id, name: c.name, content: r.message.content, error: r.message.error });
  }
  ep.calls += calls.length;
  ep.steps++;
  ep.next = 'agent';
}

function applyUser(ep: Episode, text: string): void {
  ep.steps++;
  const content = stripThink(text).trim();
  ep.trajectory.push({ role: 'user', content });
  if (USER_STOPS.some((s) => content.includes(s))) finish(ep, 'user_stop');
  else ep.next = 'agent';
}

export function vitaTasks(data: VitaData, o: Pick<VitaSuiteOptions, 'offset' | 'limit'>): VitaTask[] {
  const offset = o.offset ?? 0;
  const tasks = data.tasks.slice(offset, o.limit === undefined ? undefined : offset + o.limit);
  if (!tasks.length) throw new SuiteInputError([`no ${data.domain} tasks from offset ${offset} (there are ${data.tasks.length})`]);
  return tasks;
}

/** A model as VitaBench's judge: the window's system and user prompts in its chat format, one reply. */
export function modelJudge(judge: VitaModelRole, seedOf: (windowIdx: number) => number, count: () => void): VitaJudge {
  return async (w) => {
    const [out] = await generateFitted(judge.generator, 1, () => [judge.format.render([
      { role: 'system', content: w.system_prompt }, { role: 'user', content: w.user_prompt },
    ], { addGenerationPrompt: true })], () => seedOf(w.window_idx), { ...judge, stop: judge.format.stop });
    count();
    return out.finishReason === 'overflow' ? null : stripThink(out.text);
  };
}

/** Runs every task × k samples; each round batches the agent turns of all live episodes, then the user turns. */
export async function runVitaSuite(data: VitaData, agent: SuiteAgent, user: VitaModelRole, judge: VitaModelRole | null, o: VitaSuiteOptions): Promise<VitaSuiteResult> {
  const t0 = performance.now();
  if (!Number.isInteger(o.k) || o.k < 1) throw new SuiteInputError([`k must be a positive integer (got ${o.k})`]);
  const maxSteps = o.maxSteps ?? VITA_MAX_STEPS;
  const tasks = vitaTasks(data, o);
  const episodes: Episode[] = [];
  for (const task of tasks) for (let s = 0; s < o.k; s++) {
    let env: VitaEnv;
    try { env = new VitaEnv(data.domain, task.environment, data.holidays); } catch (e) {
      throw new SuiteInputError([`task ${task.id}: its database cannot be built: ${(e as Error).message}`]);
    }
    episodes.push({ task, sample: s, env, trajectory: [{ role: 'assistant', content: VITA_FIRST_AGENT_MESSAGE }], next: 'user', steps: 0, agentSteps: 0, retries: 0, calls: 0, done: false, termination: 'user_stop' });
  }
  const tools = vitaToolSchemas(data);
  const gens = { agent: 0, user: 0, judge: 0 };
  let overflows = 0;
  const report = () => o.onProgress?.(suiteProgress(t0, episodes.filter((e) => e.done).length, episodes.length, gens.agent + gens.user + gens.judge));
  report();
  const window = Math.max(1, Math.floor(o.batch ?? SUITE_BATCH));
  const afterStep = (ep: Episode) => { if (!ep.done && ep.steps >= maxSteps) finish(ep, 'max_steps'); };
  for (;;) {
    const live = episodes.filter((e) => !e.done).slice(0, window);
    if (!live.length) break;
    await checkpoint(o.signal, o.yieldToEventLoop ?? true);
    const agents = live.filter((e) => e.next === 'agent');
    if (agents.length) {
      const reqs: AgentRequest[] = agents.map((ep) => ({
        system: vitaAgentSystemPrompt(data, ep.task), tools, conversation: agentConversation(ep),
        seed: hashSeed('vita-agent', o.seed, ep.task.id, ep.sample, ep.agentSteps, ep.retries),
        meta: { suite: 'vita', task: ep.task.id, sample: ep.sample, step: ep.agentSteps },
      }));
      const outs = await agent.act(reqs);
      if (outs.length !== reqs.length) throw new Error(`agent ${agent.name} returned ${outs.length} outputs for ${reqs.length} requests`);
      gens.agent += outs.filter((x) => x.finishReason !== 'scripted').length;
      agents.forEach((ep, i) => {
        if (outs[i].finishReason === 'overflow') overflows++;
        applyAgent(ep, outs[i].text, outs[i].finishReason === 'overflow');
        afterStep(ep);
      });
    }
    const users = live.filter((e) => !e.done && e.next === 'user');
    if (users.length) {
      await checkpoint(o.signal, o.yieldToEventLoop ?? true);
      const outs = await generateFitted(user.generator, users.length, (i) => {
        const sys: Message = { role: 'system', content: vitaUserSystemPrompt(data, users[i].task) };
        const conv = userConversation(users[i]);
        const variants = [conv];
        for (const h of [8, 4, 2]) if (conv.length > h + 1) variants.push([conv[0], ...conv.slice(-h)]);
        return variants.map((c) => user.format.render([sys, ...c], { addGenerationPrompt: true }));
      }, (i) => hashSeed('vita-user', o.seed, users[i].task.id, users[i].sample, users[i].steps), { ...user, stop: user.format.stop });
      gens.user += outs.length;
      users.forEach((ep, i) => { applyUser(ep, outs[i].text); afterStep(ep); });
    }
    report();
  }
  const results: VitaTaskResult[] = [];
  for (const task of tasks) {
    const eps = episodes.filter((e) => e.task === task);
    const infos: (VitaRewardInfo | null)[] = [];
    const unparsed: number[] = [];
    for (const ep of eps) {
      let bad = 0;
      const shortCircuit = ep.termination === 'max_steps' || ep.termination === 'invalid_agent_message';
      if (!judge && !shortCircuit) { infos.push(null); unparsed.push(0); continue; }
      const j: VitaJudge = judge
        ? modelJudge(judge, (w) => hashSeed('vita-judge', o.seed, task.id, ep.sample, w), () => { gens.judge++; })
        : () => null;
      infos.push(await evaluateTrajectory(task, ep.trajectory, data.prompts.judge, j, ep.termination, (_w, _r, parsed) => { if (!parsed) bad++; }));
      unparsed.push(bad);
      report();
    }
    results.push({
      task: task.id, samples: eps.length, rewards: infos.map((r) => r?.reward ?? null),
      rubric_fraction: infos.map((r) => (r ? r.reward_breakdown?.NL_ASSERTION ?? (r.reward === 1 ? 1 : 0) : null)),
      terminations: eps.map((e) => e.termination), steps: eps.map((e) => e.steps), tool_calls: eps.map((e) => e.calls),
      unparsed_windows: unparsed, messages: eps.map((e) => e.trajectory),
    });
  }
  return { tasks: results, judged: judge !== null, generations: gens, overflows, seconds: (performance.now() - t0) / 1000 };
}

/** One message of a conversation as plain text (structured-clone safe: tool arguments keep Python's JSON). */
export interface VitaTranscriptLine { role: 'assistant' | 'user' | 'tool'; text: string; error?: boolean }

/** A trajectory for display and comparison: tool calls as `name({...})`, tool results with their error flag. */
export function vitaTranscript(messages: readonly VitaMessage[]): VitaTranscriptLine[] {
  return messages.map((m) => {
    if (m.role === 'tool') return { role: 'tool', text: m.content, ...(m.error ? { error: true } : {}) };
    const calls = m.role === 'assistant' ? (m.tool_calls ?? []).map((c) => `${c.name}(${pyJsonDumps(c.arguments ?? {}, { ensureAscii: false })})`) : [];
    return { role: m.role, text: [m.content ?? '', ...calls].filter((x) => x !== '').join('\n') };
  });
}

// ---- the report ---------------------------------------------------------------------------------------------

export const NOT_JUDGED = 'not judged';

export interface VitaReport {
  suite: 'vita';
  protocol: string;
  domain: string;
  model: string;
  user_model: string;
  judge_model: string | null;
  n_tasks: number;
  offset: number;
  k: number; temperature: number; top_p: number; seed: number;
  max_steps: number;
  /** Avg@k share of samples with reward 1 (VitaBench's success), bootstrap 95% interval over tasks; "not judged" without a judge. */
  success: Estimate | typeof NOT_JUDGED;
  /** Avg@k fraction of rubrics met (reward_breakdown.NL_ASSERTION). */
  rubric_fraction: Estimate | typeof NOT_JUDGED;
  /** pass^j for j = 1 … k (mean over tasks, C(c,j)/C(n,j)). */
  pass_hat_k: Record<string, number> | typeof NOT_JUDGED;
  terminations: Record<string, number>;
  tool_calls: number;
  unparsed_judge_windows: number;
  generations: { agent: number; user: number; judge: number };
  overflows: number;
  seconds: number;
  bootstrap: { resamples: number; seed: number; level: number; over: 'tasks' };
  per_task?: Omit<VitaTaskResult, 'messages'>[];
}

export function vitaReport(r: VitaSuiteResult, meta: { domain: string; model: string; userModel: string; judgeModel: string | null; offset?: number; k: number; temperature: number; topP: number; seed: number; maxSteps?: number; protocol: string },
  boot: { resamples: number; seed: number }, perTask = false): VitaReport {
  const terminations: Record<string, number> = Object.create(null);
  for (const t of r.tasks) for (const x of t.terminations) terminations[x] = (terminations[x] ?? 0) + 1;
  const judged = r.judged;
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
  let passHat: VitaReport['pass_hat_k'] = NOT_JUDGED;
  if (judged) {
    passHat = Object.create(null) as Record<string, number>;
    for (let j = 1; j <= meta.k; j++) passHat[String(j)] = mean(r.tasks.map((t) => passHatK(t.rewards.length, t.rewards.filter((x) => x !== null && isSuccessful(x)).length, j)));
  }
  return {
    suite: 'vita', protocol: meta.protocol, domain: meta.domain, model: meta.model, user_model: meta.userModel, judge_model: meta.judgeModel,
    n_tasks: r.tasks.length, offset: meta.offset ?? 0, k: meta.k, temperature: meta.temperature, top_p: meta.topP, seed: meta.seed,
    max_steps: meta.maxSteps ?? VITA_MAX_STEPS,
    success: judged ? bootstrap(r.tasks.map((t) => mean(t.rewards.map((x) => (x !== null && isSuccessful(x) ? 1 : 0)))), boot) : NOT_JUDGED,
    rubric_fraction: judged ? bootstrap(r.tasks.map((t) => mean(t.rubric_fraction.map((x) => x ?? 0))), boot) : NOT_JUDGED,
    pass_hat_k: passHat, terminations,
    tool_calls: r.tasks.reduce((a, t) => a + t.tool_calls.reduce((x, y) => x + y, 0), 0),
    unparsed_judge_windows: r.tasks.reduce((a, t) => a + t.unparsed_windows.reduce((x, y) => x + y, 0), 0),
    generations: r.generations, overflows: r.overflows, seconds: Number(r.seconds.toFixed(2)),
    bootstrap: { ...boot, level: 0.95, over: 'tasks' },
    ...(perTask ? { per_task: r.tasks.map(({ messages: _m, ...rest }) => rest) } : {}),
  };
}
