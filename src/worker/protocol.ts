// Types shared by the page and the compute worker. The page imports only types from src/worker
// (plus the tiny client in src/app/worker.ts), so nothing here may touch ORT or the engine.

import type { RunSpec } from '../rl/session';
import type { EvalMetrics, StepMetrics, StepProgress } from '../rl/trainer';
import type { Trajectory } from '../agent/types';
import type { EffectAgainstBaseline, TurnRehearsal } from '../tts/rehearse';
import type { Verdict } from '../envs/types';
import type { EvalProgress } from '../bench/evaluation';

export type { EvalMetrics, RunSpec, StepMetrics, StepProgress };

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
  /** Auto mode on a fallback adapter: both EPs timed on the same small graph (median ms per run). */
  timing?: BackendTiming;
  /** Auto mode on a fallback adapter, nothing remembered: WASM computes and WebGPU is still to be timed (backendProbe). */
  probing?: boolean;
  /** The choice came from a verdict remembered for this adapter (an earlier timing in this browser). */
  remembered?: boolean;
  /** After a background timing: the faster EP, used from the next start on this adapter. */
  verdict?: BackendKind;
}

export interface BackendTiming { webgpuMs: number; wasmMs: number }

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
  /** 'cpu' when the same test runs in Node (onnxruntime-node) as the reference. */
  backend: BackendKind | 'cpu';
  runtimeDetail: string;
  config: Record<string, unknown>;
  loss: number;
  gradNorm: number;
  /** loss after the AdamW update, on the same batch (should be lower). */
  lossAfter: number;
  /** First logits of the prompt's last position (prefill of the KV model), after the update. */
  logits: number[];
  /** Greedy output of the engine's Sampler after the update, and its per-token log-probs. */
  sampled: number[];
  sampledText: string;
  logprobs: number[];
  /** top-1 minus top-2 of `logits`' full row: a near-tie may legitimately flip across backends. */
  margin: number;
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

/** Error text of work stopped by a cancel RPC (the page shows it as a notice, not as a failure). */
export const CANCELLED = 'cancelled';

/** Progress of a long call, streamed through a Comlink.proxy callback. */
export interface Progress {
  done: number;
  total: number;
  /** What done/total count ('rounds', 'steps', 'tasks'). */
  unit: string;
  /** One line of counts for the progress bar. */
  detail?: string;
  elapsedMs: number;
  /** Estimated time left; null until one unit has been timed. */
  etaMs: number | null;
  /** total is an upper bound (e.g. a rollout may end before its round cap), so the ETA is an upper bound too. */
  etaIsBound?: boolean;
}
export type ProgressListener = (p: Progress) => void;

/** A trajectory as the Rollout page receives it: in the imagined modes, also the verdict on real results. */
export type ShownTrajectory = Trajectory & {
  /** The checklist re-judged with the shadow environment's answers in place of the rehearsed ones. */
  realVerdict?: Verdict;
};

// ---- rollout / train / bench requests (shapes the pages send; the worker maps them onto src/agent,
// src/rl and src/bench once those exist) --------------------------------------------------------------

export type RolloutMode = 'real' | 'simulator' | 'rehearsal';

export interface RolloutRequest {
  /** Model folder URL (from /models/index.json) used as the policy, loaded on demand. */
  modelUrl: string;
  world: string;
  taskId?: string;
  mode: RolloutMode;
  /** Trajectories per task (group size). */
  k: number;
  seed: number;
  temperature: number;
  maxTurns: number;
  /** Token budget of each Act / Rehearse generation. */
  maxNewTokens: number;
  /** Nucleus and top-k filters of Act and Rehearse (absent: the model profile's, else off). */
  topP?: number;
  topK?: number;
}

/**
 * Stepping: the rollout is deterministic per seed, so "k generations in" is the same rollout cut by
 * limits.maxGenerations = k. The worker memoises generations of stepping calls, so going from k to k+1
 * recomputes the cheap environment/prompt prefix but samples only the new generation(s).
 */
export interface RolloutStepRequest extends RolloutRequest {
  /** Generation cap per trajectory (>= 1). */
  generations: number;
  /**
   * Raise the cap until some trajectory gains a row: an Act output with several calls needs all its
   * Rehearse generations in one go, so a cap in between shows nothing new.
   */
  advance?: boolean;
}

export interface RolloutStepResult {
  trajectories: Trajectory[];
  /** The cap the trajectories were cut at (>= the requested one when advance is set). */
  generations: number;
  /** No trajectory is cut by the stepping cap: the view equals a full run. */
  done: boolean;
  /** Generations actually sampled by this call (the rest came from the memo). */
  computed: number;
}

