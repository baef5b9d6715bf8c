// The Act/Rehearse protocol's details (src/agent/protocol.ts) beyond protocol.test.ts's codes and fuzzing: the
// exact error messages and details a model is shown, the think/block scanners, the bounds (nesting 64, preview 200
// characters, lone surrogates, non-finite numbers), each JSON-schema keyword of the validator with its message,
// and the formatters — so a changed bound, branch or text fails a test here (StrykerJS: `npm run mutation`).
import { describe, expect, it } from 'vitest';
import {
  actMessage, ALL_ERROR_CODES, blocks, callJson, canonicalJson, errorText, formatAct, formatRehearse, leadingThink, parseAct, parseRehearse,
  resultError, stripThink, toolError, toResultJson, validateArguments, validateCall,
} from '../../src/agent/protocol';
import type { JSONSchema, ToolSchema } from '../../src/envs/types';

const block = (body: string) => `\n<tool_call>\n${body}\n</tool_call>`;
const result = (body: string) => `\n<execution_result>\n${body}\n</execution_result>`;
const nest = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;

describe('errors', () => {
  it('one wire shape; details only when given', () => {
    expect(toolError('NO_ARGUMENTS', 'm')).toEqual({ code: 'NO_ARGUMENTS', message: 'm' });
    expect(Object.hasOwn(toolError('NO_ARGUMENTS', 'm'), 'details')).toBe(false);
    expect(toolError('NO_ARGUMENTS', 'm', null)).toEqual({ code: 'NO_ARGUMENTS', message: 'm', details: null });
    expect(errorText({ code: 'TOOL_NOT_AVAILABLE', message: 'no' })).toBe('{"error_tool_call":{"code":"TOOL_NOT_AVAILABLE","message":"no","details":null}}');
    expect(errorText({ code: 'TOOL_NOT_AVAILABLE', message: 'no', details: { a: 1 } })).toBe('{"error_tool_call":{"code":"TOOL_NOT_AVAILABLE","message":"no","details":{"a":1}}}');
    expect(ALL_ERROR_CODES).toHaveLength(14);
    expect(ALL_ERROR_CODES[ALL_ERROR_CODES.length - 1]).toBe('TOOL_EXECUTION_ERROR');
  });
});

describe('think and block scanners', () => {
  it('leadingThink: only a closed think block at the start, after whitespace', () => {
    expect(leadingThink('  \n<think>a</think>rest')).toEqual({ think: 'a', rest: 'rest' });
    expect(leadingThink('<think></think>')).toEqual({ think: '', rest: '' });
    expect(leadingThink('<think>a</think>b</think>c')).toEqual({ think: 'a', rest: 'b</think>c' });
    expect(leadingThink('x<think>a</think>')).toEqual({ rest: 'x<think>a</think>' });
    expect(leadingThink('  <think>open')).toEqual({ rest: '  <think>open' });
    expect(leadingThink('<think>')).toEqual({ rest: '<think>' });
  });

  it('stripThink removes every closed block and keeps an unclosed one', () => {
    expect(stripThink('a<think>1</think>b<think>2</think>c')).toBe('abc');
    expect(stripThink('a<think>1</think>b<think>open')).toBe('ab<think>open');
    expect(stripThink('<think></think>')).toBe('');
    expect(stripThink('no think')).toBe('no think');
    expect(stripThink('</think><think>x</think>')).toBe('</think>');
  });

  it('blocks: every open…close body in order, leftmost-shortest; an unclosed last one is dropped', () => {
    expect(blocks('[a] [b] [c', '[', ']')).toEqual(['a', 'b']);
    expect(blocks('[a[b]c]', '[', ']')).toEqual(['a[b']);
    expect(blocks('<<>>', '<<', '>>')).toEqual(['']);
    expect(blocks('<<>>>', '<<', '>>')).toEqual(['']);
    expect(blocks('<<x>><<y>>', '<<', '>>')).toEqual(['x', 'y']);
    expect(blocks('none', '<<', '>>')).toEqual([]);
  });
});

