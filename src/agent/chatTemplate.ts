// Chat formats: how a Message[] becomes the prompt text the sampler sees, and which strings end a turn.
//
// Our own models use a compact template (one special token per role, one end token) because every token
// counts in a 1–2k context. The same template is provided as a Jinja string for tokenizer_config.json so
// HF tooling renders identical text; models that ship their own Jinja template (e.g. Qwen) are rendered
// through @huggingface/jinja.

import { Template } from '@huggingface/jinja';
import type { Message, ToolSchema } from '../envs/types';
import { callJson, TOOL_CALL_CLOSE, TOOL_CALL_OPEN } from './protocol';

export const ROLE_TOKENS = { system: '<|system|>', user: '<|user|>', assistant: '<|assistant|>', tool: '<|tool|>' } as const;
export const END_TOKEN = '<|end|>';

/**
 * Tokens the tokenizer must treat as atomic special tokens (never split, skipped on decode of dumps).
 * The tokenizer's DEFAULT_SPECIAL_TOKENS must contain all of them (a test checks this).
 */
export const SPECIAL_TOKENS: readonly string[] = [
  ROLE_TOKENS.system, ROLE_TOKENS.user, ROLE_TOKENS.assistant, ROLE_TOKENS.tool, END_TOKEN,
];

/**
 * Protocol tags that are worth single tokens for tiny models but must survive decoding (they are content,
 * not control), i.e. added as normal (non-special) tokens if the tokenizer supports that.
 */
export const PROTOCOL_TOKENS: readonly string[] = [
  '<think>', '</think>', '<tool_call>', '</tool_call>', '<execution_result>', '</execution_result>',
];

export interface RenderOptions {
  addGenerationPrompt?: boolean;
  /** Only formats with nativeTools render these; others expect the tool list in the system text. */
  tools?: ToolSchema[];
}

export interface ChatFormat {
  readonly name: string;
  render(messages: Message[], opts?: RenderOptions): string;
  /** Strings that end a generated turn (passed as GenerateRequest.stop). */
  readonly stop: string[];
  /** True when the template itself lists tools (then prompts leave them out of the system text). */
  readonly nativeTools: boolean;
}

/** A generated turn without its trailing stop string (the sampler keeps it in the text). */
export function stripStop(text: string, stop: readonly string[]): string {
  for (const s of stop) if (s && text.endsWith(s)) return text.slice(0, -s.length);
  return text;
}

function renderAssistant(m: Extract<Message, { role: 'assistant' }>): string {
  return m.content + (m.toolCalls ?? []).map((c) => `${TOOL_CALL_OPEN}${callJson(c)}${TOOL_CALL_CLOSE}`).join('');
}

/** The compact template, in TypeScript. */
export function renderCompact(messages: Message[], opts: RenderOptions = {}): string {
  let out = '';
  for (const m of messages) {
    const body = m.role === 'assistant' ? renderAssistant(m) : m.content;
    out += `${ROLE_TOKENS[m.role]}${body}${END_TOKEN}\n`;
  }
  if (opts.addGenerationPrompt) out += ROLE_TOKENS.assistant;
  return out;
}

/**
 * The compact template as Jinja, for tokenizer_config.json "chat_template". Newlines are emitted from
 * string expressions only, so HF's trim_blocks/lstrip_blocks settings cannot change the output; tool
 * calls are written as compact JSON (separators) to match callJson(). Expects HF-style messages
 * (toHfMessages).
 */
export const COMPACT_CHAT_TEMPLATE =
  "{% for m in messages %}<|{{ m.role }}|>{{ m.content }}" +
  "{% if m.role == 'assistant' and m.tool_calls %}{% for c in m.tool_calls %}" +
  "{{ '\\n<tool_call>\\n' }}{\"name\":{{ c.function.name | tojson }},\"arguments\":{{ c.function.arguments | tojson(separators=[',', ':']) }}}{{ '\\n</tool_call>' }}" +
  "{% endfor %}{% endif %}<|end|>{{ '\\n' }}{% endfor %}" +
  "{% if add_generation_prompt %}<|assistant|>{% endif %}";

