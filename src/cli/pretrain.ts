// npm run sft -- [--sizes tiny,small] [--worlds files,retail] [--tasks 600] [--steps 1500] [--seed 0]
//                     [--out models] [--eval 40] [--batch 16] [--lr 3e-3] [--vocab 1024] [--batching packed|padded]
//                     [--profile tiny|lean] [--draw rows|conversations] [--fresh] [--layers L --hidden D ...]
//                     [--curve-every MIN] [--budget MIN]
// Supervised starter policies for both roles (Act tokens and Rehearse tokens) from the built-in worlds'
// reference conversations, written as model folders, then evaluated on held-out tasks in real and
// rehearsal mode. Deterministic from the seed. Each step's rows are packed (engine/packing.ts: shared
// prompt prefixes computed once, no padding between rows; same loss and gradients as `--batching padded`,
// the padded-bucket batches of before; `npm run bench:sft` compares the two).
//
// Starter recipe (issue "starter policies that solve held-out tasks"): `--draw conversations` trains every
// row of a few whole reference conversations per step (an Act row extends the one before it, so the packed
// tree computes each conversation's prefix once); `--fresh` draws never-seen train tasks for every step
// instead of cycling a fixed set (a fixed set is memorised: names, not copying); `--profile lean` uses
// prompts 4–6× shorter. `--curve-every` evaluates held-out success (greedy, real environment, bootstrap 95%
// intervals over tasks) every so many CPU-minutes of training, writes the folder and its eval.json there
// (a resumable checkpoint: continue with --init and --task-offset), and stops at --budget CPU-minutes.

import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { evaluate, succeeded, type EvalResult } from '../agent/evaluate';
import { COMPACT_CHAT_TEMPLATE, PROTOCOL_TOKENS } from '../agent/chatTemplate';
import { LEAN_PROFILE, profileFromConfig, rolloutSettings, withRehearsePrompt, type PromptProfile, type RehearsePromptChange } from '../agent/profile';
import { sftErrorExamples, sftExamples, sftExperienceExamples, sftRepeatErrorExamples, sftSwapErrorExamples, VALIDATION_CORRUPTIONS, type SftExample, type SftOptions } from '../agent/sft';
import { rollout } from '../agent/rollout';
import { scrambleExamples } from '../agent/scramble';
import { copyDrill } from '../agent/copy-drill';
import { lineDrill } from '../agent/line-drill';
import { decisionWeighted, factWeighted, packedSftBatches, pickSftRows, referenceSftBatch, SFT_PROFILE, sftBuckets, sftConversationRows, sftTokenRows, trainedTokens, type SftRow } from '../bench/sft-reference';
import { bootstrap } from '../bench/stats';
import { teacherForcedActAccuracy } from '../bench/act-accuracy';
import { countParams, makeConfig, type LlamaConfig, type PresetName } from '../engine/decoder';
import { writeModelFolder, loadModelFolder } from '../engine/modelFolder';
import { modelDims } from '../engine/packing';
import { Rng } from '../engine/rng';
import { createNodeRuntime, nodeRuntime } from '../engine/runtime-node';
import { samplerFromFolder } from '../engine/sampler';
import { BPETokenizer, DEFAULT_SPECIAL_TOKENS, trainBPE, type Pretokenizer } from '../engine/tokenizer';
import { Model } from '../engine/trainer-core';
import { getWorld, thinkStateLine } from '../envs/worlds/index';
import { PERSON_NAMES } from '../envs/worlds/retail/db';
import { FILE_NAME_WORDS } from '../envs/worlds/files/tree';
import type { Task } from '../envs/types';
import { cliArgs, defineCli } from './args';
import { progress } from './util';
import { memorySftExamples } from '../tts/memory-sft';

