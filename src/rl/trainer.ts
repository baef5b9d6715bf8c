// Role-Wise GRPO trainer (ENVACE.md §2) and its ablations; the same code runs in Node and in the worker.
// One step: tasks × K rollouts → judge → advantages → update through the engine's training graph → metrics.
// Everything random derives from (seed, step), so a resumed run continues exactly where it stopped.

import type { TextGenerator } from '../engine/generator';
import type { LlamaConfig, Params } from '../engine/decoder';
import type { AggMode, KlType } from '../engine/losses';
import type { Runtime } from '../engine/runtime';
import { createOrtKVModel, Sampler } from '../engine/sampler';
import type { BPETokenizer } from '../engine/tokenizer';
import { Model } from '../engine/trainer-core';
import type { Task } from '../envs/types';
import { evaluate, succeeded, truncatedRows, type EvalResult } from '../agent/evaluate';
import { rolloutSettings, type PromptProfile } from '../agent/profile';
import { checklistJudge, ERROR_REWARDS, hashSeed, JUDGE_ON, rolloutGroups, type ErrorReward, type JudgeOn, type RolloutJudge } from '../agent/rollout';
import type { Role, Trajectory } from '../agent/types';
import { batchFidelity } from '../agent/fidelity';
import { buildProbes, scoreProbes, summarizeProbes, type Probe, type ProbeSummary } from '../agent/probes';
import { computeAdvantages, isBlankOutput, isVariantName, roleStats, rowReward, SINGLETON_RULES, VARIANTS, type AdvRow, type SingletonRule, type StdNorm, type VariantName } from './advantages';
import { grpoUpdate, usableRows } from './update';
import { decodeCheckpoint, encodeCheckpoint, type CheckpointStore, type TensorSet } from './checkpoint';

/** Options under verl/TRL names where they exist. */
export interface TrainConfig {
  variant: VariantName;
  seed: number;
  steps: number;
  /** Tasks per step (verl data.train_batch_size). */
  tasksPerStep: number;
  /** Rollouts per task (actor_rollout_ref.rollout.n / TRL num_generations). */
  groupSize: number;
  stdNorm: StdNorm;                      // verl norm_adv_by_std_in_grpo (none | group | batch)
  /** A GRPO group of one member: 'reward' (verl: mean 0, std 1, A = R) or 'zero' (our old rule). */
  singletonGroups: SingletonRule;
  lossAggMode: AggMode;                  // verl loss_agg_mode
  clipRatioLow: number;
  clipRatioHigh: number;
  clipRatioC: number;                    // dual-clip constant
  klType: KlType;                        // verl kl_loss_type (k3 = low_var_kl); 'none' = use_kl_loss false
  klCoef: number;
  lr: number;
  weightDecay: number;
  gradClip: number;
  temperature: number;
  topP: number;
  topK: number;
  /** Act generations per episode (the reference's max_assistant_turns, 30); every built-in expert fits. */
  maxTurns: number;
  reward: 'checklist' | 'outcome' | 'both' | 'success';
  /** Added to a row's reward when its decoded text is blank (≤ 0; the reference subtracts 0.1). */
  emptyPenalty: number;
  /** Reward of an episode a fatal error ended (see RolloutConfig.errorReward); the same rule in evaluation. */
  errorReward: ErrorReward;
  /** What the checklist judge reads in imagined rollouts: 'transcript' (reference) or 'real' (shadow results). */
  judgeOn: JudgeOn;
  /**
   * The real-environment budget: share of tool calls in training rollouts executed in the real environment
   * instead of rehearsed (RolloutConfig.realFraction), in [0, 1]; 0 = EnvACE, 1 = GRPO on the real environment.
   * Variants whose rollouts are real already ignore it.
   */
  realFraction: number;
  /** Rows per training-graph call (static shapes: short micro-batches are padded). */
  microBatch: number;
  evalEvery: number;
  evalTasks: number;
  evalK: number;
  /** Fidelity probes scored at each evaluation (recall vs inference, src/agent/probes.ts); 0 = none. */
  evalProbes: number;
  checkpointEvery: number;
  /**
   * Dynamic sampling (DAPO): a group whose K trajectory rewards are all equal carries no advantage, so it is
   * replaced by a fresh task's group until the step holds tasksPerStep informative groups or maxRefills extra
   * groups were rolled out. As in DAPO the update averages over the informative groups' rows only (dropping a
   * group of equal rewards shrinks the loss's divisor, so the remaining rows weigh more). Within the kept groups,
   * rows whose advantage is zero are skipped (with KL off they add nothing to the gradient; the divisor still
   * counts them, so that skip changes no weight).
   */
  dynamicSampling: boolean;
  /** Extra groups a step may roll out to fill its quota of informative groups (dynamic sampling). */
  maxRefills: number;
  /** Linear learning-rate warmup over this many steps (0 = none). */
  warmupSteps: number;
  /**
   * 'drop': rows with a negative advantage are left out of the update (as zero-advantage rows are; the divisors still
   * count them), so only what beat its group's baseline is reinforced — rejection-sampling fine-tuning weighted by
   * advantage. Tried on retail, where pushing down confident tokens of failed rollouts went with more malformed
   * calls held out. 'keep' (default): the reference's update.
   */
  negativeAdvantages: 'keep' | 'drop';
}

