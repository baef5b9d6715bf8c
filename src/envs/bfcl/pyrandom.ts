// CPython's random.Random (MT19937) reproduced draw for draw, so that ids, timestamps and readings the
// BFCL backends generate from `random.Random(seed)` match the recorded Python output exactly.

const N = 624;
const M = 397;
const MATRIX_A = 0x9908b0df;
const UPPER_MASK = 0x80000000;
const LOWER_MASK = 0x7fffffff;

export class PyRandom {
  private mt = new Uint32Array(N);
  private mti = N + 1;

  constructor(seed?: number | bigint) {
    this.seed(seed ?? 0);
  }

  /** random.seed(n) for an int n: the absolute value, split into 32-bit words, feeds init_by_array. */
  seed(n: number | bigint): void {
    if (typeof n === 'number' && !Number.isInteger(n)) throw new Error('PyRandom.seed supports ints only');
    let v = BigInt(n);
    if (v < 0n) v = -v;
    const key: number[] = [];
    while (v > 0n) {
      key.push(Number(v & 0xffffffffn));
      v >>= 32n;
    }
    if (key.length === 0) key.push(0);
    this.initByArray(key);
  }

  private initGenrand(s: number): void {
    const mt = this.mt;
    mt[0] = s >>> 0;
    for (let i = 1; i < N; i++) {
      const prev = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = (Math.imul(1812433253, prev) + i) >>> 0;
    }
    this.mti = N;
  }

  private initByArray(key: number[]): void {
    const mt = this.mt;
    this.initGenrand(19650218);
    let i = 1;
    let j = 0;
    for (let k = Math.max(N, key.length); k > 0; k--) {
      const prev = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = ((mt[i] ^ Math.imul(prev, 1664525)) + key[j] + j) >>> 0;
      i++;
      j++;
      if (i >= N) { mt[0] = mt[N - 1]; i = 1; }
      if (j >= key.length) j = 0;
    }
    for (let k = N - 1; k > 0; k--) {
      const prev = mt[i - 1] ^ (mt[i - 1] >>> 30);
      mt[i] = ((mt[i] ^ Math.imul(prev, 1566083941)) - i) >>> 0;
      i++;
      if (i >= N) { mt[0] = mt[N - 1]; i = 1; }
    }
    mt[0] = 0x80000000;
  }

  /** One tempered 32-bit output (genrand_uint32). */
  private next32(): number {
    const mt = this.mt;
    if (this.mti >= N) {
      if (this.mti === N + 1) this.initGenrand(5489);
      let kk = 0;
      let y: number;
      for (; kk < N - M; kk++) {
        y = (mt[kk] & UPPER_MASK) | (mt[kk + 1] & LOWER_MASK);
        mt[kk] = mt[kk + M] ^ (y >>> 1) ^ (y & 1 ? MATRIX_A : 0);
      }
      for (; kk < N - 1; kk++) {
        y = (mt[kk] & UPPER_MASK) | (mt[kk + 1] & LOWER_MASK);
        mt[kk] = mt[kk + (M - N)] ^ (y >>> 1) ^ (y & 1 ? MATRIX_A : 0);
      }
      y = (mt[N - 1] & UPPER_MASK) | (mt[0] & LOWER_MASK);
      mt[N - 1] = mt[M - 1] ^ (y >>> 1) ^ (y & 1 ? MATRIX_A : 0);
      this.mti = 0;
    }
    let y = mt[this.mti++];
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  }

  /** random.random(): 53-bit float in [0, 1). */
  random(): number {
    const a = this.next32() >>> 5;
    const b = this.next32() >>> 6;
    return (a * 67108864 + b) / 9007199254740992;
  }

  /** random.getrandbits(k) as a bigint (any k >= 0). Words are consumed least significant first. */
  getrandbitsBig(k: number): bigint {
    if (k < 0) throw new Error('number of bits must be non-negative');
    if (k === 0) return 0n;
    if (k <= 32) return BigInt(this.next32() >>> (32 - k));
    let out = 0n;
    let shift = 0n;
    for (let left = k; left > 0; left -= 32) {
      let w = this.next32();
      if (left < 32) w >>>= 32 - left;
      out |= BigInt(w) << shift;
      shift += 32n;
    }
    return out;
  }

  /** random.getrandbits(k) as a number; k must be <= 53 so the value stays exact. */
  getrandbits(k: number): number {
    if (k > 53) throw new Error('getrandbits: use getrandbitsBig for k > 53');
    if (k <= 32) return k === 0 ? 0 : this.next32() >>> (32 - k);
    return Number(this.getrandbitsBig(k));
  }

  /** Random._randbelow_with_getrandbits: rejection sampling on bit_length(n) bits. */
  randbelow(n: number): number {
    if (!Number.isSafeInteger(n) || n < 0) throw new Error('randbelow: n must be a safe non-negative integer');
    if (n === 0) return 0;
    const k = n.toString(2).length;
    let r = this.getrandbits(k);
    while (r >= n) r = this.getrandbits(k);
    return r;
  }

  /** random.randrange(start, stop?, step?) with Python 3.11 semantics for ints. */
  randrange(start: number, stop?: number, step = 1): number {
    if (stop === undefined) {
      if (start > 0) return this.randbelow(start);
      throw new Error('empty range for randrange()');
    }
    const width = stop - start;
    if (step === 1) {
      if (width > 0) return start + this.randbelow(width);
      throw new Error(`empty range for randrange() (${start}, ${stop}, ${width})`);
    }
    if (step === 0) throw new Error('zero step for randrange()');
    const n = step > 0 ? Math.floor((width + step - 1) / step) : Math.floor((width + step + 1) / step);
    if (n <= 0) throw new Error('empty range for randrange()');
    return start + step * this.randbelow(n);
  }

  /** random.randint(a, b), both ends included. */
  randint(a: number, b: number): number {
    return this.randrange(a, b + 1);
  }

  /** random.uniform(a, b) = a + (b - a) * random(). */
  uniform(a: number, b: number): number {
    return a + (b - a) * this.random();
  }

  /** random.choice(seq). */
  choice<T>(seq: readonly T[]): T {
    if (seq.length === 0) throw new Error('Cannot choose from an empty sequence');
    return seq[this.randbelow(seq.length)];
  }

  /** random.shuffle(x) in place (Python 3.11 algorithm). */
  shuffle<T>(x: T[]): void {
    for (let i = x.length - 1; i > 0; i--) {
      const j = this.randbelow(i + 1);
      [x[i], x[j]] = [x[j], x[i]];
    }
  }

  /** random.getstate()[1] without the trailing index, plus the index: enough to clone exactly. */
  clone(): PyRandom {
    const r = new PyRandom(0);
    r.mt.set(this.mt);
    r.mti = this.mti;
    return r;
  }
}