const cli = defineCli({
  name: 'sft',
  summary: 'Supervised starter policies (Act and Rehearse tokens) from the built-in worlds, written as model folders and evaluated.',
  options: {
    sizes: { type: 'list', help: 'model presets', default: ['tiny', 'small'], choices: ['tiny', 'small', 'base'] },
    worlds: { type: 'list', help: 'worlds', default: ['files', 'retail'] },
    tasks: { type: 'int', help: 'train tasks per world (with --fresh: the tokenizer corpus only)', default: 600, min: 1 },
    steps: { type: 'int', help: 'optimizer steps (the learning-rate schedule spans them)', default: 1500, min: 0 },
    seed: { type: 'int', help: 'seed', default: 0 },
    out: { type: 'string', help: 'output folder', default: 'models' },
    eval: { type: 'int', help: 'held-out tasks per world', default: 40, min: 0 },
    batch: { type: 'int', help: 'rows per step (with --draw conversations: conversations per step)', default: 16, min: 1 },
    lr: { type: 'number', help: 'peak learning rate', default: 3e-3, min: 0 },
    vocab: { type: 'int', help: 'tokenizer vocabulary', default: 1024, min: 64 },
    context: { type: 'int', help: 'context size (tokens)', default: 1024, min: 32 },
    prefix: { type: 'string', help: 'folder name prefix', default: 'envace' },
    name: { type: 'string', help: 'folder name (one size only; default PREFIX-SIZE)' },
    init: { type: 'string', help: 'continue from this folder (its tokenizer and weights; optimizer moments start fresh)' },
    batching: { type: 'string', help: 'packed rows, or padded length buckets (the reference)', default: 'packed', choices: ['packed', 'padded'] },
    profile: { type: 'string', help: 'prompt profile of the new folder (with --init: the folder\'s own)', default: 'tiny', choices: ['tiny', 'lean'] },
    draw: { type: 'string', help: 'a step trains random rows of one length bucket, or every row of whole conversations', default: 'rows', choices: ['rows', 'conversations'] },
    fresh: { type: 'boolean', help: 'never-seen train tasks for every step (conversations only)' },
    'task-offset': { type: 'int', help: 'with --fresh: skip this many train tasks per world (resume)', default: 0, min: 0 },
    difficulty: { type: 'int', help: 'train tasks of this difficulty only (1–3; default all)', min: 1, max: 3 },
    layers: { type: 'int', help: 'override the preset: decoder layers', min: 1 },
    hidden: { type: 'int', help: 'override the preset: hidden size', min: 8 },
    heads: { type: 'int', help: 'override the preset: attention heads', min: 1 },
    inter: { type: 'int', help: 'override the preset: MLP size', min: 8 },
    pretokenizer: { type: 'string', help: "tokenizer pieces: 'words' keeps a word's leading space apart, so names copy as the same ids (new tokenizers only)", default: 'gpt2', choices: ['gpt2', 'words'] },
    scramble: { type: 'number', help: 'share of train conversations whose names (people; files and folders in the files worlds) and numeric ids (not in files-only runs) are replaced by random ones, consistently (src/agent/scramble.ts): copying, not a name prior', default: 0, min: 0, max: 1 },
    'copy-warmup': { type: 'int', help: 'first steps train only the synthetic copying drill (src/agent/copy-drill.ts)', default: 0, min: 0 },
    'copy-rows': { type: 'int', help: 'drill rows per warm-up step', default: 32, min: 1 },
    'copy-mix': { type: 'int', help: 'drill rows added to every later step', default: 0, min: 0 },
    'line-real': { type: 'number', help: "share of state-line drill rows that keep the world's own names (the rest random)", default: 0, min: 0, max: 1 },
    'line-warmup': { type: 'int', help: 'first steps of this run train only the state-line drill, --line-mix rows each (64 when --line-mix is 0)', default: 0, min: 0 },
    'line-present': { type: 'number', help: 'share of state-line drill rows whose called name is in the folder (0: a third, as before; then "absent" is right two times in three whatever the line says)', default: 0, min: 0, max: 1 },
    'fact-weight': { type: 'number', help: "loss weight of a state think's facts (`name: file|folder|absent`, after the line), in conversation, experience and drill rows: the lookup the call alone does not decide", default: 1, min: 0 },
    'line-mix': { type: 'int', help: 'state-line drill rows added to every step: a tree as `~/path: entries` lines, cds, a call; the target the think `<think>~/path: entries; name: file|folder|absent</think>`, with random names (src/agent/line-drill.ts)', default: 0, min: 0 },
    'rehearse-share': { type: 'number', help: 'share of train conversations that keep their Rehearse rows (the rest train Act rows only)', default: 1, min: 0, max: 1 },
    'error-share': { type: 'number', help: 'share of train conversations that also get a Rehearse row for a broken copy of one of their calls, with the real environment\'s error as target (src/agent/sft.ts sftErrorExamples)', default: 0, min: 0, max: 1 },
    'repeat-share': { type: 'number', help: 'share of train conversations that also get a Rehearse row for one of their calls made twice, with the real environment\'s error to the repeat as target (src/agent/sft.ts sftRepeatErrorExamples)', default: 0, min: 0, max: 1 },
    'swap-share': { type: 'number', help: 'share of train conversations that also get a Rehearse row for one of their calls with a name the task uses elsewhere, rejected where it is made, with the real error as target (src/agent/sft.ts sftSwapErrorExamples)', default: 0, min: 0, max: 1 },
    'validation-share': { type: 'number', help: "share of train conversations that also get a Rehearse row for one of their calls broken the way sampled policies break them (a tool the world has but the task does not offer; an argument under a wrong name; a required one left out or of the wrong type), the real validation error as target (src/agent/sft.ts VALIDATION_CORRUPTIONS)", default: 0, min: 0, max: 1 },
    'swap-rows': { type: 'number', help: 'with --swap-share: swapped-name rows per chosen conversation, each a distinct swap (membership rows in the real Rehearse prompt; packed, they share its prefix)', default: 1, min: 1, max: 16 },
    'swap-accepted': { type: 'number', help: "with --swap-share: that share of the swapped-name rows takes, where one exists, a swap the environment accepts (another name that is there, with its real result), so the swap itself does not signal an error", default: 0, min: 0, max: 1 },
    'rehearse-history': { type: 'int', help: 'trailing conversation messages the Rehearse prompt shows (stored in the folder\'s profile; default: the profile\'s)', min: 0, max: 64 },
    'rehearse-hints': { type: 'string', help: 'which earlier calls the Rehearse prompt shows as hints: those of the called tool, or every tool\'s (stored in the profile)', choices: ['same-tool', 'all'] },
    'rehearse-layout': { type: 'string', help: "'reference': the reference simulator's Rehearse prompt (the whole conversation, every reference call and result with the matching one first, Act's output, the called tool's signature, validate then generate; src/agent/profile.ts REFERENCE_REHEARSE_PROMPT), stored in the folder's profile before the other --rehearse-* changes", choices: ['reference'] },
    'rehearse-mentions': { type: 'boolean', help: "show, under the call in the Rehearse prompt, the conversation lines that mention each of its string arguments (`Where \"plan.md\" appears: …` or `nowhere`; src/agent/prompts.ts mentionsBlock), stored in the folder's profile: the lines a name's state is read from, next to the call" },
    'rehearse-budget': { type: 'int', help: "the Rehearse role's token budget, stored in the profile (npm run rehearse-budget says what a world's longest result needs)", min: 8 },
    experience: { type: 'int', help: "train tasks per world the --init policy plays in the real environment before training; each call it made becomes a Rehearse row with the real result as target (src/agent/sft.ts sftExperienceExamples); needs --init", default: 0, min: 0 },
    'experience-k': { type: 'int', help: 'episodes per experience task', default: 4, min: 1 },
    'experience-offset': { type: 'int', help: 'first train task of the experience pool', default: 2000, min: 0 },
    'experience-temperature': { type: 'number', help: 'sampling temperature of the experience episodes (training samples at 1)', default: 1, min: 0 },
    'experience-mix': { type: 'int', help: 'experience episodes (their Rehearse rows) added to every step', default: 4, min: 0 },
    'rehearse-schema': { type: 'string', help: 'what the Rehearse prompt shows of the called tool\'s parameters (stored in the folder\'s profile; default: the profile\'s)', choices: ['json', 'compact', 'none'] },
    'think-state': { type: 'string', help: "every Rehearse target opens with <think>the state its call is made from</think>, so the role writes where the agent is and what is there before it decides the result (src/agent/sft.ts targetsOf): 'folder' the world's state line (files: `/alex: notes.txt, old/`), 'check' also what it says of each name the call uses (`…; plan.md: absent`); worlds without a state line are unchanged", choices: ['folder', 'check'] },
    'decision-weight': { type: 'number', help: "loss weight of a Rehearse target's first two tokens, where an error is told from a success ({\"error… or {\"current_working_directory…): that one decision is what error agreement measures, and it is 1 token of a 10–300-token target", default: 1, min: 0 },
    'copy-weight': { type: 'number', help: 'loss weight of target word tokens that also occur in the prompt (names, ids and tool names copied from the context)', default: 1, min: 0 },
    'curve-every': { type: 'number', help: 'evaluate held-out success every so many training CPU-minutes (0 = only at the end)', default: 0, min: 0 },
    budget: { type: 'number', help: 'stop after this many training CPU-minutes (cumulative with --init\'s)', min: 0 },
    'memory-pool': { type: 'int', help: 'train tasks per world replayed with the --init policy\'s own rehearsal memory in every Act prompt (src/tts/memory-sft.ts; N 1–4, parallel or sequential, full or best-calls, drawn per conversation); needs --init', default: 0, min: 0 },
    'memory-offset': { type: 'int', help: 'first train task of the memory pool', default: 3000, min: 0 },
    'memory-mix': { type: 'int', help: 'memory conversations added to every step', default: 0, min: 0 },
    'save-every': { type: 'number', help: 'write the folder (no evaluation) every so many training CPU-minutes: a checkpoint to continue from with --init', default: 0, min: 0 },
    threads: { type: 'int', help: 'ONNX Runtime intra-op threads (1 keeps a run steady on a shared machine)', min: 1 },
    'no-run': { type: 'boolean', help: 'parse only' },
  },
});

