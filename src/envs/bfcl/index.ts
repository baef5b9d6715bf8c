// BFCL v4 multi-turn: public surface (browser-safe; file loading is in ./loader and ./conformance).

export { BfclEnvironment, BANNED_CALLS, bfclResultString, funcDocToToolSchema, toJsonSchema } from './env';
export { categoryOf, isLongContext } from './env';
export { setGorillaLongContextData } from './backends/gorilla_file_system';
// File loading (node:fs) lives in './loader' and is imported by path, keeping this module browser-safe.
export type { BfclEntry, BfclEnvOptions, BfclFuncDoc, BfclParamSchema } from './env';
export { parsePythonCall, parsePythonCallList, parseJsonToolCall, normaliseJsonArgs, formatPythonCall, decodeExecute } from './parser';
export type { ParsedCall, ParseResult } from './parser';
export {
  multiTurnCheck, checkCategory, stateCheck, irrelevanceCheck, groundTruthAsModelOutput, missingUnordered, isEmptyExecuteResponse,
} from './checker';
export type { CheckResult, CheckOptions, CategoryReport, ModelTurns } from './checker';
export { BACKENDS, BfclPyError, registerBackend } from './backend';
export type { BfclBackend } from './backend';

/** The class names with a registered backend (all eight once env.ts is loaded). */
export async function loadAllBackends(): Promise<string[]> {
  await import('./env');
  const { BACKENDS } = await import('./backend');
  return Object.keys(BACKENDS);
}
