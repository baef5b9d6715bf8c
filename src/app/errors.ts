// Errors a user can cause, in the page's words. The worker's own errors already name what was wrong (codes such as
// MISSING_FILE, BAD_SOURCE, "not available yet: …"); what can still reach the page raw is a JavaScript engine
// message (a TypeError from a library, a failed fetch). userError() keeps the worker's sentence and replaces a raw
// engine message with what happened and what to do.

const RAW_JS = /\b(Cannot read propert(y|ies) of (undefined|null)|is not a function|is not defined|Unexpected token|is not valid JSON|undefined is not an object|Failed to fetch|NetworkError when attempting|Load failed)\b/i;

// ONNX Runtime's own messages (checkLastError's "failed to call OrtRun(). ERROR_CODE: …", the JSEP build's
// one-run-at-a-time guard): they name ORT internals, not what the visitor did.
const RAW_ORT = /\b(Session already started|Session mismatch|ERROR_CODE: \d+|failed to call Ort[A-Za-z]+|Can't (create|initialize) [a-z ]*(session|onnxruntime)|no available backend found)\b/i;

/** The text to show for an error: the worker's own message, or for a raw engine message what to check. */
export function userError(e: unknown, what = 'this action'): string {
  const text = e instanceof Error ? e.message : String(e);
  if (RAW_ORT.test(text)) {
    return `${what} failed inside ONNX Runtime, the library that computes in this page's worker; nothing was lost. Try again; if it fails again, reload the page with ?backend=wasm in the address.`;
  }
  if (!RAW_JS.test(text)) return text;
  if (/Failed to fetch|NetworkError|Load failed/i.test(text)) {
    return `${what} failed: a file could not be downloaded (offline, or the address does not exist). Check the address and your connection, then try again.`;
  }
  return `${what} failed: what was read was not what was expected (a missing or malformed file). Check the model folder, URL or file you gave and try again. (details: ${text.replace(/^[A-Z]+: /, '').slice(0, 160)})`;
}

/** True for a message that is a raw JavaScript engine or ONNX Runtime error, not the page's own words (for tests). */
export function isRawJsError(text: string): boolean { return RAW_JS.test(text) || RAW_ORT.test(text); }

/** The worker's reason for WASM in the page's words, the raw probe result kept in brackets (issue 42). */
export function reasonInWords(reason: string): string {
  const prefix = reason.startsWith('forced ?backend=webgpu unavailable: ') ? 'WebGPU was asked for but ' : '';
  if (/requestAdapter returned null/.test(reason)) return `${prefix}this browser offers no WebGPU adapter, so WASM computes on the CPU (${reason})`;
  if (/no navigator\.gpu/.test(reason)) return `${prefix}this browser has no WebGPU, so WASM computes on the CPU (${reason})`;
  if (/requestAdapter threw/.test(reason)) return `${prefix}the browser failed to open its WebGPU adapter, so WASM computes on the CPU (${reason})`;
  return reason;
}
