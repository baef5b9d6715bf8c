// Reading a dropped or chosen file into trajectories. Parsing runs on the page, not in the worker: it is
// cheap, never throws (importTraces / importReferenceDump report bad lines), and must work while the worker
// is busy with a rollout.

import { exportTraces, importReferenceDump, importTraces, type TraceError } from '../../../agent/traces';
import type { Trajectory } from '../../../agent/types';

export interface LoadedTraces {
  file: string;
  kind: 'traces' | 'reference-dump';
  trajectories: Trajectory[];
  errors: TraceError[];
  /** Reference dumps only: records read, rows that could not be linked, placeholder rows skipped. */
  dump?: { records: number; unlinked: number; dummies: number };
}

/**
 * Our traces are trajectory objects (rows, messages); the reference code's verl dumps have one generation
 * per line with input/output/score. The first parseable line decides.
 */
export function looksLikeReferenceDump(text: string): boolean {
  for (const ln of text.split(/\r?\n/)) {
    if (ln.trim() === '') continue;
    try {
      const v = JSON.parse(ln) as Record<string, unknown>;
      if (v && typeof v === 'object' && !Array.isArray(v)) return 'input' in v && 'output' in v && !('rows' in v);
    } catch { /* a bad line: look at the next */ }
  }
  return false;
}

export function parseTraceText(file: string, text: string): LoadedTraces {
  if (looksLikeReferenceDump(text)) {
    const d = importReferenceDump(text);
    return { file, kind: 'reference-dump', trajectories: d.trajectories, errors: d.errors, dump: { records: d.records, unlinked: d.unlinked, dummies: d.dummies } };
  }
  const r = importTraces(text);
  return { file, kind: 'traces', trajectories: r.trajectories, errors: r.errors };
}

export async function readTraceFile(f: File): Promise<LoadedTraces> {
  let text: string;
  try { text = await f.text(); } catch (e) {
    return { file: f.name, kind: 'traces', trajectories: [], errors: [{ line: 0, path: '$', message: `could not read the file: ${e instanceof Error ? e.message : String(e)}` }] };
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
