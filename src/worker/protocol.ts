// Types shared by the page and the compute worker. The page imports only types from src/worker
// (plus the tiny client in src/app/worker.ts), so nothing here may touch ORT or the engine.

export type BackendRequest = 'auto' | 'webgpu' | 'wasm';
export type BackendKind = 'webgpu' | 'wasm';

export interface AdapterDescription {
  vendor: string;
  architecture: string;
  device: string;
  description: string;
  isFallbackAdapter: boolean;
}

/** What the worker chose and why; the status bar renders this verbatim. */
export interface BackendInfo {
  kind: BackendKind;
  requested: BackendRequest;
  /** Human-readable reason for the choice, e.g. "no navigator.gpu" or "forced by ?backend=wasm". */
  reason: string;
  adapter?: AdapterDescription;
  /** WASM threads ORT was configured with (also used by the WebGPU EP for CPU fallback kernels). */
  wasmThreads: number;
  crossOriginIsolated: boolean;
  ortVersion: string;
  /** ms spent probing + initialising ORT (first session creation). */
  initMs: number;
}

export interface InitOptions {
  backend?: BackendRequest;
  /** Override ORT's WASM thread count (default: min(4, hardwareConcurrency) when isolated, else 1). */
  threads?: number;
}

/** A capability the page can ask about before offering a control. */
export interface Capability { available: boolean; reason?: string }

export interface Capabilities {
  selfTest: Capability;
  generate: Capability;
  rollout: Capability;
  train: Capability;
  bench: Capability;
}

/** Result of the backend smoke test: one hand-built graph through the chosen EP. */
export interface SmokeResult { kind: BackendKind; output: number[]; ms: number }

/** Result of the engine self-test (tiny model: one train step + AdamW + one sampling call). */
export interface SelfTestResult {
  backend: BackendKind;
  config: Record<string, unknown>;
  loss: number;
  gradNorm: number;
  /** loss after the AdamW update, on the same batch (should be lower). */
  lossAfter: number;
  /** First few logits of the last position of the inference graph, after the update. */
  logits: number[];
  /** Greedy tokens from the sampler after the update. */
  sampled: number[];
  timings: Record<string, number>;
}

/** Entry of /models/index.json (written by the models plugin, see src/app/build/modelsPlugin.ts). */
export interface ModelFileEntry { path: string; bytes: number }
export interface ModelEntry {
  name: string;
  /** URL of the folder, ending in '/'. */
  url: string;
  totalBytes: number;
  files: ModelFileEntry[];
  config: Record<string, unknown> | null;
}

export interface LoadedModel {
  name: string;
  url: string;
  config: Record<string, unknown>;
  parameters: number | null;
  loadMs: number;
}

export interface SampleRequest {
  prompt: string;
  maxNewTokens: number;
  temperature: number;
  topP: number;
  topK: number;
  seed: number;
  stop?: string[];
}

export interface SampleResult {
  text: string;
  promptTokens: number;
  outputTokens: number;
  finishReason: string;
  ms: number;
  tokensPerSecond: number;
}

/** Error text used for capabilities that exist in the UI but are not wired in the worker yet. */
export const NOT_AVAILABLE = 'not available yet';
