// npm run mutants -- [--only id,id] [--out FILE [--merge]] [--keep] [--timeout-s 1800] [--test-timeout-s 900]
//
// Issue 14 asks that the tests "fail when the behaviour they name is broken". This makes that check
// repeatable: each mutant below breaks one such behaviour in a throw-away copy of the committed tree
// (`git worktree add --detach … HEAD`), runs the Vitest file(s) meant to catch it there, and records
// whether they failed (caught) or passed (survived). Every named test first runs on the unmutated copy and
// must pass there, or a failing run would prove nothing. A surviving mutant is a gap in the tests.
//
// Prints one JSON line per mutant and a summary {mutants, caught, survived}; writes the whole record to
// docs/results/reliability/mutants.json (only for a run of the full list, unless --out is given); exits 1
// if any mutant survived, timed out, or had a failing baseline. Not part of `npm test`: the full list takes
// about an hour on a loaded 2-core machine.
// Run it under `nice -n 10` on a shared machine (the Vitest children inherit the niceness).

import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, mkdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cliArgs, defineCli } from '../src/cli/args';

export interface Mutant {
  id: string;
  /** The behaviour the mutant breaks, in one line. */
  description: string;
  /** Source file, relative to the repository root. */
  file: string;
  /** Exact text that must occur exactly once in `file`. */
  find: string;
  replace: string;
  /** Vitest files that must fail once the mutant is applied. */
  tests: string[];
  /** Vitest -t pattern: only the tests that promise to catch this (keeps long files affordable). */
  testName?: string;
}

/** How many times `needle` occurs in `hay` (non-overlapping). */
export function countOccurrences(hay: string, needle: string): number {
  if (needle.length === 0) throw new Error('empty find text');
  let n = 0;
  for (let at = hay.indexOf(needle); at >= 0; at = hay.indexOf(needle, at + needle.length)) n++;
  return n;
}

/** `source` with the single occurrence of `find` replaced; throws unless `find` occurs exactly once. */
export function applyMutation(source: string, find: string, replace: string, where = 'source'): string {
  const n = countOccurrences(source, find);
  if (n !== 1) throw new Error(`${where}: the find text occurs ${n} times (must be exactly once): ${JSON.stringify(find.slice(0, 120))}`);
  if (find === replace) throw new Error(`${where}: the replacement equals the find text`);
  const at = source.indexOf(find);
  return source.slice(0, at) + replace + source.slice(at + find.length);
}

