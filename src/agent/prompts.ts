// Prompt builders for the two roles, in our own words.
//
// Act sees: system (domain policy + tools + output format) and the conversation so far.
// Rehearse gets its own two-message prompt (never a continuation of the Act context): candidate tools,
// few-shot hints from the task's reference conversation, the flattened conversation, Act's raw output
// and the one call to execute. Every section can be shortened because our models have 1–2k contexts.

import type { JSONSchema, Message, ToolCall, ToolSchema } from '../envs/types';
import type { ChatFormat } from './chatTemplate';
import { callJson, canonicalJson } from './protocol';

export type ToolListing = 'json' | 'compact' | 'names' | 'none';

/** One (tool, arguments, result) triple of a reference conversation: Rehearse's few-shot hints. */
export interface Hint { name: string; arguments: Record<string, unknown>; result: string }

export interface ActPromptOptions {
  /** How tools appear in the system text (ignored when the chat format renders tools natively). Default compact. */
  toolListing?: ToolListing;
  /** Keep at most this many trailing messages (the first user message is always kept). */
  maxHistory?: number;
  /** One paragraph explaining the call/reply format. Default true. */
  formatHint?: boolean;
  /** Include the world's domain policy text. Default true; small models learn the rules from examples, and
   * leaving the text out makes prompts several times shorter (more training steps per CPU-minute). */
  policy?: boolean;
  /** Replaces the whole system text. */
  system?: string;
  /** Appended to the system text (test-time rehearsal memory, src/tts/). */
  memory?: string;
}

export interface RehearsePromptOptions {
  /** Candidate tool list. Default compact. */
  toolListing?: ToolListing;
  /** Few-shot hints: all, only those of the current tool, or none. Default 'all'. */
  hints?: boolean | 'same-tool';
  maxHints?: number;
  /** Include the flattened conversation (default true) and keep at most this many trailing messages. */
  history?: boolean;
  maxHistory?: number;
  /** Include Act's raw last output (default true). */
  rawAct?: boolean;
  /**
   * The system instruction: 'full' (nine lines), 'short' (four terse lines for tiny models) or 'validate' (five
   * lines: check the call, then answer from the state the conversation shows). Default 'full'.
   */
  style?: 'full' | 'short' | 'validate';
  /**
   * Show the called tool's parameters under "Call to execute": its JSON schema (true, the default), its compact
   * signature `name(a: string, b?: integer)` ('compact': what Rehearse needs to reject a call with a missing or
   * mistyped argument, at a tenth of the tokens), or nothing (false).
   */
  schema?: boolean | 'compact';
  /**
   * Under the call, the lines of the conversation that mention each of its string arguments (mentionsBlock). Adds
   * nothing the reference's simulator does not see; it moves the lines a name's state is read from next to the
   * call, for a simulator too small to find them in a long prompt (the reference's is an 8B model).
   */
  mentions?: boolean;
  system?: string;
}

export interface RehearseInput {
  tools: ToolSchema[];
  hints: Hint[];
  conversation: Message[];
  rawAct: string;
  call: ToolCall;
}

function typeLabel(s: JSONSchema | undefined): string {
  if (!s || typeof s !== 'object') return 'any';
  if (Array.isArray(s.enum)) return s.enum.map((e) => JSON.stringify(e)).join('|');
  if (Array.isArray(s.type)) return s.type.join('|');
  if (s.type === 'array') return `${typeLabel(s.items)}[]`;
  return typeof s.type === 'string' ? s.type : 'any';
}

/** "name(a: string, b?: integer): description" — a quarter of the tokens of the JSON schema. */
export function compactTool(t: ToolSchema): string {
  const props = (t.parameters?.properties ?? {}) as Record<string, JSONSchema>;
  const req = new Set(Array.isArray(t.parameters?.required) ? t.parameters.required : []);
  const args = Object.entries(props).map(([k, s]) => `${k}${req.has(k) ? '' : '?'}: ${typeLabel(s)}`).join(', ');
  return `${t.name}(${args})${t.description ? `: ${t.description}` : ''}`;
}

export function listTools(tools: ToolSchema[], how: ToolListing): string {
  if (how === 'none') return '';
  if (how === 'json') return tools.map((t) => JSON.stringify({ name: t.name, description: t.description, parameters: t.parameters })).join('\n');
  if (how === 'names') return tools.map((t) => t.name).join(', ');
  return tools.map(compactTool).join('\n');
}

