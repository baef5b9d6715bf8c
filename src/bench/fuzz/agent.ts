// Fuzz surfaces of what a model or a file hands the agent layer: Act and Rehearse outputs (the protocol
// parsers and call validation) and trace files (our JSONL traces and reference rollout dumps). None of
// these functions has a documented throw: they return structured errors, so every exception is a crash.

import { actMessage, formatAct, formatRehearse, parseAct, parseRehearse, validateCall } from '../../agent/protocol';
import { exportTraces, importReferenceDump, importTraces } from '../../agent/traces';
import { rolloutGroups } from '../../agent/rollout';
import { expertGenerator } from '../../agent/expert';
import { getWorld } from '../../envs/worlds/index';
import type { Task, ToolCall, ToolSchema } from '../../envs/types';
import { deepNest, FuzzRng, mutateN, mutateValue, NASTY_STRINGS, randomString, randomValue } from './gen';
import type { Surface } from './harness';

interface Corpus { tasks: Task[]; tools: ToolSchema[]; calls: ToolCall[]; replies: string[]; results: string[] }

let corpus: Corpus | null = null;
/** Real calls, replies and tool results of a few built-in tasks: mutations of valid text reach deep paths. */
function agentCorpus(): Corpus {
  if (corpus) return corpus;
  const tasks = [...getWorld('retail').tasks({ count: 6 }), ...getWorld('files').tasks({ count: 6 })];
  const tools = [...new Map(tasks.flatMap((t) => t.makeEnv().tools()).map((s) => [s.name, s])).values()];
  const calls: ToolCall[] = []; const replies: string[] = []; const results: string[] = [];
  for (const t of tasks) for (const m of t.reference) {
    if (m.role === 'assistant' && m.toolCalls?.length) calls.push(...m.toolCalls);
    else if (m.role === 'assistant') replies.push(m.content);
    else if (m.role === 'tool') results.push(m.content);
  }
  corpus = { tasks, tools, calls, replies, results };
  return corpus;
}

