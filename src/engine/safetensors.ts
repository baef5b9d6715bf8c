// safetensors: 8-byte little-endian header length, a JSON header, then raw little-endian tensor data.
// Only F32 and I64 are needed here; other dtypes are rejected rather than silently misread.

export type SafeDType = 'F32' | 'I64';

export interface SafeTensor {
  dtype: SafeDType;
  shape: number[];
  data: Float32Array | BigInt64Array;
}

export type SafeTensors = Record<string, SafeTensor>;

const BYTES: Record<SafeDType, number> = { F32: 4, I64: 8 };

export function f32(shape: number[], data: Float32Array): SafeTensor { return { dtype: 'F32', shape, data }; }
export function i64(shape: number[], data: BigInt64Array): SafeTensor { return { dtype: 'I64', shape, data }; }

/** Serialises tensors (sorted by name, like the reference writer) with optional string metadata. */
export function writeSafetensors(tensors: SafeTensors, metadata?: Record<string, string>): Uint8Array {
  const names = Object.keys(tensors).sort();
  const header: Record<string, unknown> = Object.create(null);
  if (metadata && Object.keys(metadata).length) header.__metadata__ = metadata;
  let offset = 0;
  for (const n of names) {
    const t = tensors[n];
    const numel = t.shape.reduce((a, b) => a * b, 1);
    if (t.data.length !== numel) throw new Error(`${n}: shape ${t.shape} needs ${numel} values, has ${t.data.length}`);
    if (t.dtype === 'F32' && !(t.data instanceof Float32Array)) throw new Error(`${n}: F32 needs Float32Array`);
    if (t.dtype === 'I64' && !(t.data instanceof BigInt64Array)) throw new Error(`${n}: I64 needs BigInt64Array`);
    const nbytes = numel * BYTES[t.dtype];
    header[n] = { dtype: t.dtype, shape: t.shape, data_offsets: [offset, offset + nbytes] };
    offset += nbytes;
  }
  let hjson = new TextEncoder().encode(JSON.stringify(header));
  // Pad the header with spaces to 8 bytes so the data section is aligned for zero-copy views.
  const pad = (8 - (hjson.length % 8)) % 8;
  if (pad) {
    const p = new Uint8Array(hjson.length + pad).fill(0x20);
    p.set(hjson);
    hjson = p;
  }
  const out = new Uint8Array(8 + hjson.length + offset);
  const dv = new DataView(out.buffer);
  dv.setBigUint64(0, BigInt(hjson.length), true);
  out.set(hjson, 8);
  let pos = 8 + hjson.length;
  const le = littleEndian();
  for (const n of names) {
    const t = tensors[n];
    const bytes = new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength);
    if (le) out.set(bytes, pos);
    else writeSwapped(out, pos, t);
    pos += t.data.byteLength;
  }
  return out;
}

export interface ReadResult { tensors: SafeTensors; metadata: Record<string, string> }

export interface ReadOptions {
  /**
   * Read F16 and BF16 tensors as F32 (exact: every half value is a float32). HF checkpoints such as SmolLM2
   * ship BF16; the engine trains in float32.
   */
  widen?: boolean;
}

/** Little-endian 16-bit floats at `at` → float32 (BF16 is the top half of a float32; F16 decoded by fields). */
function widenHalf(dv: DataView, at: number, numel: number, dtype: 'F16' | 'BF16'): Float32Array {
  const out = new Float32Array(numel);
  if (dtype === 'BF16') {
    const bits = new Uint32Array(out.buffer);
    for (let i = 0; i < numel; i++) bits[i] = dv.getUint16(at + 2 * i, true) << 16;
    return out;
  }
  for (let i = 0; i < numel; i++) {
    const b = dv.getUint16(at + 2 * i, true);
    const sign = b & 0x8000 ? -1 : 1, e = (b >> 10) & 0x1f, m = b & 0x3ff;
    out[i] = e === 0 ? sign * m * 2 ** -24 : e === 31 ? (m ? NaN : sign * Infinity) : sign * (1 + m / 1024) * 2 ** (e - 15);
  }
  return out;
}

