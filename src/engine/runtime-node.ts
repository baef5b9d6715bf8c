// onnxruntime-node (CPU) behind the engine's Runtime interface.
import * as ort from 'onnxruntime-node';
import { createOrtRuntime, type OrtLike, type Runtime } from './runtime';

export interface NodeRuntimeOptions {
  threads?: number;
  /**
   * Let idle ORT worker threads spin (ORT's default). Off by default here: on a small shared box
   * spinning threads steal the cores the other thread needs (measured 2 threads + spin ≈ 1.5–2× slower
   * than without under load); turn on for a dedicated machine.
   */
  spin?: boolean;
}

export function createNodeRuntime(opts: NodeRuntimeOptions = {}): Runtime {
  // Memory patterns make the second run of every new session/shape as slow as the first (the
  // pattern is recorded then); steady state measured the same without, and we create many buckets.
  const base: Record<string, unknown> = { executionProviders: ['cpu'], graphOptimizationLevel: 'all', enableMemPattern: false };
  if (opts.threads) base.intraOpNumThreads = opts.threads;
  if (!opts.spin) base.extra = { session: { 'intra_op.allow_spinning': '0', 'inter_op.allow_spinning': '0' } };
  return createOrtRuntime(ort as unknown as OrtLike, { kind: 'cpu', detail: `onnxruntime-node ${ort.env.versions?.common ?? ''} cpu` }, base);
}

let shared: Runtime | null = null;
/** A process-wide CPU runtime. */
export function nodeRuntime(): Runtime { return (shared ??= createNodeRuntime()); }
