import { describe, expect, it } from 'vitest';
import {
  bindPyArgs, pyContains, pyDeepCopy, pyEquals, pyFloat, pyFormatFixed, pyJsonDumps, pyRepr, pySplitlines, pySplitWhitespace, PyTuple, pyTruthy,
} from '../../src/envs/python';

describe('Python value semantics used by the BFCL backends', () => {
  it('== : numbers across int/float/bool, list vs tuple, dict order, sets', () => {
    expect(pyEquals(1, pyFloat(1))).toBe(true);
    expect(pyEquals(true, 1)).toBe(true);
    expect(pyEquals(2n ** 60n, 2 ** 60)).toBe(true);
    expect(pyEquals([1, 2], new PyTuple([1, 2]))).toBe(false);
    expect(pyEquals(new Map<string | number, unknown>([['a', 1], [2, 'b']]), new Map<string | number, unknown>([[2, 'b'], ['a', 1]]))).toBe(true);
    expect(pyEquals(new Map([[1, 'x']]), new Map([['1', 'x']]))).toBe(false);
    expect(pyEquals({ a: [1, { b: null }] }, new Map([['a', [1, new Map([['b', undefined]])]]]))).toBe(true);
    expect(pyEquals(new Set([1, 2]), new Set([2, 1]))).toBe(true);
  });

  it('CPython 3.11 argument binding errors, in CPython order', () => {
    const p = [{ name: 'a' }, { name: 'b', hasDefault: true, default: 5 }];
    expect(bindPyArgs('C.f', p, [1], {})).toEqual([1, 5]);
    expect(() => bindPyArgs('C.f', p, [], {})).toThrow("C.f() missing 1 required positional argument: 'a'");
    expect(() => bindPyArgs('C.g', [{ name: 'x' }, { name: 'y' }, { name: 'z' }], [], {})).toThrow("C.g() missing 3 required positional arguments: 'x', 'y', and 'z'");
    expect(() => bindPyArgs('C.f', p, [1, 2, 3], {})).toThrow('C.f() takes from 2 to 3 positional arguments but 4 were given');
    expect(() => bindPyArgs('C.f', p, [1, 2, 3], { q: 1 })).toThrow("C.f() got an unexpected keyword argument 'q'");
    expect(() => bindPyArgs('C.f', p, [1], { a: 2 })).toThrow("C.f() got multiple values for argument 'a'");
    expect(() => bindPyArgs('C.h', [], [1], {})).toThrow('C.h() takes 1 positional argument but 2 were given');
  });

  it('formatting and string helpers', () => {
    expect(pyFormatFixed(0.125, 2)).toBe('0.12');
    expect(pyFormatFixed(1.125, 2)).toBe('1.12');
    expect(pyFormatFixed(2.675, 2)).toBe('2.67');
    expect(pyFormatFixed(123, 2)).toBe('123.00');
    expect(pyFormatFixed(-0.001, 2)).toBe('-0.00');
    expect(pySplitlines('a\nb\r\nc\rd\x0be\u2028f\n')).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
    expect(pySplitlines('')).toEqual([]);
    expect(pySplitWhitespace('  a\tb\x1c c\u00a0d ')).toEqual(['a', 'b', 'c', 'd']);
    expect(pyRepr(12345678901234567890n)).toBe('12345678901234567890');
    expect(pyJsonDumps({ n: 2n ** 70n })).toBe('{"n": 1180591620717411303424}');
    expect([pyTruthy(0), pyTruthy(NaN), pyTruthy(''), pyTruthy([]), pyTruthy(new Map()), pyTruthy(pyFloat(0)), pyTruthy('x')]).toEqual([false, true, false, false, false, false, true]);
    expect(() => pyContains(new Map(), [1])).toThrow("unhashable type: 'list'");
  });

  it('deepcopy keeps sharing inside the copy only', () => {
    const shared: unknown[] = [];
    const src = { a: shared, b: shared };
    const c = pyDeepCopy(src);
    expect(c.a).toBe(c.b);
    expect(c.a).not.toBe(shared);
  });
});
