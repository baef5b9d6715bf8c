// BFCL-v4 multi-turn as a benchmark suite: BFCL's own inference loop around a policy, scored by BFCL's
// multi-turn checker (src/envs/bfcl/checker.ts), with Avg@k accuracy and bootstrap 95% intervals over entries,
// per category and per backend class. Browser-safe: the data comes in as parsed files (text.ts).
//
// The loop (BFCL base_handler.inference_multi_turn_FC, read from the public source; our words and code):
// - per turn t, the turn's messages are appended; in miss_func the functions `missed_function[t]` join the
//   tool list at turn t, whose (empty) user turn becomes BFCL's fixed "I have updated some more functions…"
//   message; functions not yet added are absent from the tools the policy sees;
// - a step: the policy writes one Act output (our protocol: `<tool_call>` blocks or a reply); it is decoded
//   into Python call strings (decode_execute: arguments repr'd, floats kept); a reply, an empty call list or
//   an undecodable output ends the turn; otherwise every call runs on the episode's live backends
//   (BFCL's execute_multi_turn_func_call semantics: any method of an involved class runs, errors are results)
//   and the results are fed back as tool messages; after more than `maxSteps` executed steps in one turn the
//   entry is force-terminated (its remaining turns never run, so the checker fails it);
// - long_context entries load their backends with long_context=True (BFCL does it for categories containing
//   "long_context" or "composite"), which needs the long-context padding installed and is refused with a
//   clear error where the port does not have it.
// Scoring: multiTurnCheck on the decoded steps (undecodable and empty steps dropped, as BFCL's runner does):
// per turn with a non-empty ground truth, a non-empty response, every involved instance's state equal to the
// ground truth's, and the ground truth's results contained in the model's results so far. An entry passes
// only if every turn passes. Entry score = share of its k samples that pass; accuracy = mean over entries.

import { hashSeed } from '../../agent/rollout-config';
import { BfclEnvironment, categoryOf, isLongContext, type BfclFuncDoc } from '../../envs/bfcl/env';
import { multiTurnCheck, type CheckResult, type ModelTurns } from '../../envs/bfcl/checker';
import { formatPythonCall, parsePythonCall } from '../../envs/bfcl/parser';
import type { BfclPossibleAnswer, BfclQuestion } from '../../envs/bfcl/text';
import type { Message } from '../../envs/types';
import { bootstrap, type Estimate } from '../stats';
import { checkpoint, decodeAct, SUITE_BATCH, suiteProgress, SuiteInputError, toolCallBlock, type AgentRequest, type SuiteAgent, type SuiteProgress } from './agent';

/** BFCL's DEFAULT_USER_PROMPT_FOR_ADDITIONAL_FUNCTION_FC (the user turn of a miss_func holdout turn). */
export const ADDITIONAL_FUNCTION_PROMPT = 'I have updated some more functions you can choose from. What about now?';
/** BFCL's MAXIMUM_STEP_LIMIT. */
export const BFCL_MAX_STEPS = 20;

/** The system text of every BFCL prompt (our words; BFCL's FC models get the tools and no system prompt). */
export const BFCL_SYSTEM =
  'You help the user by calling the functions listed below. Make the calls a request needs, one or more per step; ' +
  'when the request is done, or cannot be done with these functions, or needs information the user has not given, reply to the user in text without a call.';

export interface BfclSuiteData {
  /** Questions joined with their possible answers (text.ts joinCategory). */
  items: { question: BfclQuestion; answer: BfclPossibleAnswer }[];
  /** Function docs by class (multi_turn_func_doc). */
  funcDocs: Record<string, BfclFuncDoc[]>;
}

export interface BfclSuiteOptions {
  k: number;
  seed: number;
  /** Steps per turn before the entry is force-terminated (BFCL: 20). */
  maxSteps?: number;
  /** Entries to skip from the start, and how many to run (default all). */
  offset?: number;
  limit?: number;
  /** Entries whose backends cannot be built (long_context not ported) are left out instead of refused. */
  skipUnsupported?: boolean;
  /**
   * Episodes in flight at once (a sliding window: a finished one makes room for the next). Bounds the sampler's
   * batch and its memory; results do not depend on it (every request's seed is its own). Default 16.
   */
  batch?: number;
  signal?: AbortSignal;
  yieldToEventLoop?: boolean;
  onProgress?: (p: SuiteProgress) => void;
}

