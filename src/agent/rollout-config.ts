// What a rollout is given: its configuration (RolloutConfig, RolloutSpec, limits, sampling), the defaults, the
// seed derivation and the default judge. The loop itself is in rollout.ts (rounds and batching) and
// rollout-trajectory.ts (one trajectory's state machine); rollout.ts re-exports everything here.

import type { Environment, Message, Task, ToolErrorCode, TurnVerdict, Verdict } from '../envs/types';
import type { TextGenerator } from '../engine/generator';
import { judgeEpisode, judgeTurn, type AssistantStep } from '../envs/judges';
import { compactFormat, type ChatFormat } from './chatTemplate';
import type { ActPromptOptions, RehearsePromptOptions } from './prompts';
import { ACT_ERROR_CODES, REHEARSE_ERROR_CODES, VALIDATION_CODES } from './protocol';
import type { RolloutMode } from './types';

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

export type HintSource = 'reference' | 'episode';

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
  /**
   * Where the Rehearse role's example calls come from. 'reference' (default): every (call, result) pair of the
   * task's reference conversation, as the reference's simulator gets its sample's ground truth in training.
   * 'episode': only the calls and real results already in the conversation the rollout starts from (a resumed
   * history) — what a deployed agent has; test-time private rehearsal uses it unless asked for oracle hints.
   */
  hintSource?: HintSource;
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
  /**
   * Progress: called once per round, before its generations are requested (`live`: trajectories not done,
   * `requests`: generations of the round). The Rollout page's Step does not use it: it cuts the rollout by
   * limits.maxGenerations.
   */
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
export const DEFAULT_ACT: SamplingConfig = { maxNewTokens: 256, temperature: 1, topP: 1, topK: 0 };
export const DEFAULT_REHEARSE: SamplingConfig = { maxNewTokens: 256, temperature: 1, topP: 1, topK: 0 };
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

/** Default episode aggregate: turn scores summed over the number of annotated user turns. */
export function aggregateVerdict(task: Task, turns: TurnVerdict[], terminatedEarly: boolean, outcome?: { passed: boolean; reason: string }): Verdict {
  const annotated = task.checklist.filter((t) => t.length > 0).length;
  const sum = turns.reduce((s, t) => s + t.score, 0);
  const score = annotated > 0 ? Math.min(1, Math.max(0, sum / annotated)) : 0;
  return { score, turns, terminatedEarly, outcome };
}

/** A RolloutConfig with its defaults filled in and checked: what the loop and the trajectory steps read. */
export interface ResolvedConfig {
  cfg: RolloutConfig;
  mode: RolloutMode;
  policy: TextGenerator;
  /** Who writes Rehearse outputs: the frozen simulator in mode 'simulator', else the policy. */
  rehearser: TextGenerator;
  format: ChatFormat;
  simFormat: ChatFormat;
  limits: RolloutLimits;
  act: SamplingConfig;
  rehearse: SamplingConfig;
  errorsEnd: boolean;
  fatal: ReadonlySet<string>;
  keepPrompts: boolean;
  baseSeed: number;
  judge: RolloutJudge | null;
  judgeReal: boolean;
  realFraction: number;
  /** A real environment per trajectory: always in mode 'real', in the imagined modes unless shadowing is off. */
  withEnv: boolean;
}

export function resolveConfig(cfg: RolloutConfig): ResolvedConfig {
  if (cfg.mode === 'simulator' && !cfg.simulator) throw new Error("rollout: mode 'simulator' needs cfg.simulator");
  const format = cfg.format ?? compactFormat;
  const realFraction = cfg.realFraction ?? 0;
  if (!(realFraction >= 0 && realFraction <= 1)) throw new Error(`rollout: realFraction must be a number in [0, 1] (got ${cfg.realFraction})`);
  if (realFraction > 0 && cfg.mode !== 'real' && !(cfg.shadow ?? true)) throw new Error('rollout: realFraction > 0 executes calls on the shadow environment; it needs shadow on');
  return {
    cfg, mode: cfg.mode, policy: cfg.policy, rehearser: cfg.mode === 'simulator' ? cfg.simulator! : cfg.policy,
    format, simFormat: cfg.simulatorFormat ?? format,
    limits: { ...DEFAULT_LIMITS, ...cfg.limits },
    act: { ...DEFAULT_ACT, ...cfg.act },
    rehearse: { ...DEFAULT_REHEARSE, ...cfg.rehearse },
    errorsEnd: cfg.errorsEndEpisode ?? true,
    fatal: new Set<string>(cfg.fatalCodes ?? ENVACE_FATAL_CODES),
    keepPrompts: cfg.keepPrompts ?? true,
    baseSeed: cfg.seed ?? 0,
    judge: cfg.judge === undefined ? checklistJudge : cfg.judge,
    judgeReal: cfg.judgeOn === 'real',
    realFraction,
    withEnv: cfg.mode === 'real' || (cfg.shadow ?? true),
  };
}
