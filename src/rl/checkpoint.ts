// Training checkpoints: weights, optimizer moments, RNG state and metrics in one self-describing blob.
// Layout: magic "ENVACECK" | u32 header length | JSON header | 8-byte aligned float32 tensors.
// The same bytes go to a file in Node and to OPFS/IndexedDB in the browser.

export interface TensorSet { [name: string]: Float32Array }

export interface Checkpoint {
  version: 1;
  runId: string;
  step: number;
  /** Anything JSON: the run config, RNG state, metrics history, model config. */
  meta: Record<string, unknown>;
  /** Named tensor groups, e.g. { params, m, v } or { 'act.params', 'rehearse.params', ... }. */
  tensors: Record<string, TensorSet>;
  shapes: Record<string, number[]>;   // by parameter name (shared across groups)
}

export type CheckpointErrorCode = 'BAD_MAGIC' | 'TRUNCATED' | 'BAD_HEADER' | 'BAD_TENSOR' | 'BAD_CHECKSUM';

export class CheckpointError extends Error {
  constructor(public readonly code: CheckpointErrorCode, message: string) {
    super(message);
    this.name = 'CheckpointError';
  }
}

const MAGIC = 'ENVACECK';

interface HeaderEntry { group: string; name: string; offset: number; length: number }

interface Header {
  version: 1; runId: string; step: number; meta: Record<string, unknown>; shapes: Record<string, number[]>; entries: HeaderEntry[];
  /** CRC-32 of the tensor data (everything after the header); absent in checkpoints written before issue 21. */
  checksum?: number;
}

let CRC_TABLE: Uint32Array | null = null;

