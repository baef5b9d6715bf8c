// npm run tts -- --model DIR --world W --tasks 100 --n 0,1,2,3,4 --strategy parallel,sequential [--memory full,best-calls] [--json]
//
// Test-time private rehearsal sweep (src/tts/): for every (strategy, N, memory) the committed executions
// in the real environment on held-out tasks, k samples each, with success, checklist and pass@k (bootstrap
// 95% intervals over tasks; paired differences against N = 0), the length of the committed execution's
// first Act prompt (context crowding), memory length, generations and seconds. Tasks run in chunks; after
// every chunk the summary so far is written to --out (partial: true until the end). Progress on stderr.

import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { formatForTokenizerConfig, compactFormat, type ChatFormat } from '../agent/chatTemplate';
import { profileFromConfig, rolloutSettings } from '../agent/profile';
import { canonicalJson } from '../agent/protocol';
import { expertGenerator } from '../agent/expert';
import type { TextGenerator } from '../engine/generator';
import { getWorld, worldNames } from '../envs/worlds/index';
import type { Task } from '../envs/types';
import { scoreTask } from '../bench/evaluation';
import { bootstrap, DEFAULT_RESAMPLES, pairedBootstrap, type Estimate } from '../bench/stats';
import { hashSeed, type RolloutConfig } from '../agent/rollout';
import type { MemoryKind } from '../tts/memory';
import { HINT_SOURCE_LABEL, realMatchesCommitted, runTts, type Attempt, type Strategy, type TtsHintSource, type TtsRun } from '../tts/rehearse';
import { isHfModelRef } from '../engine/hf/ref-node';
import { hfRolloutSettings } from '../worker/hf-rollout-config';
import { cliArgs, defineCli } from './args';
import { progress } from './util';

export const TTS_CLI = defineCli({
  name: 'tts',
  summary: 'Private rehearsal before acting: success / checklist / pass@k against N, per strategy and memory format.',
  options: {
    model: { type: 'string', help: 'model folder, or a Hugging Face ONNX model (onnx-community folder, hub id, URL); or --expert' },
    expert: { type: 'boolean', help: 'no model: the reference expert with an oracle Rehearse role (plumbing check)' },
    world: { type: 'string', help: 'built-in world', choices: worldNames(), default: 'files' },
    tasks: { type: 'int', help: 'held-out tasks (the first ones of the test split)', default: 100, min: 1 },
    n: { type: 'numbers', help: 'imagined attempts per user turn (0 = no rehearsal)', default: [0, 1, 2, 3, 4], integer: true, min: 0, max: 16 },
    strategy: { type: 'list', help: 'rehearsal strategies', choices: ['parallel', 'sequential'], default: ['parallel', 'sequential'] },
    memory: { type: 'list', help: 'what the committed execution is shown', choices: ['full', 'best-calls'], default: ['full'] },
    hints: { type: 'string', help: "what the imagined attempts' Rehearse role is shown as example calls: 'episode' (the calls and real results of this episode so far: what a deployed agent has) or 'oracle' (the test task's own reference calls and results: gold, a reference line only)", choices: ['episode', 'oracle'], default: 'episode' },
    assessor: { type: 'string', help: 'who writes self-evaluations (rules: for policies too small to write one)', choices: ['rules', 'policy'], default: 'rules' },
    'memory-tokens': { type: 'int', help: 'memory length bound, policy tokens', default: 192, min: 0 },
    k: { type: 'int', help: 'committed samples per task (Avg@k, pass@k)', default: 2, min: 1 },
    'max-new-tokens': { type: 'int', help: 'token budget of every Act and Rehearse generation (default: the model profile\'s; 256 for Hugging Face models)', min: 1 },
    temperature: { type: 'number', help: 'committed execution temperature', default: 0.6, min: 0 },
    'top-p': { type: 'number', help: 'nucleus filter (committed and attempts)', default: 0.95, min: 0, max: 1 },
    'attempt-temperature': { type: 'number', help: 'temperature of the imagined attempts', default: 1, min: 0 },
    seed: { type: 'int', help: 'sampling seed', default: 0, min: 0 },
    'chunk-tasks': { type: 'int', help: 'tasks per chunk (partial results are written after each)', default: 4, min: 1 },
    threads: { type: 'int', help: 'ONNX Runtime intra-op threads', default: 1, min: 1 },
    resamples: { type: 'int', help: 'bootstrap resamples', default: DEFAULT_RESAMPLES, min: 100 },
    'no-cache': { type: 'boolean', help: 'recompute attempts in every configuration (honest per-config seconds)' },
    out: { type: 'string', help: 'write the (partial, then final) JSON here as it goes' },
    json: { type: 'boolean', help: 'print the JSON object only' },
  },
});

