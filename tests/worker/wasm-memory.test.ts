// The soak run's memory figure: every wasm memory the worker creates or instantiates is counted, growth shows.

import { describe, expect, it } from 'vitest';
import { trackWasmMemory, wasmMemoryBytes } from '../../src/worker/wasm-memory';

const PAGE = 64 * 1024;
// (module (memory (export "mem") 1)): a module that makes its own memory, as a non-threaded ORT build does.
const EXPORTS_MEMORY = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 5, 3, 1, 0, 1, 7, 7, 1, 3, 109, 101, 109, 2, 0]);

describe('wasm memory tracker', () => {
  it('refuses to report before it is installed', () => {
    expect(() => wasmMemoryBytes()).toThrow(/not installed/);
  });

  it('counts memories made in JS and exported by instances, and their growth', async () => {
    const untracked = new WebAssembly.Memory({ initial: 7 });
    trackWasmMemory();
    trackWasmMemory(); // idempotent: not wrapped twice
    expect(wasmMemoryBytes()).toEqual({ bytes: 0, memories: 0 });
    const made = new WebAssembly.Memory({ initial: 2, maximum: 10 });
    expect(made).toBeInstanceOf(WebAssembly.Memory);
    expect(wasmMemoryBytes()).toEqual({ bytes: 2 * PAGE, memories: 1 });
    made.grow(3);
    expect(wasmMemoryBytes()).toEqual({ bytes: 5 * PAGE, memories: 1 });
    const { instance } = await WebAssembly.instantiate(EXPORTS_MEMORY);
    const exported = instance.exports.mem as WebAssembly.Memory;
    expect(wasmMemoryBytes()).toEqual({ bytes: 6 * PAGE, memories: 2 });
    exported.grow(1);
    expect(wasmMemoryBytes().bytes).toBe(7 * PAGE);
    // Instantiating a compiled module returns a bare Instance: its memory counts too.
    const inst2 = await WebAssembly.instantiate(await WebAssembly.compile(EXPORTS_MEMORY));
    expect(inst2).toBeInstanceOf(WebAssembly.Instance);
    expect(wasmMemoryBytes()).toEqual({ bytes: 8 * PAGE, memories: 3 });
    expect(untracked.buffer.byteLength).toBe(7 * PAGE); // created before install: not counted above
  });
});