/** One mutant per property issue 14 §1 names (plus the quota path of §5). */
export const MUTANTS: Mutant[] = [
  {
    id: 'judge-first-call-only',
    description: "judge: a 'called' item looks only at the first call to its tool, so dropping an earlier wrong call can raise the score",
    file: 'src/envs/judges.ts',
    find: '        if (!callMatches(cond, s)) continue;',
    replace: '        if (!callMatches(cond, s)) break;',
    tests: ['tests/envs/judges.test.ts'],
  },
  {
    id: 'judge-result-last-call-only',
    description: "judge: 'result_contains' reads only the last call's result, so dropping a later call can raise the score",
    file: 'src/envs/judges.ts',
    find: '      for (const { s, i } of calls) {',
    replace: '      for (const { s, i } of calls.slice(-1)) {',
    tests: ['tests/envs/judges.test.ts'],
  },
  {
    id: 'judge-reply-last-only',
    description: "judge: 'reply_contains' reads only the turn's last reply",
    file: 'src/envs/judges.ts',
    find: '      for (const { s, i } of replies) {',
    replace: '      for (const { s, i } of replies.slice(-1)) {',
    tests: ['tests/envs/judges.test.ts'],
  },
  {
    id: 'bfcl-backend-unregistered',
    description: 'BFCL: TicketAPI no longer registers its backend (7 of 8)',
    file: 'src/envs/bfcl/backends/ticket_api.ts',
    find: "registerBackend('TicketAPI', () => new TicketAPI());",
    replace: "void TicketAPI; // registration dropped",
    tests: ['tests/envs/bfcl-conformance.test.ts'],
    testName: 'all 8 backends register',
  },
  {
    id: 'bfcl-missing-entry-skipped',
    description: 'BFCL conformance: a question missing from the fixture is skipped silently instead of reported',
    file: 'src/envs/bfcl/conformance.ts',
    find: "      note({ id: question.id, turn: -1, kind: 'entry', expected: 'an entry in the fixture', actual: 'missing' });\n",
    replace: '',
    tests: ['tests/envs/bfcl-conformance.test.ts'],
    testName: 'entries missing from the fixture',
  },
  {
    id: 'verify-ignores-added-entries',
    description: "verify: the state diff ignores keys the expert's state lacks (an extra file or record passes)",
    file: 'src/envs/worlds/common.ts',
    find: '    for (const k of Object.keys(a)) if (!Object.hasOwn(e, k)) return `${path}.${k}: unexpected (${show(a[k])})`;\n',
    replace: '',
    tests: ['tests/envs/worlds.test.ts'],
    testName: 'verify detects a wrong final state',
  },
  // Issue 21: the three `in` / plain-object lookups that let prototype-named files and arguments pass.
  {
    id: 'verify-inherited-keys',
    description: "verify: the state diff finds an added key on Object.prototype ('constructor', 'toString'), so such an extra file passes",
    file: 'src/envs/worlds/common.ts',
    find: 'for (const k of Object.keys(a)) if (!Object.hasOwn(e, k)) return',
    replace: 'for (const k of Object.keys(a)) if (!(k in e)) return',
    tests: ['tests/envs/own-keys.test.ts'],
    testName: 'prototype names',
  },
  {
    id: 'plain-tree-plain-object',
    description: "files world: the judged tree is a plain object, so a file named '__proto__' sets its prototype instead of being an entry",
    file: 'src/envs/worlds/files/env.ts',
    find: 'const out: Record<string, unknown> = Object.create(null);',
    replace: 'const out: Record<string, unknown> = {};',
    tests: ['tests/envs/own-keys.test.ts'],
    testName: 'prototype names',
  },
  {
    id: 'validate-inherited-keys',
    description: "argument validation: an extra argument named 'constructor' / '__proto__' / 'toString' is looked up on the prototype and accepted",
    file: 'src/agent/protocol.ts',
    find: 'if (Object.hasOwn(props, k)) validateAt(',
    replace: 'if (k in props) validateAt(',
    tests: ['tests/envs/own-keys.test.ts'],
    testName: 'prototype names',
  },
  {
    id: 'validate-required-inherited',
    description: "argument validation: a missing required argument named 'toString' counts as present (found on the prototype)",
    file: 'src/agent/protocol.ts',
    find: "if (!Object.hasOwn(v, String(k))) errs.push(",
    replace: "if (!(String(k) in v)) errs.push(",
    tests: ['tests/envs/own-keys.test.ts'],
    testName: 'prototype names',
  },
  {
    id: 'checkpoint-checksum-unchecked',
    description: 'checkpoints: the CRC-32 written with the tensor data is never compared, so a corrupt checkpoint loads',
    file: 'src/rl/checkpoint.ts',
    find: 'if (header.checksum !== undefined && crc32(data) !== header.checksum) {',
    replace: 'if (header.checksum === -1 && crc32(data) !== header.checksum) {',
    tests: ['tests/rl/checkpoint.test.ts'],
  },
  {
    id: 'checkpoint-negative-offset',
    description: 'checkpoints: a negative or fractional tensor offset/length passes the header check (garbage or a raw RangeError)',
    file: 'src/rl/checkpoint.ts',
    find: "const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;",
    replace: "const isCount = (v: unknown): v is number => typeof v === 'number';",
    tests: ['tests/rl/checkpoint.test.ts'],
  },
  {
    id: 'fuzz-violation-is-a-code',
    description: 'fuzz: a broken promise (NaN config accepted, lossy tokenizer) is counted as one more outcome code, so the run passes',
    file: 'src/bench/fuzz/harness.ts',
    find: "if (e instanceof FuzzViolation) return { kind: 'violation', code: e.code, error: describeError(e) };",
    replace: "if (e instanceof FuzzViolation) return { kind: 'code', code: e.code };",
    tests: ['tests/bench/fuzz-violations.test.ts', 'tests/bench/fuzz-isolate.test.ts'],
  },
  {
    id: 'train-worker-death-unnoticed',
    description: "Train page: nobody waits on the training worker's life lock, so a worker that dies on its own leaves the run 'running' forever",
    file: 'src/app/components/train/client.ts',
    find: "void locks.request(name, () => die('the training worker stopped unexpectedly (it closed, crashed or ran out of memory)'));",
    replace: 'void name;',
    tests: ['tests/app/train-worker-death.test.ts'],
  },
  {
    id: 'trainer-rehearse-model-untrained',
    description: "trainer: per-role's Rehearse model is handed no rows, so it never changes",
    file: 'src/rl/trainer.ts',
    find: ".filter((r) => p.role === 'both' || r.row.role === p.role);",
    replace: ".filter((r) => p.role === 'both' || (p.role === 'act' && r.row.role === p.role));",
    tests: ['tests/rl/trainer-variants.test.ts'],
    testName: 'every trained model changes',
  },
  {
    id: 'trainer-frozen-is-live-policy',
    description: 'trainer: the frozen simulator / KL reference shares the policy weights, so training moves it',
    file: 'src/rl/trainer.ts',
    find: '    this.frozen = cloneParams(deps.params);',
    replace: '    this.frozen = this.policies[0].model.params;',
    tests: ['tests/rl/trainer-variants.test.ts'],
    testName: 'the frozen simulator does not',
  },
  {
    id: 'kl-reference-is-policy',
    description: 'KL: the reference log-probs are scored by the policy itself, so the KL term is always 0',
    file: 'src/rl/update.ts',
    find: 'batch.refLogprobs = (await ref.score(batch)).logprobs;',
    replace: 'batch.refLogprobs = (await model.score(batch)).logprobs;',
    tests: ['tests/rl/trainer-variants.test.ts'],
    testName: 'KL to the reference model',
  },
  {
    id: 'agg-seq-mean-weighs-tokens',
    description: 'loss aggregation: seq-mean-token-mean weighs every token alike across a micro-batch (the issue-8 bug)',
    file: 'src/rl/update.ts',
    find: "      case 'seq-mean-token-mean': return 1 / (R * Math.max(n, 1));",
    replace: "      case 'seq-mean-token-mean': return 1 / Math.max(N, 1);",
    tests: ['tests/rl/update.test.ts'],
    testName: 'row weighting',
  },
  {
    id: 'agg-token-sum-unnormalised',
    description: 'loss aggregation: seq-mean-token-sum divides by the token count instead of the row count',
    file: 'src/rl/update.ts',
    find: "      case 'seq-mean-token-sum': return 1 / R;",
    replace: "      case 'seq-mean-token-sum': return 1 / Math.max(N, 1);",
    tests: ['tests/rl/update.test.ts'],
    testName: 'packed GRPO update',
  },
  {
    id: 'evaluate-ignores-seed',
    description: 'evaluate(): the seed option is ignored (every seed samples the same)',
    file: 'src/agent/evaluate.ts',
    find: 'seed: opts.seed ?? 0,',
    replace: 'seed: 0,',
    tests: ['tests/agent/evaluate.test.ts'],
  },
  {
    id: 'evaluate-checklist-ignores-error-rule',
    description: "evaluate(): the checklist figure reads the judge's score, not the reward under the training error rule",
    file: 'src/agent/evaluate.ts',
    find: 'checklist: trajs.reduce((s, t) => s + (t.reward ?? t.verdict?.score ?? 0), 0) / n,',
    replace: 'checklist: trajs.reduce((s, t) => s + (t.verdict?.score ?? 0), 0) / n,',
    tests: ['tests/agent/evaluate.test.ts'],
  },
  {
    id: 'tau2-result-changed',
    description: "τ² retail: cancel_pending_order writes status 'canceled' (a tool result and the DB hash change)",
    file: 'src/envs/tau2/retail/tools.ts',
    find: "      order.status = 'cancelled';",
    replace: "      order.status = 'canceled';",
    tests: ['tests/envs/tau2.test.ts'],
    testName: 'gold-replay conformance',
  },
  {
    id: 'ep-failure-forced-switches',
    description: 'backend choice: a forced ?backend=webgpu whose EP fails switches to WASM silently',
    file: 'src/worker/backend-choice.ts',
    find: "    if (kind !== 'webgpu' || requested === 'webgpu') throw e;",
    replace: "    if (kind !== 'webgpu') throw e;",
    tests: ['tests/worker/probe.test.ts'],
  },
  {
    id: 'probe-adapter-throw-escapes',
    description: 'probeBackend: a throwing requestAdapter escapes instead of giving WASM with the reason',
    file: 'src/worker/probe.ts',
    find: "    return { kind: 'wasm', reason: prefix + `requestAdapter threw: ${(e as Error).message}` };",
    replace: '    throw e;',
    tests: ['tests/worker/probe.test.ts'],
  },
  {
    id: 'fuzz-parser-raw-error',
    description: 'Act parser: invalid JSON in a tool call throws a raw Error instead of returning a parse error',
    file: 'src/agent/protocol.ts',
    find: '    return { ok: false, error: e instanceof Error ? e.message : String(e) };',
    replace: '    throw new Error(`bad tool-call JSON: ${String(e)}`);',
    tests: ['tests/bench/fuzz.test.ts'],
    testName: 'act-output',
  },
  {
    id: 'cli-args-lenient',
    description: 'CLI args: util.parseArgs non-strict, so a misspelt flag is accepted',
    file: 'src/cli/args.ts',
    find: 'strict: true, allowPositionals: true',
    replace: 'strict: false, allowPositionals: true',
    tests: ['tests/cli/args.test.ts'],
  },
  {
    id: 'quota-error-unrecognised',
    description: 'checkpoints: a write over the storage quota surfaces as a raw DOMException, not CheckpointQuotaError',
    file: 'src/rl/checkpoint-web.ts',
    find: '      reject(onQuota && isQuotaError(err) ? onQuota(err) : err);',
    replace: '      reject(err);',
    tests: ['tests/worker/checkpoint-quota.test.ts'],
  },
];

