// Conformance runners, one subcommand per world: `npm run conformance -- <world> [options]`.

import { resolve } from 'node:path';

type Runner = (argv: string[]) => Promise<number>;

/** --key value / --flag parsing shared by the subcommands. */
export function parseFlags(argv: string[]): Record<string, string | true> {
  const out: Record<string, string | true> = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith('--')) continue;
    const eq = a.indexOf('=');
    if (eq > 0) { out[a.slice(2, eq)] = a.slice(eq + 1); continue; }
    const next = argv[i + 1];
    if (next !== undefined && !next.startsWith('--')) { out[a.slice(2)] = next; i++; } else out[a.slice(2)] = true;
  }
  return out;
}

const bfcl: Runner = async (argv) => {
  const { loadAllBackends } = await import('../envs/bfcl/index');
  const { runBfclConformance, runBfclGroundTruthCheck } = await import('../envs/bfcl/conformance');
  await loadAllBackends();
  const f = parseFlags(argv);
  const data = resolve(process.cwd(), '../shared/data/bfcl');
  const questions = typeof f.questions === 'string' ? f.questions : `${data}/BFCL_v4_multi_turn_base.json`;
  const answers = typeof f.answers === 'string' ? f.answers : `${data}/possible_answer/BFCL_v4_multi_turn_base.json`;
  const fixture = typeof f.fixture === 'string' ? f.fixture : `${data}/fixtures/multi_turn_base.fixture.json`;
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
};

const tau2: Runner = async (argv) => (await import('../envs/tau2/conformance')).tau2ConformanceCli(argv);

const SUBCOMMANDS: Record<string, Runner> = {
  bfcl,
  tau2,
};

async function main(): Promise<void> {
  const [sub, ...rest] = process.argv.slice(2);
  const run = sub ? SUBCOMMANDS[sub] : undefined;
  if (!run) {
    console.error(`usage: conformance <${Object.keys(SUBCOMMANDS).join('|')}> [options]`);
    process.exitCode = 2;
    return;
  }
  process.exitCode = await run(rest);
}

main().catch((e) => { console.error(e); process.exitCode = 1; });
