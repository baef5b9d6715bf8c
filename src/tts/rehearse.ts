// Test-time private rehearsal (ENVACE.md §3), built on the rollout engine.
//
// One committed execution per (task, sample) runs in the real environment as a plain mode-'real' rollout.
// Before the first Act of every user turn, the rollout's onUserTurn hook pauses it and, from the real
// history so far and a copy of the real state, runs N imagined attempts at that turn: each attempt is a
// mode-'rehearsal' rollout of that one user turn (the Rehearse role imagines every result).
//   parallel:   the N attempts are independent (one batched rollout);
//   sequential: attempt k runs with a memory of attempts < k and their self-evaluations.
// Each attempt is assessed (rules, or the policy's own critique), the attempts are condensed into a
// bounded memory, and the committed turn's Act prompts carry that memory in their system text.
//
// The real environment is never called by rehearsal: attempts start from env.clone(). runTts wraps every
// committed environment in a RecordingEnv and checks, at each turn, that the state hash after rehearsal
// equals the one before (a violation throws); the recorded calls are returned for the caller to compare
// with the committed trajectory.

import type { TextGenerator } from '../engine/generator';
import type { Environment, Message, Task } from '../envs/types';
import { compactFormat, type ChatFormat } from '../agent/chatTemplate';
import { canonicalJson } from '../agent/protocol';
import { hashSeed, rollout, type RolloutConfig, type RolloutSpec, type UserTurnStart } from '../agent/rollout';
import type { Trajectory } from '../agent/types';
import { succeeded } from '../agent/evaluate';
import { sha256Hex } from '../envs/sha256';
import { attemptSteps, policyAssessments, ruleAssessment, type Assessment, type AssessorKind, type AttemptStep } from './assess';
import { buildMemory, rankAttempts, type MemoryKind } from './memory';
import { loggedCalls, RecordingEnv, stateHash, type RecordedCall } from './recording';

export type Strategy = 'parallel' | 'sequential';
export type TtsHintSource = 'episode' | 'oracle';
export const TTS_HINT_SOURCES: readonly TtsHintSource[] = ['episode', 'oracle'];
/** How each hint source is named wherever a result is shown. */
export const HINT_SOURCE_LABEL: Record<TtsHintSource, string> = { episode: 'episode hints (no gold)', oracle: 'oracle hints (the test task\'s reference)' };

export interface TtsOptions {
  /** Imagined attempts per user turn; 0 = a plain real-mode rollout. */
  n: number;
  strategy: Strategy;
  /** What the committed execution is shown. Default 'full'. */
  memory?: MemoryKind;
  /** Who writes the self-evaluations. Default 'rules' (see assess.ts). */
  assessor?: AssessorKind;
  /** Memory length bound in the policy's tokens. Default 192. */
  memoryTokens?: number;
  /**
   * What the imagined attempts' Rehearse role is shown as example calls. 'episode' (default): the calls and real
   * results of this episode so far, what a deployed agent has. 'oracle': the test task's own reference calls and
   * results (gold a deployed agent does not have; kept as a labelled reference line, the old behaviour).
   */
  hintSource?: TtsHintSource;
  /** Sampling temperature of the attempts (they should differ). Default 1. */
  attemptTemperature?: number;
  /** Critique sampling (assessor 'policy'). */
  critique?: { maxNewTokens?: number; temperature?: number };
  /**
   * Reuse of attempts across runs with the same policy and settings: an attempt is a pure function of
   * (history, state, memory it saw, seed), all of which are in the key, so N = 2 reuses N = 4's first two.
   */
  cache?: Map<string, Attempt>;
  /**
   * Stops the run: checked before and after every batch of generations, so once it is aborted no further
   * generation starts and no generated call reaches any environment; runTts then rejects with TtsCancelled.
   */
  signal?: AbortSignal;
  /** Where the run is (called before every batch of generations); for progress displays. */
  onProgress?: (p: TtsProgress) => void;
}

export interface TtsProgress {
  /** 'attempts': imagined attempts of a user turn are generating; 'commit': the committed execution is. */
  phase: 'attempts' | 'commit';
  /** The user turn (0-based; the lowest one when a batch holds trajectories at different turns). */
  userTurn: number;
  /** phase 'attempts': the attempts now generating (1-based, inclusive) of n. */
  attempts?: { from: number; to: number; of: number };
  /** Generation round inside the current rollout (the attempts' or the committed one), from 0. */
  round: number;
  /** Attempts finished so far (over all turns and trajectories of the run). */
  attemptsDone: number;
}

