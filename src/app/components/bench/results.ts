// The committed results in docs/results/, fetched when the Benchmarks page's curves first mount (loadResults):
// each file is its own hashed JSON asset (Vite's lazy glob with ?url), so the page's script does not carry 2 MB of
// results and the files travel compressed and cached like the rest of assets/. Turned into chart rows: one row per
// x value, a series' mean under its key and its band as [lo, hi] under `<key>_band` (recharts draws a range Area
// from it). Every file goes through its reader (./readers.ts): one that does not match its format is skipped (and
// named in the console), never drawn half-read. The formats are docs/results/README.md and src/tts/README.md.

import { ablationOrder, readAblationSummary, readBudgetSweep, readEvalJson, readTtsResult, type AblationSummary, type BudgetSweep, type EvalJson, type TtsResult } from './readers';

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

const SUMMARY_URLS = import.meta.glob<string>('/docs/results/**/summary.json', { query: '?url', import: 'default', eager: true });
const TTS_URLS = import.meta.glob<string>('/docs/results/tts-*.json', { query: '?url', import: 'default', eager: true });
const EVAL_URLS = import.meta.glob<string>('/docs/results/eval/*.json', { query: '?url', import: 'default', eager: true });

// Live bindings: empty until loadResults() resolves, then what the charts read (CurvesSection renders them only then).
export let ABLATIONS: { file: string; data: AblationSummary }[] = [];
export let TTS: { file: string; data: TtsResult }[] = [];
/** `npm run eval -- --json` reports; other JSON dropped into eval/ (e.g. a fidelity report) is skipped, not drawn. */
export let EVALS: { file: string; data: EvalJson }[] = [];
export let BUDGETS: { file: string; protocol: AblationSummary['protocol']; sweep: BudgetSweep }[] = [];

export type ReadJson = (url: string) => Promise<unknown>;
const fetchJson: ReadJson = async (url) => {
  const r = await fetch(url);
  if (!r.ok) throw new Error(`HTTP ${r.status}`);
  return r.json();
};

/** Every file of a glob fetched and parsed; one that fails to load is skipped with a console note, like an unreadable one. */
async function fetchAll(urls: Record<string, string>, read: ReadJson): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = Object.create(null);
  await Promise.all(Object.entries(urls).map(async ([k, url]) => {
    try {
      out[k] = await read(url);
    } catch (e) {
      if (typeof console !== 'undefined') console.warn(`[envace] docs/results/${rel(k)} could not be loaded (${e instanceof Error ? e.message : String(e)}): skipped`);
    }
  }));
  return out;
}

let loading: Promise<void> | null = null;
let loaded = false;
/** Whether the lists above are filled (the section then renders at once, without waiting a frame for the promise). */
export const resultsLoaded = () => loaded;

/** Fetches every results file once (later calls share the first fetch) and fills the lists above; `read`: tests read from disk. */
export function loadResults(read: ReadJson = fetchJson): Promise<void> {
  loading ??= Promise.all([fetchAll(SUMMARY_URLS, read), fetchAll(TTS_URLS, read), fetchAll(EVAL_URLS, read)]).then(([summaries, tts, evals]) => {
    // A summary.json may be an ablation, a budget sweep, or both: each list takes what its reader accepts.
    ABLATIONS = load<AblationSummary>(summaries, readAblationSummary, 'ablation summary', true)
      // A budget-only sweep has no trained variant runs: its curves are the budget chart's.
      .filter((a) => a.data.runs.some((r) => r.variant !== 'base'))
      // The chart opens on the first (readers.ts ablationOrder: a starter's, then the most training behind it).
      .sort(ablationOrder);
    // tts-*-budget-<T>.json are memory-length runs (--memory-tokens T), not the real-environment budget.
    TTS = load<TtsResult>(tts, readTtsResult, 'rehearsal sweep');
    EVALS = load<EvalJson>(evals, readEvalJson, 'eval report');
    BUDGETS = load(summaries, readBudgetSweep, 'budget sweep', true).map((a) => ({ file: a.file, protocol: a.data.protocol, sweep: a.data.sweep }));
    loaded = true;
  });
  return loading;
}