export const MUTANTS_CLI = defineCli({
  name: 'mutants',
  summary: 'Break each named behaviour in a temporary worktree and check that its tests fail.',
  options: {
    only: { type: 'list', choices: MUTANTS.map((m) => m.id), help: 'only these mutants' },
    out: { type: 'string', help: 'write the JSON record here (default docs/results/reliability/mutants.json for the full list)' },
    keep: { type: 'boolean', help: 'keep the temporary worktree' },
    'timeout-s': { type: 'int', default: 1800, min: 1, help: 'per Vitest run; a run over it is reported as timed-out' },
    // vitest.config.ts allows 120 s per test; on a loaded shared machine a conformance replay took 210 s, and a
    // baseline that fails on time alone proves nothing about the mutant.
    'test-timeout-s': { type: 'int', default: 900, min: 1, help: 'Vitest --testTimeout and --hookTimeout' },
    merge: { type: 'boolean', help: 'replace only these mutants\' records in the existing --out file (summary recomputed)' },
  },
});

type Verdict = 'caught' | 'survived' | 'timed-out' | 'invalid-baseline';

interface MutantRecord {
  id: string; description: string; file: string; tests: string[]; testName: string | null; verdict: Verdict;
  /** Failed tests, each with the first line of its failure. */
  caughtBy: string[];
  failedTests: number; passedTests: number; timedOut: boolean; baselinePassed: number; seconds: number;
}