interface Config { strategy: Strategy | 'none'; n: number; memory: MemoryKind | 'none' }

interface TaskRow {
  task: string; success: number; checklist: number; passAtK: number;
  /** Means over the task's k committed samples. */
  firstPromptTokens: number; promptTokensAllTurns: number; memoryTokens: number; generations: number;
  /** Fraction of rehearsed turns whose first committed call equals the best attempt's first call. */
  followedPlan: number | null;
  /** Mean imagined-vs-real field F1 of the attempts' calls (how wrong the imagination was). */
  attemptFidelity: number | null;
  /** Fraction of attempts the rules found nothing wrong with. */
  cleanAttempts: number | null;
  realEnvOk: boolean;
  terminations: string[];
}

const key = (c: Config) => `${c.strategy}/${c.n}/${c.memory}`;
const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
const meanOrNull = (xs: number[]) => (xs.length ? mean(xs) : null);

function rowsOf(tasks: Task[], runs: TtsRun[], k: number): TaskRow[] {
  return tasks.map((task) => {
    const rs = runs.filter((r) => r.trajectory.taskId === task.id);
    const s = scoreTask(task.id, rs.map((r) => r.trajectory), k);
    const follow: number[] = [];
    const fid: number[] = [];
    const clean: number[] = [];
    for (const r of rs) {
      for (const h of r.rehearsals) {
        if (!h.attempts.length) continue;
        const best = h.attempts[h.best];
        const planFirst = best.steps.find((x) => x.call)?.call;
        const committedFirst = r.trajectory.rows.find((row) => row.role === 'act' && row.turn === h.userTurn)?.calls?.[0];
        if (planFirst) follow.push(committedFirst && canonicalJson(committedFirst) === canonicalJson(planFirst) ? 1 : 0);
        for (const a of h.attempts as Attempt[]) {
          clean.push(a.assessment.flags.length === 0 ? 1 : 0);
          for (const row of a.trajectory.rows) if (row.fidelity) fid.push(row.fidelity.fieldF1);
        }
      }
    }
    return {
      task: task.id, success: s.success, checklist: s.checklist, passAtK: s.passAtK,
      firstPromptTokens: mean(rs.map((r) => r.firstPromptTokens[0] ?? 0)),
      promptTokensAllTurns: mean(rs.flatMap((r) => r.firstPromptTokens)),
      memoryTokens: mean(rs.flatMap((r) => r.rehearsals.map((h) => h.memoryTokens))),
      generations: mean(rs.map((r) => r.generations)),
      followedPlan: meanOrNull(follow), attemptFidelity: meanOrNull(fid), cleanAttempts: meanOrNull(clean),
      realEnvOk: rs.every(realMatchesCommitted) && rs.every((r) => r.rehearsals.every((h) => h.stateHashAfter === h.stateHashBefore)),
      terminations: s.terminations,
    };
  });
}

function summarize(c: Config, rows: TaskRow[], base: TaskRow[] | undefined, seconds: number, opts: { resamples: number; seed: number }) {
  const b = (xs: number[]): Estimate => bootstrap(xs, { resamples: opts.resamples, seed: opts.seed });
  const paired = (f: (r: TaskRow) => number) => (base && base.length === rows.length && c.n > 0
    ? pairedBootstrap([rows.map(f)], [base.map(f)], { resamples: opts.resamples, seed: opts.seed }) : null);
  const terminations: Record<string, number> = Object.create(null);
  for (const r of rows) for (const t of r.terminations) terminations[t] = (terminations[t] ?? 0) + 1;
  const nn = (xs: (number | null)[]) => meanOrNull(xs.filter((x): x is number => x !== null));
  return {
    ...c, tasks: rows.length,
    success: b(rows.map((r) => r.success)), checklist: b(rows.map((r) => r.checklist)), passAtK: b(rows.map((r) => r.passAtK)),
    deltaVsN0: { success: paired((r) => r.success), checklist: paired((r) => r.checklist) },
    promptTokens: {
      firstTurn: mean(rows.map((r) => r.firstPromptTokens)), allTurns: mean(rows.map((r) => r.promptTokensAllTurns)),
      max: Math.max(0, ...rows.map((r) => r.firstPromptTokens)),
    },
    memoryTokens: mean(rows.map((r) => r.memoryTokens)),
    followedPlan: nn(rows.map((r) => r.followedPlan)), attemptFidelityF1: nn(rows.map((r) => r.attemptFidelity)), cleanAttempts: nn(rows.map((r) => r.cleanAttempts)),
    generationsPerTask: mean(rows.map((r) => r.generations)),
    seconds: Math.round(seconds * 10) / 10,
    realEnvCheck: { tasks: rows.length, violations: rows.filter((r) => !r.realEnvOk).length },
    terminations,
  };
}

