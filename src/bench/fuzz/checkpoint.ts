// Fuzz surface of checkpoint bytes: what the Train page and `npm run train -- --resume` hand decodeCheckpoint
// after a file sat in OPFS, IndexedDB or a folder. A small valid checkpoint, then one to three damages: the
// file truncated, bytes flipped anywhere or only in the tensor data, the header length lying, the magic
// changed, header fields dropped/retyped/added, tensor-table entries with hostile offsets and lengths
// (−1, 1.5, 2^40, null, a string), `entries: [null]`, duplicate or prototype-named groups, the checksum
// dropped or changed. Documented error: CheckpointError (with its code). Violations: corrupt tensor data
// accepted while the header still carries the original checksum, Object.prototype written to, or a decoded
// checkpoint that does not survive encode → decode unchanged.

import { CheckpointError, decodeCheckpoint, encodeCheckpoint, type Checkpoint } from '../../rl/checkpoint';
import { FuzzRng, mutateValue, PROTO_KEYS, randomValue, setOwn } from './gen';
import { FuzzViolation, type Surface } from './harness';

const dec = new TextDecoder();
const enc = new TextEncoder();

interface Base { bytes: Uint8Array; header: Record<string, unknown>; data: Uint8Array; checksum: number }
let base: Base | null = null;

function baseCheckpoint(): Base {
  if (base) return base;
  const f = (n: number, k: number) => Float32Array.from({ length: n }, (_, i) => Math.sin(i * k) * 0.1);
  const ck: Checkpoint = {
    version: 1, runId: 'fuzz-run', step: 30,
    meta: { config: { lr: 1e-3, variant: 'envace' }, adamSteps: [30], history: [{ step: 1, reward: 0.5 }], evals: [] },
    tensors: { '0.params': { 'embed.weight': f(24, 1), 'norm.weight': f(4, 2) }, '0.m': { 'embed.weight': f(24, 3), 'norm.weight': f(4, 4) }, '0.v': { 'embed.weight': f(24, 5), 'norm.weight': f(4, 6) } },
    shapes: { 'embed.weight': [6, 4], 'norm.weight': [4] },
  };
  const bytes = encodeCheckpoint(ck);
  const parts = split(bytes)!;
  base = { bytes, header: parts.header as Record<string, unknown>, data: parts.data, checksum: (parts.header as { checksum: number }).checksum };
  return base;
}

/** Header and data of a file whose preamble is intact, or null. */
function split(b: Uint8Array): { header: unknown; data: Uint8Array; hlen: number } | null {
  if (b.length < 12) return null;
  const hlen = new DataView(b.buffer, b.byteOffset, b.byteLength).getUint32(8, true);
  if (12 + hlen > b.length) return null;
  try { return { header: JSON.parse(dec.decode(b.subarray(12, 12 + hlen))), data: b.subarray(12 + hlen), hlen }; } catch { return null; }
}

/** The file with its header replaced (the data section kept byte for byte). */
function withHeader(b: Uint8Array, header: unknown): Uint8Array {
  const p = split(b);
  const data = p ? p.data : b.subarray(Math.min(b.length, 12));
  const h = enc.encode(JSON.stringify(header) ?? 'null');
  const out = new Uint8Array(12 + h.length + data.length);
  out.set(b.subarray(0, 8), 0);
  new DataView(out.buffer).setUint32(8, h.length, true);
  out.set(h, 12);
  out.set(data, 12 + h.length);
  return out;
}

const HOSTILE_NUMBERS: readonly unknown[] = [-1, 1.5, -4, 2 ** 40, 2 ** 53, 1e308, null, '4', true, [], {}, 0, 3, 7, 100];

