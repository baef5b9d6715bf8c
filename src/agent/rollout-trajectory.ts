// One trajectory of a rollout as a small state machine. rollout.ts drives many of these together: each round
// it asks every trajectory for its next generation requests, sends them all in one batch, and hands each
// generation back to the step that asked for it. Everything here touches one trajectory only, so a
// trajectory is the same whatever else is in the batch.
//
// States (TrajectoryState.at) and transitions:
//
//   awaiting-act ── the next generation is an Act output (actRequest; caps and context checked first)
//     applyAct: parse failed ─────────────▶ awaiting-act (the error is shown) | done 'parse_error'
//               a reply ──────────────────▶ judged turn (endUserTurn)
//               tool calls ───────────────▶ awaiting-results (left in the same step when no call needs a
//                                           Rehearse generation: mode 'real', or all calls in the real budget)
//   awaiting-results ── results for every call of that Act output: real ones (mode 'real', or the
//     real-environment budget's share) are executed, imagined ones need one Rehearse generation each
//     (rehearseRequests / applyRehearse); once all are in, showResults:
//                                       ──▶ awaiting-act | done 'parse_error' / 'tool_error'
//   judged turn ── the checklist judge scores the user turn (endUserTurn):
//                                       ──▶ done 'required_item_failed' | next user turn (awaiting-act) |
//                                           done 'final_turn' / 'turn_cap'
//   done ── finish: the episode verdict, reward and recorded messages.
//
// Before a request is made the limits may end a trajectory instead: 'generation_cap' (limits.maxGenerations),
// 'turn_cap' (limits.maxAssistantTurns), 'length' (the prompt leaves too little room to generate).

import type { Environment, Message, Observation, Task, ToolCall, ToolError, ToolSchema, TurnVerdict, Verdict } from '../envs/types';
import type { GenerateRequest, Generation, TextGenerator } from '../engine/generator';
import type { AssistantStep } from '../envs/judges';
import { stripStop } from './chatTemplate';
import { compareResults } from './fidelity';
import { actPrompt, actSystem, rehearsePrompt, referenceHints, type Hint, type RehearsePromptOptions } from './prompts';
import { actMessage, errorText, parseAct, parseRehearse, resultError, toResultJson } from './protocol';
import { aggregateVerdict, hashSeed, trajectorySeed, type ResolvedConfig, type RolloutSpec, type SamplingConfig, type UserTurnStart } from './rollout-config';
import type { Row, Termination, Trajectory } from './types';

/** The tool calls of one Act output, while their results come in. */
export interface PendingCalls {
  actStep: number;
  raw: string;
  calls: ToolCall[];
  /** Calls answered by the real environment (every call in mode 'real'; cfg.realFraction's share otherwise). */
  real: boolean[];
  answers: { text: string; error?: ToolError; parseFailed: boolean; real?: Observation; executed?: boolean }[];
}

export type TrajectoryState =
  | { at: 'awaiting-act' }
  | { at: 'awaiting-results'; pending: PendingCalls }
  | { at: 'done' };

/** One trajectory in flight: what the steps below read and advance. */
export interface TrajectoryRun {
  spec: RolloutSpec;
  task: Task;
  /** Index of this sample among its group (spec.sample, else the spec's position). */
  sample: number;
  traj: Trajectory;
  state: TrajectoryState;
  tools: ToolSchema[];
  hints: Hint[];
  /** Real env (mode real) or shadow env (imagined modes); undefined when shadowing is off. */
  env?: Environment;
  conversation: Message[];
  userTurn: number;
  assistantTurns: number;
  turnSteps: AssistantStep[];
  /** Steps of the user turns that reached their end (the failing turn of an error-ended episode is not one). */
  doneSteps: AssistantStep[][];
  turnVerdicts: TurnVerdict[];
  failed?: ToolError;
  memory?: string;
  /** The user turn cfg.onUserTurn last ran for. */
  hookedTurn: number;
}

/** A generation one trajectory asks for; rollout.ts batches these across trajectories. */
export interface StepRequest {
  run: TrajectoryRun;
  kind: 'act' | 'rehearse';
  /** Rehearse: which call of the pending Act output this answers. */
  callIndex?: number;
  prompt: string;
  req: GenerateRequest;
}

