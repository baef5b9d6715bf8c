import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  ACT_ERROR_CODES, REHEARSE_ERROR_CODES, canonicalJson, formatAct, formatRehearse, parseAct, parseRehearse,
  resultError, toResultJson, validateArguments, validateCall,
} from '../../src/agent/protocol';
import type { ToolCall, ToolSchema } from '../../src/envs/types';
import { KV_TOOLS } from '../../src/agent/testing';

const TC = (name: string, args: unknown) => `\n<tool_call>\n${JSON.stringify({ name, arguments: args })}\n</tool_call>`;
const ER = (body: string) => `<think>x</think>\n<execution_result>\n${body}\n</execution_result>`;

describe('parseAct', () => {
  it('reads a reply, with and without think', () => {
    expect(parseAct('Hello there')).toEqual({ ok: true, kind: 'reply', content: 'Hello there', think: undefined });
    const p = parseAct('<think>plan</think>\nHi');
    expect(p).toMatchObject({ ok: true, kind: 'reply', think: 'plan', content: 'Hi' });
  });
  it('reads several calls, a list block and the "parameters" alias', () => {
    const text = `<think>t</think>${TC('get', { key: 'a' })}\n<tool_call>\n[{"name":"set","parameters":{"key":"b","value":"c"}},{"name":"list","arguments":{}}]\n</tool_call>`;
    const p = parseAct(text);
    expect(p.ok && p.kind === 'calls' && p.calls).toEqual([
      { name: 'get', arguments: { key: 'a' } }, { name: 'set', arguments: { key: 'b', value: 'c' } }, { name: 'list', arguments: {} },
    ]);
  });
  it('decodes arguments given as a JSON string of an object', () => {
    const p = parseAct('\n<tool_call>\n{"name":"get","arguments":"{\\"key\\":\\"a\\"}"}\n</tool_call>');
    expect(p.ok && p.kind === 'calls' && p.calls[0].arguments).toEqual({ key: 'a' });
  });
  const cases: [string, string][] = [
    ['<tool_call>{"name":"x","arguments":{}}</tool_call>', 'NO_TOOL_CALL_FOUND'],
    ['\n<tool_call>\n{"name":"x","arguments":{}}', 'NO_TOOL_CALL_FOUND'],
    ['\n<tool_call>\n[]\n</tool_call>', 'NO_TOOL_CALL_FOUND'],
    ['\n<tool_call>\n{"name":"x","arguments":{}\n</tool_call>', 'JSON_DECODE_ERROR'],
    ['\n<tool_call>\n{"name":"x"}\n</tool_call>', 'NO_ARGUMENTS'],
    ['\n<tool_call>\n{"name":"x","arguments":null}\n</tool_call>', 'NO_ARGUMENTS'],
    ['\n<tool_call>\n{"name":"x","arguments":[1]}\n</tool_call>', 'NO_ARGUMENTS'],
    ['\n<tool_call>\n"just a string"\n</tool_call>', 'NO_ARGUMENTS'],
    ['\n<tool_call>\n{"arguments":{}}\n</tool_call>', 'INVALID_TOOL_NAME'],
    ['\n<tool_call>\n{"name":"  ","arguments":{}}\n</tool_call>', 'INVALID_TOOL_NAME'],
    ['\n<tool_call>\n{"name":7,"arguments":{}}\n</tool_call>', 'INVALID_TOOL_NAME'],
    ['\n<tool_call>\n{"name":"x","arguments":{"a":"\\ud800"}}\n</tool_call>', 'NON_SERIALIZABLE_ARGUMENTS'],
    ['\n<tool_call>\n{"name":"x","arguments":{"a":1e999}}\n</tool_call>', 'NON_SERIALIZABLE_ARGUMENTS'],
    [`\n<tool_call>\n{"name":"x","arguments":{"a":${'['.repeat(70)}${']'.repeat(70)}}}\n</tool_call>`, 'NON_SERIALIZABLE_ARGUMENTS'],
  ];
  it.each(cases)('%j → %s', (text, code) => {
    const p = parseAct(text);
    expect(p.ok).toBe(false);
    if (!p.ok) expect(p.error.code).toBe(code);
  });
  it('checks arguments before the name, like the reference', () => {
    const p = parseAct('\n<tool_call>\n{"name":5}\n</tool_call>');
    expect(!p.ok && p.error.code).toBe('NO_ARGUMENTS');
  });
  it('one bad call invalidates all', () => {
    const p = parseAct(`${TC('get', { key: 'a' })}\n<tool_call>\n{bad}\n</tool_call>`);
    expect(!p.ok && p.error.code).toBe('JSON_DECODE_ERROR');
  });
});