/** One task as the Rollout page shows it before running it. */
export interface TaskInfo {
  id: string; world: string; seed: number; split: 'train' | 'test'; difficulty: number;
  userTurns: string[];
  /** Checklist items per user turn (what the judge checks; verdicts carry only the id). */
  checklist: { id: string; question: string; weight: number; required: boolean }[][];
  tools: number;
}

export interface WorldInfo { name: string; description: string; tools: number; testTasks: string[]; trainTasks: string[] }

/** A training run as the page describes it; stored next to its checkpoint so a fresh worker can resume it. */
export interface TrainRequest {
  runId: string;
  /** Trainer options (verl/TRL names) plus world and difficulty; validated by src/rl/trainer.ts. */
  spec: RunSpec;
  /** A model folder URL (/models/<name>/) or TINY_MODEL ('builtin:tiny', built in the worker). */
  model: string;
  /** Per-generation token budget for Act and Rehearse (overrides the folder's profile); 0 keeps it. */
  maxNewTokens: number;
  label?: string;
  /**
   * Benchmarks only (e2e/train-speed.spec.ts; not in the UI): run the update and the rollouts on the paths issue 9
   * replaced (row-by-row padded update, the earlier sampler without prefix cache; src/bench/reference-paths.ts).
   */
  referencePaths?: boolean;
}

export type TrainState = 'idle' | 'loading' | 'running' | 'paused' | 'stopped' | 'done' | 'error';

/** A GPU failure; the page replaces the worker with one on `to` and resumes from `resumedFrom`. */
export interface BackendSwitch { atStep: number; from: BackendKind; to: BackendKind; reason: string; resumedFrom: number }

export interface TrainStatus {
  runId: string | null;
  state: TrainState;
  step: number;
  steps: number;
  backend: BackendKind | null;
  /** Step of the newest checkpoint in IndexedDB (0 = none yet). */
  checkpointStep: number;
  /** Where a resume picked the run up (checkpoint step), when it did. */
  resumedFrom?: number;
  switches: BackendSwitch[];
  error?: string;
}

/** What the worker streams to the page through the Comlink.proxy callback. */
export type TrainEvent =
  | { type: 'status'; status: TrainStatus }
  /** Sent on (re)load: the authoritative history, e.g. the checkpoint's after a resume. */
  | { type: 'history'; runId: string; history: StepMetrics[]; evals: EvalMetrics[] }
  | { type: 'step'; runId: string; metrics: StepMetrics }
  /** Inside a step: each rollout round, each model's update, and the held-out evaluation after a step. */
  | { type: 'progress'; runId: string; progress: StepProgress | { phase: 'eval'; step: number; tasks: number } }
  | { type: 'eval'; runId: string; metrics: EvalMetrics }
  /** A Pause was read: the run stops after `afterStep` (and that step's held-out evaluation, when `evaluation`). */
  | { type: 'pausing'; runId: string; afterStep: number; evaluation: boolean }
  | { type: 'checkpoint'; runId: string; step: number; bytes: number; ms: number }
  | { type: 'backend'; runId: string; change: BackendSwitch }
  | { type: 'log'; runId: string; text: string };

export interface SavedRun {
  runId: string;
  /** Step of its checkpoint (0 = none; -1 = the checkpoint is unreadable, see `corrupt`). */
  step: number;
  request: TrainRequest | null;
  /** Why the checkpoint or stored request cannot be read (a damaged store), when it cannot. */
  corrupt?: string;
}

/** A trained model folder, file by file (HF layout, see src/engine/modelFolder.ts). */
export interface ExportedFolder { name: string; files: Record<string, Uint8Array> }

/** Held-out evaluation of the loaded model on a built-in world's test split (src/agent/evaluate.ts). */
export interface BenchRequest {
  modelUrl: string;
  world: string;
  /** Number of test tasks (the first ones of the split, so runs are comparable). */
  tasks: number;
  mode: RolloutMode;
  k: number;
  seed: number;
  temperature: number;
  maxTurns: number;
  maxNewTokens: number;
}
export interface BenchTaskRow { task: string; samples: number; success: number; outcome: number; checklist: number; fidelityF1: number | null; terminations: string[] }

// ---- the evaluation protocol in the worker (src/worker/bench-service.ts over src/bench/evaluation.ts) ----

