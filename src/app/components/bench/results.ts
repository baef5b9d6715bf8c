// The committed results in docs/results/, bundled at build time (Vite's eager glob) so the Benchmarks page draws
// its curves at first paint without a fetch or a worker call, and turned into chart rows: one row per x value,
// a series' mean under its key and its band as [lo, hi] under `<key>_band` (recharts draws a range Area from it).
// Every file goes through its reader (./readers.ts): one that does not match its format is skipped (and named
// in the console), never drawn half-read. The formats are docs/results/README.md and src/tts/README.md.

import { ablationOrder, readAblationSummary, readBudgetSweep, readEvalJson, readTtsResult, type AblationSummary, type EvalJson, type TtsResult } from './readers';

export * from './readers';

/** The path under docs/results/ (the glob's keys are root-relative). */
const rel = (key: string) => key.replace(/^.*docs\/results\//, '');
/** Files that their reader accepts, in path order; the others are skipped with a console note. */
function load<T>(files: Record<string, unknown>, read: (x: unknown) => T | null, what: string, quiet = false): { file: string; data: T }[] {
  const out: { file: string; data: T }[] = [];
  for (const [k, v] of Object.entries(files)) {
    const data = read(v);
    if (data !== null) out.push({ file: rel(k), data });
    else if (!quiet && typeof console !== 'undefined') console.warn(`[envace] docs/results/${rel(k)} is not a readable ${what}: skipped`);
  }
  return out.sort((a, b) => a.file.localeCompare(b.file));
}

const SUMMARIES = import.meta.glob('/docs/results/**/summary.json', { eager: true, import: 'default' });

// A summary.json may be an ablation, a budget sweep, or both: each list takes what its reader accepts.
export const ABLATIONS = load<AblationSummary>(SUMMARIES, readAblationSummary, 'ablation summary', true)
  // A budget-only sweep has no trained variant runs: its curves are the budget chart's.
  .filter((a) => a.data.runs.some((r) => r.variant !== 'base'))
  // The chart opens on the first (readers.ts ablationOrder: a starter's, then the most training behind it).
  .sort(ablationOrder);
// tts-*-budget-<T>.json are memory-length runs (--memory-tokens T), not the real-environment budget.
export const TTS = load<TtsResult>(import.meta.glob('/docs/results/tts-*.json', { eager: true, import: 'default' }), readTtsResult, 'rehearsal sweep');
/** `npm run eval -- --json` reports; other JSON dropped into eval/ (e.g. a fidelity report) is skipped, not drawn. */
export const EVALS = load<EvalJson>(import.meta.glob('/docs/results/eval/*.json', { eager: true, import: 'default' }), readEvalJson, 'eval report');
export const BUDGETS = load(SUMMARIES, readBudgetSweep, 'budget sweep', true).map((a) => ({ file: a.file, protocol: a.data.protocol, sweep: a.data.sweep }));

