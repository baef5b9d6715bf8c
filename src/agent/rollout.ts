// Batched multi-turn rollout: many trajectories advance together, one sampler batch per round.
//
// Each trajectory is a small state machine (the reference's per-sample ChecklistEnv): it either needs an
// Act generation, or Rehearse generations for the calls of its last Act output. Every round collects those
// requests from all live trajectories and sends them to the generator in ONE generate() call (two in
// 'simulator' mode: policy and the frozen simulator are different models). Results are applied in
// trajectory order, so the outcome depends only on the per-request seeds, never on batch composition.
//
// Modes: 'real' (the environment answers), 'simulator' (a frozen model answers in the Rehearse role),
// 'rehearsal' (the policy answers itself — EnvACE). In the imagined modes each call is also executed on a
// shadow copy of the real environment, never shown to the policy, to measure fidelity.

import type { Environment, Message, Observation, Task, ToolCall, ToolError, ToolErrorCode, ToolSchema, TurnVerdict, Verdict } from '../envs/types';
import type { GenerateRequest, Generation, TextGenerator } from '../engine/generator';
import { judgeEpisode, judgeTurn, type AssistantStep } from '../envs/judges';
import { compactFormat, stripStop, type ChatFormat } from './chatTemplate';
import { compareResults } from './fidelity';
import { actPrompt, actSystem, rehearsePrompt, referenceHints, type ActPromptOptions, type Hint, type RehearsePromptOptions } from './prompts';
import { ACT_ERROR_CODES, actMessage, errorText, parseAct, parseRehearse, REHEARSE_ERROR_CODES, resultError, toResultJson, VALIDATION_CODES } from './protocol';
import type { Row, RolloutMode, Termination, Trajectory } from './types';

/** One assistant step of a user turn, as the checklist judge sees it (src/envs/judges.ts). */
export type JudgeStep = AssistantStep;

/**
 * What the rollout needs from a checklist judge. judgeTurn runs at the end of every user turn (a failed
 * required item ends the episode); judgeEpisode, when present, builds the final verdict from the steps of
 * the completed turns (else turn scores are summed over the annotated turns).
 */
export interface RolloutJudge {
  judgeTurn(task: Task, turn: number, steps: AssistantStep[]): TurnVerdict;
  judgeEpisode?(task: Task, turnSteps: AssistantStep[][], finalEnv?: Environment): Verdict;
}

/** The rule-based checklist judge of src/envs/judges.ts (the default). */
export const checklistJudge: RolloutJudge = { judgeTurn, judgeEpisode };

/** See RolloutConfig.errorReward. */
export type ErrorReward = 'keep-completed-turns' | 'zero-episode';
export const ERROR_REWARDS: readonly ErrorReward[] = ['keep-completed-turns', 'zero-episode'];
/** See RolloutConfig.judgeOn. */
export type JudgeOn = 'transcript' | 'real';
export const JUDGE_ON: readonly JudgeOn[] = ['transcript', 'real'];

export interface SamplingConfig { maxNewTokens: number; temperature: number; topP: number; topK: number }

export interface RolloutLimits {
  maxAssistantTurns: number;
  maxUserTurns: number;
  maxGenerations: number;
  /**
   * A generation may shrink its token budget to fit the context, down to this many tokens; below it the
   * episode ends with 'length'. Default: the full maxNewTokens (the reference's strict rule).
   */
  minNewTokens?: number;
}

