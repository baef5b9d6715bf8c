// The simulator gate: does rehearsal agree with the real environment closely enough that a policy trained on its
// own imagined results learns what the real environment would teach? The same tasks and seeds run once in the real
// environment and once in rehearsal mode (the policy answers its own calls, each call also executed on a shadow
// copy of the real environment), and the two are compared where training would feel a difference:
//
//   rewards         real vs rehearsal reward per task, their gap and their correlation across tasks;
//   sign agreement  for every rehearsal-mode row, the sign of its role-wise advantage when the episode is judged
//                   on its transcript (what EnvACE trains on) vs on the shadow environment's results of the same
//                   calls (what the real environment would have said);
//   outputs         Rehearse rows cut off by their token budget, Rehearse outputs that do not parse;
//   recall          probes whose Rehearse prompt shows a hint with the same call: is the result copied exactly;
//   errors          calls the real environment rejects that Rehearse also rejects, and the reverse; and the same
//                   counted only on the real path (every earlier imagined result of the episode equal to the real
//                   one, or both errors): off it, the real environment is in a state the transcript never showed,
//                   and an error there follows from an earlier wrong result, not from this call.
//
// Intervals: percentile bootstrap over tasks (a task's rows, calls and probes resampled together).

import { isErrorObservation, judgeEpisode, type AssistantStep } from '../envs/judges';
import type { Environment, Observation, Task, ToolCall } from '../envs/types';
import { isErrorResult } from '../agent/fidelity';
import { matchingHint } from '../agent/prompts';
import { buildProbes, scoreProbes } from '../agent/probes';
import { REHEARSE_ERROR_CODES } from '../agent/protocol';
import { checklistJudge, rolloutGroups, type RolloutConfig, type RolloutJudge } from '../agent/rollout';
import type { Trajectory } from '../agent/types';
import type { TextGenerator } from '../engine/generator';
import { computeAdvantages, type AdvRow } from '../rl/advantages';
import { bootstrapStatistic, mean, pearson, type Estimate } from './stats';

export interface AgreementOptions {
  k: number;
  temperature: number;
  seed: number;
  rollout: Omit<RolloutConfig, 'mode' | 'policy'>;
  /** Probes for recall_exact (drawn from the same tasks); 0 = none. */
  probes: number;
  /** Tasks per rollout call (memory). */
  chunk?: number;
  resamples?: number;
  onProgress?: (phase: string, done: number, total: number) => void;
}

/** Per task: the numbers the report aggregates (kept in the JSON so a reader can redo any statistic). */
export interface TaskAgreement {
  id: string;
  real: number; rehearsal: number; rehearsalOnReal: number;
  signAgree: number; signRows: number;
  errBoth: number; errEither: number; realErr: number; realErrCaught: number; imaginedErr: number; imaginedErrReal: number;
  /** The same four error counts on the real path only (onRealPath); absent in reports older than them. */
  pathErrBoth?: number; pathErrEither?: number; pathRealErr?: number; pathRealErrCaught?: number;
  /** Rehearse rows on the real path. */
  pathRows?: number;
  /** On-path real errors by what the Rehearse prompt could know (errorClass): [real errors, caught]. */
  pathErrClasses?: Partial<Record<ErrorClass, [number, number]>>;
  rehearseRows: number; rehearseTruncated: number; rehearseParseErrors: number; actTruncatedReal: number; actTruncatedRehearsal: number;
  episodes: number; parseErrorEpisodes: number;
  recallProbes: number; recallExact: number;
}

export interface AgreementReport {
  protocol: { tasks: number; k: number; temperature: number; seed: number; probes: number; resamples: number };
  real_reward: Estimate;
  rehearsal_reward: Estimate;
  /** Rehearsal − real reward (paired by task). */
  reward_gap: Estimate;
  /** Pearson correlation of per-task mean rewards across the two modes. */
  task_correlation: Estimate;
  /** Rehearsal-mode rows with a non-zero advantage under either judge: same sign under both. */
  sign_agreement: Estimate;
  /** The rehearsal episodes judged on the shadow environment's results (what the real environment would score). */
  rehearsal_reward_on_real_results: Estimate;
  truncated_rehearse_rows: number;
  truncated_act_rows: { real: number; rehearsal: number };
  rehearse_rows: number;
  /** Rehearse outputs that did not parse (per Rehearse row). */
  parse_error_rate: Estimate;
  /** Rehearsal episodes a Rehearse parse error ended. */
  parse_error_episodes: Estimate;
  recall_exact: Estimate;
  recall_probes: number;
  /** Calls where either side returned an error: both did. */
  error_agreement: Estimate;
  /** Calls the real environment rejects that Rehearse also rejects; and Rehearse's errors the real one shares. */
  error_recall: Estimate;
  error_precision: Estimate;
  error_calls: { real: number; imagined: number; either: number };
  /** error_agreement and error_recall over the calls on the real path only (see onRealPath). */
  error_agreement_on_path: Estimate;
  error_recall_on_path: Estimate;
  error_calls_on_path: { real: number; either: number; rows: number };
  /** The on-path real errors by class (errorClass), each with how many Rehearse also returned as an error. */
  error_classes_on_path: Record<ErrorClass, { real: number; caught: number }>;
  seconds: number;
  tasks: TaskAgreement[];
}