function damage(r: FuzzRng, b: Uint8Array): { bytes: Uint8Array; what: string } {
  const p = split(b);
  const header = p?.header as Record<string, unknown> | undefined;
  switch (r.int(11)) {
    case 0: return { bytes: b.slice(0, r.int(b.length)), what: 'truncated' };
    case 1: {
      const c = b.slice();
      for (let i = r.range(1, 6); i > 0; i--) c[r.int(c.length)] = r.int(256);
      return { bytes: c, what: 'bytes flipped' };
    }
    case 2: { // only in the tensor data: the checksum must catch it
      if (!p || !p.data.length) return { bytes: b, what: 'none' };
      const c = b.slice();
      for (let i = r.range(1, 4); i > 0; i--) c[12 + p.hlen + r.int(p.data.length)] ^= 1 << r.int(8);
      return { bytes: c, what: 'data bits flipped' };
    }
    case 3: { // the header length lies
      if (b.length < 12) return { bytes: b, what: 'none' };
      const c = b.slice();
      const hlen = p?.hlen ?? 0;
      new DataView(c.buffer).setUint32(8, r.pick([0, 1, 7, hlen - 1, hlen + 1, hlen + 4, 2 ** 32 - 1, b.length]) >>> 0, true);
      return { bytes: c, what: 'header length changed' };
    }
    case 4: { const c = b.slice(); c[r.int(8)] = r.int(256); return { bytes: c, what: 'magic changed' }; }
    case 5: case 6: { // a header field dropped, retyped or added
      if (!header) return { bytes: b, what: 'none' };
      return { bytes: withHeader(b, mutateValue(r, header)), what: 'header field changed' };
    }
    case 7: case 8: { // a tensor-table entry with a hostile field, or a hostile entry
      if (!header || !Array.isArray(header.entries) || !header.entries.length) return { bytes: b, what: 'none' };
      const h = { ...header, entries: [...header.entries] };
      const i = r.int(h.entries.length);
      const e = h.entries[i];
      const kind = r.int(6);
      if (kind === 0 || typeof e !== 'object' || e === null) h.entries[i] = r.pick([null, 7, 'x', [], randomValue(r, 2)]);
      else if (kind === 1) h.entries.push(r.bool() ? null : { ...e });             // `entries: [.., null]` or a duplicate
      else if (kind === 2) h.entries[i] = setOwn({ ...e }, r.pick(['group', 'name']), r.pick(PROTO_KEYS)); // prototype-named group/name
      else h.entries[i] = setOwn({ ...e }, r.pick(['offset', 'length', 'offset', 'length', 'group']), r.pick(HOSTILE_NUMBERS));
      return { bytes: withHeader(b, h), what: 'tensor entry changed' };
    }
    case 9: { // the checksum dropped (a legacy file) or wrong
      if (!header) return { bytes: b, what: 'none' };
      const h: Record<string, unknown> = { ...header };
      if (r.bool()) delete h.checksum; else h.checksum = r.pick([0, -1, 1.5, 'x', 2 ** 32, (base!.checksum + 1) >>> 0]);
      return { bytes: withHeader(b, h), what: 'checksum changed' };
    }
    default: return { bytes: Uint8Array.from({ length: r.int(64) }, () => r.int(256)), what: 'random bytes' };
  }
}

interface Input { bytes: Uint8Array; what: string[] }

function protoSnapshot(): string {
  return Object.getOwnPropertyNames(Object.prototype).sort().join(',');
}
let protoBefore = '';

function sameFloats(a: Float32Array, b: Float32Array): boolean {
  if (a.length !== b.length) return false;
  const x = new Uint32Array(a.buffer, a.byteOffset, a.length); const y = new Uint32Array(b.buffer, b.byteOffset, b.length);
  return x.every((v, i) => v === y[i]);
}

export const checkpointSurface: Surface<Input> = {
  name: 'checkpoint-bytes',
  about: 'checkpoint files (truncated, bytes or tensor-data bits flipped, header length/magic/fields/tensor entries/checksum changed) through decodeCheckpoint; documented error: CheckpointError; violations: corrupt data accepted under the original checksum, Object.prototype written, a decode that does not round-trip',
  setup: () => { baseCheckpoint(); protoBefore = protoSnapshot(); },
  generate(r) {
    let bytes = baseCheckpoint().bytes;
    const what: string[] = [];
    for (let i = r.bool(0.75) ? 1 : r.range(2, 3); i > 0; i--) { const d = damage(r, bytes); bytes = d.bytes; what.push(d.what); }
    return { bytes, what };
  },
  run({ bytes }) {
    let ck: Checkpoint;
    try {
      ck = decodeCheckpoint(bytes);
    } finally {
      if (protoSnapshot() !== protoBefore) throw new FuzzViolation('prototype-polluted', `Object.prototype now has ${protoSnapshot()}`);
    }
    const p = split(bytes)!;
    const header = p.header as { checksum?: unknown };
    const b = baseCheckpoint();
    if (header.checksum === b.checksum && (p.data.length !== b.data.length || !p.data.every((x, i) => x === b.data[i]))) {
      throw new FuzzViolation('corrupt-data-accepted', 'tensor data differs from what its checksum was computed on, and the checkpoint decoded');
    }
    const again = decodeCheckpoint(encodeCheckpoint(ck));
    const groups = Object.keys(ck.tensors);
    if (JSON.stringify(Object.keys(again.tensors)) !== JSON.stringify(groups) || again.step !== ck.step || again.runId !== ck.runId
      || groups.some((g) => Object.keys(ck.tensors[g]).some((n) => !Object.hasOwn(again.tensors[g], n) || !sameFloats(ck.tensors[g][n], again.tensors[g][n])))) {
      throw new FuzzViolation('no-round-trip', 'a decoded checkpoint changed under encode → decode');
    }
    return header.checksum === undefined ? 'ok:legacy' : 'ok';
  },
  documented: (e) => (e instanceof CheckpointError ? e.code : null),
  show: ({ bytes, what }) => `${what.join('; ')} (${bytes.length} bytes)`,
};
