import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CheckpointError, decodeCheckpoint, encodeCheckpoint, type Checkpoint } from '../../src/rl/checkpoint';
import { FileCheckpointStore } from '../../src/rl/checkpoint-node';

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
  it('file store saves atomically and lists runs', async () => {
    const store = new FileCheckpointStore(mkdtempSync(join(tmpdir(), 'ck-')));
    await store.save('r1', encodeCheckpoint(sample()));
    expect(await store.list()).toEqual(['r1']);
    expect(decodeCheckpoint((await store.load('r1'))!).step).toBe(42);
    expect(await store.load('missing')).toBeNull();
  });
});