/** Training tasks are drawn from the first this-many seeds of a world's train split (src/rl/session.ts). */
export const TRAIN_TASK_POOL = 4000;

export const DEFAULT_TRAIN_CONFIG: TrainConfig = {
  variant: 'envace', seed: 1, steps: 20, tasksPerStep: 8, groupSize: 8,
  stdNorm: 'none', singletonGroups: 'reward', lossAggMode: 'seq-mean-token-mean', clipRatioLow: 0.2, clipRatioHigh: 0.2, clipRatioC: 3,
  klType: 'none', klCoef: 1e-4, lr: 1e-4, weightDecay: 0.01, gradClip: 1,
  temperature: 1, topP: 1, topK: 0, maxTurns: 30, reward: 'checklist', emptyPenalty: -0.1,
  errorReward: 'keep-completed-turns', judgeOn: 'transcript', realFraction: 0,
  microBatch: 8, evalEvery: 5, evalTasks: 16, evalK: 1, evalProbes: 16, checkpointEvery: 5,
  dynamicSampling: true, maxRefills: 8, warmupSteps: 10, negativeAdvantages: 'keep',
};

/** A trajectory's training reward under `reward` (t.reward already follows `errorReward`). */
export function trajectoryReward(t: Trajectory, reward: TrainConfig['reward'], errorReward: ErrorReward): number {
  // 'zero-episode' zeroes the outcome part too.
  if (t.error && errorReward === 'zero-episode') return 0;
  // 'success' is the evaluation's own metric: the verified state AND every checklist item (replies included), so
  // a policy cannot earn it by reaching the right state and then replying with one word ('outcome' can).
  if (reward === 'success') return succeeded(t);
  const checklist = t.reward ?? t.verdict?.score ?? 0;
  const outcome = t.verdict?.outcome?.passed ? 1 : 0;
  return reward === 'checklist' ? checklist : reward === 'outcome' ? outcome : 0.5 * (checklist + outcome);
}

