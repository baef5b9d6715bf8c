// BFCL v4 multi-turn: public surface.

export { BfclEnvironment, BANNED_CALLS, bfclResultString, funcDocToToolSchema, toJsonSchema } from './env';
export type { BfclEntry, BfclEnvOptions, BfclFuncDoc, BfclParamSchema } from './env';
export { parsePythonCall, parsePythonCallList, parseJsonToolCall, normaliseJsonArgs } from './parser';
export type { ParsedCall, ParseResult } from './parser';
export {
  multiTurnCheck, checkCategory, stateCheck, irrelevanceCheck, groundTruthAsModelOutput, missingUnordered, isEmptyExecuteResponse,
} from './checker';
export type { CheckResult, CheckOptions, CategoryReport, ModelTurns } from './checker';
export { BACKENDS, BfclPyError, registerBackend } from './backend';
export type { BfclBackend } from './backend';

/** Backend modules ported in parallel; each registers itself in BACKENDS when imported. */
const OTHER_BACKENDS = ['ticket_api', 'trading_bot', 'travel_booking', 'vehicle_control'];

/**
 * Import every backend module that exists. The four classes owned by the other port are loaded by
 * name at run time so this module keeps working (with those classes unavailable) before they land.
 * Returns the class names now registered.
 */
export async function loadAllBackends(): Promise<string[]> {
  await import('./env');
  for (const m of OTHER_BACKENDS) {
    const spec = `./backends/${m}`;
    try { await import(/* @vite-ignore */ spec); } catch { /* not ported yet */ }
  }
  const { BACKENDS } = await import('./backend');
  return Object.keys(BACKENDS);
}