interface VitestRun {
  ok: boolean;
  exitCode: number | null;
  timedOut: boolean;
  seconds: number;
  passed: number;
  failed: number;
  /** Full names of the failed tests (or a file that failed to load). */
  failures: string[];
}

interface VitestJson {
  numPassedTests?: number;
  numFailedTests?: number;
  testResults?: { name: string; status: string; message?: string; assertionResults?: { fullName: string; status: string; failureMessages?: string[] }[] }[];
}

function runVitest(cwd: string, m: Pick<Mutant, 'tests' | 'testName'>, tag: string, timeoutS: number, testTimeoutS: number): VitestRun {
  const json = join(cwd, '..', `vitest-${tag}.json`);
  const log = join(cwd, '..', `vitest-${tag}.log`);
  rmSync(json, { force: true });
  const args = ['vitest', 'run', ...m.tests, ...(m.testName ? ['-t', m.testName] : []), '--reporter=json', `--outputFile=${json}`,
    `--testTimeout=${testTimeoutS * 1000}`, `--hookTimeout=${testTimeoutS * 1000}`];
  const t0 = Date.now();
  const r = spawnSync('npx', args, { cwd, encoding: 'utf8', timeout: timeoutS * 1000, maxBuffer: 256 * 1024 * 1024, env: { ...process.env, CI: '1' } });
  const seconds = (Date.now() - t0) / 1000;
  writeFileSync(log, `${r.stdout ?? ''}\n${r.stderr ?? ''}`);
  const timedOut = r.error !== undefined && (r.error as NodeJS.ErrnoException).code === 'ETIMEDOUT';
  let rep: VitestJson = {};
  try { rep = JSON.parse(readFileSync(json, 'utf8')) as VitestJson; } catch { /* no report: crashed or timed out */ }
  const failures: string[] = [];
  for (const f of rep.testResults ?? []) {
    // With the first line of the failure, so a failure on time alone ("Test timed out") is visible as such.
    const bad = (f.assertionResults ?? []).filter((a) => a.status === 'failed')
      .map((a) => `${a.fullName} — ${(a.failureMessages?.[0] ?? '').split('\n')[0].slice(0, 160)}`);
    failures.push(...bad);
    if (f.status === 'failed' && bad.length === 0) failures.push(`${f.name.replace(`${cwd}/`, '')}: ${(f.message ?? 'failed').split('\n')[0].slice(0, 200)}`);
  }
  return { ok: r.status === 0 && !timedOut, exitCode: r.status, timedOut, seconds, passed: rep.numPassedTests ?? 0, failed: rep.numFailedTests ?? 0, failures };
}