/** What a cancelled runTts had finished when it stopped (the committed trajectories are unfinished, so absent). */
export class TtsCancelled extends Error {
  constructor(readonly done: { rehearsals: TurnRehearsal[][]; realCalls: RecordedCall[][]; generations: number }) {
    super(`rehearse first cancelled after ${done.generations} generation${done.generations === 1 ? '' : 's'} (${done.rehearsals.reduce((s, r) => s + r.reduce((u, h) => u + h.attempts.length, 0), 0)} imagined attempts, ${done.realCalls.reduce((s, c) => s + c.length, 0)} real calls)`);
    this.name = 'TtsCancelled';
  }
}

/** Thrown inside a run when its signal is seen aborted; runTts turns it into TtsCancelled. */
class Aborted extends Error { constructor() { super('aborted'); this.name = 'Aborted'; } }

/** The generator with an abort check before and after every batch (after: its calls are never applied). */
function guarded(g: TextGenerator, signal: AbortSignal | undefined, counter: { generations: number }): TextGenerator {
  return {
    name: g.name,
    maxContext: g.maxContext,
    countTokens: (t) => g.countTokens(t),
    async generate(reqs) {
      if (signal?.aborted) throw new Aborted();
      const out = await g.generate(reqs);
      counter.generations += reqs.length;
      if (signal?.aborted) throw new Aborted();
      return out;
    },
  };
}

export interface Attempt {
  index: number;
  userTurn: number;
  /** The rehearsal-mode rollout of the one user turn (rows hold imagined results and, for analysis, fidelity). */
  trajectory: Trajectory;
  steps: AttemptStep[];
  assessment: Assessment;
  /** Sequential: the memory this attempt was shown ('' for the first). */
  shown: string;
  /** Generations this attempt cost (rollout rows, plus one for a policy critique). */
  generations: number;
  /** Taken from TtsOptions.cache (computed by an earlier run). */
  fromCache?: boolean;
}

export interface TurnRehearsal {
  userTurn: number;
  attempts: Attempt[];
  /** Index of the best attempt (rule score rank). */
  best: number;
  /** What the committed turn's Act prompts carried ('' for none). */
  memory: string;
  memoryTokens: number;
  stateHashBefore: string;
  stateHashAfter: string;
  /** Attempts taken from the cache. */
  cached: number;
}

export interface TtsRun {
  trajectory: Trajectory;
  rehearsals: TurnRehearsal[];
  /** Every call the real environment received, in order. */
  realCalls: RecordedCall[];
  /** Tokens of the first Act prompt of each committed user turn (context crowding). */
  firstPromptTokens: number[];
  /** Generations spent: committed rows + attempts (cached ones included) + critiques. */
  generations: number;
}

export interface RehearseContext {
  policy: TextGenerator;
  format: ChatFormat;
  /** The committed run's settings; attempts reuse them in mode 'rehearsal' (no judge, no hook). */
  cfg: RolloutConfig;
  opts: TtsOptions;
  /** Attempts finished so far (runTts keeps it across turns for TtsProgress). */
  progress?: { attemptsDone: number };
}

function attemptKey(s: UserTurnStart, envHash: string, shown: string, j: number, ctx: RehearseContext): string {
  return sha256Hex(canonicalJson({
    task: s.task.id, turn: s.userTurn, traj: s.trajectorySeed, conv: s.conversation, envHash, shown, j, hints: ctx.opts.hintSource ?? 'episode',
    assessor: ctx.opts.assessor ?? 'rules', t: ctx.opts.attemptTemperature ?? 1, seed: ctx.cfg.seed ?? 0,
  }));
}

/** The request of a user turn: its user message (the last one of the history). */
function requestOf(conversation: Message[]): string {
  for (let i = conversation.length - 1; i >= 0; i--) if (conversation[i].role === 'user') return conversation[i].content;
  return '';
}

/**
 * N attempts at each starting turn. Attempts of all starts advance in one batched rollout per round
 * (one round for parallel, N for sequential). Never calls any start's env; returns per start its attempts.
 */
