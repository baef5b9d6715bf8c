// Deterministic randomness for the built-in worlds. Task generation must be a pure function of
// (world, seed) on every JS engine, so we use our own integer-only PRNG (mulberry32) instead of
// Math.random, and a separate string/number hash for decisions that must be cheap to compute
// without generating the task (train/test split, difficulty).

/** mulberry32: tiny, fast, good enough for picking names and prices; 32-bit state. */
export function mulberry32(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) | 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** FNV-1a over the string form of the parts, then the murmur3 finaliser so that nearby seeds spread. */
export function hash32(...parts: (string | number)[]): number {
  let h = 0x811c9dc5;
  const s = parts.join('\u0001');
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16; h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13; h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

export class Rng {
  private readonly next: () => number;
  constructor(seed: number) {
    // Hash the seed first: mulberry32 streams for consecutive seeds start out correlated.
    this.next = mulberry32(hash32('rng', seed));
  }
  float(): number { return this.next(); }
  /** Integer in [lo, hi] inclusive. */
  int(lo: number, hi: number): number { return lo + Math.floor(this.next() * (hi - lo + 1)); }
  chance(p: number): boolean { return this.next() < p; }
  pick<T>(xs: readonly T[]): T {
    if (xs.length === 0) throw new Error('Rng.pick on an empty list');
    return xs[Math.floor(this.next() * xs.length)];
  }
  shuffle<T>(xs: readonly T[]): T[] {
    const a = xs.slice();
    for (let i = a.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      [a[i], a[j]] = [a[j], a[i]];
    }
    return a;
  }
  /** k distinct elements, in random order. */
  sample<T>(xs: readonly T[], k: number): T[] { return this.shuffle(xs).slice(0, Math.min(k, xs.length)); }
  /** Fixed-width decimal string, e.g. digits(4) -> '0371'. */
  digits(n: number): string {
    let s = '';
    for (let i = 0; i < n; i++) s += String(this.int(0, 9));
    return s;
  }
  /** Pick by weight; weights need not be normalised. */
  weighted<T>(xs: readonly [T, number][]): T {
    const total = xs.reduce((a, [, w]) => a + w, 0);
    let r = this.next() * total;
    for (const [x, w] of xs) { if ((r -= w) < 0) return x; }
    return xs[xs.length - 1][0];
  }
}
