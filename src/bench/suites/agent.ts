// What the benchmark suites (BFCL-v4 multi-turn, τ²-bench) need from a policy, and the policy a model gives.
//
// A suite's loop advances many episodes together and asks its agent for one Act output per live episode in
// one call (one batch through the sampler). The model agent prompts with our Act protocol (src/agent/prompts:
// system text, the tools, the conversation; a model's own chat template when it has one) and fits every
// prompt to the model's context by shedding the tool descriptions, then old history; a prompt that fits no
// rung gets an empty output marked 'overflow' (the suite treats it as a step without a call). Replies are
// decoded into calls with floats and key order kept (parsePyJson), because BFCL executes repr'd arguments
// and τ² hashes databases: `5.0` and `5` are different calls there.

import { actPrompt, type ActPromptOptions } from '../../agent/prompts';
import { stripStop, type ChatFormat } from '../../agent/chatTemplate';
import { blocks, parseAct, stripThink, TOOL_CALL_CLOSE, TOOL_CALL_OPEN } from '../../agent/protocol';
import type { GenerateRequest, TextGenerator } from '../../engine/generator';
import { parseJsonToolCall, type ParsedCall } from '../../envs/bfcl/parser';
import { parsePyJson, pyJsonDumps } from '../../envs/python';
import type { Message, ToolError, ToolSchema } from '../../envs/types';

/** The model name that selects a suite's ground-truth replay policy (CLI and page). */
export const GROUND_TRUTH = 'ground-truth';

export interface AgentRequest {
  /** System text (the suite's instructions; a τ² domain's policy). */
  system: string;
  tools: ToolSchema[];
  /** The conversation so far (no system message), ending where the agent speaks. */
  conversation: Message[];
  seed: number;
  /** Who is asking (suite-specific: entry, sample, turn, step); scripted agents read it. */
  meta: Record<string, unknown>;
}

export type FinishReason = 'stop' | 'eos' | 'length' | 'overflow' | 'scripted';
export interface AgentOutput { text: string; finishReason: FinishReason }

export interface SuiteAgent {
  readonly name: string;
  act(reqs: AgentRequest[]): Promise<AgentOutput[]>;
}

export interface Sampling { temperature: number; topP: number; topK?: number }

export interface ModelAgentOptions extends Sampling {
  format: ChatFormat;
  /** The model's Act prompt options (its profile); toolListing json|compact|names, maxHistory, policy. */
  actPrompt?: ActPromptOptions;
  maxNewTokens: number;
  /** A prompt may shrink the token budget down to this many tokens (default: the whole budget). */
  minNewTokens?: number;
}

/** Prompt variants from fullest to leanest: descriptions go first, then old history. */
function actLadder(base: ActPromptOptions): ActPromptOptions[] {
  const out: ActPromptOptions[] = [base];
  if ((base.toolListing ?? 'compact') === 'json') out.push({ ...base, toolListing: 'compact' });
  if (base.toolListing !== 'names' && base.toolListing !== 'none') out.push({ ...base, toolListing: 'names' });
  const names = out[out.length - 1];
  for (const h of [8, 4, 2, 1]) if ((names.maxHistory ?? Infinity) > h) out.push({ ...names, maxHistory: h });
  return out;
}

/**
 * One generate() for the requests whose prompt fits; `variants(i)` lists request i's prompts from fullest to
 * leanest. Outputs in request order; a request that fits nowhere gets '' and 'overflow'.
 */
export async function generateFitted(gen: TextGenerator, n: number, variants: (i: number) => string[], seeds: (i: number) => number,
  o: Sampling & { maxNewTokens: number; minNewTokens?: number; stop: string[] }): Promise<AgentOutput[]> {
  const out: AgentOutput[] = new Array(n);
  const reqs: GenerateRequest[] = [];
  const at: number[] = [];
  const min = Math.max(1, Math.min(o.minNewTokens ?? o.maxNewTokens, o.maxNewTokens));
  for (let i = 0; i < n; i++) {
    let placed = false;
    for (const prompt of variants(i)) {
      const room = gen.maxContext - gen.countTokens(prompt);
      const budget = Math.min(o.maxNewTokens, room);
      if (budget < min) continue;
      reqs.push({ prompt, maxNewTokens: budget, temperature: o.temperature, topP: o.topP, topK: o.topK ?? 0, stop: o.stop, seed: seeds(i) });
      at.push(i);
      placed = true;
      break;
    }
    if (!placed) out[i] = { text: '', finishReason: 'overflow' };
  }
  const gens = reqs.length ? await gen.generate(reqs) : [];
  if (gens.length !== reqs.length) throw new Error(`generator ${gen.name} returned ${gens.length} generations for ${reqs.length} requests`);
  gens.forEach((g, j) => { out[at[j]] = { text: stripStop(g.text, o.stop), finishReason: g.finishReason }; });
  return out;
}