/** Structured config validation: every problem, not just the first. */
export function validateTrainConfig(c: Partial<TrainConfig>): { ok: true; config: TrainConfig } | { ok: false; errors: string[] } {
  // A config file may hold any JSON: anything but an object is one problem, not a TypeError.
  if (typeof c !== 'object' || c === null || Array.isArray(c)) return { ok: false, errors: [`a training config must be a JSON object (got ${c === null ? 'null' : Array.isArray(c) ? 'a list' : typeof c})`] };
  const cfg = { ...DEFAULT_TRAIN_CONFIG, ...c };
  const errors: string[] = [];
  const known = new Set(Object.keys(DEFAULT_TRAIN_CONFIG));
  for (const k of Object.keys(c)) if (!known.has(k)) errors.push(`unknown option '${k}'`);
  if (!isVariantName(cfg.variant)) errors.push(`variant must be one of ${Object.keys(VARIANTS).join(', ')} (got ${JSON.stringify(cfg.variant)})`);
  for (const k of ['steps', 'tasksPerStep', 'groupSize', 'microBatch', 'maxTurns', 'evalTasks', 'evalK'] as const) {
    if (!Number.isInteger(cfg[k]) || cfg[k] < (k === 'steps' ? 0 : 1)) errors.push(`${k} must be a positive integer (got ${JSON.stringify(cfg[k])})`);
  }
  for (const k of ['lr', 'weightDecay', 'gradClip', 'temperature', 'clipRatioLow', 'clipRatioHigh', 'klCoef'] as const) {
    if (typeof cfg[k] !== 'number' || !Number.isFinite(cfg[k]) || cfg[k] < 0) errors.push(`${k} must be a finite number ≥ 0 (got ${JSON.stringify(cfg[k])})`);
  }
  if (typeof cfg.clipRatioC !== 'number' || !Number.isFinite(cfg.clipRatioC) || cfg.clipRatioC <= 1) errors.push(`clipRatioC must be a finite number > 1 (dual-clip; got ${JSON.stringify(cfg.clipRatioC)})`);
  for (const k of ['seed', 'topK', 'evalEvery', 'checkpointEvery', 'maxRefills', 'warmupSteps'] as const) {
    if (!Number.isSafeInteger(cfg[k]) || cfg[k] < 0) errors.push(`${k} must be an integer ≥ 0 (got ${JSON.stringify(cfg[k])})`);
  }
  if (typeof cfg.topP !== 'number' || !(cfg.topP >= 0 && cfg.topP <= 1)) errors.push(`topP must be a number in [0, 1] (got ${JSON.stringify(cfg.topP)})`);
  if (!Number.isInteger(cfg.evalProbes) || cfg.evalProbes < 0) errors.push(`evalProbes must be an integer ≥ 0 (got ${JSON.stringify(cfg.evalProbes)})`);
  if (!['none', 'group', 'batch'].includes(cfg.stdNorm)) errors.push('stdNorm must be none | group | batch');
  if (!SINGLETON_RULES.includes(cfg.singletonGroups)) errors.push(`singletonGroups must be ${SINGLETON_RULES.join(' | ')}`);
  if (typeof cfg.emptyPenalty !== 'number' || !Number.isFinite(cfg.emptyPenalty) || cfg.emptyPenalty > 0) errors.push(`emptyPenalty must be a finite number ≤ 0 (it is added to a blank row's reward; got ${JSON.stringify(cfg.emptyPenalty)})`);
  if (typeof cfg.dynamicSampling !== 'boolean') errors.push(`dynamicSampling must be true or false (got ${JSON.stringify(cfg.dynamicSampling)})`);
  if (!ERROR_REWARDS.includes(cfg.errorReward)) errors.push(`errorReward must be ${ERROR_REWARDS.join(' | ')} (got ${JSON.stringify(cfg.errorReward)})`);
  if (typeof cfg.realFraction !== 'number' || !(cfg.realFraction >= 0 && cfg.realFraction <= 1)) errors.push(`realFraction must be a number in [0, 1] (share of tool calls executed in the real environment; got ${JSON.stringify(cfg.realFraction)})`);
  if (!JUDGE_ON.includes(cfg.judgeOn)) errors.push(`judgeOn must be ${JUDGE_ON.join(' | ')} (got ${JSON.stringify(cfg.judgeOn)})`);
  if (!['token-mean', 'seq-mean-token-mean', 'seq-mean-token-sum', 'seq-mean-token-sum-norm'].includes(cfg.lossAggMode)) errors.push('lossAggMode is not a verl mode');
  if (!['none', 'k1', 'k2', 'k3'].includes(cfg.klType)) errors.push('klType must be none | k1 | k2 | k3');
  if (!['checklist', 'outcome', 'both', 'success'].includes(cfg.reward)) errors.push('reward must be checklist | outcome | both | success');
  if (!['keep', 'drop'].includes(cfg.negativeAdvantages)) errors.push(`negativeAdvantages must be keep | drop (got ${JSON.stringify(cfg.negativeAdvantages)})`);
  return errors.length ? { ok: false, errors } : { ok: true, config: cfg };
}

export interface StepMetrics {
  step: number;
  reward: number;                        // mean trajectory reward
  rewardAct: number; rewardRehearse: number;
  advActMean: number; advActAbs: number; advRehearseMean: number; advRehearseAbs: number;
  trainSuccess: number;
  fidelityF1: number; fidelityExact: number;
  /** Tool calls of this step's rollouts executed in the real environment (all in real mode; the realFraction share otherwise). */
  realCalls: number;
  loss: number; pgLoss: number; klLoss: number; ppoKl: number; clipfrac: number;
  entropy: number; gradNorm: number;
  /** Groups rolled out this step, those whose K rewards differ (informative), and the refills among them. */
  groups?: number; informativeGroups?: number; informativeShare?: number; refills?: number;
  /** Mean trajectory reward of the rows of each trained role; null where the variant does not train the role. */
  rewardActTrained?: number | null; rewardRehearseTrained?: number | null;
  /** KL(policy ‖ initial policy), k3 estimator on the sampled tokens of the step's first packed batch. */
  klToInit?: number | null;
  /** ‖Δθ‖ / ‖θ‖ of this step's update (all parameters). */
  updateRatio?: number;
  /** The learning rate this step used (warmup). */
  lr?: number;
  /** Generations stopped by their token budget, per role. */
  truncatedAct?: number; truncatedRehearse?: number;
  /** Rows the update trained on (zero-advantage rows left out). */
  updateRows?: number;
  rows: number; tokens: number; rolloutTokensPerS: number;
  secondsPerStep: number; rolloutSeconds: number; judgeSeconds: number; updateSeconds: number;
  skipped: boolean; note?: string;
}