const args = cliArgs(cli);
const sizes = args.sizes as PresetName[];
const worlds = args.worlds;
const nTasks = args.tasks;
const steps = args.steps;
const seed = args.seed;
const outDir = args.out;
const nEval = args.eval;
const batchSize = args.batch;
const peakLr = args.lr;
const vocab = args.vocab;
const maxContext = args.context;
const prefix = args.prefix;
const initDir = args.init;
const BUCKETS = sftBuckets(maxContext);
const byConversation = args.draw === 'conversations';
const log = (s: string) => process.stderr.write(s + '\n');

/** Training CPU-minutes of this process (all ORT threads), evaluation excluded by the caller. */
let runtime: ReturnType<typeof nodeRuntime> | undefined;
/** One runtime for the whole command, with --threads when given. */
const rt = () => (runtime ??= args.threads ? createNodeRuntime({ threads: args.threads }) : nodeRuntime());
const cpuMinutes = () => { const u = process.cpuUsage(); return (u.user + u.system) / 60e6; };

/** How SFT rows are built: the profile's prompts, the context, and `--think-state`'s state lines. */
function sftOptions(profile: PromptProfile, tok: BPETokenizer): SftOptions {
  const how = args['think-state'] as 'folder' | 'check' | undefined;
  return { rollout: rolloutSettings(profile), maxContext, countTokens: (s: string) => tok.encode(s).length, stateLine: how && thinkStateLine(how) };
}