describe('parseAct', () => {
  it('a reply keeps its text; after a think block one leading newline goes', () => {
    expect(parseAct('hi\n')).toEqual({ ok: true, kind: 'reply', think: undefined, content: 'hi\n' });
    expect(parseAct('<think>t</think>\n\nhi')).toEqual({ ok: true, kind: 'reply', think: 't', content: '\nhi' });
    expect(parseAct('<think>t</think>hi')).toEqual({ ok: true, kind: 'reply', think: 't', content: 'hi' });
    expect(parseAct(' x <think>t</think>')).toEqual({ ok: true, kind: 'reply', think: undefined, content: ' x <think>t</think>' });
    expect(parseAct(undefined as unknown as string)).toEqual({ ok: true, kind: 'reply', think: undefined, content: '' });
  });

  it('calls: the visible text before the first block is the content', () => {
    expect(parseAct(`Let me look.${block('{"name":"get","arguments":{}}')}`)).toEqual({ ok: true, kind: 'calls', think: undefined, content: 'Let me look.', calls: [{ name: 'get', arguments: {} }] });
    expect(parseAct(`<think>t</think>\nLook.${block('{"name":" get ","arguments":{"a":1}}')}`)).toEqual({ ok: true, kind: 'calls', think: 't', content: 'Look.', calls: [{ name: 'get', arguments: { a: 1 } }] });
    expect(parseAct(`<think>t</think>${block('{"name":"get","arguments":{}}')}`)).toMatchObject({ ok: true, think: 't', content: '' });
  });

  it('no well-formed block: NO_TOOL_CALL_FOUND with the first 200 characters', () => {
    const text = `<tool_call>${'x'.repeat(300)}`;
    const p = parseAct(text);
    expect(p).toEqual({ ok: false, think: undefined, content: text, error: {
      code: 'NO_TOOL_CALL_FOUND', message: 'No tool call found. Expected "\\n<tool_call>\\n{"name": ..., "arguments": {...}}\\n</tool_call>".', details: { raw_preview: text.slice(0, 200) },
    } });
    // the content stops at the first well-formed opening even when no block closes
    const q = parseAct(`<think>t</think>\nsay${'\n<tool_call>\n'}{"name":"x"`);
    expect(q).toMatchObject({ ok: false, think: 't', content: 'say', error: { code: 'NO_TOOL_CALL_FOUND' } });
  });

  it('JSON, empty list, arguments and name errors carry their message and details', () => {
    const bad = parseAct(block(' {"name": '));
    expect(!bad.ok && bad.error.message).toBe('A tool call is not valid JSON.');
    expect(!bad.ok && (bad.error.details as { raw_preview: string }).raw_preview).toBe('{"name":');
    expect(!bad.ok && typeof (bad.error.details as { error: string }).error).toBe('string');
    expect(parseAct(block('[]'))).toMatchObject({ ok: false, error: { code: 'NO_TOOL_CALL_FOUND', message: 'A tool call block holds an empty list.', details: { raw_preview: '[]' } } });
    expect(parseAct(block('{"name":"x"}'))).toMatchObject({ ok: false, error: { code: 'NO_ARGUMENTS', message: 'No arguments found in a tool call. Use {} when there are none.', details: { raw_preview: '{"name":"x"}' } } });
    expect(parseAct(block('{"name":"x","arguments":[1]}'))).toMatchObject({ ok: false, error: { code: 'NO_ARGUMENTS', message: 'Tool call arguments must be a JSON object.', details: { got_type: 'array' } } });
    expect(parseAct(block('{"name":"x","arguments":3}'))).toMatchObject({ error: { details: { got_type: 'number' } } });
    expect(parseAct(block('{"name":"x","arguments":"[1]"}'))).toMatchObject({ error: { code: 'NO_ARGUMENTS', details: { got_type: 'string' } } });
    expect(parseAct(block('{"name":"x","arguments":"{bad"}'))).toMatchObject({ error: { code: 'NO_ARGUMENTS', details: { got_type: 'string' } } });
    expect(parseAct(block('{"arguments":{}}'))).toMatchObject({ ok: false, error: { code: 'INVALID_TOOL_NAME', message: 'A tool call has no valid name.', details: { raw_name: null } } });
    expect(parseAct(block('{"name":12,"arguments":{}}'))).toMatchObject({ error: { code: 'INVALID_TOOL_NAME', details: { raw_name: '12' } } });
    expect(parseAct(block('{"name":"","arguments":{}}'))).toMatchObject({ error: { code: 'INVALID_TOOL_NAME', details: { raw_name: '' } } });
    expect(parseAct(block('{"name":"a\\ud800","arguments":{}}'))).toMatchObject({ error: { code: 'INVALID_TOOL_NAME', message: 'A tool call has no valid name.', details: { raw_name: 'non-UTF-8 name' } } });
    expect(parseAct(block('{"name":"a\\ud83d\\ude00","arguments":{}}'))).toMatchObject({ ok: true, calls: [{ name: 'a😀' }] });
    const long = `{"name":"x","arguments":{"a":"${'y'.repeat(300)}"}`;
    expect(parseAct(block(long))).toMatchObject({ error: { code: 'JSON_DECODE_ERROR', details: { raw_preview: long.slice(0, 200) } } });
  });

  it('"parameters" wins over "arguments" unless it is null', () => {
    expect(parseAct(block('{"name":"x","parameters":{"p":1},"arguments":{"a":1}}'))).toMatchObject({ ok: true, calls: [{ name: 'x', arguments: { p: 1 } }] });
    expect(parseAct(block('{"name":"x","parameters":null,"arguments":{"a":1}}'))).toMatchObject({ ok: true, calls: [{ name: 'x', arguments: { a: 1 } }] });
  });

  it('unserialisable arguments: the reason for each bound', () => {
    const reason = (args: string) => { const p = parseAct(block(`{"name":"x","arguments":${args}}`)); return p.ok ? 'ok' : `${p.error.code}: ${p.error.message} ${(p.error.details as { error?: string })?.error}`; };
    const msg = 'NON_SERIALIZABLE_ARGUMENTS: Tool call arguments cannot be serialised.';
    expect(reason(`{"a":${nest(64)}}`)).toBe('ok'); // 64 levels below the arguments object
    expect(reason(`{"a":${nest(65)}}`)).toBe(`${msg} nesting deeper than 64`);
    expect(reason(`{"a":{"b":${nest(63)}}}`)).toBe('ok');
    expect(reason(`{"a":{"b":${nest(64)}}}`)).toBe(`${msg} nesting deeper than 64`);
    expect(reason('{"a":"\\udc00"}')).toBe(`${msg} string contains a lone UTF-16 surrogate`);
    expect(reason('{"\\ud800":1}')).toBe(`${msg} string contains a lone UTF-16 surrogate`);
    expect(reason('{"a":[{"b":"x\\ud800y"}]}')).toBe(`${msg} string contains a lone UTF-16 surrogate`);
    expect(reason('{"a":"\\ud83d\\ude00"}')).toBe('ok');
    expect(reason('{"a":[1,{"b":-1e999}]}')).toBe(`${msg} number out of range (would serialise as null)`);
    expect(reason('{"a":[1,{"b":1e308}]}')).toBe('ok');
  });
});