/** The tail of a conversation, never starting on an orphaned tool result; the first user message stays. */
export function trimHistory(conversation: Message[], maxHistory?: number): Message[] {
  if (maxHistory === undefined || !Number.isFinite(maxHistory) || conversation.length <= maxHistory) return conversation;
  const firstUser = conversation.findIndex((m) => m.role === 'user');
  let start = Math.max(0, conversation.length - Math.max(0, Math.floor(maxHistory)));
  while (start < conversation.length && conversation[start].role === 'tool') start++;
  const tail = conversation.slice(start);
  return firstUser >= 0 && firstUser < start ? [conversation[firstUser], ...tail] : tail;
}

const ACT_FORMAT =
  'To use tools, write one block per call:\n<tool_call>\n{"name":"tool_name","arguments":{...}}\n</tool_call>\n' +
  'You may think first inside <think></think>. Text without a tool call is your reply to the user.';

export function actSystem(policy: string, tools: ToolSchema[], opts: ActPromptOptions = {}, nativeTools = false): string {
  if (opts.system !== undefined) return opts.system;
  const parts = [(opts.policy ?? true) ? policy.trim() : ''];
  const listing = nativeTools ? '' : listTools(tools, opts.toolListing ?? 'compact');
  if (listing) parts.push(`Tools:\n${listing}`);
  if (opts.formatHint ?? true) parts.push(ACT_FORMAT);
  if (opts.memory) parts.push(opts.memory.trim());
  return parts.filter((p) => p !== '').join('\n\n');
}

export function buildActMessages(policy: string, tools: ToolSchema[], conversation: Message[], opts: ActPromptOptions = {}, nativeTools = false): Message[] {
  const history = trimHistory(conversation.filter((m) => m.role !== 'system'), opts.maxHistory);
  return [{ role: 'system', content: actSystem(policy, tools, opts, nativeTools) }, ...history];
}

/** The Act prompt text, ending where the assistant's turn starts. */
export function actPrompt(format: ChatFormat, policy: string, tools: ToolSchema[], conversation: Message[], opts: ActPromptOptions = {}): string {
  const msgs = buildActMessages(policy, tools, conversation, opts, format.nativeTools);
  return format.render(msgs, { addGenerationPrompt: true, tools });
}

/** Reference (tool, arguments, result) triples: each tool message is paired with the oldest pending call. */
export function referenceHints(reference: Message[]): Hint[] {
  const pending: ToolCall[] = [];
  const out: Hint[] = [];
  for (const m of reference) {
    if (m.role === 'assistant') pending.push(...(m.toolCalls ?? []));
    else if (m.role === 'tool') {
      let i = pending.findIndex((c) => c.name === m.name);
      if (i < 0) i = 0;
      const c = pending.splice(i, 1)[0];
      if (c) out.push({ name: c.name, arguments: c.arguments, result: m.content });
    } else if (m.role === 'user') pending.length = 0;
  }
  return out;
}

/** The hint whose (name, canonical arguments) equal the call's, if any: the answer a faithful Rehearse reuses. */
export function matchingHint(hints: Hint[], call: ToolCall): Hint | undefined {
  const key = canonicalJson(call.arguments);
  return hints.find((h) => h.name === call.name && canonicalJson(h.arguments) === key);
}

/** The conversation as plain "User:/Assistant:/Tool[name]:" lines (system messages left out). */
export function flattenConversation(messages: Message[]): string {
  const lines: string[] = [];
  for (const m of messages) {
    if (m.role === 'user') { if (m.content.trim()) lines.push(`User: ${m.content.trim()}`); }
    else if (m.role === 'assistant') {
      const text = m.content.trim() + (m.toolCalls ?? []).map((c) => `\n<tool_call>\n${callJson(c)}\n</tool_call>`).join('');
      if (text.trim()) lines.push(`Assistant: ${text.trim()}`);
    } else if (m.role === 'tool') { if (m.content.trim()) lines.push(`Tool[${m.name}]: ${m.content.trim()}`); }
  }
  return lines.length ? lines.join('\n') : '(empty)';
}