export interface EvalMetrics {
  step: number; success: number; checklist: number; passAtK: number; fidelityF1: number; fidelityExact: number; errorAgree: number;
  /**
   * Fidelity on the fixed probe subset (hints on, greedy), split by label: recall = a shown hint holds the real
   * result, inference = none does. null when the label has no probe; absent in records from before probes.
   */
  recallF1?: number | null; recallExact?: number | null; inferenceF1?: number | null; inferenceExact?: number | null;
  recallProbes?: number; inferenceProbes?: number;
  /**
   * Held-out success per task (Avg@k over its samples), in the order of the evaluation's tasks, which are the same
   * at every evaluation of a run: two evaluations can be compared task by task (a paired interval). Absent in
   * records from before it.
   */
  taskSuccess?: number[];
  /** The same probes with the Rehearse prompt's hints off: nothing to copy, so this is the world model alone. */
  noHintsF1?: number | null; noHintsExact?: number | null;
}

export interface TrainerDeps {
  runtime: Runtime;
  config: LlamaConfig;
  params: Params;
  tokenizer: BPETokenizer;
  ids: { eos: number; pad: number };
  profile: PromptProfile;
  /**
   * The step's training tasks. `round` > 0 asks for refills of dynamic sampling (fresh draws, none of `exclude`).
   * Deterministic in its arguments, so a resumed run draws the same tasks.
   */
  trainTasks: (seeds: { step: number; count: number; seed: number; round?: number; exclude?: ReadonlySet<string> }) => Task[];
  evalTasks: Task[];
  store?: CheckpointStore;
  runId: string;
  log?: (s: string) => void;
  /** The checklist judge of training rollouts (default: the rule-based one; the reference uses an LLM judge). */
  judge?: RolloutJudge;
  /** Progress inside a step: each rollout round, then each model's update (the browser shows it live). */
  onProgress?: (p: StepProgress) => void;
}

/** Where a running step is: `step` is the one in progress (1-based). */
export type StepProgress =
  | { phase: 'rollout'; step: number; round: number; generations: number; trajectories: number; finished: number }
  | { phase: 'update'; step: number; model: number; models: number; rows: number };

interface Policy { role: Role | 'both'; model: Model }

export class GrpoTrainer {
  readonly cfg: TrainConfig;
  step = 0;
  readonly history: StepMetrics[] = [];
  readonly evals: EvalMetrics[] = [];
  private policies: Policy[];
  private frozen: Params;
  private ref?: Model;
  private simulator?: Sampler;

  constructor(cfg: TrainConfig, private deps: TrainerDeps) {
    this.cfg = cfg;
    const v = VARIANTS[cfg.variant];
    const make = () => new Model(deps.config, deps.runtime, cloneParams(deps.params), { seed: cfg.seed, adam: { weightDecay: cfg.weightDecay, maxGradNorm: cfg.gradClip } });
    this.policies = v.models === 'per-role' ? [{ role: 'act', model: make() }, { role: 'rehearse', model: make() }] : [{ role: 'both', model: make() }];
    this.frozen = cloneParams(deps.params);
    if (cfg.klType !== 'none') this.ref = new Model(deps.config, deps.runtime, this.frozen);
  }

  get variant() { return VARIANTS[this.cfg.variant]; }

  private policyFor(role: Role): Model {
    return (this.policies.find((p) => p.role === role) ?? this.policies[0]).model;
  }

  private async sampler(params: Params, name: string): Promise<Sampler & { release(): Promise<void> }> {
    const kv = await createOrtKVModel(this.deps.runtime, this.deps.config, params);
    const s = new Sampler(kv, this.deps.tokenizer, { name, maxContext: this.deps.config.max_position_embeddings, eosTokenIds: [this.deps.ids.eos], padTokenId: this.deps.ids.pad, prefixCache: true }) as Sampler & { release(): Promise<void> };
    s.release = () => kv.release();
    return s;
  }

  /** The generators a rollout of this variant needs: the policy, and who answers tool calls. */
  private async generators(): Promise<{ mode: 'rehearsal' | 'simulator' | 'real'; policy: Sampler & { release(): Promise<void> }; simulator?: TextGenerator; release: () => Promise<void> }> {
    const v = this.variant;
    const policy = await this.sampler(this.policyFor('act').params, 'policy');
    if (v.models === 'per-role') {
      // The Rehearse model answers tool calls; its rows are trained, unlike a frozen simulator's.
      const reh = await this.sampler(this.policyFor('rehearse').params, 'rehearse-policy');
      return { mode: 'simulator', policy, simulator: reh, release: async () => { await policy.release(); await reh.release(); } };
    }
    if (v.rolloutMode === 'simulator') {
      this.simulator ??= await this.sampler(this.frozen, 'frozen-simulator');
      return { mode: 'simulator', policy, simulator: this.simulator, release: () => policy.release() };
    }
    return { mode: v.rolloutMode, policy, release: () => policy.release() };
  }

  private trajectoryReward(t: Trajectory): number {
    return trajectoryReward(t, this.cfg.reward, this.cfg.errorReward);
  }

