// npm run eval -- --model DIR --world files|retail [--split test] [--tasks 100] [--k 4] [--temperature 0.6]
//                 [--top-p 0.95] [--seed S] [--json]
// The evaluation protocol (src/bench/evaluation.ts): held-out tasks, Avg@k in the real environment, bootstrap
// 95% intervals over tasks. Prints one JSON object (--json) or a short table; a progress bar with ETA on stderr.

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
import { cliArgs, defineCli } from './args';
import { progress } from './util';

export const EVAL_CLI = defineCli({
  name: 'eval',
  summary: 'Held-out evaluation: Avg@k in the real environment with bootstrap 95% intervals over tasks.',
  options: {
    model: { type: 'string', help: 'model folder, or a Hugging Face ONNX model (onnx-community folder, hub id, URL)', required: true },
    world: { type: 'string', help: 'built-in world', choices: worldNames(), default: 'files' },
    split: { type: 'string', help: 'task split (held-out only)', choices: ['test'], default: 'test' },
    tasks: { type: 'int', help: 'number of held-out tasks (the first ones of the split)', default: 100, min: 1 },
    difficulty: { type: 'int', help: 'only tasks of this difficulty (1–3; default all)', min: 1, max: 3 },
    k: { type: 'int', help: 'samples per task (Avg@k, pass@k)', default: 4, min: 1 },
    temperature: { type: 'number', help: 'sampling temperature (0 = greedy)', default: 0.6, min: 0 },
    'top-p': { type: 'number', help: 'nucleus filter', default: 0.95, min: 0, max: 1 },
    seed: { type: 'int', help: 'sampling seed', default: 0, min: 0 },
    resamples: { type: 'int', help: 'bootstrap resamples', default: DEFAULT_RESAMPLES, min: 100 },
    'max-new-tokens': { type: 'int', help: 'token budget of every Act generation (default: the model profile\'s; 256 for Hugging Face models)', min: 1 },
    'chunk-tasks': { type: 'int', help: 'tasks per chunk (default: sized to memory)', min: 1 },
    threads: { type: 'int', help: 'ONNX Runtime intra-op threads', default: 1, min: 1 },
    'per-task': { type: 'boolean', help: 'include per-task scores in the JSON' },
    json: { type: 'boolean', help: 'print the JSON object only' },
  },
});

export interface EvalRun { folder: ModelFolder; model: string; world: string; tasks: number; difficulty?: number; sampling: ProtocolSampling; chunkTasks?: number; threads?: number; quiet?: boolean; label?: string; maxNewTokens?: number }

/** Loads nothing twice: the caller passes the folder (the ablation evaluates many). */
export async function evaluateFolder(r: EvalRun) {
  const tasks = getWorld(r.world).tasks({ split: 'test', count: r.tasks, difficulty: r.difficulty });
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
  const tasks = getWorld(r.world).tasks({ split: 'test', count: r.tasks, difficulty: r.difficulty });
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

async function main() {
  const a = cliArgs(EVAL_CLI);
  const sampling = { k: a.k, temperature: a.temperature, topP: a['top-p'], seed: a.seed };
  const run = { model: a.model, world: a.world, tasks: a.tasks, difficulty: a.difficulty, sampling, chunkTasks: a['chunk-tasks'], maxNewTokens: a['max-new-tokens'] };
  let r: ProtocolResult;
  if (isHfModelRef(a.model)) {
    try { r = await evaluateHfModel(run); } catch (e) {
      // The loader's errors name the file or feature (HfModelError: MISSING_FILE, BAD_LAYOUT, OFFLINE, …).
      if (!(e instanceof HfModelError)) throw e;
      process.stderr.write(`eval: cannot load Hugging Face model ${a.model}: ${e.code}: ${e.message}\n`);
      process.exit(2);
    }
  } else {
    let folder: ModelFolder;
    try { folder = await loadModelFolder(a.model); } catch (e) {
      process.stderr.write(`eval: cannot load model folder ${a.model}: ${(e as Error).message}\n`);
      process.exit(2);
    }
    r = await evaluateFolder({ ...run, folder, threads: a.threads });
  }
  const rep: EvalReport = { ...evalReport(r, { model: a.model, world: a.world, ...sampling }, { resamples: a.resamples, seed: bootstrapSeed(a.seed) }, a['per-task']), difficulty: a.difficulty ?? 'all' };
  if (a.json) { process.stdout.write(JSON.stringify(rep) + '\n'); return; }
  const f = (e: { mean: number; ci95: [number, number] }) => `${e.mean.toFixed(3)} [${e.ci95[0].toFixed(3)}, ${e.ci95[1].toFixed(3)}]`;
  console.log(`${rep.model} on ${rep.world} test · ${rep.n_tasks} tasks · ${rep.protocol} · seed ${rep.seed} · ${rep.seconds} s`);
  for (const m of ['success', 'outcome', 'checklist', 'pass_at_k'] as const) console.log(`  ${m.padEnd(10)} ${f(rep[m])}`);
  console.log(`  terminations ${JSON.stringify(rep.terminations)}`);
}

const isMain = /(^|[\/])eval.ts$/.test(process.argv[1] ?? '');
if (isMain) main().catch((e) => { console.error(e); process.exit(1); });