export const REHEARSE_SYSTEM_FULL = [
  'You are the runtime that executes one tool call. You never talk to anyone; you only return what the tool returns.',
  'You are given the tools the agent may use, example calls with their true results, the conversation so far, the agent\'s latest output and the call to execute.',
  'Check the call first, in this order:',
  '1. The agent\'s output must hold the call in a well-formed <tool_call> block with {"name": ..., "arguments": {...}}; if not, code INVALID_TOOL_CALL_FORMAT.',
  '2. The tool must be one of the listed tools; if not, code TOOL_NOT_AVAILABLE.',
  '3. The arguments must satisfy the tool\'s schema (required fields, types, allowed values); if not, code INVALID_PARAMETERS.',
  'On a failed check the result is {"error_tool_call":{"code":"<code>","message":"<short reason>"}}.',
  'Otherwise the result is what the tool returns, shaped by its schema and consistent with the examples. When an example has the same tool and arguments, return its result unchanged.',
  'Answer as <think>short reasoning</think> followed by a newline, <execution_result>, a newline, one JSON object or array, a newline and </execution_result>. Nothing else.',
].join('\n');

export const REHEARSE_SYSTEM_SHORT = [
  'Execute the tool call and return only its result.',
  'Invalid call: {"error_tool_call":{"code":"INVALID_TOOL_CALL_FORMAT|TOOL_NOT_AVAILABLE|INVALID_PARAMETERS","message":"..."}}.',
  'Same tool and arguments as an example: return that example\'s result.',
  'Format: <think>...</think>\n<execution_result>\n{json}\n</execution_result>',
].join('\n');

/**
 * The reference simulator's two steps (validate, then generate) in few enough tokens for a 1,024-token context;
 * its state line is what lets a small simulator foresee a state error (a folder not there, a file elsewhere).
 */
export const REHEARSE_SYSTEM_VALIDATE = [
  'Execute the tool call and return only its result.',
  'First check it: a tool not in the list is TOOL_NOT_AVAILABLE; arguments that do not fit its signature are INVALID_PARAMETERS; answer {"error_tool_call":{"code":"...","message":"..."}}.',
  'Then answer as the tool would in the state the conversation shows (folders, files, earlier results); the tool\'s own error when that state makes the call fail.',
  'An example with the same tool and arguments from the same state: return its result.',
  'Format: <think>...</think>\n<execution_result>\n{json}\n</execution_result>',
].join('\n');

const REHEARSE_SYSTEMS = { full: REHEARSE_SYSTEM_FULL, short: REHEARSE_SYSTEM_SHORT, validate: REHEARSE_SYSTEM_VALIDATE } as const;

/**
 * The hints a Rehearse prompt with these options shows for this call, in order; null when hints are off. The hint
 * whose call matches this one (matchingHint) always comes first, whatever the cap: it is the answer a faithful
 * Rehearse copies, and a cap that kept only earlier same-tool hints used to drop it.
 */
export function selectHints(hints: Hint[], call: ToolCall, opts: Pick<RehearsePromptOptions, 'hints' | 'maxHints'> = {}): Hint[] | null {
  const mode = opts.hints ?? true;
  if (mode === false) return null;
  const pool = mode === 'same-tool' ? hints.filter((h) => h.name === call.name) : hints;
  const match = matchingHint(hints, call);
  const hs = match ? [match, ...pool.filter((h) => h !== match)] : pool;
  return opts.maxHints === undefined ? hs : hs.slice(0, Math.max(match ? 1 : 0, opts.maxHints));
}

/** The "Examples:" section of a Rehearse prompt (hints-on, possibly empty). */
export function hintsBlock(hints: Hint[]): string {
  return hints.length === 0 ? 'Examples: (none)'
    : `Examples:\n${hints.map((h) => `${h.name} ${JSON.stringify(h.arguments)}\n=> ${h.result}`).join('\n')}`;
}

