// Byte-level BPE: training, a tokenizer.json writer and a dependency-free runtime encoder/decoder.
//
// The produced tokenizer.json uses the same pieces as GPT-2 style tokenizers (ByteLevel pre-tokenizer
// with its regex, BPE model, ByteLevel decoder, special tokens as added tokens) so that
// @huggingface/tokenizers and transformers.js load it unchanged. Our own encoder mirrors their
// algorithm (same split regex, lowest-rank-then-leftmost merges) so both give identical ids; the tests
// check that. We keep our own encoder so the engine has no tokenizer dependency at runtime and works
// on ids directly (no token-string round trips).

export const DEFAULT_SPECIAL_TOKENS = [
  '<|pad|>', '<|bos|>', '<|eos|>', '<|system|>', '<|user|>', '<|assistant|>', '<|tool|>', '<|end|>',
] as const;

// Exactly the pattern @huggingface/tokenizers uses for ByteLevel(use_regex=true); any deviation would
// make the two encoders split differently.
const SPLIT_RE = /'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+/gu;

/**
 * 'words' pre-tokenization: letters, digits, punctuation and whitespace each form their own pieces, so a
 * word never carries its leading space. A name then has the same token ids in prose (" the drafts folder")
 * and in a JSON argument ("folder":"drafts"): copying it is a pure copy of ids, which a small model learns
 * far sooner than a per-name " drafts" → "drafts" mapping. Written to tokenizer.json as a Split (isolated)
 * + ByteLevel (no regex) sequence, which @huggingface/tokenizers and transformers.js read.
 */
export const WORDS_PATTERN = '\\p{L}+|\\p{N}+|[^\\s\\p{L}\\p{N}]+|\\s+';
const WORDS_RE = new RegExp(WORDS_PATTERN, 'gu');
export type Pretokenizer = 'gpt2' | 'words';

type ByteLevelPre = { type: 'ByteLevel'; add_prefix_space: boolean; trim_offsets: boolean; use_regex: boolean };
type WordsPre = { type: 'Sequence'; pretokenizers: [{ type: 'Split'; pattern: { Regex: string }; behavior: 'Isolated'; invert: false }, ByteLevelPre] };

function preTokenizerJson(kind: Pretokenizer): ByteLevelPre | WordsPre {
  const bl = { type: 'ByteLevel' as const, add_prefix_space: false, trim_offsets: true };
  if (kind === 'gpt2') return { ...bl, use_regex: true };
  return { type: 'Sequence', pretokenizers: [{ type: 'Split', pattern: { Regex: WORDS_PATTERN }, behavior: 'Isolated', invert: false }, { ...bl, use_regex: false }] };
}

/** The split regex a tokenizer.json's pre_tokenizer implies; a clear error for shapes we do not encode. */
function splitRegexOf(pre: TokenizerJSON['pre_tokenizer']): RegExp {
  if (pre?.type === 'ByteLevel' && pre.use_regex !== false) return SPLIT_RE;
  if (pre?.type === 'Sequence' && pre.pretokenizers?.[0]?.type === 'Split' && pre.pretokenizers[0].pattern?.Regex === WORDS_PATTERN
    && pre.pretokenizers[1]?.type === 'ByteLevel' && pre.pretokenizers[1].use_regex === false) return WORDS_RE;
  throw new Error(`tokenizer.json: unsupported pre_tokenizer ${JSON.stringify(pre).slice(0, 200)} (supported: ByteLevel with its regex, or the 'words' Split + ByteLevel sequence)`);
}

/** GPT-2 byte→printable-char table: printable Latin-1 bytes map to themselves, the rest to U+0100…. */
export const BYTE_TO_CHAR: string[] = (() => {
  const bs: number[] = [];
  for (let b = 0x21; b <= 0x7e; b++) bs.push(b);
  for (let b = 0xa1; b <= 0xac; b++) bs.push(b);
  for (let b = 0xae; b <= 0xff; b++) bs.push(b);
  const cs = bs.slice();
  let n = 0;
  for (let b = 0; b < 256; b++) {
    if (!bs.includes(b)) { bs.push(b); cs.push(256 + n); n++; }
  }
  const out = new Array<string>(256);
  bs.forEach((b, i) => { out[b] = String.fromCharCode(cs[i]); });
  return out;
})();
const CHAR_TO_BYTE = new Map<string, number>(BYTE_TO_CHAR.map((c, b) => [c, b]));