const PARSE_CODES = new Set<string>(REHEARSE_ERROR_CODES);

/**
 * A judge that scores exactly like the checklist judge and keeps, per finished episode, the steps it judged and a
 * copy of the final (shadow) environment, so the episode can be judged again on the real results of its calls.
 */
function recordingJudge(): { judge: RolloutJudge; episodes: { task: Task; steps: AssistantStep[][]; env?: Environment }[] } {
  const episodes: { task: Task; steps: AssistantStep[][]; env?: Environment }[] = [];
  return {
    episodes,
    judge: {
      judgeTurn: checklistJudge.judgeTurn,
      judgeEpisode: (task, steps, env) => {
        episodes.push({ task, steps, env: env?.clone() });
        return judgeEpisode(task, steps, env);
      },
    },
  };
}

/**
 * The reward a rehearsal-mode trajectory would have earned had each imagined result been the shadow environment's
 * (the same calls; the steps judged are the rollout's own). Episodes are matched to trajectories through their call
 * objects (the rows hold the same objects).
 */
function rejudgeOnReal(trajs: Trajectory[], episodes: ReturnType<typeof recordingJudge>['episodes'], errorReward: RolloutConfig['errorReward']): number[] {
  const realOf = new Map<ToolCall, Observation>();
  const trajOf = new Map<ToolCall, number>();
  trajs.forEach((t, i) => {
    for (const r of t.rows) {
      if (r.role === 'rehearse' && r.call && r.real) realOf.set(r.call, r.real);
      if (r.call) trajOf.set(r.call, i);
      for (const c of r.calls ?? []) trajOf.set(c, i);
    }
  });
  const out = trajs.map((t) => t.reward ?? 0);
  for (const e of episodes) {
    const first = e.steps.flat().find((s) => s.call);
    const i = first?.call ? trajOf.get(first.call) : undefined;
    if (i === undefined) continue; // no call: both judges read the same replies
    const steps = e.steps.map((turn) => turn.map((s) => (s.call && realOf.has(s.call) ? { ...s, result: realOf.get(s.call)! } : s)));
    const v = judgeEpisode(e.task, steps, e.env);
    out[i] = trajs[i].error && errorReward === 'zero-episode' ? 0 : v.score;
  }
  return out;
}

/** Role-wise advantages (the trainer's grouping) of every policy row under two reward vectors. */
function advantageSigns(trajs: Trajectory[], a: number[], b: number[]): { agree: number; rows: number }[] {
  const rows: AdvRow[] = [], rowsB: AdvRow[] = [], owner: number[] = [];
  trajs.forEach((t, i) => {
    for (const r of t.rows) {
      rows.push({ groupId: t.groupId, trajectoryId: String(i), role: r.role, reward: a[i] });
      rowsB.push({ groupId: t.groupId, trajectoryId: String(i), role: r.role, reward: b[i] });
      owner.push(i);
    }
  });
  const A = computeAdvantages(rows, { grouping: 'task-role', stdNorm: 'none' }).advantages;
  const B = computeAdvantages(rowsB, { grouping: 'task-role', stdNorm: 'none' }).advantages;
  const per = trajs.map(() => ({ agree: 0, rows: 0 }));
  const sgn = (x: number) => (Math.abs(x) < 1e-9 ? 0 : Math.sign(x));
  A.forEach((x, j) => {
    if (sgn(x) === 0 && sgn(B[j]) === 0) return;
    per[owner[j]].rows++;
    if (sgn(x) === sgn(B[j])) per[owner[j]].agree++;
  });
  return per;
}