export async function rehearseTurns(starts: UserTurnStart[], ctx: RehearseContext): Promise<Attempt[][]> {
  const { opts } = ctx;
  const out: Attempt[][] = starts.map(() => []);
  if (opts.n <= 0 || starts.length === 0) return out;
  const hashes = starts.map((s) => (s.env ? stateHash(s.env) : ''));
  const measure = (t: string) => ctx.policy.countTokens(t);
  const budget = opts.memoryTokens ?? 192;
  const rounds = opts.strategy === 'parallel' ? [[...Array(opts.n).keys()]] : [...Array(opts.n).keys()].map((j) => [j]);
  for (const js of rounds) {
    const todo: { si: number; j: number; shown: string; key: string }[] = [];
    for (let si = 0; si < starts.length; si++) {
      const shown = opts.strategy === 'sequential'
        ? buildMemory(out[si].map((a) => ({ index: a.index, steps: a.steps, assessment: a.assessment })), { kind: 'full', budget, measure })
        : '';
      for (const j of js) {
        const key = attemptKey(starts[si], hashes[si], shown, j, ctx);
        const hit = opts.cache?.get(key);
        if (hit) out[si][j] = { ...hit, fromCache: true };
        else todo.push({ si, j, shown, key });
      }
    }
    if (todo.length === 0) continue;
    const specs: RolloutSpec[] = todo.map(({ si, j, shown }) => {
      const s = starts[si];
      return {
        task: s.task, env: s.env, groupId: `${s.task.id}#${s.sample}/t${s.userTurn}`,
        // A distinct, batch-independent seed per (committed trajectory, turn, attempt).
        sample: hashSeed('tts-attempt', s.trajectorySeed, s.userTurn, j),
        resume: { conversation: s.conversation, userTurn: s.userTurn }, lastTurn: s.userTurn,
        memory: shown || undefined,
      };
    });
    const t = opts.attemptTemperature ?? 1;
    const userTurn = Math.min(...starts.map((s) => s.userTurn));
    const onRound = opts.onProgress && (({ round }: { round: number }) => opts.onProgress!({
      phase: 'attempts', userTurn, attempts: { from: js[0] + 1, to: js[js.length - 1] + 1, of: opts.n }, round, attemptsDone: attemptsDone(ctx),
    }));
    const trajs = await rollout(specs, {
      ...ctx.cfg, mode: 'rehearsal', judge: null, onUserTurn: undefined, onRound,
      hintSource: (opts.hintSource ?? 'episode') === 'oracle' ? 'reference' : 'episode',
      act: { ...ctx.cfg.act, temperature: t }, rehearse: { ...ctx.cfg.rehearse, temperature: t },
    });
    let assessments: Assessment[];
    if ((opts.assessor ?? 'rules') === 'policy') {
      assessments = await policyAssessments(ctx.policy, ctx.format, todo.map(({ si }, i) => ({
        request: requestOf(starts[si].conversation), trajectory: trajs[i], userTurn: starts[si].userTurn, seed: trajs[i].seed,
      })), { maxNewTokens: opts.critique?.maxNewTokens ?? 64, temperature: opts.critique?.temperature ?? 0 });
    } else assessments = todo.map(({ si }, i) => ruleAssessment(trajs[i], starts[si].userTurn));
    todo.forEach(({ si, j, shown, key }, i) => {
      const a: Attempt = {
        index: j, userTurn: starts[si].userTurn, trajectory: trajs[i], steps: attemptSteps(trajs[i], starts[si].userTurn),
        assessment: assessments[i], shown, generations: trajs[i].rows.length + ((opts.assessor ?? 'rules') === 'policy' ? 1 : 0),
      };
      out[si][j] = a;
      opts.cache?.set(key, a);
    });
    if (ctx.progress) ctx.progress.attemptsDone += todo.length;
  }
  return out;
}

const attemptsDone = (ctx: RehearseContext) => ctx.progress?.attemptsDone ?? 0;

/**
 * The committed executions with private rehearsal before every user turn. `specs` are as for rollout()
 * in mode 'real' (their env, or task.makeEnv(), becomes the recorded real environment).
 */