describe('parseRehearse', () => {
  it('messages and details of each failure', () => {
    expect(parseRehearse('<think>t</think>  ')).toEqual({ ok: false, think: 't', error: { code: 'EMPTY_SIMULATOR_OUTPUT', message: 'Empty simulator output.', details: { expected: '<execution_result>...</execution_result>' } } });
    expect(parseRehearse(undefined as unknown as string)).toMatchObject({ ok: false, error: { code: 'EMPTY_SIMULATOR_OUTPUT' } });
    const long = 'z'.repeat(300);
    expect(parseRehearse(long)).toEqual({ ok: false, think: undefined, error: { code: 'NO_EXECUTION_RESULT_TAG_FOUND', message: "No '<execution_result>' tag found in simulator output.", details: { raw_preview: long.slice(0, 200) } } });
    expect(parseRehearse(`<execution_result>{}</execution_result>${long}`)).toMatchObject({ error: { code: 'EXECUTION_RESULT_TAG_MALFORMED', message: "'<execution_result>' found but the \\n boundary or the closing tag is missing.", details: { raw_preview: `<execution_result>{}</execution_result>${long}`.slice(0, 200) } } });
    const bad = parseRehearse(result(' {"a": '));
    expect(bad).toMatchObject({ ok: false, error: { code: 'SIMULATOR_JSON_DECODE_ERROR', message: 'The execution result is not valid JSON.', details: { raw_preview: '{"a":' } } });
    expect(typeof (!bad.ok && (bad.error.details as { error: unknown }).error)).toBe('string');
    expect(parseRehearse(result('{"a":{"b":[1,-1e999]}}'))).toMatchObject({ error: { code: 'SIMULATOR_JSON_DECODE_ERROR', message: 'The execution result holds a number out of range.', details: { raw_preview: '{"a":{"b":[1,-1e999]}}' } } });
    // Past a million values too: the walk had a node cap, and a 1e999 beyond it was accepted and serialised as null.
    const huge = `[1e999${',0'.repeat(1_000_001)}]`;
    expect(parseRehearse(result(huge))).toMatchObject({ ok: false, error: { code: 'SIMULATOR_JSON_DECODE_ERROR', message: 'The execution result holds a number out of range.' } });
  });

  it('the value must be a non-empty object or an array, nested at most 64 deep', () => {
    const type = (body: string) => { const p = parseRehearse(result(body)); return p.ok ? 'ok' : (p.error.details as { got_type: string }).got_type; };
    expect(type('null')).toBe('null');
    expect(type('{}')).toBe('object');
    expect(type('"s"')).toBe('string');
    expect(type('1')).toBe('number');
    expect(type('true')).toBe('boolean');
    expect(type('[]')).toBe('ok');
    expect(type(nest(65))).toBe('ok');
    expect(type(nest(66))).toBe('deep');
    expect(parseRehearse(result(nest(66)))).toMatchObject({ error: { code: 'INVALID_EXECUTION_RESULT_TYPE', message: 'The execution result nests deeper than 64.' } });
    expect(parseRehearse(result('{}'))).toMatchObject({ error: { code: 'INVALID_EXECUTION_RESULT_TYPE', message: 'The execution result must be a non-empty object or an array.' } });
  });

  it('reads the first block only, with think blocks anywhere removed, and re-serialises it', () => {
    expect(parseRehearse(`<think>a</think>${result('{ "a" : 1 }')}${result('{"b":2}')}`)).toEqual({ ok: true, think: 'a', value: { a: 1 }, text: '{"a":1}' });
    expect(parseRehearse(`x<think>${result('{"hidden":1}')}</think>${result('{"b":2}')}`)).toEqual({ ok: true, think: undefined, value: { b: 2 }, text: '{"b":2}' });
  });
});

describe('resultError', () => {
  it('reads the error verdict from a value or its text; anything else is no error', () => {
    expect(resultError({ error_tool_call: { code: 'INVALID_PARAMETERS', message: 'bad', details: { x: 1 } } })).toEqual({ code: 'INVALID_PARAMETERS', message: 'bad', details: { x: 1 } });
    expect(resultError('{"error_tool_call":{"code":"NOT_A_CODE","message":"m"}}')).toEqual({ code: 'TOOL_EXECUTION_ERROR', message: 'm' });
    expect(resultError({ error_tool_call: { code: 7, message: 42 } })).toEqual({ code: 'TOOL_EXECUTION_ERROR', message: '42' });
    expect(resultError({ error_tool_call: { code: 'TOOL_NOT_AVAILABLE' } })).toEqual({ code: 'TOOL_NOT_AVAILABLE', message: '' });
    expect(resultError({ error_tool_call: { code: 'TOOL_NOT_AVAILABLE', message: null, details: null } })).toEqual({ code: 'TOOL_NOT_AVAILABLE', message: '' });
    expect(resultError({ error_tool_call: 'bare' })).toEqual({ code: 'TOOL_EXECUTION_ERROR', message: 'bare' });
    expect(resultError({ error_tool_call: [1, 2] })).toEqual({ code: 'TOOL_EXECUTION_ERROR', message: '[1,2]' });
    expect(resultError({ error_tool_call: null })).toEqual({ code: 'TOOL_EXECUTION_ERROR', message: 'null' });
    expect(resultError({ error_tool_call: undefined })).toEqual({ code: 'TOOL_EXECUTION_ERROR', message: '' });
    for (const v of [null, 'null', '[{"error_tool_call":1}]', [{ error_tool_call: 1 }], { error: 'x' }, 3, '"error_tool_call"', 'Error: x']) expect(resultError(v)).toBeNull();
  });
});

