// How BFCL's execute_multi_turn_func_call turns a method's return value into the tool-result text
// the model sees. Shared by every backend port and the environment wrapper.

import { pyJsonDumps, pyStr } from '../python';

/** A Map, or a plain object literal: what Python would call a dict. */
function isDictValue(v: unknown): boolean {
  if (v instanceof Map) return true;
  return typeof v === 'object' && v !== null && !Array.isArray(v) && [Object.prototype, null].includes(Object.getPrototypeOf(v));
}

/** str passes through; a dict goes through json.dumps, falling back to str() when that raises; anything else str(). */
export function bfclResultString(result: unknown): string {
  if (typeof result === 'string') return result;
  if (isDictValue(result)) {
    try {
      return pyJsonDumps(result);
    } catch {
      return pyStr(result);
    }
  }
  return pyStr(result);
}

/** The text BFCL records when the call raised: str(e) behind a fixed prefix. */
export function bfclErrorString(message: string): string {
  return `Error during execution: ${message}`;
}
