// Gold-replay conformance against τ²'s own recorded results (fixtures/*.json): every tool result string
// and error flag, the final DB hash per task, and the evaluator cross-check (db_match / env reward).

import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { parsePyJson, toPlain } from '../python';
import { evaluateEnvironment, trajectoryFromCalls } from './evaluator';
import { loadTau2Domain } from './fs';
import type { Tau2Message } from './toolkit';

export interface Tau2Mismatch {
  task: string;
  kind: 'result' | 'error_flag' | 'state' | 'initial_state' | 'crosscheck' | 'env_assertion' | 'initial_hash' | 'exception';
  action_id?: string;
  expected: unknown;
  actual: unknown;
}

export interface Tau2ConformanceReport {
  domain: string;
  fixture: string;
  tasks: number;
  total_calls: number;
  matched_results: number;
  total_states: number;
  matched_states: number;
  /** Per-action DB hashes (db_hash_after); only with stepHashes. */
  total_step_states: number;
  matched_step_states: number;
  total_crosschecks: number;
  matched_crosschecks: number;
  initial_hash_ok: boolean;
  mismatches: Tau2Mismatch[];
  mismatch_count: number;
}

type FixtureAction = { action_id: string; name: string; arguments: unknown; requestor?: 'assistant' | 'user'; result: string; error: boolean; db_hash_after?: string };
type FixtureTask = {
  id: string;
  actions: FixtureAction[];
  final_db_hash: string;
  db_hash_after_initial_state?: string;
  evaluator_crosscheck?: { db_match: boolean; env_reward: number };
  env_assertions_on_gold_final_state?: { func_name: string; env_type: 'assistant' | 'user'; arguments: Record<string, unknown>; assert_value?: boolean; returned: unknown; met: boolean }[];
};

const get = (o: unknown, k: string): unknown => (o instanceof Map ? o.get(k) : (o as Record<string, unknown>)?.[k]);

export function runTau2Conformance(opts: { domainDir: string; fixture: string; stepHashes?: boolean; maxMismatches?: number }): Tau2ConformanceReport {
  const domain = loadTau2Domain(opts.domainDir);
  // parsePyJson keeps argument floats/key order exactly as τ² received them.
  const fx = parsePyJson(readFileSync(opts.fixture, 'utf8'));
  const fixtureTasks = get(fx, 'tasks') as unknown[];
  const taskById = new Map(domain.tasks.map((t) => [t.id, t]));
  const limit = opts.maxMismatches ?? 10;
  const r: Tau2ConformanceReport = {
    domain: domain.domain, fixture: opts.fixture, tasks: fixtureTasks.length,
    total_calls: 0, matched_results: 0, total_states: 0, matched_states: 0, total_step_states: 0, matched_step_states: 0,
    total_crosschecks: 0, matched_crosschecks: 0, initial_hash_ok: false, mismatches: [], mismatch_count: 0,
  };
  const miss = (m: Tau2Mismatch) => {
    r.mismatch_count++;
    if (r.mismatches.length < limit) r.mismatches.push(m);
  };

  const initialHash = domain.makeEnv().hash();
  r.initial_hash_ok = initialHash === get(fx, 'initial_db_hash');
  if (!r.initial_hash_ok) miss({ task: '*', kind: 'initial_hash', expected: get(fx, 'initial_db_hash'), actual: initialHash });

  for (const raw of fixtureTasks) {
    const ft = { ...(toPlain(raw) as FixtureTask), actions: (get(raw, 'actions') as unknown[]).map((a) => ({ ...(toPlain(a) as FixtureAction), arguments: get(a, 'arguments') })) };
    const task = taskById.get(ft.id);
    r.total_states++;
    if (ft.evaluator_crosscheck) r.total_crosschecks++;
    r.total_calls += ft.actions.length;
    if (!task) {
      miss({ task: ft.id, kind: 'exception', expected: 'task in tasks.json', actual: 'missing' });
      continue;
    }
    try {
      const env = domain.makeEnv();
      env.setState(task.initial_state);
      if (ft.db_hash_after_initial_state !== undefined) {
        const h = env.hash();
        if (h !== ft.db_hash_after_initial_state) miss({ task: ft.id, kind: 'initial_state', expected: ft.db_hash_after_initial_state, actual: h });
      }
      for (const a of ft.actions) {
        const got = env.getResponse({ id: a.action_id, name: a.name, arguments: a.arguments, requestor: a.requestor ?? 'assistant' });
        if (got.content === a.result && got.error === a.error) r.matched_results++;
        else if (got.content !== a.result) miss({ task: ft.id, kind: 'result', action_id: a.action_id, expected: a.result, actual: got.content });
        else miss({ task: ft.id, kind: 'error_flag', action_id: a.action_id, expected: a.error, actual: got.error });
        if (opts.stepHashes && a.db_hash_after) {
          r.total_step_states++;
          if (env.hash() === a.db_hash_after) r.matched_step_states++;
        }
      }
      const finalHash = env.hash();
      if (finalHash === ft.final_db_hash) r.matched_states++;
      else miss({ task: ft.id, kind: 'state', expected: ft.final_db_hash, actual: finalHash });

      for (const ea of ft.env_assertions_on_gold_final_state ?? []) {
        let returned: unknown;
        try {
          returned = env.runEnvFunctionCall(ea);
        } catch (e) {
          returned = `raised: ${(e as Error).message}`;
        }
        const met = returned === (ea.assert_value ?? true);
        if (returned !== ea.returned || met !== ea.met) miss({ task: ft.id, kind: 'env_assertion', expected: { returned: ea.returned, met: ea.met }, actual: { returned, met } });
      }

      if (ft.evaluator_crosscheck) {
        const history: Tau2Message[] = task.initial_state?.message_history ?? [];
        const traj = [...history, ...trajectoryFromCalls(ft.actions.map((a) => ({ id: a.action_id, name: a.name, arguments: a.arguments, requestor: a.requestor, result: a.result, error: a.error })))];
        const info = evaluateEnvironment(domain.makeEnv, task, traj);
        const actual = { db_match: info.db_check?.db_match ?? null, env_reward: info.reward };
        if (actual.db_match === ft.evaluator_crosscheck.db_match && actual.env_reward === ft.evaluator_crosscheck.env_reward) r.matched_crosschecks++;
        else miss({ task: ft.id, kind: 'crosscheck', expected: ft.evaluator_crosscheck, actual });
      }
    } catch (e) {
      miss({ task: ft.id, kind: 'exception', expected: 'no exception', actual: String((e as Error).stack ?? e) });
    }
  }
  return r;
}