describe('validateArguments: each keyword and its message', () => {
  const v = (schema: JSONSchema, args: unknown, strict?: boolean) => validateArguments(schema, args, strict === undefined ? {} : { strict }).errors;
  const one = (prop: JSONSchema, value: unknown) => v({ type: 'object', properties: { a: prop } }, { a: value });

  it('types (number means finite, integer means whole, object means not an array or null)', () => {
    expect(one({ type: 'string' }, 's')).toEqual([]);
    expect(one({ type: 'string' }, 1)).toEqual(['$.a: expected string']);
    expect(one({ type: 'number' }, 1.5)).toEqual([]);
    expect(one({ type: 'number' }, Number.NaN)).toEqual(['$.a: expected number']);
    expect(one({ type: 'number' }, Infinity)).toEqual(['$.a: expected number']);
    expect(one({ type: 'number' }, '1')).toEqual(['$.a: expected number']);
    expect(one({ type: 'integer' }, 2)).toEqual([]);
    expect(one({ type: 'integer' }, 2.5)).toEqual(['$.a: expected integer']);
    expect(one({ type: 'integer' }, '2')).toEqual(['$.a: expected integer']);
    expect(one({ type: 'boolean' }, false)).toEqual([]);
    expect(one({ type: 'boolean' }, 0)).toEqual(['$.a: expected boolean']);
    expect(one({ type: 'null' }, null)).toEqual([]);
    expect(one({ type: 'null' }, 0)).toEqual(['$.a: expected null']);
    expect(one({ type: 'object' }, {})).toEqual([]);
    expect(one({ type: 'object' }, [])).toEqual(['$.a: expected object']);
    expect(one({ type: 'object' }, null)).toEqual(['$.a: expected object']);
    expect(one({ type: 'array' }, [])).toEqual([]);
    expect(one({ type: 'array' }, {})).toEqual(['$.a: expected array']);
    expect(one({ type: 'whatever' as 'string' }, 1)).toEqual([]);
    expect(one({ type: ['string', 'null'] }, null)).toEqual([]);
    expect(one({ type: ['string', 'null'] }, 1)).toEqual(['$.a: expected string|null']);
    // a type mismatch stops the checks of that value
    expect(one({ type: 'string', enum: ['x'], minLength: 3 }, 5)).toEqual(['$.a: expected string']);
  });

  it('enum and const compare canonical JSON', () => {
    expect(one({ enum: ['x', { b: 1, a: 2 }] }, { a: 2, b: 1 })).toEqual([]);
    expect(one({ enum: ['x', 1] }, 'y')).toEqual(['$.a: not one of ["x",1]']);
    expect(one({ enum: [] }, 'y')).toEqual(['$.a: not one of []']);
    expect(one({ const: null }, null)).toEqual([]);
    expect(one({ const: null }, 0)).toEqual(['$.a: must equal null']);
    expect(one({ const: [1, 2] }, [1, 2])).toEqual([]);
    expect(one({ const: [1, 2] }, [2, 1])).toEqual(['$.a: must equal [1,2]']);
    expect(one({ enum: 'x' as unknown as unknown[] }, 'y')).toEqual([]); // not a list: no constraint
  });

  it('number bounds are inclusive', () => {
    expect(one({ minimum: 1, maximum: 3 }, 1)).toEqual([]);
    expect(one({ minimum: 1, maximum: 3 }, 3)).toEqual([]);
    expect(one({ minimum: 1, maximum: 3 }, 0.5)).toEqual(['$.a: below minimum 1']);
    expect(one({ minimum: 1, maximum: 3 }, 3.5)).toEqual(['$.a: above maximum 3']);
    expect(one({ minimum: 1 }, '0')).toEqual([]); // bounds apply to numbers only
    expect(one({ minimum: '1' as unknown as number }, 0)).toEqual([]);
  });

  it('string lengths are inclusive; a pattern is a Unicode regex, a broken one is ignored', () => {
    expect(one({ minLength: 2, maxLength: 3 }, 'ab')).toEqual([]);
    expect(one({ minLength: 2, maxLength: 3 }, 'abc')).toEqual([]);
    expect(one({ minLength: 2, maxLength: 3 }, 'a')).toEqual(['$.a: shorter than 2']);
    expect(one({ minLength: 2, maxLength: 3 }, 'abcd')).toEqual(['$.a: longer than 3']);
    expect(one({ minLength: 2 }, 1)).toEqual([]);
    expect(one({ pattern: '^#\\d+$' }, '#12')).toEqual([]);
    expect(one({ pattern: '^#\\d+$' }, '12')).toEqual(['$.a: does not match ^#\\d+$']);
    expect(one({ pattern: '^.$' }, '😀')).toEqual([]); // one code point under the u flag
    expect(one({ pattern: '\\p{L}' }, 'é')).toEqual([]);
    expect(one({ pattern: '(' }, 'x')).toEqual([]);
    expect(one({ pattern: 5 as unknown as string }, 'x')).toEqual([]);
  });

  it('arrays: inclusive item counts and each item validated with its index', () => {
    expect(one({ minItems: 1, maxItems: 2 }, [1])).toEqual([]);
    expect(one({ minItems: 1, maxItems: 2 }, [1, 2])).toEqual([]);
    expect(one({ minItems: 1, maxItems: 2 }, [])).toEqual(['$.a: fewer than 1 items']);
    expect(one({ minItems: 1, maxItems: 2 }, [1, 2, 3])).toEqual(['$.a: more than 2 items']);
    expect(one({ items: { type: 'string' } }, ['x', 1, 'y', true])).toEqual(['$.a[1]: expected string', '$.a[3]: expected string']);
    expect(one({ items: true as unknown as JSONSchema }, [1])).toEqual([]);
  });

  it('objects: required, known properties, unexpected ones (strict unless told), additionalProperties', () => {
    const s: JSONSchema = { type: 'object', required: ['id'], properties: { id: { type: 'string' }, n: { type: 'integer' } } };
    expect(v(s, { id: 'x' })).toEqual([]);
    expect(v(s, {})).toEqual(["$: missing required field 'id'"]);
    expect(v(s, { id: 1, n: 'x' })).toEqual(['$.id: expected string', '$.n: expected integer']);
    expect(v(s, { id: 'x', z: 1 })).toEqual(["$: unexpected field 'z'"]);
    expect(v(s, { id: 'x', z: 1 }, false)).toEqual([]);
    expect(v(s, { id: 'x', z: 1 }, true)).toEqual(["$: unexpected field 'z'"]);
    expect(v({ type: 'object' }, { z: 1 })).toEqual([]); // no properties listed: anything goes
    expect(v({ ...s, additionalProperties: true }, { id: 'x', z: 1 })).toEqual([]);
    expect(v({ ...s, additionalProperties: false }, { id: 'x', z: 1 }, false)).toEqual(["$: unexpected field 'z'"]);
    expect(v({ type: 'object', additionalProperties: false }, { z: 1 }, false)).toEqual(["$: unexpected field 'z'"]);
    expect(v({ ...s, additionalProperties: { type: 'number' } }, { id: 'x', z: 1, w: 'no' })).toEqual(['$.w: expected number']);
    expect(v({ type: 'object', properties: { a: false as unknown as JSONSchema } }, { a: 1 })).toEqual(['$.a: not allowed']);
    expect(v({ type: 'object', properties: { a: 'junk' as unknown as JSONSchema } }, { a: 1 })).toEqual([]);
    expect(v({ type: 'object', required: 'id' as unknown as string[] }, {})).toEqual([]);
    expect(v({ type: 'object', properties: { o: { type: 'object', required: ['k'], properties: { k: { type: 'string' } } } } }, { o: { k: 1, j: 2 } }))
      .toEqual(['$.o.k: expected string', "$.o: unexpected field 'j'"]);
  });

  it('anyOf needs one alternative, oneOf exactly one; an empty list is no constraint', () => {
    const alts: JSONSchema[] = [{ type: 'string' }, { type: 'string', minLength: 2 }];
    expect(one({ anyOf: alts }, 'abc')).toEqual([]);
    expect(one({ anyOf: alts }, 1)).toEqual(['$.a: does not match anyOf']);
    expect(one({ oneOf: alts }, 'a')).toEqual([]);
    expect(one({ oneOf: alts }, 'abc')).toEqual(['$.a: does not match oneOf']);
    expect(one({ oneOf: alts }, 1)).toEqual(['$.a: does not match oneOf']);
    expect(one({ anyOf: [] }, 1)).toEqual([]);
    expect(one({ oneOf: [] }, 1)).toEqual([]);
  });

  it('nesting past 64 levels is an error, not a stack overflow', () => {
    const deepSchema = (n: number): JSONSchema => (n === 0 ? {} : { type: 'array', items: deepSchema(n - 1) });
    const deepValue = (n: number): unknown => (n === 0 ? 1 : [deepValue(n - 1)]);
    expect(v({ type: 'object', properties: { a: deepSchema(63) } }, { a: deepValue(63) })).toEqual([]);
    const errs = v({ type: 'object', properties: { a: deepSchema(70) } }, { a: deepValue(70) });
    expect(errs).toEqual([`$.a${'[0]'.repeat(64)}: nested too deeply`]);
  });

  it('the root: arguments must be an object; a missing schema accepts any object; the root type is the schema\'s', () => {
    expect(validateArguments(undefined, { a: 1 })).toEqual({ ok: true, errors: [] });
    expect(validateArguments(undefined, [1])).toEqual({ ok: false, errors: ['$: arguments must be a JSON object'] });
    expect(validateArguments(undefined, null)).toEqual({ ok: false, errors: ['$: arguments must be a JSON object'] });
    expect(validateArguments('x' as unknown as JSONSchema, { a: 1 })).toEqual({ ok: true, errors: [] });
    expect(validateArguments({ type: 'string' }, {})).toEqual({ ok: false, errors: ['$: expected string'] });
    expect(validateArguments({ properties: { a: { type: 'string' } } }, { a: 1 })).toEqual({ ok: false, errors: ['$.a: expected string'] });
  });

  it('an exception inside validation becomes an error line', () => {
    const schema = { type: 'object', properties: { a: { type: 'string' } } } as JSONSchema;
    const args = Object.defineProperty({}, 'a', { enumerable: true, get() { throw new Error('boom'); } });
    expect(validateArguments(schema, args)).toEqual({ ok: false, errors: ['$: Error: boom'] });
  });
});