  /** One rollout pass over `tasks` (K samples each) with the step's generators and settings. */
  private async rolloutPass(tasks: Task[], round: number, gens: Awaited<ReturnType<GrpoTrainer['generators']>>, judge: RolloutJudge, progress: { gens: number; done: number; total: number }): Promise<Trajectory[]> {
    const c = this.cfg;
    const settings = rolloutSettings(this.deps.profile);
    const nTraj = tasks.length * c.groupSize;
    return rolloutGroups(tasks, c.groupSize, {
      ...settings, mode: gens.mode, policy: gens.policy, simulator: gens.simulator, judge,
      // Round 0 keeps the seed of runs from before dynamic sampling; refills get their own.
      seed: round === 0 ? hashSeed('rollout', c.seed, this.step) : hashSeed('rollout', c.seed, this.step, 'refill', round),
      act: { ...settings.act, temperature: c.temperature, topP: c.topP, topK: c.topK },
      rehearse: { ...settings.rehearse, temperature: c.temperature, topP: c.topP, topK: c.topK },
      limits: { ...settings.limits, maxAssistantTurns: c.maxTurns },
      errorReward: c.errorReward, judgeOn: c.judgeOn,
      realFraction: gens.mode === 'real' ? 0 : c.realFraction,
      onRound: this.deps.onProgress && (({ round: r, live, requests }) => {
        // Called before a round's generations: the earlier rounds' are done.
        this.deps.onProgress!({ phase: 'rollout', step: this.step + 1, round: r, generations: progress.gens, trajectories: progress.total, finished: progress.done + nTraj - live });
        progress.gens += requests;
      }),
    });
  }

  /**
   * The step's groups: tasksPerStep tasks × K rollouts, then (dynamic sampling) refills of fresh tasks while fewer
   * than tasksPerStep groups are informative (their K rewards differ), at most maxRefills extra groups.
   */
  private async collectGroups(gens: Awaited<ReturnType<GrpoTrainer['generators']>>, judge: RolloutJudge) {
    const c = this.cfg;
    const groups: { task: Task; trajs: Trajectory[]; informative: boolean }[] = [];
    const used = new Set<string>();
    const progress = { gens: 0, done: 0, total: c.tasksPerStep * c.groupSize };
    const run = async (tasks: Task[], round: number) => {
      const trajs = await this.rolloutPass(tasks, round, gens, judge, progress);
      progress.done += trajs.length;
      tasks.forEach((task, i) => {
        used.add(task.id);
        const mine = trajs.slice(i * c.groupSize, (i + 1) * c.groupSize);
        const r = mine.map((t) => this.trajectoryReward(t));
        groups.push({ task, trajs: mine, informative: r.some((x) => Math.abs(x - r[0]) > 1e-9) });
      });
    };
    await run(this.deps.trainTasks({ step: this.step, count: c.tasksPerStep, seed: c.seed }), 0);
    let refills = 0;
    for (let round = 1; c.dynamicSampling && refills < c.maxRefills; round++) {
      const have = groups.filter((g) => g.informative).length;
      if (have >= c.tasksPerStep) break;
      // Ask for enough to fill the quota at the step's informative rate so far (at least the missing count).
      const rate = Math.max(0.25, have / groups.length);
      const want = Math.min(c.maxRefills - refills, Math.ceil((c.tasksPerStep - have) / rate));
      const tasks = this.deps.trainTasks({ step: this.step, count: want, seed: c.seed, round, exclude: used });
      if (tasks.length === 0) break;
      progress.total += tasks.length * c.groupSize;
      await run(tasks, round);
      refills += tasks.length;
    }
    return { groups, refills };
  }

