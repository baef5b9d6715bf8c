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
import { getWorld } from '../envs/worlds/index';

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
  /** What copying the first shown hint would score (no model): the ceiling of copying on these probes. */
  copy_first_hint: ConditionJson;
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
  return {
    world: set.world, seed: set.seed, temperature: o.temperature ?? 0,
    probes: {
      n: set.probes.length, recall: count('recall'), inference: count('inference'), fingerprint: set.fingerprint, rule: LABEL_RULE,
      pool: { ...set.pool, unreachable: set.unreachable },
    },
    ...(results.hints_on ? { hints_on: conditionJson(summarizeProbes(results.hints_on)) } : {}),
    ...(results.hints_off ? { hints_off: conditionJson(summarizeProbes(results.hints_off)) } : {}),
    copy_first_hint: conditionJson(summarizeProbes(copyFirstHintResults(set.probes))),
    results,
  };
}
