// Names that come from data (file names, record keys, argument names) must be looked up as own properties:
// 'constructor', 'toString', 'hasOwnProperty' and '__proto__' exist on every plain object's prototype chain,
// and an `in` test or a plain-object map once let an extra file or argument with such a name pass unseen
// (issue 21). Every test below fails with `k in obj` / `{}` in jsonDiff, plainTree or validateAt.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { getWorld, jsonDiff, replayReference, RestrictedEnv, type WorldTask } from '../../src/envs/worlds/index';
import { FS_TOOL_SCHEMAS, plainTree } from '../../src/envs/worlds/files/env';
import { PyDirectory, PyFile } from '../../src/envs/bfcl/backends/gorilla_file_system';
import { isErrorObservation } from '../../src/envs/judges';
import { validateArguments, validateCall } from '../../src/agent/protocol';
import type { Environment, JSONSchema } from '../../src/envs/types';

const PROTO_NAMES = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf', '__defineGetter__'];

/** An object with one own key `k` (a computed key, so '__proto__' is an own property, as JSON.parse makes it). */
const own = (k: string, v: unknown): Record<string, unknown> => ({ [k]: v });

const files = getWorld('files');
const FILES_TASKS: WorldTask[] = files.tasks({ count: 8 });

function fullPort(env: Environment): Environment {
  return env instanceof RestrictedEnv ? env.unwrap() : env;
}

describe('prototype names: jsonDiff compares own keys only', () => {
  it.each(PROTO_NAMES)('an extra or a missing key named %s is a difference', (k) => {
    const base = { a: 1, b: { c: 'x' } };
    expect(jsonDiff(base, { ...base, ...own(k, 1) })).toMatch(new RegExp(`\\$\\.${k}: unexpected`));
    expect(jsonDiff({ ...base, ...own(k, 1) }, base)).toMatch(new RegExp(`\\$\\.${k}: missing`));
    // nested, and with a value that happens to equal what the prototype holds under that name (a function is
    // not JSON, so a string stands in for a plain `{}`-shaped value)
    expect(jsonDiff({ b: {} }, { b: own(k, {}) })).toMatch(new RegExp(`\\$\\.b\\.${k}: unexpected`));
    expect(jsonDiff({ b: own(k, {}) }, { b: {} })).toMatch(new RegExp(`\\$\\.b\\.${k}: missing`));
    // equal own keys are still equal
    expect(jsonDiff({ ...base, ...own(k, [1]) }, JSON.parse(JSON.stringify({ ...base, ...own(k, [1]) })))).toBeNull();
  });

  it('property: adding any key (prototype names included) to any JSON object is a difference, either way round', () => {
    const key = fc.oneof(fc.constantFrom(...PROTO_NAMES), fc.string({ maxLength: 8 }));
    fc.assert(fc.property(fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 5 }), key, fc.jsonValue({ maxDepth: 1 }), (obj, k, v) => {
      fc.pre(!Object.hasOwn(obj, k));
      const plain = JSON.parse(JSON.stringify(obj)) as Record<string, unknown>;
      const more = { ...plain, ...own(k, v) };
      expect(jsonDiff(plain, more)).not.toBeNull();
      expect(jsonDiff(more, plain)).not.toBeNull();
      expect(jsonDiff(more, JSON.parse(JSON.stringify(more)))).toBeNull();
    }), { numRuns: 500, seed: 21 });
  });
});

describe('prototype names: plainTree keeps every file as an own entry', () => {
  it.each(PROTO_NAMES)('a file named %s is in the tree and in its JSON', (name) => {
    const root = new PyDirectory('workspace', null);
    root.contents.set('a.txt', new PyFile('a.txt', 'A'));
    root.contents.set(name, new PyFile(name, 'X'));
    const t = plainTree(root);
    expect(Object.keys(t)).toEqual(['a.txt', name]);
    expect(Object.hasOwn(t, name)).toBe(true);
    expect(JSON.parse(JSON.stringify(t))).toEqual(JSON.parse(`{"a.txt":{"type":"file","content":"A"},${JSON.stringify(name)}:{"type":"file","content":"X"}}`));
  });
});