  /** One GRPO step. Returns its metrics (also appended to history). */
  async trainStep(): Promise<StepMetrics> {
    const c = this.cfg;
    const t0 = now();
    const gens = await this.generators();
    let judgeMs = 0;
    const judge = this.deps.judge ?? checklistJudge;
    const timed: RolloutJudge = {
      judgeTurn: (...a) => { const s = now(); const r = judge.judgeTurn(...a); judgeMs += now() - s; return r; },
    };
    if (judge.judgeEpisode) timed.judgeEpisode = (...a) => { const s = now(); const r = judge.judgeEpisode!(...a); judgeMs += now() - s; return r; };
    let collected;
    try { collected = await this.collectGroups(gens, timed); } finally { await gens.release(); }
    const { groups, refills } = collected;
    const trajs = groups.flatMap((g) => g.trajs);
    // The update's groups: all of them without dynamic sampling; with it, the informative ones (in draw order).
    const kept = c.dynamicSampling ? groups.filter((g) => g.informative) : groups;
    const t1 = now();

    // Rows → rewards → advantages (only the roles this variant trains).
    const trainRoles = new Set(this.variant.trainRoles);
    const rows: { traj: Trajectory; row: Trajectory['rows'][number] }[] = [];
    const adv: AdvRow[] = [];
    for (const [ti, t] of kept.flatMap((g) => g.trajs).entries()) {
      const R = this.trajectoryReward(t);
      for (const row of t.rows) {
        if (!trainRoles.has(row.role)) continue;
        if (row.frozen && this.variant.models !== 'per-role') continue;
        rows.push({ traj: t, row });
        adv.push({ groupId: t.groupId, trajectoryId: String(ti), role: row.role, reward: rowReward(R, isBlankOutput(row.text), c.emptyPenalty) });
      }
    }
    const { advantages: computed } = computeAdvantages(adv, { grouping: this.variant.grouping, stdNorm: c.stdNorm, singleton: c.singletonGroups });
    const stats = roleStats(adv, computed);
    const advantages = c.negativeAdvantages === 'drop' ? computed.map((a) => Math.max(0, a)) : computed;

    // Update each model on its rows.
    const lr = c.warmupSteps > 0 ? c.lr * Math.min(1, (this.step + 1) / c.warmupSteps) : c.lr;
    let loss = 0, pg = 0, kl = 0, ppoKl = 0, clip = 0, ent = 0, gradNorm = 0, tokens = 0, skipped = false, updateRows = 0;
    let klInit: number | null = null, ratio = 0;
    const notes: string[] = [];
    for (const [pi, p] of this.policies.entries()) {
      const mine = rows.map((r, i) => ({ ...r, adv: advantages[i] })).filter((r) => p.role === 'both' || r.row.role === p.role);
      this.deps.onProgress?.({ phase: 'update', step: this.step + 1, model: pi + 1, models: this.policies.length, rows: mine.length });
      const u = await this.update(p.model, mine, lr);
      loss += u.loss; pg += u.pg; kl += u.kl; ppoKl += u.ppoKl; clip += u.clip; ent += u.entropy; tokens += u.tokens;
      gradNorm = Math.max(gradNorm, u.gradNorm);
      updateRows += u.rows;
      if (u.klToInit !== undefined && pi === 0) klInit = u.klToInit;
      ratio = Math.max(ratio, u.updateRatio ?? 0);
      if (u.skipped) { skipped = true; notes.push(u.note!); }
    }
    const n = this.policies.length;
    const t2 = now();
    const fid = batchFidelity(trajs).overall;
    const genTokens = trajs.reduce((s, t) => s + t.rows.reduce((a, r) => a + r.outputIds.length, 0), 0);
    const trunc = truncatedRows(trajs);
    const informative = groups.filter((g) => g.informative).length;
    const m: StepMetrics = {
      step: this.step + 1,
      reward: mean(trajs.map((t) => this.trajectoryReward(t))),
      rewardAct: stats.act.rewardMean, rewardRehearse: stats.rehearse.rewardMean,
      advActMean: stats.act.advMean, advActAbs: stats.act.advAbsMean, advRehearseMean: stats.rehearse.advMean, advRehearseAbs: stats.rehearse.advAbsMean,
      trainSuccess: mean(trajs.map(succeeded)),
      fidelityF1: fid.meanF1, fidelityExact: fid.exactRate,
      realCalls: trajs.reduce((s, t) => s + (t.realCalls ?? 0), 0),
      loss: loss / n, pgLoss: pg / n, klLoss: kl / n, ppoKl: ppoKl / n, clipfrac: clip / n, entropy: ent / n, gradNorm,
      groups: groups.length, informativeGroups: informative, informativeShare: groups.length ? informative / groups.length : 0, refills,
      rewardActTrained: trainRoles.has('act') ? roleReward(trajs, 'act', (t) => this.trajectoryReward(t)) : null,
      rewardRehearseTrained: trainRoles.has('rehearse') ? roleReward(trajs, 'rehearse', (t) => this.trajectoryReward(t)) : null,
      klToInit: klInit, updateRatio: ratio, lr,
      truncatedAct: trunc.act, truncatedRehearse: trunc.rehearse, updateRows,
      rows: rows.length, tokens, rolloutTokensPerS: genTokens / Math.max(1e-3, (t1 - t0) / 1000),
      secondsPerStep: (t2 - t0) / 1000, rolloutSeconds: (t1 - t0 - judgeMs) / 1000, judgeSeconds: judgeMs / 1000, updateSeconds: (t2 - t1) / 1000,
      skipped, note: notes.length ? notes.join('; ') : undefined,
    };
    this.step += 1;
    this.history.push(m);
    if (this.deps.store && c.checkpointEvery > 0 && this.step % c.checkpointEvery === 0) await this.saveCheckpoint();
    return m;
  }

