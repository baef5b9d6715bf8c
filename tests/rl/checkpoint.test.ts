import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CheckpointError, crc32, decodeCheckpoint, encodeCheckpoint, type Checkpoint } from '../../src/rl/checkpoint';
import { CheckpointStoreError, FileCheckpointStore } from '../../src/rl/checkpoint-node';

function sample(): Checkpoint {
  const w = new Float32Array([1, -2.5, 3e-8, Number.MAX_VALUE > 0 ? 7 : 0]);
  return {
    version: 1, runId: 'run/é', step: 42,
    meta: { config: { lr: 1e-3 }, rng: [1, 2, 3], metrics: [{ step: 1, reward: 0.5 }] },
    tensors: { params: { 'a.weight': w, 'b': new Float32Array([9]) }, m: { 'a.weight': new Float32Array(4).fill(0.1) } },
    shapes: { 'a.weight': [2, 2], b: [1] },
  };
}

describe('checkpoints', () => {
  it('round-trips tensors and metadata bit-exactly', () => {
    const ck = sample();
    const back = decodeCheckpoint(encodeCheckpoint(ck));
    expect(back.step).toBe(42);
    expect(back.runId).toBe('run/é');
    expect(back.meta).toEqual(ck.meta);
    expect(Array.from(back.tensors.params['a.weight'])).toEqual(Array.from(ck.tensors.params['a.weight']));
    expect(Array.from(back.tensors.m['a.weight'])).toEqual(Array.from(ck.tensors.m['a.weight']));
    expect(back.shapes).toEqual(ck.shapes);
  });
  it('rejects damaged files with a structured error', () => {
    const bytes = encodeCheckpoint(sample());
    const code = (f: () => unknown) => { try { f(); return 'none'; } catch (e) { return (e as CheckpointError).code; } };
    expect(code(() => decodeCheckpoint(bytes.subarray(0, bytes.length - 3)))).toBe('TRUNCATED');
    expect(code(() => decodeCheckpoint(new Uint8Array(5)))).toBe('TRUNCATED');
    const bad = bytes.slice(); bad[0] = 0x58;
    expect(code(() => decodeCheckpoint(bad))).toBe('BAD_MAGIC');
    const badHeader = bytes.slice(); badHeader[12] = 0x7d;
    expect(code(() => decodeCheckpoint(badHeader))).toBe('BAD_HEADER');
  });
  /** The file with its JSON header edited (the tensor data kept byte for byte). */
  function editHeader(bytes: Uint8Array, edit: (h: Record<string, any>) => unknown): Uint8Array {
    const hlen = new DataView(bytes.buffer, bytes.byteOffset).getUint32(8, true);
    const h = JSON.parse(new TextDecoder().decode(bytes.subarray(12, 12 + hlen)));
    const next = edit(h);
    const hb = new TextEncoder().encode(JSON.stringify(next === undefined ? h : next));
    const data = bytes.subarray(12 + hlen);
    const out = new Uint8Array(12 + hb.length + data.length);
    out.set(bytes.subarray(0, 8)); new DataView(out.buffer).setUint32(8, hb.length, true);
    out.set(hb, 12); out.set(data, 12 + hb.length);
    return out;
  }
  const fails = (b: Uint8Array): { code: string; message: string } => {
    try { decodeCheckpoint(b); return { code: 'none', message: '' }; } catch (e) {
      expect(e).toBeInstanceOf(CheckpointError); // never a raw RangeError / TypeError
      return { code: (e as CheckpointError).code, message: (e as Error).message };
    }
  };

  it('validates every tensor-table entry (issue 21: these threw raw RangeError/TypeError or decoded garbage)', () => {
    const bytes = encodeCheckpoint(sample());
    const entry = (f: (e: Record<string, unknown>) => void) => editHeader(bytes, (h) => { f(h.entries[0]); });
    expect(fails(entry((e) => { e.length = -1; }))).toMatchObject({ code: 'BAD_TENSOR', message: expect.stringMatching(/params\/a\.weight: offset and length must be non-negative integers/) });
    expect(fails(entry((e) => { e.length = 1.5; })).code).toBe('BAD_TENSOR');
    expect(fails(entry((e) => { e.offset = -4; })).code).toBe('BAD_TENSOR'); // once decoded the bytes before the data
    expect(fails(entry((e) => { e.offset = '0'; })).code).toBe('BAD_TENSOR');
    expect(fails(entry((e) => { e.length = 2 ** 40; })).code).toBe('TRUNCATED');
    expect(fails(entry((e) => { e.group = 7; })).code).toBe('BAD_TENSOR');
    expect(fails(editHeader(bytes, (h) => { h.entries = [null]; })).code).toBe('BAD_TENSOR');
    expect(fails(editHeader(bytes, (h) => { h.entries.push({ ...h.entries[0] }); })).message).toMatch(/appears twice/);
    expect(fails(editHeader(bytes, () => null)).code).toBe('BAD_HEADER');
    expect(fails(editHeader(bytes, () => [1])).code).toBe('BAD_HEADER');
    expect(fails(editHeader(bytes, (h) => { h.step = -1; })).code).toBe('BAD_HEADER');
    expect(fails(editHeader(bytes, (h) => { h.meta = 'x'; })).code).toBe('BAD_HEADER');
    expect(fails(editHeader(bytes, (h) => { h.shapes = { a: [2, -1] }; })).code).toBe('BAD_HEADER');
    expect(fails(editHeader(bytes, (h) => { delete h.entries; })).code).toBe('BAD_HEADER');
  });

  it("a group or tensor named '__proto__' or 'constructor' is an own entry and leaves Object.prototype alone", () => {
    const ck = sample();
    const w = new Float32Array([5, 6]);
    const bytes = editHeader(encodeCheckpoint({ ...ck, tensors: { params: { b: w } } }), (h) => {
      h.entries = [{ group: '__proto__', name: 'polluted', offset: 0, length: 2 }, { group: 'constructor', name: '__proto__', offset: 0, length: 2 }];
    });
    const back = decodeCheckpoint(bytes);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.keys(back.tensors)).toEqual(['__proto__', 'constructor']);
    expect(Array.from(back.tensors['__proto__'].polluted)).toEqual([5, 6]);
    expect(Object.keys(back.tensors.constructor)).toEqual(['__proto__']);
  });

  it('carries a CRC-32 of the tensor data and refuses a corrupt file with a clear message; a file without one still loads', () => {
    expect(crc32(new TextEncoder().encode('123456789'))).toBe(0xcbf43926); // the standard check value
    const bytes = encodeCheckpoint(sample());
    const flipped = bytes.slice(); flipped[flipped.length - 5] ^= 0x10;
    expect(fails(flipped)).toEqual({ code: 'BAD_CHECKSUM', message: 'checkpoint is corrupt: its tensor data does not match the checksum written with it' });
    expect(fails(editHeader(bytes, (h) => { h.checksum = 'x'; })).code).toBe('BAD_HEADER');
    const legacy = editHeader(bytes, (h) => { delete h.checksum; });
    expect(decodeCheckpoint(legacy).step).toBe(42);
    // without a checksum a flipped bit goes unseen: why new files carry one
    const legacyFlipped = legacy.slice(); legacyFlipped[legacyFlipped.length - 5] ^= 0x10;
    expect(decodeCheckpoint(legacyFlipped).step).toBe(42);
  });

  it('file store saves atomically and lists runs', async () => {
    const store = new FileCheckpointStore(mkdtempSync(join(tmpdir(), 'ck-')));
    await store.save('r1', encodeCheckpoint(sample()));
    expect(await store.list()).toEqual(['r1']);
    expect(decodeCheckpoint((await store.load('r1'))!).step).toBe(42);
    expect(await store.load('missing')).toBeNull();
  });

  it('file store: only a missing file is "no checkpoint"; an unreadable one is a CheckpointStoreError (issue 21)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ck-'));
    const store = new FileCheckpointStore(dir);
    expect(await new FileCheckpointStore(join(dir, 'absent')).list()).toEqual([]);
    // A directory where the checkpoint file should be: reading it fails with EISDIR, which must not read as "none".
    mkdirSync(join(dir, 'r2.ckpt'));
    const err = await store.load('r2').then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(CheckpointStoreError);
    expect(err).toMatchObject({ code: 'CHECKPOINT_UNREADABLE', path: join(dir, 'r2.ckpt') });
    expect((err as Error).message).toMatch(/^CHECKPOINT_UNREADABLE: .*r2\.ckpt: .*EISDIR/);
    // A file where the folder should be: listing fails with ENOTDIR.
    writeFileSync(join(dir, 'file'), 'x');
    await expect(new FileCheckpointStore(join(dir, 'file')).list()).rejects.toMatchObject({ code: 'CHECKPOINT_DIR_UNREADABLE' });
  });
});