describe('prototype names: files world verify', () => {
  it.each([...PROTO_NAMES, 'zz'])('the expert run plus a file named %s fails verify, naming the file', (name) => {
    for (const t of FILES_TASKS) {
      const env = replayReference(t).env;
      expect(t.verify(env).passed, `${t.id}: expert run`).toBe(true);
      const obs = fullPort(env).call('touch', { file_name: name });
      expect(isErrorObservation(obs), `${t.id}: touch ${name}: ${obs.text}`).toBe(false);
      const v = t.verify(env);
      expect(v.passed, `${t.id}: extra file ${name} verified`).toBe(false);
      expect(v.reason).toContain(`.${name}: unexpected`);
    }
  });

  it.each(PROTO_NAMES)('a folder named %s fails verify too', (name) => {
    const t = FILES_TASKS[0];
    const env = replayReference(t).env;
    expect(isErrorObservation(fullPort(env).call('mkdir', { dir_name: name }))).toBe(false);
    expect(t.verify(env).passed).toBe(false);
  });

  it('property: the expert run plus any extra file, or minus any entry, fails verify (generated names, prototype names included)', () => {
    const name = fc.oneof(fc.constantFrom(...PROTO_NAMES), fc.string({ minLength: 1, maxLength: 10 }), fc.stringMatching(/^[a-z_.]{1,8}$/));
    let extras = 0; let removals = 0;
    fc.assert(fc.property(fc.nat(FILES_TASKS.length - 1), name, fc.boolean(), fc.nat(), (ti, n, remove, pick) => {
      const t = FILES_TASKS[ti];
      const env = replayReference(t).env;
      const port = fullPort(env);
      if (remove) {
        const ls = JSON.parse(port.call('ls', { a: true }).text) as { current_directory_content: string[] };
        fc.pre(ls.current_directory_content.length > 0);
        const victim = ls.current_directory_content[pick % ls.current_directory_content.length];
        expect(isErrorObservation(port.call('rm', { file_name: victim })), `rm ${victim}`).toBe(false);
        removals++;
      } else {
        const obs = port.call('touch', { file_name: n });
        fc.pre(!isErrorObservation(obs)); // an invalid or existing name is refused by the file system itself
        extras++;
      }
      expect(t.verify(env).passed).toBe(false);
    }), { numRuns: 300, seed: 21 });
    // both halves really ran
    expect(extras).toBeGreaterThan(50);
    expect(removals).toBeGreaterThan(50);
  });
});

describe('prototype names: argument validation (validateAt)', () => {
  const schema = { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] };

  it.each(PROTO_NAMES)('an extra argument named %s is unexpected (strict), also when JSON.parse made it', (k) => {
    const args = JSON.parse(`{"a":"x",${JSON.stringify(k)}:1}`) as Record<string, unknown>;
    expect(Object.hasOwn(args, k)).toBe(true);
    const v = validateArguments(schema, args);
    expect(v.ok).toBe(false);
    expect(v.errors).toContain(`$: unexpected field '${k}'`);
    // the lenient mode still type-checks it against additionalProperties when given
    const typed = validateArguments({ ...schema, additionalProperties: { type: 'string' } }, args, { strict: false });
    expect(typed.errors).toContain(`$.${k}: expected string`);
  });

  it.each(PROTO_NAMES)('a missing required argument named %s is missing; a present one is type-checked', (k) => {
    const s: JSONSchema = { type: 'object', properties: own(k, { type: 'string' }) as Record<string, JSONSchema>, required: [k] };
    const missing = validateArguments(s, {});
    expect(missing.ok).toBe(false);
    expect(missing.errors).toContain(`$: missing required field '${k}'`);
    expect(validateArguments(s, JSON.parse(`{${JSON.stringify(k)}:"x"}`)).ok).toBe(true);
    expect(validateArguments(s, JSON.parse(`{${JSON.stringify(k)}:5}`)).errors).toContain(`$.${k}: expected string`);
  });

  it('validateCall answers INVALID_PARAMETERS for a real tool called with a prototype-named extra argument', () => {
    const touch = FS_TOOL_SCHEMAS.find((t) => t.name === 'touch')!;
    for (const k of PROTO_NAMES) {
      const args = JSON.parse(`{"file_name":"f.txt",${JSON.stringify(k)}:"x"}`);
      expect(validateCall({ name: 'touch', arguments: args }, [touch])?.code, k).toBe('INVALID_PARAMETERS');
    }
    expect(validateCall({ name: 'touch', arguments: { file_name: 'f.txt' } }, [touch])).toBeNull();
  });

  it('property: any key outside a strict schema is unexpected, any required key absent is missing', () => {
    const key = fc.oneof(fc.constantFrom(...PROTO_NAMES), fc.string({ maxLength: 8 }));
    fc.assert(fc.property(fc.uniqueArray(key, { maxLength: 4 }), key, (props, extra) => {
      fc.pre(!props.includes(extra));
      const properties = Object.fromEntries(props.map((p) => [p, { type: 'integer' }]));
      const s = { type: 'object', properties, required: props };
      const full = Object.fromEntries(props.map((p) => [p, 1]));
      expect(validateArguments(s, full).errors).toEqual([]);
      expect(validateArguments(s, { ...full, ...own(extra, 1) }).errors).toContain(`$: unexpected field '${extra}'`);
      for (const p of props) {
        const less = Object.fromEntries(props.filter((q) => q !== p).map((q) => [q, 1]));
        expect(validateArguments(s, less).errors).toContain(`$: missing required field '${p}'`);
      }
    }), { numRuns: 300, seed: 21 });
  });
});