/** `conformance tau2 --domain DIR --fixture F [--json] [--step-hashes]`; returns the exit code. */
export function tau2ConformanceCli(argv: string[]): number {
  const arg = (name: string) => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  // `--domain retail|mock` is shorthand for the shared data directory and its default fixture.
  const shortName = arg('--domain') ?? 'retail';
  const domainDir = existsSync(shortName) ? shortName : path.resolve(process.cwd(), '../shared/data/tau2', shortName);
  const fixture = arg('--fixture') ?? path.join(domainDir, 'fixtures',
    existsSync(path.join(domainDir, 'fixtures/gold_replay.train.fixture.json')) ? 'gold_replay.train.fixture.json' : 'gold_replay.fixture.json');
  if (!existsSync(path.join(domainDir, 'db.json')) || !existsSync(fixture)) {
    console.error('usage: conformance tau2 --domain DIR|retail|mock [--fixture FILE] [--json] [--step-hashes]');
    return 2;
  }
  const r = runTau2Conformance({ domainDir, fixture, stepHashes: argv.includes('--step-hashes') });
  if (argv.includes('--json')) {
    console.log(JSON.stringify({
      total_calls: r.total_calls, matched_results: r.matched_results, total_states: r.total_states, matched_states: r.matched_states,
      mismatches: r.mismatches,
      domain: r.domain, tasks: r.tasks, initial_hash_ok: r.initial_hash_ok,
      total_crosschecks: r.total_crosschecks, matched_crosschecks: r.matched_crosschecks,
      ...(r.total_step_states ? { total_step_states: r.total_step_states, matched_step_states: r.matched_step_states } : {}),
      mismatch_count: r.mismatch_count,
    }));
  } else {
    console.log(`τ² ${r.domain}: results ${r.matched_results}/${r.total_calls}, final states ${r.matched_states}/${r.total_states}, `
      + `evaluator cross-checks ${r.matched_crosschecks}/${r.total_crosschecks}, initial hash ${r.initial_hash_ok ? 'ok' : 'MISMATCH'}`);
    for (const m of r.mismatches) console.log(`  ${m.task} ${m.kind} ${m.action_id ?? ''}\n    expected: ${String(JSON.stringify(m.expected)).slice(0, 400)}\n    actual:   ${String(JSON.stringify(m.actual)).slice(0, 400)}`);
  }
  return r.mismatch_count === 0 ? 0 : 1;
}
