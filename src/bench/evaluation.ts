// The evaluation protocol shared by `npm run eval`, the ablation and the Benchmarks page (in the worker):
// held-out tasks, k samples each (Avg@k; the paper: k 4, T 0.6, top-p 0.95; T 0 = greedy), judged in the
// real environment, evaluated in chunks sized to memory, with progress, cancellation and per-task scores
// for bootstrap intervals. It calls src/agent/evaluate.ts chunk by chunk; a trajectory's seed derives from
// (seed, task id, sample), so chunking does not change which trajectories are sampled.

import type { TextGenerator } from '../engine/generator';
import type { Task } from '../envs/types';
import { evaluate, succeeded, summarize, type EvalResult } from '../agent/evaluate';
import { batchFidelity } from '../agent/fidelity';
import type { RolloutConfig } from '../agent/rollout';
import type { RolloutMode, Trajectory } from '../agent/types';
import { bootstrap, passAtK, type BootstrapOptions, type Estimate } from './stats';

export interface ProtocolSampling { k: number; temperature: number; topP: number; seed: number }

/** The paper's protocol (Avg@4 at T 0.6, top-p 0.95) and its greedy counterpart. */
export const PAPER_PROTOCOL: Omit<ProtocolSampling, 'seed'> = { k: 4, temperature: 0.6, topP: 0.95 };
export const GREEDY_PROTOCOL: Omit<ProtocolSampling, 'seed'> = { k: 1, temperature: 0, topP: 1 };

/** What chunk sizing needs to know about the model (HF config names). */
export interface ModelShape {
  num_hidden_layers: number; num_attention_heads: number; num_key_value_heads: number;
  hidden_size: number; head_dim?: number; vocab_size: number; max_position_embeddings: number;
}

export interface EvalProgress {
  /** Trajectories finished, of total (tasks × k). */
  done: number; total: number;
  tasksDone: number; tasks: number;
  chunk: number; chunks: number; chunkTasks: number;
  generations: number;
  elapsedMs: number;
  /** Linear extrapolation from the finished fraction; null before anything finished. */
  etaMs: number | null;
}

export interface ProtocolOptions extends ProtocolSampling {
  /** 'real' by default. In imagined modes the judge still reads the real environment's results. */
  mode?: RolloutMode;
  /** The model's rollout settings (prompt profile); sampling, mode and judging are set here. */
  rollout?: Omit<RolloutConfig, 'mode' | 'policy'>;
  simulator?: TextGenerator;
  /** Tasks per chunk; default from the memory budget and the model's shape. */
  chunkTasks?: number;
  model?: ModelShape;
  memoryBudgetBytes?: number;
  signal?: AbortSignal;
  onProgress?: (p: EvalProgress) => void;
  /**
   * Yield to the event loop before every generation (a macrotask), so that a worker answers cancel and
   * status messages while it evaluates. On by default; Node's CLI may turn it off.
   */
  yieldToEventLoop?: boolean;
  /** Cut generation batches into slices of about this many ms (cancel latency); absent: whole batches. */
  sliceMs?: number;
  /** Keep every trajectory in the result (the page drops them; the CLI has no use for them). */
  keepTrajectories?: boolean;
}

export interface TaskScore {
  task: string;
  samples: number;
  /** Means over the task's k samples. */
  success: number; outcome: number; checklist: number;
  /** Unbiased pass@k over the task's samples. */
  passAtK: number;
  fidelityF1: number | null;
  terminations: string[];
}

export interface ProtocolResult {
  perTask: TaskScore[];
  /** evaluate.ts's summary of all trajectories (Avg@k point estimates, terminations, fidelity). */
  summary: EvalResult;
  trajectories?: Trajectory[];
  chunkTasks: number;
  chunks: number;
  seconds: number;
}

export class EvalCancelled extends Error {
  constructor() { super('evaluation cancelled'); this.name = 'EvalCancelled'; }
}

export class EvalOutOfMemory extends Error {
  constructor(message: string) { super(message); this.name = 'EvalOutOfMemory'; }
}

const MB = 1 << 20;
export const DEFAULT_MEMORY_BUDGET = 512 * MB;

/**
 * Peak bytes one sequence can need in the sampler at full context: prefill attention scores (heads × T²),
 * logits (T × vocab), KV cache (twice: the cache and its grown copy), and a few hidden-size activations.
 * Deliberately the worst case: prompts are capped at the context, so no chunk can exceed it.
 */
export function bytesPerSequence(m: ModelShape): number {
  const T = m.max_position_embeddings;
  const headDim = m.head_dim ?? m.hidden_size / m.num_attention_heads;
  const kv = 2 * m.num_hidden_layers * m.num_key_value_heads * headDim * T;
  const floats = m.num_attention_heads * T * T + T * m.vocab_size + 2 * kv + 8 * T * m.hidden_size;
  return 4 * floats;
}

