// Ground-truth replay conformance: run every possible-answer call of a category through
// BfclEnvironment and compare each result string, and each per-turn state, with a fixture recorded
// from BFCL's own Python backends (shared/data/bfcl/fixtures). States are compared as canonical
// json.dumps text (Python key order, floats keep '.0') plus the list of dict keys that are ints in Python.

import { readFileSync } from 'node:fs';
import { BfclEnvironment } from './env';
import { loadCategory, isLongContext } from './loader';
import { multiTurnCheck, groundTruthAsModelOutput } from './checker';
import { parsePyJson, pyJsonDumps } from '../python';

export interface ConformanceMismatch {
  id: string;
  turn: number;
  kind: 'result' | 'state' | 'nonstr_keys' | 'entry' | 'calls';
  call?: string;
  class?: string;
  expected: unknown;
  actual: unknown;
}

export interface ConformanceReport {
  total_calls: number;
  matched_results: number;
  total_states: number;
  matched_states: number;
  mismatches: ConformanceMismatch[];
}

function get(o: unknown, k: string): unknown {
  return o instanceof Map ? o.get(k) : typeof o === 'object' && o !== null ? (o as Record<string, unknown>)[k] : undefined;
}

/** A short window around the first difference of two long texts. */
function firstDiff(expected: string, actual: string): { expected: string; actual: string; at: number } {
  let i = 0;
  while (i < expected.length && i < actual.length && expected[i] === actual[i]) i++;
  const from = Math.max(0, i - 60);
  return { at: i, expected: expected.slice(from, i + 100), actual: actual.slice(from, i + 100) };
}

function sortedKeyLists(v: unknown): string {
  const o = (v ?? {}) as Record<string, Record<string, string[]>>;
  const norm: Record<string, Record<string, string[]>> = Object.create(null);
  for (const cls of Object.keys(o).sort()) {
    norm[cls] = {};
    for (const p of Object.keys(o[cls]).sort()) norm[cls][p] = [...o[cls][p]].map(String).sort();
  }
  return JSON.stringify(norm);
}

export interface ConformanceOptions {
  questions: string;
  answers: string;
  fixture: string;
  /** Mismatches to list (default 10). */
  maxMismatches?: number;
}

export function runBfclConformance(opts: ConformanceOptions): ConformanceReport & { all_mismatches: number } {
  const max = opts.maxMismatches ?? 10;
  const fixture = parsePyJson(readFileSync(opts.fixture, 'utf8'), { objects: 'map' });
  const fxEntries = new Map<string, unknown>();
  for (const e of (get(fixture, 'entries') as unknown[]) ?? []) fxEntries.set(get(e, 'id') as string, e);
  const items = loadCategory(opts.questions, opts.answers);
  const report: ConformanceReport = { total_calls: 0, matched_results: 0, total_states: 0, matched_states: 0, mismatches: [] };
  let allMismatches = 0;
  const note = (m: ConformanceMismatch) => { allMismatches++; if (report.mismatches.length < max) report.mismatches.push(m); };

  const seen = new Set<string>();
  for (const { question, answer } of items) {
    const fx = fxEntries.get(question.id);
    seen.add(question.id);
    const nCalls = answer.ground_truth.reduce((s, t) => s + t.length, 0);
    report.total_calls += nCalls;
    // One state per ground-truth turn: a turn (or a whole entry) the fixture lacks is unmatched, never skipped,
    // so a truncated or stale fixture cannot pass with fewer checks.
    report.total_states += answer.ground_truth.length;
    if (!fx) {
      note({ id: question.id, turn: -1, kind: 'entry', expected: 'an entry in the fixture', actual: 'missing' });
      continue;
    }
    const fxTurns = (get(fx, 'turns') as unknown[]) ?? [];
    if (fxTurns.length !== answer.ground_truth.length) {
      note({ id: question.id, turn: -1, kind: 'entry', expected: `${answer.ground_truth.length} turns`, actual: `${fxTurns.length} turns in the fixture` });
    }
    let env: BfclEnvironment;
    try {
      env = new BfclEnvironment(question, { longContext: isLongContext(question.id) });
    } catch (e) {
      note({ id: question.id, turn: -1, kind: 'entry', expected: 'environment', actual: String((e as Error).message) });
      continue;
    }
    for (let t = 0; t < answer.ground_truth.length; t++) {
      const fxTurn = fxTurns[t];
      const fxCalls = (get(fxTurn, 'calls') as unknown[]) ?? [];
      const calls = answer.ground_truth[t];
      if (fxCalls.length !== calls.length) note({ id: question.id, turn: t, kind: 'calls', expected: fxCalls.length, actual: calls.length });
      calls.forEach((c, i) => {
        const actual = env.execPython(c).text;
        const expected = get(fxCalls[i], 'result');
        if (actual === expected) report.matched_results++;
        else note({ id: question.id, turn: t, kind: 'result', call: c, class: get(fxCalls[i], 'class') as string, expected, actual });
      });
      if (!fxTurn) continue;   // counted in total_states, never matched
      const fxState = get(fxTurn, 'state_after');
      const mine = env.stateRaw();
      let ok = true;
      if (!(fxState instanceof Map) || fxState.size === 0) {
        note({ id: question.id, turn: t, kind: 'state', expected: 'state_after in the fixture', actual: 'missing' });
        continue;
      }
      for (const [cls, expectedState] of fxState) {
        const e = pyJsonDumps(expectedState);
        let a: string;
        try { a = pyJsonDumps(mine.get(cls)); } catch (err) { a = `<unserialisable: ${(err as Error).message}>`; }
        if (e !== a) {
          ok = false;
          note({ id: question.id, turn: t, kind: 'state', class: cls, ...firstDiff(e, a) });
        }
      }
      const ek = sortedKeyLists(fixtureKeys(get(fxTurn, 'nonstr_dict_keys')));
      const ak = sortedKeyLists(env.nonStrDictKeys());
      if (ek !== ak) { ok = false; note({ id: question.id, turn: t, kind: 'nonstr_keys', expected: JSON.parse(ek), actual: JSON.parse(ak) }); }
      if (ok) report.matched_states++;
    }
  }
  for (const id of fxEntries.keys()) {
    if (!seen.has(id)) note({ id, turn: -1, kind: 'entry', expected: 'a question for this fixture entry', actual: 'missing' });
  }
  return { ...report, all_mismatches: allMismatches };
}

function fixtureKeys(v: unknown): Record<string, Record<string, string[]>> {
  const out: Record<string, Record<string, string[]>> = Object.create(null);
  if (!(v instanceof Map)) return out;
  for (const [cls, paths] of v) {
    out[cls as string] = {};
    for (const [p, keys] of paths as Map<string, unknown[]>) out[cls as string][p as string] = (keys as unknown[]).map(String);
  }
  return out;
}

/** The checker over the ground truth fed back as model output: every entry should be valid. */
export function runBfclGroundTruthCheck(questions: string, answers: string): { total: number; valid: number; invalid: { id: string; reason?: string; turn?: number }[] } {
  const items = loadCategory(questions, answers);
  const invalid: { id: string; reason?: string; turn?: number }[] = [];
  for (const { question, answer } of items) {
    const r = multiTurnCheck(question, groundTruthAsModelOutput(answer.ground_truth), answer.ground_truth);
    if (!r.valid) invalid.push({ id: question.id, reason: r.reason, turn: r.turn });
  }
  return { total: items.length, valid: items.length - invalid.length, invalid };
}