async function loadPolicy(a: { model?: string; expert: boolean; threads: number }, tasks: Task[]) {
  if (a.expert) return { policy: expertGenerator(tasks) as TextGenerator, format: compactFormat as ChatFormat, settings: {}, release: async () => {}, memoryTrained: false };
  // A Hugging Face model (onnx-community folder, hub id or URL): the loader, chat template and prompting of
  // `npm run rollout -- --model HF` and of the browser worker (src/worker/hf-rollout-config.ts).
  if (isHfModelRef(a.model!)) {
    const hf = await import('../engine/hf/node');
    const m = await hf.loadHfModelNode(a.model!, { name: `policy:hf:${a.model}`, progress: hf.progressPrinter(process.stderr) });
    return { policy: m.generator as TextGenerator, format: formatForTokenizerConfig(m.tokenizerConfig), settings: hfRolloutSettings(), release: () => m.generator.release(), memoryTrained: false };
  }
  const [{ loadModelFolder }, { samplerFromFolder }, { createNodeRuntime }] = await Promise.all([
    import('../engine/modelFolder'), import('../engine/sampler'), import('../engine/runtime-node'),
  ]);
  const folder = await loadModelFolder(a.model!);
  const s = await samplerFromFolder(folder, createNodeRuntime({ threads: a.threads }), { mode: 'fast' });
  // Trained with rehearsal memories in its Act prompts (`npm run sft -- --memory-pool`): the memory is in distribution.
  const memoryTrained = Number((folder.rawConfig.envace as { memoryPool?: number } | undefined)?.memoryPool ?? 0) > 0;
  return { policy: s as TextGenerator, format: formatForTokenizerConfig(folder.tokenizerConfig), settings: rolloutSettings(profileFromConfig(folder.rawConfig)), release: () => s.release(), memoryTrained };
}