/** A detached worktree of HEAD beside a `shared` link, so `../shared/data` resolves as in the checkout. */
function makeWorktree(repo: string): { dir: string; wt: string; commit: string } {
  const dir = mkdtempSync(join(tmpdir(), 'envace-mutants-'));
  const wt = join(dir, 'repo');
  const commit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: repo, encoding: 'utf8' }).trim();
  execFileSync('git', ['worktree', 'add', '--detach', wt, commit], { cwd: repo, stdio: 'ignore' });
  symlinkSync(realpathSync(join(repo, 'node_modules')), join(wt, 'node_modules'));
  const shared = resolve(repo, '..', 'shared');
  if (!existsSync(join(shared, 'data'))) throw new Error(`benchmark data not found at ${shared}/data (the tests read ../shared/data)`);
  symlinkSync(realpathSync(shared), join(dir, 'shared'));
  return { dir, wt, commit };
}

function removeWorktree(repo: string, dir: string, wt: string): void {
  try { execFileSync('git', ['worktree', 'remove', '--force', wt], { cwd: repo, stdio: 'ignore' }); } catch { /* removed below */ }
  rmSync(dir, { recursive: true, force: true });
  try { execFileSync('git', ['worktree', 'prune'], { cwd: repo, stdio: 'ignore' }); } catch { /* nothing to prune */ }
}