  /** The GRPO update (src/rl/update.ts: packed rows, shared prefixes computed once), with its diagnostics. */
  private async update(model: Model, rows: { row: Trajectory['rows'][number]; adv: number }[], lr: number) {
    const c = this.cfg;
    // With KL off a zero-advantage row adds nothing to the loss's gradient; it still counts in the aggregation's
    // divisors (`aggregate`), so leaving it out changes no gradient, only the work. When every advantage is zero
    // the whole step still runs (AdamW's decay and momentum move the weights; the non-finite guard sees the loss).
    const usable = usableRows(rows.map((r) => r.row), this.deps.config.max_position_embeddings);
    const nonZero = rows.filter((r) => r.adv !== 0);
    const live = c.klType === 'none' && nonZero.length > 0 ? nonZero : rows;
    // Every policy starts from the frozen weights: the KL reference, when there is one, is that model already.
    this.initModel ??= this.ref ?? new Model(this.deps.config, this.deps.runtime, this.frozen);
    const before = paramsBefore(model.params);
    const u = await grpoUpdate(model, live.map((r) => ({ promptIds: r.row.promptIds, outputIds: r.row.outputIds, logprobs: r.row.logprobs, adv: r.adv })), {
      lossAggMode: c.lossAggMode, klType: c.klType, clipRatioLow: c.clipRatioLow, clipRatioHigh: c.clipRatioHigh, clipRatioC: c.clipRatioC,
      klCoef: c.klCoef, lr, pad: this.deps.ids.pad, maxContext: this.deps.config.max_position_embeddings,
      aggregate: live.length < rows.length ? { rows: usable.length, tokens: usable.reduce((a, r) => a + r.outputIds.length, 0) } : undefined,
    }, this.ref, this.initModel);
    if (u.skipped) {
      u.note = `non-finite loss or gradient at step ${this.step + 1}: update skipped, weights unchanged`;
      this.deps.log?.(u.note);
    }
    return { ...u, updateRatio: updateRatio(before, model.params) };
  }

  /** The initial weights as a model, for the KL-to-initial diagnostic. */
  private initModel?: Model;

  async evaluate(): Promise<EvalMetrics> {
    const policy = await this.sampler(this.policyFor('act').params, 'eval-policy');
    // One reward rule for training and evaluation (the reference's, unless the run chose otherwise).
    const settings = { ...rolloutSettings(this.deps.profile), errorReward: this.cfg.errorReward };
    const k = this.cfg.evalK;
    const temperature = k > 1 ? this.cfg.temperature : 0;
    const real = await evaluate(this.deps.evalTasks, policy, { mode: 'real', k, temperature, seed: this.cfg.seed, rollout: settings });
    // Fidelity of the Rehearse role this variant would use (the Rehearse model for per-role).
    let rehearse: EvalResult;
    let probes: { on: ProbeSummary; off: ProbeSummary } | null;
    if (this.variant.models === 'per-role') {
      const reh = await this.sampler(this.policyFor('rehearse').params, 'eval-rehearse');
      rehearse = (await evaluate(this.deps.evalTasks, policy, { mode: 'simulator', simulator: reh, k: 1, seed: this.cfg.seed, rollout: settings })).result;
      probes = await this.probeFidelity(reh);
      await reh.release();
    } else {
      rehearse = (await evaluate(this.deps.evalTasks, policy, { mode: 'rehearsal', k: 1, seed: this.cfg.seed, rollout: settings })).result;
      probes = await this.probeFidelity(policy);
    }
    await policy.release();
    const rate = (s: ProbeSummary['recall'] | undefined, k: 'meanF1' | 'exactRate') => (s && s.calls > 0 ? s[k] : null);
    const e: EvalMetrics = {
      step: this.step, success: real.result.success, checklist: real.result.checklist, passAtK: real.result.passAtK,
      taskSuccess: this.deps.evalTasks.map((t) => {
        const mine = real.trajectories.filter((x) => x.taskId === t.id);
        return mine.length ? mine.reduce((a, x) => a + succeeded(x), 0) / mine.length : 0;
      }),
      fidelityF1: rehearse.fidelity.meanF1, fidelityExact: rehearse.fidelity.exactRate, errorAgree: rehearse.fidelity.errorAgreeRate,
      ...(probes ? {
        recallF1: rate(probes.on.recall, 'meanF1'), recallExact: rate(probes.on.recall, 'exactRate'), recallProbes: probes.on.recall.calls,
        inferenceF1: rate(probes.on.inference, 'meanF1'), inferenceExact: rate(probes.on.inference, 'exactRate'), inferenceProbes: probes.on.inference.calls,
        noHintsF1: rate(probes.off.overall, 'meanF1'), noHintsExact: rate(probes.off.overall, 'exactRate'),
      } : {}),
    };
    this.evals.push(e);
    return e;
  }

  private probes?: Probe[];