async function main() {
  const a = cliArgs(TTS_CLI);
  if (!a.model && !a.expert) { process.stderr.write('tts: need --model DIR (or --expert)\n'); process.exit(2); }
  const tasks = getWorld(a.world).tasks({ split: 'test', count: a.tasks });
  const { policy, format, settings, release, memoryTrained } = await loadPolicy({ model: a.model, expert: a.expert, threads: a.threads }, tasks);
  const configs: Config[] = [];
  if (a.n.includes(0)) configs.push({ strategy: 'none', n: 0, memory: 'none' });
  for (const strategy of a.strategy as Strategy[]) for (const n of a.n.filter((x) => x > 0)) for (const memory of a.memory as MemoryKind[]) configs.push({ strategy, n, memory });
  const budget = a['max-new-tokens'] !== undefined ? { maxNewTokens: a['max-new-tokens'] } : {};
  const cfg: Omit<RolloutConfig, 'mode' | 'onUserTurn'> = {
    ...settings, policy, format, seed: a.seed,
    act: { ...settings.act, temperature: a.temperature, topP: a['top-p'], ...budget },
    rehearse: { ...settings.rehearse, temperature: a.temperature, topP: a['top-p'], ...budget },
  };
  const rows = new Map<string, TaskRow[]>(configs.map((c) => [key(c), []]));
  const seconds = new Map<string, number>(configs.map((c) => [key(c), 0]));
  const cache = a['no-cache'] ? undefined : new Map<string, Attempt>();
  const chunks: Task[][] = [];
  for (let i = 0; i < tasks.length; i += a['chunk-tasks']) chunks.push(tasks.slice(i, i + a['chunk-tasks']));
  const bar = progress(chunks.length * configs.length, `tts ${a.world}`);
  const bootOpts = { resamples: a.resamples, seed: hashSeed('bootstrap', a.seed) };
  const t0 = Date.now();
  const report = (partial: boolean) => {
    const base = rows.get('none/0/none');
    return {
      model: a.expert ? 'expert' : a.model, world: a.world, split: 'test', tasksRequested: a.tasks,
      tasksDone: rows.get(key(configs[configs.length - 1]))?.length ?? 0, partial,
      protocol: { k: a.k, temperature: a.temperature, topP: a['top-p'], attemptTemperature: a['attempt-temperature'], seed: a.seed, maxNewTokens: a['max-new-tokens'] ?? 'profile', ci: `95% percentile bootstrap over tasks (${a.resamples} resamples)` },
      hintSource: a.hints, hintSourceLabel: HINT_SOURCE_LABEL[a.hints as TtsHintSource],
      assessor: a.assessor, memoryTokens: a['memory-tokens'], cache: !a['no-cache'], memoryTrained,
      note: 'seconds are wall time of each configuration on a shared machine; with the attempt cache later configurations reuse earlier attempts (generationsPerTask counts them all)',
      seconds: Math.round((Date.now() - t0) / 100) / 10,
      configs: configs.map((c) => {
        const r = rows.get(key(c))!;
        return r.length ? summarize(c, r, base && base.length === r.length ? base : undefined, seconds.get(key(c))!, bootOpts) : { ...c, tasks: 0 };
      }),
    };
  };
  // The folder of --out is made up front: a run must not end at its first partial write.
  if (a.out) mkdirSync(dirname(a.out), { recursive: true });
  try {
    for (const chunk of chunks) {
      const specs = chunk.flatMap((task) => [...Array(a.k).keys()].map((j) => ({ task, sample: j })));
      for (const c of configs) {
        const s0 = Date.now();
        const runs = await runTts(specs, {
          policy, format, cfg,
          opts: { n: c.n, strategy: c.strategy === 'none' ? 'parallel' : c.strategy, memory: c.memory === 'none' ? 'full' : c.memory,
            assessor: a.assessor as 'rules' | 'policy', memoryTokens: a['memory-tokens'], attemptTemperature: a['attempt-temperature'], cache,
            hintSource: a.hints as TtsHintSource },
        });
        seconds.set(key(c), seconds.get(key(c))! + (Date.now() - s0) / 1000);
        rows.get(key(c))!.push(...rowsOf(chunk, runs, a.k));
        bar.tick(key(c));
      }
      if (a.out) writeFileSync(a.out, JSON.stringify(report(true), null, 1));
    }
  } finally {
    bar.done();
    await release();
  }
  const rep = report(false);
  if (a.out) writeFileSync(a.out, JSON.stringify(rep, null, 1));
  if (a.json) { process.stdout.write(JSON.stringify(rep) + '\n'); return; }
  const f = (e: Estimate | null | undefined) => (e ? `${e.mean.toFixed(3)} [${e.ci95[0].toFixed(3)}, ${e.ci95[1].toFixed(3)}]` : '—');
  console.log(`${rep.model} on ${a.world} test · ${rep.tasksDone} tasks × k ${a.k} · T ${a.temperature} (attempts ${a['attempt-temperature']}) · ${HINT_SOURCE_LABEL[a.hints as TtsHintSource]} · assessor ${a.assessor} · memory ≤ ${a['memory-tokens']} tokens · ${rep.seconds} s`);
  console.log('strategy    N memory      success               checklist             Δchecklist vs N=0       pass@k                prompt tok  mem tok  s');
  for (const c of rep.configs) {
    if (!('success' in c)) continue;
    console.log(`${c.strategy.padEnd(11)} ${String(c.n).padEnd(2)}${c.memory.padEnd(11)} ${f(c.success).padEnd(22)}${f(c.checklist).padEnd(22)}${f(c.deltaVsN0.checklist).padEnd(24)}${f(c.passAtK).padEnd(22)}${c.promptTokens.firstTurn.toFixed(0).padEnd(12)}${c.memoryTokens.toFixed(0).padEnd(9)}${c.seconds}`);
  }
}

const isMain = /(^|[\/])tts.ts$/.test(process.argv[1] ?? '');
if (isMain) main().catch((e) => { console.error(e); process.exit(1); });
