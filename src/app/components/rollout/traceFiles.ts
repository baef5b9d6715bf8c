// Reading a dropped or chosen file into trajectories (issue 21): the size is checked first (TRACE_FILE_MAX_BYTES,
// a clear TRACE_TOO_LARGE error, nothing read), then the file is read and parsed in a worker of its own
// (trace-parse.worker.ts), never on the page's thread and independent of the busy compute worker. Where no Worker
// exists (Node tests) it is parsed in place. Parsing itself: traceParse.ts.

import { exportTraces } from '../../../agent/traces';
import type { Trajectory } from '../../../agent/types';
import { parseTraceText, unreadable, type LoadedTraces } from './traceParse';

export { looksLikeReferenceDump, parseTraceText, type LoadedTraces } from './traceParse';

/** Largest trace file the page reads (64 MiB): a bigger one is refused before it is read. */
export const TRACE_FILE_MAX_BYTES = 64 * 1024 * 1024;

const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;

/** The message for a file over the cap (TRACE_TOO_LARGE), or null. */
export function traceSizeProblem(name: string, bytes: number, max = TRACE_FILE_MAX_BYTES): string | null {
  return bytes > max ? `TRACE_TOO_LARGE: ${name} is ${mb(bytes)}; trace files up to ${mb(max)} are read (split it into smaller files)` : null;
}

type ParseReply = { ok: true; loaded: LoadedTraces } | { ok: false; message: string };

function parseInWorker(f: File): Promise<LoadedTraces> {
  return new Promise((resolve) => {
    const w = new Worker(new URL('./trace-parse.worker.ts', import.meta.url), { type: 'module', name: 'envace-trace-parse' });
    const done = (l: LoadedTraces) => { w.terminate(); resolve(l); };
    w.addEventListener('message', (ev: MessageEvent<ParseReply>) => done(ev.data.ok ? ev.data.loaded : unreadable(f.name, `could not read the file: ${ev.data.message}`)));
    w.addEventListener('error', (ev) => { ev.preventDefault(); done(unreadable(f.name, `TRACE_PARSE_FAILED: the trace reader stopped: ${ev.message || 'its worker failed to start'}`)); });
    w.addEventListener('messageerror', () => done(unreadable(f.name, 'TRACE_PARSE_FAILED: the trace reader sent a result the page could not read')));
    w.postMessage(f);
  });
}

export async function readTraceFile(f: File, opts: { maxBytes?: number } = {}): Promise<LoadedTraces> {
  const tooLarge = traceSizeProblem(f.name, f.size, opts.maxBytes);
  if (tooLarge) return unreadable(f.name, tooLarge);
  if (typeof Worker !== 'undefined') return parseInWorker(f);
  let text: string;
  try { text = await f.text(); } catch (e) {
    return unreadable(f.name, `could not read the file: ${e instanceof Error ? e.message : String(e)}`);
  }
  return parseTraceText(f.name, text);
}

export function downloadTraces(ts: Trajectory[], name: string): void {
  const blob = new Blob([exportTraces(ts)], { type: 'application/x-ndjson' });
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  // Revoked later: some browsers start reading the blob only after click() returns.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
