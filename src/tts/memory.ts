// The rehearsal memory: N imagined attempts and their self-evaluations condensed into a few lines of
// bounded length, appended to Act's system text for the one committed execution of the user turn.
// The format is documented (with an example) in src/tts/README.md.

import type { ToolCall } from '../envs/types';
import { callJson } from '../agent/protocol';
import { short, type Assessment, type AttemptStep } from './assess';

export type MemoryKind = 'full' | 'best-calls';

/** What the memory needs from one attempt. */
export interface AttemptSummary { index: number; steps: AttemptStep[]; assessment: Assessment }

export const MEMORY_HEADER = 'Rehearsal notes (imagined attempts; their results were not real):';
export const PLAN_PREFIX = 'Rehearsed plan:';

/** Highest rule score first; ties: fewer calls (less to go wrong), then the earlier attempt. */
export function rankAttempts<T extends AttemptSummary>(attempts: T[]): T[] {
  const calls = (a: AttemptSummary) => a.steps.filter((s) => s.call).length;
  return [...attempts].sort((a, b) => b.assessment.score - a.assessment.score || calls(a) - calls(b) || a.index - b.index);
}

function planLine(best: AttemptSummary, calls: ToolCall[], withReply: boolean, dropped: boolean): string {
  const reply = best.steps.find((s) => s.reply !== undefined)?.reply;
  const parts = calls.length ? calls.map(callJson) : [dropped ? 'none (every rehearsed call is under Avoid)' : 'no tool call'];
  if (withReply && reply) parts.push(`then reply like: ${JSON.stringify(clip(reply, 80))}`);
  return `${PLAN_PREFIX} ${parts.join(' ; ')}`;
}

function attemptLine(a: AttemptSummary): string {
  const calls = a.steps.filter((s) => s.call).map((s) => `${short(s.call!)}${s.resultError ? ' (error)' : ''}`);
  const replied = a.steps.some((s) => s.reply !== undefined);
  const what = `${calls.length ? calls.join(', ') : 'no calls'}${replied ? ', reply' : ''}`;
  return `A${a.index + 1} [${a.assessment.by} ${a.assessment.score.toFixed(1)}] ${what}. ${a.assessment.assessment} Revise: ${a.assessment.revision}`;
}

function clip(s: string, n: number): string { return s.length <= n ? s : `${s.slice(0, n - 1)}…`; }

export interface MemoryOptions {
  kind: MemoryKind;
  /** Length bound, in the unit of `measure`. */
  budget: number;
  /** Length of a text: tokens under the policy's tokenizer (default: characters). */
  measure?: (text: string) => number;
}

/**
 * The memory text, never longer than the budget ('' when nothing fits or there are no attempts).
 *   full:       header; the plan: the best attempt's calls (copyable JSON) less repeats and those any
 *               assessment advises against, and its imagined reply; the calls to avoid; one line per attempt (calls,
 *               assessment, revision), best first, the worst dropped first.
 *   best-calls: the best attempt's calls alone (the simplest alternative).
 * Whatever does not fit is dropped whole, from the least useful end; the plan loses calls from its end.
 */
export function buildMemory(attempts: AttemptSummary[], opts: MemoryOptions): string {
  if (attempts.length === 0 || opts.budget <= 0) return '';
  const measure = opts.measure ?? ((s: string) => s.length);
  const fits = (lines: string[]) => measure(lines.join('\n')) <= opts.budget;
  const ranked = rankAttempts(attempts);
  const best = ranked[0];
  const avoid = dedupeCalls(ranked.flatMap((a) => a.assessment.avoid));
  const avoided = new Set(avoid.map(short));
  const allCalls = best.steps.filter((s) => s.call).map((s) => s.call!);
  // full: the plan is the best attempt revised by the assessments: no call listed under Avoid, no repeats.
  const bestCalls = opts.kind === 'full' ? allCalls.filter((c, i) => !avoided.has(short(c)) && allCalls.findIndex((d) => short(d) === short(c)) === i) : allCalls;
  const head = opts.kind === 'full' ? [MEMORY_HEADER] : [];
  // The plan, shortened call by call from its end until it fits.
  let lines: string[] | null = null;
  for (let keep = bestCalls.length; keep >= 0 && !lines; keep--) {
    const calls = bestCalls.slice(0, keep);
    const withReply = opts.kind === 'full' && keep === bestCalls.length;
    for (const reply of withReply ? [true, false] : [false]) {
      let line = planLine(best, calls, reply, bestCalls.length < allCalls.length);
      if (keep < bestCalls.length) line += ' ; …';
      if (fits([...head, line])) { lines = [...head, line]; break; }
    }
  }
  if (!lines) return '';
  if (opts.kind === 'best-calls') return lines.join('\n');
  if (avoid.length) {
    for (let keep = avoid.length; keep > 0; keep--) {
      const line = `Avoid: ${avoid.slice(0, keep).map(short).join(' ; ')}`;
      if (fits([...lines, line])) { lines.push(line); break; }
    }
  }
  for (const a of ranked) {
    const line = attemptLine(a);
    if (fits([...lines, line])) lines.push(line);
    else {
      const cut = clip(line, Math.max(0, line.length - Math.ceil(line.length / 2)));
      if (cut.length > 20 && fits([...lines, cut])) lines.push(cut);
      break;
    }
  }
  return lines.join('\n');
}

function dedupeCalls(calls: ToolCall[]): ToolCall[] {
  const seen = new Set<string>();
  return calls.filter((c) => { const k = short(c); if (seen.has(k)) return false; seen.add(k); return true; });
}
