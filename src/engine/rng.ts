// Seeded PRNG shared by init, tests and sampling: sfc32 seeded through splitmix32, so any
// 32-bit seed (including 0 and small consecutive ones) gives well-mixed, independent streams.

function splitmix32(s: number): () => number {
  return () => {
    s = (s + 0x9e3779b9) | 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  };
}

export class Rng {
  private a: number; private b: number; private c: number; private d: number;
  private spare: number | null = null;

  constructor(seed: number) {
    const sm = splitmix32(seed >>> 0);
    this.a = sm(); this.b = sm(); this.c = sm(); this.d = sm();
    for (let i = 0; i < 12; i++) this.u32();
  }

  u32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** Uniform in [0, 1) with 32 bits of resolution. */
  uniform(): number { return this.u32() / 4294967296; }

  /** Integer in [0, n). */
  int(n: number): number { return Math.floor(this.uniform() * n); }

  /** Standard normal (Box–Muller; the second value is kept for the next call). */
  normal(): number {
    if (this.spare !== null) { const s = this.spare; this.spare = null; return s; }
    let u = 0;
    while (u === 0) u = this.uniform();
    const v = this.uniform();
    const r = Math.sqrt(-2 * Math.log(u));
    this.spare = r * Math.sin(2 * Math.PI * v);
    return r * Math.cos(2 * Math.PI * v);
  }

  /** A new independent generator derived from this one (e.g. one per request). */
  fork(): Rng { return new Rng(this.u32()); }

  /** Same values as repeated normal() calls, without the per-call overhead (init of 8M weights). */
  fillNormal(out: Float32Array, std = 1, mean = 0): Float32Array {
    let i = 0;
    if (this.spare !== null && out.length) out[i++] = mean + std * this.normal();
    for (; i + 1 < out.length; i += 2) {
      let u = 0;
      while (u === 0) u = this.uniform();
      const v = this.uniform();
      const r = Math.sqrt(-2 * Math.log(u)), a = 2 * Math.PI * v;
      out[i] = mean + std * (r * Math.cos(a));
      out[i + 1] = mean + std * (r * Math.sin(a));
    }
    if (i < out.length) out[i] = mean + std * this.normal();
    return out;
  }

  fillUniform(out: Float32Array, lo = 0, hi = 1): Float32Array {
    for (let i = 0; i < out.length; i++) out[i] = lo + (hi - lo) * this.uniform();
    return out;
  }
}
