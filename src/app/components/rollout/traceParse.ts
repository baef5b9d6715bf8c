// Parsing a trace file's text into trajectories: pure, never throws (importTraces / importReferenceDump report
// bad lines). Runs in its own short-lived worker (trace-parse.worker.ts, started by traceFiles.ts) so a large or
// hostile file cannot freeze the page, and must work while the compute worker is busy with a rollout.

import { importReferenceDump, importTraces, type TraceError } from '../../../agent/traces';
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

/** A file that could not be read at all: one error, no trajectories. */
export function unreadable(file: string, message: string): LoadedTraces {
  return { file, kind: 'traces', trajectories: [], errors: [{ line: 0, path: '$', message }] };
}
