// Replay of VitaBench conformance fixtures (the shared format: index.json plus <domain>/<task>.json)
// against this port: every tool message, error flag and DB hash; every final state (canonical JSON,
// hash, old/new split); every judge window and prompt; every stub-judge reward.

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { parsePyJson, PyFloat, pyJsonDumps } from '../python';
import { sha256Hex } from '../sha256';
import type { VitaDomain } from './data_model';
import { VitaEnv } from './env';
import { evaluateTrajectory, type VitaMessage, type VitaRewardInfo } from './evaluator';
import { loadVitaData } from './fs';

export interface VitaConformanceReport {
  calls: number; calls_equal: number;
  states: number; states_equal: number;
  windows: number; windows_equal: number;
  rewards: number; rewards_equal: number;
  sequences: number; fixtures: number;
  mismatches: { file: string; sequence: number; what: string; expected?: unknown; actual?: unknown }[];
  mismatch_count: number;
}

const get = (o: unknown, k: string): unknown => (o instanceof Map ? o.get(k) : (o as Record<string, unknown> | null | undefined)?.[k]);

/** The reward info as the reference's model_dump() writes it (floats as floats). */
export function rewardInfoDump(r: VitaRewardInfo): unknown {
  return {
    reward: new PyFloat(r.reward),
    nl_rubrics: r.nl_rubrics,
    reward_breakdown: r.reward_breakdown ? { NL_ASSERTION: new PyFloat(r.reward_breakdown.NL_ASSERTION) } : null,
    info: r.info,
  };
}

const canon = (v: unknown) => pyJsonDumps(v, { sortKeys: true, ensureAscii: false });

/** Fixture files of a folder: <domain>/*.json for each domain folder present. */
export function fixtureFiles(dir: string): { domain: VitaDomain; file: string }[] {
  const out: { domain: VitaDomain; file: string }[] = [];
  for (const domain of ['delivery', 'instore'] as const) {
    const d = path.join(dir, domain);
    if (!existsSync(d)) continue;
    for (const f of readdirSync(d).filter((x) => x.endsWith('.json')).sort()) out.push({ domain, file: path.join(d, f) });
  }
  return out;
}

export async function runVitaConformance(opts: { fixtures: string; dataRoot?: string; maxMismatches?: number; filter?: (file: string) => boolean }): Promise<VitaConformanceReport> {
  const root = opts.dataRoot ?? path.dirname(path.resolve(opts.fixtures));
  const limit = opts.maxMismatches ?? 10;
  const r: VitaConformanceReport = { calls: 0, calls_equal: 0, states: 0, states_equal: 0, windows: 0, windows_equal: 0, rewards: 0, rewards_equal: 0, sequences: 0, fixtures: 0, mismatches: [], mismatch_count: 0 };
  const files = fixtureFiles(opts.fixtures).filter((f) => !opts.filter || opts.filter(f.file));
  for (const { domain, file } of files) {
    const fx = parsePyJson(readFileSync(file, 'utf8'));
    const data = loadVitaData(domain, root);
    const name = path.relative(opts.fixtures, file);
    r.fixtures++;
    const task = data.tasks.find((t) => t.id === get(fx, 'task_id'));
    const seqs = get(fx, 'sequences') as unknown[];
    const miss = (sequence: number, what: string, expected?: unknown, actual?: unknown) => {
      r.mismatch_count++;
      if (r.mismatches.length < limit) r.mismatches.push({ file: name, sequence, what, expected, actual });
    };
    for (const [si, seq] of seqs.entries()) {
      r.sequences++;
      const calls = get(seq, 'calls') as unknown[];
      const judge = get(get(seq, 'evaluation'), 'stub_judge');
      const fxWindows = (get(judge, 'windows') as unknown[] | undefined) ?? [];
      r.calls += calls.length;
      r.states++;
      r.windows += fxWindows.length;
      if (judge) r.rewards++;
      if (!task) { miss(si, `task ${String(get(fx, 'task_id'))} not in ${domain}/tasks_en.json`); continue; }
      try {
        const env = new VitaEnv(domain, task.environment, data.holidays);
        const initialOk = env.hash() === get(get(seq, 'initial'), 'db_sha256');
        if (!initialOk) miss(si, 'initial db_sha256', get(get(seq, 'initial'), 'db_sha256'), env.hash());
        const trajectory: VitaMessage[] = [{ role: 'assistant', content: 'Hello, how can I help you?' }];
        for (const c of calls) {
          const args = parsePyJson(get(c, 'arguments_json') as string);
          const id = `call_${String(get(c, 'i'))}`;
          const got = env.call({ id, name: get(c, 'name') as string, arguments: args });
          const exp = get(c, 'tool_message');
          const hash = env.hash();
          if (got.message.content === get(exp, 'content') && got.message.error === get(exp, 'error') && hash === get(c, 'db_sha256_after')) r.calls_equal++;
          else miss(si, `call ${id} ${String(get(c, 'name'))}`, { content: get(exp, 'content'), error: get(exp, 'error'), hash: get(c, 'db_sha256_after') }, { content: got.message.content, error: got.message.error, hash });
          trajectory.push({ role: 'assistant', content: null, tool_calls: [{ id, name: get(c, 'name') as string, arguments: args }] });
          trajectory.push({ role: 'tool', id, name: got.message.name, content: got.message.content, error: got.message.error });
        }
        const fin = get(seq, 'final');
        const stateOk = initialOk && env.canonicalJson() === get(fin, 'db_canonical_json') && env.hash() === get(fin, 'db_sha256')
          && env.statesSplitJson() === canon(get(fin, 'states_split'))
          && canon([...env.reg.locations.keys()]) === canon(get(fin, 'location_registry'))
          && canon(env.orderIdTimestamps.map((t) => new PyFloat(t))) === canon(get(fin, 'order_id_timestamps'));
        if (stateOk) r.states_equal++;
        else miss(si, 'final state', get(fin, 'db_sha256'), env.hash());
        if (!judge) continue;
        let k = 0;
        const reward = await evaluateTrajectory(task, trajectory, data.prompts.judge, (w) => {
          const fw = fxWindows[k++];
          const full = get(fw, 'system_prompt');
          const ok = fw !== undefined && get(fw, 'window_idx') === w.window_idx && get(fw, 'start_idx') === w.start_idx
            && sha256Hex(w.system_prompt) === get(fw, 'system_prompt_sha256') && sha256Hex(w.user_prompt) === get(fw, 'user_prompt_sha256')
            && (full === undefined || (full === w.system_prompt && get(fw, 'user_prompt') === w.user_prompt));
          if (ok) r.windows_equal++;
          else miss(si, `judge window ${w.window_idx}`, fw === undefined ? 'no such window' : { start_idx: get(fw, 'start_idx') }, { start_idx: w.start_idx, user_prompt: w.user_prompt.slice(0, 400) });
          return fw === undefined ? null : (get(fw, 'stub_response') as string);
        });
        if (k !== fxWindows.length) miss(si, 'judge window count', fxWindows.length, k);
        if (canon(rewardInfoDump(reward)) === canon(get(judge, 'reward_info'))) r.rewards_equal++;
        else miss(si, 'stub-judge reward_info', get(judge, 'reward_info'), rewardInfoDump(reward));
      } catch (e) {
        miss(si, 'exception', 'no exception', String((e as Error).stack ?? e));
      }
    }
  }
  return r;
}