  /**
   * Recall and inference fidelity of a Rehearse generator on cfg.evalProbes probes of the held-out tasks, with
   * the prompt's hints on (as in rollouts) and off.
   * Selection seed 0 whatever the run's seed, so every run and variant is measured on the same probes.
   */
  private async probeFidelity(gen: TextGenerator): Promise<{ on: ProbeSummary; off: ProbeSummary } | null> {
    if (this.cfg.evalProbes <= 0) return null;
    const settings = rolloutSettings(this.deps.profile);
    this.probes ??= (await buildProbes(this.deps.evalTasks, {
      rollout: settings, maxContext: gen.maxContext, countTokens: (t) => gen.countTokens(t), seed: 0, count: this.cfg.evalProbes,
    })).probes;
    const score = async (hints: boolean) => summarizeProbes(await scoreProbes(gen, this.probes!, { hints, maxNewTokens: settings.rehearse?.maxNewTokens ?? 256, seed: this.cfg.seed }));
    return { on: await score(true), off: await score(false) };
  }

  // ---------- checkpoints ----------

  async saveCheckpoint(): Promise<void> {
    if (!this.deps.store) return;
    const tensors: Record<string, TensorSet> = Object.create(null);
    const adamSteps: number[] = [];
    this.policies.forEach((p, i) => {
      tensors[`${i}.params`] = p.model.params; tensors[`${i}.m`] = p.model.m; tensors[`${i}.v`] = p.model.v;
      adamSteps.push(p.model.step);
    });
    const shapes = Object.fromEntries(this.policies[0].model.specs.map((s) => [s.name, s.shape]));
    const bytes = encodeCheckpoint({
      version: 1, runId: this.deps.runId, step: this.step, shapes, tensors,
      meta: { config: this.cfg, adamSteps, history: this.history, evals: this.evals, model: this.deps.config },
    });
    await this.deps.store.save(this.deps.runId, bytes);
  }

  /** Restores weights, optimizer state, step counter and metrics. Returns false when there is none. */
  async resume(): Promise<boolean> {
    const bytes = await this.deps.store?.load(this.deps.runId);
    if (!bytes) return false;
    const ck = decodeCheckpoint(bytes);
    const meta = ck.meta as { config: TrainConfig; adamSteps: number[]; history: StepMetrics[]; evals: EvalMetrics[] };
    if (meta.config.variant !== this.cfg.variant) throw new Error(`checkpoint is for variant ${meta.config.variant}, not ${this.cfg.variant}`);
    this.policies.forEach((p, i) => {
      p.model.params = ck.tensors[`${i}.params`]; p.model.m = ck.tensors[`${i}.m`]; p.model.v = ck.tensors[`${i}.v`];
      p.model.step = meta.adamSteps[i];
    });
    this.step = ck.step;
    this.history.splice(0, this.history.length, ...meta.history);
    this.evals.splice(0, this.evals.length, ...meta.evals);
    return true;
  }

  /** Current weights of the Act policy (the model a run exports). */
  actParams(): Params { return this.policyFor('act').params; }
  rehearseParams(): Params { return this.policyFor('rehearse').params; }
  /** The starting weights, never trained: the frozen simulator of 'grpo-simulator' and the KL reference. */
  frozenParams(): Params { return this.frozen; }
}

/**
 * The parameters before an update and their norm. No copy: an AdamW step replaces each host parameter array with
 * the graph's output (Model.takeAdamOutputs), so the old arrays keep the old values.
 */
function paramsBefore(p: Params): { values: Float32Array[]; norm: number } {
  const values = Object.values(p);
  let s = 0;
  for (const v of values) for (let i = 0; i < v.length; i++) s += v[i] * v[i];
  return { values, norm: Math.sqrt(s) };
}

function updateRatio(before: { values: Float32Array[]; norm: number }, after: Params): number {
  let d = 0;
  Object.values(after).forEach((v, j) => { const b = before.values[j]; for (let i = 0; i < v.length; i++) d += (v[i] - b[i]) ** 2; });
  return before.norm > 0 ? Math.sqrt(d) / before.norm : 0;
}

/** Mean reward of a role's rows over trajectories (a row carries its trajectory's reward); null without rows. */
function roleReward(trajs: Trajectory[], role: Role, rewardOf: (t: Trajectory) => number): number | null {
  let s = 0, n = 0;
  for (const t of trajs) { const k = t.rows.filter((r) => r.role === role && !r.frozen).length; s += k * rewardOf(t); n += k; }
  return n ? s / n : null;
}

function mean(xs: number[]): number { return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0; }
function now(): number { return typeof performance !== 'undefined' ? performance.now() : Date.now(); }
export function cloneParams(p: Params): Params { return Object.fromEntries(Object.entries(p).map(([k, v]) => [k, v.slice()])); }