/** Tokenized SFT rows of some tasks, grouped by conversation (one entry per task, rows in order). */
async function conversationRows(tasks: Task[], tok: BPETokenizer, profile: PromptProfile, rng = new Rng(seed + 41)): Promise<SftRow[][]> {
  const sft = sftOptions(profile, tok);
  let { examples } = await sftExamples(tasks, sft);
  examples = reshape(examples, rng);
  if (args['error-share'] > 0) {
    // One draw per task, in task order, then the broken call's examples join their task's conversation.
    const chosen = tasks.filter(() => rng.uniform() < args['error-share']);
    examples = [...examples, ...await sftErrorExamples(chosen, (n) => rng.int(n), sft)];
  }
  if (args['repeat-share'] > 0) {
    // Drawn after --error-share's, so adding this option leaves that draw as it was.
    const chosen = tasks.filter(() => rng.uniform() < args['repeat-share']);
    examples = [...examples, ...await sftRepeatErrorExamples(chosen, (n) => rng.int(n), sft)];
  }
  if (args['swap-share'] > 0) {
    // Drawn after --repeat-share's, so adding this option leaves the earlier draws as they were.
    const chosen = tasks.filter(() => rng.uniform() < args['swap-share']);
    examples = [...examples, ...await sftSwapErrorExamples(chosen, (n) => rng.int(n), sft, args['swap-accepted'], args['swap-rows'])];
  }
  if (args['validation-share'] > 0) {
    // Drawn after --swap-share's, so adding this option leaves the earlier draws as they were.
    const chosen = tasks.filter(() => rng.uniform() < args['validation-share']);
    examples = [...examples, ...await sftErrorExamples(chosen, (n) => rng.int(n), sft, VALIDATION_CORRUPTIONS)];
  }
  return sftConversationRows(examples, tok, maxContext).map((rows) => factWeighted(decisionWeighted(copyWeighted(rows, tok), tok, args['decision-weight']), tok, args['fact-weight']));
}

/** `--scramble` and `--rehearse-share`, decided per conversation (one draw each, in task order). */
function reshape(examples: SftExample[], rng: Rng): SftExample[] {
  if (args.scramble === 0 && args['rehearse-share'] === 1) return examples;
  const ids = [...new Set(examples.map((e) => e.taskId))];
  const scrambled = new Set<string>(), actOnly = new Set<string>();
  for (const id of ids) {
    if (rng.uniform() < args.scramble) scrambled.add(id);
    if (rng.uniform() >= args['rehearse-share']) actOnly.add(id);
  }
  const kept = examples.filter((e) => e.role === 'act' || !actOnly.has(e.taskId));
  const toScramble = kept.filter((e) => scrambled.has(e.taskId));
  // Files conversations scramble their file and folder names, not their digits: counts and sizes are computed from the content.
  const files = worlds.some((w) => w.startsWith('files'));
  const done = scrambleExamples(toScramble, rng, { words: [...PERSON_NAMES, ...(files ? FILE_NAME_WORDS : [])], minDigits: files && !worlds.includes('retail') ? Infinity : 2 });
  let i = 0;
  return kept.map((e) => (scrambled.has(e.taskId) ? done[i++] : e));
}

/**
 * Copies are the rare, decisive tokens of this data (a folder name, an order id, an available tool's name
 * taken from the prompt) and the ones a small model learns last: `--copy-weight` multiplies the loss weight
 * of every Act target token made of letters or digits that also occurs in the row's prompt (Rehearse rows
 * copy whole hints, which they learn early).
 */
function copyWeighted(rows: SftRow[], tok: BPETokenizer): SftRow[] {
  const w = args['copy-weight'];
  if (w === 1) return rows;
  const wordy = new Map<number, boolean>();
  const isWord = (id: number) => wordy.get(id) ?? wordy.set(id, /^[\p{L}\p{N}_]+$/u.test(tok.decode([id]))).get(id)!;
  return rows.map((r) => {
    if (r.role !== 'act') return r;
    const inPrompt = new Set<number>();
    r.weights.forEach((x, i) => { if (x === 0) inPrompt.add(r.ids[i]); });
    return { ...r, weights: r.weights.map((x, i) => (x > 0 && inPrompt.has(r.ids[i]) && isWord(r.ids[i]) ? x * w : x)) };
  });
}

/** Never-seen train conversations, a chunk of tasks at a time, worlds interleaved. */
class FreshConversations {
  private queue: SftRow[][] = [];
  private offset: number;
  constructor(private tok: BPETokenizer, private profile: PromptProfile, offset: number, private rng: Rng) { this.offset = offset; }
  get tasksUsed() { return this.offset; }
  async next(n: number): Promise<SftRow[][]> {
    while (this.queue.length < n) {
      const chunk = worlds.flatMap((w) => getWorld(w).tasks({ split: 'train', count: 64, offset: this.offset, difficulty: args.difficulty }));
      this.offset += 64;
      const convs = await conversationRows(chunk, this.tok, this.profile, this.rng);
      // Shuffle within the chunk so one step mixes worlds and difficulties.
      for (let i = convs.length - 1; i > 0; i--) { const j = this.rng.int(i + 1); [convs[i], convs[j]] = [convs[j], convs[i]]; }
      this.queue.push(...convs);
    }
    return this.queue.splice(0, n);
  }
}

export interface CurvePoint {
  step: number; cpuMinutes: number; world: string; difficulty: 'all' | 1 | 2 | 3;
  success: number; ci95: [number, number]; checklist: number; trainTasksSeen?: number;
  /** Teacher-forced Act accuracy on the same tasks (src/bench/act-accuracy.ts): moves before success does. */
  actExact?: number;
}