export interface RolloutConfig {
  mode: RolloutMode;
  policy: TextGenerator;
  /** The frozen Rehearse model of mode 'simulator'. */
  simulator?: TextGenerator;
  /** Default: checklistJudge. null: no checklist scoring (reward 0, outcome still verified). */
  judge?: RolloutJudge | null;
  /**
   * Which tool results the checklist judge reads: 'transcript' (default; what the policy saw, so imagined
   * results in the rehearsal modes, as the reference's judge reads the rollout's own transcript) or 'real'
   * (the shadow environment's answer, when there is one; the Rehearse role then cannot talk a checklist
   * item into passing). 'shown' is the old name of 'transcript'. In mode 'real' both are the same.
   */
  judgeOn?: JudgeOn | 'shown';
  format?: ChatFormat;
  simulatorFormat?: ChatFormat;
  act?: Partial<SamplingConfig>;
  rehearse?: Partial<SamplingConfig>;
  actPrompt?: ActPromptOptions;
  rehearsePrompt?: RehearsePromptOptions;
  limits?: Partial<RolloutLimits>;
  /** End the episode on an EnvACE error (the reference does). Default true. */
  errorsEndEpisode?: boolean;
  /** Codes that count as EnvACE errors. Default: the Act, Rehearse and validation codes (not TOOL_EXECUTION_ERROR). */
  fatalCodes?: readonly ToolErrorCode[];
  /**
   * Reward of an episode a fatal error ended. 'keep-completed-turns' (default; the reference code: the
   * failing step's turn reward is 0 and the turn rewards already earned stay in the episode's sum —
   * checklist envs.py, rollout_loop.py) or 'zero-episode' (the paper's wording, our old training rule: the
   * whole episode scores 0). trajectory.reward follows it; trajectory.verdict is the judge's, unchanged.
   */
  errorReward?: ErrorReward;
  /** Shadow-execute imagined calls on a real environment for fidelity. Default true. */
  shadow?: boolean;
  /**
   * The real-environment budget (imagined modes only): this fraction of tool calls, in [0, 1], is executed on
   * the trajectory's environment and its result shown in canonical form as in mode 'real', with no Rehearse
   * generation; the rest are imagined. Which calls: hashSeed of (trajectory seed, Act step, call index), so
   * fixed by (seed, task, sample, step). 0 (default) is plain EnvACE, 1 is GRPO on the real environment. The
   * environment is the shadow one (it also received the imagined calls, so its state follows the whole
   * episode): needs shadow on.
   */
  realFraction?: number;
  /** Base seed; each trajectory's seed derives from (seed, task id, sample index). */
  seed?: number;
  /** Keep prompt text on rows (traces, debugging). Default true. */
  keepPrompts?: boolean;
  onRound?: (info: { round: number; live: number; requests: number }) => void;
  /**
   * Test-time rehearsal (src/tts/): awaited before the first Act of every user turn, once for all
   * trajectories starting a turn in the same round; returns per trajectory the text appended to Act's
   * system prompt for that turn (undefined: none). `env` is the trajectory's own (in mode 'real' the real
   * one): the hook may clone or snapshot it, never call it.
   */
  onUserTurn?: (starts: UserTurnStart[]) => Promise<(string | undefined)[]>;
}

export interface UserTurnStart {
  task: Task; sample: number; trajectorySeed: number; userTurn: number;
  /** A copy of the conversation so far, ending with this turn's user message. */
  conversation: Message[];
  env?: Environment;
}

export interface RolloutSpec {
  task: Task;
  /** Index of this sample among the group's K (seeds differ per sample). */
  sample?: number;
  groupId?: string;
  /** Start from this environment instead of task.makeEnv() (it is cloned, never mutated). */
  env?: Environment;
  /** Start at user turn `userTurn` with this history (ending with that turn's user message), e.g. a real one. */
  resume?: { conversation: Message[]; userTurn: number };
  /** End the episode ('final_turn') after this user turn (a rehearsal attempt covers one turn). */
  lastTurn?: number;
  /** Appended to Act's system prompt (a rehearsal memory); cfg.onUserTurn replaces it per turn. */
  memory?: string;
}

export const DEFAULT_LIMITS: RolloutLimits = { maxAssistantTurns: 30, maxUserTurns: 30, maxGenerations: 200 };
const DEFAULT_ACT: SamplingConfig = { maxNewTokens: 256, temperature: 1, topP: 1, topK: 0 };
const DEFAULT_REHEARSE: SamplingConfig = { maxNewTokens: 256, temperature: 1, topP: 1, topK: 0 };
export const ENVACE_FATAL_CODES: readonly ToolErrorCode[] = [...ACT_ERROR_CODES, ...REHEARSE_ERROR_CODES, ...VALIDATION_CODES];

