// Core environment types shared by every world (BFCL, τ², built-in). Pure data, no DOM.

export type JSONSchema = { type?: string | string[]; properties?: Record<string, JSONSchema>; required?: string[];
  items?: JSONSchema; enum?: unknown[]; description?: string; [k: string]: unknown };

/** OpenAI function-calling shape. */
export interface ToolSchema { name: string; description: string; parameters: JSONSchema }

export interface Observation { text: string; error: boolean }

/** The one error shape, everywhere (EnvACE reference: {"error_tool_call": {code, message, details}}). */
export type ToolErrorCode =
  | 'NO_TOOL_CALL_FOUND' | 'JSON_DECODE_ERROR' | 'NO_ARGUMENTS' | 'INVALID_TOOL_NAME' | 'NON_SERIALIZABLE_ARGUMENTS'
  | 'EMPTY_SIMULATOR_OUTPUT' | 'NO_EXECUTION_RESULT_TAG_FOUND' | 'EXECUTION_RESULT_TAG_MALFORMED'
  | 'SIMULATOR_JSON_DECODE_ERROR' | 'INVALID_EXECUTION_RESULT_TYPE'
  | 'INVALID_TOOL_CALL_FORMAT' | 'TOOL_NOT_AVAILABLE' | 'INVALID_PARAMETERS' | 'TOOL_EXECUTION_ERROR';

export interface ToolError { code: ToolErrorCode; message: string; details?: unknown }

export function errorObservation(code: ToolErrorCode, message: string, details?: unknown): Observation {
  return { text: JSON.stringify({ error_tool_call: { code, message, details: details ?? null } }), error: true };
}

export interface Environment {
  readonly name: string;
  tools(): ToolSchema[];
  /** Never throws: bad input returns an error observation. */
  call(name: string, args: unknown): Observation;
  /** JSON-serialisable state. */
  snapshot(): unknown;
  /** Independent deep copy (rollouts shadow-execute imagined calls on one). */
  clone(): Environment;
}

export interface ToolCall { name: string; arguments: Record<string, unknown> }

export type Message =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string; toolCalls?: ToolCall[] }
  | { role: 'tool'; name: string; content: string; error?: boolean };

/** One rubric item of a user turn (EnvACE / CM2 shape) with a pass condition our code evaluates. */
export interface ChecklistItem {
  id: string;
  question: string;
  focus_on: string;
  pass_condition: PassCondition;
  failure_examples?: string[];
  weight: number;
  required_for_next_turn: boolean;
}

/** Rule-based pass conditions, evaluated against one assistant step (call + its result, or a reply). */
export type PassCondition =
  // a call with these (sub)args; ok: true also requires its result not to be an error (writes that must succeed)
  | { kind: 'called'; tool: string; args?: Record<string, unknown>; ok?: boolean }
  | { kind: 'not_called'; tool: string; args?: Record<string, unknown> }       // evaluated over the whole turn
  | { kind: 'reply_contains'; text: string[] }                                 // a reply mentioning all strings
  | { kind: 'result_contains'; tool: string; text: string };                   // the real result of a call contains

export interface ItemVerdict { id: string; passed: boolean; weight: number; reason: string }
export interface TurnVerdict { turn: number; score: number; items: ItemVerdict[]; terminated: boolean }
export interface Verdict {
  score: number;                 // episode score in [0,1]
  turns: TurnVerdict[];
  terminatedEarly: boolean;
  outcome?: { passed: boolean; reason: string };
}

export interface Task {
  id: string;
  world: string;
  split: 'train' | 'test';
  difficulty: number;
  /** Replayed user messages, one per user turn. */
  userTurns: string[];
  /** Expert conversation: few-shot hints and SFT data come from it. */
  reference: Message[];
  /** [userTurn][item]; weights sum to 1 per turn. */
  checklist: ChecklistItem[][];
  /** Domain policy / system text for the agent prompt. */
  policy: string;
  makeEnv(): Environment;
  /** Outcome verifier: compares the final state against the expert's. */
  verify(final: Environment): { passed: boolean; reason: string };
}