async function main() {
  const init = initDir ? await loadModelFolder(initDir) : undefined;
  const base: PromptProfile = init ? ((init.rawConfig.envace as { profile?: PromptProfile } | undefined)?.profile ?? SFT_PROFILE)
    : args.profile === 'lean' ? LEAN_PROFILE : SFT_PROFILE;
  // More of the conversation (an earlier listing of the folder, say) is what Rehearse needs to foresee a state error.
  const profile: PromptProfile = withRehearsePrompt(base, {
    layout: args['rehearse-layout'] as RehearsePromptChange['layout'], budget: args['rehearse-budget'],
    schema: args['rehearse-schema'] as RehearsePromptChange['schema'], maxHistory: args['rehearse-history'],
    hints: args['rehearse-hints'] as RehearsePromptChange['hints'], mentions: args['rehearse-mentions'],
  });
  const trainTasks = worlds.flatMap((w) => getWorld(w).tasks({ split: 'train', count: nTasks, difficulty: args.difficulty }));
  const testTasks = worlds.flatMap((w) => getWorld(w).tasks({ split: 'test', count: nEval }));
  log(`worlds ${worlds.join(',')}: ${trainTasks.length} train tasks${args.fresh ? ' (tokenizer corpus; steps draw fresh tasks)' : ''}, ${testTasks.length} held-out tasks`);

  // Pass 1 (character-count budget) gives the tokenizer corpus.
  const tokJson = init ? init.tokenizerJson : trainBPE((await sftExamples(trainTasks, { rollout: rolloutSettings(profile) })).examples.map((e) => e.prompt + e.target),
    { vocabSize: vocab, specialTokens: DEFAULT_SPECIAL_TOKENS, addedTokens: PROTOCOL_TOKENS, pretokenizer: args.pretokenizer as Pretokenizer });
  const tok = new BPETokenizer(tokJson);
  log(`tokenizer: ${tok.vocabSize} tokens`);

  // Pass 2 with the real token budget: the prompts the model will actually see at this context size.
  const conversations = args.fresh ? [] : await conversationRows(trainTasks, tok, profile);
  const rows = conversations.flat();
  if (!args.fresh) {
    const acts = rows.filter((r) => r.role === 'act').length;
    log(`examples: ${rows.length} (${acts} act, ${rows.length - acts} rehearse) from ${conversations.length} conversations`);
  }
  if (args.name && sizes.length > 1) throw new Error('--name needs exactly one size');

  const summary: Record<string, unknown> = Object.create(null);
  for (const size of sizes) {
    const name = args.name ?? `${prefix}-${size}`;
    const dims: Partial<LlamaConfig> = {};
    if (args.layers) dims.num_hidden_layers = args.layers;
    if (args.hidden) dims.hidden_size = args.hidden;
    if (args.heads) { dims.num_attention_heads = args.heads; dims.num_key_value_heads = args.heads; }
    if (args.inter) dims.intermediate_size = args.inter;
    // A longer --context than the folder's own widens it (RoPE has no learned positions; the graphs size their caches
    // from the config): retail's whole-conversation Rehearse prompts do not fit 1,024 tokens.
    const cfg = init ? { ...init.config, max_position_embeddings: Math.max(init.config.max_position_embeddings, maxContext) }
      : makeConfig(size, { vocab_size: tok.vocabSize, max_position_embeddings: maxContext, ...dims });
    const model = new Model(cfg, rt(), init?.params, { seed, adam: { weightDecay: 0.01, maxGradNorm: 1 } });
    const initMeta = (init?.rawConfig.envace ?? {}) as { steps?: number; cpuMinutes?: number; trainTasksSeen?: number };
    const priorSteps = Number(initMeta.steps ?? 0);
    const priorEval = initDir ? await readFile(join(initDir, 'eval.json'), 'utf8').then((t) => JSON.parse(t) as { heldOutCurve?: { points: CurvePoint[] } }).catch(() => ({} as { heldOutCurve?: { points: CurvePoint[] } })) : {};
    const priorPoints: CurvePoint[] = priorEval.heldOutCurve?.points ?? [];
    const priorCpu = Number(initMeta.cpuMinutes ?? 0);
    log(`\n${name}: ${countParams(cfg)} parameters, ${steps} steps of ${batchSize} ${byConversation ? 'conversations' : 'rows'}${args.budget ? `, stop at ${args.budget} CPU-min` : ''}`);
    const rng = new Rng(seed + 17);
    const drillRng = new Rng(seed + 53 + priorSteps);
    const drill = (n: number) => sftTokenRows(copyDrill(drillRng, n), tok, maxContext);
    const lineRng = new Rng(seed + 59 + priorSteps);
    const lineRows = (n: number) => factWeighted(sftTokenRows(lineDrill(lineRng, n, 'line', args['line-real'], args['line-present'] || undefined, profile.rehearsePrompt.mentions), tok, maxContext), tok, args['fact-weight']);
    const fresh = args.fresh ? new FreshConversations(tok, profile, args['task-offset'] || (initMeta.trainTasksSeen ?? 0), new Rng(seed + 29)) : null;
    // Before the clock starts: the pool's rollouts are not training time.
    const dir = join(outDir, name);
    const memoryConvs = await memoryConversations(init, tok, profile, dir);
    const memRng = new Rng(seed + 73);
    const experience = await experienceConversations(init, tok, profile, dir);
    const expRng = new Rng(seed + 79);
    const bar = progress(steps, name);
    const t0 = Date.now();
    let ema = NaN, trainCpu = 0, lastCurve = 0, trained = 0, processed = 0;
    const curve: { step: number; loss: number }[] = [];
    const points: CurvePoint[] = [...priorPoints];
    const save = async (stepsDone: number, evalNow: boolean) => {
      await writeModelFolder(dir, {
        config: cfg, params: model.params, tokenizer: tokJson, chatTemplate: COMPACT_CHAT_TEMPLATE,
        meta: {
          size, seed, steps: priorSteps + stepsDone, init: initDir, batch: batchSize, draw: args.draw, fresh: !!args.fresh,
          trainTasksSeen: fresh ? fresh.tasksUsed : undefined, copyWeight: args['copy-weight'], decisionWeight: args['decision-weight'], thinkState: args['think-state'], errorShare: args['error-share'], validationShare: args['validation-share'] || undefined, swapShare: args['swap-share'] || undefined, swapAccepted: args['swap-accepted'] || undefined, swapRows: args['swap-rows'] === 1 ? undefined : args['swap-rows'], scramble: args.scramble, copyWarmup: args['copy-warmup'], copyMix: args['copy-mix'], lineMix: args['line-mix'] || undefined, lineWarmup: args['line-warmup'] || undefined, lineReal: args['line-real'] || undefined, linePresent: args['line-present'] || undefined, factWeight: args['fact-weight'] === 1 ? undefined : args['fact-weight'], rehearseShare: args['rehearse-share'], memoryPool: args['memory-pool'] || undefined, memoryMix: args['memory-mix'] || undefined,
          experience: experience.summary, lr: peakLr, worlds, trainTasks: fresh ? undefined : trainTasks.length,
          examples: fresh ? undefined : rows.length, finalLoss: ema, trainSeconds: Math.round((Date.now() - t0) / 1000),
          cpuMinutes: Number((priorCpu + trainCpu).toFixed(2)), profile,
        },
      });
      if (evalNow) points.push(...await heldOutPoints(dir, priorSteps + stepsDone, priorCpu + trainCpu, fresh?.tasksUsed));
      const heldOutCurve = { protocol: HELD_OUT_PROTOCOL, tasks: nEval, points };
      await writeFile(join(dir, 'eval.json'), JSON.stringify({ heldOutTasks: testTasks.length, curve, heldOutCurve }, null, 2) + '\n');
    };
    if (args['curve-every'] > 0 && !init) await save(0, true);
    let s = 0;
    // A stop asked from outside (Ctrl-C, kill) ends the step in progress, then writes the folder: nothing trained is lost.
    let stopAsked = false;
    const onStop = () => { if (stopAsked) process.exit(130); stopAsked = true; log('\nstop asked: finishing this step, then writing the folder'); };
    process.on('SIGINT', onStop); process.on('SIGTERM', onStop);
    let lastSave = 0;
    for (; s < steps; s++) {
      if (stopAsked) break;
      if (args.budget !== undefined && priorCpu + trainCpu >= args.budget) { log(`\nbudget of ${args.budget} CPU-min reached at step ${s}`); break; }
      if (args['save-every'] > 0 && trainCpu - lastSave >= args['save-every']) { lastSave = trainCpu; await save(s, false); }
      const c0 = cpuMinutes();
      const lr = peakLr * schedule(s, steps);
      let pick: SftRow[];
      // The state-line warm-up trains the drill alone: no conversation is drawn, so --fresh's task offset stays put.
      const lineOnly = s < args['line-warmup'];
      if (lineOnly) pick = lineRows(args['line-mix'] || 64);
      else if (priorSteps + s < args['copy-warmup']) pick = drill(args['copy-rows']);
      else if (byConversation) pick = (fresh ? await fresh.next(batchSize) : Array.from({ length: batchSize }, () => conversations[rng.int(conversations.length)])).flat();
      else pick = pickSftRows(rows, rng, batchSize, BUCKETS);
      if (!lineOnly) {
        if (args['copy-mix'] > 0 && priorSteps + s >= args['copy-warmup']) pick = [...pick, ...drill(args['copy-mix'])];
        if (args['line-mix'] > 0) pick = [...pick, ...lineRows(args['line-mix'])];
        if (experience.convs.length && args['experience-mix'] > 0) pick = [...pick, ...Array.from({ length: args['experience-mix'] }, () => experience.convs[expRng.int(experience.convs.length)]).flat()];
        if (memoryConvs.length && args['memory-mix'] > 0) pick = [...pick, ...Array.from({ length: args['memory-mix'] }, () => memoryConvs[memRng.int(memoryConvs.length)]).flat()];
      }
      if (s === 0 && args['copy-weight'] !== 1) {
        const t = pick.flatMap((row) => row.weights.filter((w, i) => i > 0 && w > 0));
        const ex = pick.find((row) => row.weights.some((w) => w > 1));
        log(`copy-weighted target tokens: ${t.filter((w) => w > 1).length} of ${t.length}; e.g. ${JSON.stringify(ex ? ex.ids.filter((_, i) => ex.weights[i] > 1).map((id) => tok.decode([id])) : [])}`);
      }
      const packed = packedSftBatches(pick, modelDims(cfg));
      const r = args.batching === 'padded' ? await model.trainStep(referenceSftBatch(pick, BUCKETS), { lr }) : await model.trainStepPacked(packed, { lr });
      trained += trainedTokens(pick);
      processed += packed.reduce((a, b) => a + b.batch * b.seq, 0);
      ema = Number.isNaN(ema) ? r.loss : 0.95 * ema + 0.05 * r.loss;
      trainCpu += cpuMinutes() - c0;
      if (s % 10 === 0 || s === steps - 1) curve.push({ step: priorSteps + s, loss: r.loss });
      bar.tick(`loss ${ema.toFixed(3)} cpu ${(priorCpu + trainCpu).toFixed(1)}m trained/processed ${(trained / Math.max(1, processed)).toFixed(2)}`);
      if (args['curve-every'] > 0 && trainCpu - lastCurve >= args['curve-every']) {
        lastCurve = trainCpu;
        await save(s + 1, true);
        const last = points.slice(-2 * worlds.length);
        log(`\n  step ${priorSteps + s + 1}, ${(priorCpu + trainCpu).toFixed(1)} CPU-min: ${last.map((p) => `${p.world}/${p.difficulty} ${(100 * p.success).toFixed(0)}% [${(100 * p.ci95[0]).toFixed(0)}, ${(100 * p.ci95[1]).toFixed(0)}] turns ${(100 * (p.actExact ?? 0)).toFixed(0)}%`).join('  ')}`);
      }
    }
    bar.done();
    const secs = (Date.now() - t0) / 1000;
    await save(s, args['curve-every'] > 0 && trainCpu > lastCurve && !stopAsked);
    if (stopAsked) { log(`stopped at step ${priorSteps + s}; folder written to ${dir} (not evaluated)`); process.exit(0); }
    const evals = await evaluateFolder(dir, testTasks, log);
    const heldOutCurve = { protocol: HELD_OUT_PROTOCOL, tasks: nEval, points };
    await writeFile(join(dir, 'eval.json'), JSON.stringify({ heldOutTasks: testTasks.length, curve, heldOutCurve, evals }, null, 2) + '\n');
    summary[name] = { params: countParams(cfg), finalLoss: Number(ema.toFixed(4)), trainSeconds: Math.round(secs), cpuMinutes: Number((priorCpu + trainCpu).toFixed(2)), trainedPerProcessed: Number((trained / Math.max(1, processed)).toFixed(3)), evals };
  }
  console.log(JSON.stringify(summary, null, 2));
}

