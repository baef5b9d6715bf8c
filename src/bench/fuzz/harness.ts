// The fuzz harness: generate cases for one input surface, run each, and sort the outcome into
//   - a code (the surface's own result kind or documented error code),
//   - a crash (an exception that is not the surface's documented error type),
//   - a violation (the surface ran, but broke a property it promises: a config accepted with NaN, a loaded
//     tokenizer that does not round-trip, a URL state that changes on a round trip; thrown as FuzzViolation), or
//   - a hang (a case over the per-case time limit).
// runSurface runs the cases on the calling thread (the fixed-seed slice in `npm test` uses it): a synchronous
// case can only be timed after it returns there, and an async case over the limit is abandoned, not stopped.
// `npm run fuzz` uses runSurfaceIsolated (./isolate.ts) instead: the cases run in a worker thread under a
// watchdog that terminates it when a case makes no progress, names that case, and resumes after it.

import { FuzzRng } from './gen';

export interface Surface<I = unknown> {
  name: string;
  /** What the surface is and which error type is documented for it (printed in the report). */
  about: string;
  /** Case i of the run (a pure function of rng state and i). */
  generate(r: FuzzRng, i: number): I;
  /** Runs one case; returns an outcome code ('ok', a result kind, or an error code carried in a result). */
  run(input: I): string | Promise<string>;
  /** The code of a documented error the surface may throw, or null when `e` is a crash. Default: every throw is a crash. */
  documented?(e: unknown): string | null;
  /** Short printable form of an input for a crash report. */
  show?(input: I): string;
  /** Optional one-time setup (loading data) before the first case. */
  setup?(): void | Promise<void>;
}

/** Thrown by a surface's run when the code under test returned normally but broke a promised property. */
export class FuzzViolation extends Error {
  constructor(readonly code: string, message: string = code) {
    super(message);
    this.name = 'FuzzViolation';
  }
}

export type ExampleKind = 'crash' | 'hang' | 'violation';

export interface Crash { case: number; input: string; error: string; kind: ExampleKind }

export interface SurfaceReport {
  surface: string;
  about: string;
  cases: number;
  crashes: number;
  hangs: number;
  /** Cases that broke a promised property (FuzzViolation): a failure like a crash. */
  violations: number;
  /** Promise rejections nobody handled, counted as crashes too (only seen by the isolated runner). */
  unhandledRejections: number;
  /** Outcome code → number of cases (crashes, hangs and violations are not codes). */
  codes: Record<string, number>;
  /** Violation code → number of cases. */
  violationCodes: Record<string, number>;
  /** Up to 5 examples of each kind (crash, hang, violation), with the case index to reproduce them. */
  examples: Crash[];
  ms: number;
}

export interface RunOptions { cases: number; seed: number; caseTimeoutMs?: number }

export const EXAMPLES_PER_KIND = 5;

function preview(s: string): string {
  const t = s.length > 300 ? `${s.slice(0, 300)}… (${s.length} chars)` : s;
  return JSON.stringify(t);
}

export function describeError(e: unknown): string {
  if (e instanceof FuzzViolation) return e.message.slice(0, 400);
  if (e instanceof Error) return `${e.name}: ${e.message.slice(0, 300)}${e.stack ? ` @ ${e.stack.split('\n').slice(1, 3).map((l) => l.trim()).join(' ')}` : ''}`;
  return `non-Error thrown: ${String(e).slice(0, 200)}`;
}

export function showInput<I>(s: Surface<I>, x: I): string {
  try {
    return s.show ? s.show(x) : preview(typeof x === 'string' ? x : JSON.stringify(x) ?? String(x));
  } catch (e) {
    return `<input not printable: ${String(e).slice(0, 100)}>`;
  }
}

/** One case's outcome, before it is counted. */
export type Outcome =
  | { kind: 'code'; code: string }
  | { kind: 'crash'; error: string }
  | { kind: 'violation'; code: string; error: string }
  | { kind: 'hang'; error: string };

/** Sorts what a case returned or threw. */
export function classify<I>(s: Surface<I>, result: { value: string } | { error: unknown }): Outcome {
  if ('value' in result) {
    if (typeof result.value !== 'string') return { kind: 'crash', error: `run returned ${typeof result.value}, not an outcome code` };
    return { kind: 'code', code: result.value };
  }
  const e = result.error;
  if (e instanceof FuzzViolation) return { kind: 'violation', code: e.code, error: describeError(e) };
  let documented: string | null = null;
  try { documented = s.documented ? s.documented(e) : null; } catch { documented = null; }
  return documented === null ? { kind: 'crash', error: describeError(e) } : { kind: 'code', code: documented };
}

export function emptyReport(s: { name: string; about: string }): SurfaceReport {
  return { surface: s.name, about: s.about, cases: 0, crashes: 0, hangs: 0, violations: 0, unhandledRejections: 0, codes: {}, violationCodes: {}, examples: [], ms: 0 };
}

