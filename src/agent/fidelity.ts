// Rehearsal fidelity: how well an imagined tool result agrees with what the real environment returns.
//
// The paper never measures this; we do it for every imagined call whenever an executable environment
// exists, by replaying the call on a shadow copy that the policy never sees. Three views:
// exact (canonical JSON equality), field-level F1 over flattened path=value pairs (partial credit for a
// result that has the right shape and most values), and error agreement (both errors or both successes).

import type { Observation } from '../envs/types';
import type { Fidelity } from './types';
import { canonicalJson, resultError, toResultJson } from './protocol';

function parseMaybe(text: string): { json: true; value: unknown } | { json: false; value: string } {
  try { return { json: true, value: JSON.parse(text) }; } catch { return { json: false, value: text.trim() }; }
}

/**
 * path=value pairs of a JSON value; leaves are canonical JSON, empty containers are leaves of their own so
 * that {} vs {"a":1} is not a perfect match. Array positions are part of the path: order matters in results.
 */
export function flattenJson(v: unknown, prefix = '$', out: string[] = [], depth = 0): string[] {
  if (depth > 64) { out.push(`${prefix}=${canonicalJson(v)}`); return out; }
  if (Array.isArray(v)) {
    if (v.length === 0) out.push(`${prefix}=[]`);
    v.forEach((x, i) => flattenJson(x, `${prefix}[${i}]`, out, depth + 1));
  } else if (v !== null && typeof v === 'object') {
    const keys = Object.keys(v).sort();
    if (keys.length === 0) out.push(`${prefix}={}`);
    for (const k of keys) flattenJson((v as Record<string, unknown>)[k], `${prefix}.${k}`, out, depth + 1);
  } else out.push(`${prefix}=${canonicalJson(v)}`);
  return out;
}

/** Multiset F1 of two pair lists (1 when both are empty). */
export function pairF1(a: string[], b: string[]): { precision: number; recall: number; f1: number } {
  if (a.length === 0 && b.length === 0) return { precision: 1, recall: 1, f1: 1 };
  const counts = new Map<string, number>();
  for (const x of b) counts.set(x, (counts.get(x) ?? 0) + 1);
  let hit = 0;
  for (const x of a) { const c = counts.get(x) ?? 0; if (c > 0) { hit++; counts.set(x, c - 1); } }
  const precision = a.length ? hit / a.length : 0;
  const recall = b.length ? hit / b.length : 0;
  const f1 = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  return { precision, recall, f1 };
}

/**
 * Whether a result text is an error: the observation's flag, the EnvACE shape, a top-level "error" key, or
 * text starting with "Error" (τ²-style), also when wrapped as {"result": "Error: …"} by toResultJson.
 */
export function isErrorResult(text: string, flagged = false): boolean {
  if (flagged) return true;
  if (resultError(text)) return true;
  const p = parseMaybe(text);
  if (!p.json) return /^error\b/i.test(p.value);
  const v = p.value;
  if (typeof v === 'string') return /^error\b/i.test(v.trim());
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  if ('error' in v) return true;
  const keys = Object.keys(v);
  const only = (v as Record<string, unknown>).result;
  return keys.length === 1 && typeof only === 'string' && /^error\b/i.test(only.trim());
}

export interface FidelityDetail extends Fidelity { precision: number; recall: number }

/** Compares one imagined result text with the real observation. */
export function compareResults(imagined: string, real: Observation): FidelityDetail {
  // Rehearse must answer with an object or array, so plain-text and scalar tool outputs are compared in the
  // {"result": …} form that toResultJson gives them (the form SFT targets use).
  const a = parseMaybe(toResultJson(imagined.trim()));
  const b = parseMaybe(toResultJson(real.text.trim()));
  const sameErrorness = isErrorResult(imagined) === isErrorResult(real.text, real.error);
  if (a.json && b.json) {
    const exact = canonicalJson(a.value) === canonicalJson(b.value);
    // Identical text carries identical information, whatever flag the environment set beside it.
    const errorAgree = exact || sameErrorness;
    const f = exact ? { precision: 1, recall: 1, f1: 1 } : pairF1(flattenJson(a.value), flattenJson(b.value));
    return { exact, fieldF1: f.f1, precision: f.precision, recall: f.recall, errorAgree };
  }
  // A non-JSON side is compared as one opaque leaf: right or wrong, no partial credit.
  const exact = String(a.value) === String(b.value);
  const errorAgree = exact || sameErrorness;
  const v = exact ? 1 : 0;
  return { exact, fieldF1: v, precision: v, recall: v, errorAgree };
}

export interface FidelityRecord { tool: string; fidelity: Fidelity; trajectory?: string }

export interface FidelityStats { calls: number; exactRate: number; meanF1: number; errorAgreeRate: number }
export interface FidelitySummary extends FidelityStats { perTool: Record<string, FidelityStats> }

function stats(rs: Fidelity[]): FidelityStats {
  const n = rs.length;
  if (n === 0) return { calls: 0, exactRate: 0, meanF1: 0, errorAgreeRate: 0 };
  let e = 0, f = 0, g = 0;
  for (const r of rs) { e += r.exact ? 1 : 0; f += r.fieldF1; g += r.errorAgree ? 1 : 0; }
  return { calls: n, exactRate: e / n, meanF1: f / n, errorAgreeRate: g / n };
}

/** Aggregate over calls, overall and per tool (call-weighted means). */
export function summarizeFidelity(records: FidelityRecord[]): FidelitySummary {
  const by = new Map<string, Fidelity[]>();
  for (const r of records) { const l = by.get(r.tool) ?? []; l.push(r.fidelity); by.set(r.tool, l); }
  const perTool: Record<string, FidelityStats> = Object.create(null);
  for (const k of [...by.keys()].sort()) perTool[k] = stats(by.get(k)!);
  return { ...stats(records.map((r) => r.fidelity)), perTool };
}

/** Per-call records of one trajectory's rehearse rows (those that were shadow-executed). */
export function trajectoryFidelity(t: { taskId: string; rows: { role: string; call?: { name: string }; fidelity?: Fidelity }[] }): FidelityRecord[] {
  return t.rows.filter((r) => r.role === 'rehearse' && r.fidelity && r.call)
    .map((r) => ({ tool: r.call!.name, fidelity: r.fidelity!, trajectory: t.taskId }));
}

/** Per-trajectory means, and the call-weighted summary over all of them. */
export function batchFidelity(ts: Parameters<typeof trajectoryFidelity>[0][]): { perTrajectory: FidelityStats[]; overall: FidelitySummary } {
  const all: FidelityRecord[] = [];
  const perTrajectory = ts.map((t) => { const rs = trajectoryFidelity(t); all.push(...rs); return stats(rs.map((r) => r.fidelity)); });
  return { perTrajectory, overall: summarizeFidelity(all) };
}