// ---------------------------------------------------------------------------------------------------------
// Start

export function startTrajectory(rc: ResolvedConfig, spec: RolloutSpec, index: number): TrajectoryRun {
  const task = spec.task;
  const sample = spec.sample ?? index;
  const env = spec.env ? spec.env.clone() : rc.withEnv ? task.makeEnv() : undefined;
  const tools = (env ?? task.makeEnv()).tools();
  const first: Message[] = spec.resume ? spec.resume.conversation.slice()
    : task.userTurns.length > 0 ? [{ role: 'user', content: task.userTurns[0] }] : [];
  const startTurn = spec.resume?.userTurn ?? 0;
  const run: TrajectoryRun = {
    spec, task, sample, tools, env, state: { at: 'awaiting-act' },
    hints: (rc.cfg.hintSource ?? 'reference') === 'episode' ? referenceHints(first) : referenceHints(task.reference),
    conversation: first, userTurn: startTurn, assistantTurns: 0, turnSteps: [], turnVerdicts: [],
    // Earlier turns of a resumed history were not this rollout's: they stay empty so turn indices line up.
    doneSteps: Array.from({ length: startTurn }, () => []), memory: spec.memory, hookedTurn: -1,
    traj: {
      taskId: task.id, groupId: spec.groupId ?? task.id, mode: rc.mode, seed: trajectorySeed(rc.baseSeed, task.id, sample),
      messages: [], rows: [], terminatedBy: 'final_turn', realCalls: 0,
    },
  };
  if (first.length === 0) finish(rc, run, 'final_turn');
  return run;
}

export const isDone = (t: TrajectoryRun): boolean => t.state.at === 'done';

/** Awaiting the first Act of a user turn that cfg.onUserTurn has not seen yet. */
export function startsUserTurn(t: TrajectoryRun): boolean {
  return t.state.at === 'awaiting-act' && t.hookedTurn !== t.userTurn;
}

export function userTurnStart(t: TrajectoryRun): UserTurnStart {
  return { task: t.task, sample: t.sample, trajectorySeed: t.traj.seed, userTurn: t.userTurn, conversation: t.conversation.slice(), env: t.env };
}

/** The hook's text for this turn becomes the trajectory's memory (undefined: none). */
export function setTurnMemory(t: TrajectoryRun, memory: string | undefined): void {
  t.hookedTurn = t.userTurn;
  t.memory = memory;
}

// ---------------------------------------------------------------------------------------------------------
// Requests: what a trajectory needs generated next (or the limit that ends it instead)

export function nextRequests(rc: ResolvedConfig, t: TrajectoryRun): StepRequest[] {
  switch (t.state.at) {
    case 'awaiting-act': return actRequest(rc, t);
    case 'awaiting-results': return rehearseRequests(rc, t, t.state.pending);
    case 'done': return [];
  }
}

function actRequest(rc: ResolvedConfig, t: TrajectoryRun): StepRequest[] {
  const used = t.traj.rows.length;
  if (used + 1 > rc.limits.maxGenerations) return endInstead(rc, t, 'generation_cap');
  if (t.assistantTurns >= rc.limits.maxAssistantTurns) return endInstead(rc, t, 'turn_cap');
  const prompt = actPrompt(rc.format, t.task.policy, t.tools, t.conversation, t.memory ? { ...rc.cfg.actPrompt, memory: t.memory } : rc.cfg.actPrompt);
  const maxNew = tokenBudget(rc, rc.policy, prompt, rc.act);
  if (maxNew === null) return endInstead(rc, t, 'length');
  return [{ run: t, kind: 'act', prompt, req: generateRequest(t, prompt, maxNew, rc.act, used, rc.format.stop) }];
}

/** One Rehearse generation per imagined call of the pending Act output, all in the same round. */
function rehearseRequests(rc: ResolvedConfig, t: TrajectoryRun, pend: PendingCalls): StepRequest[] {
  const used = t.traj.rows.length;
  if (used + pend.real.filter((r) => !r).length > rc.limits.maxGenerations) return endInstead(rc, t, 'generation_cap');
  const out: StepRequest[] = [];
  for (let i = 0; i < pend.calls.length; i++) {
    if (pend.real[i]) continue;
    const built = fitRehearse(rc, t, pend, i);
    if (!built) return endInstead(rc, t, 'length');
    out.push({ run: t, kind: 'rehearse', callIndex: i, prompt: built.prompt, req: generateRequest(t, built.prompt, built.maxNew, rc.rehearse, used + i, rc.simFormat.stop) });
  }
  return out;
}

