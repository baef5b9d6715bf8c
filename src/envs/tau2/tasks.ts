// τ² task files (tasks.json, split_tasks.json, policy.md) parsed from text. No file system here so the
// same code runs in a browser worker; fs.ts reads the files in Node.

import { parsePyJson, toPlain } from '../python';
import { dictEntries, isPyDict } from './py';
import type { EnvAssertion, EnvFunctionCall, InitialState, Requestor, Tau2Message, Tau2ToolCall } from './toolkit';

export type RewardType = 'DB' | 'ENV_ASSERTION' | 'NL_ASSERTION' | 'ACTION' | 'COMMUNICATE';

export interface Tau2Action {
  action_id: string;
  requestor: Requestor;
  name: string;
  /** Verbatim (PyFloat for floats, Map where keys are integer-like). */
  arguments: Record<string, unknown>;
  info?: string | null;
  compare_args?: string[] | null;
}

export interface EvaluationCriteria {
  actions: Tau2Action[] | null;
  env_assertions: EnvAssertion[] | null;
  communicate_info: string[] | null;
  nl_assertions: string[] | null;
  reward_basis: RewardType[];
  /** True when tasks.json leaves reward_basis out (default ["DB", "COMMUNICATE"]). */
  reward_basis_is_default: boolean;
}

export interface StructuredUserInstructions {
  domain: string;
  reason_for_call: string;
  known_info?: string | null;
  unknown_info?: string | null;
  task_instructions: string;
}

export interface Tau2Task {
  id: string;
  description?: { purpose?: string | null; relevant_policies?: string | null; notes?: string | null } | null;
  user_scenario: { persona?: string | null; instructions: StructuredUserInstructions | string };
  ticket?: string | null;
  initial_state: InitialState | null;
  evaluation_criteria: EvaluationCriteria | null;
}

export type Tau2Split = Record<string, string[]>;

const get = (o: unknown, k: string): unknown => (o instanceof Map ? o.get(k) : isPyDict(o) ? (o as Record<string, unknown>)[k] : undefined);
const strOrNull = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const asRecord = (v: unknown): Record<string, unknown> => {
  if (v instanceof Map) return Object.fromEntries(dictEntries(v).map(([k, x]) => [String(k), x]));
  return isPyDict(v) ? (v as Record<string, unknown>) : {};
};

function toolCall(v: unknown): Tau2ToolCall {
  return {
    id: strOrNull(get(v, 'id')) ?? '',
    name: String(get(v, 'name')),
    arguments: get(v, 'arguments') ?? {},
    requestor: (strOrNull(get(v, 'requestor')) as Requestor | null) ?? 'assistant',
  };
}

function message(v: unknown): Tau2Message {
  const role = get(v, 'role');
  if (role === 'tool') {
    return {
      role, id: strOrNull(get(v, 'id')) ?? '', content: strOrNull(get(v, 'content')) ?? '',
      requestor: (strOrNull(get(v, 'requestor')) as Requestor | null) ?? 'assistant', error: get(v, 'error') === true,
    };
  }
  if (role === 'system') return { role, content: strOrNull(get(v, 'content')) ?? '' };
  if (role !== 'user' && role !== 'assistant') throw new Error(`unknown message role ${String(role)}`);
  const tcs = get(v, 'tool_calls');
  return { role, content: strOrNull(get(v, 'content')), tool_calls: Array.isArray(tcs) ? tcs.map(toolCall) : null };
}

function fnCall(v: unknown): EnvFunctionCall {
  return {
    env_type: (strOrNull(get(v, 'env_type')) ?? 'assistant') as Requestor,
    func_name: String(get(v, 'func_name')),
    arguments: asRecord(get(v, 'arguments')),
  };
}

function assertion(v: unknown): EnvAssertion {
  const av = get(v, 'assert_value');
  return { ...fnCall(v), assert_value: typeof av === 'boolean' ? av : true, message: strOrNull(get(v, 'message')) };
}