describe('parseRehearse', () => {
  it('reads objects and arrays (empty arrays allowed)', () => {
    expect(parseRehearse(ER('{"a":1}'))).toMatchObject({ ok: true, value: { a: 1 }, text: '{"a":1}', think: 'x' });
    expect(parseRehearse('\n<execution_result>\n[]\n</execution_result>')).toMatchObject({ ok: true, value: [] });
  });
  const cases: [string, string][] = [
    ['', 'EMPTY_SIMULATOR_OUTPUT'],
    ['<think>only thinking</think>  \n', 'EMPTY_SIMULATOR_OUTPUT'],
    ['{"a":1}', 'NO_EXECUTION_RESULT_TAG_FOUND'],
    ['<execution_result>{"a":1}</execution_result>', 'EXECUTION_RESULT_TAG_MALFORMED'],
    ['\n<execution_result>\n{"a":1}', 'EXECUTION_RESULT_TAG_MALFORMED'],
    [ER('{"a":'), 'SIMULATOR_JSON_DECODE_ERROR'],
    [ER('[1e999]'), 'SIMULATOR_JSON_DECODE_ERROR'],
    [ER('{}'), 'INVALID_EXECUTION_RESULT_TYPE'],
    [ER('"ok"'), 'INVALID_EXECUTION_RESULT_TYPE'],
    [ER('null'), 'INVALID_EXECUTION_RESULT_TYPE'],
    [ER('3'), 'INVALID_EXECUTION_RESULT_TYPE'],
  ];
  it.each(cases)('%j → %s', (text, code) => {
    const p = parseRehearse(text);
    expect(p.ok).toBe(false);
    if (!p.ok) expect(p.error.code).toBe(code);
  });
  it('a tag inside think does not count', () => {
    const p = parseRehearse('<think>\n<execution_result>\n{"a":1}\n</execution_result></think>');
    expect(!p.ok && p.error.code).toBe('EMPTY_SIMULATOR_OUTPUT');
  });
  it('an error verdict is a valid parse that resultError recognises', () => {
    const p = parseRehearse(ER('{"error_tool_call":{"code":"TOOL_NOT_AVAILABLE","message":"no"}}'));
    expect(p.ok).toBe(true);
    expect(p.ok && resultError(p.value)?.code).toBe('TOOL_NOT_AVAILABLE');
    expect(resultError('{"a":1}')).toBeNull();
    expect(resultError('not json')).toBeNull();
    expect(resultError('{"error_tool_call":"bare string"}')?.code).toBe('TOOL_EXECUTION_ERROR');
  });
});

