// `npm run envs -- call`: the --tool/--args/--calls JSON a user types, checked and run on a task's initial
// environment. Pure (no printing, no exit) so the fuzzer can drive it (src/bench/fuzz/envs-call.ts).

import { getWorld } from '../envs/worlds/index';
import type { Observation } from '../envs/types';
import { CliArgsError, usage, type CliValues } from './args';
import { ENVS_CALL_CLI } from './defs';

export type CallArgs = CliValues<typeof ENVS_CALL_CLI.options>;
/** The options callsOf/runCalls read (CallArgs fits). */
export interface CallOptions { world: string; seed: number; tool?: string; args?: string; calls?: string }
export interface CliCall { name: string; arguments?: unknown }

/** The calls of `envs call`, or a CliArgsError listing what is wrong with --tool/--args/--calls. */
export function callsOf(opts: Pick<CallOptions, 'tool' | 'args' | 'calls'>): CliCall[] {
  const problems: string[] = [];
  const json = (flag: string, text: string): unknown => {
    try { return JSON.parse(text); } catch (e) { problems.push(`--${flag} is not JSON: ${(e as Error).message}`); return undefined; }
  };
  let calls: CliCall[] = [];
  if (opts.calls !== undefined) {
    if (opts.tool !== undefined || opts.args !== undefined) problems.push('--calls excludes --tool and --args');
    const v = json('calls', opts.calls);
    if (v !== undefined) {
      if (!Array.isArray(v) || !v.every((c) => typeof c === 'object' && c !== null && !Array.isArray(c) && typeof (c as { name?: unknown }).name === 'string')) {
        problems.push('--calls must be a JSON list of {"name": …, "arguments": {…}}');
      } else calls = v as CliCall[];
    }
  } else if (opts.tool === undefined) problems.push('need --tool NAME (or --calls)');
  else calls = [{ name: opts.tool, arguments: opts.args === undefined ? {} : json('args', opts.args) }];
  if (problems.length) throw new CliArgsError(problems, usage(ENVS_CALL_CLI));
  return calls;
}

/** Runs the calls in order on one fresh environment of the task; one observation per call. */
export function runCalls(opts: CallOptions): { call: CliCall; observation: Observation }[] {
  const calls = callsOf(opts);
  const env = getWorld(opts.world).task(opts.seed).makeEnv();
  return calls.map((c) => ({ call: c, observation: env.call(c.name, c.arguments ?? {}) }));
}
