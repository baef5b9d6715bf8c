// "Rehearse first" for the Rollout page: the page's rollout request, run as committed executions in the real
// environment with private rehearsal (src/tts/) before every user turn, on the loaded model in this worker.
//
// Cancel: runTts checks an AbortSignal around every batch of generations; before each batch the sampler
// yields one macrotask here, because ORT-web resolves through microtasks only and the cancel RPC would
// otherwise wait in the worker's queue until the whole run is over. One run at a time: a new one cancels
// the previous.

import { compactFormat } from '../agent/chatTemplate';
import { taskById, getWorld } from '../envs/worlds';
import type { TextGenerator } from '../engine/generator';
import { realMatchesCommitted, rehearsalEffect, runTts, TtsCancelled, type TtsProgress } from '../tts/rehearse';
import { loadModel, loadedFolder, loadedSampler, tokenStrings } from './engine-bridge';
import { buildRolloutConfig } from './rollout-config';
import { buildHfRolloutConfig } from './hf-rollout-config';
import type { Task } from '../envs/types';
import { CANCELLED, HF_URL_PREFIX, type ProgressListener, type RehearseFirstRequest, type RehearseFirstResult } from './protocol';
import type { WebRuntime } from './runtime-web';

let controller: AbortController | null = null;
let running: Promise<unknown> | null = null;

const macrotask = () => new Promise<void>((r) => setTimeout(r, 0));

/** The sampler, letting the worker's messages (a cancel) in before every batch of generations. */
function yielding(g: TextGenerator): TextGenerator {
  return {
    name: g.name, maxContext: g.maxContext, countTokens: (t) => g.countTokens(t),
    async generate(reqs) { await macrotask(); return g.generate(reqs); },
  };
}

/** Stops the running rehearse-first before its next batch of generations; it rejects with "cancelled: …". */
export function cancel(): boolean {
  if (!controller) return false;
  controller.abort();
  return true;
}

function progressDetail(p: TtsProgress, n: number): string {
  const turn = `turn ${p.userTurn + 1}`;
  if (p.phase === 'commit') return `${turn} · committed run (real environment), round ${p.round + 1}`;
  const a = p.attempts!;
  return `${turn} · rehearsing attempt${a.from === a.to ? ` ${a.from}` : `s ${a.from}–${a.to}`} of ${n}, round ${p.round + 1}`;
}

export async function rehearseFirst(rt: WebRuntime, req: RehearseFirstRequest, onProgress?: ProgressListener): Promise<RehearseFirstResult> {
  if (!req.modelUrl) throw new Error('no model loaded: pick one on the Models page');
  if (!Number.isInteger(req.n) || req.n < 0 || req.n > 16) throw new Error(`rehearse first: n must be a whole number in 0 … 16 (got ${req.n})`);
  if (controller) { controller.abort(); await running?.catch(() => undefined); }
  const ac = new AbortController();
  controller = ac;
  const work = run(rt, req, ac.signal, onProgress);
  running = work;
  try {
    return await work;
  } catch (e) {
    if (e instanceof TtsCancelled) throw new Error(`${CANCELLED}: ${e.message.replace(/^rehearse first cancelled /, 'rehearse first stopped ')}`);
    throw e;
  } finally {
    if (controller === ac) controller = null;
    if (running === work) running = null;
  }
}

/** The policy, its chat template, the committed run's settings and the token decoder, for the request's model. */
async function modelFor(rt: WebRuntime, req: RehearseFirstRequest, task: Task) {
  // The committed run is the page's real-mode rollout with the same settings (N = 0 is exactly that run).
  const realReq = { ...req, mode: 'real' as const };
  if (req.modelUrl.startsWith(HF_URL_PREFIX)) {
    // A Hugging Face model (loaded on the Models page): the Rollout page's path, its own chat template; with
    // HF_REHEARSE_ONLY it plays Rehearse in every attempt while Act replays the task's reference turns.
    const hf = (await import('./hf-service')).roles(req.modelUrl, [task]);
    return { policy: hf.generator, built: buildHfRolloutConfig(hf.format, realReq, hf.generator), tokenizer: hf.tokenizer };
  }
  await loadModel(rt, req.modelUrl);
  const sampler = loadedSampler()!;
  return { policy: sampler as TextGenerator, built: buildRolloutConfig(loadedFolder()!.rawConfig, realReq, sampler), tokenizer: sampler.tokenizer };
}

async function run(rt: WebRuntime, req: RehearseFirstRequest, signal: AbortSignal, onProgress?: ProgressListener): Promise<RehearseFirstResult> {
  const t0 = performance.now();
  const world = getWorld(req.world);
  const task = req.taskId ? taskById(req.taskId) : world.tasks({ split: 'test', count: 1 })[0];
  if (!task) throw new Error(`world ${req.world} has no test task`);
  if (task.world !== world.name) throw new Error(`task ${task.id} is not in world ${world.name}`);
  const m = await modelFor(rt, req, task);
  if (signal.aborted) throw new TtsCancelled({ rehearsals: [], realCalls: [], generations: 0 });
  const { mode: _mode, ...cfg } = m.built.cfg;
  // Counted in imagined attempts: n per user turn and trajectory (an episode may end early: a bound).
  const total = req.n * task.userTurns.length * req.k;
  const emit = (p: TtsProgress, baseline = false) => {
    if (!onProgress) return;
    // A Comlink proxy call returns a promise; a page that went away must not fail the run.
    void Promise.resolve(onProgress({
      done: baseline ? total : p.attemptsDone, total, unit: 'imagined attempts',
      detail: baseline ? `turn ${p.userTurn + 1} · the same run without rehearsal (to compare), round ${p.round + 1}` : progressDetail(p, req.n),
      elapsedMs: performance.now() - t0, // The committed run's share of the time is not known ahead: no ETA rather than a wrong one.
      etaMs: null, etaIsBound: true,
    })).catch(() => undefined);
  };
  const policy = yielding(m.policy);
  const specs = [...Array(req.k).keys()].map((j) => ({ task, sample: j, groupId: task.id }));
  const ctx = (n: number) => ({
    policy, format: cfg.format ?? compactFormat,
    cfg: { ...cfg, policy },
    opts: { n, strategy: req.strategy, memory: req.memory, hintSource: req.hintSource ?? 'episode', signal, onProgress: (p: TtsProgress) => emit(p, n === 0 && req.n > 0) },
  });
  const runs = await runTts(specs, ctx(req.n));
  // The same task, samples and seeds without rehearsal (N = 0 is exactly the page's real-mode run), so each committed
  // run can say whether rehearsing changed its outcome — and a visitor sees when it hurt.
  const without = req.n > 0 ? await runTts(specs, ctx(0)) : null;
  for (const r of runs) for (const row of r.trajectory.rows) row.outputTokens = tokenStrings(m.tokenizer, row.outputIds);
  return {
    runs: runs.map((r, i) => ({
      trajectory: r.trajectory, rehearsals: r.rehearsals, realCalls: r.realCalls.length, realMatchesCommitted: realMatchesCommitted(r),
      ...(without ? { againstNoRehearsal: rehearsalEffect(r.trajectory, without[i]!.trajectory) } : {}),
    })),
    ms: performance.now() - t0,
  };
}