/** Messages in the OpenAI/HF chat shape that Jinja chat templates expect. */
export function toHfMessages(messages: Message[]): Record<string, unknown>[] {
  return messages.map((m) => {
    if (m.role === 'assistant') {
      const out: Record<string, unknown> = { role: 'assistant', content: m.content };
      if (m.toolCalls && m.toolCalls.length > 0) {
        out.tool_calls = m.toolCalls.map((c) => ({ type: 'function', function: { name: c.name, arguments: c.arguments } }));
      }
      return out;
    }
    if (m.role === 'tool') return { role: 'tool', name: m.name, content: m.content };
    return { role: m.role, content: m.content };
  });
}

/** HF tool entries ({"type":"function","function":{…}}) from our schemas. */
export function toHfTools(tools: ToolSchema[]): Record<string, unknown>[] {
  return tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } }));
}

export interface JinjaFormatOptions {
  name?: string;
  stop: string[];
  bosToken?: string;
  eosToken?: string;
  /** Whether this template renders the `tools` variable (most tool-calling templates do). */
  nativeTools?: boolean;
  /** Extra template variables (e.g. enable_thinking). */
  extra?: Record<string, unknown>;
}

/**
 * A model folder's chat template that does not parse or fails to render (a syntax error, raise_exception, a missing
 * variable, a wrong type): the folder's fault, said as such instead of the template engine's raw error (issue 21).
 */
export class ChatTemplateError extends Error {
  constructor(readonly code: 'BAD_CHAT_TEMPLATE' | 'CHAT_TEMPLATE_FAILED', message: string) {
    super(`${code}: ${message}`);
    this.name = 'ChatTemplateError';
  }
}

const why = (e: unknown) => (e instanceof Error ? e.message : String(e));

/** Renders any HF Jinja chat template with @huggingface/jinja (parsed once). */
export function jinjaFormat(template: string, opts: JinjaFormatOptions): ChatFormat {
  let tpl: Template;
  try { tpl = new Template(template); } catch (e) { throw new ChatTemplateError('BAD_CHAT_TEMPLATE', `the chat template does not parse (${why(e)})`); }
  const nativeTools = opts.nativeTools ?? /\btools\b/.test(template);
  return {
    name: opts.name ?? 'jinja',
    stop: opts.stop,
    nativeTools,
    render(messages, r = {}) {
      const ctx: Record<string, unknown> = {
        messages: toHfMessages(messages),
        add_generation_prompt: r.addGenerationPrompt ?? false,
        bos_token: opts.bosToken ?? '',
        eos_token: opts.eosToken ?? '',
        ...opts.extra,
      };
      if (nativeTools && r.tools && r.tools.length > 0) ctx.tools = toHfTools(r.tools);
      let out: unknown;
      try { out = tpl.render(ctx); } catch (e) { throw new ChatTemplateError('CHAT_TEMPLATE_FAILED', `the chat template failed to render (${why(e)})`); }
      if (typeof out !== 'string') throw new ChatTemplateError('CHAT_TEMPLATE_FAILED', 'the chat template rendered no text');
      return out;
    },
  };
}

export const compactFormat: ChatFormat = {
  name: 'compact',
  stop: [END_TOKEN],
  nativeTools: false,
  render: renderCompact,
};

/**
 * The format for a model folder's tokenizer_config.json: its own chat_template when it ships one that
 * differs from ours, else the compact format.
 */
export function formatForTokenizerConfig(cfg: { chat_template?: unknown; eos_token?: unknown; bos_token?: unknown } | undefined): ChatFormat {
  const t = cfg?.chat_template;
  if (typeof t !== 'string' || t === COMPACT_CHAT_TEMPLATE) return compactFormat;
  const eos = typeof cfg?.eos_token === 'string' ? cfg.eos_token : undefined;
  return jinjaFormat(t, {
    name: 'model-template', stop: eos ? [eos] : [END_TOKEN], eosToken: eos,
    bosToken: typeof cfg?.bos_token === 'string' ? cfg.bos_token : undefined,
  });
}
