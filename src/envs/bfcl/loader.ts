// Loading BFCL multi-turn data by path: question files (any multi-turn category: base, miss_func,
// miss_param, long_context, …), possible answers and function docs. Files are JSON Lines; parsing keeps
// float '.0' and dict key order (parsePyJson), so configs reach the backends the way Python sees them.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parsePyJson, toPlain } from '../python';
import type { BfclEntry, BfclFuncDoc } from './env';
export { categoryOf, isLongContext } from './env';
import { setGorillaLongContextData, type GorillaLongContextData } from './backends/gorilla_file_system';

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
export function loadQuestions(path: string): BfclQuestion[] {
  return parseJsonl(readFileSync(path, 'utf8')).map((raw) => {
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

export function loadPossibleAnswers(path: string): BfclPossibleAnswer[] {
  return parseJsonl(readFileSync(path, 'utf8'), false) as BfclPossibleAnswer[];
}

/** One func-doc file (JSON Lines of {name, description, parameters, response}). */
export function loadFuncDocFile(path: string): BfclFuncDoc[] {
  return parseJsonl(readFileSync(path, 'utf8'), false) as BfclFuncDoc[];
}

/** All func docs in a multi_turn_func_doc folder, by class; missing files are skipped. */
export function loadFuncDocs(dir: string, classes: string[] = Object.keys(FUNC_DOC_FILES)): Record<string, BfclFuncDoc[]> {
  const out: Record<string, BfclFuncDoc[]> = {};
  for (const cls of classes) {
    const f = FUNC_DOC_FILES[cls];
    if (!f) continue;
    try { out[cls] = loadFuncDocFile(join(dir, f)); } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
  }
  return out;
}

/** Questions joined with their ground truth by id. */
export function loadCategory(questionsPath: string, answersPath: string): { question: BfclQuestion; answer: BfclPossibleAnswer }[] {
  const answers = new Map(loadPossibleAnswers(answersPath).map((a) => [a.id, a]));
  return loadQuestions(questionsPath).flatMap((q) => {
    const a = answers.get(q.id);
    return a ? [{ question: q, answer: a }] : [];
  });
}

/**
 * Install the long-context padding (a JSON object with BFCL long_context.py's FILE_CONTENT_EXTENSION,
 * FILES_TAIL_USED and POPULATE_FILE_EXTENSION) needed to load long_context scenarios.
 */
export function loadLongContextData(path: string): void {
  const d = JSON.parse(readFileSync(path, 'utf8')) as GorillaLongContextData;
  setGorillaLongContextData(d);
}
