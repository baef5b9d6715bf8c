// No plain object as a dictionary (issue 39). A plain `{}` inherits `constructor`, `toString`, `__proto__`, …:
// filed under such a name, an entry either writes into a built-in (`d['constructor'][k] = v` sets a property of
// Object; `d['constructor'].prototype = v` throws) or vanishes (`d['__proto__'] = v` sets the prototype). The
// pattern checked here is the one that crashed the Models page reader: a variable or class field typed as a
// string-keyed record (`Record<string, …>`, `{ [k: string]: … }`, either in `Partial<>`) and started as an empty
// plain object (`= {}`, or `{} as Record<string, …>`). Such a record starts as `Object.create(null)` or is a
// `Map`; a line that must stay a plain object says why in a `// plain: <reason>` comment on the same line.
// Parameter defaults (`opts: Record<string, T> = {}`) are inputs, not records being filled, and are not matched.
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..');

const RECORD_TYPE = String.raw`(?:Partial<\s*)?(?:Record<\s*string\s*,|\{\s*\[\s*[\w$]+\s*:\s*string\s*\])`;
const PATTERNS = [
  // const d: Record<string, T> = {};   let d: { [k: string]: T } = {};
  new RegExp(String.raw`\b(?:const|let|var)\s+[\w$]+\s*:\s*${RECORD_TYPE}.*=\s*\{\s*\}\s*(?:[;,)]|$|//)`),
  // class fields: readonly d: Record<string, T> = {};
  new RegExp(String.raw`^\s*(?:(?:public|private|protected|readonly|static|declare)\s+)+[\w$]+\s*:\s*${RECORD_TYPE}.*=\s*\{\s*\}\s*(?:;|$|//)`),
  // {} as Record<string, T>
  new RegExp(String.raw`\{\s*\}\s+as\s+${RECORD_TYPE}`),
];

/** `path:line: text` of every line of `source` that starts a string-keyed record as a plain object. */
export function plainDictionaries(source: string, path = 'x.ts'): string[] {
  return source.split('\n').flatMap((line, i) => {
    if (/\/\/ plain: \S/.test(line)) return [];
    return PATTERNS.some((re) => re.test(line)) ? [`${path}:${i + 1}: ${line.trim()}`] : [];
  });
}

function sources(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.(ts|tsx|mts|cts)$/.test(e.name) && !e.name.endsWith('.d.ts'))
    .map((e) => join(e.parentPath, e.name));
}

describe('no plain object as a dictionary of outside keys', () => {
  it('the scanner sees every form and lets parameter defaults, null-prototype records and Maps pass', () => {
    const bad = [
      'const evals: Record<string, Record<string, HeldOutEval>> = {};',
      '  let counts: Record<string, number> = {}',
      'const t: { [name: string]: number } = {};',
      'const p: Partial<Record<string, Estimate>> = {};',
      '  readonly vars: Record<string, tf.Variable> = {};',
      '  private cache: Record<string, () => void> = {}; // why not',
      'const out = {} as Record<string, unknown>;',
      'return xs.reduce((a, x) => a, {} as Record<string, number>);',
    ];
    const good = [
      'const evals: Record<string, Record<string, HeldOutEval>> = Object.create(null);',
      'const counts = new Map<string, number>();',
      'function f(extra: Record<string, unknown> = {}) {}',
      'constructor(public state: Record<string, string> = {}) {}',
      'const s = {} as Record<Attr, unknown>;',
      'const w: Record<Role, number> = { act: 0, rehearse: 0 };',
      'const o: Record<string, unknown> = {}; // plain: a parsed file\'s object, keys set by setOwn',
      'const o: Record<string, unknown> = { a: 1 };',
    ];
    for (const line of bad) expect(plainDictionaries(line), line).toHaveLength(1);
    for (const line of good) expect(plainDictionaries(line), line).toEqual([]);
    // an empty reason is no reason
    expect(plainDictionaries('const o: Record<string, unknown> = {}; // plain: ')).toHaveLength(1);
  });

  it('src/ has none', () => {
    const found = ['src'].flatMap((dir) => sources(dir).flatMap((f) => plainDictionaries(readFileSync(f, 'utf8'), relative(ROOT, f))));
    expect(found).toEqual([]);
  });

  it('a null-prototype record files every name as data', () => {
    const plain: Record<string, Record<string, number>> = {}; // plain: the hazard this test shows
    expect(() => { (plain['constructor'] ??= {})['prototype'] = 1; }).toThrow(TypeError);
    plain['__proto__'] = { x: 1 };
    expect(Object.keys(plain)).toEqual([]); // the entry became the prototype
    const d: Record<string, Record<string, number>> = Object.create(null);
    for (const k of ['constructor', 'prototype', '__proto__', 'toString']) (d[k] ??= Object.create(null))[k] = 1;
    expect(Object.keys(d)).toEqual(['constructor', 'prototype', '__proto__', 'toString']);
    expect(JSON.parse(JSON.stringify(d))).toEqual({ constructor: { constructor: 1 }, prototype: { prototype: 1 }, ['__proto__']: { ['__proto__']: 1 }, toString: { toString: 1 } });
  });
});
