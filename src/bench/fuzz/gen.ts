// Seeded generators of malformed and adversarial inputs. Everything is a pure function of the seed, so a
// crash found at case i of a run reproduces with the same seed and case count.

/** mulberry32: small, fast, and good enough to pick mutations; not for statistics. */
export class FuzzRng {
  private s: number;
  constructor(seed: number) { this.s = seed >>> 0; }
  next(): number {
    this.s = (this.s + 0x6d2b79f5) >>> 0;
    let t = this.s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(n: number): number { return Math.floor(this.next() * n); }
  range(lo: number, hi: number): number { return lo + this.int(hi - lo + 1); }
  bool(p = 0.5): boolean { return this.next() < p; }
  pick<T>(xs: readonly T[]): T { return xs[this.int(xs.length)]; }
}

/** Strings that have broken parsers before: markup, quotes, control and non-BMP characters, lone surrogates. */
export const NASTY_STRINGS: readonly string[] = [
  '', ' ', '\n', '\r\n', '\t', '\u0000', '\uFEFF', '\u202E', '\uD800', '\uDC00', '🙂', 'é', '日本語', '"', "'", '\\', '\\u0000', '\\ud800',
  '{', '}', '[', ']', ':', ',', 'null', 'true', 'NaN', 'Infinity', '-0', '1e309', '9007199254740993', '0x10', '__proto__',
  'constructor', 'toString', 'hasOwnProperty', '<script>alert(1)</script>', '<img src=x onerror=alert(1)>', 'javascript:alert(1)',
  '<tool_call>', '</tool_call>', '<execution_result>', '</execution_result>', '<think>', '</think>', '<|end|>', '<|im_end|>',
  '${x}', '%s%n', '../../etc/passwd', 'a'.repeat(1000),
];

/** Names every plain object inherits: as data keys they have broken `in` checks and plain-object maps before. */
export const PROTO_KEYS: readonly string[] = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf', '__defineGetter__', 'prototype'];

/**
 * Sets an own property, whatever the key: `o[k] = v` with k = '__proto__' would set the prototype instead
 * (which is how the generator once made 6 own '__proto__' keys in 200,000 values).
 */
export function setOwn<T extends object>(o: T, k: string, v: unknown): T {
  Object.defineProperty(o, k, { value: v, writable: true, enumerable: true, configurable: true });
  return o;
}

/** A key for a generated object: mostly random text, often a nasty string or an inherited name. */
export function randomKey(r: FuzzRng): string {
  const k = r.next();
  return k < 0.7 ? randomString(r, 8) : k < 0.85 ? r.pick(NASTY_STRINGS) : r.pick(PROTO_KEYS);
}

const ALPHABET = 'abcxyz019 _-.,:;"\'{}[]()<>/\\\n\t#@é🙂\u0000';

export function randomString(r: FuzzRng, maxLen = 40): string {
  const n = r.int(maxLen + 1);
  let s = '';
  for (let i = 0; i < n; i++) {
    const k = r.int(10);
    if (k < 6) s += ALPHABET[r.int(ALPHABET.length)];
    else if (k < 8) s += String.fromCharCode(r.int(0x80));
    else if (k < 9) s += String.fromCharCode(r.int(0x10000));   // lone surrogates included
    else s += r.pick(NASTY_STRINGS).slice(0, 20);
  }
  return s;
}

/** A JSON-like value of bounded depth, including values JSON cannot carry (undefined, NaN, functions are not produced). */
export function randomValue(r: FuzzRng, depth = 3): unknown {
  const k = r.int(depth > 0 ? 11 : 8);
  switch (k) {
    case 0: return null;
    case 1: return r.bool();
    case 2: return r.int(2000) - 1000;
    case 3: return r.pick([0, -0, 0.5, -1.5, 1e308, -1e-308, Number.MAX_SAFE_INTEGER + 2, NaN, Infinity, -Infinity]);
    case 4: case 5: return randomString(r, 20);
    case 6: return r.pick(NASTY_STRINGS);
    case 7: return undefined;
    case 8: return Array.from({ length: r.int(5) }, () => randomValue(r, depth - 1));
    default: {
      const o: Record<string, unknown> = {}; // plain: a parsed file's object, its keys set by setOwn
      for (let i = r.int(5); i > 0; i--) setOwn(o, randomKey(r), randomValue(r, depth - 1));
      return o;
    }
  }
}

/** Deeply nested arrays/objects: recursion limits are a classic crash. */
export function deepNest(r: FuzzRng, depth: number): string {
  const open = r.bool() ? '['.repeat(depth) : '{"a":'.repeat(depth);
  const close = open.startsWith('[') ? ']'.repeat(depth) : '}'.repeat(depth);
  return open + '1' + close;
}

/** One random edit of a text: truncate, delete/duplicate/replace a slice, insert junk, or flip a character. */
export function mutateString(r: FuzzRng, s: string): string {
  const at = r.int(s.length + 1);
  const len = r.int(Math.max(1, Math.min(40, s.length - at + 1)));
  switch (r.int(8)) {
    case 0: return s.slice(0, at);
    case 1: return s.slice(0, at) + s.slice(at + len);
    case 2: return s.slice(0, at) + s.slice(at, at + len) + s.slice(at);
    case 3: return s.slice(0, at) + randomString(r, 12) + s.slice(at + len);
    case 4: return s.slice(0, at) + r.pick(NASTY_STRINGS) + s.slice(at);
    case 5: return s.slice(0, at) + String.fromCharCode(r.int(0x10000)) + s.slice(at + 1);
    case 6: return s.slice(at) + s.slice(0, at);
    default: return s + s.slice(0, len);
  }
}

export function mutateN(r: FuzzRng, s: string, maxEdits = 4): string {
  let out = s;
  for (let i = r.range(1, maxEdits); i > 0; i--) out = mutateString(r, out);
  return out;
}

/** One random edit of a JSON-like value: a key dropped, retyped or added somewhere inside it. */
export function mutateValue(r: FuzzRng, v: unknown, depth = 0): unknown {
  if (depth > 6 || v === null || typeof v !== 'object' || r.bool(0.25)) return r.bool(0.5) ? randomValue(r, 2) : v;
  if (Array.isArray(v)) {
    const a = [...v];
    if (!a.length || r.bool(0.3)) { a.push(randomValue(r, 2)); return a; }
    const i = r.int(a.length);
    if (r.bool(0.2)) a.splice(i, 1); else a[i] = mutateValue(r, a[i], depth + 1);
    return a;
  }
  const o = { ...(v as Record<string, unknown>) };
  const keys = Object.keys(o);
  if (!keys.length || r.bool(0.15)) return setOwn(o, randomKey(r), randomValue(r, 2));
  const k = r.pick(keys);
  if (r.bool(0.1)) return renameKey(o, k, r.pick(PROTO_KEYS));
  if (r.bool(0.2)) delete o[k]; else setOwn(o, k, mutateValue(r, o[k], depth + 1));
  return o;
}

/**
 * v with one key of every object at `depth` (0: v itself; arrays do not count) renamed to a prototype name: the
 * names a reader files entries under (worlds, modes, variants, tools) all get one in the same case.
 */
export function protoNamesAt(r: FuzzRng, v: unknown, depth: number): unknown {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map((x) => protoNamesAt(r, x, depth));
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o);
  if (depth === 0) return keys.length ? renameKey(o, r.pick(keys), r.pick(PROTO_KEYS)) : o;
  const out: Record<string, unknown> = {}; // plain: a parsed file's object, its keys set by setOwn
  for (const k of keys) setOwn(out, k, protoNamesAt(r, o[k], depth - 1));
  return out;
}

/**
 * The object with key `from` renamed to `to`, its value and the key order kept: a well-formed entry under a
 * prototype name reaches the code that files it by name (a reader that checks the value first never sees an
 * added junk entry there), which is where `dict[name] ??= {}` on a plain object writes into Object.
 */
export function renameKey(o: Record<string, unknown>, from: string, to: string): Record<string, unknown> {
  const out: Record<string, unknown> = {}; // plain: a parsed file's object, its keys set by setOwn
  for (const k of Object.keys(o)) if (k !== to || k === from) setOwn(out, k === from ? to : k, o[k]);
  return out;
}
