// Caller-side KV cache for the decode-step graph (exportDecodeStep). Slots live in fixed-capacity
// [batch, kv_heads, capacity, head_dim] buffers and unused slots are masked out through
// attention_mask, so the graph always sees past_sequence_length = capacity: nothing is moved per
// step, and shapes change only when the capacity doubles (WebGPU compiles shaders per shape).
import { type LlamaConfig, headDim } from './decoder';
import { type HostTensor, f32, i64 } from './runtime';

export class KvCache {
  readonly B: number; readonly H: number; readonly hd: number; readonly layers: number;
  capacity: number;
  length = 0; // slots used (same for every row; rows differ only in which slots are valid)
  keys: Float32Array[]; values: Float32Array[];
  valid: Uint8Array; // [B, capacity]: 1 where the slot holds a real (non-pad) token

  constructor(cfg: LlamaConfig, batch: number, initialCapacity = 64, readonly maxCapacity = cfg.max_position_embeddings) {
    this.B = batch; this.H = cfg.num_key_value_heads; this.hd = headDim(cfg); this.layers = cfg.num_hidden_layers;
    this.capacity = Math.min(initialCapacity, maxCapacity);
    const n = this.B * this.H * this.capacity * this.hd;
    this.keys = Array.from({ length: this.layers }, () => new Float32Array(n));
    this.values = Array.from({ length: this.layers }, () => new Float32Array(n));
    this.valid = new Uint8Array(this.B * this.capacity);
  }

  private grow(need: number): void {
    if (need > this.maxCapacity) throw new Error(`KV cache needs ${need} slots, max ${this.maxCapacity}`);
    let cap = this.capacity;
    while (cap < need) cap *= 2;
    cap = Math.min(cap, this.maxCapacity);
    const relayout = (old: Float32Array) => {
      const out = new Float32Array(this.B * this.H * cap * this.hd);
      for (let bh = 0; bh < this.B * this.H; bh++) {
        out.set(old.subarray(bh * this.capacity * this.hd, (bh * this.capacity + this.length) * this.hd), bh * cap * this.hd);
      }
      return out;
    };
    this.keys = this.keys.map(relayout);
    this.values = this.values.map(relayout);
    const v = new Uint8Array(this.B * cap);
    for (let b = 0; b < this.B; b++) v.set(this.valid.subarray(b * this.capacity, b * this.capacity + this.length), b * cap);
    this.valid = v;
    this.capacity = cap;
  }

  /**
   * Feeds for one call with S new tokens per row. `ids`, `positions` and `newValid` are row-major
   * [B, S]; newValid marks real tokens (0 for left padding). Grows the cache first if needed, so
   * the capacity after this call bounds the slots the outputs will be written to.
   */
  feeds(ids: ArrayLike<number>, positions: ArrayLike<number>, newValid: ArrayLike<number>, S: number): Record<string, HostTensor> {
    if (this.length + S > this.capacity) this.grow(this.length + S);
    const C = this.capacity, B = this.B;
    const mask = new Array<number>(B * (C + S));
    for (let b = 0; b < B; b++) {
      for (let c = 0; c < C; c++) mask[b * (C + S) + c] = this.valid[b * C + c];
      for (let s = 0; s < S; s++) mask[b * (C + S) + C + s] = newValid[b * S + s] ? 1 : 0;
    }
    const f: Record<string, HostTensor> = {
      input_ids: i64(ids, [B, S]),
      position_ids: i64(positions, [B, S]),
      attention_mask: i64(mask, [B, C + S]),
    };
    for (let i = 0; i < this.layers; i++) {
      f[`past_key_values.${i}.key`] = f32(this.keys[i], [B, this.H, C, this.hd]);
      f[`past_key_values.${i}.value`] = f32(this.values[i], [B, this.H, C, this.hd]);
    }
    return f;
  }

  /** Stores the step graph's new.{i}.key/value ([B, H, S, hd]) in the next S slots. */
  commit(out: Record<string, HostTensor>, newValid: ArrayLike<number>, S: number): void {
    const { B, H, hd } = this, C = this.capacity, at = this.length;
    for (let i = 0; i < this.layers; i++) {
      for (const [dst, src] of [[this.keys[i], out[`new.${i}.key`].data], [this.values[i], out[`new.${i}.value`].data]] as [Float32Array, Float32Array][]) {
        for (let bh = 0; bh < B * H; bh++) dst.set(src.subarray(bh * S * hd, (bh + 1) * S * hd), (bh * C + at) * hd);
      }
    }
    for (let b = 0; b < B; b++) for (let s = 0; s < S; s++) this.valid[b * C + at + s] = newValid[b * S + s] ? 1 : 0;
    this.length += S;
  }
}