/**
 * One trajectory's Rehearse rows in order, each marked by whether it is on the real path: every earlier imagined
 * result of the trajectory equals the real one, or both are errors (an error changes no state). Off the path the
 * shadow environment's state differs from the one the transcript implies, so a real error there may be the
 * consequence of an earlier wrong result (a `cd` imagined to succeed, then every path relative to it fails).
 */
export function onRealPath(rows: { imagined?: string; real?: Observation; fidelity?: { exact: boolean } }[]): boolean[] {
  let on = true;
  return rows.map((r) => {
    const here = on;
    if (!r.real || r.imagined === undefined) { on = false; return false; }
    const bothErrors = isErrorObservation(r.real) && isErrorResult(r.imagined);
    if (!(r.fidelity?.exact || bothErrors)) on = false;
    return here;
  });
}

/**
 * What a Rehearse prompt could know about a call the real environment rejects:
 *   repeat     the same call (name and arguments) already succeeded earlier in the episode: its result there is
 *              in the history, so the state change is knowable (a second `cd` into the same folder);
 *   reference  the expert made the same call in the task's reference (a hint shows it succeeding), but from
 *              another state (e.g. `cd reports` after `cd docs`; from the root it fails): a hint shows the
 *              result, not the state it came from;
 *   unseen     no reference call like it (a name the policy guessed): knowable only from the tree itself.
 */
export type ErrorClass = 'repeat' | 'reference' | 'unseen';
export const ERROR_CLASSES: readonly ErrorClass[] = ['repeat', 'reference', 'unseen'];
const callKey = (c: ToolCall) => `${c.name} ${JSON.stringify(c.arguments)}`;

export function errorClass(call: ToolCall, earlierSucceeded: ToolCall[], reference: ToolCall[]): ErrorClass {
  const k = callKey(call);
  if (earlierSucceeded.some((c) => callKey(c) === k)) return 'repeat';
  return reference.some((c) => callKey(c) === k) ? 'reference' : 'unseen';
}

/** Error counts over Rehearse rows that have a real result: all of them, or those on the real path. */
const errorCounts = () => ({ rows: 0, both: 0, either: 0, real: 0, realCaught: 0, imagined: 0, imaginedReal: 0 });
function tally(c: ReturnType<typeof errorCounts>, real: boolean, imagined: boolean): void {
  c.rows++;
  if (real || imagined) c.either++;
  if (real && imagined) c.both++;
  if (real) { c.real++; if (imagined) c.realCaught++; }
  if (imagined) { c.imagined++; if (real) c.imaginedReal++; }
}

async function rolloutChunks(tasks: Task[], policy: TextGenerator, cfg: Omit<RolloutConfig, 'policy'>, k: number, chunk: number, onDone: (n: number) => void): Promise<Trajectory[]> {
  const out: Trajectory[] = [];
  for (let i = 0; i < tasks.length; i += chunk) {
    // Seeds derive from (seed, task id, sample), so chunking changes nothing.
    out.push(...await rolloutGroups(tasks.slice(i, i + chunk), k, { ...cfg, policy }));
    onDone(Math.min(tasks.length, i + chunk));
  }
  return out;
}

