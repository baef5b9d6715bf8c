// Downloads built on the page from what the worker returns: metrics as CSV/JSON, the trained model folder
// (file by file, or one JSON bundle with base64 contents: no zip library in the bundle), the checkpoint.

import type { ExportedFolder } from '../../../worker/protocol';
import type { RunRecord } from './runs';
import { csvTable } from '../../../shared/csv';

export function download(name: string, data: BlobPart, type: string): void {
  const a = document.createElement('a');
  a.href = URL.createObjectURL(new Blob([data], { type }));
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 5000);
}

/** One row per step and per evaluation, `kind` telling which; columns are the union of fields. */
export function metricsCsv(runs: RunRecord[]): string {
  const rows: Record<string, unknown>[] = [];
  for (const r of runs) {
    for (const m of r.history) rows.push({ run: r.runId, variant: r.request.spec.variant, kind: 'step', ...m });
    for (const e of r.evals) rows.push({ run: r.runId, variant: r.request.spec.variant, kind: 'eval', ...e });
  }
  const cols: string[] = [];
  for (const row of rows) for (const k of Object.keys(row)) if (!cols.includes(k)) cols.push(k);
  return csvTable(cols, rows.map((row) => cols.map((c) => row[c])));
}

export function metricsJson(runs: RunRecord[]): string {
  return JSON.stringify({
    format: 'envace-train-metrics/1',
    runs: runs.map((r) => ({ runId: r.runId, label: r.label, request: r.request, history: r.history, evals: r.evals, switches: r.switches })),
  }, null, 1);
}

function base64(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

/** `{ format, name, files: { path: base64 } }`; decode each entry to recreate the folder. */
export function folderBundle(f: ExportedFolder): string {
  return JSON.stringify({ format: 'envace-model-folder/1', name: f.name, files: Object.fromEntries(Object.entries(f.files).map(([p, b]) => [p, base64(b)])) });
}

export function fileType(path: string): string {
  return path.endsWith('.json') ? 'application/json' : 'application/octet-stream';
}