// FNV-1a then a murmur finaliser: stable across runs and platforms, well mixed for consecutive inputs.
export function hashSeed(...parts: (string | number)[]): number {
  let h = 0x811c9dc5;
  for (const ch of parts.join('\u241f')) { h ^= ch.charCodeAt(0); h = Math.imul(h, 0x01000193); }
  h ^= h >>> 16; h = Math.imul(h, 0x85ebca6b); h ^= h >>> 13; h = Math.imul(h, 0xc2b2ae35); h ^= h >>> 16;
  return h >>> 0;
}

export function trajectorySeed(seed: number, taskId: string, sample: number): number {
  return hashSeed('traj', seed, taskId, sample);
}

interface PendingCalls {
  actStep: number;
  raw: string;
  calls: ToolCall[];
  /** Calls of the real-environment budget (cfg.realFraction): executed, not rehearsed. */
  real: boolean[];
  answers: { text: string; error?: ToolError; parseFailed: boolean; real?: Observation; executed?: boolean }[];
}

interface Live {
  spec: RolloutSpec;
  task: Task;
  traj: Trajectory;
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
  pending?: PendingCalls;
  done: boolean;
  failed?: ToolError;
  memory?: string;
  /** The user turn cfg.onUserTurn last ran for. */
  hookedTurn: number;
}

interface Req { live: Live; kind: 'act' | 'rehearse'; callIndex?: number; prompt: string; req: GenerateRequest }

function safeCall(env: Environment, call: ToolCall): Observation {
  try { return env.call(call.name, call.arguments); } catch (e) {
    // The contract says call() never throws; if an environment breaks it we still must not lose the batch.
    return { text: errorText({ code: 'TOOL_EXECUTION_ERROR', message: e instanceof Error ? e.message : String(e) }), error: true };
  }
}

/** Default episode aggregate: turn scores summed over the number of annotated user turns. */
export function aggregateVerdict(task: Task, turns: TurnVerdict[], terminatedEarly: boolean, outcome?: { passed: boolean; reason: string }): Verdict {
  const annotated = task.checklist.filter((t) => t.length > 0).length;
  const sum = turns.reduce((s, t) => s + t.score, 0);
  const score = annotated > 0 ? Math.min(1, Math.max(0, sum / annotated)) : 0;
  return { score, turns, terminatedEarly, outcome };
}