/** Tasks per chunk so that k sequences per task fit the budget (at least one task). */
export function chunkTasksFor(k: number, m: ModelShape | undefined, budgetBytes = DEFAULT_MEMORY_BUDGET): number {
  if (!m) return Math.max(1, Math.floor(32 / k));
  return Math.max(1, Math.floor(budgetBytes / (k * bytesPerSequence(m))));
}

function isOutOfMemory(e: unknown): boolean {
  const s = e instanceof Error ? `${e.name} ${e.message}` : String(e);
  return /bad_alloc|out of memory|Out of memory|OOM|Array buffer allocation failed|Invalid typed array length|memory access out of bounds|Cannot allocate|failed to allocate/i.test(s);
}

const macrotask = () => new Promise<void>((r) => setTimeout(r, 0));

/**
 * Checks the signal (and lets messages in) before every batch of generations. With `sliceMs`, a batch is
 * also cut into sub-batches sized from the measured time per request so that each takes about sliceMs:
 * a cancel then waits for at most one slice, not for a whole chunk's batch. Requests carry their own
 * seeds, so slicing changes which requests share a batch, not what each one samples.
 */
function abortable(g: TextGenerator, signal: AbortSignal | undefined, yieldFirst: boolean, counter: { generations: number }, sliceMs?: number): TextGenerator {
  let perRequestMs: number | null = null;
  const batch = async (reqs: Parameters<TextGenerator['generate']>[0]) => {
    if (yieldFirst) await macrotask();
    if (signal?.aborted) throw new EvalCancelled();
    const t0 = performance.now();
    const out = await g.generate(reqs);
    const ms = (performance.now() - t0) / reqs.length;
    perRequestMs = perRequestMs === null ? ms : 0.5 * perRequestMs + 0.5 * ms;
    counter.generations += reqs.length;
    if (signal?.aborted) throw new EvalCancelled();
    return out;
  };
  return {
    name: g.name,
    maxContext: g.maxContext,
    countTokens: (t) => g.countTokens(t),
    async generate(reqs) {
      if (!sliceMs) return batch(reqs);
      const out = [];
      for (let i = 0; i < reqs.length;) {
        // Unmeasured: a small first slice, to learn the time per request.
        const n = perRequestMs === null ? 2 : Math.max(1, Math.floor(sliceMs / Math.max(1e-3, perRequestMs)));
        out.push(...(await batch(reqs.slice(i, i + n))));
        i += n;
      }
      return out;
    },
  };
}

const successOf = succeeded;

export function scoreTask(taskId: string, ts: Trajectory[], k: number): TaskScore {
  const s = summarize(ts, k, ts[0]?.mode ?? 'real');
  const fid = batchFidelity(ts).overall;
  const c = ts.reduce((a, t) => a + successOf(t), 0);
  return {
    task: taskId,
    samples: ts.length,
    success: s.success, outcome: s.outcome, checklist: s.checklist,
    passAtK: ts.length ? passAtK(ts.length, c, Math.min(k, ts.length)) : 0,
    fidelityF1: fid.calls > 0 ? fid.meanF1 : null,
    terminations: ts.map((t) => t.terminatedBy),
  };
}

/** Runs the protocol on `tasks` with `policy`. Throws EvalCancelled or EvalOutOfMemory (clear messages). */
export async function runProtocol(tasks: Task[], policy: TextGenerator, o: ProtocolOptions): Promise<ProtocolResult> {
  if (!Number.isInteger(o.k) || o.k < 1) throw new Error(`k must be a positive integer (got ${o.k})`);
  if (tasks.length === 0) throw new Error('no tasks to evaluate');
  const t0 = performance.now();
  const mode = o.mode ?? 'real';
  let chunkTasks = Math.max(1, Math.min(tasks.length, o.chunkTasks ?? chunkTasksFor(o.k, o.model, o.memoryBudgetBytes)));
  const counter = { generations: 0 };
  const yieldFirst = o.yieldToEventLoop ?? true;
  const pol = abortable(policy, o.signal, yieldFirst, counter, o.sliceMs);
  const sim = o.simulator ? abortable(o.simulator, o.signal, yieldFirst, counter, o.sliceMs) : undefined;
  const total = tasks.length * o.k;
  const all: Trajectory[] = [];
  let next = 0, chunk = 0;
  const report = (live: number, inChunk: number) => {
    const done = all.length + Math.max(0, inChunk - live);
    const elapsedMs = performance.now() - t0;
    o.onProgress?.({
      done, total, tasksDone: Math.floor(all.length / o.k), tasks: tasks.length,
      chunk: Math.min(chunk + 1, Math.ceil(tasks.length / chunkTasks)), chunks: chunk + Math.ceil((tasks.length - next) / chunkTasks),
      chunkTasks, generations: counter.generations, elapsedMs,
      etaMs: done > 0 ? (elapsedMs / done) * (total - done) : null,
    });
  };
  report(0, 0);
  while (next < tasks.length) {
    if (o.signal?.aborted) throw new EvalCancelled();
    const slice = tasks.slice(next, next + chunkTasks);
    const rows = slice.length * o.k;
    let trajs: Trajectory[];
    try {
      ({ trajectories: trajs } = await evaluate(slice, pol, {
        mode, k: o.k, temperature: o.temperature, seed: o.seed, simulator: sim,
        rollout: {
          ...o.rollout,
          // The verdict reads the real environment's answers, never imagined ones.
          judgeOn: 'real',
          keepPrompts: false,
          act: { ...o.rollout?.act, topP: o.topP },
          rehearse: { ...o.rollout?.rehearse, topP: o.topP },
          onRound: ({ live }) => report(live, rows),
        },
      }));
    } catch (e) {
      if (e instanceof EvalCancelled || o.signal?.aborted) throw new EvalCancelled();
      if (!isOutOfMemory(e)) throw e;
      if (chunkTasks > 1) { chunkTasks = Math.max(1, Math.floor(chunkTasks / 2)); continue; }
      throw new EvalOutOfMemory(`out of memory evaluating ${slice[0]!.id} even one task at a time (${o.k} samples): ${(e as Error).message}. Lower k or the max new tokens, or use a smaller model.`);
    }
    all.push(...trajs);
    next += slice.length;
    chunk++;
    report(0, 0);
  }
  const byTask = new Map<string, Trajectory[]>();
  for (const t of all) (byTask.get(t.taskId) ?? byTask.set(t.taskId, []).get(t.taskId)!).push(t);
  const perTask = tasks.map((t) => scoreTask(t.id, byTask.get(t.id) ?? [], o.k));
  return {
    perTask,
    summary: summarize(all, o.k, mode),
    trajectories: o.keepTrajectories ? all : undefined,
    chunkTasks, chunks: chunk,
    seconds: (performance.now() - t0) / 1000,
  };
}

