// Fuzz surfaces of tool arguments: every tool of every BFCL class, of the τ² retail and mock domains, and of
// the built-in worlds, called with arguments built from its JSON schema and then damaged (a required key
// missing, a value of the wrong type, nasty strings, extra keys, arguments that are not an object, an
// unknown tool name). Environments answer with an error observation; a throw out of env.call is a crash.

import { resolve } from 'node:path';
import { BfclEnvironment } from '../../envs/bfcl/env';
import { loadAllBackends } from '../../envs/bfcl/index';
import { loadCategory, loadFuncDocs } from '../../envs/bfcl/loader';
import { loadTau2Domain } from '../../envs/tau2/fs';
import { getWorld } from '../../envs/worlds/index';
import type { Environment, JSONSchema, Observation } from '../../envs/types';
import { FuzzRng, NASTY_STRINGS, randomKey, randomString, randomValue, setOwn } from './gen';
import type { Surface } from './harness';
import { messageKey } from './agent';

/** Benchmark data is read where every test reads it: ../shared/data from the repository root. */
export const DATA_DIR = resolve(process.cwd(), '../shared/data');

function valueFor(r: FuzzRng, s: JSONSchema | undefined, depth = 0): unknown {
  if (!s || depth > 4) return randomValue(r, 1);
  if (Array.isArray(s.enum) && s.enum.length && r.bool(0.8)) return r.pick(s.enum);
  const type = Array.isArray(s.type) ? r.pick(s.type) : s.type;
  switch (type) {
    case 'string': return r.bool(0.7) ? randomString(r, 12) : r.pick(NASTY_STRINGS);
    case 'integer': return r.pick([0, 1, -1, 2, 100, r.int(1e6), 2 ** 31, -(2 ** 53)]);
    case 'number': return r.pick([0, 0.5, -1.25, 1e308, r.next() * 1000, 3]);
    case 'boolean': return r.bool();
    case 'array': return Array.from({ length: r.int(4) }, () => valueFor(r, s.items, depth + 1));
    case 'object': {
      const o: Record<string, unknown> = {}; // plain: tool arguments as JSON.parse gives them, keys set by setOwn
      for (const [k, p] of Object.entries(s.properties ?? {})) if (r.bool(0.8)) setOwn(o, k, valueFor(r, p, depth + 1));
      return o;
    }
    default: return randomValue(r, 2);
  }
}

/** Schema-shaped arguments, then zero to three damages. */
export function fuzzArguments(r: FuzzRng, schema: JSONSchema): unknown {
  if (r.bool(0.05)) return r.pick([null, [], 'x', 7, true, [randomValue(r, 1)], undefined]);
  const args = valueFor(r, { ...schema, type: 'object' }) as Record<string, unknown>;
  for (const k of schema.required ?? []) if (!Object.hasOwn(args, k) && r.bool(0.9)) setOwn(args, k, valueFor(r, schema.properties?.[k]));
  for (let i = r.int(4); i > 0; i--) {
    const keys = Object.keys(args);
    switch (r.int(4)) {
      case 0: if (keys.length) delete args[r.pick(keys)]; break;
      case 1: if (keys.length) setOwn(args, r.pick(keys), randomValue(r, 2)); break;
      case 2: setOwn(args, randomKey(r), randomValue(r, 2)); break;
      default: if (keys.length) setOwn(args, r.pick(keys), r.pick(NASTY_STRINGS));
    }
  }
  return args;
}

/** Outcome code of an observation: 'ok', the error_tool_call code, or a normalised error text. */
export function observationCode(o: Observation): string {
  if (typeof o?.text !== 'string' || typeof o.error !== 'boolean') throw new Error(`env.call returned a malformed observation: ${JSON.stringify(o)}`);
  const t = o.text.trimStart();
  if (t.startsWith('{')) {
    try {
      const v = JSON.parse(t) as Record<string, unknown>;
      const etc = v?.error_tool_call as { code?: string } | undefined;
      if (etc?.code) return etc.code;
      if (typeof v?.error === 'string') return `error:${messageKey(v.error).slice(0, 32)}`;
    } catch { /* plain text */ }
  }
  if (o.error || /^error\b/i.test(t)) return `error:${messageKey(t.replace(/^error( during execution)?:\s*/i, '')).slice(0, 32)}`;
  return 'ok';
}

interface Pool { make: () => Environment[]; envs: Environment[]; used: number }

function toolSurface(name: string, about: string, make: () => Environment[]): Surface<{ env: number; tool: string; args: unknown }> {
  const pool: Pool = { make, envs: [], used: 0 };
  return {
    name,
    about,
    setup: async () => { await loadAllBackends(); pool.envs = make(); },
    generate(r) {
      // Fresh environments now and then, so damaged state does not accumulate for the whole run.
      if (++pool.used % 500 === 0) pool.envs = pool.make();
      const env = r.int(pool.envs.length);
      const tools = pool.envs[env].tools();
      if (r.bool(0.03) || !tools.length) return { env, tool: r.bool() ? randomString(r, 12) : r.pick(NASTY_STRINGS), args: {} };
      const t = r.pick(tools);
      return { env, tool: t.name, args: fuzzArguments(r, t.parameters) };
    },
    run({ env, tool, args }) { return observationCode(pool.envs[env].call(tool, args)); },
    show: (x) => JSON.stringify(x, (_k, v) => (v === undefined ? '<undefined>' : v)).slice(0, 400),
  };
}

function bfclEnvs(): Environment[] {
  const dir = `${DATA_DIR}/bfcl`;
  const items = loadCategory(`${dir}/BFCL_v4_multi_turn_base.json`, `${dir}/possible_answer/BFCL_v4_multi_turn_base.json`);
  const docs = loadFuncDocs(`${dir}/multi_turn_func_doc`);
  // One entry per class (its real initial config), so every class's tools are reached.
  const byClass = new Map<string, (typeof items)[number]['question']>();
  for (const { question } of items) for (const c of question.involved_classes) if (!byClass.has(c)) byClass.set(c, question);
  return [...byClass.values()].map((q) => new BfclEnvironment(q, { funcDocs: docs }));
}

export const bfclToolSurface = toolSurface('tools-bfcl',
  'arguments for every tool of the 8 BFCL classes (BfclEnvironment.call; errors are observations, any throw is a crash)', bfclEnvs);

export const tau2ToolSurface = toolSurface('tools-tau2',
  'arguments for every τ² retail and mock tool (errors are observations, any throw is a crash)',
  () => [loadTau2Domain(`${DATA_DIR}/tau2/retail`).makeEnv(), loadTau2Domain(`${DATA_DIR}/tau2/mock`).makeEnv()]);

export const builtinToolSurface = toolSurface('tools-builtin',
  'arguments for every tool of the built-in retail and files worlds (errors are observations, any throw is a crash)',
  () => [...getWorld('retail').tasks({ count: 3 }), ...getWorld('files').tasks({ count: 3 })].map((t) => {
    const env = t.makeEnv() as Environment & { unwrap?: () => Environment };
    // the full port behind the task's restricted list, so every world tool is reached
    return env.unwrap ? env.unwrap() : env;
  }));