export interface BfclEntryResult {
  id: string;
  category: string;
  classes: string[];
  samples: number;
  /** Share of the k samples that passed. */
  accuracy: number;
  valid: boolean[];
  /** Per sample: the checker's error_type, or null when it passed. */
  errors: (string | null)[];
  /** Per sample: the turn where the check failed, or null. */
  failedTurn: (number | null)[];
  /** Per sample: steps the policy took (Act outputs) and calls it executed. */
  steps: number[];
  calls: number[];
  /** Per sample: the decoded calls per turn and step (the checker's input). */
  decoded?: ModelTurns[];
}

export interface BfclSuiteResult {
  entries: BfclEntryResult[];
  skipped: { id: string; reason: string }[];
  generations: number;
  /** Act outputs that overflowed the model's context (empty steps). */
  overflows: number;
  seconds: number;
}

interface Episode {
  item: BfclSuiteData['items'][number];
  sample: number;
  env: BfclEnvironment;
  turn: number;
  step: number;
  conversation: Message[];
  decoded: ModelTurns;
  done: boolean;
  steps: number;
  calls: number;
}

function turnMessages(q: BfclQuestion, turn: number): Message[] {
  const raw = (q.question[turn] ?? []) as { role?: unknown; content?: unknown }[];
  const out: Message[] = [];
  for (const m of raw) {
    const content = typeof m?.content === 'string' ? m.content : JSON.stringify(m?.content ?? '');
    out.push(m?.role === 'assistant' ? { role: 'assistant', content } : { role: 'user', content });
  }
  return out;
}

function startTurn(ep: Episode): void {
  const q = ep.item.question;
  ep.env.setTurn(ep.turn);
  ep.step = 0;
  ep.decoded.push([]);
  const holdout = q.missed_function?.[String(ep.turn)];
  const msgs = holdout ? [{ role: 'user' as const, content: ADDITIONAL_FUNCTION_PROMPT }, ...turnMessages(q, ep.turn)] : turnMessages(q, ep.turn);
  ep.conversation.push(...msgs);
}

function endTurn(ep: Episode): void {
  ep.turn++;
  if (ep.turn >= ep.item.question.question.length) ep.done = true;
  else startTurn(ep);
}

/** The entries of a run (offset, limit) and their episodes' environments; problems as SuiteInputError. */
function prepare(data: BfclSuiteData, o: BfclSuiteOptions) {
  const problems: string[] = [];
  if (!Number.isInteger(o.k) || o.k < 1) problems.push(`k must be a positive integer (got ${o.k})`);
  const maxSteps = o.maxSteps ?? BFCL_MAX_STEPS;
  if (!Number.isInteger(maxSteps) || maxSteps < 1) problems.push(`maxSteps must be a positive integer (got ${maxSteps})`);
  const offset = o.offset ?? 0;
  const sel = data.items.slice(offset, o.limit === undefined ? undefined : offset + o.limit);
  if (data.items.length === 0) problems.push('no entries: the questions and possible answers share no id');
  else if (sel.length === 0) problems.push(`no entries from offset ${offset} (the file has ${data.items.length})`);
  const classes = new Set(sel.flatMap((x) => x.question.involved_classes));
  const noDocs = [...classes].filter((c) => !data.funcDocs[c]?.length);
  if (noDocs.length) problems.push(`no function docs for ${noDocs.join(', ')} (multi_turn_func_doc files)`);
  for (const { question, answer } of sel) {
    if (!Array.isArray(question.question) || question.question.length !== answer.ground_truth.length) {
      problems.push(`${question.id}: ${question.question?.length ?? 0} question turns but ${answer.ground_truth.length} ground-truth turns`);
    }
  }
  if (problems.length) throw new SuiteInputError(problems);
  const usable: typeof sel = [];
  const skipped: { id: string; reason: string }[] = [];
  for (const it of sel) {
    try { new BfclEnvironment(it.question, { funcDocs: data.funcDocs, longContext: isLongContext(it.question.id) }); usable.push(it); } catch (e) {
      skipped.push({ id: it.question.id, reason: (e as Error).message });
    }
  }
  if (skipped.length && !o.skipUnsupported) {
    throw new SuiteInputError(skipped.slice(0, 10).map((s) => `${s.id}: cannot build its backends: ${s.reason}`)
      .concat(skipped.length > 10 ? [`… and ${skipped.length - 10} more`] : [], ['(skip them with --skip-unsupported; they are then listed in "skipped")']));
  }
  return { items: usable, skipped, maxSteps };
}

