import { describe, expect, it } from 'vitest';
import { parsePyJson, pyFloat, pyFloatRepr, pyJsonDumps, pyRepr, pyStr, PyOpaque, PyTuple } from '../../src/envs/python';

describe('Python formatting', () => {
  it('float repr follows CPython thresholds', () => {
    const cases: [number, string][] = [
      [10000, '10000.0'], [0.1, '0.1'], [1e-5, '1e-05'], [0.0001, '0.0001'], [1e16, '1e+16'],
      [123456789012345.6, '123456789012345.6'], [1.5e300, '1.5e+300'], [-2.5, '-2.5'], [0.04999999999999716, '0.04999999999999716'],
      [9999999999999998, '9999999999999998.0'], [1e22, '1e+22'], [-0, '-0.0'],
    ];
    for (const [x, s] of cases) expect(pyFloatRepr(x)).toBe(s);
  });
  it('json.dumps defaults: separators, ascii escapes, floats, key order', () => {
    const m = new Map<string | number, unknown>([[12345, { price: pyFloat(100) }], ['order_type', 'x'], [12446, null]]);
    expect(pyJsonDumps(m)).toBe('{"12345": {"price": 100.0}, "order_type": "x", "12446": null}');
    expect(pyJsonDumps({ b: 'é"\n', a: [1, 2.5, true] }, { sortKeys: true })).toBe('{"a": [1, 2.5, true], "b": "\\u00e9\\"\\n"}');
    expect(() => pyJsonDumps({ r: new PyOpaque("mpf('2.0')") })).toThrow();
  });
  it('str/repr of containers', () => {
    expect(pyStr(['RMS', "it's", null, true, pyFloat(3)])).toBe(`['RMS', "it's", None, True, 3.0]`);
    expect(pyRepr({ result: new PyOpaque("mpf('2.0')") })).toBe(`{'result': mpf('2.0')}`);
    expect(pyRepr(new PyTuple([1]))).toBe('(1,)');
    expect(pyStr('plain')).toBe('plain');
  });
  it('parse keeps floats and integer-key order', () => {
    const v = parsePyJson('{"12345": {"p": 10000.0}, "order_type": "x", "12": 1}') as Map<string, unknown>;
    expect(v).toBeInstanceOf(Map);
    expect([...v.keys()]).toEqual(['12345', 'order_type', '12']);
    expect(pyJsonDumps(v)).toBe('{"12345": {"p": 10000.0}, "order_type": "x", "12": 1}');
    expect(() => parsePyJson('{"a": }')).toThrow(SyntaxError);
  });
});