/**
 * `--experience`: the --init policy's own real-environment episodes on a pool of train tasks (K per task, sampled),
 * replayed into Rehearse rows whose targets are the real results (computed once, before training; not training time).
 */
async function experienceConversations(init: Awaited<ReturnType<typeof loadModelFolder>> | undefined, tok: BPETokenizer, profile: PromptProfile, dir: string): Promise<{ convs: SftRow[][]; summary?: Record<string, unknown> }> {
  if (args.experience === 0) return { convs: [] };
  if (!init) throw new Error('--experience needs --init: the episodes are the initial policy\'s own');
  const policy = await samplerFromFolder(init, rt(), { name: 'experience-policy', mode: 'fast' });
  const k = args['experience-k'];
  const pool = worlds.flatMap((w) => getWorld(w).tasks({ split: 'train', count: args.experience, offset: args['experience-offset'], difficulty: args.difficulty }));
  const bar = progress(pool.length, 'experience');
  const sft = sftOptions(profile, tok);
  const examples: SftExample[] = [];
  let replayed = 0, diverged = 0, episodes = 0;
  const CHUNK = 16;
  for (let i = 0; i < pool.length; i += CHUNK) {
    const specs = pool.slice(i, i + CHUNK).flatMap((task) => Array.from({ length: k }, (_, sample) => ({ task, sample, groupId: task.id })));
    const trajs = await rollout(specs, {
      ...rolloutSettings(profile), mode: 'real', policy, seed: seed + 1009, keepPrompts: false,
      act: { ...profile.act, temperature: args['experience-temperature'] },
    });
    const r = await sftExperienceExamples(trajs.map((trajectory, j) => ({ task: specs[j].task, trajectory })), sft);
    examples.push(...r.examples); replayed += r.replayed; diverged += r.diverged.length; episodes += trajs.length;
    for (let j = 0; j < Math.min(CHUNK, pool.length - i); j++) bar.tick('');
  }
  bar.done();
  await policy.release();
  const errors = examples.filter((e) => /"error/.test(e.target)).length;
  const convs = sftConversationRows(examples, tok, maxContext).map((rows) => factWeighted(decisionWeighted(rows, tok, args['decision-weight']), tok, args['fact-weight']));
  if (args['decision-weight'] !== 1) {
    const picked = convs.flat().slice(0, 6).map((r) => r.ids.filter((_, i) => r.weights[i] > 1).map((id) => tok.decode([id])).join(''));
    log(`decision-weighted tokens (first 6 rows): ${JSON.stringify(picked)}`);
  }
  const summary = { tasks: pool.length, k, temperature: args['experience-temperature'], offset: args['experience-offset'], episodes, replayed, diverged, rows: examples.length, errorTargets: errors, mixPerStep: args['experience-mix'] };
  log(`experience: ${episodes} episodes (${diverged} diverged on replay), ${examples.length} Rehearse rows, ${errors} with an error as target (${(100 * errors / Math.max(1, examples.length)).toFixed(0)}%); ${args['experience-mix']} episodes added to every step`);
  await mkdir(outDir, { recursive: true });
  await writeFile(`${dir}.experience.json`, JSON.stringify(summary, null, 2) + '\n');
  return { convs, summary };
}

/**
 * `--memory-pool`: the pool's conversations with the --init policy's rehearsal memory in every Act prompt (computed
 * once, before training; the memories are written to OUT/NAME.memories.jsonl for inspection).
 */
async function memoryConversations(init: Awaited<ReturnType<typeof loadModelFolder>> | undefined, tok: BPETokenizer, profile: PromptProfile, dir: string): Promise<SftRow[][]> {
  if (args['memory-pool'] === 0) return [];
  if (!init) throw new Error('--memory-pool needs --init: the memories are the initial policy\'s own rehearsals');
  const policy = await samplerFromFolder(init, nodeRuntime(), { name: 'memory-policy' });
  const rng = new Rng(seed + 71);
  const pool = worlds.flatMap((w) => getWorld(w).tasks({ split: 'train', count: args['memory-pool'], offset: args['memory-offset'], difficulty: args.difficulty }));
  const bar = progress(pool.length, 'memories');
  const r = await memorySftExamples(pool, {
    policy, rollout: rolloutSettings(profile), maxContext, countTokens: (s) => tok.encode(s).length, seed,
    draw: () => ({ n: 1 + rng.int(4), strategy: rng.uniform() < 0.5 ? 'parallel' : 'sequential', memory: rng.uniform() < 0.5 ? 'full' : 'best-calls' }),
  }, () => bar.tick(''));
  bar.done();
  await policy.release();
  await mkdir(outDir, { recursive: true });
  await writeFile(`${dir}.memories.jsonl`, r.memories.map((m) => JSON.stringify(m)).join('\n') + '\n');
  const convs = sftConversationRows(r.examples, tok, maxContext).map((rows) => copyWeighted(rows, tok));
  const withPlan = r.memories.filter((m) => m.memory).length;
  log(`memory pool: ${convs.length} conversations (${r.incomplete.length} incomplete left out), ${r.memories.length} memories (${withPlan} non-empty, mean ${(r.memories.reduce((a, m) => a + m.memoryTokens, 0) / Math.max(1, r.memories.length)).toFixed(0)} tokens)`);
  return convs;
}

const HELD_OUT_PROTOCOL = 'greedy (temperature 0, one sample per task), real environment, the first N test-split tasks of each world (all difficulties, and difficulty 1 alone); success = final state equals the expert\'s and every checklist item passed; 95% bootstrap interval over tasks (2,000 resamples); cpuMinutes = process CPU time of training (all threads), evaluation excluded';

/** Held-out success at one point of training: all test tasks and difficulty-1 test tasks, per world. */
async function heldOutPoints(dir: string, step: number, cpu: number, seen?: number): Promise<CurvePoint[]> {
  const folder = await loadModelFolder(dir);
  const sampler = await samplerFromFolder(folder, nodeRuntime());
  const profile = profileFromConfig(folder.rawConfig);
  const out: CurvePoint[] = [];
  for (const w of worlds) {
    for (const difficulty of ['all', 1] as const) {
      const tasks = getWorld(w).tasks({ split: 'test', count: nEval, difficulty: difficulty === 'all' ? undefined : difficulty });
      const { trajectories, result } = await evaluate(tasks, sampler, { mode: 'real', rollout: rolloutSettings(profile) });
      const ok = trajectories.map(succeeded);
      const est = bootstrap(ok, { seed: 0 });
      const act = await teacherForcedActAccuracy(tasks, sampler, rolloutSettings(profile));
      out.push({ step, cpuMinutes: Number(cpu.toFixed(2)), world: w, difficulty, success: result.success, ci95: est.ci95, checklist: Number(result.checklist.toFixed(4)), trainTasksSeen: seen, actExact: Number(act.exact.toFixed(4)) });
    }
  }
  await sampler.release();
  return out;
}

/** Linear warm-up over 5% of the steps, then cosine decay to 10% of the peak. */
function schedule(s: number, total: number): number {
  const warm = Math.max(1, Math.floor(total * 0.05));
  if (s < warm) return (s + 1) / warm;
  const p = (s - warm) / Math.max(1, total - warm);
  return 0.1 + 0.9 * 0.5 * (1 + Math.cos(Math.PI * p));
}

/** Greedy held-out evaluation, per world, in real and in rehearsal mode. */
export async function evaluateFolder(dir: string, tasks: Task[], log: (s: string) => void) {
  const folder = await loadModelFolder(dir);
  const sampler = await samplerFromFolder(folder, nodeRuntime());
  const profile = profileFromConfig(folder.rawConfig);
  const out: Record<string, Record<string, EvalResult>> = Object.create(null);
  for (const w of [...new Set(tasks.map((t) => t.world))]) {
    const ts = tasks.filter((t) => t.world === w);
    out[w] = {};
    for (const mode of ['real', 'rehearsal'] as const) {
      const { result } = await evaluate(ts, sampler, { mode, rollout: rolloutSettings(profile) });
      out[w][mode] = result;
      log(`  ${w} ${mode}: success ${(100 * result.success).toFixed(1)}%  checklist ${result.checklist.toFixed(3)}  fidelity exact ${(100 * result.fidelity.exactRate).toFixed(1)}% F1 ${result.fidelity.meanF1.toFixed(3)} (${result.fidelity.calls} calls)`);
    }
  }
  await sampler.release();
  return out;
}

if (!args['no-run']) main().catch((e) => { console.error(e); process.exit(1); });