describe('validateCall', () => {
  const tools: ToolSchema[] = [{ name: 'get', description: '', parameters: { type: 'object', required: ['key'], properties: { key: { type: 'string' } } } }];

  it('the format check reads the raw Act output when given', () => {
    const raw = block('{"name":"get","arguments":{"key":"a"}}');
    expect(validateCall({ name: 'get', arguments: { key: 'a' } }, tools, raw)).toBeNull();
    expect(validateCall({ name: 'get', arguments: { key: 'a' } }, tools, 'a reply')).toEqual({ code: 'INVALID_TOOL_CALL_FORMAT', message: 'The response has no well-formed <tool_call> block.' });
    expect(validateCall({ name: 'get', arguments: { key: 'a' } }, tools, block('{bad'))?.code).toBe('INVALID_TOOL_CALL_FORMAT');
  });

  it('name, availability and arguments, with the messages the simulator is trained on', () => {
    expect(validateCall({ name: '', arguments: {} }, tools)).toEqual({ code: 'INVALID_TOOL_CALL_FORMAT', message: 'The call has no name.' });
    expect(validateCall({ name: 3, arguments: {} }, tools)).toEqual({ code: 'INVALID_TOOL_CALL_FORMAT', message: 'The call has no name.' });
    expect(validateCall({ name: 'put', arguments: {} }, tools)).toEqual({ code: 'TOOL_NOT_AVAILABLE', message: "tool name 'put' is not found. Please check your function call and use provided tools." });
    expect(validateCall({ name: 'get', arguments: { key: 1, x: 2 } }, tools)).toEqual({
      code: 'INVALID_PARAMETERS', message: 'Arguments do not match the tool schema.', details: { errors: ['$.key: expected string', "$: unexpected field 'x'"] },
    });
    expect(validateCall({ name: 'get', arguments: { key: 'a', x: 2 } }, tools, undefined, { strict: false })).toBeNull();
  });
});