/** Runs the suite: every entry × k samples, all live episodes' steps batched into one agent call per round. */
export async function runBfclSuite(data: BfclSuiteData, agent: SuiteAgent, o: BfclSuiteOptions): Promise<BfclSuiteResult> {
  const t0 = performance.now();
  const { items, skipped, maxSteps } = prepare(data, o);
  const episodes: Episode[] = [];
  for (const item of items) {
    for (let s = 0; s < o.k; s++) {
      const ep: Episode = {
        item, sample: s, env: new BfclEnvironment(item.question, { funcDocs: data.funcDocs, longContext: isLongContext(item.question.id) }),
        turn: 0, step: 0, conversation: [], decoded: [], done: false, steps: 0, calls: 0,
      };
      if (item.question.question.length === 0) ep.done = true; else startTurn(ep);
      episodes.push(ep);
    }
  }
  let generations = 0, overflows = 0;
  const total = episodes.length;
  const report = () => {
    o.onProgress?.(suiteProgress(t0, episodes.filter((e) => e.done).length, total, generations));
  };
  report();
  const window = Math.max(1, Math.floor(o.batch ?? SUITE_BATCH));
  for (;;) {
    const live = episodes.filter((e) => !e.done).slice(0, window);
    if (live.length === 0) break;
    await checkpoint(o.signal, o.yieldToEventLoop ?? true);
    const reqs: AgentRequest[] = live.map((ep) => ({
      system: BFCL_SYSTEM, tools: ep.env.tools(), conversation: ep.conversation,
      seed: hashSeed('bfcl', o.seed, ep.item.question.id, ep.sample, ep.turn, ep.step),
      meta: { suite: 'bfcl', id: ep.item.question.id, sample: ep.sample, turn: ep.turn, step: ep.step },
    }));
    const outs = await agent.act(reqs);
    if (outs.length !== reqs.length) throw new Error(`agent ${agent.name} returned ${outs.length} outputs for ${reqs.length} requests`);
    generations += outs.filter((x) => x.finishReason !== 'scripted').length;
    live.forEach((ep, i) => {
      const out = outs[i];
      if (out.finishReason === 'overflow') overflows++;
      ep.steps++;
      const d = decodeAct(out.text);
      if (d.kind !== 'calls') {
        // A reply (the turn is answered) or an undecodable output (BFCL: "proceed to next turn").
        ep.conversation.push({ role: 'assistant', content: d.kind === 'reply' ? d.content : out.text });
        endTurn(ep);
        return;
      }
      const strings = d.calls.map(formatPythonCall);
      ep.conversation.push({ role: 'assistant', content: d.content, toolCalls: d.calls.map((c) => ({ name: c.function, arguments: { ...c.kwargs } })) });
      for (let j = 0; j < strings.length; j++) {
        ep.conversation.push({ role: 'tool', name: d.calls[j].function, content: ep.env.execPython(strings[j]).text });
      }
      ep.calls += strings.length;
      ep.decoded[ep.turn].push(strings);
      ep.step++;
      if (ep.step > maxSteps) ep.done = true;   // force-terminated: the remaining turns never run
    });
    report();
  }
  const byEntry = new Map<string, Episode[]>();
  for (const ep of episodes) (byEntry.get(ep.item.question.id) ?? byEntry.set(ep.item.question.id, []).get(ep.item.question.id)!).push(ep);
  const entries = items.map(({ question, answer }): BfclEntryResult => {
    const eps = byEntry.get(question.id) ?? [];
    const checks: CheckResult[] = eps.map((ep) => multiTurnCheck(question, ep.decoded, answer.ground_truth, { funcDocs: data.funcDocs, longContext: isLongContext(question.id) }));
    const valid = checks.map((c) => c.valid);
    return {
      id: question.id, category: categoryOf(question.id), classes: [...question.involved_classes], samples: eps.length,
      accuracy: valid.length ? valid.filter(Boolean).length / valid.length : 0,
      valid, errors: checks.map((c) => (c.valid ? null : c.error_type ?? 'multi_turn:unknown')),
      failedTurn: checks.map((c) => (c.valid ? null : c.turn ?? null)),
      steps: eps.map((e) => e.steps), calls: eps.map((e) => e.calls), decoded: eps.map((e) => e.decoded),
    };
  });
  return { entries, skipped, generations, overflows, seconds: (performance.now() - t0) / 1000 };
}

// ---- the ground-truth replay policy -----------------------------------------------------------------------

