import { resolve } from 'node:path';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadAllBackends } from '../../src/envs/bfcl/index';
import { BfclEnvironment } from '../../src/envs/bfcl/env';
import { loadCategory, loadFuncDocs } from '../../src/envs/bfcl/loader';
import { parseJsonToolCall, parsePythonCall } from '../../src/envs/bfcl/parser';
import type { Observation } from '../../src/envs/types';

const DATA = resolve(process.cwd(), '../shared/data/bfcl');
const CODES = ['NO_TOOL_CALL_FOUND', 'JSON_DECODE_ERROR', 'NO_ARGUMENTS', 'INVALID_TOOL_NAME', 'NON_SERIALIZABLE_ARGUMENTS',
  'INVALID_TOOL_CALL_FORMAT', 'TOOL_NOT_AVAILABLE', 'INVALID_PARAMETERS', 'TOOL_EXECUTION_ERROR'];

function expectObservation(o: Observation): void {
  expect(typeof o.text).toBe('string');
  expect(typeof o.error).toBe('boolean');
}

/** Agent-facing errors come in the one shared shape. */
function expectStructuredIfError(o: Observation): void {
  expectObservation(o);
  if (!o.error) return;
  const e = JSON.parse(o.text).error_tool_call;
  expect(CODES).toContain(e.code);
  expect(typeof e.message).toBe('string');
  expect('details' in e).toBe(true);
}

const anyJson = fc.jsonValue({ maxDepth: 3 });

describe('BFCL environment never throws', () => {
  let envs: BfclEnvironment[];
  let methods: string[];
  beforeAll(async () => {
    const registered = await loadAllBackends();
    const docs = loadFuncDocs(`${DATA}/multi_turn_func_doc`);
    const all = loadCategory(`${DATA}/BFCL_v4_multi_turn_base.json`, `${DATA}/possible_answer/BFCL_v4_multi_turn_base.json`)
      .filter(({ question }) => question.involved_classes.every((c) => registered.includes(c)));
    const picks = [0, 1, 2, 5, 30, 60, 100, 150, 199].map((i) => all[i % all.length]);
    envs = picks.map(({ question }) => new BfclEnvironment({ ...question, involved_classes: [...question.involved_classes, ...(question.involved_classes.includes('MathAPI') ? [] : ['MathAPI'])] }, { funcDocs: docs }));
    methods = [...new Set(envs.flatMap((e) => e.tools().map((t) => t.name)))];
  });

  it('call(): random names and random JSON arguments', () => {
    const name = fc.oneof(fc.constantFrom(...methods), fc.string(), fc.constantFrom('kill', 'exit', '__proto__', 'constructor', '', 'toString'));
    const args = fc.oneof(
      anyJson,
      fc.dictionary(fc.constantFrom('folder', 'file_name', 'numbers', 'value', 'base', 'precision', 'a', 'b', 'tweet_id', 'content', 'x', '__proto__'), anyJson),
      fc.string(),
    );
    fc.assert(fc.property(fc.nat(envs.length - 1), name, args, (i, n, a) => {
      const env = envs[i];
      let o!: Observation;
      expect(() => { o = env.call(n, a); }).not.toThrow();
      expectStructuredIfError(o);
    }), { numRuns: 1500 });
  });

  it('call(): schema-valid-looking calls on real tools never throw either', () => {
    const arb = fc.record({ i: fc.nat(), method: fc.constantFrom(...methods), vals: fc.array(fc.oneof(fc.string(), fc.integer(), fc.double(), fc.boolean(), fc.array(fc.integer())), { minLength: 4, maxLength: 4 }) });
    fc.assert(fc.property(arb, ({ i, method, vals }) => {
      const env = envs[i % envs.length];
      const tool = env.tools().find((t) => t.name === method);
      const props = Object.keys(tool?.parameters.properties ?? {});
      const a = Object.fromEntries(props.map((p, k) => [p, vals[k % vals.length]]));
      expectStructuredIfError(env.call(method, a));
    }), { numRuns: 1500 });
  });

  it('callPython() and execPython(): garbage strings', () => {
    const garbage = fc.oneof(
      fc.string(),
      fc.string({ unit: fc.constantFrom(...'()[]{}\'",=.-_0123456789abc TrueNone\\'.split('')) }),
      fc.tuple(fc.constantFrom(...methods), fc.string()).map(([m, s]) => `${m}(${s})`),
      fc.tuple(fc.constantFrom(...methods), anyJson).map(([m, v]) => `${m}(${JSON.stringify(v)})`),
      fc.constantFrom('kill()', 'exit(0)', 'os.remove("x")', "a.b.run()", 'cd(folder=document)', 'ls(a=True', 'mean(numbers=[1,'),
    );
    fc.assert(fc.property(fc.nat(envs.length - 1), garbage, (i, s) => {
      const env = envs[i];
      let o!: Observation;
      expect(() => { o = env.callPython(s); }).not.toThrow();
      expectStructuredIfError(o);
      let b!: Observation;
      expect(() => { b = env.execPython(s); }).not.toThrow();
      expectObservation(b);
      // BFCL-compat mode reports failures the way BFCL does
      expect(b.error).toBe(b.text.startsWith('Error during execution: '));
    }), { numRuns: 2000 });
  });

  it('parsers never throw', () => {
    fc.assert(fc.property(fc.oneof(fc.string(), anyJson.map((v) => JSON.stringify(v)), fc.anything() as fc.Arbitrary<unknown>), (s) => {
      expect(() => parsePythonCall(s as string)).not.toThrow();
      expect(() => parseJsonToolCall(s as string)).not.toThrow();
    }), { numRuns: 2000 });
  });

  it('snapshot() stays JSON-serialisable and clone() stays independent under random calls', () => {
    fc.assert(fc.property(fc.nat(envs.length - 1), fc.array(fc.tuple(fc.constantFrom(...methods), anyJson), { maxLength: 6 }), (i, calls) => {
      const env = envs[i].clone();
      const before = envs[i].stateJson();
      for (const [m, a] of calls) env.call(m, a);
      expect(() => JSON.stringify(env.snapshot())).not.toThrow();
      expect(envs[i].stateJson()).toBe(before);
    }), { numRuns: 300 });
  });
});
