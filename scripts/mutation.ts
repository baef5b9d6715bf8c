// npm run mutation -- [--file src/rl/advantages.ts,…] [--summarise-only] [--before-dir DIR --before-commit REV]
//
// Mutation score with StrykerJS (issue 21), distinct from `npm run mutants` (scripts/mutants.ts, the named
// mutants): Stryker mutates every operator, condition, literal and block of four files and reruns the tests that
// cover each mutant. A mutant the tests do not notice survives; the score is killed (incl. timeouts) / (killed +
// survived + uncovered). Here each file runs on its own (`stryker run --mutate FILE`, with only that file's tests from
// vitest.mutation.config.ts, concurrency 1, under the niceness of this process — run it with `nice -n 10` on a shared
// box; `npm run mutation` does), and its report is merged into docs/results/reliability/mutation.json: per file the
// counts, the score and every survivor with its location and, where it is an equivalent mutant (no test can tell it
// from the original), the reason from EQUIVALENT below.

import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cliArgs, defineCli } from '../src/cli/args';
import { MUTATION_TESTS } from '../vitest.mutation.config';

export const MUTATED_FILES = Object.keys(MUTATION_TESTS);
export const SUMMARY_PATH = 'docs/results/reliability/mutation.json';

/** A survivor no test can kill: the mutated program behaves like the original for every input the callers can give. */
export interface Equivalent {
  file: string;
  mutator: string;
  /** Text of the original source line (a substring is enough) and the replacement Stryker reports. */
  code: string;
  replacement: string;
  why: string;
}

export const EQUIVALENT: Equivalent[] = [];

/** The parts of Stryker's JSON report (mutation-testing-report-schema) read here. */
export interface StrykerReport {
  files: Record<string, {
    source: string;
    mutants: Array<{
      id: string; mutatorName: string; replacement?: string; status: string;
      location: { start: { line: number; column: number }; end: { line: number; column: number } };
    }>;
  }>;
}

export interface Survivor { id: string; line: number; column: number; mutator: string; code: string; replacement: string; status: string; equivalent?: string }

export interface FileScore {
  file: string;
  tests: string[];
  mutants: number;
  killed: number;
  timeout: number;
  survived: number;
  noCoverage: number;
  /** Compile/runtime errors and ignored mutants: not counted in the score (as Stryker does). */
  excluded: number;
  /** (killed + timeout) / (killed + timeout + survived + noCoverage), in percent, two decimals. */
  score: number;
  /** The same with the survivors explained as equivalent counted as killed. */
  scoreWithoutEquivalents: number;
  survivors: Survivor[];
  seconds?: number;
  commit?: string;
  at?: string;
  /** The same file's score with the tests as they were before the mutation-score work (kept across later runs). */
  before?: Baseline;
}

export interface Baseline { commit: string; tests: string[]; score: number; killed: number; timeout: number; survived: number; noCoverage: number }

const pct = (a: number, b: number) => (b === 0 ? 100 : Math.round((a / b) * 10000) / 100);

export function equivalentFor(file: string, s: Pick<Survivor, 'mutator' | 'code' | 'replacement'>): Equivalent | undefined {
  return EQUIVALENT.find((e) => e.file === file && e.mutator === s.mutator && s.code.includes(e.code) && e.replacement === s.replacement);
}

/** One file's score from a Stryker report (the file must be in it). */
export function summarise(report: StrykerReport, file: string): FileScore {
  const entry = report.files[file] ?? Object.entries(report.files).find(([k]) => k.endsWith(file))?.[1];
  if (!entry) throw new Error(`${file} is not in the report (files: ${Object.keys(report.files).join(', ')})`);
  const lines = entry.source.split('\n');
  const count = (st: string) => entry.mutants.filter((m) => m.status === st).length;
  const killed = count('Killed'), timeout = count('Timeout'), survived = count('Survived'), noCoverage = count('NoCoverage');
  const survivors: Survivor[] = entry.mutants.filter((m) => m.status === 'Survived' || m.status === 'NoCoverage').map((m) => {
    const s: Survivor = {
      id: m.id, line: m.location.start.line, column: m.location.start.column, mutator: m.mutatorName,
      code: (lines[m.location.start.line - 1] ?? '').trim().slice(0, 200), replacement: (m.replacement ?? '').slice(0, 200), status: m.status,
    };
    const eq = equivalentFor(file, s);
    if (eq) s.equivalent = eq.why;
    return s;
  }).sort((a, b) => a.line - b.line || a.column - b.column);
  const valid = killed + timeout + survived + noCoverage;
  const equivalents = survivors.filter((s) => s.equivalent).length;
  return {
    file, tests: MUTATION_TESTS[file] ?? [], mutants: entry.mutants.length, killed, timeout, survived, noCoverage,
    excluded: entry.mutants.length - valid, score: pct(killed + timeout, valid), scoreWithoutEquivalents: pct(killed + timeout + equivalents, valid), survivors,
  };
}