describe('formatters', () => {
  it('canonicalJson sorts keys at every level; undefined and functions are null', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { f: 1, e: 2 }], c: null } })).toBe('{"a":{"c":null,"d":[3,{"e":2,"f":1}]},"b":1}');
    expect(canonicalJson(undefined)).toBe('null');
    expect(canonicalJson([undefined, 1])).toBe('[null,1]');
    expect(canonicalJson(() => 1)).toBe('null');
    expect(canonicalJson('s')).toBe('"s"');
    expect(canonicalJson({})).toBe('{}');
    expect(canonicalJson([])).toBe('[]');
  });

  it('Act text: think, then blocks or the reply', () => {
    const c = { name: 'get', arguments: { key: 'a' } };
    expect(callJson(c)).toBe('{"name":"get","arguments":{"key":"a"}}');
    expect(formatAct(undefined, 'hi')).toBe('hi');
    expect(formatAct('t', 'hi')).toBe('<think>t</think>\nhi');
    expect(formatAct('', 'hi')).toBe('<think></think>\nhi');
    expect(formatAct('t', [c, c])).toBe(`<think>t</think>${block(callJson(c))}${block(callJson(c))}`);
    expect(formatAct(undefined, [c])).toBe(block(callJson(c)));
  });

  it('Rehearse text: objects and arrays as they are, anything else wrapped as {"result": …}', () => {
    expect(toResultJson({ b: 1, a: 2 })).toBe('{"b":1,"a":2}');
    expect(toResultJson('{"b":1}')).toBe('{"b":1}');
    expect(toResultJson('[]')).toBe('[]');
    expect(toResultJson('{}')).toBe('{"result":{}}');
    expect(toResultJson({})).toBe('{"result":{}}');
    expect(toResultJson('3')).toBe('{"result":3}');
    expect(toResultJson('plain text')).toBe('{"result":"plain text"}');
    expect(toResultJson(undefined)).toBe('{"result":null}');
    expect(toResultJson(null)).toBe('{"result":null}');
    expect(toResultJson(false)).toBe('{"result":false}');
    expect(formatRehearse(undefined, 'ok')).toBe(result('{"result":"ok"}'));
    expect(formatRehearse('t', [1])).toBe(`<think>t</think>${result('[1]')}`);
  });

  it('actMessage: calls become toolCalls; an error or a reply keeps the visible text only', () => {
    const text = `Looking.${block('{"name":"get","arguments":{}}')}`;
    expect(actMessage(text)).toEqual({ role: 'assistant', content: 'Looking.', toolCalls: [{ name: 'get', arguments: {} }] });
    expect(actMessage(`Oops.${block('{bad')}`)).toEqual({ role: 'assistant', content: 'Oops.' });
    expect(actMessage('<think>t</think>\nHello')).toEqual({ role: 'assistant', content: 'Hello' });
    expect(actMessage('ignored', parseAct('Given'))).toEqual({ role: 'assistant', content: 'Given' });
  });
});