/** CRC-32 (IEEE 802.3, as zlib), to tell a checkpoint damaged in storage from a good one. */
export function crc32(b: Uint8Array): number {
  if (!CRC_TABLE) {
    CRC_TABLE = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      CRC_TABLE[n] = c >>> 0;
    }
  }
  const t = CRC_TABLE;
  let c = 0xffffffff;
  for (let i = 0; i < b.length; i++) c = t[(c ^ b[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

export function encodeCheckpoint(ck: Checkpoint): Uint8Array {
  const entries: HeaderEntry[] = [];
  let offset = 0;
  for (const [group, set] of Object.entries(ck.tensors)) {
    for (const [name, t] of Object.entries(set)) {
      entries.push({ group, name, offset, length: t.length });
      offset += t.length * 4;
    }
  }
  const data = new Uint8Array(offset);
  for (const e of entries) {
    const t = ck.tensors[e.group][e.name];
    data.set(new Uint8Array(t.buffer, t.byteOffset, t.byteLength), e.offset);
  }
  const header = JSON.stringify({ version: ck.version, runId: ck.runId, step: ck.step, meta: ck.meta, shapes: ck.shapes, entries, checksum: crc32(data) });
  const hbytes = new TextEncoder().encode(header);
  const pad = (8 - ((12 + hbytes.length) % 8)) % 8;
  const dataStart = 12 + hbytes.length + pad;
  const out = new Uint8Array(dataStart + offset);
  out.set(new TextEncoder().encode(MAGIC), 0);
  new DataView(out.buffer).setUint32(8, hbytes.length + pad, true);
  out.set(hbytes, 12);
  out.fill(0x20, 12 + hbytes.length, dataStart); // pad with spaces so the header stays valid JSON
  out.set(data, dataStart);
  return out;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
const bad = (message: string) => new CheckpointError('BAD_HEADER', message);

/** The header as JSON, every field checked: a damaged or hostile file gets a CheckpointError, never a raw error. */
function checkHeader(v: unknown): Header {
  if (!isObject(v)) throw bad('header is not a JSON object');
  if (v.version !== 1) throw bad(`unsupported checkpoint version ${JSON.stringify(v.version) ?? 'undefined'}`);
  if (typeof v.runId !== 'string') throw bad('runId must be a string');
  if (!isCount(v.step)) throw bad('step must be a non-negative integer');
  if (!isObject(v.meta)) throw bad('meta must be a JSON object');
  if (!isObject(v.shapes)) throw bad('shapes must be a JSON object');
  for (const [k, s] of Object.entries(v.shapes)) {
    if (!Array.isArray(s) || !s.every(isCount)) throw bad(`shape of ${JSON.stringify(k)} must be a list of non-negative integers`);
  }
  if (!Array.isArray(v.entries)) throw bad('missing tensor table');
  for (const [i, e] of v.entries.entries()) {
    if (!isObject(e)) throw new CheckpointError('BAD_TENSOR', `tensor table entry ${i} is not an object`);
    if (typeof e.group !== 'string' || typeof e.name !== 'string') throw new CheckpointError('BAD_TENSOR', `tensor table entry ${i} has no group/name strings`);
    if (!isCount(e.offset) || !isCount(e.length)) {
      throw new CheckpointError('BAD_TENSOR', `tensor ${e.group}/${e.name}: offset and length must be non-negative integers (got ${JSON.stringify(e.offset)}, ${JSON.stringify(e.length)})`);
    }
  }
  if (v.checksum !== undefined && !(isCount(v.checksum) && v.checksum <= 0xffffffff)) throw bad('checksum must be a 32-bit unsigned integer');
  return v as unknown as Header;
}

export function decodeCheckpoint(bytes: Uint8Array): Checkpoint {
  if (!(bytes instanceof Uint8Array)) throw new CheckpointError('TRUNCATED', 'checkpoint is not a byte array');
  if (bytes.length < 12) throw new CheckpointError('TRUNCATED', `checkpoint is ${bytes.length} bytes, shorter than its 12-byte preamble`);
  if (new TextDecoder().decode(bytes.subarray(0, 8)) !== MAGIC) throw new CheckpointError('BAD_MAGIC', 'not an EnvACE checkpoint (magic mismatch)');
  const hlen = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(8, true);
  if (12 + hlen > bytes.length) throw new CheckpointError('TRUNCATED', `header claims ${hlen} bytes but the file has ${bytes.length - 12}`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder().decode(bytes.subarray(12, 12 + hlen)));
  } catch (e) {
    throw new CheckpointError('BAD_HEADER', `header is not JSON: ${(e as Error).message}`);
  }
  const header = checkHeader(parsed);
  const dataStart = 12 + hlen;
  const data = bytes.subarray(dataStart);
  for (const e of header.entries) {
    if (e.offset + e.length * 4 > data.length) throw new CheckpointError('TRUNCATED', `tensor ${e.group}/${e.name} runs past the end of the file`);
  }
  if (header.checksum !== undefined && crc32(data) !== header.checksum) {
    throw new CheckpointError('BAD_CHECKSUM', 'checkpoint is corrupt: its tensor data does not match the checksum written with it');
  }
  // Null-prototype maps: group and tensor names come from the file, and a group named '__proto__' must be an
  // entry, not a write into Object.prototype.
  const tensors: Record<string, TensorSet> = Object.create(null);
  for (const e of header.entries) {
    const set: TensorSet = Object.hasOwn(tensors, e.group) ? tensors[e.group] : (tensors[e.group] = Object.create(null) as TensorSet);
    if (Object.hasOwn(set, e.name)) throw new CheckpointError('BAD_TENSOR', `tensor ${e.group}/${e.name} appears twice`);
    const copy = new Float32Array(e.length);
    new Uint8Array(copy.buffer).set(data.subarray(e.offset, e.offset + e.length * 4));
    set[e.name] = copy;
  }
  return { version: 1, runId: header.runId, step: header.step, meta: header.meta, tensors, shapes: header.shapes };
}

/** Where checkpoints live: a folder in Node, OPFS or IndexedDB in the browser. */
export interface CheckpointStore {
  save(runId: string, bytes: Uint8Array): Promise<void>;
  load(runId: string): Promise<Uint8Array | null>;
  list(): Promise<string[]>;
  remove(runId: string): Promise<void>;
}

/** In-memory store (tests, and the fallback when the browser offers no persistent storage). */
export class MemoryCheckpointStore implements CheckpointStore {
  private data = new Map<string, Uint8Array>();
  async save(runId: string, bytes: Uint8Array) { this.data.set(runId, bytes.slice()); }
  async load(runId: string) { return this.data.get(runId)?.slice() ?? null; }
  async list() { return [...this.data.keys()]; }
  async remove(runId: string) { this.data.delete(runId); }
}