/** A model as a suite agent: Act prompts in its chat format, fitted to its context. */
export function modelAgent(gen: TextGenerator, o: ModelAgentOptions): SuiteAgent {
  const ladder = actLadder(o.actPrompt ?? {});
  return {
    name: gen.name,
    act: (reqs) => generateFitted(gen, reqs.length,
      (i) => ladder.map((opts) => actPrompt(o.format, reqs[i].system, reqs[i].tools, reqs[i].conversation, opts)),
      (i) => reqs[i].seed, { ...o, stop: o.format.stop }),
  };
}

export type DecodedAct =
  | { kind: 'reply'; content: string }
  | { kind: 'calls'; content: string; calls: ParsedCall[] }
  | { kind: 'error'; error: ToolError };

/**
 * An Act output as a reply or as calls whose arguments keep Python's view of the JSON (floats stay floats,
 * dict order kept): the Act protocol's parser decides (its error codes), then each block is read again
 * with parsePyJson. Never throws.
 */
export function decodeAct(text: string): DecodedAct {
  const p = parseAct(text);
  if (!p.ok) return { kind: 'error', error: p.error };
  if (p.kind === 'reply') return { kind: 'reply', content: stripThink(p.content).trim() };
  const calls: ParsedCall[] = [];
  for (const body of blocks(text, TOOL_CALL_OPEN, TOOL_CALL_CLOSE)) {
    let v: unknown;
    try { v = parsePyJson(body.trim()); } catch (e) {
      return { kind: 'error', error: { code: 'JSON_DECODE_ERROR', message: (e as Error).message } };
    }
    for (const item of Array.isArray(v) ? v : [v]) {
      const r = parseJsonToolCall(item as string);
      if (!r.ok) return { kind: 'error', error: r.error };
      calls.push({ ...r, function: r.function.trim() });
    }
  }
  return { kind: 'calls', content: p.content, calls };
}

/** One Act tool-call block with Python's JSON of the arguments (floats keep '.0', key order kept). */
export function toolCallBlock(name: string, args: unknown): string {
  return `${TOOL_CALL_OPEN}{"name": ${JSON.stringify(name)}, "arguments": ${pyJsonDumps(args ?? {})}}${TOOL_CALL_CLOSE}`;
}

const macrotask = () => new Promise<void>((r) => setTimeout(r, 0));

export class SuiteCancelled extends Error {
  constructor() { super('evaluation cancelled'); this.name = 'SuiteCancelled'; }
}

/** Bad suite input (files, options): the CLI prints `problems` and exits 2; the page shows them. */
export class SuiteInputError extends Error {
  constructor(readonly problems: string[]) { super(problems.join('; ')); this.name = 'SuiteInputError'; }
}

/** Lets messages in (a worker's cancel) and checks the signal: call before every batch of generations. */
export async function checkpoint(signal: AbortSignal | undefined, yieldToEventLoop: boolean): Promise<void> {
  if (yieldToEventLoop) await macrotask();
  if (signal?.aborted) throw new SuiteCancelled();
}

/** Episodes a suite keeps in flight at once by default (its sampler batch). */
export const SUITE_BATCH = 16;

export interface SuiteProgress {
  /** Episodes (entry or task × sample) finished, of total. */
  done: number; total: number;
  generations: number;
  elapsedMs: number;
  etaMs: number | null;
}

/** Progress of a suite run started at `t0` (performance.now()), with an ETA from the mean time per finished episode. */
export function suiteProgress(t0: number, done: number, total: number, generations: number): SuiteProgress {
  const elapsedMs = performance.now() - t0;
  return { done, total, generations, elapsedMs, etaMs: done > 0 ? (elapsedMs / done) * (total - done) : null };
}
