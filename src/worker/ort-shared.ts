// What transformers.js gets for its `import * as ONNX from 'onnxruntime-web/webgpu'` (vite.config.ts aliases that one
// specifier here): the worker's own ORT, as runtime-web.ts registered it, with its sessions' runs queued beside ours.
// Without the alias that import bundles a second ORT (the asyncify build, ~27 MB of wasm) with a heap of its own.

const shared = (globalThis as Record<symbol, { InferenceSession: unknown; Tensor: unknown; env: unknown } | undefined>)[Symbol.for('envace.shared-ort')];
// Reached only through transformers.js, which the worker imports after runtime-web.ts: anything else is a wiring bug.
if (!shared) throw new Error('onnxruntime-web/webgpu is the worker\'s shared ORT: runtime-web.ts must be loaded before transformers.js');

export const InferenceSession = shared.InferenceSession;
export const Tensor = shared.Tensor;
export const env = shared.env;