/** The summary with `scores` replacing the entries of the same files (the others kept, in MUTATED_FILES order). */
export function mergeSummary(prev: { files?: FileScore[] } | null, scores: FileScore[]): { tool: string; files: FileScore[] } {
  const byFile = new Map((prev?.files ?? []).map((f) => [f.file, f]));
  for (const s of scores) {
    // a rebuilt summary (--summarise-only) keeps the run's time and commit, and a file keeps its baseline
    const prevEntry = byFile.get(s.file);
    const run = s.seconds === undefined && prevEntry ? { seconds: prevEntry.seconds, commit: prevEntry.commit, at: prevEntry.at } : {};
    const before = s.before ?? prevEntry?.before;
    byFile.set(s.file, { ...s, ...run, ...(before ? { before } : {}) });
  }
  const order = (f: string) => { const i = MUTATED_FILES.indexOf(f); return i < 0 ? MUTATED_FILES.length : i; };
  return { tool: strykerVersion(), files: [...byFile.values()].sort((a, b) => order(a.file) - order(b.file)) };
}

function strykerVersion(): string {
  try { return `StrykerJS ${(JSON.parse(readFileSync('node_modules/@stryker-mutator/core/package.json', 'utf8')) as { version: string }).version}`; } catch { return 'StrykerJS'; }
}

/** Whether `path` is in commit `rev` (the tests a baseline ran are those of its commit). */
function existedAt(rev: string, path: string): boolean {
  try { execFileSync('git', ['cat-file', '-e', `${rev}:${path}`], { stdio: 'ignore' }); return true; } catch { return false; }
}

const reportPath = (file: string) => `reports/mutation/${file.replace(/[/\\]/g, '_')}.json`;

export const MUTATION_CLI = defineCli({
  name: 'mutation',
  summary: 'StrykerJS mutation score of judges.ts, worlds/common.ts, advantages.ts and protocol.ts, one file at a time; writes docs/results/reliability/mutation.json.',
  options: {
    file: { type: 'list', choices: MUTATED_FILES, help: 'only these files (default: all four, one after the other)' },
    'summarise-only': { type: 'boolean', help: 'do not run Stryker: rebuild the summary from the reports under reports/mutation/' },
    'before-dir': { type: 'string', help: 'a folder of Stryker reports (named as under reports/mutation/) from the tests before: recorded as each file\'s "before"' },
    'before-commit': { type: 'string', default: '', help: 'the commit whose tests made the --before-dir reports' },
  },
});

function main(): void {
  const a = cliArgs(MUTATION_CLI);
  const files = a.file ?? MUTATED_FILES;
  let commit = '';
  try { commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim(); } catch { /* not a checkout */ }
  mkdirSync('reports/mutation', { recursive: true });
  const scores: FileScore[] = [];
  for (const file of files) {
    const out = reportPath(file);
    let seconds: number | undefined;
    if (!a['summarise-only']) {
      const t0 = Date.now();
      const r = spawnSync('npx', ['stryker', 'run', 'stryker.config.mjs', '--mutate', file], {
        stdio: 'inherit', env: { ...process.env, ENVACE_MUTATE: file, ENVACE_MUTATION_REPORT: out },
      });
      seconds = Math.round((Date.now() - t0) / 1000);
      if (r.status !== 0) { process.stderr.write(`mutation: stryker failed on ${file} (exit ${r.status})\n`); process.exit(1); }
    }
    if (!existsSync(out)) { process.stderr.write(`mutation: no report ${out}\n`); process.exit(1); }
    const s = summarise(JSON.parse(readFileSync(out, 'utf8')) as StrykerReport, file);
    if (seconds !== undefined) Object.assign(s, { seconds, commit, at: new Date().toISOString() });
    const beforeReport = a['before-dir'] ? `${a['before-dir']}/${reportPath(file).split('/').pop()}` : '';
    if (beforeReport && existsSync(beforeReport)) {
      const b = summarise(JSON.parse(readFileSync(beforeReport, 'utf8')) as StrykerReport, file);
      s.before = { commit: a['before-commit'], tests: b.tests.filter((t) => existedAt(a['before-commit'], t)), score: b.score, killed: b.killed, timeout: b.timeout, survived: b.survived, noCoverage: b.noCoverage };
    }
    scores.push(s);
    process.stdout.write(`${file}: ${s.score}% (${s.killed + s.timeout} killed of ${s.killed + s.timeout + s.survived + s.noCoverage}; ${s.survived} survived, ${s.noCoverage} uncovered; ${s.survivors.filter((x) => x.equivalent).length} survivors explained as equivalent)\n`);
  }
  const prev = existsSync(SUMMARY_PATH) ? JSON.parse(readFileSync(SUMMARY_PATH, 'utf8')) as { files?: FileScore[] } : null;
  mkdirSync(dirname(SUMMARY_PATH), { recursive: true });
  writeFileSync(SUMMARY_PATH, `${JSON.stringify(mergeSummary(prev, scores), null, 2)}\n`);
  process.stdout.write(`mutation: wrote ${SUMMARY_PATH}\n`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
