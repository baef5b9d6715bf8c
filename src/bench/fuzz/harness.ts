// The fuzz harness: generate cases for one input surface, run each, and sort the outcome into
//   - a code (the surface's own result kind or documented error code),
//   - a crash (an exception that is not the surface's documented error type), or
//   - a hang (a case over the per-case time limit; async cases are also abandoned at the limit).
// Synchronous code cannot be interrupted from the same thread, so a sync case is timed after the fact:
// a true infinite loop would stop the run itself, which is as visible as a hang can be.

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

export interface Crash { case: number; input: string; error: string }

export interface SurfaceReport {
  surface: string;
  about: string;
  cases: number;
  crashes: number;
  hangs: number;
  /** Outcome code → number of cases. */
  codes: Record<string, number>;
  /** Up to 5 crashes and hangs, with the case index to reproduce them. */
  examples: Crash[];
  ms: number;
}

export interface RunOptions { cases: number; seed: number; caseTimeoutMs?: number }

function preview(s: string): string {
  const t = s.length > 300 ? `${s.slice(0, 300)}… (${s.length} chars)` : s;
  return JSON.stringify(t);
}

function describeError(e: unknown): string {
  if (e instanceof Error) return `${e.name}: ${e.message.slice(0, 300)}${e.stack ? ` @ ${e.stack.split('\n').slice(1, 3).map((l) => l.trim()).join(' ')}` : ''}`;
  return `non-Error thrown: ${String(e).slice(0, 200)}`;
}

const HANG = Symbol('hang');

export async function runSurface<I>(s: Surface<I>, o: RunOptions): Promise<SurfaceReport> {
  const limit = o.caseTimeoutMs ?? 2000;
  await s.setup?.();
  const report: SurfaceReport = { surface: s.name, about: s.about, cases: 0, crashes: 0, hangs: 0, codes: {}, examples: [], ms: 0 };
  const show = (x: I) => (s.show ? s.show(x) : preview(typeof x === 'string' ? x : JSON.stringify(x) ?? String(x)));
  // Each surface has its own stream, so adding a surface never changes another one's cases.
  const r = new FuzzRng(o.seed ^ hashName(s.name));
  const t0 = performance.now();
  for (let i = 0; i < o.cases; i++) {
    const input = s.generate(r, i);
    const c0 = performance.now();
    let code: string | typeof HANG;
    try {
      const out = s.run(input);
      if (out instanceof Promise) {
        let timer: ReturnType<typeof setTimeout> | undefined;
        code = await Promise.race([out, new Promise<typeof HANG>((res) => { timer = setTimeout(() => res(HANG), limit); })]);
        clearTimeout(timer);
      } else code = out;
    } catch (e) {
      const documented = s.documented ? s.documented(e) : null;
      if (documented === null) {
        report.crashes++;
        if (report.examples.length < 5) report.examples.push({ case: i, input: show(input), error: describeError(e) });
        report.cases++;
        continue;
      }
      code = documented;
    }
    if (code === HANG || performance.now() - c0 > limit) {
      report.hangs++;
      if (report.examples.length < 5) report.examples.push({ case: i, input: show(input), error: `hang: over ${limit} ms` });
    } else {
      report.codes[code] = (report.codes[code] ?? 0) + 1;
    }
    report.cases++;
  }
  report.ms = Math.round(performance.now() - t0);
  return report;
}

function hashName(name: string): number {
  let h = 2166136261;
  for (let i = 0; i < name.length; i++) { h ^= name.charCodeAt(i); h = Math.imul(h, 16777619); }
  return h >>> 0;
}
