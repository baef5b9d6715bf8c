// The fixed fidelity probe set of a built-in world and its report: exact match, field F1 and error agreement
// for each label (recall / inference; the rule is in src/agent/probes.ts), per tool and overall, with the
// Rehearse prompt's hints on (the prompt every rollout builds) and off.
//
// The set is fixed by (world, seed, pool size, count) and by the model's prompting profile and tokenizer:
// a prompt's hints, and so a probe's label, depend on the profile's hint options and on which rung of the
// context-fitting ladder the prompt needed. The fingerprint in the report identifies the set.

import type { ChatFormat } from '../agent/chatTemplate';
import type { FidelityStats, FidelitySummary } from '../agent/fidelity';
import { rolloutSettings, type PromptProfile } from '../agent/profile';
import {
  buildProbes, copyFirstHintResults, RECALL_F1, scoreProbes, summarizeProbes,
  type ProbeResult, type ProbeSet, type ProbeSummary,
} from '../agent/probes';
import type { TextGenerator } from '../engine/generator';
import { Rng } from '../engine/rng';
import { getWorld } from '../envs/worlds/index';
import { DEFAULT_RESAMPLES, quantile, type Estimate } from './stats';

/** Held-out tasks the fixed set draws its calls from (the first of the world's test split). */
export const PROBE_POOL_TASKS = 100;
export const PROBE_COUNT = 200;

export const LABEL_RULE =
  `recall: some hint shown in the Rehearse prompt, copied verbatim, matches the real result exactly or with field F1 >= ${RECALL_F1}; ` +
  'inference: otherwise (hints off or none shown included). Conversation history does not count as a hint.';

export interface WorldProbeOptions {
  world: string;
  profile: PromptProfile;
  format?: ChatFormat;
  /** The Rehearse model's context and token counter (the prompt-fitting ladder depends on them). */
  maxContext: number;
  countTokens: (text: string) => number;
  seed?: number;
  count?: number;
  poolTasks?: number;
}

export interface WorldProbeSet extends ProbeSet { world: string; poolTasks: number }

export async function worldProbeSet(o: WorldProbeOptions): Promise<WorldProbeSet> {
  const poolTasks = o.poolTasks ?? PROBE_POOL_TASKS;
  const tasks = getWorld(o.world).tasks({ split: 'test', count: poolTasks });
  const set = await buildProbes(tasks, {
    rollout: { ...rolloutSettings(o.profile), format: o.format },
    maxContext: o.maxContext, countTokens: o.countTokens, seed: o.seed ?? 0, count: o.count ?? PROBE_COUNT,
  });
  return { ...set, world: o.world, poolTasks };
}

export interface StatsJson { n: number; exact: number | null; field_f1: number | null; error_agree: number | null }
export interface SummaryJson extends StatsJson { per_tool: Record<string, StatsJson> }
export interface ConditionJson { overall: SummaryJson; recall: SummaryJson; inference: SummaryJson }

const round = (x: number) => Math.round(x * 1e4) / 1e4;

/** Null rates where there are no calls: a label without probes has no score, not a score of 0. */
export function statsJson(s: FidelityStats): StatsJson {
  const n = s.calls;
  return { n, exact: n ? round(s.exactRate) : null, field_f1: n ? round(s.meanF1) : null, error_agree: n ? round(s.errorAgreeRate) : null };
}

export function summaryJson(s: FidelitySummary): SummaryJson {
  return { ...statsJson(s), per_tool: Object.fromEntries(Object.entries(s.perTool).map(([k, v]) => [k, statsJson(v)])) };
}

export function conditionJson(s: ProbeSummary): ConditionJson {
  return { overall: summaryJson(s.overall), recall: summaryJson(s.recall), inference: summaryJson(s.inference) };
}

/**
 * Percentile bootstrap of a mean over probes that come in clusters (the calls of one task share its state and
 * conversation, so they are not independent): whole tasks are resampled with replacement, then the probes of
 * the drawn tasks are averaged. Null without values.
 */
export function clusterBootstrap(values: number[], clusters: string[], opts: { resamples?: number; seed?: number } = {}): Estimate | null {
  if (values.length === 0) return null;
  if (values.length !== clusters.length) throw new Error('clusterBootstrap: one cluster per value');
  const by = new Map<string, { sum: number; n: number }>();
  values.forEach((v, i) => { const c = by.get(clusters[i]) ?? { sum: 0, n: 0 }; c.sum += v; c.n++; by.set(clusters[i], c); });
  const groups = [...by.values()];
  const B = opts.resamples ?? DEFAULT_RESAMPLES;
  const rng = new Rng(opts.seed ?? 0);
  const reps = new Float64Array(B);
  for (let b = 0; b < B; b++) {
    let sum = 0, n = 0;
    for (let j = 0; j < groups.length; j++) { const g = groups[rng.int(groups.length)]; sum += g.sum; n += g.n; }
    reps[b] = sum / n;
  }
  reps.sort();
  const round4 = (x: number) => Math.round(x * 1e4) / 1e4;
  return { mean: round4(values.reduce((a, v) => a + v, 0) / values.length), ci95: [round4(quantile(reps, 0.025)), round4(quantile(reps, 0.975))] };
}

export interface LabelIntervals { field_f1: Estimate | null; exact: Estimate | null }
export type ConditionIntervals = Record<'overall' | 'recall' | 'inference', LabelIntervals>;

