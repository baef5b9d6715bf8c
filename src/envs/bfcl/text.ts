// BFCL multi-turn data from text (browser-safe): question files (any multi-turn category), possible answers
// and function docs. Files are JSON Lines (a whole-file JSON array is accepted too); parsing keeps float '.0'
// and dict key order (parsePyJson), so configs reach the backends the way Python sees them. loader.ts reads
// the same files by path in Node.

import { parsePyJson, toPlain } from '../python';
import type { BfclEntry, BfclFuncDoc } from './env';

export interface BfclQuestion extends BfclEntry {
  question: unknown[][];
  /** Anything else the entry carries (path, initial_config, …) is kept as is. */
  [k: string]: unknown;
}

export interface BfclPossibleAnswer { id: string; ground_truth: string[][] }

/** BFCL's class -> func-doc file name (constants/executable_backend_config.py). */
export const FUNC_DOC_FILES: Record<string, string> = {
  GorillaFileSystem: 'gorilla_file_system.json',
  MathAPI: 'math_api.json',
  MessageAPI: 'message_api.json',
  TwitterAPI: 'posting_api.json',
  TicketAPI: 'ticket_api.json',
  TradingBot: 'trading_bot.json',
  TravelAPI: 'travel_booking.json',
  VehicleControlAPI: 'vehicle_control.json',
};

/** Parse JSON Lines text (a whole-file JSON array is accepted too). */
export function parseJsonl(text: string, keepPython = true): unknown[] {
  const t = text.trim();
  if (t.startsWith('[')) return asArray(keepPython ? parsePyJson(t) : JSON.parse(t));
  const out: unknown[] = [];
  for (const line of text.split(/\r?\n/)) {
    if (line.trim() === '') continue;
    out.push(keepPython ? parsePyJson(line) : JSON.parse(line));
  }
  return out;
}

function asArray(v: unknown): unknown[] { return Array.isArray(v) ? v : [v]; }

function get(o: unknown, k: string): unknown {
  return o instanceof Map ? o.get(k) : typeof o === 'object' && o !== null ? (o as Record<string, unknown>)[k] : undefined;
}

/** Question entries. `initial_config` keeps PyFloat/Map; the rest is plain JSON. */
export function parseQuestions(text: string): BfclQuestion[] {
  return parseJsonl(text).map((raw) => {
    const plain = toPlain(raw) as Record<string, unknown>;
    const q = { ...plain, initial_config: get(raw, 'initial_config') ?? {} } as BfclQuestion;
    if (!Array.isArray(q.involved_classes)) throw new Error(`entry ${String(q.id)} has no involved_classes`);
    if (q.missed_function !== undefined) {
      // miss_func: {turn: [names]}; keys are turn indices as strings.
      q.missed_function = Object.fromEntries(Object.entries(q.missed_function as Record<string, string[]>).map(([k, v]) => [String(k), [...v]]));
    }
    return q;
  });
}

export function parsePossibleAnswers(text: string): BfclPossibleAnswer[] {
  return parseJsonl(text, false) as BfclPossibleAnswer[];
}

/** One func-doc file (JSON Lines of {name, description, parameters, response}). */
export function parseFuncDocs(text: string): BfclFuncDoc[] {
  return parseJsonl(text, false) as BfclFuncDoc[];
}

/** Questions joined with their ground truth by id (questions without an answer are left out). */
export function joinCategory(questions: BfclQuestion[], answers: BfclPossibleAnswer[]): { question: BfclQuestion; answer: BfclPossibleAnswer }[] {
  const byId = new Map(answers.map((a) => [a.id, a]));
  return questions.flatMap((q) => {
    const a = byId.get(q.id);
    return a ? [{ question: q, answer: a }] : [];
  });
}
