// Field-level comparison of an imagined tool result with the real one, for display. It flattens both sides
// exactly as the fidelity metric does (src/agent/fidelity.ts), so what the table marks as different is what
// lowered the field F1 next to it.

import { flattenJson } from '../../../agent/fidelity';
import { toResultJson } from '../../../agent/protocol';

export type DiffStatus = 'same' | 'differ' | 'missing' | 'extra';

export interface DiffLine {
  path: string;
  imagined?: string;
  real?: string;
  /** missing: the real result has the field and the imagined one lacks it; extra: the reverse. */
  status: DiffStatus;
}

/** path → value of one side; a text that is not JSON is one opaque leaf at `$` (no partial credit either). */
export function flatPairs(text: string): Map<string, string> {
  const out = new Map<string, string>();
  let v: unknown;
  try { v = JSON.parse(toResultJson(text.trim())); } catch { out.set('$', text.trim()); return out; }
  for (const pair of flattenJson(v)) {
    // Leaves are canonical JSON, and a path only holds '=' inside a quoted key, which flattenJson does not
    // produce for identifiers; the first '=' after the last path segment is therefore the separator.
    const i = splitIndex(pair);
    out.set(pair.slice(0, i), pair.slice(i + 1));
  }
  return out;
}

function splitIndex(pair: string): number {
  // A key may itself contain '=' (free-form JSON keys); prefer the '=' that starts a valid JSON value.
  let i = pair.indexOf('=');
  while (i >= 0) {
    const rest = pair.slice(i + 1);
    try { JSON.parse(rest); return i; } catch { /* keep looking */ }
    const next = pair.indexOf('=', i + 1);
    if (next < 0) break;
    i = next;
  }
  return pair.indexOf('=') < 0 ? pair.length : pair.indexOf('=');
}

/** Rows in the real result's field order, then the imagined result's extra fields. */
export function fieldDiff(imagined: string, real: string): DiffLine[] {
  const a = flatPairs(imagined);
  const b = flatPairs(real);
  const lines: DiffLine[] = [];
  for (const [path, rv] of b) {
    const iv = a.get(path);
    lines.push(iv === undefined ? { path, real: rv, status: 'missing' } : { path, imagined: iv, real: rv, status: iv === rv ? 'same' : 'differ' });
  }
  for (const [path, iv] of a) if (!b.has(path)) lines.push({ path, imagined: iv, status: 'extra' });
  return lines;
}

export function diffCounts(lines: DiffLine[]): Record<DiffStatus, number> {
  const c: Record<DiffStatus, number> = { same: 0, differ: 0, missing: 0, extra: 0 };
  for (const l of lines) c[l.status]++;
  return c;
}