export type MetricName = 'success' | 'outcome' | 'checklist' | 'pass_at_k';
export const METRICS: MetricName[] = ['success', 'outcome', 'checklist', 'pass_at_k'];

export function metricValues(perTask: TaskScore[], m: MetricName): number[] {
  return perTask.map((t) => (m === 'pass_at_k' ? t.passAtK : t[m]));
}

/** Bootstrap intervals over tasks for every metric. */
export function metricEstimates(perTask: TaskScore[], opts: BootstrapOptions = {}): Record<MetricName, Estimate> {
  return Object.fromEntries(METRICS.map((m) => [m, bootstrap(metricValues(perTask, m), opts)])) as Record<MetricName, Estimate>;
}

/** The JSON object `npm run eval -- --json` prints (documented in docs/results/README.md). */
export interface EvalReport {
  protocol: string;
  model: string; world: string; split: 'test'; mode: RolloutMode;
  n_tasks: number;
  /** Index of the first task in the test split (after the difficulty filter); absent in reports older than --offset. */
  offset?: number;
  k: number; temperature: number; top_p: number; seed: number;
  /** Task filter: a difficulty (1–3) or all. */
  difficulty?: number | 'all';
  success: Estimate; outcome: Estimate; checklist: Estimate; pass_at_k: Estimate;
  terminations: Record<string, number>;
  generations: number;
  /** Generations stopped by their token budget, per role; absent in reports older than the count. */
  truncated?: { act: number; rehearse: number };
  seconds: number;
  chunks: number; chunk_tasks: number;
  bootstrap: { resamples: number; seed: number; level: number; over: 'tasks' };
  per_task?: TaskScore[];
}

/** "greedy", "greedy ×4" or "Avg@4 (T 0.6, top-p 0.95)": how a report names its sampling. */
export function protocolName(m: Pick<ProtocolSampling, 'k' | 'temperature' | 'topP'>): string {
  return m.temperature === 0 ? (m.k === 1 ? 'greedy' : `greedy ×${m.k}`) : `Avg@${m.k} (T ${m.temperature}, top-p ${m.topP})`;
}

export function evalReport(r: ProtocolResult, meta: { model: string; world: string; mode?: RolloutMode; offset?: number } & ProtocolSampling, boot: { resamples: number; seed: number }, perTask = false): EvalReport {
  const est = metricEstimates(r.perTask, boot);
  const protocol = protocolName(meta);
  return {
    protocol, model: meta.model, world: meta.world, split: 'test', mode: meta.mode ?? 'real',
    n_tasks: r.perTask.length, offset: meta.offset ?? 0, k: meta.k, temperature: meta.temperature, top_p: meta.topP, seed: meta.seed,
    success: est.success, outcome: est.outcome, checklist: est.checklist, pass_at_k: est.pass_at_k,
    terminations: r.summary.terminations,
    generations: r.summary.generations,
    truncated: r.summary.truncated,
    seconds: Number(r.seconds.toFixed(2)),
    chunks: r.chunks, chunk_tasks: r.chunkTasks,
    bootstrap: { ...boot, level: 0.95, over: 'tasks' },
    ...(perTask ? { per_task: r.perTask } : {}),
  };
}
