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

export class CheckpointError extends Error {
  constructor(public readonly code: 'BAD_MAGIC' | 'TRUNCATED' | 'BAD_HEADER' | 'BAD_TENSOR', message: string) { super(message); }
}

const MAGIC = 'ENVACECK';

interface HeaderEntry { group: string; name: string; offset: number; length: number }

export function encodeCheckpoint(ck: Checkpoint): Uint8Array {
  const entries: HeaderEntry[] = [];
  let offset = 0;
  for (const [group, set] of Object.entries(ck.tensors)) {
    for (const [name, t] of Object.entries(set)) {
      entries.push({ group, name, offset, length: t.length });
      offset += t.length * 4;
    }
  }
  const header = JSON.stringify({ version: ck.version, runId: ck.runId, step: ck.step, meta: ck.meta, shapes: ck.shapes, entries });
  const hbytes = new TextEncoder().encode(header);
  const pad = (8 - ((12 + hbytes.length) % 8)) % 8;
  const dataStart = 12 + hbytes.length + pad;
  const out = new Uint8Array(dataStart + offset);
  out.set(new TextEncoder().encode(MAGIC), 0);
  new DataView(out.buffer).setUint32(8, hbytes.length + pad, true);
  out.set(hbytes, 12);
  out.fill(0x20, 12 + hbytes.length, dataStart); // pad with spaces so the header stays valid JSON
  for (const e of entries) {
    const t = ck.tensors[e.group][e.name];
    out.set(new Uint8Array(t.buffer, t.byteOffset, t.byteLength), dataStart + e.offset);
  }
  return out;
}

export function decodeCheckpoint(bytes: Uint8Array): Checkpoint {
  if (bytes.length < 12) throw new CheckpointError('TRUNCATED', `checkpoint is ${bytes.length} bytes, shorter than its 12-byte preamble`);
  if (new TextDecoder().decode(bytes.subarray(0, 8)) !== MAGIC) throw new CheckpointError('BAD_MAGIC', 'not an EnvACE checkpoint (magic mismatch)');
  const hlen = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(8, true);
  if (12 + hlen > bytes.length) throw new CheckpointError('TRUNCATED', `header claims ${hlen} bytes but the file has ${bytes.length - 12}`);
  let header: { version: 1; runId: string; step: number; meta: Record<string, unknown>; shapes: Record<string, number[]>; entries: HeaderEntry[] };
  try {
    header = JSON.parse(new TextDecoder().decode(bytes.subarray(12, 12 + hlen)));
  } catch (e) {
    throw new CheckpointError('BAD_HEADER', `header is not JSON: ${(e as Error).message}`);
  }
  if (header.version !== 1 || !Array.isArray(header.entries)) throw new CheckpointError('BAD_HEADER', 'unsupported checkpoint version or missing tensor table');
  const dataStart = 12 + hlen;
  const tensors: Record<string, TensorSet> = {};
  for (const e of header.entries) {
    const start = dataStart + e.offset;
    if (start + e.length * 4 > bytes.length) throw new CheckpointError('TRUNCATED', `tensor ${e.group}/${e.name} runs past the end of the file`);
    const copy = new Float32Array(e.length);
    new Uint8Array(copy.buffer).set(bytes.subarray(start, start + e.length * 4));
    (tensors[e.group] ??= {})[e.name] = copy;
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