describe('validation', () => {
  const tools: ToolSchema[] = [...KV_TOOLS, {
    name: 'order', description: '', parameters: {
      type: 'object', required: ['id', 'qty'],
      properties: { id: { type: 'string', pattern: '^#\\d+$' }, qty: { type: 'integer', minimum: 1 }, mode: { enum: ['fast', 'slow'] },
        tags: { type: 'array', items: { type: 'string' } }, addr: { type: 'object', properties: { zip: { type: ['string', 'null'] } }, additionalProperties: false } },
    },
  }];
  it('accepts valid calls', () => {
    expect(validateCall({ name: 'order', arguments: { id: '#12', qty: 2, mode: 'fast', tags: ['a'], addr: { zip: null } } }, tools)).toBeNull();
  });
  it('returns the three verdicts', () => {
    expect(validateCall({ name: 'nope', arguments: {} }, tools)?.code).toBe('TOOL_NOT_AVAILABLE');
    expect(validateCall({ name: 'get', arguments: {} }, tools, 'no block here')?.code).toBe('INVALID_TOOL_CALL_FORMAT');
    const e = validateCall({ name: 'order', arguments: { id: '12', qty: 0.5, mode: 'x', tags: [1], addr: { zip: 1, extra: 1 }, more: true } }, tools);
    expect(e?.code).toBe('INVALID_PARAMETERS');
    const errs = (e?.details as { errors: string[] }).errors;
    expect(errs.length).toBe(7);
  });
  it('strict mode rejects unknown fields unless disabled', () => {
    expect(validateArguments(KV_TOOLS[0].parameters, { key: 'a', x: 1 }).ok).toBe(false);
    expect(validateArguments(KV_TOOLS[0].parameters, { key: 'a', x: 1 }, { strict: false }).ok).toBe(true);
    expect(validateArguments(KV_TOOLS[0].parameters, [1]).ok).toBe(false);
  });
});

// ---------------------------------------------------------------------------------------------------------
// Fuzzing: 10,000 random and mutated outputs per parser; never throws, always a parse or a known code.

const FRAGMENTS = ['<tool_call>', '</tool_call>', '\n<tool_call>\n', '\n</tool_call>', '<think>', '</think>', '<execution_result>',
  '</execution_result>', '\n<execution_result>\n', '\n</execution_result>', '{', '}', '[', ']', '"', ':', ',', 'null', '"name"', '"arguments"',
  '"parameters"', '\n', ' ', '\\', '\ud800', '"error_tool_call"', '1e999', '-0', 'true'];

const jsonArb = fc.jsonValue({ maxDepth: 3 });
const callArb: fc.Arbitrary<ToolCall> = fc.record({
  name: fc.string({ minLength: 1, maxLength: 8 }).filter((s) => s.trim() === s && s.trim() !== ''),
  arguments: fc.dictionary(fc.string({ maxLength: 5 }), jsonArb, { maxKeys: 3 }),
});
const thinkArb = fc.option(fc.string({ maxLength: 20 }).filter((s) => !s.includes('</think>')), { nil: undefined });
const validAct = fc.oneof(
  fc.tuple(thinkArb, fc.array(callArb, { minLength: 1, maxLength: 3 })).map(([t, cs]) => formatAct(t, cs)),
  fc.tuple(thinkArb, fc.string({ maxLength: 40 })).map(([t, r]) => formatAct(t, r)),
);
const validRehearse = fc.oneof(
  fc.tuple(thinkArb, jsonArb).map(([t, v]) => formatRehearse(t, v)),
  // Raw bodies reach the type check (formatRehearse always wraps scalars).
  fc.tuple(thinkArb, jsonArb).map(([t, v]) => `${t === undefined ? '' : `<think>${t}</think>`}\n<execution_result>\n${JSON.stringify(v)}\n</execution_result>`),
);

type Mut = { at: number; del: number; ins: string };
const mutArb = fc.array(fc.record({ at: fc.nat(), del: fc.nat({ max: 6 }), ins: fc.oneof(fc.constantFrom(...FRAGMENTS), fc.string({ maxLength: 4 })) }), { maxLength: 5 });
function mutate(s: string, ms: Mut[]): string {
  let out = s;
  for (const m of ms) { const i = out.length ? m.at % (out.length + 1) : 0; out = out.slice(0, i) + m.ins + out.slice(i + m.del); }
  return out;
}
const soup = fc.array(fc.oneof(fc.constantFrom(...FRAGMENTS), fc.string({ maxLength: 6, unit: 'binary' })), { maxLength: 20 }).map((xs) => xs.join(''));

