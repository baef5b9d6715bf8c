// Fidelity probes: (conversation so far, tool call, real result) triples from expert traces, each scored by
// running the Rehearse role on exactly the prompt a rollout would build, and labelled by whether copying a
// few-shot hint could explain a good score (recall) or not (inference).
//
// Why: the Rehearse prompt shows the task's own reference (tool, arguments, result) triples as hints, as the
// reference code does. On held-out tasks a model that copies hints then looks faithful without modelling the
// world. Splitting probes by label, and scoring them with hints switched off too, separates the two.
//
// This is the layer-neutral core (the RL trainer's scheduled evaluation uses it); src/bench/fidelity-probe.ts
// builds the fixed per-world probe set and the CLI report on top of it.

import type { TextGenerator } from '../engine/generator';
import type { Observation, Task, ToolCall } from '../envs/types';
import { compactFormat, stripStop, type ChatFormat } from './chatTemplate';
import { compareResults, summarizeFidelity, type FidelityDetail, type FidelitySummary } from './fidelity';
import { hintsBlock, referenceHints, selectHints, type Hint, type RehearsePromptOptions } from './prompts';
import { canonicalJson, errorText, parseRehearse } from './protocol';
import { hashSeed, type RolloutConfig } from './rollout';
import { sftExamples } from './sft';

export type ProbeLabel = 'recall' | 'inference';

/**
 * THE LABELLING RULE. Let S be the hints the probe's Rehearse prompt actually shows (after the profile's
 * same-tool filter and maxHints, and after the rollout's context-fitting ladder, which may drop other tools'
 * hints), and R the real result of the call. Score every shown hint h as if the model had copied its result
 * verbatim: c(h) = compareResults(h.result, R), the same exact / field-F1 comparison that fidelity uses. Then
 *   recall    ⇔ some h ∈ S has c(h).exact, or c(h).fieldF1 ≥ RECALL_F1 — the real result, or at least half
 *               of its path=value pairs (its key fields), can be read off one shown hint;
 *   inference ⇔ otherwise: copying any one shown hint scores below RECALL_F1 field F1 (and never exact).
 * A probe with hints off (or no hint shown) is inference. What the conversation history shows (earlier real
 * results) does not count as a hint: tracking the state seen so far is part of the world model.
 */
export const RECALL_F1 = 0.5;

export interface ProbeLabelInfo {
  label: ProbeLabel;
  /** Best copy score any shown hint offers (field F1), 0 when none is shown. */
  bestHintF1: number;
  /** Index into the shown hints of that best hint, -1 when none is shown. */
  bestHint: number;
}

export function labelProbe(real: Observation, shown: readonly Hint[]): ProbeLabelInfo {
  let best = -1, bestF1 = 0, exact = false;
  shown.forEach((h, i) => {
    const c = compareResults(h.result, real);
    if (best < 0 || c.fieldF1 > bestF1 || (c.exact && !exact)) { best = i; bestF1 = c.fieldF1; exact = c.exact; }
  });
  return { label: exact || bestF1 >= RECALL_F1 ? 'recall' : 'inference', bestHintF1: bestF1, bestHint: best };
}

/**
 * Which hints a rendered Rehearse prompt shows: the rollout's ladder renders either the profile's selection
 * or (when shedding) the same-tool selection, so the prompt contains exactly one of those "Examples:" blocks.
 * Returns [] when hints are off. Throws when neither block is found (the prompt was not built by our builder).
 */
export function shownHints(prompt: string, hints: readonly Hint[], call: ToolCall, opts: RehearsePromptOptions): Hint[] {
  if ((opts.hints ?? true) === false) return [];
  // The ladder's last rung drops the examples block altogether.
  if (!prompt.includes('Examples:')) return [];
  const candidates = [
    selectHints([...hints], call, opts) ?? [],
    selectHints([...hints], call, { hints: 'same-tool', maxHints: opts.maxHints }) ?? [],
    selectHints([...hints], call, { hints: 'same-tool', maxHints: Math.min(opts.maxHints ?? Infinity, 1) }) ?? [],
  ];
  // Every section after the examples is preceded by a blank line, so the block must be followed by one.
  for (const c of candidates) if (prompt.includes(`${hintsBlock(c)}\n\n`)) return c;
  throw new Error(`shownHints: the prompt for ${call.name} holds none of the expected "Examples:" blocks`);
}