export interface TokenizerJSON {
  version: string;
  truncation: null;
  padding: null;
  added_tokens: Array<{ id: number; content: string; single_word: boolean; lstrip: boolean; rstrip: boolean; normalized: boolean; special: boolean }>;
  normalizer: null;
  pre_tokenizer: ByteLevelPre | WordsPre;
  post_processor: null;
  decoder: { type: 'ByteLevel'; add_prefix_space: boolean; trim_offsets: boolean; use_regex: boolean };
  model: {
    type: 'BPE'; dropout: null; unk_token: null; continuing_subword_prefix: null; end_of_word_suffix: null;
    fuse_unk: boolean; byte_fallback: boolean; ignore_merges: boolean;
    vocab: Record<string, number>; merges: Array<[string, string]>;
  };
}

export interface TrainOptions {
  vocabSize: number;
  specialTokens?: readonly string[];
  /**
   * Atomic but ordinary tokens (e.g. protocol tags like <tool_call>): never split by BPE, kept when
   * decoding with skipSpecialTokens. Ids follow the special tokens.
   */
  addedTokens?: readonly string[];
  /** Pairs seen fewer times than this are never merged (stops early on tiny corpora). */
  minFrequency?: number;
  /** How text is cut into pieces before BPE (default 'gpt2', the ByteLevel regex). */
  pretokenizer?: Pretokenizer;
  onProgress?: (merges: number, target: number) => void;
}

function escapeRe(s: string): string { return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'); }

/** Splits text around special tokens; odd indices of the result are special tokens. */
function specialSplitter(specials: readonly string[]): (text: string) => string[] {
  if (specials.length === 0) return (t) => [t];
  // Longest first so that a special token that prefixes another cannot shadow it.
  const re = new RegExp(`(${[...specials].sort((a, b) => b.length - a.length).map(escapeRe).join('|')})`, 'g');
  return (t) => t.split(re);
}

const utf8 = new TextEncoder();
// ignoreBOM keeps a leading U+FEFF (the default strips it, which breaks round trips; HF does the same).
const utf8dec = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });

function toByteChars(piece: string): string {
  const bytes = utf8.encode(piece);
  let s = '';
  for (let i = 0; i < bytes.length; i++) s += BYTE_TO_CHAR[bytes[i]];
  return s;
}

// Binary max-heap over (count, key) with lazy deletion: stale entries are skipped when popped, which
// is much cheaper than re-heapifying on every count change.
class PairHeap {
  private c: number[] = [];
  private k: number[] = [];
  get size(): number { return this.c.length; }
  private better(i: number, j: number): boolean {
    return this.c[i] > this.c[j] || (this.c[i] === this.c[j] && this.k[i] < this.k[j]);
  }
  private swap(i: number, j: number): void {
    const tc = this.c[i]; this.c[i] = this.c[j]; this.c[j] = tc;
    const tk = this.k[i]; this.k[i] = this.k[j]; this.k[j] = tk;
  }
  push(count: number, key: number): void {
    this.c.push(count); this.k.push(key);
    let i = this.c.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.better(i, p)) break;
      this.swap(i, p); i = p;
    }
  }
  pop(): [number, number] {
    const top: [number, number] = [this.c[0], this.k[0]];
    const lc = this.c.pop()!, lk = this.k.pop()!;
    if (this.c.length > 0) {
      this.c[0] = lc; this.k[0] = lk;
      let i = 0;
      const n = this.c.length;
      for (;;) {
        const l = 2 * i + 1, r = l + 1;
        let m = i;
        if (l < n && this.better(l, m)) m = l;
        if (r < n && this.better(r, m)) m = r;
        if (m === i) break;
        this.swap(i, m); i = m;
      }
    }
    return top;
  }
}

/**
 * Trains a byte-level BPE. Ids: special tokens first (in the given order), then the 256 byte symbols,
 * then one id per merge. Works on unique pre-tokenized words with counts and updates pair counts
 * incrementally, so cost scales with the number of distinct words, not corpus size.
 */
