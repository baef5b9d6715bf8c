// Conformance runners, one subcommand per world: `npm run conformance -- <world> [options]`.

import { resolve } from 'node:path';

import { parseCliArgs, usage, type CliValues } from './args';
import { CONFORMANCE_BFCL_CLI, CONFORMANCE_TAU2_CLI, CONFORMANCE_VITA_CLI, exitOnArgsError, pickSubcommand } from './defs';

type BfclArgs = CliValues<typeof CONFORMANCE_BFCL_CLI.options>;

async function bfcl(f: BfclArgs): Promise<number> {
  const { loadAllBackends } = await import('../envs/bfcl/index');
  const { runBfclConformance, runBfclGroundTruthCheck } = await import('../envs/bfcl/conformance');
  await loadAllBackends();
  const data = resolve(process.cwd(), '../shared/data/bfcl');
  const questions = f.questions ?? `${data}/BFCL_v4_multi_turn_base.json`;
  const answers = f.answers ?? `${data}/possible_answer/BFCL_v4_multi_turn_base.json`;
  const fixture = f.fixture ?? `${data}/fixtures/multi_turn_base.fixture.json`;
  if (f.checker) {
    const r = runBfclGroundTruthCheck(questions, answers);
    console.log(f.json ? JSON.stringify(r) : `checker on ground truth: ${r.valid}/${r.total} valid`);
    return r.valid === r.total ? 0 : 1;
  }
  const { all_mismatches: _all, ...report } = runBfclConformance({ questions, answers, fixture });
  if (f.json) console.log(JSON.stringify(report));
  else {
    console.log(`results ${report.matched_results}/${report.total_calls}, states ${report.matched_states}/${report.total_states}`);
    for (const m of report.mismatches) console.log(JSON.stringify(m));
  }
  return report.matched_results === report.total_calls && report.matched_states === report.total_states ? 0 : 1;
}

type VitaArgs = CliValues<typeof CONFORMANCE_VITA_CLI.options>;

async function vita(f: VitaArgs): Promise<number> {
  const { runVitaConformance } = await import('../envs/vitabench/conformance');
  const fixtures = resolve(f.fixtures ?? resolve(process.cwd(), '../shared/data/vitabench/fixtures'));
  const r = await runVitaConformance({ fixtures, dataRoot: f.data ? resolve(f.data) : undefined });
  const { calls, calls_equal, states, states_equal, windows, windows_equal, rewards, rewards_equal } = r;
  const summary = { calls, calls_equal, states, states_equal, windows, windows_equal, rewards, rewards_equal };
  if (f.json) console.log(JSON.stringify({ ...summary, fixtures: r.fixtures, sequences: r.sequences, mismatch_count: r.mismatch_count, mismatches: r.mismatches }));
  else {
    console.log(`VitaBench (${r.fixtures} fixtures, ${r.sequences} sequences): calls ${calls_equal}/${calls}, states ${states_equal}/${states}, `
      + `judge windows ${windows_equal}/${windows}, stub-judge rewards ${rewards_equal}/${rewards}`);
    for (const m of r.mismatches) console.log(JSON.stringify(m).slice(0, 800));
  }
  return r.mismatch_count === 0 && calls > 0 ? 0 : 1;
}

async function main(): Promise<void> {
  let argv = process.argv.slice(2);
  // `--suite NAME` is accepted in place of the subcommand.
  const si = argv.indexOf('--suite');
  if (si >= 0 && argv[si + 1]) argv = [argv[si + 1], ...argv.slice(0, si), ...argv.slice(si + 2)];
  let run: () => Promise<number>;
  try {
    const { sub, rest } = pickSubcommand('conformance', ['bfcl', 'tau2', 'vita'] as const, argv);
    if (sub === 'vita') {
      const a = parseCliArgs(CONFORMANCE_VITA_CLI, rest);
      if (a === 'help') { console.log(usage(CONFORMANCE_VITA_CLI)); return; }
      run = () => vita(a);
    } else if (sub === 'bfcl') {
      const a = parseCliArgs(CONFORMANCE_BFCL_CLI, rest);
      if (a === 'help') { console.log(usage(CONFORMANCE_BFCL_CLI)); return; }
      run = () => bfcl(a);
    } else {
      const a = parseCliArgs(CONFORMANCE_TAU2_CLI, rest);
      if (a === 'help') { console.log(usage(CONFORMANCE_TAU2_CLI)); return; }
      // The τ² runner reads `--flag value` pairs: hand it the validated values in that one spelling.
      const canonical = ['--domain', a.domain, ...(a.fixture ? ['--fixture', a.fixture] : []), ...(a.json ? ['--json'] : []), ...(a['step-hashes'] ? ['--step-hashes'] : [])];
      run = async () => (await import('../envs/tau2/conformance')).tau2ConformanceCli(canonical);
    }
  } catch (e) { exitOnArgsError('conformance', e); }
  process.exitCode = await run();
}

main().catch((e) => { console.error(e); process.exitCode = 1; });
