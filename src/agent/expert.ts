// The expert policy: a deterministic TextGenerator whose Act role replays a task's reference conversation
// and whose Rehearse role answers as an oracle that knows only what the prompt offers (validation verdicts,
// then the matching reference hint). It is the upper-bound baseline of `npm run rollout -- --policy expert`
// and the scripted model the agent, RL and TTS tests drive; `noise` corrupts a share of its outputs.
// Everything here is deterministic in the request seed, like the real sampler.

import type { GenerateRequest, Generation, TextGenerator } from '../engine/generator';
import { Rng } from '../engine/rng';
import type { Message, Task, ToolCall, ToolSchema } from '../envs/types';
import { END_TOKEN, ROLE_TOKENS } from './chatTemplate';
import { formatAct, formatRehearse, validateCall } from './protocol';
import { matchingHint, referenceHints, REHEARSE_MARKER } from './prompts';

/** Rough token count of the scripted generator (4 characters ≈ 1 token). */
export function scriptedTokenCount(text: string): number { return Math.ceil(text.length / 4); }

function scriptedIds(text: string): number[] {
  const n = scriptedTokenCount(text);
  const out = new Array<number>(n);
  for (let i = 0; i < n; i++) {
    let h = 0;
    for (let j = i * 4; j < Math.min(text.length, i * 4 + 4); j++) h = (h * 131 + text.charCodeAt(j)) % 50000;
    out[i] = h;
  }
  return out;
}

export type Responder = (req: GenerateRequest, rng: Rng) => string;

export interface ScriptedGeneratorOptions { name?: string; maxContext?: number; appendStop?: boolean }

/**
 * A TextGenerator whose text comes from a function of the request. Honors maxNewTokens (truncating, with
 * finishReason 'length') and appends the first stop string like the real sampler. Records every batch.
 */
export class ScriptedGenerator implements TextGenerator {
  readonly name: string;
  readonly maxContext: number;
  readonly batches: GenerateRequest[][] = [];
  constructor(private readonly respond: Responder, private readonly opts: ScriptedGeneratorOptions = {}) {
    this.name = opts.name ?? 'scripted';
    this.maxContext = opts.maxContext ?? 1 << 20;
  }
  countTokens(text: string): number { return scriptedTokenCount(text); }
  async generate(reqs: GenerateRequest[]): Promise<Generation[]> {
    this.batches.push(reqs);
    return reqs.map((req) => {
      const rng = new Rng(req.seed);
      let text = this.respond(req, rng);
      let finishReason: Generation['finishReason'] = 'stop';
      if (scriptedTokenCount(text) > req.maxNewTokens) { text = text.slice(0, req.maxNewTokens * 4); finishReason = 'length'; }
      else if ((this.opts.appendStop ?? true) && req.stop.length > 0) text += req.stop[0];
      const outputIds = scriptedIds(text);
      const logprobs = outputIds.map(() => Math.log(0.05 + 0.95 * rng.uniform()));
      return { text, promptIds: scriptedIds(req.prompt), outputIds, logprobs, entropy: outputIds.map(() => 0), finishReason };
    });
  }
}

/** The task a prompt belongs to: the one whose first user message it contains (longest wins). */
export function taskOfPrompt(tasks: Task[], prompt: string): Task | undefined {
  let best: Task | undefined;
  for (const t of tasks) {
    const u = t.userTurns[0];
    if (u !== undefined && prompt.includes(u) && (!best || u.length > best.userTurns[0].length)) best = t;
  }
  return best;
}

export function isRehearsePrompt(prompt: string): boolean { return prompt.includes(REHEARSE_MARKER); }

/**
 * Act role of an expert: replays the task's next reference assistant message. Position = number of
 * assistant turns already in the prompt, so it needs the compact format and untrimmed history.
 */
export function expertAct(tasks: Task[]): Responder {
  return (req) => {
    const task = taskOfPrompt(tasks, req.prompt);
    if (!task) return 'I cannot help with that.';
    const done = req.prompt.split(ROLE_TOKENS.assistant).length - 2;
    const ref = task.reference.filter((m): m is Extract<Message, { role: 'assistant' }> => m.role === 'assistant');
    const next = ref[done];
    if (!next) return 'Done.';
    return next.toolCalls && next.toolCalls.length > 0 ? formatAct(undefined, next.toolCalls) : next.content;
  };
}

/** The call a Rehearse prompt of ours asks to execute. */
export function callOfRehearsePrompt(prompt: string): ToolCall | undefined {
  const at = prompt.lastIndexOf(REHEARSE_MARKER);
  if (at < 0) return undefined;
  const tail = prompt.slice(at + REHEARSE_MARKER.length);
  const name = tail.slice(0, tail.indexOf('\n'));
  const m = /\narguments: (.*)$/m.exec(tail);
  // The arguments line may run into the template's end token.
  const json = m ? m[1].split(END_TOKEN)[0] : '{}';
  try { return { name, arguments: JSON.parse(json) }; } catch { return { name, arguments: {} }; }
}

/**
 * Rehearse role of an oracle that knows only what the prompt offers: validation verdicts first, then a
 * matching reference hint's result, else a generic acknowledgement.
 */
export function oracleRehearse(tasks: Task[], tools: (task: Task) => ToolSchema[] = (t) => t.makeEnv().tools()): Responder {
  return (req) => {
    const task = taskOfPrompt(tasks, req.prompt);
    const call = callOfRehearsePrompt(req.prompt);
    if (!task || !call) return formatRehearse('no call', { error_tool_call: { code: 'INVALID_TOOL_CALL_FORMAT', message: 'no call' } });
    const bad = validateCall(call, tools(task));
    if (bad) return formatRehearse('invalid', { error_tool_call: { code: bad.code, message: bad.message } });
    const hint = matchingHint(referenceHints(task.reference), call);
    return formatRehearse('ok', hint ? hint.result : { ok: true });
  };
}

/** Routes a request to the Act or Rehearse responder by prompt content. */
export function byRole(act: Responder, rehearse: Responder): Responder {
  return (req, rng) => (isRehearsePrompt(req.prompt) ? rehearse(req, rng) : act(req, rng));
}

/**
 * Corrupts a responder's text with probability p per request (drawn from the request seed): so different
 * seeds give different trajectories and equal seeds equal ones — what determinism tests need.
 */
export function noisy(inner: Responder, p: number): Responder {
  return (req, rng) => {
    const text = inner(req, rng);
    if (rng.uniform() >= p) return text;
    switch (rng.int(4)) {
      case 0: return text.replace('}', '');                    // JSON breaks
      case 1: return text.replace('\n</', '</');               // tag boundary breaks
      case 2: return '';                                       // empty output
      default: return `<think>${rng.u32()}</think>${text}`;    // harmless noise
    }
  };
}

/** An expert policy that also rehearses as an oracle (the ideal EnvACE model). */
export function expertGenerator(tasks: Task[], opts: ScriptedGeneratorOptions & { noise?: number } = {}): ScriptedGenerator {
  const r = byRole(expertAct(tasks), oracleRehearse(tasks));
  return new ScriptedGenerator(opts.noise ? noisy(r, opts.noise) : r, { name: 'expert', ...opts });
}

