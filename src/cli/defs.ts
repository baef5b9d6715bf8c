// Argument schemas of the engine, envs, conformance, rollout and bench:engine commands, apart from the
// commands themselves so the fuzzer (npm run fuzz) and the tests can parse against them without running
// anything. A command with subcommands has one schema per subcommand.

import { worldNames } from '../envs/worlds/index';
import { CliArgsError, defineCli, type CliDef, type OptSpec } from './args';

export const ENGINE_TRAIN_LM_CLI = defineCli({
  name: 'engine',
  positionals: { max: 0, usage: 'train-lm' },
  summary: 'Pretrain a decoder on a text corpus and write a model folder.',
  options: {
    corpus: { type: 'string', required: true, help: 'text file to train on' },
    out: { type: 'string', required: true, help: 'model folder to write' },
    size: { type: 'string', default: 'small', choices: ['tiny', 'small', 'base'], help: 'decoder preset' },
    steps: { type: 'int', default: 500, min: 1, help: 'optimizer steps' },
    seed: { type: 'int', default: 0, min: 0, help: 'seed' },
    batch: { type: 'int', default: 16, min: 1, help: 'sequences per step' },
    len: { type: 'int', default: 256, min: 2, help: 'tokens per sequence' },
    lr: { type: 'number', default: 3e-3, min: 0, help: 'peak learning rate' },
    warmup: { type: 'int', min: 0, help: 'warmup steps (default: a share of --steps)' },
    tokenizer: { type: 'string', help: 'existing tokenizer.json (default: train one on the corpus)' },
    init: { type: 'string', help: 'model folder to continue from' },
    vocab: { type: 'int', min: 1, help: 'tokenizer vocabulary size when training one' },
    'save-every': { type: 'int', min: 1, help: 'write the folder every N steps' },
  },
});

export const ENGINE_SAMPLE_CLI = defineCli({
  name: 'engine',
  positionals: { max: 0, usage: 'sample' },
  summary: 'Sample text from a model folder.',
  options: {
    model: { type: 'string', required: true, help: 'model folder' },
    prompt: { type: 'string', default: '', help: 'prompt text' },
    'max-new-tokens': { type: 'int', default: 64, min: 1, help: 'tokens to generate' },
    temperature: { type: 'number', default: 0.8, min: 0, help: 'sampling temperature' },
    'top-p': { type: 'number', default: 0.95, min: 0, max: 1, help: 'nucleus mass' },
    'top-k': { type: 'int', default: 0, min: 0, help: '0 = off' },
    seed: { type: 'int', default: 0, min: 0, help: 'seed of the first sample' },
    stop: { type: 'list', help: 'stop strings, comma-separated' },
    n: { type: 'int', default: 1, min: 1, help: 'samples' },
    mode: { type: 'string', default: 'fast', choices: ['fast', 'exact'], help: 'sampler mode' },
    json: { type: 'boolean', help: 'print the generations as JSON' },
  },
});

export const ENVS_LIST_CLI = defineCli({
  name: 'envs',
  positionals: { max: 0, usage: 'list' },
  summary: 'Worlds, tools and task counts per split/difficulty over seeds [0, n).',
  options: {
    n: { type: 'int', default: 10000, min: 1, help: 'seeds to count' },
    sample: { type: 'int', default: 0, min: 0, help: 'tasks to generate for speed and size figures' },
  },
});

export const ENVS_SHOW_CLI = defineCli({
  name: 'envs',
  positionals: { max: 0, usage: 'show' },
  summary: 'One task: user turns, reference conversation, checklist, and the judge on its replay.',
  options: {
    world: { type: 'string', required: true, choices: worldNames(), help: 'world name' },
    seed: { type: 'int', required: true, min: 0, help: 'task seed' },
    json: { type: 'boolean', help: 'the task as JSON' },
  },
});

export const ENVS_CALL_CLI = defineCli({
  name: 'envs',
  positionals: { max: 0, usage: 'call' },
  summary: "Run one call (--tool, --args) or a sequence (--calls) on a task's initial environment.",
  options: {
    world: { type: 'string', required: true, choices: worldNames(), help: 'world name' },
    seed: { type: 'int', required: true, min: 0, help: 'task seed' },
    tool: { type: 'string', help: 'tool name' },
    args: { type: 'string', help: 'JSON object of arguments (default {})' },
    calls: { type: 'string', help: 'JSON list of {"name", "arguments"}' },
    json: { type: 'boolean', help: 'one JSON line per call' },
  },
});

export const CONFORMANCE_BFCL_CLI = defineCli({
  name: 'conformance',
  positionals: { max: 0, usage: 'bfcl' },
  summary: 'Replay the BFCL ground truth and compare every result and state with the Python fixture.',
  options: {
    questions: { type: 'string', help: 'questions JSONL (default: ../shared/data/bfcl)' },
    answers: { type: 'string', help: 'possible answers JSONL' },
    fixture: { type: 'string', help: 'fixture JSON' },
    checker: { type: 'boolean', help: 'run the multi-turn checker on the ground truth instead' },
    json: { type: 'boolean', help: 'JSON report' },
  },
});

export const CONFORMANCE_TAU2_CLI = defineCli({
  name: 'conformance',
  positionals: { max: 0, usage: 'tau2' },
  summary: 'Replay the τ² gold actions and compare results, states and the evaluator with the Python fixture.',
  options: {
    domain: { type: 'string', default: 'retail', help: 'retail | mock | a domain directory' },
    fixture: { type: 'string', help: 'fixture JSON (default: the domain\'s gold replay fixture)' },
    json: { type: 'boolean', help: 'JSON report' },
    'step-hashes': { type: 'boolean', help: 'also compare the state hash after every step' },
  },
});