/** A limit ends the trajectory instead of the generation it would need. */
function endInstead(rc: ResolvedConfig, t: TrajectoryRun, why: Termination): StepRequest[] {
  finish(rc, t, why);
  return [];
}

function generateRequest(t: TrajectoryRun, prompt: string, maxNewTokens: number, s: SamplingConfig, step: number, stop: string[]): GenerateRequest {
  return { prompt, maxNewTokens, temperature: s.temperature, topP: s.topP, topK: s.topK, stop, seed: hashSeed('gen', t.traj.seed, step) };
}

// Act may shrink its budget down to limits.minNewTokens; Rehearse never runs with less than its full budget
// (a world's longest real result must fit, else imagined results are cut short): it sheds context instead.
function tokenBudget(rc: ResolvedConfig, gen: TextGenerator, prompt: string, s: SamplingConfig, strict = false): number | null {
  const room = gen.maxContext - gen.countTokens(prompt);
  const want = Math.min(s.maxNewTokens, room);
  const min = strict ? s.maxNewTokens : Math.min(rc.limits.minNewTokens ?? s.maxNewTokens, s.maxNewTokens);
  return want >= Math.max(1, min) ? want : null;
}

function fitRehearse(rc: ResolvedConfig, t: TrajectoryRun, pend: PendingCalls, i: number): { prompt: string; maxNew: number } | null {
  // History before the Act output that made these calls: the raw output is shown separately.
  const input = { tools: t.tools, hints: t.hints, conversation: t.conversation.slice(0, -1), rawAct: pend.raw, call: pend.calls[i] };
  for (const opts of rehearseLadder(rc.cfg.rehearsePrompt ?? {})) {
    const prompt = rehearsePrompt(rc.simFormat, input, opts);
    const maxNew = tokenBudget(rc, rc.rehearser, prompt, rc.rehearse, true);
    if (maxNew !== null) return { prompt, maxNew };
  }
  return null;
}

/**
 * Rehearse prompt options from fullest to leanest: shed context in order of least harm until the prompt
 * leaves the full budget: old history, all history, other tools' hints, Act's raw output, every hint but the
 * matching one (selectHints puts it first), all hints.
 */
function rehearseLadder(base: RehearsePromptOptions): RehearsePromptOptions[] {
  const sameTool = base.hints === false ? false : 'same-tool';
  return [
    base,
    { ...base, maxHistory: Math.min(base.maxHistory ?? Infinity, 4) },
    { ...base, history: false },
    { ...base, history: false, hints: sameTool },
    { ...base, history: false, hints: sameTool, rawAct: false },
    { ...base, history: false, hints: sameTool, rawAct: false, maxHints: Math.min(base.maxHints ?? Infinity, 1) },
    { ...base, history: false, hints: false, rawAct: false },
  ];
}

// ---------------------------------------------------------------------------------------------------------
// Transitions on a generation

function rowOf(rc: ResolvedConfig, role: 'act' | 'rehearse', t: TrajectoryRun, g: Generation, text: string, prompt: string): Row {
  const row: Row = {
    role, turn: t.userTurn, step: t.traj.rows.length,
    promptIds: g.promptIds, outputIds: g.outputIds, logprobs: g.logprobs, text, finishReason: g.finishReason,
  };
  if (rc.keepPrompts) row.prompt = prompt;
  return row;
}

const isFatal = (rc: ResolvedConfig, e: ToolError | null | undefined): e is ToolError => !!e && rc.fatal.has(e.code);

