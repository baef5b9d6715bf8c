// npm run rollout -- --model models/NAME --world retail --task-seed 7 --mode rehearsal --n 4 [--json]
//
// Runs K rollouts of one task and prints each trajectory with its per-call rehearsal fidelity (imagined vs
// the shadow environment's real answer) and its checklist verdict.
//
//   --model DIR            model folder (config.json, tokenizer.json, model.safetensors); or --expert
//   --expert               no model: an expert that replays the task's reference and rehearses as an oracle
//                          (checks the plumbing; fidelity and reward should be 1)
//   --world NAME --task-seed N   (or --task retail-7)
//   --mode real|simulator|rehearsal   (default rehearsal)
//   --simulator DIR        frozen Rehearse model for --mode simulator (default: a second copy of --model)
//   --n K                  rollouts (default 4)       --seed S   base seed (default 0)
//   --temperature T        (default 1)   --top-p P (1)   --top-k K (0)
//   --act-tokens N         Act token budget (default 192)   --rehearse-tokens N (default 384)
//   --short                shortest prompts: same-tool hints, last 4 messages of history
//   --judge-on shown|real  which tool results the checklist judge reads (default shown)
//   --keep-going           errors do not end the episode
//   --traces FILE          also write the trajectories as JSONL traces (src/agent/TRACES.md)
//   --json                 machine-readable output on stdout

import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { profileFromConfig, rolloutSettings } from '../agent/profile';
import { formatForTokenizerConfig, type ChatFormat } from '../agent/chatTemplate';
import { summarizeFidelity, trajectoryFidelity } from '../agent/fidelity';
import { rollout, type RolloutConfig } from '../agent/rollout';
import { expertGenerator } from '../agent/expert';
import { exportTraces } from '../agent/traces';
import type { RolloutMode, Trajectory } from '../agent/types';
import type { TextGenerator } from '../engine/generator';
import { explainVerdict } from '../envs/judges';
import { getWorld, taskById } from '../envs/worlds/index';
import type { Task } from '../envs/types';
import { CliArgsError, parseCliArgs, usage, type CliValues } from './args';
import { exitOnArgsError, ROLLOUT_CLI } from './defs';
import { isHfModelRef } from '../engine/hf/ref-node';

type Args = CliValues<typeof ROLLOUT_CLI.options>;

/**
 * The schema's checks plus the ones across options (a task, a policy), all reported together. Pure: the
 * tests call it with argv lists.
 */
export function rolloutArgs(argv: string[]): Args | 'help' {
  // Which options were given at all: the checks across options run even when a value is malformed.
  const has = (k: string) => argv.some((x) => x === `--${k}` || x.startsWith(`--${k}=`));
  const problems: string[] = [];
  if (!has('model') && !has('expert')) problems.push('need --model DIR (or --expert for a model-free check)');
  if (has('model') && has('expert')) problems.push('--model and --expert exclude each other');
  if (!has('task') && !(has('world') && has('task-seed'))) problems.push('need --world NAME --task-seed N (or --task WORLD-SEED)');
  let a: Args | 'help';
  try {
    a = parseCliArgs(ROLLOUT_CLI, argv);
  } catch (e) {
    if (e instanceof CliArgsError) throw new CliArgsError([...e.problems, ...problems], e.usage);
    throw e;
  }
  if (a === 'help') return a;
  if (a.task) {
    try { taskById(a.task); } catch (e) { problems.push(`--task: ${(e as Error).message}`); }
  }
  if (a.simulator && a.mode !== 'simulator') problems.push('--simulator is only used with --mode simulator');
  if (problems.length) throw new CliArgsError(problems, usage(ROLLOUT_CLI));
  return a;
}

function loadTask(a: Args): Task {
  return a.task ? taskById(a.task) : getWorld(a.world!).task(a['task-seed']!);
}