export function rehearseUser(input: RehearseInput, opts: RehearsePromptOptions = {}): string {
  const parts: string[] = [];
  const listing = listTools(input.tools, opts.toolListing ?? 'compact');
  if (listing) parts.push(`Tools:\n${listing}`);
  const shown = selectHints(input.hints, input.call, opts);
  if (shown !== null) parts.push(hintsBlock(shown));
  if (opts.history ?? true) {
    const conv = trimHistory(input.conversation.filter((m) => m.role !== 'system'), opts.maxHistory);
    parts.push(`Conversation:\n${flattenConversation(conv)}`);
  }
  if (opts.rawAct ?? true) parts.push(`Agent output:\n${input.rawAct}`);
  const tool = input.tools.find((t) => t.name === input.call.name);
  const how = opts.schema ?? true;
  const schema = how === 'compact' ? `\nsignature: ${tool ? compactTool({ ...tool, description: '' }) : '(unknown tool)'}`
    : how ? `\nschema: ${tool ? JSON.stringify(tool.parameters) : '(unknown tool)'}` : '';
  parts.push(`Call to execute:\nname: ${input.call.name}${schema}\narguments: ${JSON.stringify(input.call.arguments)}`);
  if (opts.mentions) {
    // From the whole conversation, even where the rollout's ladder shed old history: the reference's simulator sees it all.
    const block = mentionsBlock(input.conversation, input.call);
    if (block) parts.push(block);
  }
  return parts.join('\n\n');
}

/**
 * At most this many lines per name: the first half and the latest half, since a name's starting state is told
 * where it is first mentioned and its latest change where it was last touched.
 */
export const MAX_MENTIONS = 4;
const FIRST_MENTIONS = Math.floor(MAX_MENTIONS / 2);
const MENTION_LINE_CHARS = 160;

/**
 * For each distinct name the call passes (a string argument of two to 64 characters with a letter or digit), the
 * conversation lines (as flattenConversation writes them) in which it occurs as a whole name: `Where "plan.md"
 * appears:` then the lines, or `Where "plan.md" appears: nowhere`. A whole name is bounded by characters a name
 * cannot hold (not a letter, digit, `_`, `.` or `-`), so `a.txt` does not match inside `data.txt` and `old`
 * matches `old/` and `~/work/old`. Null when the call passes no name.
 */
export function mentionsBlock(conversation: Message[], call: ToolCall): string | null {
  return mentionsOfLines(conversation.length ? flattenConversation(conversation).split('\n') : [], call);
}

/** mentionsBlock over a conversation already written as lines (the line drill builds its prompts as text). */
export function mentionsOfLines(lines: string[], call: ToolCall): string | null {
  // Names only: a one-letter mode ("w") or `..` names nothing whose lines would tell its state.
  const values = [...new Set(Object.values(call.arguments ?? {}).filter((v): v is string => typeof v === 'string' && v.length >= 2 && v.length <= 64 && /[A-Za-z0-9]/.test(v)))];
  if (values.length === 0) return null;
  return values.map((v) => {
    const whole = new RegExp(`(^|[^A-Za-z0-9_.\\-])${v.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}($|[^A-Za-z0-9_.\\-])`);
    const all = lines.filter((l) => whole.test(l));
    const hits = (all.length > MAX_MENTIONS ? [...all.slice(0, FIRST_MENTIONS), ...all.slice(FIRST_MENTIONS - MAX_MENTIONS)] : all).map((l) => {
      if (l.length <= MENTION_LINE_CHARS) return l;
      // A long line (a file's content) is cut around the name, so the name itself is always shown.
      const from = Math.max(0, Math.min(l.search(whole) - 40, l.length - MENTION_LINE_CHARS));
      return `${from > 0 ? '…' : ''}${l.slice(from, from + MENTION_LINE_CHARS)}${from + MENTION_LINE_CHARS < l.length ? '…' : ''}`;
    });
    return hits.length ? `Where ${JSON.stringify(v)} appears:\n${hits.join('\n')}` : `Where ${JSON.stringify(v)} appears: nowhere`;
  }).join('\n');
}

export function buildRehearseMessages(input: RehearseInput, opts: RehearsePromptOptions = {}): Message[] {
  const system = opts.system ?? REHEARSE_SYSTEMS[opts.style ?? 'full'] ?? REHEARSE_SYSTEM_FULL;
  return [{ role: 'system', content: system }, { role: 'user', content: rehearseUser(input, opts) }];
}

export function rehearsePrompt(format: ChatFormat, input: RehearseInput, opts: RehearsePromptOptions = {}): string {
  return format.render(buildRehearseMessages(input, opts), { addGenerationPrompt: true });
}

/** Marker by which traces and dump importers recognise a Rehearse prompt of ours. */
export const REHEARSE_MARKER = 'Call to execute:\nname: ';