export function trainBPE(corpus: string | Iterable<string>, opts: TrainOptions): TokenizerJSON {
  const specialList = [...(opts.specialTokens ?? DEFAULT_SPECIAL_TOKENS)];
  const added = (opts.addedTokens ?? []).filter((t) => !specialList.includes(t));
  const specials = [...specialList, ...added];
  if (new Set(specials).size !== specials.length) throw new Error('duplicate special/added tokens');
  const minFreq = Math.max(1, opts.minFrequency ?? 2);
  const base = specials.length + 256;
  if (opts.vocabSize < base) throw new Error(`vocabSize must be at least ${base}`);
  if (opts.vocabSize > 65536) throw new Error('vocabSize above 65536 is not supported');

  const wordCounts = new Map<string, number>();
  const split = specialSplitter(specials);
  const pieceRe = (opts.pretokenizer ?? 'gpt2') === 'words' ? WORDS_RE : SPLIT_RE;
  const docs = typeof corpus === 'string' ? [corpus] : corpus;
  for (const doc of docs) {
    const parts = split(doc);
    for (let p = 0; p < parts.length; p += 2) {
      for (const m of parts[p].matchAll(pieceRe)) {
        const w = m[0];
        wordCounts.set(w, (wordCounts.get(w) ?? 0) + 1);
      }
    }
  }

  const idToToken: string[] = [...specials, ...BYTE_TO_CHAR];
  const tokenToId = new Map<string, number>();
  idToToken.forEach((t, i) => { if (!tokenToId.has(t)) tokenToId.set(t, i); });
  const byteId = (b: number) => specials.length + b;

  const words: number[][] = [];
  const counts: number[] = [];
  for (const [w, c] of wordCounts) {
    const bytes = utf8.encode(w);
    const syms = new Array<number>(bytes.length);
    for (let i = 0; i < bytes.length; i++) syms[i] = byteId(bytes[i]);
    words.push(syms);
    counts.push(c);
  }

  const SHIFT = 65536;
  const pairCount = new Map<number, number>();
  const pairWords = new Map<number, Set<number>>();
  const addPair = (key: number, wi: number, c: number) => {
    pairCount.set(key, (pairCount.get(key) ?? 0) + c);
    let s = pairWords.get(key);
    if (!s) { s = new Set(); pairWords.set(key, s); }
    s.add(wi);
  };
  for (let wi = 0; wi < words.length; wi++) {
    const w = words[wi], c = counts[wi];
    for (let i = 0; i + 1 < w.length; i++) addPair(w[i] * SHIFT + w[i + 1], wi, c);
  }
  const heap = new PairHeap();
  for (const [k, c] of pairCount) heap.push(c, k);

  const merges: Array<[string, string]> = [];
  const target = opts.vocabSize - base;
  while (merges.length < target && heap.size > 0) {
    const [c, key] = heap.pop();
    if (pairCount.get(key) !== c) continue; // stale heap entry
    if (c < minFreq) break;
    const a = Math.floor(key / SHIFT), b = key % SHIFT;
    const merged = idToToken[a] + idToToken[b];
    // Two different merge paths can spell the same token; reuse its id so the vocab stays a bijection.
    let nid = tokenToId.get(merged);
    if (nid === undefined) {
      nid = idToToken.length;
      idToToken.push(merged);
      tokenToId.set(merged, nid);
    }
    merges.push([idToToken[a], idToToken[b]]);

    const touched = new Set<number>();
    const ws = pairWords.get(key)!;
    pairCount.delete(key);
    pairWords.delete(key);
    for (const wi of ws) {
      const w = words[wi], wc = counts[wi];
      // Remove all of this word's pairs, rewrite it, then re-add: simple and correct for overlaps
      // like "aaa"; words are short so the extra work is small.
      for (let i = 0; i + 1 < w.length; i++) {
        const k = w[i] * SHIFT + w[i + 1];
        if (k === key) continue;
        const nc = (pairCount.get(k) ?? 0) - wc;
        if (nc <= 0) { pairCount.delete(k); pairWords.delete(k); } else { pairCount.set(k, nc); touched.add(k); }
      }
      const out: number[] = [];
      for (let i = 0; i < w.length; i++) {
        if (i + 1 < w.length && w[i] === a && w[i + 1] === b) { out.push(nid); i++; } else out.push(w[i]);
      }
      words[wi] = out;
      for (let i = 0; i + 1 < out.length; i++) {
        const k = out[i] * SHIFT + out[i + 1];
        addPair(k, wi, wc);
        touched.add(k);
      }
    }
    // Words that lost a pair stay in that pair's word set; harmless, because merging re-checks symbols.
    for (const k of touched) { const pc = pairCount.get(k); if (pc !== undefined) heap.push(pc, k); }
    if (opts.onProgress && merges.length % 256 === 0) opts.onProgress(merges.length, target);
  }
  opts.onProgress?.(merges.length, target);

  const vocab: Record<string, number> = Object.create(null);
  idToToken.forEach((t, i) => { if (tokenToId.get(t) === i) vocab[t] = i; });
  const bl = { add_prefix_space: false, trim_offsets: true, use_regex: true };
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: specials.map((content, id) => ({
      id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: id < specialList.length,
    })),
    normalizer: null,
    pre_tokenizer: preTokenizerJson(opts.pretokenizer ?? 'gpt2'),
    post_processor: null,
    decoder: { type: 'ByteLevel', ...bl },
    model: {
      type: 'BPE', dropout: null, unk_token: null, continuing_subword_prefix: null, end_of_word_suffix: null,
      fuse_unk: false, byte_fallback: false, ignore_merges: false, vocab, merges,
    },
  };
}