async function loadModel(dir: string, name: string): Promise<{ gen: TextGenerator; format: ChatFormat; release: () => Promise<void> }> {
  // A Hugging Face model (hub id, URL, or an onnx-community folder) runs through transformers.js with its own chat template.
  if (isHfModelRef(dir)) {
    const hf = await import('../engine/hf/node');
    const m = await hf.loadHfModelNode(dir, { name: `${name}:hf:${dir}`, progress: hf.progressPrinter(process.stderr) });
    return { gen: m.generator, format: formatForTokenizerConfig(m.tokenizerConfig), release: () => m.generator.release() };
  }
  // Imported lazily so --expert runs need no native runtime.
  const [{ loadModelFolder }, { samplerFromFolder }, { nodeRuntime }] = await Promise.all([
    import('../engine/modelFolder'), import('../engine/sampler'), import('../engine/runtime-node'),
  ]);
  const folder = await loadModelFolder(dir);
  const s = await samplerFromFolder(folder, nodeRuntime(), { name });
  return { gen: s, format: formatForTokenizerConfig(folder.tokenizerConfig), release: () => s.release() };
}

function trajectoryReport(t: Trajectory, i: number) {
  const calls = t.rows.filter((r) => r.role === 'rehearse').map((r) => ({
    step: r.step, turn: r.turn, tool: r.call?.name, arguments: r.call?.arguments, imagined: r.imagined, real: r.real?.text,
    fidelity: r.fidelity, error: r.error?.code,
  }));
  return {
    sample: i, seed: t.seed, terminatedBy: t.terminatedBy, reward: t.reward, error: t.error, verdict: t.verdict,
    generations: { act: t.rows.filter((r) => r.role === 'act').length, rehearse: calls.length },
    fidelity: summarizeFidelity(trajectoryFidelity(t)), calls,
    rows: t.rows.map((r) => ({ role: r.role, turn: r.turn, step: r.step, text: r.text, call: r.call, error: r.error?.code, finishReason: r.finishReason })),
    messages: t.messages,
  };
}

function printHuman(task: Task, mode: RolloutMode, ts: Trajectory[]): void {
  const out = (s = '') => process.stdout.write(`${s}\n`);
  out(`task ${task.id} (${task.world}, ${task.split}, difficulty ${task.difficulty}) — mode ${mode}, ${ts.length} rollouts`);
  ts.forEach((t, i) => {
    out(`\n=== rollout ${i} (seed ${t.seed}): ${t.terminatedBy}, reward ${t.reward?.toFixed(3)}${t.error ? `, error ${t.error.code}` : ''}`);
    for (const r of t.rows) {
      const head = `[${r.step}] ${r.role.padEnd(8)} turn ${r.turn}`;
      if (r.role === 'act') {
        const what = r.error ? `ERROR ${r.error.code}` : r.calls?.length ? r.calls.map((c) => `${c.name}(${JSON.stringify(c.arguments)})`).join(' ') : `reply: ${r.text.trim().slice(0, 160)}`;
        out(`${head}  ${what}`);
      } else {
        const f = r.fidelity;
        out(`${head}  ${r.call?.name}: ${(r.imagined ?? '').slice(0, 120)}${r.error ? `  [${r.error.code}]` : ''}`);
        if (r.real) out(`${' '.repeat(head.length)}  real: ${r.real.text.slice(0, 120)}`);
        if (f) out(`${' '.repeat(head.length)}  fidelity: exact ${f.exact ? 'yes' : 'no'}, field F1 ${f.fieldF1.toFixed(2)}, error agree ${f.errorAgree ? 'yes' : 'no'}`);
      }
    }
    if (t.verdict) out(explainVerdict(t.verdict));
  });
  const all = summarizeFidelity(ts.flatMap(trajectoryFidelity));
  const mean = ts.reduce((s, t) => s + (t.reward ?? 0), 0) / Math.max(1, ts.length);
  out(`\nmean reward ${mean.toFixed(3)}; fidelity over ${all.calls} calls: exact ${(100 * all.exactRate).toFixed(1)}%, field F1 ${all.meanF1.toFixed(3)}, error agreement ${(100 * all.errorAgreeRate).toFixed(1)}%`);
  for (const [tool, s] of Object.entries(all.perTool)) out(`  ${tool}: ${s.calls} calls, exact ${(100 * s.exactRate).toFixed(0)}%, F1 ${s.meanF1.toFixed(2)}`);
}

