// onnxruntime-node (CPU) behind the engine's Runtime interface.
import * as ort from 'onnxruntime-node';
import { createOrtRuntime, type OrtLike, type Runtime } from './runtime';

export interface NodeRuntimeOptions { threads?: number }

export function createNodeRuntime(opts: NodeRuntimeOptions = {}): Runtime {
  const base: Record<string, unknown> = { executionProviders: ['cpu'], graphOptimizationLevel: 'all' };
  if (opts.threads) base.intraOpNumThreads = opts.threads;
  return createOrtRuntime(ort as unknown as OrtLike, { kind: 'cpu', detail: `onnxruntime-node ${ort.env.versions?.common ?? ''} cpu` }, base);
}

let shared: Runtime | null = null;
/** A process-wide CPU runtime. */
export function nodeRuntime(): Runtime { return (shared ??= createNodeRuntime()); }