export interface EncodeOptions {
  /** Recognise special-token strings in the text (default true, like HF's added-token splitting). */
  allowSpecial?: boolean;
}

/** Runtime byte-level BPE over a tokenizer.json of the shape `trainBPE` writes. */
export class BPETokenizer {
  readonly vocabSize: number;
  /** Control tokens (skipped by decode with skipSpecialTokens). */
  readonly specialTokens: string[];
  /** Every atomic token, special or not, in id order of the file. */
  readonly addedTokens: string[];
  private readonly idToTok: string[];
  private readonly tokToId: Map<string, number>;
  private readonly specialIds: Set<number>;
  private readonly addedIds: Set<number>;
  private readonly addedIdOf: Map<string, number>;
  private readonly ranks: Map<number, number>;  // pair key (idA*2^16+idB) → merge rank
  private readonly mergeTo: Map<number, number>; // pair key → merged id
  private readonly split: (t: string) => string[];
  private readonly pieceRe: RegExp;
  private readonly cache = new Map<string, number[]>();
  private readonly byteIds: Int32Array;
  private readonly byteCache: (Uint8Array | undefined)[] = [];

  constructor(readonly json: TokenizerJSON) {
    const vocab = json.model.vocab;
    this.pieceRe = splitRegexOf(json.pre_tokenizer);
    let max = -1;
    for (const id of Object.values(vocab)) max = Math.max(max, id);
    for (const t of json.added_tokens) max = Math.max(max, t.id);
    this.vocabSize = max + 1;
    this.idToTok = new Array(this.vocabSize).fill('');
    this.tokToId = new Map();
    for (const [t, id] of Object.entries(vocab)) { this.idToTok[id] = t; this.tokToId.set(t, id); }
    this.specialTokens = json.added_tokens.filter((t) => t.special).map((t) => t.content);
    this.specialIds = new Set(json.added_tokens.filter((t) => t.special).map((t) => t.id));
    this.addedIds = new Set(json.added_tokens.map((t) => t.id));
    this.addedTokens = json.added_tokens.map((t) => t.content);
    this.addedIdOf = new Map(json.added_tokens.map((t) => [t.content, t.id]));
    for (const t of json.added_tokens) { this.idToTok[t.id] = t.content; }
    this.byteIds = new Int32Array(256);
    for (let b = 0; b < 256; b++) {
      const id = this.tokToId.get(BYTE_TO_CHAR[b]);
      if (id === undefined) throw new Error(`tokenizer.json lacks byte symbol ${b}`);
      this.byteIds[b] = id;
    }
    this.ranks = new Map();
    this.mergeTo = new Map();
    json.model.merges.forEach((m, r) => {
      const [x, y] = typeof m === 'string' ? (m as string).split(' ') : m;
      const a = this.tokToId.get(x), b = this.tokToId.get(y), c = this.tokToId.get(x + y);
      if (a === undefined || b === undefined || c === undefined) throw new Error(`bad merge ${x} ${y}`);
      const key = a * 65536 + b;
      if (!this.ranks.has(key)) { this.ranks.set(key, r); this.mergeTo.set(key, c); }
    });
    this.split = specialSplitter(this.addedTokens);
  }

  static fromJSON(json: TokenizerJSON | string): BPETokenizer {
    return new BPETokenizer(typeof json === 'string' ? JSON.parse(json) : json);
  }

  tokenId(token: string): number | undefined {
    return this.json.added_tokens.find((t) => t.content === token)?.id ?? this.tokToId.get(token);
  }
  idToken(id: number): string { return this.idToTok[id]; }
  isSpecial(id: number): boolean { return this.specialIds.has(id); }

