// Supervised examples for both roles from a task's reference conversation.
//
// The examples are produced by the rollout engine itself, driven by a teacher that answers every Act
// request with the expert's next assistant message and every Rehearse request with the real result the
// expert got. So an SFT prompt is byte-identical to the prompt the policy will see at inference time
// (same prompt builders, same history trimming, same context-fitting ladder): nothing can drift.

import type { GenerateRequest, Generation, TextGenerator } from '../engine/generator';
import type { Environment, Message, Task, ToolCall, ToolSchema } from '../envs/types';
import { compactFormat, stripStop } from './chatTemplate';
import { formatAct, formatRehearse, THINK_CLOSE, THINK_OPEN, toResultJson } from './protocol';
import { REHEARSE_MARKER } from './prompts';
import { rollout, type RolloutConfig } from './rollout';
import type { Role, Row, Trajectory } from './types';

export interface SftExample { taskId: string; role: Role; prompt: string; target: string }

interface Script { acts: string[]; results: string[]; act: number; result: number }

function scriptOf(task: Task): Script { return scriptOfMessages(task.reference as Message[]); }

function scriptOfMessages(messages: Message[]): Script {
  const acts: string[] = [];
  const results: string[] = [];
  for (const m of messages) {
    if (m.role === 'assistant') acts.push(m.toolCalls && m.toolCalls.length > 0 ? formatAct(undefined, m.toolCalls) : m.content);
    else if (m.role === 'tool') results.push(formatRehearse(undefined, m.content));
  }
  return { acts, results, act: 0, result: 0 };
}

/** Teacher-forcing generator for ONE trajectory: its requests arrive in conversation order. */
class Teacher implements TextGenerator {
  readonly name = 'teacher';
  private s: Script;
  constructor(task: Task, readonly maxContext: number, private count: (t: string) => number, script?: Script) { this.s = script ?? scriptOf(task); }
  countTokens(text: string): number { return this.count(text); }
  async generate(reqs: GenerateRequest[]): Promise<Generation[]> {
    return reqs.map((req) => {
      const s = this.s;
      const text = (req.prompt.includes(REHEARSE_MARKER) ? (s.results[s.result++] ?? '') : (s.acts[s.act++] ?? '')) + (req.stop[0] ?? '');
      return { text, promptIds: [], outputIds: [], logprobs: [], entropy: [], finishReason: 'stop' as const };
    });
  }
}

export interface SftOptions {
  /** Rollout settings (prompt options, limits, format); mode and policy are set here. */
  rollout?: Omit<RolloutConfig, 'mode' | 'policy' | 'simulator'>;
  maxContext?: number;
  countTokens?: (text: string) => number;
  /**
   * `npm run sft --think-state`: every Rehearse target opens with `<think>` this line of the state its call is made
   * from `</think>` (the world's `stateLine`, the task's environment replaying the calls answered before it). The
   * reference's simulator is asked to reason before it answers; this gives a small one the reasoning that decides a
   * state error (where the agent is, what that folder holds) as a target it writes just before the result.
   */
  stateLine?: (env: Environment, task: Task, call?: ToolCall) => string | undefined;
}

/** The SFT target of a row: its text up to the stop, with the state line first when `stateLine` is given. */
function targetsOf(task: Task, rows: Row[], opts: SftOptions): Map<Row, string> {
  const format = opts.rollout?.format ?? compactFormat;
  const out = new Map<Row, string>();
  const { stateLine } = opts;
  const env = stateLine && task.makeEnv();
  for (const r of rows) {
    const text = stripStop(r.text, format.stop) + (format.stop[0] ?? '');
    if (r.role !== 'rehearse' || !env || !stateLine) { out.set(r, text); continue; }
    const line = stateLine(env, task, r.call);
    out.set(r, line === undefined ? text : `${THINK_OPEN}${line}${THINK_CLOSE}${text}`);
    if (r.call) { try { env.call(r.call.name, r.call.arguments); } catch { /* the real episode got an error result too */ } }
  }
  return out;
}

export interface SftResult {
  examples: SftExample[];
  trajectories: Trajectory[];
  /** Tasks whose teacher-forced episode did not reach its last turn (e.g. a prompt did not fit). */
  incomplete: string[];
}

