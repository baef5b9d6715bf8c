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

export const EQUIVALENT: Equivalent[] = [
  // src/envs/judges.ts
  ...([['ConditionalExpression', 'true'], ['StringLiteral', '""']] as const).map(([mutator, replacement]) => ({
    file: 'src/envs/judges.ts', mutator, code: "if (t.startsWith('{')) {", replacement,
    why: "Parsing every text instead of those opening with '{' changes nothing: the next line counts only a JSON object (non-null, not an array), and t is trimStart()ed, so JSON.parse(t) gives an object exactly when t starts with '{' (JSON whitespace is a subset of what trimStart removes).",
  })),
  ...([
    ['ConditionalExpression', 'true'], ['LogicalOperator', "v && typeof v === 'object' || !Array.isArray(v)"], ['LogicalOperator', "v || typeof v === 'object'"],
  ] as const).map(([mutator, replacement]) => ({
    file: 'src/envs/judges.ts', mutator, code: "if (v && typeof v === 'object' && !Array.isArray(v) && ('error' in v || 'error_tool_call' in v)) return true;", replacement,
    why: "v = JSON.parse(t) with t starting with '{' (the enclosing if) is always a non-null, non-array object, so every part of the guard before the 'in' tests is true in the original and in the mutant.",
  })),
  {
    file: 'src/envs/judges.ts', mutator: 'ConditionalExpression', code: "if (typeof expected === 'object' && expected !== null) {", replacement: 'true',
    why: "Only the mutant of `expected !== null` survives this entry (the others are killed by valueMatches(undefined, {})): null is a primitive, answered by the first if of valueMatches, so expected is never null here.",
  },
  {
    file: 'src/envs/judges.ts', mutator: 'ArrayDeclaration', code: 'let pending: AssistantStep[] = [];', replacement: '["Stryker was here"]',
    why: 'The initial value is never read: pending is read only once cur is set, and cur is set only by a user message, which also resets pending to [].',
  },
  {
    file: 'src/envs/judges.ts', mutator: 'EqualityOperator', code: 'const step = idx >= 0 ? pending[idx] : pending.find((s) => !s.result);', replacement: 'idx > 0',
    why: 'With idx 0, pending[0] has no result (the findIndex condition), so pending.find((s) => !s.result) returns pending[0] too.',
  },
  // src/agent/protocol.ts
  {
    file: 'src/agent/protocol.ts', mutator: 'EqualityOperator', code: 'if (end < 0) return { rest: text };', replacement: 'end <= 0',
    why: 'end is t.indexOf(THINK_CLOSE, 7): -1 or at least 7, never 0.',
  },
  {
    file: 'src/agent/protocol.ts', mutator: 'ArithmeticOperator', code: 'const e = text.indexOf(THINK_CLOSE, s + THINK_OPEN.length);', replacement: 's - THINK_OPEN.length',
    why: "Searching for '</think>' from s-7 instead of s+7 finds the same one: a '</think>' starting in [s-7, s+6] would overlap the '<think>' at s, and no character of '</think>' after its first is '<' (nor is any of 'think>' a '<').",
  },
  {
    file: 'src/agent/protocol.ts', mutator: 'EqualityOperator', code: 'if (e < 0) break;', replacement: 'e <= 0',
    why: 'e is text.indexOf(THINK_CLOSE, s + 7): -1 or at least 7, never 0.',
  },
  ...([['ConditionalExpression', 'false'], ['BlockStatement', '{}']] as const).map(([mutator, replacement]) => ({
    file: 'src/agent/protocol.ts', mutator, code: 'if (Array.isArray(v)) { let m = d; for (const x of v) { m = Math.max(m, depthOf(x, limit, d + 1)); if (m > limit) break; } return m; }', replacement,
    why: "Skipping the array branch (Array.isArray → false, or its body emptied) sends an array to the object branch below, which walks Object.values(array): the same elements in the same order for the dense arrays JSON.parse makes. The other 'false' mutant on this line (the break test `m > limit` → false) is equivalent too: without the early break the loop only keeps looking, m can only grow, and the callers compare the result with the limit only (> limit either way).",
  })),
  {
    file: 'src/agent/protocol.ts', mutator: 'ConditionalExpression', code: 'if (v && typeof v === \'object\') { let m = d; for (const x of Object.values(v)) { m = Math.max(m, depthOf(x, limit, d + 1)); if (m > limit) break; } return m; }', replacement: 'false',
    why: 'Without the early break the loop only keeps looking: m can only grow past a value already above the limit, and both callers compare the result with the limit only.',
  },
  {
    file: 'src/agent/protocol.ts', mutator: 'ConditionalExpression', code: 'else if (Array.isArray(x)) { for (const y of x) stack.push(y); }', replacement: 'false',
    why: 'In unserializableReason an array then goes to the object branch, which pushes its index keys ("0", "1", …: no lone surrogates) and the same elements in the same order; in hasNonFinite it pushes Object.values(array), the same elements. The verdict and the reason found first are the same.',
  },
  {
    file: 'src/agent/protocol.ts', mutator: 'ConditionalExpression', code: "else if (x && typeof x === 'object') for (const [k, y] of Object.entries(x)) { stack.push(k, y); }", replacement: 'true',
    why: 'A truthy value that is not a string, number, array or object is, in JSON.parse output, only `true`, and Object.entries(true) is [].',
  },
  ...([['ConditionalExpression', 'false'], ['StringLiteral', '""']] as const).map(([mutator, replacement]) => ({
    file: 'src/agent/protocol.ts', mutator, code: "return s === undefined ? 'not serialisable' : null;", replacement,
    why: 'unserializableReason is called only with a plain object (parseAct checks isPlainObject first), and JSON.stringify of a plain object is always a string, so s is never undefined.',
  })),
  {
    file: 'src/agent/protocol.ts', mutator: 'StringLiteral', code: "{ got_type: v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v });", replacement: '""',
    why: "Unreachable: an array returned ok (or 'deep') two statements earlier, so Array.isArray(v) is false here.",
  },
  {
    file: 'src/agent/protocol.ts', mutator: 'ConditionalExpression', code: "if (typeof v === 'string') { const p = safeJson(v); if (!p.ok) return null; v = p.value; }", replacement: 'false',
    why: 'When the text is not JSON, p has no value: v becomes undefined and the next line returns null all the same.',
  },
  {
    file: 'src/agent/protocol.ts', mutator: 'ConditionalExpression', code: "const code = typeof e.code === 'string' && (ALL_ERROR_CODES as readonly string[]).includes(e.code)", replacement: 'true',
    why: 'ALL_ERROR_CODES holds strings only and includes() does not coerce, so a non-string code fails the includes() test anyway.',
  },
  ...([['ConditionalExpression', 'false'], ['StringLiteral', '""']] as const).map(([mutator, replacement]) => ({
    file: 'src/agent/protocol.ts', mutator, code: "return toolError(code, typeof e.message === 'string' ? e.message : String(e.message ?? ''), e.details ?? undefined);", replacement,
    why: 'For a string message, String(e.message ?? \'\') is the message itself, so taking the other branch changes nothing.',
  })),
  {
    file: 'src/agent/protocol.ts', mutator: 'ConditionalExpression', code: "case 'number': return typeof v === 'number' && Number.isFinite(v);", replacement: 'true',
    why: 'Number.isFinite does not coerce: it is false for every non-number.',
  },
  {
    file: 'src/agent/protocol.ts', mutator: 'ConditionalExpression', code: "case 'integer': return typeof v === 'number' && Number.isInteger(v);", replacement: 'true',
    why: 'Number.isInteger does not coerce: it is false for every non-number.',
  },
  {
    file: 'src/agent/protocol.ts', mutator: 'ConditionalExpression', code: "if (v === undefined) return 'null';", replacement: 'false',
    why: "undefined then reaches the next line: JSON.stringify(undefined) is undefined, and ?? 'null' gives 'null' again.",
  },
  ...([['ConditionalExpression', 'false'], ['LogicalOperator', 'schema === undefined && schema === true']] as const).map(([mutator, replacement]) => ({
    file: 'src/agent/protocol.ts', mutator, code: 'if (schema === undefined || schema === true) return;', replacement,
    why: "undefined and true pass the next two checks (they are not false) and return at `typeof schema !== 'object'`, before the depth check: no error either way.",
  })),
  {
    file: 'src/agent/protocol.ts', mutator: 'ConditionalExpression', code: 'if (t !== undefined) {', replacement: 'true',
    why: "With no type, ts is [undefined] and typeMatches(v, 'undefined') takes the default branch (true): no error, and the checks below run as before.",
  },
  {
    file: 'src/agent/protocol.ts', mutator: 'LogicalOperator', code: "if (schema.items && typeof schema.items === 'object') v.forEach(", replacement: "schema.items || typeof schema.items === 'object'",
    why: "The mutant differs only when items is a truthy non-object (true, a string, a number: validateAt returns at once for each element, before the depth check) or null (typeof null is 'object': validateAt(null) returns at once): no error either way; false, 0 and '' still skip the items.",
  },
  ...([['ConditionalExpression', 'true'], ['LogicalOperator', "extra || typeof extra === 'object'"]] as const).map(([mutator, replacement]) => ({
    file: 'src/agent/protocol.ts', mutator, code: "else if (extra && typeof extra === 'object') validateAt(extra, x, `${path}.${k}`, errs, strict, depth + 1);", replacement,
    why: "extra is not false here (the branch above), so validateAt gets undefined, true, null or a non-object, and returns at its first three checks, before the depth check: no error.",
  })),
  ...([
    ['ConditionalExpression', 'true'], ['LogicalOperator', "schema || typeof schema === 'object'"], ['ObjectLiteral', '{}'], ['StringLiteral', '""'],
  ] as const).map(([mutator, replacement]) => ({
    file: 'src/agent/protocol.ts', mutator, code: "const root: JSONSchema = schema && typeof schema === 'object' ? schema : { type: 'object' };", replacement,
    why: "root is only spread into { type: 'object', ...root }: undefined and null spread to nothing, a string to index keys ('0', '1', …) that the validator never reads, and {} or { type: '' } leave a root type that accepts any plain object — and args is a plain object (checked on the next line).",
  })),
  {
    file: 'src/agent/protocol.ts', mutator: 'StringLiteral', code: "try { validateAt({ type: 'object', ...root }, args, '$', errors, opts.strict ?? true, 0); }", replacement: '""',
    why: "The root type '' (unknown type names accept anything) and 'object' both accept args, which the line before checked to be a plain object; a schema's own type overrides it either way.",
  },
];

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