  private bpeWord(word: string): number[] {
    const hit = this.cache.get(word);
    if (hit) return hit;
    const bytes = utf8.encode(word);
    let syms: number[] = new Array(bytes.length);
    for (let i = 0; i < bytes.length; i++) syms[i] = this.byteIds[bytes[i]];
    // Repeatedly merge the lowest-rank pair, leftmost first — the order the HF heap implementation
    // produces (rank plus a position bias), so results agree.
    while (syms.length > 1) {
      let best = Infinity, bestKey = -1;
      for (let i = 0; i + 1 < syms.length; i++) {
        const r = this.ranks.get(syms[i] * 65536 + syms[i + 1]);
        if (r !== undefined && r < best) { best = r; bestKey = syms[i] * 65536 + syms[i + 1]; }
      }
      if (bestKey < 0) break;
      const a = Math.floor(bestKey / 65536), b = bestKey % 65536, c = this.mergeTo.get(bestKey)!;
      const out: number[] = [];
      for (let i = 0; i < syms.length; i++) {
        if (i + 1 < syms.length && syms[i] === a && syms[i + 1] === b) { out.push(c); i++; } else out.push(syms[i]);
      }
      syms = out;
    }
    if (word.length < 256) {
      if (this.cache.size > 100_000) this.cache.clear();
      this.cache.set(word, syms);
    }
    return syms;
  }

  encode(text: string, opts: EncodeOptions = {}): number[] {
    const out: number[] = [];
    const parts = opts.allowSpecial === false ? [text] : this.split(text);
    for (let p = 0; p < parts.length; p++) {
      if (p % 2 === 1) { out.push(this.addedIdOf.get(parts[p])!); continue; }
      for (const m of parts[p].matchAll(this.pieceRe)) {
        const ids = this.bpeWord(m[0]);
        for (let i = 0; i < ids.length; i++) out.push(ids[i]);
      }
    }
    return out;
  }

  /** Bytes of a token as it appears in text (special tokens: their UTF-8 spelling). */
  tokenBytes(id: number): Uint8Array {
    const t = this.idToTok[id];
    if (this.addedIds.has(id)) return utf8.encode(t);
    const out = new Uint8Array(t.length);
    for (let i = 0; i < t.length; i++) out[i] = CHAR_TO_BYTE.get(t[i]) ?? 0x3f;
    return out;
  }

  decode(ids: ArrayLike<number>, opts: { skipSpecialTokens?: boolean } = {}): string {
    // Special tokens are emitted verbatim and split the byte stream, as HF's ByteLevel decoder does.
    let s = '';
    let buf: number[] = [];
    const flush = () => { if (buf.length) { s += utf8dec.decode(new Uint8Array(buf)); buf = []; } };
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i];
      if (this.addedIds.has(id)) {
        flush();
        if (!(opts.skipSpecialTokens && this.specialIds.has(id))) s += this.idToTok[id];
        continue;
      }
      if (this.idToTok[id] === undefined) continue;
      const tb = (this.byteCache[id] ??= this.tokenBytes(id));
      for (let j = 0; j < tb.length; j++) buf.push(tb[j]);
    }
    flush();
    return s;
  }

  toJSON(): TokenizerJSON { return this.json; }
}

/** The tokenizer_config.json that makes HF loaders treat our tokenizer as a plain fast tokenizer. */
export function tokenizerConfig(opts: {
  addedTokens: TokenizerJSON['added_tokens']; bos: string; eos: string; pad: string; chatTemplate?: string; maxLength: number;
}): Record<string, unknown> {
  const decoder: Record<string, unknown> = Object.create(null);
  for (const t of opts.addedTokens) {
    decoder[String(t.id)] = { content: t.content, lstrip: false, normalized: false, rstrip: false, single_word: false, special: t.special };
  }
  const specialTokens = opts.addedTokens.filter((t) => t.special).map((t) => t.content);
  const cfg: Record<string, unknown> = {
    tokenizer_class: 'PreTrainedTokenizerFast',
    added_tokens_decoder: decoder,
    bos_token: opts.bos,
    eos_token: opts.eos,
    pad_token: opts.pad,
    unk_token: null,
    add_bos_token: false,
    add_eos_token: false,
    // Default true in HF would rewrite " ." → "." and break decode(encode(x)) == x.
    clean_up_tokenization_spaces: false,
    padding_side: 'left',
    model_max_length: opts.maxLength,
    additional_special_tokens: specialTokens.filter((t) => t !== opts.bos && t !== opts.eos && t !== opts.pad),
  };
  if (opts.chatTemplate) cfg.chat_template = opts.chatTemplate;
  return cfg;
}