export async function measureAgreement(tasks: Task[], policy: TextGenerator, o: AgreementOptions): Promise<AgreementReport> {
  const t0 = Date.now();
  const chunk = o.chunk ?? 8;
  const sampling = (s: RolloutConfig['act']) => ({ ...s, temperature: o.temperature });
  const base = { ...o.rollout, seed: o.seed, act: sampling(o.rollout.act), rehearse: sampling(o.rollout.rehearse) };
  const real = await rolloutChunks(tasks, policy, { ...base, mode: 'real' }, o.k, chunk, (n) => o.onProgress?.('real', n, tasks.length));
  const rec = recordingJudge();
  const reh = await rolloutChunks(tasks, policy, { ...base, mode: 'rehearsal', shadow: true, judge: rec.judge, judgeOn: 'transcript' }, o.k, chunk, (n) => o.onProgress?.('rehearsal', n, tasks.length));
  const onReal = rejudgeOnReal(reh, rec.episodes, o.rollout.errorReward);
  const signs = advantageSigns(reh, reh.map((t) => t.reward ?? 0), onReal);

  // Recall probes: the tasks' reference calls whose Rehearse prompt shows a hint with the same call.
  const recall = new Map<string, { n: number; exact: number }>();
  if (o.probes > 0) {
    const set = await buildProbes(tasks, { rollout: o.rollout, maxContext: policy.maxContext, countTokens: (s) => policy.countTokens(s), seed: o.seed, count: o.probes * 4 });
    const withMatch = set.probes.filter((p) => matchingHint(p.hints, p.call)).slice(0, o.probes);
    const scored = await scoreProbes(policy, withMatch, { hints: true, maxNewTokens: o.rollout.rehearse?.maxNewTokens ?? 256, seed: o.seed, format: o.rollout.format, batchSize: 16 });
    scored.forEach((r, i) => {
      const id = withMatch[i].taskId;
      const s = recall.get(id) ?? { n: 0, exact: 0 };
      s.n++; if (r.fidelity.exact) s.exact++;
      recall.set(id, s);
    });
    o.onProgress?.('probes', withMatch.length, withMatch.length);
  }

  const per: TaskAgreement[] = tasks.map((task, ti) => {
    const idx = Array.from({ length: o.k }, (_, j) => ti * o.k + j);
    const rs = idx.map((i) => reh[i]);
    const perTraj = rs.map((t) => t.rows.filter((r) => r.role === 'rehearse'));
    const rows = perTraj.flat();
    const reference = (task.reference as { role: string; toolCalls?: ToolCall[] }[]).flatMap((m) => (m.role === 'assistant' ? m.toolCalls ?? [] : []));
    const all = errorCounts(), path = errorCounts();
    const pathErrClasses: Partial<Record<ErrorClass, [number, number]>> = {};
    for (const tr of perTraj) {
      const onPath = onRealPath(tr);
      const succeeded: ToolCall[] = []; // this trajectory's calls the real environment accepted so far
      tr.forEach((r, j) => {
        if (!r.real) return;
        const re = isErrorObservation(r.real);
        if (r.imagined !== undefined) {
          const ie = isErrorResult(r.imagined);
          tally(all, re, ie);
          if (onPath[j]) {
            tally(path, re, ie);
            if (re && r.call) {
              const e = (pathErrClasses[errorClass(r.call, succeeded, reference)] ??= [0, 0]);
              e[0]++; if (ie) e[1]++;
            }
          }
        }
        if (r.call && !re) succeeded.push(r.call);
      });
    }
    const s = idx.reduce((acc, i) => ({ agree: acc.agree + signs[i].agree, rows: acc.rows + signs[i].rows }), { agree: 0, rows: 0 });
    const p = recall.get(task.id) ?? { n: 0, exact: 0 };
    return {
      id: task.id,
      real: mean(idx.map((i) => real[i].reward ?? 0)), rehearsal: mean(rs.map((t) => t.reward ?? 0)), rehearsalOnReal: mean(idx.map((i) => onReal[i])),
      signAgree: s.agree, signRows: s.rows,
      errBoth: all.both, errEither: all.either, realErr: all.real, realErrCaught: all.realCaught, imaginedErr: all.imagined, imaginedErrReal: all.imaginedReal,
      pathErrBoth: path.both, pathErrEither: path.either, pathRealErr: path.real, pathRealErrCaught: path.realCaught, pathRows: path.rows, pathErrClasses,
      rehearseRows: rows.length,
      rehearseTruncated: rows.filter((r) => r.finishReason === 'length').length,
      rehearseParseErrors: rows.filter((r) => r.error && PARSE_CODES.has(r.error.code)).length,
      actTruncatedReal: idx.reduce((a, i) => a + real[i].rows.filter((r) => r.role === 'act' && r.finishReason === 'length').length, 0),
      actTruncatedRehearsal: rs.reduce((a, t) => a + t.rows.filter((r) => r.role === 'act' && r.finishReason === 'length').length, 0),
      episodes: rs.length, parseErrorEpisodes: rs.filter((t) => t.terminatedBy === 'parse_error' && !!t.error && PARSE_CODES.has(t.error.code)).length,
      recallProbes: p.n, recallExact: p.exact,
    };
  });
  return agreementReport(per, { tasks: tasks.length, k: o.k, temperature: o.temperature, seed: o.seed, probes: o.probes, resamples: o.resamples ?? 2000 }, (Date.now() - t0) / 1000);
}

