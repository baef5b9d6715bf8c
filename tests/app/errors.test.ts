import { describe, expect, it } from 'vitest';
import { isRawJsError, userError } from '../../src/app/errors';

describe('userError: raw engine messages become the page\'s words (issue 42)', () => {
  it('ONNX Runtime\'s own errors are replaced, never shown raw', () => {
    for (const raw of ['Session already started', 'Session mismatch', 'failed to call OrtRun(). ERROR_CODE: 2, ERROR_MESSAGE: bad', "Can't create a session. ERROR_CODE: 7"]) {
      const shown = userError(new Error(raw), 'the rollout');
      expect(shown).toMatch(/^the rollout failed inside ONNX Runtime/);
      expect(shown).not.toContain(raw);
      expect(isRawJsError(raw)).toBe(true);
      expect(isRawJsError(shown)).toBe(false);
    }
  });

  it('the worker\'s own sentences pass through unchanged', () => {
    expect(userError(new Error('no model loaded: pick one on the Models page'))).toBe('no model loaded: pick one on the Models page');
  });
});

describe('the status bar says why WASM computes in words (issue 42, point 8)', async () => {
  const { reasonInWords } = await import('../../src/app/errors');
  it('a null adapter and a missing navigator.gpu are explained, the raw result kept', () => {
    expect(reasonInWords('requestAdapter returned null')).toBe('this browser offers no WebGPU adapter, so WASM computes on the CPU (requestAdapter returned null)');
    expect(reasonInWords('forced ?backend=webgpu unavailable: no navigator.gpu')).toMatch(/^WebGPU was asked for but this browser has no WebGPU/);
    expect(reasonInWords('forced by ?backend=wasm')).toBe('forced by ?backend=wasm');
  });
});