async function main(): Promise<void> {
  let a: Args;
  try {
    const r = rolloutArgs(process.argv.slice(2));
    if (r === 'help') { process.stdout.write(`${usage(ROLLOUT_CLI)}\n`); return; }
    a = r;
  } catch (e) { exitOnArgsError('rollout', e); }
  const task = loadTask(a);
  const mode = a.mode as RolloutMode;
  const n = a.n;
  const releases: (() => Promise<void>)[] = [];
  let policy: TextGenerator;
  let simulator: TextGenerator | undefined;
  let format: ChatFormat | undefined;
  let simFormat: ChatFormat | undefined;
  const modelDir = a.model;
  if (!modelDir) {
    policy = expertGenerator([task]);
    simulator = mode === 'simulator' ? expertGenerator([task], { name: 'expert-simulator' }) : undefined;
  } else {
    const p = await loadModel(modelDir, 'policy');
    policy = p.gen; format = p.format; releases.push(p.release);
    if (mode === 'simulator') {
      const s = await loadModel(a.simulator ?? modelDir, 'simulator');
      simulator = s.gen; simFormat = s.format; releases.push(s.release);
    }
  }
  const short = a.short;
  const sampling = { temperature: a.temperature, topP: a['top-p'], topK: a['top-k'] };
  // A model folder carries the prompting profile it was trained with; prompting it any other way is off-distribution.
  const profile = modelDir && !isHfModelRef(modelDir) ? profileFromConfig(JSON.parse(readFileSync(join(modelDir, 'config.json'), 'utf8'))) : undefined;
  const cfg: RolloutConfig = {
    mode, policy, simulator, format, simulatorFormat: simFormat, seed: a.seed,
    ...(profile ? rolloutSettings(profile) : {}),
    act: { ...profile?.act, ...sampling, maxNewTokens: a['act-tokens'] ?? profile?.act.maxNewTokens ?? 192 },
    rehearse: { ...profile?.rehearse, ...sampling, maxNewTokens: a['rehearse-tokens'] ?? profile?.rehearse.maxNewTokens ?? 384 },
    actPrompt: profile ? profile.actPrompt : short ? { maxHistory: 8 } : {},
    rehearsePrompt: profile ? profile.rehearsePrompt : short ? { hints: 'same-tool', maxHistory: 4, style: 'short' } : {},
    judgeOn: a['judge-on'] === 'real' ? 'real' : 'shown',
    errorsEndEpisode: !a['keep-going'],
    onRound: ({ round, live, requests }) => { if (!a.json) process.stderr.write(`round ${round}: ${live} live, ${requests} generations\n`); },
  };
  const t0 = Date.now();
  const specs = Array.from({ length: n }, (_, j) => ({ task, sample: j, groupId: task.id }));
  const ts = await rollout(specs, cfg);
  const seconds = (Date.now() - t0) / 1000;
  for (const r of releases) await r();
  const tracesFile = a.traces;
  if (tracesFile) writeFileSync(tracesFile, exportTraces(ts));
  if (a.json) {
    const all = summarizeFidelity(ts.flatMap(trajectoryFidelity));
    process.stdout.write(`${JSON.stringify({
      task: { id: task.id, world: task.world, split: task.split, difficulty: task.difficulty, userTurns: task.userTurns },
      mode, n, seed: cfg.seed, policy: policy.name, simulator: simulator?.name, seconds,
      meanReward: ts.reduce((s, t) => s + (t.reward ?? 0), 0) / Math.max(1, ts.length),
      fidelity: all,
      trajectories: ts.map(trajectoryReport),
    }, null, 2)}\n`);
  } else {
    printHuman(task, mode, ts);
    process.stdout.write(`(${seconds.toFixed(1)} s)\n`);
  }
}

const isMain = !!process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1]);
if (isMain) {
  main().catch((e) => {
    process.stderr.write(`rollout: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  });
}