/** A Benchmarks run: the held-out protocol, evaluated in chunks with progress and cancel. */
export interface BenchEvalRequest extends BenchRequest {
  /** Nucleus filter of Act and Rehearse (the paper's protocol: 0.95 at T 0.6). */
  topP: number;
  /** Tasks per chunk; absent: sized to memory from the model's shape. */
  chunkTasks?: number;
  /**
   * Mode simulator: the frozen model that plays Rehearse, a Hugging Face model URL (HF_URL_PREFIX…) loaded on the
   * Models page, with its own chat template and the reference's simulator prompt; absent: the policy's own weights.
   */
  simulatorUrl?: string;
}
/** The evaluation protocol's progress, as the worker forwards it. */
export type BenchProgress = EvalProgress;
export type BenchListener = (p: BenchProgress) => unknown;
/** Error text of an evaluation stopped by benchCancel(). */
export const EVAL_CANCELLED = 'evaluation cancelled';
export interface BenchEstimate { mean: number; ci95: [number, number] }
export interface BenchEvalRow extends BenchTaskRow { passAtK: number }
export interface BenchEvalResult {
  request: BenchEvalRequest;
  model: string;
  suite: string;
  /** Point estimates (evaluate.ts's summary): success, outcome, checklist, passAtK, fidelity. */
  summary: Record<string, number>;
  /** Bootstrap 95% intervals over tasks. */
  estimates: Record<'success' | 'outcome' | 'checklist' | 'pass_at_k', BenchEstimate>;
  terminations: Record<string, number>;
  rows: BenchEvalRow[];
  chunks: number; chunkTasks: number; generations: number;
  ms: number;
}
export type BenchState = 'idle' | 'running' | 'done' | 'cancelled' | 'error';
export interface BenchStatus { state: BenchState; progress: BenchProgress | null; error?: string }

// ---- rehearse first (Rollout page; src/worker/tts-service.ts over src/tts/) -------------------------------

/** The page's rollout, committed in the real environment, each user turn privately rehearsed n times first. */
export interface RehearseFirstRequest extends Omit<RolloutRequest, 'mode'> {
  n: number;
  strategy: 'parallel' | 'sequential';
  memory: 'full' | 'best-calls';
  /** The attempts' example calls: this episode's real ones (default, no gold) or the task's reference ('oracle'). */
  hintSource?: 'episode' | 'oracle';
}
export interface RehearseFirstRun {
  /** The committed execution (mode real). */
  trajectory: ShownTrajectory;
  /** Per user turn: the imagined attempts with their self-evaluations, and the memory the turn was shown. */
  rehearsals: TurnRehearsal[];
  /** Calls the real environment received, and whether they are exactly the committed trajectory's. */
  realCalls: number;
  realMatchesCommitted: boolean;
  /** With N > 0: the committed outcome against the same task, sample and seed run without rehearsal. */
  againstNoRehearsal?: EffectAgainstBaseline;
}
export interface RehearseFirstResult { runs: RehearseFirstRun[]; ms: number }

// ---- Hugging Face models (Models page; src/worker/hf-service.ts over src/engine/hf/) ----------------------

/** Model URLs of loaded Hugging Face models start with this (the Rollout page's select carries them). */
export const HF_URL_PREFIX = 'hf:';
/**
 * Suffix of a Hugging Face model URL that makes Act replay the task's reference turns while the model plays
 * Rehearse on every call (src/worker/hf-rollout-config.ts): how an untrained model's Rehearse role is watched.
 */
export const HF_REHEARSE_ONLY = '|rehearse-only';

export type HfDtypeName = 'fp32' | 'fp16' | 'q8' | 'q4' | 'q4f16';

/** Where a Hugging Face model comes from in the browser: a hub id or URL, or a picked / dropped folder. */
export type HfLoadRequest =
  | { kind: 'ref'; ref: string; dtype: HfDtypeName; hubHost?: string }
  /** files: relative path inside the folder (e.g. 'onnx/model.onnx') → the picked File (a Blob). */
  | { kind: 'files'; name: string; files: Map<string, Blob>; dtype: HfDtypeName };

/** One download event (bytes of one file). */
export interface HfLoadProgress { file: string; status: string; loaded?: number; total?: number }
export type HfProgressListener = (p: HfLoadProgress) => void;

export interface HfModelInfo {
  /** The model's URL for rollouts (HF_URL_PREFIX + source + dtype). */
  url: string;
  name: string;
  source: string;
  dtype: HfDtypeName;
  device: 'wasm' | 'webgpu';
  config: Record<string, unknown>;
  /** Files read for this load, with their sizes (from the download or the picked folder). */
  files: { path: string; bytes: number }[];
  /** The tokenizer's chat template drives Act and Rehearse prompts (false: our compact template). */
  chatTemplate: boolean;
  loadMs: number;
}

export interface HfCacheInfo { entries: number; bytes: number; urls: string[] }