// Edges that tell each StrykerJS survivor of the first scoring from the original (docs/results/reliability/mutation.json).
describe('edges: think blocks, content and block scanning', () => {
  it('blocks with an empty opening: a closing tag at position 0 still yields an empty body', () => {
    expect(blocks(']a]', '', ']')).toEqual(['', 'a']);
  });

  it('parseAct reply: without a think block a leading newline stays; after one, only a newline right after </think> goes', () => {
    expect(parseAct('\nhi')).toEqual({ ok: true, kind: 'reply', think: undefined, content: '\nhi' });
    expect(parseAct('<think>t</think>a\nb')).toEqual({ ok: true, kind: 'reply', think: 't', content: 'a\nb' });
  });

  it('parseAct calls: content before the first block, with the same newline rule; a block at position 0 leaves no content', () => {
    const call = block('{"name":"get","arguments":{}}');
    expect(parseAct(call)).toEqual({ ok: true, kind: 'calls', think: undefined, content: '', calls: [{ name: 'get', arguments: {} }] });
    expect(parseAct(block('{bad'))).toMatchObject({ ok: false, content: '', error: { code: 'JSON_DECODE_ERROR' } });
    expect(parseAct(`\nsay${call}`)).toMatchObject({ ok: true, think: undefined, content: '\nsay' });
    expect(parseAct(`<think>t</think>a\nb${call}`)).toMatchObject({ ok: true, think: 't', content: 'a\nb' });
    expect(parseAct(`<think>t</think>\n\nb${call}`)).toMatchObject({ ok: true, think: 't', content: '\nb' });
  });
});

describe('edges: parseAct details', () => {
  it('previews are cut at 200 characters for the empty list and for missing arguments too', () => {
    const emptyList = `[${' '.repeat(300)}]`;
    expect(parseAct(block(emptyList))).toMatchObject({ ok: false, error: { code: 'NO_TOOL_CALL_FOUND', message: 'A tool call block holds an empty list.', details: { raw_preview: emptyList.slice(0, 200) } } });
    const noArgs = `{"name":"x","pad":"${'y'.repeat(300)}"}`;
    expect(parseAct(block(noArgs))).toMatchObject({ ok: false, error: { code: 'NO_ARGUMENTS', message: 'No arguments found in a tool call. Use {} when there are none.', details: { raw_preview: noArgs.slice(0, 200) } } });
  });

  it('null arguments are missing arguments, not a wrong type', () => {
    expect(parseAct(block('{"name":"x","arguments":null}'))).toMatchObject({ ok: false, error: { code: 'NO_ARGUMENTS', message: 'No arguments found in a tool call. Use {} when there are none.', details: { raw_preview: '{"name":"x","arguments":null}' } } });
    expect(parseAct(block('{"name":"x","parameters":null}'))).toMatchObject({ ok: false, error: { message: 'No arguments found in a tool call. Use {} when there are none.' } });
  });

  it('only a string is decoded as JSON arguments: a list holding JSON text stays a list', () => {
    expect(parseAct(block('{"name":"x","arguments":["{\\"a\\":1}"]}'))).toMatchObject({ ok: false, error: { code: 'NO_ARGUMENTS', message: 'Tool call arguments must be a JSON object.', details: { got_type: 'array' } } });
    expect(parseAct(block('{"name":"x","arguments":"{\\"a\\":1}"}'))).toMatchObject({ ok: true, calls: [{ name: 'x', arguments: { a: 1 } }] });
  });

  it('nesting: every element and every property counts, not only the first', () => {
    const reason = (args: string) => { const p = parseAct(block(`{"name":"x","arguments":${args}}`)); return p.ok ? 'ok' : (p.error.details as { error?: string }).error; };
    expect(reason(`{"a":1,"b":${nest(64)}}`)).toBe('ok');
    expect(reason(`{"a":1,"b":${nest(65)}}`)).toBe('nesting deeper than 64');
    expect(reason(`{"a":${nest(64)},"b":${nest(65)}}`)).toBe('nesting deeper than 64');
    expect(reason(`{"a":[1,${nest(64)}]}`)).toBe('nesting deeper than 64');
    expect(reason(`{"a":[${nest(63)},${nest(64)}]}`)).toBe('nesting deeper than 64');
    expect(reason(`{"a":[${nest(63)},${nest(63)}]}`)).toBe('ok');
  });
});

describe('edges: parseRehearse details', () => {
  it('previews are cut at 200 characters for bad JSON and for out-of-range numbers', () => {
    const bad = `{"a":"${'y'.repeat(300)}`;
    expect(parseRehearse(result(bad))).toMatchObject({ ok: false, error: { code: 'SIMULATOR_JSON_DECODE_ERROR', message: 'The execution result is not valid JSON.', details: { raw_preview: bad.slice(0, 200) } } });
    const inf = `{"a":[${'1,'.repeat(150)}1e999]}`;
    expect(parseRehearse(result(inf))).toMatchObject({ ok: false, error: { code: 'SIMULATOR_JSON_DECODE_ERROR', message: 'The execution result holds a number out of range.', details: { raw_preview: inf.slice(0, 200) } } });
  });

  it('nesting: later elements and properties are measured too; the bound is 64 below the top', () => {
    const type = (body: string) => { const p = parseRehearse(result(body)); return p.ok ? 'ok' : (p.error.details as { got_type: string }).got_type; };
    expect(type(`[1,${nest(64)}]`)).toBe('ok');
    expect(type(`[1,${nest(65)}]`)).toBe('deep');
    expect(type(`[${nest(64)},${nest(65)}]`)).toBe('deep');
    expect(type(`[${nest(64)},${nest(64)}]`)).toBe('ok');
    expect(type(`{"a":1,"b":${nest(64)}}`)).toBe('ok');
    expect(type(`{"a":1,"b":${nest(65)}}`)).toBe('deep');
    expect(type(`{"a":${nest(64)},"b":${nest(65)}}`)).toBe('deep');
  });

  it('a very deep value is measured only down to the bound (no stack overflow)', () => {
    expect(parseRehearse(result(nest(50_000)))).toMatchObject({ ok: false, error: { code: 'INVALID_EXECUTION_RESULT_TYPE', details: { got_type: 'deep' } } });
    expect(parseAct(block(`{"name":"x","arguments":{"a":${nest(50_000)}}}`))).toMatchObject({ ok: false, error: { code: 'NON_SERIALIZABLE_ARGUMENTS', details: { error: 'nesting deeper than 64' } } });
  });
});