/** Teacher-forced rehearsal-mode rollouts of the reference conversations, one task at a time. */
export async function sftExamples(tasks: Task[], opts: SftOptions = {}): Promise<SftResult> {
  const examples: SftExample[] = [];
  const trajectories: Trajectory[] = [];
  const incomplete: string[] = [];
  for (const task of tasks) {
    const teacher = new Teacher(task, opts.maxContext ?? 1 << 20, opts.countTokens ?? ((s) => Math.ceil(s.length / 4)));
    const [tr] = await rollout([{ task, groupId: task.id }], {
      ...opts.rollout, mode: 'rehearsal', policy: teacher, keepPrompts: true, seed: 0,
      act: { ...opts.rollout?.act, temperature: 0 }, rehearse: { ...opts.rollout?.rehearse, temperature: 0 },
    });
    trajectories.push(tr);
    if (tr.terminatedBy !== 'final_turn') incomplete.push(tr.taskId);
    const targets = targetsOf(task, tr.rows, opts);
    for (const r of tr.rows) {
      if (r.prompt === undefined) continue;
      examples.push({ taskId: tr.taskId, role: r.role, prompt: r.prompt, target: targets.get(r)! });
    }
  }
  return { examples, trajectories, incomplete };
}

/**
 * How a reference call is broken for an error example: a tool the world does not have (TOOL_NOT_AVAILABLE), a
 * required argument left out or given the wrong type (INVALID_PARAMETERS), or a string argument replaced by a
 * name the world does not know (the tool's own domain error).
 */
export type CallCorruption = 'unknown-tool' | 'missing-argument' | 'wrong-type' | 'unknown-value' | 'hidden-tool' | 'renamed-argument';
export const CALL_CORRUPTIONS: readonly CallCorruption[] = ['unknown-tool', 'missing-argument', 'wrong-type', 'unknown-value'];
/**
 * The validation errors a sampled policy makes (`--validation-share`), read off the simulator gate's misses: a tool the
 * world has but this task does not offer (`tail`, `touch` where the list lacks them; the made-up names of
 * 'unknown-tool' are decided by their form alone), and an argument under a wrong name (`rm {"name": …}` for
 * `rm(file_name)`). Only the prompt's tool list and signature decide them.
 */
export const VALIDATION_CORRUPTIONS: readonly CallCorruption[] = ['hidden-tool', 'renamed-argument', 'missing-argument', 'wrong-type'];

/**
 * A broken copy of a call, or null when this corruption does not apply to it (e.g. no required argument).
 * `worldTools`: every tool name the world has ('hidden-tool' draws from those the task does not offer).
 */
export function corruptCall(call: ToolCall, tools: ToolSchema[], how: CallCorruption, pick: (n: number) => number, worldTools: string[] = []): ToolCall | null {
  const tool = tools.find((t) => t.name === call.name);
  const args = { ...call.arguments };
  const required = (Array.isArray(tool?.parameters?.required) ? tool!.parameters.required : []).filter((k) => k in args);
  const strings = Object.keys(args).filter((k) => typeof args[k] === 'string');
  const syllables = ['ka', 'lo', 'mi', 'ne', 'ru', 'ti', 'vo', 'ze'];
  const word = () => Array.from({ length: 3 }, () => syllables[pick(syllables.length)]).join('');
  switch (how) {
    case 'unknown-tool': {
      const names = new Set(tools.map((t) => t.name));
      let name = `${call.name.split('_')[0]}_${word()}`;
      while (names.has(name)) name += 'x';
      return { name, arguments: args };
    }
    case 'missing-argument': {
      if (required.length === 0) return null;
      delete args[required[pick(required.length)]];
      return { name: call.name, arguments: args };
    }
    case 'wrong-type': {
      const k = [...strings, ...required].find((x) => typeof args[x] === 'string') ?? Object.keys(args).find((x) => typeof args[x] !== 'object');
      if (k === undefined) return null;
      args[k] = typeof args[k] === 'string' ? 1000 + pick(9000) : word();
      return { name: call.name, arguments: args };
    }
    case 'hidden-tool': {
      const offered = new Set(tools.map((t) => t.name));
      const hidden = worldTools.filter((n) => !offered.has(n));
      return hidden.length ? { name: hidden[pick(hidden.length)], arguments: args } : null;
    }
    case 'renamed-argument': {
      if (required.length === 0) return null;
      const key = required[pick(required.length)];
      const known = new Set(Object.keys((tool?.parameters?.properties ?? {}) as object));
      const names = ['name', 'path', `${key}_name`, key.split('_')[0], `${key}s`].filter((n) => n !== key && !known.has(n) && !(n in args));
      if (names.length === 0) return null;
      const value = args[key];
      delete args[key];
      args[names[pick(names.length)]] = value;
      return { name: call.name, arguments: args };
    }
    case 'unknown-value': {
      if (strings.length === 0) return null;
      const k = strings[pick(strings.length)];
      args[k] = word();
      return { name: call.name, arguments: args };
    }
  }
}

