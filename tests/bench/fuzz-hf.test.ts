// The generators of the two Hugging Face fuzz surfaces (issue 21). onnx-bytes reaches past the protobuf parser: its
// damages once wrote into the shared graph (protobufjs returns a Node Buffer, whose slice() is a view), so the damage
// piled up from case to case and every case — the undamaged control included — ended BAD_ONNX "protobuf parsing
// failed". hf-folder's generator once threw on a tokenizer_config.json an earlier damage had made a JSON number.
import { createHash } from 'node:crypto';
import onnxProto from 'onnx-proto';
import { describe, expect, it } from 'vitest';
import { baseOnnx, damageBytes, damageFolder, damageGraph, hfFolderSurface, onnxBytesSurface, onnxErrorKind } from '../../src/bench/fuzz/hf-folder';
import { surfaceRng } from '../../src/bench/fuzz/harness';
import { HfModelError } from '../../src/engine/hf/source';

const { onnx } = onnxProto;
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const CONTROL = 'unchanged (the control: it must load and run)';

describe('onnx-bytes generator', () => {
  it('never changes the graph it damages, and its control is that graph byte for byte', () => {
    const base = baseOnnx();
    expect(Buffer.isBuffer(base)).toBe(false);
    const before = sha(base);
    const r = surfaceRng(1, 'onnx-bytes');
    let controls = 0;
    for (let i = 0; i < 400; i++) {
      const c = onnxBytesSurface.generate(r, i);
      expect(c.bytes === base).toBe(false); // a copy, even for the control
      if (c.what === CONTROL) { controls++; expect(sha(c.bytes)).toBe(before); }
    }
    expect(controls).toBeGreaterThan(10);
    expect(sha(base)).toBe(before);
  });

  it('copies a Buffer before damaging it (Buffer.slice is a view)', () => {
    const buf = Buffer.from(baseOnnx());
    const before = sha(buf);
    const r = surfaceRng(2, 'onnx-bytes');
    for (let i = 0; i < 200; i++) damageBytes(r, buf);
    expect(sha(buf)).toBe(before);
  });

  it('graph damages still parse as ONNX and change the graph', () => {
    const base = baseOnnx();
    const r = surfaceRng(3, 'onnx-bytes');
    const kinds = new Set<string>();
    let changed = 0;
    for (let i = 0; i < 300; i++) {
      const d = damageGraph(r, base);
      expect(d.what).toMatch(/^graph: /);
      expect(() => onnx.ModelProto.decode(d.bytes)).not.toThrow();
      if (sha(d.bytes) !== sha(base)) changed++;
      kinds.add(d.what.replace(/^graph: (\S+).*$/, '$1'));
    }
    expect(changed).toBeGreaterThan(250); // a few edits can be no-ops (an op replaced by itself)
    expect(kinds.size).toBeGreaterThanOrEqual(6);
  });

  it('outcome codes say where a graph stopped', () => {
    const e = (m: string) => new HfModelError('BAD_ONNX', `onnx/model.onnx: ${m}`, 'onnx/model.onnx');
    expect(onnxErrorKind(e('ONNX Runtime cannot load this graph (Failed to load model because protobuf parsing failed.)'))).toBe('BAD_ONNX:unparsable');
    expect(onnxErrorKind(e("ONNX Runtime cannot load this graph (Invalid model. Node input 't5' is not a graph input)"))).toBe('BAD_ONNX:load');
    expect(onnxErrorKind(e('the graph failed to run (GEMM: Dimension mismatch)'))).toBe('BAD_ONNX:run');
    expect(onnxErrorKind(e("the graph's outputs present.0.key are missing or not float32"))).toBe('BAD_ONNX:outputs');
    expect(onnxErrorKind(e('logits have shape [1, 3, 63], expected [1, n, 64] (config.json vocab_size)'))).toBe('BAD_ONNX:logits-shape');
    expect(onnxErrorKind(new HfModelError('NOT_A_DECODER', 'x', 'onnx/model.onnx'))).toBe('NOT_A_DECODER');
  });
});

describe('onnx-bytes on onnxruntime-node', () => {
  it('the undamaged graph loads and runs; a structural damage fails past the parser', async () => {
    expect(await onnxBytesSurface.run({ bytes: baseOnnx(), what: CONTROL })).toBe('ok');
    // dropping the graph output present.0.key parses and loads, then fails the decoder I/O check
    const m = onnx.ModelProto.decode(baseOnnx());
    m.graph!.output = m.graph!.output!.filter((v) => v.name !== 'present.0.key');
    const bytes = Uint8Array.from(onnx.ModelProto.encode(m).finish());
    const err = await Promise.resolve(onnxBytesSurface.run({ bytes, what: 'graph: output present.0.key dropped' })).catch((x: unknown) => x);
    expect(err).toBeInstanceOf(HfModelError);
    expect(onnxBytesSurface.documented!(err)).toBe('NOT_A_DECODER');
  });
});

describe('hf-folder generator', () => {
  it('damages a folder whose tokenizer_config.json is not an object without throwing', () => {
    const enc = new TextEncoder();
    const r = surfaceRng(5, 'hf-folder');
    for (const tc of ['194', '"text"', '[1,2]', 'null', '{"chat_template": 5}', '{bad']) {
      for (let i = 0; i < 200; i++) {
        const files: Record<string, Uint8Array> = { 'config.json': enc.encode('{}'), 'tokenizer.json': enc.encode('{}'), 'tokenizer_config.json': enc.encode(tc) };
        expect(() => damageFolder(r, files), tc).not.toThrow();
      }
    }
  });

  it('generates the 10,000 cases of `npm run fuzz` (seed 1) without throwing', () => {
    const r = surfaceRng(1, 'hf-folder');
    for (let i = 0; i < 10_000; i++) hfFolderSurface.generate(r, i);
  });
});