export interface Probe {
  /** `${taskId}#${k}`: the k-th tool call of the task's reference conversation. */
  id: string;
  taskId: string;
  /** Position of the call among the task's reference calls. */
  callIndex: number;
  tool: string;
  call: ToolCall;
  real: Observation;
  label: ProbeLabel;
  bestHintF1: number;
  /** The hints the hints-on prompt shows (what a copier could copy). */
  hints: Hint[];
  /** The Rehearse prompt with hints, byte-identical to the one a rollout builds at this point. */
  prompt: string;
  /** The same prompt with hints switched off (`rehearsePrompt.hints: false`). */
  promptNoHints: string;
}

export interface ProbeBuildOptions {
  /** Rollout settings (prompt options, sampling budgets, limits, format): a model's profile. */
  rollout: Omit<RolloutConfig, 'mode' | 'policy' | 'simulator'>;
  /** The Rehearse model's context and tokenizer: the ladder that fits prompts depends on them. */
  maxContext: number;
  countTokens: (text: string) => number;
  seed: number;
  /** Probes to select. Half recall and half inference where the pool allows; the rest from the other label. */
  count: number;
}

export interface ProbeSet {
  seed: number;
  probes: Probe[];
  /** Every candidate call of the task pool, by label (the natural recall share, before balancing). */
  pool: { calls: number; recall: number; inference: number; tasks: number };
  /** Calls whose teacher-forced episode ended before reaching them (a prompt that did not fit the context). */
  unreachable: number;
  /** FNV hash of the selected ids and labels: equal fingerprints, equal probe sets. */
  fingerprint: string;
}

function rehearseRows(tr: { rows: { role: string; prompt?: string; call?: ToolCall; real?: Observation }[] }) {
  return tr.rows.filter((r) => r.role === 'rehearse');
}

/** Every reference call of the tasks as a labelled probe (teacher-forced rollouts: same prompts as inference). */
export async function candidateProbes(tasks: Task[], o: Omit<ProbeBuildOptions, 'seed' | 'count'>): Promise<{ probes: Probe[]; unreachable: number }> {
  const base = o.rollout.rehearsePrompt ?? {};
  const sft = { maxContext: o.maxContext, countTokens: o.countTokens };
  // Turn and generation caps decide how far a policy may go, not what a prompt looks like: every expert call
  // is a probe. minNewTokens stays: it decides which rung of the context-fitting ladder a prompt needs.
  const rolloutCfg = { ...o.rollout, limits: { ...o.rollout.limits, maxAssistantTurns: 1e9, maxUserTurns: 1e9, maxGenerations: 1e9 } };
  const probes: Probe[] = [];
  let unreachable = 0;
  for (const task of tasks) {
    const refCalls = referenceHints(task.reference);
    const on = await sftExamples([task], { ...sft, rollout: rolloutCfg });
    const off = await sftExamples([task], { ...sft, rollout: { ...rolloutCfg, rehearsePrompt: { ...base, hints: false } } });
    const rowsOn = rehearseRows(on.trajectories[0]);
    const rowsOff = rehearseRows(off.trajectories[0]);
    refCalls.forEach((ref, k) => {
      const a = rowsOn[k], b = rowsOff[k];
      if (!a || !b || !a.prompt || !b.prompt || !a.real || !a.call) { unreachable++; return; }
      // Teacher forcing replays the reference exactly; anything else is a bug worth stopping for.
      if (a.call.name !== ref.name || canonicalJson(a.call.arguments) !== canonicalJson(ref.arguments)) {
        throw new Error(`candidateProbes: ${task.id} call ${k} is ${a.call.name}, the reference has ${ref.name}`);
      }
      const hints = shownHints(a.prompt, refCalls, a.call, base);
      const l = labelProbe(a.real, hints);
      probes.push({
        id: `${task.id}#${k}`, taskId: task.id, callIndex: k, tool: a.call.name, call: a.call, real: a.real,
        label: l.label, bestHintF1: l.bestHintF1, hints, prompt: a.prompt, promptNoHints: b.prompt,
      });
    });
  }
  return { probes, unreachable };
}