/** 95% intervals (tasks resampled) of field F1 and exact match for each label. */
export function conditionIntervals(rs: ProbeResult[], taskOf: (id: string) => string, seed = 0): ConditionIntervals {
  const part = (keep: (r: ProbeResult) => boolean): LabelIntervals => {
    const sel = rs.filter(keep);
    const cl = sel.map((r) => taskOf(r.id));
    return {
      field_f1: clusterBootstrap(sel.map((r) => r.fidelity.fieldF1), cl, { seed }),
      exact: clusterBootstrap(sel.map((r) => (r.fidelity.exact ? 1 : 0)), cl, { seed }),
    };
  };
  return { overall: part(() => true), recall: part((r) => r.label === 'recall'), inference: part((r) => r.label === 'inference') };
}

/** Paired hints-on minus hints-off field F1 per label (same probes; tasks resampled): what the hints add. */
export function hintsEffect(on: ProbeResult[], off: ProbeResult[], taskOf: (id: string) => string, seed = 0): Record<'overall' | 'recall' | 'inference', Estimate | null> {
  const offBy = new Map(off.map((r) => [r.id, r]));
  const part = (keep: (r: ProbeResult) => boolean) => {
    const sel = on.filter((r) => keep(r) && offBy.has(r.id));
    return clusterBootstrap(sel.map((r) => r.fidelity.fieldF1 - offBy.get(r.id)!.fidelity.fieldF1), sel.map((r) => taskOf(r.id)), { seed });
  };
  return { overall: part(() => true), recall: part((r) => r.label === 'recall'), inference: part((r) => r.label === 'inference') };
}

export type HintsChoice = 'on' | 'off' | 'both';

export interface ProbeRunOptions {
  hints: HintsChoice;
  maxNewTokens: number;
  temperature?: number;
  topP?: number;
  seed?: number;
  format?: ChatFormat;
  batchSize?: number;
  /** Called after every batch with the running count over all conditions. */
  onProgress?: (done: number, total: number) => void;
}

export interface FidelityReport {
  world: string;
  seed: number;
  temperature: number;
  probes: {
    n: number; recall: number; inference: number; fingerprint: string; rule: string;
    pool: ProbeSet['pool'] & { unreachable: number };
  };
  hints_on?: ConditionJson;
  hints_off?: ConditionJson;
  /** 95% bootstrap intervals over held-out tasks (a task's probes resampled together). */
  ci95: { hints_on?: ConditionIntervals; hints_off?: ConditionIntervals };
  /** Hints on minus hints off, field F1, paired per probe (only with hints 'both'). */
  hints_effect?: Record<'overall' | 'recall' | 'inference', Estimate | null>;
  /** What copying the first shown hint would score (no model): the ceiling of copying on these probes. */
  copy_first_hint: ConditionJson;
  /** Rehearse generations stopped by their token budget (a cut-off result cannot be exact), per condition. */
  truncated: { hints_on?: number; hints_off?: number };
  results: { hints_on?: ProbeResult[]; hints_off?: ProbeResult[] };
}

export async function runFidelityProbe(gen: TextGenerator, set: WorldProbeSet, o: ProbeRunOptions): Promise<FidelityReport> {
  const conds: boolean[] = o.hints === 'both' ? [true, false] : [o.hints === 'on'];
  const total = conds.length * set.probes.length;
  const results: FidelityReport['results'] = {};
  let before = 0;
  for (const hints of conds) {
    const rs = await scoreProbes(gen, set.probes, {
      hints, maxNewTokens: o.maxNewTokens, temperature: o.temperature, topP: o.topP, seed: o.seed, format: o.format, batchSize: o.batchSize,
      onProgress: (d) => o.onProgress?.(before + d, total),
    });
    before += rs.length;
    results[hints ? 'hints_on' : 'hints_off'] = rs;
  }
  const count = (l: string) => set.probes.filter((p) => p.label === l).length;
  const taskOf = new Map(set.probes.map((p) => [p.id, p.taskId]));
  const task = (id: string) => taskOf.get(id)!;
  return {
    world: set.world, seed: set.seed, temperature: o.temperature ?? 0,
    probes: {
      n: set.probes.length, recall: count('recall'), inference: count('inference'), fingerprint: set.fingerprint, rule: LABEL_RULE,
      pool: { ...set.pool, unreachable: set.unreachable },
    },
    ...(results.hints_on ? { hints_on: conditionJson(summarizeProbes(results.hints_on)) } : {}),
    ...(results.hints_off ? { hints_off: conditionJson(summarizeProbes(results.hints_off)) } : {}),
    ci95: {
      ...(results.hints_on ? { hints_on: conditionIntervals(results.hints_on, task, set.seed) } : {}),
      ...(results.hints_off ? { hints_off: conditionIntervals(results.hints_off, task, set.seed) } : {}),
    },
    ...(results.hints_on && results.hints_off ? { hints_effect: hintsEffect(results.hints_on, results.hints_off, task, set.seed) } : {}),
    copy_first_hint: conditionJson(summarizeProbes(copyFirstHintResults(set.probes))),
    truncated: Object.fromEntries(Object.entries(results).map(([k, rs]) => [k, rs!.filter((r) => r.truncated).length])),
    results,
  };
}
