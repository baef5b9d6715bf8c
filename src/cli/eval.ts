// npm run eval -- --model DIR --world files|retail [--split test] [--tasks 100] [--offset 0] [--k 4]
//                 [--temperature 0.6] [--top-p 0.95] [--seed S] [--per-task] [--json]
// npm run eval -- --suite bfcl|tau2 …: the paper's benchmarks (src/cli/eval-suites.ts, src/bench/suites/).
// The evaluation protocol (src/bench/evaluation.ts): held-out tasks, Avg@k in the real environment, bootstrap
// 95% intervals over tasks. --offset N evaluates tasks N … N+tasks−1 of the test split (counted after the
// --difficulty filter), so disjoint slices can run apart: a trajectory's seed derives from (seed, task id,
// sample), so a task scores the same in any slice. Prints one JSON object (--json) or a short table; a progress
// bar with ETA on stderr.

import { profileFromConfig, rolloutSettings } from '../agent/profile';
import { loadModelFolder, type ModelFolder } from '../engine/modelFolder';
import { createNodeRuntime } from '../engine/runtime-node';
import { samplerFromFolder } from '../engine/sampler';
import { getWorld, worldNames } from '../envs/worlds/index';
import { evalReport, runProtocol, type EvalReport, type ModelShape, type ProtocolResult, type ProtocolSampling } from '../bench/evaluation';
import { formatForTokenizerConfig } from '../agent/chatTemplate';
import type { RolloutConfig } from '../agent/rollout';
import { HfModelError } from '../engine/hf/source';
import { isHfModelRef } from '../engine/hf/ref-node';
import { hfRolloutSettings } from '../worker/hf-rollout-config';
import { DEFAULT_RESAMPLES } from '../bench/stats';
import { hashSeed } from '../agent/rollout';
import { cliArgs, defineCli, type OptSpec } from './args';
import { progress } from './util';
import { runSuiteCommand, SUITE_OPTIONS } from './eval-suites';
import { SuiteInputError } from '../bench/suites/agent';

/** The held-out slice and sampling options of eval, shared with compare (both evaluate with evaluateModel). */
export const HELD_OUT_OPTIONS = {
  world: { type: 'string', help: 'built-in world', choices: worldNames(), default: 'files' },
  tasks: { type: 'int', help: 'number of held-out tasks (from --offset on, in split order)', default: 100, min: 1 },
  offset: { type: 'int', help: 'index of the first task in the split (after the difficulty filter): disjoint slices', default: 0, min: 0 },
  difficulty: { type: 'int', help: 'only tasks of this difficulty (1–3; default all)', min: 1, max: 3 },
  k: { type: 'int', help: 'samples per task (Avg@k, pass@k)', default: 4, min: 1 },
  temperature: { type: 'number', help: 'sampling temperature (0 = greedy)', default: 0.6, min: 0 },
  'top-p': { type: 'number', help: 'nucleus filter', default: 0.95, min: 0, max: 1 },
  seed: { type: 'int', help: 'sampling seed', default: 0, min: 0 },
  resamples: { type: 'int', help: 'bootstrap resamples', default: DEFAULT_RESAMPLES, min: 100 },
  'max-new-tokens': { type: 'int', help: 'token budget of every Act generation (default: the model profile\'s; 256 for Hugging Face models)', min: 1 },
  'chunk-tasks': { type: 'int', help: 'tasks per chunk (default: sized to memory)', min: 1 },
  threads: { type: 'int', help: 'ONNX Runtime intra-op threads', default: 1, min: 1 },
} as const satisfies Record<string, OptSpec>;

export const EVAL_CLI = defineCli({
  name: 'eval',
  summary: 'Held-out evaluation: Avg@k in the real environment with bootstrap 95% intervals over tasks.',
  options: {
    model: { type: 'string', help: 'model folder, or a Hugging Face ONNX model (onnx-community folder, hub id, URL)', required: true },
    split: { type: 'string', help: 'task split (held-out only)', choices: ['test'], default: 'test' },
    ...HELD_OUT_OPTIONS,
    ...SUITE_OPTIONS,
    'per-task': { type: 'boolean', help: 'include per-task scores in the JSON' },
    json: { type: 'boolean', help: 'print the JSON object only' },
  },
});

export interface EvalRun { folder: ModelFolder; model: string; world: string; tasks: number; offset?: number; difficulty?: number; sampling: ProtocolSampling; chunkTasks?: number; threads?: number; quiet?: boolean; label?: string; maxNewTokens?: number }

/**
 * The held-out tasks of a run: tasks offset … offset+count−1 of the world's test split, counted within the
 * difficulty filter when there is one (the world selects seeds cheaply and generates only those tasks).
 */
export function evalTasks(r: { world: string; tasks: number; offset?: number; difficulty?: number }) {
  return getWorld(r.world).tasks({ split: 'test', count: r.tasks, offset: r.offset ?? 0, difficulty: r.difficulty });
}

/** Loads nothing twice: the caller passes the folder (the ablation evaluates many). */
export async function evaluateFolder(r: EvalRun) {
  const tasks = evalTasks(r);
  const policy = await samplerFromFolder(r.folder, createNodeRuntime({ threads: r.threads ?? 1 }), { mode: 'fast' });
  const bar = r.quiet ? null : progress(tasks.length * r.sampling.k, r.label ?? `eval ${r.world}`);
  let shown = 0;
  try {
    return await runProtocol(tasks, policy, {
      ...r.sampling, mode: 'real',
      rollout: withBudget(rolloutSettings(profileFromConfig(r.folder.rawConfig)), r.maxNewTokens),
      model: r.folder.config, memoryBudgetBytes: 1024 * 1024 * 1024, chunkTasks: r.chunkTasks,
      yieldToEventLoop: false,
      onProgress: (p) => { while (bar && shown < p.done) { shown++; bar.tick(`chunk ${p.chunk}/${p.chunks} · ${p.generations} generations`); } },
    });
  } finally {
    bar?.done();
    await policy.release();
  }
}