async function main(): Promise<void> {
  const a = cliArgs(MUTANTS_CLI);
  const repo = process.cwd();
  const list = MUTANTS.filter((m) => !a.only || a.only.includes(m.id));
  const out = a.out ?? (a.only ? undefined : 'docs/results/reliability/mutants.json');
  const t0 = Date.now();
  const { dir, wt, commit } = makeWorktree(repo);
  process.stderr.write(`mutants: ${list.length} mutants of ${commit.slice(0, 12)} in ${wt}\n`);
  const cleanup = () => { if (!a.keep) removeWorktree(repo, dir, wt); };
  process.on('SIGINT', () => { cleanup(); process.exit(130); });
  try {
    // A stale list fails before any test runs: every find text once, every named test file present.
    for (const m of list) {
      applyMutation(readFileSync(join(wt, m.file), 'utf8'), m.find, m.replace, `${m.id} (${m.file})`);
      for (const f of m.tests) if (!existsSync(join(wt, f))) throw new Error(`${m.id}: test file ${f} not found`);
    }
    // Baselines: each distinct (files, -t) selection once on the unmutated copy.
    const key = (m: Mutant) => JSON.stringify([m.tests, m.testName ?? null]);
    const baselines = new Map<string, VitestRun>();
    for (const m of list) {
      if (baselines.has(key(m))) continue;
      const r = runVitest(wt, m, `base-${baselines.size}`, a['timeout-s'], a['test-timeout-s']);
      baselines.set(key(m), r);
      const line = { baseline: m.tests, testName: m.testName ?? null, passed: r.passed, failed: r.failed, ok: r.ok && r.passed > 0, seconds: +r.seconds.toFixed(1), failures: r.failures.slice(0, 5) };
      process.stdout.write(`${JSON.stringify(line)}\n`);
    }
    const results: MutantRecord[] = [];
    for (const m of list) {
      const base = baselines.get(key(m))!;
      const path = join(wt, m.file);
      const original = readFileSync(path, 'utf8');
      const mutated = applyMutation(original, m.find, m.replace, `${m.id} (${m.file})`);
      let run: VitestRun | null = null;
      if (base.ok && base.passed > 0) {
        writeFileSync(path, mutated);
        try { run = runVitest(wt, m, m.id, a['timeout-s'], a['test-timeout-s']); } finally { writeFileSync(path, original); }
      }
      // A run that failed only on time (the per-test limit, or the whole run's) shows nothing about the mutant.
      const onTimeOnly = !!run && !run.ok && (run.timedOut || (run.failures.length > 0 && run.failures.every((f) => /(Test|Hook) timed out/.test(f))));
      const verdict: Verdict = !run ? 'invalid-baseline' : run.ok ? 'survived' : onTimeOnly ? 'timed-out' : 'caught';
      const rec: MutantRecord = {
        id: m.id, description: m.description, file: m.file, tests: m.tests, testName: m.testName ?? null, verdict,
        caughtBy: run?.failures.slice(0, 8) ?? [], failedTests: run?.failed ?? 0, passedTests: run?.passed ?? 0,
        timedOut: run?.timedOut ?? false, baselinePassed: base.passed, seconds: run ? +run.seconds.toFixed(1) : 0,
      };
      results.push(rec);
      process.stdout.write(`${JSON.stringify(rec)}\n`);
    }
    const summarize = (rs: { verdict: string }[]) => ({
      mutants: rs.length,
      caught: rs.filter((r) => r.verdict === 'caught').length,
      survived: rs.filter((r) => r.verdict === 'survived').length,
      invalidBaseline: rs.filter((r) => r.verdict === 'invalid-baseline').length,
      timedOut: rs.filter((r) => r.verdict === 'timed-out').length,
    });
    const summary = summarize(results);
    process.stdout.write(`${JSON.stringify({ summary })}\n`);
    const baselineRecords = [...baselines.entries()].map(([k, r]) => ({ selection: JSON.parse(k), passed: r.passed, failed: r.failed, seconds: +r.seconds.toFixed(1), commit }));
    let record = {
      command: `npm run mutants${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`, commit, date: new Date().toISOString(),
      seconds: Math.round((Date.now() - t0) / 1000), summary, baselines: baselineRecords, mutants: results,
      reruns: [] as { command: string; commit: string; date: string; ids: string[] }[],
    };
    if (out && a.merge && existsSync(resolve(repo, out))) {
      // A rerun of some mutants (e.g. after a baseline failed on time alone) updates their records in place.
      const old = JSON.parse(readFileSync(resolve(repo, out), 'utf8')) as typeof record;
      const ids = new Set(results.map((r) => r.id));
      const mutants = old.mutants.map((r) => (ids.has(r.id) ? results.find((x) => x.id === r.id)! : r));
      for (const r of results) if (!old.mutants.some((x) => x.id === r.id)) mutants.push(r);
      const keys = new Set(baselineRecords.map((b) => JSON.stringify(b.selection)));
      record = {
        ...old, summary: summarize(mutants), mutants,
        baselines: [...old.baselines.filter((b) => !keys.has(JSON.stringify(b.selection))), ...baselineRecords],
        reruns: [...(old.reruns ?? []), { command: record.command, commit, date: record.date, ids: [...ids] }],
      };
      process.stdout.write(`${JSON.stringify({ merged: record.summary })}\n`);
    }
    if (out) {
      mkdirSync(dirname(resolve(repo, out)), { recursive: true });
      writeFileSync(resolve(repo, out), `${JSON.stringify(record, null, 1)}\n`);
      process.stderr.write(`mutants: wrote ${out}\n`);
    }
    if (record.summary.survived || record.summary.invalidBaseline || record.summary.timedOut) process.exitCode = 1;
  } finally {
    cleanup();
  }
}

const isMain = !!process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1]);
if (isMain) main().catch((e) => { process.stderr.write(`mutants: ${e instanceof Error ? e.stack : String(e)}\n`); process.exit(1); });