const actInputs = fc.oneof(
  { arbitrary: fc.string({ maxLength: 200, unit: 'binary' }), weight: 2 },
  { arbitrary: soup, weight: 3 },
  { arbitrary: fc.tuple(validAct, mutArb).map(([s, m]) => mutate(s, m)), weight: 5 },
);
const rehearseInputs = fc.oneof(
  { arbitrary: fc.string({ maxLength: 200, unit: 'binary' }), weight: 2 },
  { arbitrary: soup, weight: 3 },
  { arbitrary: fc.tuple(validRehearse, mutArb).map(([s, m]) => mutate(s, m)), weight: 5 },
);

// Under mutation testing (vitest.mutation.config.ts) each surviving mutant reruns these: a smaller draw there.
const FUZZ_RUNS = process.env.ENVACE_MUTATION ? 1_000 : 10_000;

describe('fuzz', () => {
  it(`parseAct: ${FUZZ_RUNS.toLocaleString('en')} random and mutated outputs`, () => {
    const seen = new Set<string>();
    fc.assert(fc.property(actInputs, (text) => {
      const p = parseAct(text);
      if (p.ok) {
        expect(typeof p.content).toBe('string');
        if (p.kind === 'calls') {
          expect(p.calls.length).toBeGreaterThan(0);
          for (const c of p.calls) {
            expect(typeof c.name === 'string' && c.name.trim() === c.name && c.name !== '').toBe(true);
            expect(typeof c.arguments === 'object' && c.arguments !== null && !Array.isArray(c.arguments)).toBe(true);
            expect(() => JSON.stringify(c.arguments)).not.toThrow();
          }
          seen.add('calls');
        } else { expect(text.includes('<tool_call>')).toBe(false); seen.add('reply'); }
      } else {
        expect(ACT_ERROR_CODES as readonly string[]).toContain(p.error.code);
        expect(typeof p.error.message).toBe('string');
        seen.add(p.error.code);
      }
    }), { numRuns: FUZZ_RUNS, seed: 42 });
    // The generator must actually reach the interesting outcomes.
    for (const k of ['calls', 'reply', 'NO_TOOL_CALL_FOUND', 'JSON_DECODE_ERROR', 'NO_ARGUMENTS']) expect(seen).toContain(k);
  });

  it(`parseRehearse: ${FUZZ_RUNS.toLocaleString('en')} random and mutated outputs`, () => {
    const seen = new Set<string>();
    fc.assert(fc.property(rehearseInputs, (text) => {
      const p = parseRehearse(text);
      if (p.ok) {
        expect(Array.isArray(p.value) || Object.keys(p.value).length > 0).toBe(true);
        expect(JSON.parse(p.text)).toEqual(p.value);
        seen.add('ok');
      } else {
        expect(REHEARSE_ERROR_CODES as readonly string[]).toContain(p.error.code);
        seen.add(p.error.code);
      }
    }), { numRuns: FUZZ_RUNS, seed: 7 });
    for (const k of ['ok', ...REHEARSE_ERROR_CODES]) expect(seen).toContain(k);
  });

  it('format → parse round-trips', () => {
    fc.assert(fc.property(thinkArb, fc.array(callArb, { minLength: 1, maxLength: 3 }), (t, cs) => {
      const p = parseAct(formatAct(t, cs));
      expect(p.ok && p.kind === 'calls').toBe(true);
      if (p.ok && p.kind === 'calls') { expect(p.think).toBe(t); expect(canonicalJson(p.calls)).toBe(canonicalJson(cs)); }
    }), { numRuns: 500 });
    fc.assert(fc.property(thinkArb, fc.string({ maxLength: 40 }).filter((s) => !s.includes('<tool_call>') && !s.startsWith('<think>')), (t, r) => {
      const p = parseAct(formatAct(t, r));
      expect(p).toMatchObject({ ok: true, kind: 'reply', content: r });
    }), { numRuns: 500 });
    fc.assert(fc.property(thinkArb, jsonArb, (t, v) => {
      const p = parseRehearse(formatRehearse(t, v));
      expect(p.ok).toBe(true);
      if (p.ok) expect(p.text).toBe(toResultJson(v));
    }), { numRuns: 500 });
  });
});
