import { describe, expect, it } from 'vitest';
import { decodeExecute, formatPythonCall, parseJsonToolCall, parsePythonCall, parsePythonCallList } from '../../src/envs/bfcl/parser';
import { PyFloat, PyTuple } from '../../src/envs/python';

const ok = (s: string) => {
  const r = parsePythonCall(s);
  if (!r.ok) throw new Error(`parse failed for ${s}: ${r.error.message}`);
  return r;
};

describe('BFCL python-call parser', () => {
  it('keyword and positional arguments', () => {
    expect(ok("cd(folder='document')")).toMatchObject({ function: 'cd', args: [], kwargs: { folder: 'document' } });
    expect(ok("sort('final_report.pdf')")).toMatchObject({ function: 'sort', args: ['final_report.pdf'], kwargs: {} });
    expect(ok("grep(file_name='a.txt',pattern='budget analysis')").kwargs).toEqual({ file_name: 'a.txt', pattern: 'budget analysis' });
    expect(ok('pwd()')).toMatchObject({ function: 'pwd', args: [], kwargs: {} });
    expect(ok("f(1, 'x', k=2)")).toMatchObject({ args: [1, 'x'], kwargs: { k: 2 } });
  });

  it('Python literals: True/False/None, ints, floats, negatives, exponents, bigints', () => {
    const r = ok('f(a=True, b=False, c=None, d=-5, e=36.0, g=1e-05, h=-2.5E3, i=+7, j=1_000, k=0x1f, l=12345678901234567890)');
    expect(r.kwargs.a).toBe(true);
    expect(r.kwargs.b).toBe(false);
    expect(r.kwargs.c).toBe(null);
    expect(r.kwargs.d).toBe(-5);
    expect(r.kwargs.e).toEqual(new PyFloat(36));
    expect(r.kwargs.g).toEqual(new PyFloat(1e-5));
    expect(r.kwargs.h).toEqual(new PyFloat(-2500));
    expect(r.kwargs.i).toBe(7);
    expect(r.kwargs.j).toBe(1000);
    expect(r.kwargs.k).toBe(31);
    expect(r.kwargs.l).toBe(12345678901234567890n);
    expect(ok('f(x=.5)').kwargs.x).toEqual(new PyFloat(0.5));
  });

  it('nested lists, tuples, dicts and sets', () => {
    const r = ok("f(numbers=[3,16,60], t=(1, 'a'), one=(5,), paren=(5), d={'a': [1, {'b': None}], 2: 'x'}, s={1, 2}, e=[], ed={})");
    expect(r.kwargs.numbers).toEqual([3, 16, 60]);
    expect(r.kwargs.t).toEqual(new PyTuple([1, 'a']));
    expect(r.kwargs.one).toEqual(new PyTuple([5]));
    expect(r.kwargs.paren).toBe(5);
    const d = r.kwargs.d as Map<unknown, unknown>;
    expect(d).toBeInstanceOf(Map);
    expect([...d.keys()]).toEqual(['a', 2]);
    expect(d.get('a')).toEqual([1, { b: null }]);
    expect(r.kwargs.s).toEqual(new Set([1, 2]));
    expect(r.kwargs.e).toEqual([]);
    expect(r.kwargs.ed).toEqual({});
  });

  it('strings: both quotes, escapes, raw, triple-quoted, concatenation, unicode', () => {
    expect(ok(`f(a="it's", b='say "hi"')`).kwargs).toEqual({ a: "it's", b: 'say "hi"' });
    expect(ok(String.raw`f(a='line1\nline2\t\'q\' \\ \x41\u00e9\d')`).kwargs.a).toBe("line1\nline2\t'q' \\ Aé\\d");
    expect(ok(String.raw`f(a=r'C:\dir\n')`).kwargs.a).toBe(String.raw`C:\dir\n`);
    expect(ok(`f(a='''multi\nline''')`).kwargs.a).toBe('multi\nline');
    expect(ok(`f(a='ab' "cd")`).kwargs.a).toBe('abcd');
    expect(ok(`f(a='café ☃ 😀')`).kwargs.a).toBe('café ☃ 😀');
    expect(ok(String.raw`f(a='\101\0')`).kwargs.a).toBe('A\0');
  });

  it('whitespace and trailing commas', () => {
    expect(ok("  mv( source = 'a' ,\n destination='b', )  ")).toMatchObject({ function: 'mv', kwargs: { source: 'a', destination: 'b' } });
    expect(ok('f([1, 2,], {"a": 1,})').args).toEqual([[1, 2], { a: 1 }]);
  });

  it('dotted names are kept for the caller to judge', () => {
    expect(ok('os.system("x")').function).toBe('os.system');
  });

  it('malformed input returns a structured error and never throws', () => {
    const bad = ['', '   ', 'cd(', "cd(folder='x'", 'cd folder', "cd(folder='x') trailing", "f(a=1, 2)", 'f(a=1, a=2)', 'f(x=document)',
      "f('unterminated)", 'f(x=g(1))', '123', 'f(x=1+2)', "f(x='\\x4')", 'f(x=[1,2)', 'f(x={1: })', 'f(x=b"bytes")', '(x)', 'f(**kw)', 'f(x=01)', String.raw`f(x='\N')`];
    for (const s of bad) {
      const r = parsePythonCall(s);
      expect(r.ok, s).toBe(false);
      if (!r.ok) {
        expect(['INVALID_TOOL_CALL_FORMAT', 'NO_TOOL_CALL_FOUND']).toContain(r.error.code);
        expect(typeof r.error.message).toBe('string');
      }
    }
    expect((parsePythonCall(42 as unknown as string) as { ok: boolean }).ok).toBe(false);
  });

  it('lists of calls', () => {
    const r = parsePythonCallList("[cd(folder='a'), ls(a=True)]");
    expect(r.ok && r.calls.map((c) => c.function)).toEqual(['cd', 'ls']);
    expect(parsePythonCallList('[]').ok).toBe(false);
  });

  it('JSON tool calls', () => {
    const r = parseJsonToolCall('{"name": "logarithm", "arguments": {"value": 36.0, "base": 6, "precision": 4}}');
    expect(r.ok && r.function).toBe('logarithm');
    expect(r.ok && r.kwargs.value).toEqual(new PyFloat(36));
    expect(r.ok && r.kwargs.base).toBe(6);
    const s = parseJsonToolCall({ name: 'cd', arguments: '{"folder": "x"}' } as unknown as string);
    expect(s.ok && s.kwargs).toEqual({ folder: 'x' });
    const bad = parseJsonToolCall('{"name": "cd", "arguments": {');
    expect(!bad.ok && bad.error.code).toBe('JSON_DECODE_ERROR');
    const noName = parseJsonToolCall('{"arguments": {}}');
    expect(!noName.ok && noName.error.code).toBe('INVALID_TOOL_NAME');
    const arr = parseJsonToolCall('{"name": "cd", "arguments": [1]}');
    expect(!arr.ok && arr.error.code).toBe('INVALID_PARAMETERS');
  });
});


describe('decode_execute helpers', () => {
  it('round-trips calls through their Python form', () => {
    const r = parsePythonCall("f('a', n=1, x=2.0, l=[True, None], d={'k': (1,)}, big=12345678901234567890)");
    expect(r.ok && formatPythonCall(r)).toBe("f('a', n=1, x=2.0, l=[True, None], d={'k': (1,)}, big=12345678901234567890)");
  });
  it('decodes python lists, JSON tool calls and drops garbage', () => {
    expect(decodeExecute("[cd(folder='a'), ls(a=True)]")).toEqual(["cd(folder='a')", 'ls(a=True)']);
    expect(decodeExecute('{"name": "logarithm", "arguments": {"value": 36.0, "base": 6, "precision": 4}}')).toEqual(['logarithm(value=36.0, base=6, precision=4)']);
    expect(decodeExecute('[{"name": "pwd", "arguments": {}}, {"name": "cd", "arguments": "{\\"folder\\": \\"x\\"}"}]')).toEqual(['pwd()', "cd(folder='x')"]);
    expect(decodeExecute('I think the answer is 4.')).toEqual([]);
    expect(decodeExecute(['pwd()', "cd(folder='x')"])).toEqual(['pwd()', "cd(folder='x')"]);
  });
});