/** awaiting-act → awaiting-act | awaiting-results | judged turn | done. */
export function applyAct(rc: ResolvedConfig, t: TrajectoryRun, g: Generation, prompt: string): void {
  const text = stripStop(g.text, rc.format.stop);
  const row = rowOf(rc, 'act', t, g, text, prompt);
  t.traj.rows.push(row);
  t.assistantTurns++;
  const p = parseAct(text);
  t.conversation.push(actMessage(text, p));
  if (!p.ok) {
    row.error = { code: p.error.code, message: p.error.message };
    t.conversation.push({ role: 'tool', name: 'error_tool_call', content: errorText(p.error), error: true });
    if (rc.errorsEnd && isFatal(rc, p.error)) { t.failed = p.error; finish(rc, t, 'parse_error'); }
    return;
  }
  if (p.kind === 'reply') {
    t.turnSteps.push({ reply: p.content });
    endUserTurn(rc, t);
    return;
  }
  row.call = p.calls[0];
  row.calls = p.calls;
  awaitResults(rc, t, row.step, text, p.calls);
}

/**
 * Which calls the real environment answers: all in mode 'real'; in the imagined modes the budget's share,
 * fixed by hashSeed of (trajectory seed, Act step, call index). If no call is left to imagine, the results
 * are shown at once.
 */
function awaitResults(rc: ResolvedConfig, t: TrajectoryRun, actStep: number, raw: string, calls: ToolCall[]): void {
  const real = calls.map((_, i) => rc.mode === 'real' || (rc.realFraction > 0 && hashSeed('real-call', t.traj.seed, actStep, i) / 2 ** 32 < rc.realFraction));
  const pending: PendingCalls = { actStep, raw, calls, real, answers: [] };
  t.state = { at: 'awaiting-results', pending };
  if (real.every(Boolean)) showResults(rc, t);
}

/** awaiting-results: records the imagined result of call `callIndex` (and its shadow execution). */
export function applyRehearse(rc: ResolvedConfig, t: TrajectoryRun, callIndex: number, g: Generation, prompt: string): void {
  if (t.state.at !== 'awaiting-results') throw new Error('rollout: a Rehearse generation for a trajectory not awaiting results');
  const pend = t.state.pending;
  const call = pend.calls[callIndex];
  const text = stripStop(g.text, rc.simFormat.stop);
  const row = rowOf(rc, 'rehearse', t, g, text, prompt);
  row.parent = pend.actStep;
  row.callIndex = callIndex;
  row.call = call;
  if (rc.mode === 'simulator') row.frozen = true;
  const p = parseRehearse(text);
  const imagined = p.ok ? p.text : errorText(p.error);
  const err = p.ok ? resultError(p.value) : p.error;
  row.imagined = imagined;
  if (err) row.error = { code: err.code, message: err.message };
  let real: Observation | undefined;
  if (t.env) {
    executeRealCalls(t, pend, callIndex);
    real = safeCall(t.env, call);
    const f = compareResults(imagined, real);
    row.real = real;
    row.fidelity = { exact: f.exact, fieldF1: f.fieldF1, errorAgree: f.errorAgree };
  }
  t.traj.rows.push(row);
  pend.answers[callIndex] = { text: imagined, error: err ?? undefined, parseFailed: !p.ok, real };
}

/** Awaiting results, and every imagined call has its answer: the results can be shown. */
export function resultsComplete(t: TrajectoryRun): boolean {
  if (t.state.at !== 'awaiting-results') return false;
  const pend = t.state.pending;
  return pend.calls.every((_, i) => pend.real[i] || pend.answers[i]);
}

/** Executes the real calls before call `upTo` not yet executed, so the environment sees calls in their order. */
function executeRealCalls(t: TrajectoryRun, pend: PendingCalls, upTo: number): void {
  for (let i = 0; i < upTo; i++) {
    if (!pend.real[i] || pend.answers[i]) continue;
    const obs = safeCall(t.env!, pend.calls[i]);
    pend.answers[i] = { text: toResultJson(obs.text), error: resultError(obs.text) ?? undefined, parseFailed: false, real: obs, executed: true };
    t.traj.realCalls!++;
  }
}