/** Normalises a free-text error message into a short code-like key (numbers and quoted parts dropped). */
export function messageKey(m: string): string {
  if (/^invalid JSON/i.test(m)) return 'invalid JSON';
  return m.replace(/\s*\((got|expected)\b.*$/s, '').replace(/"[^"]*"|'[^']*'|\d+(\.\d+)?/g, '#').replace(/\s+/g, ' ').slice(0, 48).trim();
}

function actText(r: FuzzRng): string {
  const c = agentCorpus();
  const think = r.bool(0.5) ? randomString(r, 30) : undefined;
  switch (r.int(8)) {
    case 0: return randomString(r, 200);
    case 1: return `<tool_call>\n${deepNest(r, r.pick([10, 63, 64, 65, 500, 5000]))}\n</tool_call>`;
    case 2: return `\n<tool_call>\n{"name": ${JSON.stringify(r.pick(NASTY_STRINGS))}, "arguments": ${JSON.stringify(randomValue(r, 4)) ?? 'undefined'}}\n</tool_call>`;
    case 3: return formatAct(think, r.pick(c.replies));
    case 4: return '<tool_call>'.repeat(r.range(1, 3000));
    default: {
      const calls = Array.from({ length: r.range(1, 3) }, () => {
        const call = r.pick(c.calls);
        return r.bool(0.4) ? { name: call.name, arguments: mutateValue(r, call.arguments) as Record<string, unknown> } : call;
      });
      const text = formatAct(think, calls);
      return r.bool(0.7) ? mutateN(r, text) : text;
    }
  }
}

export const actSurface: Surface<string> = {
  name: 'act-output',
  about: 'Act outputs through parseAct, actMessage and validateCall against the tool list (errors are ActParse/ToolError values; any throw is a crash)',
  setup: () => { agentCorpus(); },
  generate: (r) => actText(r),
  run(text) {
    const p = parseAct(text);
    actMessage(text, p);
    if (!p.ok) return p.error.code;
    if (p.kind === 'reply') return 'reply';
    for (const call of p.calls) {
      const bad = validateCall(call, agentCorpus().tools, text);
      if (bad) return bad.code;
    }
    return 'valid-calls';
  },
};

export const rehearseSurface: Surface<string> = {
  name: 'rehearse-output',
  about: 'Rehearse outputs through parseRehearse (errors are RehearseParse values; any throw is a crash)',
  setup: () => { agentCorpus(); },
  generate(r) {
    const c = agentCorpus();
    switch (r.int(6)) {
      case 0: return randomString(r, 200);
      case 1: return `<execution_result>\n${deepNest(r, r.pick([10, 64, 65, 5000]))}\n</execution_result>`;
      case 2: return `<execution_result>${JSON.stringify(randomValue(r, 4)) ?? ''}</execution_result>`.repeat(r.range(1, 3));
      default: {
        const text = formatRehearse(r.bool() ? randomString(r, 30) : undefined, r.pick(c.results));
        return r.bool(0.75) ? mutateN(r, text) : text;
      }
    }
  },
  run(text) {
    const p = parseRehearse(text);
    return p.ok ? 'ok' : p.error.code;
  },
};

let traceText: string | null = null;
async function traceCorpus(): Promise<string> {
  if (traceText !== null) return traceText;
  const tasks = [...agentCorpus().tasks.slice(0, 2), ...agentCorpus().tasks.slice(6, 8)];
  const ts = await rolloutGroups(tasks, 1, { mode: 'rehearsal', policy: expertGenerator(tasks, { noise: 0.2 }), seed: 5 });
  // Without prompts and token ids (an export option): 40 kB instead of 260 kB keeps 10,000 cases in about a minute.
  traceText = exportTraces(ts, { prompts: false, tokens: false });
  return traceText;
}

function mutateLines(r: FuzzRng, text: string): string {
  const lines = text.split('\n').filter(Boolean);
  const i = r.int(lines.length);
  switch (r.int(5)) {
    case 0: { // edit the parsed record: drop, retype or add a field somewhere inside it
      try { lines[i] = JSON.stringify(mutateValue(r, JSON.parse(lines[i]))) ?? 'undefined'; } catch { /* keep */ }
      break;
    }
    case 1: lines[i] = mutateN(r, lines[i]); break;
    case 2: lines.splice(i, 0, r.pick(NASTY_STRINGS), JSON.stringify(randomValue(r, 3)) ?? ''); break;
    case 3: lines[i] = lines[i].slice(0, r.int(lines[i].length)); break;
    default: lines.push(deepNest(r, r.pick([100, 5000])));
  }
  return lines.join(r.bool(0.9) ? '\n' : '\r\n');
}

export const traceSurface: Surface<string> = {
  name: 'trace-file',
  about: 'our JSONL trace files through importTraces (bad lines are reported with their number; any throw is a crash)',
  setup: async () => { await traceCorpus(); },
  generate(r) {
    const base = traceText!;
    return r.bool(0.05) ? randomString(r, 300) : mutateLines(r, r.bool(0.5) ? base : mutateLines(r, base));
  },
  run(text) {
    const { trajectories, errors } = importTraces(text);
    return errors.length ? `invalid:${messageKey(errors[0].message)}` : `ok:${trajectories.length > 0 ? 'some' : 'none'}`;
  },
  show: (t) => JSON.stringify(t.slice(0, 300)),
};

/** Reference rollout dumps: one JSON object per line with input/output/score/step. */
function dumpCorpus(): string {
  const c = agentCorpus();
  const lines: string[] = [];
  for (const [i, t] of c.tasks.slice(0, 4).entries()) {
    const prompt = `system\n${t.policy}\nuser\n${t.userTurns[0]}\nassistant\n`;
    const act = formatAct(undefined, c.calls.slice(i, i + 1));
    lines.push(JSON.stringify({ input: prompt, output: act, score: 1, step: 0 }));
    lines.push(JSON.stringify({ input: `system\nYou are a precise tool simulator\nCurrent tool to simulate:\n- name: ${c.calls[i].name}\n`
      + `- arguments (JSON, parsed from caller's tool_call):\n${JSON.stringify(c.calls[i].arguments)}\nRL model's latest response:\n${act}`,
    output: formatRehearse(undefined, c.results[i]), score: 1, step: 0 }));
    lines.push(JSON.stringify({ input: `${prompt}${act}\nuser\n${c.results[i]}\nassistant\n`, output: c.replies[i] ?? 'ok', score: 1, step: 0 }));
  }
  return lines.join('\n');
}

let dumpText: string | null = null;
export const dumpSurface: Surface<string> = {
  name: 'reference-dump',
  about: 'reference rollout dumps (verl rollout_data_dir JSONL) through importReferenceDump (errors are reported; any throw is a crash)',
  setup: () => { dumpText ??= dumpCorpus(); },
  generate(r) {
    return r.bool(0.05) ? randomString(r, 300) : mutateLines(r, r.bool(0.5) ? dumpText! : mutateLines(r, dumpText!));
  },
  run(text) {
    const d = importReferenceDump(text, { matchScore: text.length % 2 === 0 });
    return d.errors.length ? `invalid:${messageKey(d.errors[0].message)}` : `ok:${d.trajectories.length > 0 ? 'some' : 'none'}`;
  },
  show: (t) => JSON.stringify(t.slice(0, 300)),
};