export async function runTts(specs: RolloutSpec[], ctx: Omit<RehearseContext, 'cfg'> & { cfg: Omit<RolloutConfig, 'mode' | 'onUserTurn'> }): Promise<TtsRun[]> {
  const { signal, onProgress } = ctx.opts;
  const counter = { generations: 0 };
  // Every generation of the run (attempts, critiques, committed) goes through the abort check.
  const policy = signal ? guarded(ctx.policy, signal, counter) : ctx.policy;
  const progress = { attemptsDone: 0 };
  let commitTurn = 0;
  const cfg: RolloutConfig = {
    ...ctx.cfg, mode: 'real', policy, format: ctx.format ?? compactFormat,
    onRound: (r) => {
      ctx.cfg.onRound?.(r);
      onProgress?.({ phase: 'commit', userTurn: commitTurn, round: r.round, attemptsDone: progress.attemptsDone });
    },
  };
  const recorders: RecordingEnv[] = [];
  const keyOf = (taskId: string, sample: number) => `${taskId}\u241f${sample}`;
  const byKey = new Map<string, number>();
  const wrapped: RolloutSpec[] = specs.map((s, i) => {
    const sample = s.sample ?? i;
    byKey.set(keyOf(s.task.id, sample), i);
    // rollout() clones spec.env once; handing it the recorder through makeEnv makes the recorder the real env.
    const rec = new RecordingEnv(s.env ? s.env.clone() : s.task.makeEnv());
    recorders.push(rec);
    let handed = false;
    const task: Task = {
      ...s.task,
      makeEnv: () => { if (handed) return s.task.makeEnv(); handed = true; return rec; },
      // Verifiers may look at the concrete environment class: show them the one inside the recorder.
      verify: (final: Environment) => s.task.verify(final instanceof RecordingEnv ? final.inner : final),
    };
    return { ...s, task, env: undefined, sample };
  });
  const rehearsals: TurnRehearsal[][] = specs.map(() => []);
  const rctx: RehearseContext = { policy, format: cfg.format!, cfg, opts: ctx.opts, progress };
  const measure = (t: string) => ctx.policy.countTokens(t);
  cfg.onUserTurn = async (starts) => {
    if (signal?.aborted) throw new Aborted();
    commitTurn = Math.min(...starts.map((s) => s.userTurn));
    const before = starts.map((s) => (s.env ? stateHash(s.env) : ''));
    const attempts = await rehearseTurns(starts, rctx);
    return starts.map((s, i) => {
      const after = s.env ? stateHash(s.env) : '';
      if (after !== before[i]) throw new Error(`tts: rehearsal changed the real environment of ${s.task.id} (turn ${s.userTurn})`);
      const as = attempts[i];
      const memory = as.length ? buildMemory(as, { kind: ctx.opts.memory ?? 'full', budget: ctx.opts.memoryTokens ?? 192, measure }) : '';
      const idx = byKey.get(keyOf(s.task.id, s.sample))!;
      rehearsals[idx].push({
        userTurn: s.userTurn, attempts: as, best: as.length ? rankAttempts(as)[0].index : -1, memory,
        memoryTokens: memory ? measure(memory) : 0, stateHashBefore: before[i], stateHashAfter: after,
        cached: as.filter((a) => a.fromCache).length,
      });
      return memory || undefined;
    });
  };
  let trajs: Trajectory[];
  try {
    trajs = await rollout(wrapped, cfg);
  } catch (e) {
    if (e instanceof Aborted || signal?.aborted) throw new TtsCancelled({ rehearsals, realCalls: recorders.map((r) => r.log), generations: counter.generations });
    throw e;
  }
  return trajs.map((t, i) => {
    const firstPromptTokens: number[] = [];
    const seenTurns = new Set<number>();
    for (const r of t.rows) if (r.role === 'act' && !seenTurns.has(r.turn)) { seenTurns.add(r.turn); firstPromptTokens.push(r.promptIds.length); }
    const attemptGens = rehearsals[i].reduce((s, r) => s + r.attempts.reduce((u, a) => u + a.generations, 0), 0);
    return { trajectory: t, rehearsals: rehearsals[i], realCalls: recorders[i].log, firstPromptTokens, generations: t.rows.length + attemptGens };
  });
}

/** The calls a committed trajectory made, in order (what its real environment must have received). */
export function committedCalls(t: Trajectory): { name: string; arguments: Record<string, unknown> }[] {
  return t.rows.filter((r) => r.role === 'act' && r.calls?.length).flatMap((r) => r.calls!);
}

/** True when the recorded real calls are exactly the committed trajectory's calls. */
export function realMatchesCommitted(run: TtsRun): boolean {
  return canonicalJson(loggedCalls(run.realCalls)) === canonicalJson(committedCalls(run.trajectory));
}

/** What private rehearsal did to one committed run, against the run with the same task, sample and seed without it. */
export type RehearsalEffect = 'better' | 'worse' | 'same';

export interface EffectAgainstBaseline {
  effect: RehearsalEffect;
  /** The committed run's success (0/1, as evaluations count it) and reward, with and without rehearsal. */
  success: 0 | 1;
  baselineSuccess: 0 | 1;
  reward: number;
  baselineReward: number;
}

/**
 * Success decides; at equal success the reward does (partial credit of the checklist), so a run that fails
 * further along is "better". Rewards closer than 1e-9 are equal: the same calls give the same reward.
 */
export function rehearsalEffect(withRehearsal: Trajectory, without: Trajectory): EffectAgainstBaseline {
  const success = succeeded(withRehearsal);
  const baselineSuccess = succeeded(without);
  const reward = withRehearsal.reward ?? 0;
  const baselineReward = without.reward ?? 0;
  const d = success !== baselineSuccess ? success - baselineSuccess : Math.abs(reward - baselineReward) < 1e-9 ? 0 : reward - baselineReward;
  return { effect: d > 0 ? 'better' : d < 0 ? 'worse' : 'same', success, baselineSuccess, reward, baselineReward };
}