/** awaiting-results → awaiting-act | done: every result goes into the conversation, in call order. */
export function showResults(rc: ResolvedConfig, t: TrajectoryRun): void {
  if (t.state.at !== 'awaiting-results') throw new Error('rollout: showing results of a trajectory not awaiting them');
  const pend = t.state.pending;
  executeRealCalls(t, pend, pend.calls.length);
  t.state = { at: 'awaiting-act' };
  let first: { e: ToolError; parse: boolean } | undefined;
  pend.calls.forEach((c, i) => {
    const a = pend.answers[i];
    // The policy sees every tool result in the canonical form the Rehearse role writes, whoever produced it
    // (a real call is shown and judged exactly as in mode 'real'): one SFT distribution serves all modes.
    t.conversation.push({ role: 'tool', name: c.name, content: a.text, error: (a.executed ? a.real!.error : a.error) ? true : undefined });
    const shown: Observation = { text: a.text, error: !!a.error };
    t.turnSteps.push({ call: c, result: a.executed || (rc.judgeReal && a.real) ? a.real! : shown });
    if (!first && isFatal(rc, a.error)) first = { e: a.error!, parse: a.parseFailed };
  });
  if (first && rc.errorsEnd) { t.failed = first.e; finish(rc, t, first.parse ? 'parse_error' : 'tool_error'); }
}

// ---------------------------------------------------------------------------------------------------------
// Judged turn, next user turn, done

/** The judged turn: the checklist scores this user turn's steps; then the next user turn, or done. */
function endUserTurn(rc: ResolvedConfig, t: TrajectoryRun): void {
  const items = t.task.checklist[t.userTurn];
  t.doneSteps.push(t.turnSteps);
  if (rc.judge && items && items.length > 0) {
    const v = rc.judge.judgeTurn(t.task, t.userTurn, t.turnSteps);
    t.turnVerdicts.push(v);
    if (v.terminated) { finish(rc, t, 'required_item_failed'); return; }
  }
  nextUserTurn(rc, t);
}

function nextUserTurn(rc: ResolvedConfig, t: TrajectoryRun): void {
  t.turnSteps = [];
  t.userTurn++;
  if (t.userTurn >= t.task.userTurns.length || (t.spec.lastTurn !== undefined && t.userTurn > t.spec.lastTurn)) { finish(rc, t, 'final_turn'); return; }
  if (t.userTurn >= rc.limits.maxUserTurns) { finish(rc, t, 'turn_cap'); return; }
  t.conversation.push({ role: 'user', content: t.task.userTurns[t.userTurn] });
}

/** → done: the episode verdict, reward and recorded messages. */
function finish(rc: ResolvedConfig, t: TrajectoryRun, why: Termination): void {
  if (t.state.at === 'done') return;
  t.state = { at: 'done' };
  t.traj.terminatedBy = why;
  const v = episodeVerdict(rc, t, why !== 'final_turn');
  t.traj.verdict = v;
  t.traj.reward = t.failed && (rc.cfg.errorReward ?? 'keep-completed-turns') === 'zero-episode' ? 0 : v.score;
  if (t.failed) t.traj.error = t.failed;
  // The recorded system message is exactly what Act's prompt started with.
  t.traj.messages = [{ role: 'system', content: actSystem(t.task.policy, t.tools, rc.cfg.actPrompt ?? {}, rc.format.nativeTools) }, ...t.conversation];
}

function episodeVerdict(rc: ResolvedConfig, t: TrajectoryRun, early: boolean): Verdict {
  if (!rc.judge?.judgeEpisode) return aggregateVerdict(t.task, t.turnVerdicts, early, t.env ? safeVerify(t.task, t.env) : undefined);
  let v: Verdict;
  try {
    v = rc.judge.judgeEpisode(t.task, t.doneSteps, t.env);
  } catch (e) {
    v = aggregateVerdict(t.task, t.turnVerdicts, early, { passed: false, reason: `judge threw: ${message(e)}` });
  }
  if (t.env && !v.outcome) v.outcome = safeVerify(t.task, t.env);
  v.terminatedEarly = v.terminatedEarly || early;
  return v;
}

// ---------------------------------------------------------------------------------------------------------
// Environment calls that never throw

const message = (e: unknown): string => (e instanceof Error ? e.message : String(e));

function safeCall(env: Environment, call: ToolCall): Observation {
  try { return env.call(call.name, call.arguments); } catch (e) {
    // The contract says call() never throws; if an environment breaks it we still must not lose the batch.
    return { text: errorText({ code: 'TOOL_EXECUTION_ERROR', message: message(e) }), error: true };
  }
}

function safeVerify(task: Task, env: Environment): { passed: boolean; reason: string } | undefined {
  try { return task.verify(env); } catch (e) { return { passed: false, reason: `verify threw: ${message(e)}` }; }
}