/** Deterministic in (seed, task pool, settings): hash order within each label, then balanced. */
export function selectProbes(pool: Probe[], seed: number, count: number): Probe[] {
  const order = (l: ProbeLabel) => pool.filter((p) => p.label === l)
    .map((p) => ({ p, h: hashSeed('probe', seed, p.id) }))
    .sort((x, y) => x.h - y.h || (x.p.id < y.p.id ? -1 : 1)).map((x) => x.p);
  const rec = order('recall'), inf = order('inference');
  const n = Math.min(count, pool.length);
  let nr = Math.min(rec.length, Math.ceil(n / 2));
  const ni = Math.min(inf.length, n - nr);
  nr = Math.min(rec.length, n - ni);
  return [...rec.slice(0, nr), ...inf.slice(0, ni)].sort((x, y) => (x.taskId === y.taskId ? x.callIndex - y.callIndex : x.id < y.id ? -1 : 1));
}

export async function buildProbes(tasks: Task[], o: ProbeBuildOptions): Promise<ProbeSet> {
  const { probes: pool, unreachable } = await candidateProbes(tasks, o);
  const probes = selectProbes(pool, o.seed, o.count);
  return {
    seed: o.seed, probes, unreachable,
    pool: { calls: pool.length, tasks: tasks.length, recall: pool.filter((p) => p.label === 'recall').length, inference: pool.filter((p) => p.label === 'inference').length },
    fingerprint: hashSeed('probeset', ...probes.map((p) => `${p.id}:${p.label}`)).toString(16).padStart(8, '0'),
  };
}

export interface ProbeScoreOptions {
  /** Use the hints-on prompt (the rollout's) or the hints-off one. */
  hints: boolean;
  /** Rehearse token budget (the profile's rehearse.maxNewTokens); shrunk to the context like the rollout does. */
  maxNewTokens: number;
  temperature?: number;
  topP?: number;
  topK?: number;
  seed?: number;
  format?: ChatFormat;
  /** Requests per generate() call (memory); default all at once. */
  batchSize?: number;
  onProgress?: (done: number, total: number) => void;
}

export interface ProbeResult {
  id: string; tool: string; label: ProbeLabel; imagined: string; fidelity: FidelityDetail;
  /** The generation stopped at its token budget (absent for results no generator produced). */
  truncated?: boolean;
}

/** Runs the Rehearse role on each probe's prompt and compares the imagined result with the real one. */
export async function scoreProbes(gen: TextGenerator, probes: Probe[], o: ProbeScoreOptions): Promise<ProbeResult[]> {
  const format = o.format ?? compactFormat;
  const out: ProbeResult[] = [];
  const batch = Math.max(1, o.batchSize ?? (probes.length || 1));
  for (let i = 0; i < probes.length; i += batch) {
    const chunk = probes.slice(i, i + batch);
    const reqs = chunk.map((p) => {
      const prompt = o.hints ? p.prompt : p.promptNoHints;
      const room = gen.maxContext - gen.countTokens(prompt);
      return {
        prompt, maxNewTokens: Math.max(1, Math.min(o.maxNewTokens, room)), stop: format.stop,
        temperature: o.temperature ?? 0, topP: o.topP ?? 1, topK: o.topK ?? 0, seed: hashSeed('probe-gen', o.seed ?? 0, p.id),
      };
    });
    const gens = await gen.generate(reqs);
    if (gens.length !== chunk.length) throw new Error('scoreProbes: generator returned a different number of generations than requests');
    chunk.forEach((p, j) => {
      // Exactly what the rollout does with a Rehearse output (applyRehearse).
      const parsed = parseRehearse(stripStop(gens[j].text, format.stop));
      const imagined = parsed.ok ? parsed.text : errorText(parsed.error);
      out.push({ id: p.id, tool: p.tool, label: p.label, imagined, fidelity: compareResults(imagined, p.real), truncated: gens[j].finishReason === 'length' });
    });
    o.onProgress?.(out.length, probes.length);
  }
  return out;
}

export interface ProbeSummary { overall: FidelitySummary; recall: FidelitySummary; inference: FidelitySummary }

export function summarizeProbes(results: ProbeResult[]): ProbeSummary {
  const rec = (rs: ProbeResult[]) => summarizeFidelity(rs.map((r) => ({ tool: r.tool, fidelity: r.fidelity })));
  return { overall: rec(results), recall: rec(results.filter((r) => r.label === 'recall')), inference: rec(results.filter((r) => r.label === 'inference')) };
}

/** What a Rehearse role that copies the first shown hint's result (or answers {} without hints) would score. */
export function copyFirstHintResults(probes: Probe[]): ProbeResult[] {
  return probes.map((p) => {
    const imagined = p.hints.length ? p.hints[0].result : '{}';
    return { id: p.id, tool: p.tool, label: p.label, imagined, fidelity: compareResults(imagined, p.real) };
  });
}