export function readSafetensors(buf: Uint8Array | ArrayBuffer, opts: ReadOptions = {}): ReadResult {
  const u8 = buf instanceof Uint8Array ? buf : new Uint8Array(buf);
  if (u8.length < 8) throw new Error('safetensors: file too short');
  const dv = new DataView(u8.buffer, u8.byteOffset, u8.byteLength);
  const hlen = Number(dv.getBigUint64(0, true));
  if (8 + hlen > u8.length) throw new Error('safetensors: header length exceeds file');
  let header: Record<string, any>;
  try { header = JSON.parse(new TextDecoder().decode(u8.subarray(8, 8 + hlen))); } catch (e) { throw new Error(`safetensors: header is not JSON (${(e as Error).message})`); }
  if (typeof header !== 'object' || header === null || Array.isArray(header)) throw new Error('safetensors: header is not a JSON object');
  const base = 8 + hlen;
  const dataLen = u8.length - base;
  const tensors: SafeTensors = {};
  let metadata: Record<string, string> = Object.create(null);
  for (const [name, info] of Object.entries(header)) {
    if (name === '__metadata__') { metadata = info; continue; }
    // The header comes from the file: check every field's type before using it.
    if (typeof info !== 'object' || info === null) throw new Error(`safetensors: ${name} is not a tensor entry`);
    const dtype = info.dtype as string;
    if (!Array.isArray(info.shape) || !info.shape.every((d: unknown) => Number.isSafeInteger(d) && (d as number) >= 0)) throw new Error(`safetensors: ${name} has a bad shape`);
    if (!Array.isArray(info.data_offsets) || info.data_offsets.length !== 2 || !info.data_offsets.every((d: unknown) => Number.isSafeInteger(d) && (d as number) >= 0)) throw new Error(`safetensors: ${name} has bad data_offsets`);
    const [s, e] = info.data_offsets as [number, number];
    const shape = info.shape as number[];
    const numel = shape.reduce((a, b) => a * b, 1);
    if (opts.widen && (dtype === 'F16' || dtype === 'BF16')) {
      if (e < s || e > dataLen || e - s !== numel * 2) throw new Error(`safetensors: bad offsets for ${name}`);
      tensors[name] = { dtype: 'F32', shape, data: widenHalf(dv, base + s, numel, dtype) };
      continue;
    }
    if (dtype !== 'F32' && dtype !== 'I64') throw new Error(`safetensors: ${name} has unsupported dtype ${dtype}`);
    if (e < s || e > dataLen || e - s !== numel * BYTES[dtype]) throw new Error(`safetensors: bad offsets for ${name}`);
    // Copy: the source may be unaligned or a shared buffer we must not alias.
    const bytes = u8.slice(base + s, base + e);
    const le = littleEndian();
    if (dtype === 'F32') {
      const a = new Float32Array(bytes.buffer);
      if (!le) swapInPlace(bytes, 4);
      tensors[name] = { dtype, shape, data: a };
    } else {
      const a = new BigInt64Array(bytes.buffer);
      if (!le) swapInPlace(bytes, 8);
      tensors[name] = { dtype, shape, data: a };
    }
  }
  return { tensors, metadata };
}

function littleEndian(): boolean { return new Uint8Array(new Uint16Array([1]).buffer)[0] === 1; }

function swapInPlace(b: Uint8Array, w: number): void {
  for (let i = 0; i < b.length; i += w) b.subarray(i, i + w).reverse();
}

function writeSwapped(out: Uint8Array, pos: number, t: SafeTensor): void {
  const b = new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength).slice();
  swapInPlace(b, BYTES[t.dtype]);
  out.set(b, pos);
}
