// Hugging Face models (onnx-community layout) for inference, browser-safe part. Node: ./node.ts, ./fixture-node.ts.
export * from './source';
export * from './kv';
export * from './loader';
export * from './qwen3';
export * from './fixture';