export async function rollout(specs: RolloutSpec[], cfg: RolloutConfig): Promise<Trajectory[]> {
  if (cfg.mode === 'simulator' && !cfg.simulator) throw new Error("rollout: mode 'simulator' needs cfg.simulator");
  const format = cfg.format ?? compactFormat;
  const simFormat = cfg.simulatorFormat ?? format;
  const limits: RolloutLimits = { ...DEFAULT_LIMITS, ...cfg.limits };
  const actS: SamplingConfig = { ...DEFAULT_ACT, ...cfg.act };
  const rehS: SamplingConfig = { ...DEFAULT_REHEARSE, ...cfg.rehearse };
  const errorsEnd = cfg.errorsEndEpisode ?? true;
  const fatal = new Set<string>(cfg.fatalCodes ?? ENVACE_FATAL_CODES);
  const keepPrompts = cfg.keepPrompts ?? true;
  const baseSeed = cfg.seed ?? 0;
  const rehearser = cfg.mode === 'simulator' ? cfg.simulator! : cfg.policy;
  const judge = cfg.judge === undefined ? checklistJudge : cfg.judge;
  const judgeReal = cfg.judgeOn === 'real';
  const realFraction = cfg.realFraction ?? 0;
  if (!(realFraction >= 0 && realFraction <= 1)) throw new Error(`rollout: realFraction must be a number in [0, 1] (got ${cfg.realFraction})`);
  if (realFraction > 0 && cfg.mode !== 'real' && !(cfg.shadow ?? true)) throw new Error('rollout: realFraction > 0 executes calls on the shadow environment; it needs shadow on');

  const lives: Live[] = specs.map((spec, i) => {
    const task = spec.task;
    const sample = spec.sample ?? i;
    const base = spec.env ? spec.env.clone() : (cfg.mode === 'real' || (cfg.shadow ?? true)) ? task.makeEnv() : undefined;
    const tools = (base ?? task.makeEnv()).tools();
    const first: Message[] = spec.resume ? spec.resume.conversation.slice()
      : task.userTurns.length > 0 ? [{ role: 'user', content: task.userTurns[0] }] : [];
    const startTurn = spec.resume?.userTurn ?? 0;
    const live: Live = {
      spec, task, tools, hints: referenceHints(task.reference), env: base,
      conversation: first, userTurn: startTurn, assistantTurns: 0, turnSteps: [], turnVerdicts: [], done: false,
      // Earlier turns of a resumed history were not this rollout's: they stay empty so turn indices line up.
      doneSteps: Array.from({ length: startTurn }, () => []), memory: spec.memory, hookedTurn: -1,
      traj: {
        taskId: task.id, groupId: spec.groupId ?? task.id, mode: cfg.mode, seed: trajectorySeed(baseSeed, task.id, sample),
        messages: [], rows: [], terminatedBy: 'final_turn', realCalls: 0,
      },
    };
    if (first.length === 0) finish(live, 'final_turn');
    return live;
  });

  function finish(l: Live, why: Termination): void {
    if (l.done) return;
    l.done = true;
    l.traj.terminatedBy = why;
    const early = why !== 'final_turn';
    let v: Verdict;
    if (judge?.judgeEpisode) {
      try {
        v = judge.judgeEpisode(l.task, l.doneSteps, l.env);
      } catch (e) {
        v = aggregateVerdict(l.task, l.turnVerdicts, early, { passed: false, reason: `judge threw: ${e instanceof Error ? e.message : String(e)}` });
      }
      if (l.env && !v.outcome) v.outcome = safeVerify(l.task, l.env);
      v.terminatedEarly = v.terminatedEarly || early;
    } else v = aggregateVerdict(l.task, l.turnVerdicts, early, l.env ? safeVerify(l.task, l.env) : undefined);
    l.traj.verdict = v;
    l.traj.reward = l.failed && (cfg.errorReward ?? 'keep-completed-turns') === 'zero-episode' ? 0 : v.score;
    if (l.failed) l.traj.error = l.failed;
    // The recorded system message is exactly what Act's prompt started with.
    l.traj.messages = [{ role: 'system', content: actSystem(l.task.policy, l.tools, cfg.actPrompt ?? {}, format.nativeTools) }, ...l.conversation];
  }

  function safeVerify(task: Task, env: Environment): { passed: boolean; reason: string } | undefined {
    try { return task.verify(env); } catch (e) { return { passed: false, reason: `verify threw: ${e instanceof Error ? e.message : String(e)}` }; }
  }

  // Act may shrink its budget down to limits.minNewTokens; Rehearse never runs with less than its full budget
  // (a world's longest real result must fit, else imagined results are cut short): it sheds context instead.
  function budget(gen: TextGenerator, prompt: string, s: SamplingConfig, strict = false): number | null {
    const room = gen.maxContext - gen.countTokens(prompt);
    const want = Math.min(s.maxNewTokens, room);
    const min = strict ? s.maxNewTokens : Math.min(limits.minNewTokens ?? s.maxNewTokens, s.maxNewTokens);
    return want >= Math.max(1, min) ? want : null;
  }

  function request(l: Live, prompt: string, maxNewTokens: number, s: SamplingConfig, step: number, stop: string[]): GenerateRequest {
    return { prompt, maxNewTokens, temperature: s.temperature, topP: s.topP, topK: s.topK, stop, seed: hashSeed('gen', l.traj.seed, step) };
  }

  function endUserTurn(l: Live): void {
    const items = l.task.checklist[l.userTurn];
    l.doneSteps.push(l.turnSteps);
    if (judge && items && items.length > 0) {
      const v = judge.judgeTurn(l.task, l.userTurn, l.turnSteps);
      l.turnVerdicts.push(v);
      if (v.terminated) { finish(l, 'required_item_failed'); return; }
    }
    l.turnSteps = [];
    l.userTurn++;
    if (l.userTurn >= l.task.userTurns.length || (l.spec.lastTurn !== undefined && l.userTurn > l.spec.lastTurn)) { finish(l, 'final_turn'); return; }
    if (l.userTurn >= limits.maxUserTurns) { finish(l, 'turn_cap'); return; }
    l.conversation.push({ role: 'user', content: l.task.userTurns[l.userTurn] });
  }

  function isFatal(e: ToolError | null | undefined): e is ToolError {
    return !!e && fatal.has(e.code);
  }

  function rowOf(role: 'act' | 'rehearse', l: Live, g: Generation, text: string, prompt: string): Row {
    const row: Row = {
      role, turn: l.userTurn, step: l.traj.rows.length,
      promptIds: g.promptIds, outputIds: g.outputIds, logprobs: g.logprobs, text, finishReason: g.finishReason,
    };
    if (keepPrompts) row.prompt = prompt;
    return row;
  }

  function applyAct(l: Live, g: Generation, prompt: string): void {
    const text = stripStop(g.text, format.stop);
    const row = rowOf('act', l, g, text, prompt);
    l.traj.rows.push(row);
    l.assistantTurns++;
    const p = parseAct(text);
    l.conversation.push(actMessage(text, p));
    if (!p.ok) {
      row.error = { code: p.error.code, message: p.error.message };
      l.conversation.push({ role: 'tool', name: 'error_tool_call', content: errorText(p.error), error: true });
      if (errorsEnd && isFatal(p.error)) { l.failed = p.error; finish(l, 'parse_error'); }
      return;
    }
    if (p.kind === 'reply') {
      l.turnSteps.push({ reply: p.content });
      endUserTurn(l);
      return;
    }
    row.call = p.calls[0];
    row.calls = p.calls;
    if (cfg.mode === 'real') {
      let err: ToolError | undefined;
      for (const c of p.calls) {
        const obs = safeCall(l.env!, c);
        // The policy sees every tool result in the canonical form the Rehearse role writes, whoever produced
        // it: real and imagined observations then look alike, and one SFT distribution serves all modes.
        l.conversation.push({ role: 'tool', name: c.name, content: toResultJson(obs.text), error: obs.error || undefined });
        l.turnSteps.push({ call: c, result: obs });
        l.traj.realCalls!++;
        const e = resultError(obs.text);
        if (!err && isFatal(e)) err = e;
      }
      if (err && errorsEnd) { l.failed = err; finish(l, 'tool_error'); }
      return;
    }
    const real = p.calls.map((_, i) => realFraction > 0 && hashSeed('real-call', l.traj.seed, row.step, i) / 2 ** 32 < realFraction);
    l.pending = { actStep: row.step, raw: text, calls: p.calls, real, answers: [] };
    if (real.every(Boolean)) closeCalls(l);
  }

  /** Executes the budget's real calls before call `upTo`, so the environment sees calls in their order. */
  function executeReal(l: Live, upTo: number): void {
    const pend = l.pending!;
    for (let i = 0; i < upTo; i++) {
      if (!pend.real[i] || pend.answers[i]) continue;
      const obs = safeCall(l.env!, pend.calls[i]);
      pend.answers[i] = { text: toResultJson(obs.text), error: resultError(obs.text) ?? undefined, parseFailed: false, real: obs, executed: true };
      l.traj.realCalls!++;
    }
  }

  function applyRehearse(l: Live, callIndex: number, g: Generation, prompt: string): void {
    const pend = l.pending!;
    const call = pend.calls[callIndex];
    const text = stripStop(g.text, simFormat.stop);
    const row = rowOf('rehearse', l, g, text, prompt);
    row.parent = pend.actStep;
    row.callIndex = callIndex;
    row.call = call;
    if (cfg.mode === 'simulator') row.frozen = true;
    const p = parseRehearse(text);
    const imagined = p.ok ? p.text : errorText(p.error);
    const err = p.ok ? resultError(p.value) : p.error;
    row.imagined = imagined;
    if (err) row.error = { code: err.code, message: err.message };
    let real: Observation | undefined;
    if (l.env) {
      executeReal(l, callIndex);
      real = safeCall(l.env, call);
      const f = compareResults(imagined, real);
      row.real = real;
      row.fidelity = { exact: f.exact, fieldF1: f.fieldF1, errorAgree: f.errorAgree };
    }
    l.traj.rows.push(row);
    pend.answers[callIndex] = { text: imagined, error: err ?? undefined, parseFailed: !p.ok, real };
  }

  function closeCalls(l: Live): void {
    const pend = l.pending!;
    executeReal(l, pend.calls.length);
    l.pending = undefined;
    let first: { e: ToolError; parse: boolean } | undefined;
    pend.calls.forEach((c, i) => {
      const a = pend.answers[i];
      // A real call of the budget is shown and judged exactly as in mode 'real'.
      l.conversation.push({ role: 'tool', name: c.name, content: a.text, error: (a.executed ? a.real!.error : a.error) ? true : undefined });
      const shown: Observation = { text: a.text, error: !!a.error };
      l.turnSteps.push({ call: c, result: a.executed || (judgeReal && a.real) ? a.real! : shown });
      if (!first && isFatal(a.error)) first = { e: a.error!, parse: a.parseFailed };
    });
    if (first && errorsEnd) { l.failed = first.e; finish(l, first.parse ? 'parse_error' : 'tool_error'); }
  }

  let round = 0;
  for (;;) {
    if (cfg.onUserTurn) {
      const starting = lives.filter((l) => !l.done && !l.pending && l.hookedTurn !== l.userTurn);
      if (starting.length > 0) {
        const notes = await cfg.onUserTurn(starting.map((l) => ({
          task: l.task, sample: l.spec.sample ?? lives.indexOf(l), trajectorySeed: l.traj.seed, userTurn: l.userTurn,
          conversation: l.conversation.slice(), env: l.env,
        })));
        starting.forEach((l, i) => { l.hookedTurn = l.userTurn; l.memory = notes[i]; });
      }
    }
    const reqs: Req[] = [];
    for (const l of lives) {
      if (l.done) continue;
      const used = l.traj.rows.length;
      if (l.pending) {
        const n = l.pending.calls.length;
        if (used + l.pending.real.filter((r) => !r).length > limits.maxGenerations) { finish(l, 'generation_cap'); continue; }
        let fits = true;
        const batch: Req[] = [];
        for (let i = 0; i < n; i++) {
          if (l.pending.real[i]) continue;
          const built = fitRehearse(l, i);
          if (!built) { fits = false; break; }
          batch.push({ live: l, kind: 'rehearse', callIndex: i, prompt: built.prompt,
            req: request(l, built.prompt, built.maxNew, rehS, used + i, simFormat.stop) });
        }
        if (!fits) { finish(l, 'length'); continue; }
        reqs.push(...batch);
      } else {
        if (used + 1 > limits.maxGenerations) { finish(l, 'generation_cap'); continue; }
        if (l.assistantTurns >= limits.maxAssistantTurns) { finish(l, 'turn_cap'); continue; }
        const built = fitAct(l);
        if (!built) { finish(l, 'length'); continue; }
        reqs.push({ live: l, kind: 'act', prompt: built.prompt, req: request(l, built.prompt, built.maxNew, actS, used, format.stop) });
      }
    }
    if (reqs.length === 0) break;
    cfg.onRound?.({ round, live: lives.filter((l) => !l.done).length, requests: reqs.length });
    round++;

    const policyReqs = reqs.filter((r) => r.kind === 'act' || cfg.mode !== 'simulator');
    const simReqs = cfg.mode === 'simulator' ? reqs.filter((r) => r.kind === 'rehearse') : [];
    // One after the other: both may share one accelerator/runtime that does not run sessions concurrently.
    const pg = policyReqs.length ? await cfg.policy.generate(policyReqs.map((r) => r.req)) : [];
    const sg = simReqs.length ? await rehearser.generate(simReqs.map((r) => r.req)) : [];
    if (pg.length !== policyReqs.length || sg.length !== simReqs.length) throw new Error('rollout: generator returned a different number of generations than requests');
    const out = new Map<Req, Generation>();
    policyReqs.forEach((r, i) => out.set(r, pg[i]));
    simReqs.forEach((r, i) => out.set(r, sg[i]));

    // Apply in request order (trajectory order, then call order) so shadow environments see calls in sequence.
    for (const r of reqs) {
      if (r.kind === 'act') applyAct(r.live, out.get(r)!, r.prompt);
      else applyRehearse(r.live, r.callIndex!, out.get(r)!, r.prompt);
    }
    // Real calls of the budget are answered when their turn comes (closeCalls), so count only the rehearsed ones.
    for (const l of lives) if (!l.done && l.pending && l.pending.calls.every((_, i) => l.pending!.real[i] || l.pending!.answers[i])) closeCalls(l);
  }
  return lives.map((l) => l.traj);

  function fitAct(l: Live): { prompt: string; maxNew: number } | null {
    const prompt = actPrompt(format, l.task.policy, l.tools, l.conversation, l.memory ? { ...cfg.actPrompt, memory: l.memory } : cfg.actPrompt);
    const maxNew = budget(cfg.policy, prompt, actS);
    return maxNew === null ? null : { prompt, maxNew };
  }

  function fitRehearse(l: Live, i: number): { prompt: string; maxNew: number } | null {
    const pend = l.pending!;
    // History before the Act output that made these calls: the raw output is shown separately.
    const conv = l.conversation.slice(0, -1);
    const input = { tools: l.tools, hints: l.hints, conversation: conv, rawAct: pend.raw, call: pend.calls[i] };
    const base = cfg.rehearsePrompt ?? {};
    // Shed context in order of least harm until the prompt leaves the full budget: old history, all history,
    // other tools' hints, Act's raw output, every hint but the matching one (selectHints puts it first), all hints.
    const sameTool = base.hints === false ? false : 'same-tool';
    const ladder: RehearsePromptOptions[] = [
      base,
      { ...base, maxHistory: Math.min(base.maxHistory ?? Infinity, 4) },
      { ...base, history: false },
      { ...base, history: false, hints: sameTool },
      { ...base, history: false, hints: sameTool, rawAct: false },
      { ...base, history: false, hints: sameTool, rawAct: false, maxHints: Math.min(base.maxHints ?? Infinity, 1) },
      { ...base, history: false, hints: false, rawAct: false },
    ];
    for (const opts of ladder) {
      const prompt = rehearsePrompt(simFormat, input, opts);
      const maxNew = budget(rehearser, prompt, rehS, true);
      if (maxNew !== null) return { prompt, maxNew };
    }
    return null;
  }
}

/** K samples of every task, grouped by task (trajectory i*K+j is task i, sample j). */
export function rolloutGroups(tasks: Task[], k: number, cfg: RolloutConfig): Promise<Trajectory[]> {
  const specs: RolloutSpec[] = [];
  for (const task of tasks) for (let j = 0; j < k; j++) specs.push({ task, sample: j, groupId: task.id });
  return rollout(specs, cfg);
}
