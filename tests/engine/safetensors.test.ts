import { describe, it, expect } from 'vitest';
import { readSafetensors, writeSafetensors, f32, i64 } from '../../src/engine/safetensors';

describe('safetensors', () => {
  it('round trips F32 and I64 with metadata', () => {
    const w = new Float32Array([1.5, -2, Math.PI, 1e-30, -0, Infinity]);
    const ids = new BigInt64Array([0n, -1n, 9007199254740993n, -(2n ** 63n)]);
    const buf = writeSafetensors({ 'model.w': f32([2, 3], w), ids: i64([4], ids), empty: f32([0, 4], new Float32Array(0)) }, { format: 'pt' });
    const { tensors, metadata } = readSafetensors(buf);
    expect(metadata).toEqual({ format: 'pt' });
    expect(tensors['model.w'].shape).toEqual([2, 3]);
    expect(Array.from(tensors['model.w'].data as Float32Array)).toEqual(Array.from(w));
    expect(Object.is((tensors['model.w'].data as Float32Array)[4], -0)).toBe(true);
    expect(Array.from(tensors.ids.data as BigInt64Array)).toEqual(Array.from(ids));
    expect(tensors.empty.shape).toEqual([0, 4]);
  });

  it('writes the exact byte layout of the format', () => {
    const buf = writeSafetensors({ b: f32([1], new Float32Array([1])), a: i64([1], new BigInt64Array([2n])) });
    const hlen = Number(new DataView(buf.buffer).getBigUint64(0, true));
    expect(hlen % 8).toBe(0);
    const header = JSON.parse(new TextDecoder().decode(buf.subarray(8, 8 + hlen)));
    // Sorted names, contiguous offsets from 0.
    expect(header).toEqual({
      a: { dtype: 'I64', shape: [1], data_offsets: [0, 8] },
      b: { dtype: 'F32', shape: [1], data_offsets: [8, 12] },
    });
    expect(buf.length).toBe(8 + hlen + 12);
    expect(Array.from(buf.subarray(8 + hlen))).toEqual([2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80, 0x3f]);
  });

  it('reads a hand-made file with an unpadded header and rejects bad input', () => {
    const h = new TextEncoder().encode('{"x":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}');
    const buf = new Uint8Array(8 + h.length + 8);
    new DataView(buf.buffer).setBigUint64(0, BigInt(h.length), true);
    buf.set(h, 8);
    new DataView(buf.buffer).setFloat32(8 + h.length, 2.5, true);
    new DataView(buf.buffer).setFloat32(8 + h.length + 4, -1, true);
    expect(Array.from(readSafetensors(buf).tensors.x.data as Float32Array)).toEqual([2.5, -1]);
    expect(() => readSafetensors(buf.subarray(0, buf.length - 1))).toThrow();
    expect(() => writeSafetensors({ x: f32([3], new Float32Array(2)) })).toThrow();
  });
});
