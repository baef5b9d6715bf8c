// How much WebAssembly linear memory this worker holds. ORT-web keeps its tensors, arenas and weights
// there, and a wasm memory only ever grows, so its size over a long run is the leak signal that matters
// (browsers expose no JS heap figure inside a dedicated worker). Nothing in ORT-web hands out its Memory:
// the tracker sees every Memory the worker creates (the threaded build makes its shared one in JS) or
// instantiates (a non-threaded build exports it). Installed only by the e2e build's test hooks.

let memories: WeakRef<WebAssembly.Memory>[] | null = null;
/** The engine's own constructor: exported memories are instances of it, not of the tracking subclass. */
const BaseMemory = WebAssembly.Memory;

function remember(m: unknown): void {
  if (!memories || !(m instanceof BaseMemory)) return;
  if (memories.some((r) => r.deref() === m)) return;
  memories.push(new WeakRef(m));
}

function rememberExports(instance: WebAssembly.Instance | undefined): void {
  for (const v of Object.values(instance?.exports ?? {})) remember(v);
}

/** Start tracking (idempotent). Must run before the wasm module is created, i.e. before ORT's init. */
export function trackWasmMemory(): void {
  if (memories) return;
  memories = [];
  const W = WebAssembly as unknown as Record<string, unknown>;
  W.Memory = class TrackedMemory extends BaseMemory {
    constructor(d: WebAssembly.MemoryDescriptor) { super(d); remember(this); }
  };
  const instantiate = WebAssembly.instantiate.bind(WebAssembly) as unknown as (...a: unknown[]) => Promise<unknown>;
  W.instantiate = async (...a: unknown[]) => {
    const out = await instantiate(...a);
    rememberExports(out instanceof WebAssembly.Instance ? out : (out as { instance?: WebAssembly.Instance }).instance);
    return out;
  };
  if (typeof WebAssembly.instantiateStreaming === 'function') {
    const streaming = WebAssembly.instantiateStreaming.bind(WebAssembly);
    W.instantiateStreaming = async (...a: Parameters<typeof WebAssembly.instantiateStreaming>) => {
      const out = await streaming(...a);
      rememberExports(out.instance);
      return out;
    };
  }
}

/** Bytes of every live tracked memory (shared memories count once), and how many there are. */
export function wasmMemoryBytes(): { bytes: number; memories: number } {
  if (!memories) throw new Error('wasm memory tracking is not installed');
  let bytes = 0, n = 0;
  for (const r of memories) {
    const m = r.deref();
    if (!m) continue;
    bytes += m.buffer.byteLength;
    n++;
  }
  return { bytes, memories: n };
}