const strList = (v: unknown): string[] | null => (Array.isArray(v) ? v.map(String) : null);

/** One task object (already parsed with parsePyJson) in τ²'s Task shape, defaults filled in. */
export function taskFromJson(v: unknown): Tau2Task {
  const is = get(v, 'initial_state');
  const initial: InitialState | null = isPyDict(is)
    ? {
      initialization_data: isPyDict(get(is, 'initialization_data'))
        ? { agent_data: get(get(is, 'initialization_data'), 'agent_data') ?? null, user_data: get(get(is, 'initialization_data'), 'user_data') ?? null }
        : null,
      initialization_actions: Array.isArray(get(is, 'initialization_actions')) ? (get(is, 'initialization_actions') as unknown[]).map(fnCall) : null,
      message_history: Array.isArray(get(is, 'message_history')) ? (get(is, 'message_history') as unknown[]).map(message) : null,
    }
    : null;
  const ec = get(v, 'evaluation_criteria');
  let criteria: EvaluationCriteria | null = null;
  if (isPyDict(ec)) {
    const acts = get(ec, 'actions');
    const rb = get(ec, 'reward_basis');
    const ea = get(ec, 'env_assertions');
    criteria = {
      actions: Array.isArray(acts)
        ? acts.map((a) => ({
          action_id: String(get(a, 'action_id')),
          requestor: ((strOrNull(get(a, 'requestor')) ?? 'assistant') as Requestor),
          name: String(get(a, 'name')),
          arguments: asRecord(get(a, 'arguments')),
          info: strOrNull(get(a, 'info')),
          compare_args: strList(get(a, 'compare_args')),
        }))
        : null,
      env_assertions: Array.isArray(ea) ? ea.map(assertion) : null,
      communicate_info: strList(get(ec, 'communicate_info')),
      nl_assertions: strList(get(ec, 'nl_assertions')),
      reward_basis: Array.isArray(rb) ? (rb.map(String) as RewardType[]) : ['DB', 'COMMUNICATE'],
      reward_basis_is_default: !Array.isArray(rb),
    };
  }
  const us = get(v, 'user_scenario');
  const ins = get(us, 'instructions');
  return {
    id: String(get(v, 'id')),
    description: isPyDict(get(v, 'description')) ? (toPlain(get(v, 'description')) as Tau2Task['description']) : null,
    user_scenario: {
      persona: strOrNull(get(us, 'persona')),
      instructions: typeof ins === 'string' ? ins : (toPlain(ins) as StructuredUserInstructions),
    },
    ticket: strOrNull(get(v, 'ticket')),
    initial_state: initial,
    evaluation_criteria: criteria,
  };
}

/** tasks.json text → tasks, keeping argument floats and key order as Python would see them. */
export function parseTasks(text: string): Tau2Task[] {
  const raw = parsePyJson(text);
  if (!Array.isArray(raw)) throw new Error('tasks.json: expected a list');
  return raw.map(taskFromJson);
}

export function parseSplit(text: string): Tau2Split {
  return toPlain(parsePyJson(text)) as Tau2Split;
}

/** db.json text → dump-shaped value; ordered Maps keep Python's key order for integer-like ids. */
export function parseDbJson(text: string): unknown {
  return parsePyJson(text);
}

/** The agent's system prompt in τ²'s layout: global guidelines, then the domain policy. */
export function agentSystemPrompt(policy: string): string {
  return `<instructions>\n${AGENT_INSTRUCTION}\n</instructions>\n<policy>\n${policy}\n</policy>`;
}

// Our wording of τ²'s general agent rules (one tool call or one message per turn, follow the policy).
export const AGENT_INSTRUCTION = [
  'You are a customer service agent helping the user according to the <policy> below.',
  'In each turn you may either send a message to the user or make one tool call, not both.',
  'Follow the policy exactly. Do not invent information, and ask the user when something is missing.',
].join('\n');
