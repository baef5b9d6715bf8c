// Loading BFCL multi-turn data by path: question files (any multi-turn category: base, miss_func,
// miss_param, long_context, …), possible answers and function docs. Files are JSON Lines; parsing keeps
// float '.0' and dict key order (parsePyJson), so configs reach the backends the way Python sees them.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BfclFuncDoc } from './env';
export { categoryOf, isLongContext } from './env';
import { setGorillaLongContextData, type GorillaLongContextData } from './backends/gorilla_file_system';

export type { BfclQuestion, BfclPossibleAnswer } from './text';
import type { BfclQuestion, BfclPossibleAnswer } from './text';

export { FUNC_DOC_FILES } from './text';
import { FUNC_DOC_FILES } from './text';

export { parseJsonl, parseQuestions, parsePossibleAnswers, parseFuncDocs, joinCategory } from './text';
import { parseFuncDocs, parsePossibleAnswers, parseQuestions, joinCategory } from './text';

/** Question entries. `initial_config` keeps PyFloat/Map; the rest is plain JSON. */
export function loadQuestions(path: string): BfclQuestion[] {
  return parseQuestions(readFileSync(path, 'utf8'));
}

export function loadPossibleAnswers(path: string): BfclPossibleAnswer[] {
  return parsePossibleAnswers(readFileSync(path, 'utf8'));
}

/** One func-doc file (JSON Lines of {name, description, parameters, response}). */
export function loadFuncDocFile(path: string): BfclFuncDoc[] {
  return parseFuncDocs(readFileSync(path, 'utf8'));
}

/** All func docs in a multi_turn_func_doc folder, by class; missing files are skipped. */
export function loadFuncDocs(dir: string, classes: string[] = Object.keys(FUNC_DOC_FILES)): Record<string, BfclFuncDoc[]> {
  const out: Record<string, BfclFuncDoc[]> = Object.create(null);
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
  return joinCategory(loadQuestions(questionsPath), loadPossibleAnswers(answersPath));
}

/**
 * Install the long-context padding (a JSON object with BFCL long_context.py's FILE_CONTENT_EXTENSION,
 * FILES_TAIL_USED and POPULATE_FILE_EXTENSION) needed to load long_context scenarios.
 */
export function loadLongContextData(path: string): void {
  const d = JSON.parse(readFileSync(path, 'utf8')) as GorillaLongContextData;
  setGorillaLongContextData(d);
}