/** A ground-truth call string as an Act tool-call block: positional arguments named from the function doc, floats kept. */
export function groundTruthBlock(call: string, docs: BfclFuncDoc[]): string {
  const p = parsePythonCall(call);
  if (!p.ok) throw new Error(`ground truth ${call}: ${p.error.message}`);
  const kwargs = new Map<string, unknown>();
  if (p.args.length) {
    const doc = docs.find((d) => d.name === p.function);
    const names = Object.keys(doc?.parameters?.properties ?? {});
    if (!doc || p.args.length > names.length) throw new Error(`ground truth ${call}: cannot name its positional arguments from the function doc`);
    p.args.forEach((a, i) => kwargs.set(names[i], a));
  }
  for (const [k, v] of Object.entries(p.kwargs)) kwargs.set(k, v);
  return toolCallBlock(p.function, kwargs);
}

/**
 * `--model ground-truth`: at step 0 of turn t, every ground-truth call of turn t in one step (the shape BFCL's
 * checker expects of a perfect model); then a reply. It goes through the same decode and execution as a model,
 * so 100% on a category file checks the harness end to end.
 */
export function groundTruthAgent(data: BfclSuiteData): SuiteAgent {
  const byId = new Map(data.items.map((x) => [x.question.id, x]));
  return {
    name: 'ground-truth',
    async act(reqs) {
      return reqs.map((r) => {
        const m = r.meta as { id: string; turn: number; step: number };
        const it = byId.get(m.id);
        if (!it) throw new Error(`ground-truth policy: unknown entry ${m.id}`);
        const calls = it.answer.ground_truth[m.turn] ?? [];
        if (m.step > 0 || calls.length === 0) return { text: 'Done.', finishReason: 'scripted' as const };
        const docs = it.question.involved_classes.flatMap((c) => data.funcDocs[c] ?? []);
        return { text: calls.map((c) => groundTruthBlock(c, docs)).join(''), finishReason: 'scripted' as const };
      });
    },
  };
}

// ---- the report ---------------------------------------------------------------------------------------------

export interface BfclReport {
  suite: 'bfcl';
  protocol: string;
  model: string;
  questions: string;
  n_entries: number;
  offset: number;
  k: number; temperature: number; top_p: number; seed: number;
  max_steps: number;
  /** Avg@k entry accuracy, bootstrap 95% interval over entries. */
  accuracy: Estimate;
  /** Share of entries with at least one passing sample (pass@k). */
  pass_at_k: Estimate;
  per_category: Record<string, { n: number; accuracy: Estimate }>;
  /** An entry counts in every backend class it involves. */
  per_class: Record<string, { n: number; accuracy: Estimate }>;
  /** Checker verdicts over all samples: 'valid' or BFCL's error_type. */
  verdicts: Record<string, number>;
  skipped: { id: string; reason: string }[];
  generations: number;
  overflows: number;
  seconds: number;
  bootstrap: { resamples: number; seed: number; level: number; over: 'entries' };
  per_entry?: Omit<BfclEntryResult, 'decoded'>[];
}

export function bfclReport(r: BfclSuiteResult, meta: { model: string; questions: string; offset?: number; k: number; temperature: number; topP: number; seed: number; maxSteps?: number; protocol: string },
  boot: { resamples: number; seed: number }, perEntry = false): BfclReport {
  const est = (xs: number[]) => bootstrap(xs, boot);
  const group = (key: (e: BfclEntryResult) => string[]) => {
    const m = new Map<string, number[]>();
    for (const e of r.entries) for (const g of key(e)) (m.get(g) ?? m.set(g, []).get(g)!).push(e.accuracy);
    return Object.fromEntries([...m].sort((a, b) => (a[0] < b[0] ? -1 : 1)).map(([g, xs]) => [g, { n: xs.length, accuracy: est(xs) }]));
  };
  const verdicts: Record<string, number> = Object.create(null);
  for (const e of r.entries) for (const v of e.errors) verdicts[v ?? 'valid'] = (verdicts[v ?? 'valid'] ?? 0) + 1;
  return {
    suite: 'bfcl', protocol: meta.protocol, model: meta.model, questions: meta.questions,
    n_entries: r.entries.length, offset: meta.offset ?? 0,
    k: meta.k, temperature: meta.temperature, top_p: meta.topP, seed: meta.seed, max_steps: meta.maxSteps ?? BFCL_MAX_STEPS,
    accuracy: est(r.entries.map((e) => e.accuracy)),
    pass_at_k: est(r.entries.map((e) => (e.valid.some(Boolean) ? 1 : 0))),
    per_category: group((e) => [e.category]),
    per_class: group((e) => e.classes),
    verdicts, skipped: r.skipped, generations: r.generations, overflows: r.overflows,
    seconds: Number(r.seconds.toFixed(2)),
    bootstrap: { ...boot, level: 0.95, over: 'entries' },
    ...(perEntry ? { per_entry: r.entries.map(({ decoded: _d, ...rest }) => rest) } : {}),
  };
}