type Settings = Omit<RolloutConfig, 'mode' | 'policy'>;
const withBudget = (s: Settings, maxNewTokens?: number): Settings => (maxNewTokens === undefined ? s : { ...s, act: { ...s.act, maxNewTokens }, rehearse: { ...s.rehearse, maxNewTokens } });

export type HfEvalRun = Omit<EvalRun, 'folder' | 'threads'>;

/**
 * The same protocol for a Hugging Face ONNX model (`model`: an onnx-community folder, hub id or URL): the loader,
 * chat template and prompting of `npm run rollout -- --model HF` and of the browser worker's Benchmarks page.
 */
export async function evaluateHfModel(r: HfEvalRun) {
  const tasks = evalTasks(r);
  const hf = await import('../engine/hf/node');
  const m = await hf.loadHfModelNode(r.model, { name: `policy:hf:${r.model}`, progress: r.quiet ? undefined : hf.progressPrinter(process.stderr) });
  const format = formatForTokenizerConfig(m.tokenizerConfig as { chat_template?: string; eos_token?: string });
  const bar = r.quiet ? null : progress(tasks.length * r.sampling.k, r.label ?? `eval ${r.world}`);
  let shown = 0;
  try {
    return await runProtocol(tasks, m.generator, {
      ...r.sampling, mode: 'real',
      rollout: { ...withBudget(hfRolloutSettings(), r.maxNewTokens), format, simulatorFormat: format },
      model: m.config as unknown as ModelShape, memoryBudgetBytes: 1024 * 1024 * 1024, chunkTasks: r.chunkTasks,
      yieldToEventLoop: false,
      onProgress: (p) => { while (bar && shown < p.done) { shown++; bar.tick(`chunk ${p.chunk}/${p.chunks} · ${p.generations} generations`); } },
    });
  } finally {
    bar?.done();
    await m.generator.release();
  }
}

export function bootstrapSeed(seed: number): number { return hashSeed('bootstrap', seed); }

/** A model that cannot be loaded: the command prints the message and exits 2. */
export class ModelLoadError extends Error {
  constructor(message: string) { super(message); this.name = 'ModelLoadError'; }
}

/** A model folder, loaded (its errors as ModelLoadError); null for a Hugging Face reference (loaded when evaluated). */
export async function openModel(model: string): Promise<ModelFolder | null> {
  if (isHfModelRef(model)) return null;
  try { return await loadModelFolder(model); } catch (e) {
    throw new ModelLoadError(`cannot load model folder ${model}: ${(e as Error).message}`);
  }
}

/** evaluateFolder or evaluateHfModel by what `model` names; `folder` from openModel when already loaded. */
export async function evaluateModel(r: HfEvalRun & { threads?: number; folder?: ModelFolder | null }): Promise<ProtocolResult> {
  const folder = r.folder === undefined ? await openModel(r.model) : r.folder;
  if (folder) return evaluateFolder({ ...r, folder });
  try { return await evaluateHfModel(r); } catch (e) {
    // The loader's errors name the file or feature (HfModelError: MISSING_FILE, BAD_LAYOUT, OFFLINE, …).
    if (!(e instanceof HfModelError)) throw e;
    throw new ModelLoadError(`cannot load Hugging Face model ${r.model}: ${e.code}: ${e.message}`);
  }
}

async function main() {
  const a = cliArgs(EVAL_CLI);
  if (a.suite) {
    let rep: object;
    try { rep = await runSuiteCommand(a); } catch (e) {
      if (!(e instanceof SuiteInputError)) throw e;
      process.stderr.write(`eval: ${e.problems.join('\n      ')}\n`);
      process.exit(2);
    }
    process.stdout.write(JSON.stringify(rep) + '\n');
    return;
  }
  const sampling = { k: a.k, temperature: a.temperature, topP: a['top-p'], seed: a.seed };
  const run = { model: a.model, world: a.world, tasks: a.tasks, offset: a.offset, difficulty: a.difficulty, sampling, chunkTasks: a['chunk-tasks'], maxNewTokens: a['max-new-tokens'], threads: a.threads };
  let r: ProtocolResult;
  try { r = await evaluateModel(run); } catch (e) {
    if (!(e instanceof ModelLoadError)) throw e;
    process.stderr.write(`eval: ${e.message}\n`);
    process.exit(2);
  }
  const rep: EvalReport = { ...evalReport(r, { model: a.model, world: a.world, offset: a.offset, ...sampling }, { resamples: a.resamples, seed: bootstrapSeed(a.seed) }, a['per-task']), difficulty: a.difficulty ?? 'all' };
  if (a.json) { process.stdout.write(JSON.stringify(rep) + '\n'); return; }
  const f = (e: { mean: number; ci95: [number, number] }) => `${e.mean.toFixed(3)} [${e.ci95[0].toFixed(3)}, ${e.ci95[1].toFixed(3)}]`;
  console.log(`${rep.model} on ${rep.world} test · ${rep.n_tasks} tasks${rep.offset ? ` from #${rep.offset}` : ''} · ${rep.protocol} · seed ${rep.seed} · ${rep.seconds} s`);
  for (const m of ['success', 'outcome', 'checklist', 'pass_at_k'] as const) console.log(`  ${m.padEnd(10)} ${f(rep[m])}`);
  console.log(`  terminations ${JSON.stringify(rep.terminations)}`);
}

const isMain = /(^|[\/])eval.ts$/.test(process.argv[1] ?? '');
if (isMain) main().catch((e) => { console.error(e); process.exit(1); });
