// Engine CLI: train a small language model into an HF-layout folder, and sample from one.
//   npm run engine -- train-lm --corpus FILE --size small --steps N --out models/NAME [--seed S --batch B --len L --lr X]
//   npm run engine -- sample --model models/NAME --prompt "…" [--max-new-tokens --temperature --top-p --top-k --seed]
import { readFileSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { resolve } from 'node:path';
import { BPETokenizer, trainBPE, type TokenizerJSON } from '../engine/tokenizer';
import { syntheticCorpus } from '../engine/corpus';
import { makeConfig, type PresetName } from '../engine/decoder';
import { Model, makeLmBatch } from '../engine/trainer-core';
import { nodeRuntime } from '../engine/runtime-node';
import { Rng } from '../engine/rng';
import { loadModelFolder, writeModelFolder } from '../engine/modelFolder';
import { samplerFromFolder } from '../engine/sampler';
import { SPECIAL_TOKENS, PROTOCOL_TOKENS, COMPACT_CHAT_TEMPLATE } from '../agent/chatTemplate';
import { CliArgsError, parseCliArgs, usage, type CliValues } from './args';
import { ENGINE_SAMPLE_CLI, ENGINE_TRAIN_LM_CLI, exitOnArgsError, pickSubcommand } from './defs';

const USAGE = `usage:
  engine train-lm --corpus FILE|synthetic:BYTES --size tiny|small|base --steps N --out DIR
                  [--seed S] [--batch B] [--len L] [--lr X] [--warmup N] [--tokenizer tokenizer.json]
                  [--init MODEL_DIR] [--vocab V] [--save-every N]
  engine sample --model DIR --prompt TEXT [--max-new-tokens N] [--temperature T] [--top-p P]
                [--top-k K] [--seed S] [--stop STR]... [--n ROLLOUTS] [--mode fast|exact]`;

/** The tokens every model of ours reserves: padding/document markers, then the chat roles. */
export const MODEL_SPECIAL_TOKENS = ['<|pad|>', '<|bos|>', '<|eos|>', ...SPECIAL_TOKENS.filter((t) => !['<|pad|>', '<|bos|>', '<|eos|>'].includes(t))];

function fmtTime(s: number): string {
  if (!Number.isFinite(s)) return '?';
  const m = Math.floor(s / 60), sec = Math.round(s % 60);
  return m > 0 ? `${m}m${String(sec).padStart(2, '0')}s` : `${sec}s`;
}

/** One-line progress bar on stderr, redrawn in place when stderr is a terminal. */
export function progress(done: number, total: number, startMs: number, extra: string): void {
  const w = 24, frac = total ? done / total : 1;
  const bar = '#'.repeat(Math.round(frac * w)).padEnd(w, '.');
  const el = (performance.now() - startMs) / 1000;
  const eta = done > 0 ? (el / done) * (total - done) : NaN;
  const line = `[${bar}] ${done}/${total} ${extra} elapsed ${fmtTime(el)} ETA ${fmtTime(eta)}`;
  if (process.stderr.isTTY) process.stderr.write(`\r${line}\x1b[K${done === total ? '\n' : ''}`);
  else if (done === total || done % Math.max(1, Math.floor(total / 20)) === 0) process.stderr.write(line + '\n');
}

function readCorpus(spec: string): string {
  const m = /^synthetic:(\d+)$/.exec(spec);
  if (m) return syntheticCorpus(Number(m[1]), 1);
  return readFileSync(spec, 'utf8');
}

/** Documents separated by blank lines, each closed by <|eos|>, as one token stream. */
function tokenStream(tok: BPETokenizer, text: string, eos: number): Int32Array {
  const out: number[] = [];
  for (const doc of text.split(/\n\s*\n/)) {
    if (!doc.trim()) continue;
    for (const id of tok.encode(doc)) out.push(id);
    out.push(eos);
  }
  return Int32Array.from(out);
}

export interface TrainLmOptions {
  corpus: string;
  size: PresetName;
  steps: number;
  out: string;
  seed: number;
  batch: number;
  len: number;
  lr: number;
  warmup?: number;
  tokenizer?: string;
  init?: string;
  vocab?: number;
  saveEvery?: number;
  quiet?: boolean;
}

export async function trainLm(o: TrainLmOptions): Promise<{ loss: number; validLoss: number }> {
  const text = readCorpus(o.corpus);
  let tokJson: TokenizerJSON;
  const log = (s: string) => { if (!o.quiet) process.stderr.write(s + '\n'); };
  const init = o.init ? await loadModelFolder(o.init) : null;
  if (init) tokJson = init.tokenizerJson;
  else if (o.tokenizer) tokJson = JSON.parse(readFileSync(o.tokenizer, 'utf8'));
  else {
    const t0 = performance.now();
    const vocab = o.vocab ?? makeConfig(o.size).vocab_size;
    tokJson = trainBPE(text, { vocabSize: vocab, specialTokens: MODEL_SPECIAL_TOKENS, addedTokens: PROTOCOL_TOKENS });
    log(`tokenizer: ${Object.keys(tokJson.model.vocab).length} entries trained on ${text.length} chars in ${Math.round(performance.now() - t0)} ms`);
  }
  const tok = new BPETokenizer(tokJson);
  const eos = tok.tokenId('<|eos|>')!, pad = tok.tokenId('<|pad|>')!;
  const cfg = init ? init.config : makeConfig(o.size, { vocab_size: tok.vocabSize });
  const L = Math.min(o.len, cfg.max_position_embeddings);

  const stream = tokenStream(tok, text, eos);
  // Last 5% held out for a validation loss; windows never straddle the split.
  const split = Math.max(L + 2, Math.floor(stream.length * 0.95));
  if (stream.length < L + 2) throw new Error(`corpus too small: ${stream.length} tokens for windows of ${L + 1}`);
  const train = stream.subarray(0, Math.min(split, stream.length));
  const valid = stream.length - split >= L + 1 ? stream.subarray(split) : train;
  log(`corpus: ${stream.length} tokens (${(text.length / stream.length).toFixed(2)} chars/token); model ${o.init ? 'from ' + o.init : o.size}: ${cfg.hidden_size}d × ${cfg.num_hidden_layers} layers, vocab ${cfg.vocab_size}`);

  const rt = nodeRuntime();
  const model = new Model(cfg, rt, init?.params, { seed: o.seed });
  const rng = new Rng(o.seed + 1);
  const windows = (src: Int32Array, n: number, r: Rng) =>
    Array.from({ length: n }, () => { const s = r.int(src.length - L); return Array.from(src.subarray(s, s + L + 1)); });

  const warmup = o.warmup ?? Math.min(100, Math.ceil(o.steps * 0.05));
  const lrAt = (s: number) => {
    if (s < warmup) return o.lr * (s + 1) / warmup;
    const p = (s - warmup) / Math.max(1, o.steps - warmup);
    return o.lr * (0.1 + 0.9 * 0.5 * (1 + Math.cos(Math.PI * p)));
  };
  const meta = () => ({ size: o.size, steps: model.step, seed: o.seed, batch: o.batch, len: L, lr: o.lr, corpus: o.corpus });
  const save = async (extra: Record<string, unknown> = {}) => writeModelFolder(o.out, {
    config: cfg, params: model.params, tokenizer: tokJson, chatTemplate: COMPACT_CHAT_TEMPLATE, meta: { ...meta(), ...extra },
  });

  const t0 = performance.now();
  let ema = NaN;
  for (let s = 0; s < o.steps; s++) {
    const r = await model.trainStep(makeLmBatch(windows(train, o.batch, rng), L, { pad }), { lr: lrAt(s) });
    ema = Number.isNaN(ema) ? r.loss : 0.95 * ema + 0.05 * r.loss;
    const msPer = (performance.now() - t0) / (s + 1);
    if (!o.quiet) progress(s + 1, o.steps, t0, `loss ${ema.toFixed(3)} lr ${lrAt(s).toExponential(1)} ${msPer.toFixed(0)} ms/step`);
    if (o.saveEvery && (s + 1) % o.saveEvery === 0 && s + 1 < o.steps) await save({ train_loss: ema });
  }
  // Fixed validation windows (own seed) so runs are comparable.
  const vb = makeLmBatch(windows(valid, o.batch, new Rng(12345)), L, { pad });
  const validLoss = (await model.score(vb)).loss;
  await save({ train_loss: ema, valid_loss: validLoss });
  log(`saved ${o.out} (train loss ${ema.toFixed(3)}, valid loss ${validLoss.toFixed(3)})`);
  await model.dispose();
  return { loss: ema, validLoss };
}

async function main(argv: string[]): Promise<void> {
  if (argv.length === 0 || argv[0] === '--help') { process.stderr.write(USAGE + '\n'); return; }
  let job: () => Promise<void>;
  try {
    const { sub, rest } = pickSubcommand('engine', ['train-lm', 'sample'] as const, argv);
    if (sub === 'train-lm') {
      const v = parseCliArgs(ENGINE_TRAIN_LM_CLI, rest);
      if (v === 'help') { process.stdout.write(usage(ENGINE_TRAIN_LM_CLI) + '\n'); return; }
      if (!existsSync(v.corpus)) throw new CliArgsError([`--corpus: no file ${v.corpus}`], usage(ENGINE_TRAIN_LM_CLI));
      job = async () => {
        await trainLm({
          corpus: v.corpus, size: v.size as PresetName, steps: v.steps, out: v.out, seed: v.seed,
          batch: v.batch, len: v.len, lr: v.lr, warmup: v.warmup,
          tokenizer: v.tokenizer, init: v.init, vocab: v.vocab, saveEvery: v['save-every'],
        });
      };
    } else {
      const v = parseCliArgs(ENGINE_SAMPLE_CLI, rest);
      if (v === 'help') { process.stdout.write(usage(ENGINE_SAMPLE_CLI) + '\n'); return; }
      if (!existsSync(v.model)) throw new CliArgsError([`--model: no folder ${v.model}`], usage(ENGINE_SAMPLE_CLI));
      job = () => sample(v);
    }
  } catch (e) { exitOnArgsError('engine', e); }
  await job();
}

async function sample(v: CliValues<typeof ENGINE_SAMPLE_CLI.options>): Promise<void> {
  const folder = await loadModelFolder(v.model);
  const s = await samplerFromFolder(folder, nodeRuntime(), { mode: v.mode as 'fast' | 'exact' });
  const n = v.n, seed = v.seed;
  const t0 = performance.now();
  const gens = await s.generate(Array.from({ length: n }, (_, i) => ({
    prompt: v.prompt, maxNewTokens: v['max-new-tokens'], temperature: v.temperature,
    topP: v['top-p'], topK: v['top-k'], stop: v.stop ?? [], seed: seed + i,
  })));
  const ms = performance.now() - t0;
  await s.release();
  if (v.json) process.stdout.write(JSON.stringify(gens, null, 2) + '\n');
  else for (const g of gens) process.stdout.write(`${v.prompt}${g.text}\n${n > 1 ? '---\n' : ''}`);
  const toks = gens.reduce((a, g) => a + g.outputIds.length, 0);
  process.stderr.write(`${toks} tokens in ${ms.toFixed(0)} ms (${(toks / (ms / 1000)).toFixed(0)} tok/s); finish: ${gens.map((g) => g.finishReason).join(',')}\n`);
}

const isMain = !!process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1]);
if (isMain) main(process.argv.slice(2)).catch((e) => { process.stderr.write(`${e instanceof Error ? e.message : e}\n`); process.exit(1); });