describe('edges: validateArguments', () => {
  const v = (schema: JSONSchema, args: unknown, strict?: boolean) => validateArguments(schema, args, strict === undefined ? {} : { strict }).errors;
  const one = (prop: JSONSchema, value: unknown) => v({ type: 'object', properties: { a: prop } }, { a: value });
  const junk = <T>(x: unknown) => x as T;

  it('a bound that is not a number is no bound (no comparison with a string)', () => {
    expect(one({ maximum: junk<number>('3') }, 5)).toEqual([]);
    expect(one({ minLength: junk<number>('3') }, 'ab')).toEqual([]);
    expect(one({ maxLength: junk<number>('1') }, 'ab')).toEqual([]);
    expect(one({ minItems: junk<number>('2') }, [1])).toEqual([]);
    expect(one({ maxItems: junk<number>('0') }, [1])).toEqual([]);
  });

  it('string lengths apply to strings only, item counts to arrays only', () => {
    expect(one({ minLength: 2 }, [1])).toEqual([]);
    expect(one({ maxLength: 0 }, [1])).toEqual([]);
    expect(one({ minLength: 2 }, null)).toEqual([]);
    expect(one({ pattern: '^x$' }, ['x', 'y'])).toEqual([]);
    expect(one({ minItems: 2 }, 'a')).toEqual([]);
    expect(one({ maxItems: 0 }, 'ab')).toEqual([]);
    expect(one({ items: { type: 'string' } }, { 0: 1 })).toEqual([]);
    expect(one({ minItems: 1 }, null)).toEqual([]);
  });

  it('a null sub-schema is no constraint (not an exception)', () => {
    expect(one(junk<JSONSchema>(null), 1)).toEqual([]);
    expect(v({ type: 'object', additionalProperties: junk<JSONSchema>(null) }, { z: 1 })).toEqual([]);
  });

  it('a non-object sub-schema is no constraint even below the nesting bound', () => {
    const chain = (n: number): JSONSchema => (n === 0 ? junk<JSONSchema>('junk') : { type: 'object', properties: { a: chain(n - 1) } });
    const value = (n: number): unknown => (n === 0 ? 1 : { a: value(n - 1) });
    expect(validateArguments(chain(65), value(65))).toEqual({ ok: true, errors: [] });
    // the same chain ending in a real schema one level deeper hits the bound
    const chainObj = (n: number): JSONSchema => (n === 0 ? {} : { type: 'object', properties: { a: chainObj(n - 1) } });
    expect(validateArguments(chainObj(65), value(65)).errors).toEqual([`$${'.a'.repeat(65)}: nested too deeply`]);
  });

  it('additionalProperties schemas count towards the nesting bound', () => {
    const chain = (n: number): JSONSchema => (n === 0 ? {} : { type: 'object', additionalProperties: chain(n - 1) });
    const value = (n: number): unknown => (n === 0 ? 1 : { x: value(n - 1) });
    expect(validateArguments(chain(64), value(64))).toEqual({ ok: true, errors: [] });
    expect(validateArguments(chain(70), value(70)).errors).toEqual([`$${'.x'.repeat(65)}: nested too deeply`]);
    expect(validateArguments(chain(3), value(3))).toEqual({ ok: true, errors: [] });
    expect(validateArguments({ type: 'object', additionalProperties: { type: 'object', additionalProperties: { type: 'string' } } }, { x: { y: 1 } }).errors)
      .toEqual(['$.x.y: expected string']);
  });

  it('anyOf/oneOf alternatives count towards the nesting bound', () => {
    const chain = (key: 'anyOf' | 'oneOf', n: number): JSONSchema => (n === 0 ? {} : { [key]: [chain(key, n - 1)] });
    expect(one(chain('anyOf', 60), 1)).toEqual([]);
    expect(one(chain('anyOf', 70), 1)).toEqual(['$.a: does not match anyOf']);
    expect(one(chain('oneOf', 70), 1)).toEqual(['$.a: does not match oneOf']);
  });
});

describe('edges: actMessage', () => {
  it('only a calls parse carries toolCalls (no key at all otherwise)', () => {
    const err = actMessage(`Oops.${block('{bad')}`);
    expect(Object.hasOwn(err, 'toolCalls')).toBe(false);
    const reply = actMessage('<think>t</think>\nHello');
    expect(Object.hasOwn(reply, 'toolCalls')).toBe(false);
    expect(reply).toStrictEqual({ role: 'assistant', content: 'Hello' });
    expect(Object.hasOwn(actMessage(block('{"name":"get","arguments":{}}')), 'toolCalls')).toBe(true);
  });
});