/** The report's statistics from per-task numbers (pure: tested on hand-made inputs). */
export function agreementReport(per: TaskAgreement[], protocol: AgreementReport['protocol'], seconds = 0): AgreementReport {
  const opts = { resamples: protocol.resamples, seed: protocol.seed };
  const at = (idx: Int32Array, f: (t: TaskAgreement) => number) => { let s = 0; for (const i of idx) s += f(per[i]); return s; };
  const avg = (f: (t: TaskAgreement) => number) => bootstrapStatistic(per.length, (idx) => at(idx, f) / idx.length, opts);
  const ratio = (num: (t: TaskAgreement) => number, den: (t: TaskAgreement) => number) =>
    bootstrapStatistic(per.length, (idx) => { const d = at(idx, den); return d > 0 ? at(idx, num) / d : NaN; }, opts);
  const sum = (f: (t: TaskAgreement) => number) => per.reduce((a, t) => a + f(t), 0);
  return {
    protocol,
    real_reward: avg((t) => t.real),
    rehearsal_reward: avg((t) => t.rehearsal),
    reward_gap: avg((t) => t.rehearsal - t.real),
    task_correlation: bootstrapStatistic(per.length, (idx) => pearson(Array.from(idx, (i) => per[i].real), Array.from(idx, (i) => per[i].rehearsal)), opts),
    sign_agreement: ratio((t) => t.signAgree, (t) => t.signRows),
    rehearsal_reward_on_real_results: avg((t) => t.rehearsalOnReal),
    truncated_rehearse_rows: sum((t) => t.rehearseTruncated),
    truncated_act_rows: { real: sum((t) => t.actTruncatedReal), rehearsal: sum((t) => t.actTruncatedRehearsal) },
    rehearse_rows: sum((t) => t.rehearseRows),
    parse_error_rate: ratio((t) => t.rehearseParseErrors, (t) => t.rehearseRows),
    parse_error_episodes: ratio((t) => t.parseErrorEpisodes, (t) => t.episodes),
    recall_exact: ratio((t) => t.recallExact, (t) => t.recallProbes),
    recall_probes: sum((t) => t.recallProbes),
    error_agreement: ratio((t) => t.errBoth, (t) => t.errEither),
    error_recall: ratio((t) => t.realErrCaught, (t) => t.realErr),
    error_precision: ratio((t) => t.imaginedErrReal, (t) => t.imaginedErr),
    error_calls: { real: sum((t) => t.realErr), imagined: sum((t) => t.imaginedErr), either: sum((t) => t.errEither) },
    error_agreement_on_path: ratio((t) => t.pathErrBoth ?? 0, (t) => t.pathErrEither ?? 0),
    error_recall_on_path: ratio((t) => t.pathRealErrCaught ?? 0, (t) => t.pathRealErr ?? 0),
    error_calls_on_path: { real: sum((t) => t.pathRealErr ?? 0), either: sum((t) => t.pathErrEither ?? 0), rows: sum((t) => t.pathRows ?? 0) },
    error_classes_on_path: Object.fromEntries(ERROR_CLASSES.map((c) => [c, { real: sum((t) => t.pathErrClasses?.[c]?.[0] ?? 0), caught: sum((t) => t.pathErrClasses?.[c]?.[1] ?? 0) }])) as AgreementReport['error_classes_on_path'],
    seconds,
    tasks: per,
  };
}

/**
 * The gate's targets, and which the report meets (null where the statistic is undefined). Error agreement is asked
 * of the real path (rows whose every earlier imagined result was right: what the simulator could know) at 0.8 and of
 * all calls at 0.6 (a cascade after one wrong result is another failure, counted there).
 */
export const AGREEMENT_TARGETS = {
  truncated_rehearse_rows: '= 0', parse_error_rate: '<= 0.03', recall_exact: '>= 0.8', error_agreement: '>= 0.6',
  error_agreement_on_path: '>= 0.8', reward_gap: '|x| <= 0.05', task_correlation: '>= 0.8', sign_agreement: '>= 0.8',
} as const;

export function agreementChecks(r: AgreementReport): Record<keyof typeof AGREEMENT_TARGETS, boolean | null> {
  const ok = (e: Estimate, f: (x: number) => boolean) => (Number.isFinite(e.mean) ? f(e.mean) : null);
  return {
    truncated_rehearse_rows: r.truncated_rehearse_rows === 0,
    parse_error_rate: ok(r.parse_error_rate, (x) => x <= 0.03),
    recall_exact: ok(r.recall_exact, (x) => x >= 0.8),
    error_agreement: ok(r.error_agreement, (x) => x >= 0.6),
    error_agreement_on_path: ok(r.error_agreement_on_path, (x) => x >= 0.8),
    reward_gap: ok(r.reward_gap, (x) => Math.abs(x) <= 0.05),
    task_correlation: ok(r.task_correlation, (x) => x >= 0.8),
    sign_agreement: ok(r.sign_agreement, (x) => x >= 0.8),
  };
}