/** The environment refused the call: its flag, or an error-shaped text (some tools answer errors unflagged). */
const rejected = (obs: { text: string; error?: boolean }) => obs.error || /^\s*(\{\s*"error|error\b)/i.test(obs.text);

/** The n-th Rehearse row of the teacher-forced rollout of `script` (its prompt is the one inference would build). */
async function scriptedRehearseRow(task: Task, script: Script, n: number, opts: SftOptions) {
  const teacher = new Teacher(task, opts.maxContext ?? 1 << 20, opts.countTokens ?? ((s) => Math.ceil(s.length / 4)), script);
  const [tr] = await rollout([{ task, groupId: task.id }], {
    ...opts.rollout, mode: 'rehearsal', policy: teacher, keepPrompts: true, seed: 0,
    act: { ...opts.rollout?.act, temperature: 0 }, rehearse: { ...opts.rollout?.rehearse, temperature: 0 },
  });
  const row = tr.rows.filter((r) => r.role === 'rehearse')[n];
  return row && { ...row, target: targetsOf(task, tr.rows, opts).get(row)! };
}

/**
 * The Rehearse row of the reference with its k-th call replaced: the teacher answers every earlier Rehearse request
 * with its real result and this one with `result` (the real environment's answer to the replacement).
 */
async function replacedCallRow(task: Task, k: number, replacement: ToolCall, result: string, opts: SftOptions) {
  const script = scriptOf(task);
  let seen = 0;
  script.acts = (task.reference as Message[]).filter((m) => m.role === 'assistant').map((m) => {
    if (!m.toolCalls?.length) return m.content;
    return formatAct(undefined, m.toolCalls.map((c) => (seen++ === k ? replacement : c)));
  });
  script.results = [...script.results.slice(0, k), formatRehearse(undefined, toResultJson(result))];
  return scriptedRehearseRow(task, script, k, opts);
}

/**
 * Rehearse rows for broken calls, so a starter learns what the real environment answers to a call it rejects
 * (SFT data is otherwise all valid expert calls, and a Rehearse role that never saw an error invents a success).
 * For each task one reference call is broken (`pick` decides which and how); the teacher replays the reference up
 * to it, Act emits the broken call, and the Rehearse target is the real environment's answer to it after the
 * reference calls before it. Only that Rehearse row is kept: Act is never taught to make the broken call. Tasks
 * where the chosen corruption leaves the call valid (the environment accepts it) give no row.
 */
export async function sftErrorExamples(tasks: Task[], pick: (n: number) => number, opts: SftOptions = {}, kinds: readonly CallCorruption[] = CALL_CORRUPTIONS): Promise<SftExample[]> {
  const out: SftExample[] = [];
  for (const task of tasks) {
    const ref = task.reference as Message[];
    const calls = ref.flatMap((m) => (m.role === 'assistant' ? m.toolCalls ?? [] : []));
    if (calls.length === 0) continue;
    const k = pick(calls.length);
    const env = task.makeEnv();
    const tools = env.tools();
    const inner = (env as { unwrap?: () => Environment }).unwrap?.();
    const worldTools = kinds.includes('hidden-tool') && inner ? inner.tools().map((t) => t.name) : [];
    const broken = corruptCall(calls[k], tools, kinds[pick(kinds.length)], pick, worldTools);
    if (!broken) continue;
    for (let i = 0; i < k; i++) env.call(calls[i].name, calls[i].arguments);
    let obs;
    try { obs = env.call(broken.name, broken.arguments); } catch { continue; }
    if (!rejected(obs)) continue;
    const row = await replacedCallRow(task, k, broken, obs.text, opts);
    if (!row?.prompt || row.call?.name !== broken.name) continue;
    out.push({ taskId: task.id, role: 'rehearse', prompt: row.prompt, target: row.target });
  }
  return out;
}

/**
 * Rehearse rows for a call made twice: the expert's call repeated right after the message that made it, with the
 * real environment's answer to the repeat as target, where that answer is an error (a `cd` into a folder the first
 * call already entered, an `mv` or `rm` of a file the first call already moved). A hint with the same call and a
 * success is then in the prompt, and so is the first call's result in the history: the result of a call depends on
 * the state, not on its arguments alone. Sampled policies do this often (the simulator gate's main miss on files);
 * the expert never does, so `sftExamples` alone teaches Rehearse to copy the hint. Only that Rehearse row is kept.
 */
export async function sftRepeatErrorExamples(tasks: Task[], pick: (n: number) => number, opts: SftOptions = {}): Promise<SftExample[]> {
  const out: SftExample[] = [];
  for (const task of tasks) {
    const ref = task.reference as Message[];
    const assistant = ref.filter((m) => m.role === 'assistant');
    // Calls in order, each with the index of the assistant message that made it.
    const calls = assistant.flatMap((m, mi) => (m.toolCalls ?? []).map((c) => ({ c, mi })));
    if (calls.length === 0) continue;
    // The repeat follows the whole message, so the environment first runs every call of it.
    const repeatFails = (k: number) => {
      const env = task.makeEnv();
      let last = k;
      while (last + 1 < calls.length && calls[last + 1].mi === calls[k].mi) last++;
      for (let i = 0; i <= last; i++) env.call(calls[i].c.name, calls[i].c.arguments);
      let obs;
      try { obs = env.call(calls[k].c.name, calls[k].c.arguments); } catch { return null; }
      return rejected(obs) ? { k, obs, last } : null;
    };
    const candidates = calls.map((_, k) => repeatFails(k)).filter((x) => x !== null);
    if (candidates.length === 0) continue;
    const { k, obs, last } = candidates[pick(candidates.length)]!;
    const script = scriptOf(task);
    const mi = calls[k].mi;
    script.acts = [...script.acts.slice(0, mi + 1), formatAct(undefined, [calls[k].c]), ...script.acts.slice(mi + 1)];
    script.results = [...script.results.slice(0, last + 1), formatRehearse(undefined, toResultJson(obs.text))];
    const row = await scriptedRehearseRow(task, script, last + 1, opts);
    if (!row?.prompt || row.call?.name !== calls[k].c.name || JSON.stringify(row.call.arguments) !== JSON.stringify(calls[k].c.arguments)) continue;
    out.push({ taskId: task.id, role: 'rehearse', prompt: row.prompt, target: row.target });
  }
  return out;
}

/**
 * Rehearse rows for a name used in the wrong place: one reference call with a string argument swapped for another
 * string the task's reference uses elsewhere (`cat notes.txt` → `cat plan.md`, where plan.md lives in another
 * folder), kept where the real environment, after the reference calls before it, rejects it. This is the sampled
 * policy's commonest first error (a name it has seen, from a state where it does not apply); the expert never makes
 * it, and `--error-share`'s invented names are decidable without reading the state. Only that Rehearse row is kept.
 * `accepted` (`--swap-accepted`): that share of the rows takes, where one exists, a swap the environment accepts
 * instead (another name that is there, with its real result), so a swapped name is not itself the sign of an error
 * and only the state tells the two apart (the same balance as the drill's `--line-present`). `rows` (`--swap-rows`):
 * that many distinct swaps per task, each drawn as above; packed, they share the conversation's prompt up to their
 * call (four a conversation cost ~20% more CPU per step than one at `files-lines`).
 */
export async function sftSwapErrorExamples(tasks: Task[], pick: (n: number) => number, opts: SftOptions = {}, accepted = 0, rows = 1): Promise<SftExample[]> {
  const out: SftExample[] = [];
  for (const task of tasks) {
    const ref = task.reference as Message[];
    const calls = ref.flatMap((m) => (m.role === 'assistant' ? m.toolCalls ?? [] : []));
    const names = [...new Set(calls.flatMap((c) => Object.values(c.arguments).filter((v): v is string => typeof v === 'string' && v !== '..')))];
    // Every (call, argument, other name) swap the environment rejects at that point of the reference.
    const candidates: { k: number; broken: ToolCall; obs: { text: string; error: boolean } }[] = [];
    const acceptedSwaps: typeof candidates = [];
    calls.forEach((c, k) => {
      for (const [key, v] of Object.entries(c.arguments)) {
        if (typeof v !== 'string') continue;
        for (const other of names) {
          if (other === v) continue;
          const broken = { name: c.name, arguments: { ...c.arguments, [key]: other } };
          const env = task.makeEnv();
          for (let i = 0; i < k; i++) env.call(calls[i].name, calls[i].arguments);
          let obs;
          try { obs = env.call(broken.name, broken.arguments); } catch { continue; }
          if (rejected(obs)) candidates.push({ k, broken, obs });
          else if (accepted > 0) acceptedSwaps.push({ k, broken, obs });
        }
      }
    });
    const taken = new Set<(typeof candidates)[number]>();
    for (let r = 0; r < rows; r++) {
      // No draw at accepted 0: earlier runs' rows stay as they were (and at rows 1 the same draws as before).
      const pool = (accepted > 0 && acceptedSwaps.length > 0 && pick(1 << 20) < accepted * (1 << 20) ? acceptedSwaps : candidates).filter((x) => !taken.has(x));
      if (pool.length === 0) continue;
      const chosen = pool[pick(pool.length)];
      taken.add(chosen);
      const { k, broken, obs } = chosen;
      const row = await replacedCallRow(task, k, broken, obs.text, opts);
      if (!row?.prompt || row.call?.name !== broken.name || JSON.stringify(row.call.arguments) !== JSON.stringify(broken.arguments)) continue;
      out.push({ taskId: task.id, role: 'rehearse', prompt: row.prompt, target: row.target });
    }
  }
  return out;
}

export interface ExperienceResult {
  examples: SftExample[];
  /** Episodes whose replay reproduced the real conversation message for message (their rows are kept). */
  replayed: number;
  /** Episodes whose replay did not (a limit or a parse that differs): left out whole. */
  diverged: string[];
}

/**
 * Rehearse rows from the policy's own episodes in the real environment: every call it made, with the real result as
 * the target. Expert conversations only ever show calls that succeed, whose matching hint is in the prompt, so a
 * simulator trained on them alone learns to copy hints; here it sees what tools answer to calls off the expert's path
 * (on files about a third are errors) — what the reference's simulator knows from pretraining. Each episode is
 * replayed teacher-forced in rehearsal mode: Act replays the policy's raw outputs, Rehearse answers with the real
 * results, so every prompt is byte for byte the one the Rehearse role sees at that point (hints from the task's
 * reference, as in training). Only Rehearse rows are kept: Act is never taught its own sampled actions.
 */
export async function sftExperienceExamples(episodes: { task: Task; trajectory: Trajectory }[], opts: SftOptions = {}): Promise<ExperienceResult> {
  const format = opts.rollout?.format ?? compactFormat;
  const examples: SftExample[] = [];
  const diverged: string[] = [];
  let replayed = 0;
  for (const { task, trajectory } of episodes) {
    const script = scriptOfMessages(trajectory.messages);
    script.acts = trajectory.rows.filter((r) => r.role === 'act').map((r) => stripStop(r.text, format.stop));
    const teacher = new Teacher(task, opts.maxContext ?? 1 << 20, opts.countTokens ?? ((s) => Math.ceil(s.length / 4)), script);
    const [tr] = await rollout([{ task, groupId: task.id }], {
      ...opts.rollout, mode: 'rehearsal', policy: teacher, keepPrompts: true, seed: 0, shadow: false,
      act: { ...opts.rollout?.act, temperature: 0 }, rehearse: { ...opts.rollout?.rehearse, temperature: 0 },
    });
    if (!sameConversation(tr.messages, trajectory.messages)) { diverged.push(`${trajectory.taskId}#${trajectory.seed}`); continue; }
    replayed++;
    const targets = targetsOf(task, tr.rows, opts);
    for (const r of tr.rows) {
      if (r.role !== 'rehearse' || r.prompt === undefined) continue;
      examples.push({ taskId: `${trajectory.taskId}#${trajectory.seed}`, role: 'rehearse', prompt: r.prompt, target: targets.get(r)! });
    }
  }
  return { examples, replayed, diverged };
}

function sameConversation(a: Message[], b: Message[]): boolean {
  if (a.length !== b.length) return false;
  const calls = (m: Message) => JSON.stringify(m.role === 'assistant' ? m.toolCalls ?? [] : []);
  return a.every((m, i) => m.role === b[i].role && m.content === b[i].content && calls(m) === calls(b[i]));
}