/** Counts one outcome; `input` is only evaluated when an example is kept. */
export function tally(report: SurfaceReport, i: number, o: Outcome, input: () => string): void {
  report.cases++;
  if (o.kind === 'code') { report.codes[o.code] = (report.codes[o.code] ?? 0) + 1; return; }
  if (o.kind === 'crash') report.crashes++;
  else if (o.kind === 'hang') report.hangs++;
  else { report.violations++; report.violationCodes[o.code] = (report.violationCodes[o.code] ?? 0) + 1; }
  if (report.examples.filter((x) => x.kind === o.kind).length < EXAMPLES_PER_KIND) {
    report.examples.push({ case: i, input: input(), error: o.error, kind: o.kind });
  }
}

/**
 * The built-ins a plain object used as a dictionary writes into when a key names an inherited member
 * (`d['constructor'][k] = v` sets a property of Object, `d['toString'][k]` one of a shared function): Object,
 * Function, Array and String and their prototypes, and every function they hold. A snapshot of their own
 * properties is taken before the cases; a case that adds or replaces one is a violation (builtin-polluted),
 * and the change is undone so that the cases after it run on clean built-ins.
 */
export type BuiltinSnapshot = Map<object, Map<PropertyKey, PropertyDescriptor>>;

export function snapshotBuiltins(): BuiltinSnapshot {
  const roots: object[] = [Object, Object.prototype, Function, Function.prototype, Array, Array.prototype, String, String.prototype];
  const targets = new Set<object>(roots);
  for (const o of roots) for (const k of Reflect.ownKeys(o)) {
    const d = Object.getOwnPropertyDescriptor(o, k);
    if (d && 'value' in d && typeof d.value === 'function') targets.add(d.value as object);
  }
  return new Map([...targets].map((o) => [o, new Map(Reflect.ownKeys(o).map((k) => [k, Object.getOwnPropertyDescriptor(o, k)!]))]));
}

/** What a case changed in the built-ins (empty: nothing), undoing it. */
export function restoreBuiltins(snap: BuiltinSnapshot): string[] {
  const changed: string[] = [];
  for (const [o, props] of snap) {
    const name = typeof o === 'function' ? (o as { name?: string }).name || 'function' : o === Object.prototype ? 'Object.prototype' : 'a prototype';
    for (const k of Reflect.ownKeys(o)) {
      const was = props.get(k);
      const now = Object.getOwnPropertyDescriptor(o, k)!;
      if (!was) { changed.push(`${name}.${String(k)} added`); Reflect.deleteProperty(o, k); }
      else if ('value' in was && !Object.is(was.value, now.value)) { changed.push(`${name}.${String(k)} replaced`); Object.defineProperty(o, k, was); }
    }
  }
  return changed;
}

/** A case's outcome, a violation when the case returned normally but changed a built-in (which is undone either way). */
export function withBuiltinCheck(snap: BuiltinSnapshot, o: Outcome): Outcome {
  const changed = restoreBuiltins(snap);
  return changed.length && o.kind === 'code' ? { kind: 'violation', code: 'builtin-polluted', error: `the case changed built-ins: ${changed.slice(0, 4).join(', ')}` } : o;
}

const HANG = Symbol('hang');

/** Runs every case on this thread (see the header for what that can and cannot time). */
export async function runSurface<I>(s: Surface<I>, o: RunOptions): Promise<SurfaceReport> {
  const limit = o.caseTimeoutMs ?? 2000;
  await s.setup?.();
  const report = emptyReport(s);
  // Each surface has its own stream, so adding a surface never changes another one's cases.
  const r = surfaceRng(o.seed, s.name);
  const builtins = snapshotBuiltins();
  const t0 = performance.now();
  for (let i = 0; i < o.cases; i++) {
    const input = s.generate(r, i);
    const c0 = performance.now();
    let outcome: Outcome;
    try {
      const out = s.run(input);
      if (out instanceof Promise) {
        let timer: ReturnType<typeof setTimeout> | undefined;
        const v = await Promise.race([out, new Promise<typeof HANG>((res) => { timer = setTimeout(() => res(HANG), limit); })]);
        clearTimeout(timer);
        outcome = v === HANG ? { kind: 'hang', error: `hang: over ${limit} ms (abandoned)` } : classify(s, { value: v });
      } else outcome = classify(s, { value: out });
    } catch (e) {
      outcome = classify(s, { error: e });
    }
    if (outcome.kind === 'code' && performance.now() - c0 > limit) {
      outcome = { kind: 'hang', error: `hang: ${Math.round(performance.now() - c0)} ms, over ${limit} ms` };
    }
    tally(report, i, withBuiltinCheck(builtins, outcome), () => showInput(s, input));
  }
  report.ms = Math.round(performance.now() - t0);
  return report;
}

export function surfaceRng(seed: number, name: string): FuzzRng {
  return new FuzzRng(seed ^ hashName(name));
}

function hashName(name: string): number {
  let h = 2166136261;
  for (let i = 0; i < name.length; i++) { h ^= name.charCodeAt(i); h = Math.imul(h, 16777619); }
  return h >>> 0;
}
