// Self-evaluation of one imagined attempt: an assessment and a suggested revision.
//
// Two kinds, clearly labelled on every result (`by`):
//  - 'rules': computed from what the agent itself saw in the attempt (its own outputs and the imagined
//    results) — never from the hidden checklist or the shadow environment's real answers, which a deployed
//    agent does not have. The default, and the only sensible choice for policies too small to write a
//    critique (our shipped 0.2–0.7M-parameter models were never trained to write one).
//  - 'policy': the policy writes the critique itself from the prompt below. Attempts are still ranked by
//    the rule score (a free-text critique gives no reliable number to rank by).

import type { GenerateRequest, TextGenerator } from '../engine/generator';
import type { Message, ToolCall } from '../envs/types';
import { isErrorObservation } from '../envs/judges';
import { stripStop, type ChatFormat } from '../agent/chatTemplate';
import { callJson, canonicalJson } from '../agent/protocol';
import { hashSeed } from '../agent/rollout';
import type { Trajectory } from '../agent/types';

export type AssessorKind = 'rules' | 'policy';

/** One step of an attempt as the agent saw it. */
export interface AttemptStep { call?: ToolCall; result?: string; resultError?: boolean; reply?: string; actError?: string }

export interface Assessment {
  by: AssessorKind;
  /** Rule score in [0, 1] (1: replied, no error, no repeat); ranks attempts whatever `by` is. */
  score: number;
  /** Machine-readable findings: no_reply, no_calls, act_error:CODE, result_error:TOOL, repeated:TOOL, ended:TERMINATION. */
  flags: string[];
  assessment: string;
  revision: string;
  /** Calls the revision advises against (their imagined result was an error). */
  avoid: ToolCall[];
  /** The policy's raw critique (by 'policy'). */
  raw?: string;
}

/** The steps of one user turn of a trajectory, in order, from its rows (no hidden information). */
export function attemptSteps(t: Trajectory, userTurn: number): AttemptStep[] {
  const steps: AttemptStep[] = [];
  const rows = t.rows.filter((r) => r.turn === userTurn);
  for (const r of rows) {
    if (r.role === 'act') {
      if (r.error) steps.push({ actError: r.error.code });
      else if (!r.calls?.length) steps.push({ reply: r.text.replace(/^\s*<think>[\s\S]*?<\/think>/, '').trim() });
    } else if (r.call) {
      const result = r.imagined ?? '';
      steps.push({ call: r.call, result, resultError: !!r.error || isErrorObservation({ text: result, error: false }) });
    }
  }
  return steps;
}

const REPLY_ENDS: readonly string[] = ['final_turn'];

export function ruleAssessment(t: Trajectory, userTurn: number): Assessment {
  const steps = attemptSteps(t, userTurn);
  const flags: string[] = [];
  const problems: string[] = [];
  const advice: string[] = [];
  const avoid: ToolCall[] = [];
  const repeats: ToolCall[] = [];
  let score = 1;
  const seen = new Set<string>();
  let calls = 0;
  for (const s of steps) {
    if (s.actError) { flags.push(`act_error:${s.actError}`); problems.push(`an output did not parse (${s.actError})`); score -= 0.5; }
    if (s.call) {
      calls++;
      const key = `${s.call.name} ${canonicalJson(s.call.arguments)}`;
      if (seen.has(key)) {
        flags.push(`repeated:${s.call.name}`); problems.push(`repeated ${short(s.call)}`); score -= 0.1;
        repeats.push(s.call);
      }
      seen.add(key);
      if (s.resultError) {
        flags.push(`result_error:${s.call.name}`); problems.push(`${short(s.call)} returned an error`); score -= 0.2;
        avoid.push(s.call);
      }
    }
  }
  const replied = steps.some((s) => s.reply !== undefined) && REPLY_ENDS.includes(t.terminatedBy);
  if (!replied) {
    flags.push('no_reply');
    if (t.terminatedBy !== 'final_turn') flags.push(`ended:${t.terminatedBy}`);
    problems.push(`no reply to the user (ended by ${t.terminatedBy})`); score -= 0.5;
    advice.push('finish with a reply to the user');
  }
  // Every task of our worlds needs its tools; answering from nothing is a guess.
  if (calls === 0 && replied) { flags.push('no_calls'); problems.push('replied without using any tool'); score -= 0.25; advice.push('look things up with the tools first'); }
  if (repeats.length) advice.unshift(`do not repeat ${dedupe(repeats).map(short).join(', ')}`);
  if (avoid.length) advice.unshift(`avoid ${dedupe(avoid).map(short).join(', ')}`);
  const assessment = problems.length === 0 ? `${calls} call(s), then a reply; no problem seen.` : `${calls} call(s); ${problems.join('; ')}.`;
  const revision = advice.length === 0 ? 'keep these calls.' : `${advice.join('; ')}.`;
  return { by: 'rules', score: Math.max(0, Math.min(1, score)), flags, assessment, revision, avoid: dedupe(avoid) };
}