export const CONFORMANCE_VITA_CLI = defineCli({
  name: 'conformance',
  positionals: { max: 0, usage: 'vita' },
  summary: 'Replay VitaBench fixtures (delivery, in-store): tool messages, error flags, hashes, final states, judge windows/prompts, stub-judge rewards.',
  options: {
    fixtures: { type: 'string', help: 'fixture folder: index.json plus <domain>/<task>.json (default ../shared/data/vitabench/fixtures)' },
    data: { type: 'string', help: 'data root with <domain>/tasks_en.json, tools/, prompts/, reference/ (default: the folder above --fixtures)' },
    json: { type: 'boolean', help: 'JSON report' },
  },
});

export const ROLLOUT_CLI = defineCli({
  name: 'rollout',
  summary: 'K rollouts of one task, each with per-call rehearsal fidelity and its checklist verdict.',
  options: {
    model: { type: 'string', help: 'model folder (or --expert)' },
    expert: { type: 'boolean', help: 'no model: the expert policy replays the reference and rehearses as an oracle' },
    task: { type: 'string', help: 'task id, e.g. retail-7 (or --world and --task-seed)' },
    world: { type: 'string', choices: worldNames(), help: 'world name' },
    'task-seed': { type: 'int', min: 0, help: 'task seed within --world' },
    mode: { type: 'string', default: 'rehearsal', choices: ['real', 'simulator', 'rehearsal'], help: 'rollout mode' },
    simulator: { type: 'string', help: 'frozen Rehearse model for --mode simulator (default: --model)' },
    n: { type: 'int', default: 4, min: 1, help: 'rollouts' },
    seed: { type: 'int', default: 0, min: 0, help: 'base seed' },
    temperature: { type: 'number', default: 1, min: 0, help: 'sampling temperature' },
    'top-p': { type: 'number', default: 1, min: 0, max: 1, help: 'nucleus mass' },
    'top-k': { type: 'int', default: 0, min: 0, help: '0 = off' },
    'act-tokens': { type: 'int', min: 1, help: 'Act token budget (default: the model profile, else 192)' },
    'rehearse-tokens': { type: 'int', min: 1, help: 'Rehearse token budget (default: the model profile, else 384)' },
    short: { type: 'boolean', help: 'shortest prompts: same-tool hints, last 4 messages of history' },
    'judge-on': { type: 'string', default: 'shown', choices: ['shown', 'real'], help: 'which tool results the checklist judge reads' },
    'keep-going': { type: 'boolean', help: 'errors do not end the episode' },
    traces: { type: 'string', help: 'also write the trajectories as JSONL traces' },
    json: { type: 'boolean', help: 'machine-readable output on stdout' },
  },
});

export const BENCH_ENGINE_CLI = defineCli({
  name: 'bench:engine',
  summary: 'Engine benchmark: training ms/step vs TF.js, sampling tokens/s vs transformers.js, MatMul peak, MFU, RSS; one JSON object.',
  options: {
    json: { type: 'boolean', help: 'JSON on stdout (the only output format; kept for scripts)' },
    quick: { type: 'boolean', help: 'few steps, for a smoke run' },
    steps: { type: 'int', min: 1, help: 'training steps (default 500, 20 with --quick)' },
    'tfjs-steps': { type: 'int', min: 1, help: 'TF.js training steps (default 3, 1 with --quick)' },
    'skip-tfjs': { type: 'boolean', help: 'do not run the TF.js peer' },
    'skip-transformersjs': { type: 'boolean', help: 'do not run the transformers.js peer' },
  },
});

/** Every schema above, for the fuzzer. */
export const CLI_DEFS: CliDef<Record<string, OptSpec>>[] = [
  ENGINE_TRAIN_LM_CLI, ENGINE_SAMPLE_CLI, ENVS_LIST_CLI, ENVS_SHOW_CLI, ENVS_CALL_CLI,
  CONFORMANCE_BFCL_CLI, CONFORMANCE_TAU2_CLI, CONFORMANCE_VITA_CLI, ROLLOUT_CLI, BENCH_ENGINE_CLI,
] as unknown as CliDef<Record<string, OptSpec>>[];

/** The subcommand of a command with several, or a CliArgsError naming the choices (exit 2 via exitOnArgsError). */
export function pickSubcommand<K extends string>(command: string, subs: readonly K[], argv: string[]): { sub: K; rest: string[] } {
  const [sub, ...rest] = argv;
  if (sub === undefined || !(subs as readonly string[]).includes(sub)) {
    const problem = sub === undefined ? `a subcommand is required: ${subs.join(' | ')}` : `unknown subcommand ${JSON.stringify(sub)}: expected ${subs.join(' | ')}`;
    throw new CliArgsError([problem], `usage: npm run ${command} -- <${subs.join('|')}> [options] (each with --help)`);
  }
  return { sub: sub as K, rest };
}

/** For entry points: print a CliArgsError's problems and usage, exit 2; rethrow anything else. */
export function exitOnArgsError(command: string, e: unknown): never {
  if (!(e instanceof CliArgsError)) throw e;
  process.stderr.write(`${command}: ${e.problems.length} problem(s) with the arguments:\n${e.problems.map((p) => `  - ${p}`).join('\n')}\n\n${e.usage}\n`);
  process.exit(2);
}