function dedupe(calls: ToolCall[]): ToolCall[] {
  const seen = new Set<string>();
  return calls.filter((c) => { const k = `${c.name} ${canonicalJson(c.arguments)}`; if (seen.has(k)) return false; seen.add(k); return true; });
}

/** "name {args}" — the memory's and critiques' way of naming a call. */
export function short(c: ToolCall): string { return `${c.name} ${JSON.stringify(c.arguments)}`; }

// ---------------------------------------------------------------------------------------------------------
// The policy's own critique.

export const SELF_EVAL_SYSTEM = [
  'You review a rehearsal: an imagined attempt at the user\'s request. Its tool results were imagined, not real, and may be wrong.',
  'Judge only what the attempt did: did its calls use the exact names and values from the request, did any result show an error, did it end with a reply that answers the request?',
  'Write exactly two lines and nothing else:',
  'Assessment: <one sentence: what went right or wrong, naming the call>',
  'Revision: <one sentence: what the next attempt should do differently, as concrete calls>',
].join('\n');

/** The attempt as the critic reads it: the request, then each step as it happened. */
export function selfEvalUser(request: string, steps: AttemptStep[], maxChars = 1200): string {
  const lines = steps.map((s) => s.call ? `call ${callJson(s.call)}\n=> ${s.result ?? ''}`
    : s.reply !== undefined ? `reply: ${s.reply}` : `unparsable output (${s.actError})`);
  let body = lines.join('\n');
  if (body.length > maxChars) body = `…${body.slice(body.length - maxChars)}`;
  return `Request: ${request}\n\nAttempt:\n${body || '(nothing)'}`;
}

export function selfEvalMessages(request: string, steps: AttemptStep[], maxChars?: number): Message[] {
  return [{ role: 'system', content: SELF_EVAL_SYSTEM }, { role: 'user', content: selfEvalUser(request, steps, maxChars) }];
}

/** Reads the two lines; a critique that does not follow the format keeps its first line as the assessment. */
export function parseSelfEval(text: string): { assessment: string; revision: string; parsed: boolean } {
  const clean = text.replace(/<think>[\s\S]*?<\/think>/g, '').trim();
  const a = /Assessment:\s*(.+)/i.exec(clean)?.[1]?.trim();
  const r = /Revision:\s*(.+)/i.exec(clean)?.[1]?.trim();
  if (a && r) return { assessment: a.slice(0, 300), revision: r.slice(0, 300), parsed: true };
  const first = clean.split('\n').find((l) => l.trim())?.trim() ?? '';
  return { assessment: (a ?? first).slice(0, 300) || '(empty critique)', revision: (r ?? '').slice(0, 300), parsed: false };
}

export interface PolicyCritiqueInput { request: string; trajectory: Trajectory; userTurn: number; seed: number }

/** One batched generate() for all critiques; each keeps the rule score and flags (labelled by: 'policy'). */
export async function policyAssessments(policy: TextGenerator, format: ChatFormat, inputs: PolicyCritiqueInput[],
  sampling: { maxNewTokens: number; temperature: number }): Promise<Assessment[]> {
  if (inputs.length === 0) return [];
  const reqs: GenerateRequest[] = inputs.map((x) => {
    const steps = attemptSteps(x.trajectory, x.userTurn);
    // Small contexts: keep the tail of the attempt (where it went wrong) and leave room for the critique.
    let maxChars = 1200;
    let prompt = format.render(selfEvalMessages(x.request, steps, maxChars), { addGenerationPrompt: true });
    while (maxChars > 50 && policy.countTokens(prompt) + Math.min(16, sampling.maxNewTokens) > policy.maxContext) {
      maxChars = Math.floor(maxChars / 2);
      prompt = format.render(selfEvalMessages(x.request, steps, maxChars), { addGenerationPrompt: true });
    }
    const room = Math.max(1, Math.min(sampling.maxNewTokens, policy.maxContext - policy.countTokens(prompt)));
    return { prompt, maxNewTokens: room, temperature: sampling.temperature, topP: 1, topK: 0, stop: format.stop, seed: hashSeed('self-eval', x.seed) };
  });
  const gens = await policy.generate(reqs);
  return inputs.map((x, i) => {
    const rules = ruleAssessment(x.trajectory, x.userTurn);
    const raw = stripStop(gens[i].text, format.stop);
    const p = parseSelfEval(raw);
    return { ...rules, by: 'policy', assessment: p.assessment, revision: p.revision, raw, flags: p.parsed ? rules.flags : [...rules.flags, 'critique_unparsed'] };
  });
}
