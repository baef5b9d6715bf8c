// Batched autoregressive sampling with a key/value cache held in JavaScript buffers.
//
// Two ways to step, chosen per sampler:
//  - 'fast': one graph (exportDecodeStep with headOnLastPosition) that returns only the new tokens' keys/values and the last
//    position's logits, for prefill, prefix extension and decoding; the cache lives in a [B, H, cap, D]
//    buffer per layer (grown by doubling) and unused slots are masked out. This avoids the full-cache copy
//    back to JS every step that dominates the HF-convention graph (see PLATFORM.md). Prompts of a call are
//    prefilled over their prefix tree (shared stretches once), optionally after cached earlier rows.
//  - 'exact': the standard HF-convention graph fed exactly like transformers.js feeds it (past of the
//    true length, no prompt de-duplication), so greedy output matches it token for token.
import { Rng } from './rng';
import type { GenerateRequest, Generation, TextGenerator } from './generator';
import type { BPETokenizer } from './tokenizer';
import type { Feeds, HostTensor, NativeTensor, Runtime } from './runtime';
import { headDim, type LlamaConfig, type Params } from './decoder';
import { exportDecodeStep, exportInference } from './graphs';
import type { ModelFolder } from './modelFolder';

// Per-row token choice and stop-string tracking, independent of how logits are produced.

export interface SampleParams { temperature: number; topP: number; topK: number }

export interface Choice { token: number; logprob: number; entropy: number }

/** Scratch buffers reused across calls so the hot loop does not allocate per token. */
export class SampleScratch {
  idx: Int32Array;
  p: Float64Array;
  sorted: Float32Array;
  constructor(vocab: number) {
    this.idx = new Int32Array(vocab);
    this.p = new Float64Array(vocab);
    this.sorted = new Float32Array(vocab);
  }
}

/**
 * Chooses the next token from logits[off, off+V). The reported log-prob and entropy are those of the
 * model's own distribution (softmax of the raw logits, before temperature and truncation), which is
 * what policy-gradient code needs; the choice itself uses temperature, top-k and top-p.
 */
export function chooseToken(logits: Float32Array, off: number, V: number, sp: SampleParams, rng: Rng | null, s: SampleScratch): Choice {
  let max = -Infinity, arg = 0;
  for (let i = 0; i < V; i++) { const v = logits[off + i]; if (v > max) { max = v; arg = i; } }
  // One exp per logit: with e_i = exp(x_i - max), z = Σe and H = log z - Σ e_i (x_i - max) / z.
  // At temperature 1 the sampling weights are these same e_i (x·1 = x exactly), so they are kept, not recomputed.
  const p = s.p;
  const keep = sp.temperature === 1 && rng !== null;
  let z = 0, zx = 0;
  for (let i = 0; i < V; i++) { const dx = logits[off + i] - max; const e = Math.exp(dx); z += e; zx += e * dx; if (keep) p[i] = e; }
  const lse = max + Math.log(z);
  const ent = Math.max(0, Math.log(z) - zx / z);
  const pick = (t: number): Choice => ({ token: t, logprob: logits[off + t] - lse, entropy: ent });
  if (sp.temperature <= 0 || rng === null) return pick(arg);

  const invT = 1 / sp.temperature;
  let sum = 0;
  if (keep) sum = z;
  else for (let i = 0; i < V; i++) { const e = Math.exp((logits[off + i] - max) * invT); p[i] = e; sum += e; }

  const useK = sp.topK > 0 && sp.topK < V;
  const useP = sp.topP > 0 && sp.topP < 1;
  if (!useK && !useP) return pick(drawFrom(p, null, V, sum, rng));

  // Candidate set before sorting: top-k by a threshold on the k-th largest logit; for top-p, every
  // token whose probability is below (1-p)/V can be dropped safely, because all such tokens together
  // carry less than 1-p of the mass, so the nucleus always lies within the rest.
  let thr = -Infinity;
  if (useK) {
    s.sorted.set(logits.subarray(off, off + V));
    s.sorted.sort();
    thr = s.sorted[V - sp.topK];
  }
  const pThr = useP ? ((1 - sp.topP) / V) * sum : 0;
  let n = 0;
  for (let i = 0; i < V; i++) if (logits[off + i] >= thr && p[i] >= pThr) s.idx[n++] = i;
  const cand = Array.from(s.idx.subarray(0, n));
  // Ties broken by index so a seed gives the same tokens wherever this runs.
  cand.sort((a, b) => (logits[off + b] - logits[off + a]) || (a - b));
  if (useK && cand.length > sp.topK) cand.length = sp.topK;
  if (useP) {
    let tot = 0;
    for (const i of cand) tot += p[i];
    let cum = 0, keep = 0;
    for (const i of cand) { cum += p[i]; keep++; if (cum >= sp.topP * tot) break; }
    cand.length = keep;
  }
  let csum = 0;
  for (const i of cand) csum += p[i];
  let u = rng.uniform() * csum;
  for (const i of cand) { u -= p[i]; if (u < 0) return pick(i); }
  return pick(cand[cand.length - 1]);
}

function drawFrom(p: Float64Array, _idx: null, V: number, sum: number, rng: Rng): number {
  let u = rng.uniform() * sum;
  let last = 0;
  for (let i = 0; i < V; i++) {
    if (p[i] > 0) { last = i; u -= p[i]; if (u < 0) return i; }
  }
  return last;
}

/** Finds the earliest stop string in text, looking only where new text could have created one. */
export function findStop(text: string, stops: readonly string[], searchFrom: number): number {
  let best = -1;
  for (const st of stops) {
    if (!st) continue;
    const at = text.indexOf(st, Math.max(0, searchFrom - st.length + 1));
    if (at >= 0) {
      const end = at + st.length;
      if (best < 0 || end < best) best = end;
    }
  }
  return best;
}

/** The model side of sampling. Shapes are row-major; K/V buffers are one Float32Array per layer. */
export interface KVModel {
  readonly numLayers: number;
  readonly numKvHeads: number;
  readonly headDim: number;
  readonly vocabSize: number;
  /**
   * Forward over left-padded rows [B, T] with an empty cache. Returns the last position's logits
   * [B, V] and the keys/values of all T positions, [B, H, T, D] per layer.
   */
  prefill(ids: Int32Array, mask: Uint8Array, pos: Int32Array, B: number, T: number): Promise<StepOut>;
  /**
   * One token per row. `keys`/`values` hold `cap` slots per row, [B, H, cap, D]; `mask` is [B, cap + 1]
   * (int64 already: it is the one per-step input that grows with the context, so the sampler keeps it
   * as a persistent buffer and updates one slot per row instead of converting it every step)
   * (the last column is the new token itself). Returns logits [B, V] and either the new token's
   * keys/values ([B, H, 1, D], kind 'new') or the whole cache including it ([B, H, cap + 1, D], 'present').
   */
  step(ids: Int32Array, pos: Int32Array, mask: BigInt64Array, keys: KVBuf[], values: KVBuf[], B: number, cap: number): Promise<StepOut>;
  /** 'fast' models return only new K/V from step; 'exact' ones return the full present cache. */
  readonly stepKind: 'new' | 'present';
  /**
   * Several new tokens per row after a cached past ('new' kind only): ids/pos [B, S] (left-padded),
   * keys/values [B, H, past, D], mask [B, past + S]. Returns the last position's logits [B, V] and the
   * S new positions' keys/values [B, H, S, D]. Lets the sampler reuse a prompt prefix it has seen.
   */
  extend?(ids: Int32Array, pos: Int32Array, mask: BigInt64Array, keys: Float32Array[], values: Float32Array[], B: number, past: number, S: number): Promise<StepOut>;
}

/**
 * A cache buffer: host memory, or (for 'present' models only) a backend-native tensor such as a WebGPU
 * buffer that the sampler passes back untouched, so the cache never leaves the device.
 */
export type KVBuf = Float32Array | NativeTensor;

export interface StepOut { logits: Float32Array; keys: KVBuf[]; values: KVBuf[] }

const isHost = (x: KVBuf): x is Float32Array => x instanceof Float32Array;
const release = (xs: KVBuf[]) => { for (const x of xs) if (!isHost(x)) x.dispose?.(); };

export interface SamplerOptions {
  name?: string;
  maxContext: number;
  eosTokenIds: number[];
  padTokenId: number;
  /** Identical prompts in one call are prefilled once and their cache copied (default: on for 'new'-kind models). */
  dedupPrompts?: boolean;
  /** Drop finished rows from the batch once at most this fraction is still running (default 0.5 for 'new'-kind models, else 0 = never). */
  compactBelow?: number;
  /**
   * Round prompt length and cache capacity up to a multiple of this (fast path only). Fewer distinct
   * shapes matter on WebGPU, where every new shape compiles shaders; on CPU it only adds padding.
   */
  shapeBucket?: number;
  /**
   * Keep the keys/values of recent rows (prompt + output) and prefill a new prompt only after its longest
   * common prefix with one of them: the next turn of a conversation extends the previous one, and the K
   * samples of a task share their first prompt. Bounded by `maxBytes` (least recently used go first).
   * Off by default: a prompt served from the cache gets log-probs ~1e-9 away from a full prefill, so the same
   * request on a long-lived sampler would not be bit-identical to its first run (and could, rarely, sample
   * another token). The trainer turns it on for its per-step samplers, whose call sequence is fixed by the seed.
   * true = 64 MiB; models without `extend` ignore it.
   */
  prefixCache?: boolean | { maxBytes?: number; minReuse?: number };
  /**
   * Prompts of one call that share a stretch of at least 16 tokens compute it once (see prefillTree). Default on
   * for models with `extend`; it depends only on the call's own prompts, so a request gives the same tokens
   * every time it comes in the same batch.
   */
  sharePrefixes?: boolean;
  /**
   * Decode-cache slots allocated for generated tokens at first, doubled when full (default 32; 0 = every slot
   * the longest row may need, as before). Each decode step attends over every allocated slot, and rollout rows
   * often stop long before their token budget.
   */
  initialRoom?: number;
}

/**
 * Keys/values of a run of positions, one buffer per layer: position j of head h starts at start + h·headStride + j·D.
 * Views let a remembered row point into the decode buffers it was generated in (which are never written again
 * once a row is remembered: compaction, growth and the end of generate() all leave them behind) instead of copying.
 */
interface KVView { keys: Float32Array[]; values: Float32Array[]; start: number; headStride: number }

/** One earlier row: its tokens in order and their keys/values. `bytes`: what it keeps alive (its decode slots). */
interface CacheEntry { tokens: number[]; kv: KVView; bytes: number }

interface Row {
  req: GenerateRequest;
  prompt: number[];
  out: number[];
  logprobs: number[];
  entropy: number[];
  rng: Rng | null;
  maxNew: number;
  done: Generation['finishReason'] | null;
  text: string;
  stopEnd: number;
}

/**
 * A node of a call's prompt tree: tokens [from, end) of prompt `rep`, computed after its parent's keys/values
 * (which cover [0, from)). `prompts` are the unique prompts ending exactly at `end` (they take this node's
 * last-position logits).
 */
export interface PrefixNode { from: number; end: number; rep: number; parent: PrefixNode | null; prompts: number[]; level: number }

/**
 * The compressed prefix tree of distinct prompts, keeping only shared stretches of at least `minShare` tokens as
 * their own nodes (a shorter one is not worth its own batch and padding: its prompts compute it themselves).
 * Every prompt ends at exactly one node. Levels count computed ancestors, so one level can run as one batch.
 */
export function prefixTree(prompts: number[][], minShare: number): PrefixNode[] {
  const nodes: PrefixNode[] = [];
  const commonEnd = (ix: number[], from: number) => {
    const p0 = prompts[ix[0]];
    for (let k = from; ; k++) {
      if (k >= p0.length) return k;
      for (const i of ix) if (k >= prompts[i].length || prompts[i][k] !== p0[k]) return k;
    }
  };
  const build = (ix: number[], from: number, parent: PrefixNode | null, level: number, groupedTo: number): void => {
    if (ix.length === 1) { nodes.push({ from, end: prompts[ix[0]].length, rep: ix[0], parent, prompts: [ix[0]], level }); return; }
    const l = commonEnd(ix, groupedTo);
    const ended = ix.filter((i) => prompts[i].length === l), rest = ix.filter((i) => prompts[i].length > l);
    const byNext = new Map<number, number[]>();
    for (const i of rest) { const t = prompts[i][l]; const g = byNext.get(t); if (g) g.push(i); else byNext.set(t, [i]); }
    if (l - from >= minShare) {
      const node: PrefixNode = { from, end: l, rep: ix[0], parent, prompts: ended, level };
      nodes.push(node);
      for (const g of byNext.values()) build(g, l, node, level + 1, l);
    } else {
      // Too short to share: distinct prompts are never equal, so at most one ends here, as a leaf of its own.
      for (const i of ended) nodes.push({ from, end: l, rep: i, parent, prompts: [i], level });
      for (const g of byNext.values()) build(g, from, parent, level, l);
    }
  };
  if (prompts.length) build(prompts.map((_, i) => i), 0, null, 0, 0);
  return nodes;
}

export class Sampler implements TextGenerator {
  readonly name: string;
  readonly maxContext: number;
  private readonly eos: Set<number>;
  private readonly scratch: SampleScratch;
  private cache: CacheEntry[] = [];
  private cacheBytes = 0;
  /**
   * Prompt tokens since construction: computed, reused from the prefix cache, and shared with other prompts of
   * the same call (computed once for all of them, counted once per prompt beyond the first computation).
   */
  readonly stats = { prefilled: 0, reused: 0, shared: 0 };

  constructor(readonly model: KVModel, readonly tokenizer: BPETokenizer, readonly opts: SamplerOptions) {
    this.name = opts.name ?? 'engine-sampler';
    this.maxContext = opts.maxContext;
    this.eos = new Set(opts.eosTokenIds);
    this.scratch = new SampleScratch(model.vocabSize);
  }

  countTokens(text: string): number { return this.tokenizer.encode(text).length; }

  private get cacheLimits(): { maxBytes: number; minReuse: number } | null {
    const o = this.opts.prefixCache ?? false;
    if (o === false || !this.model.extend || this.model.stepKind !== 'new') return null;
    return { maxBytes: (o === true ? undefined : o.maxBytes) ?? 64 * 2 ** 20, minReuse: (o === true ? undefined : o.minReuse) ?? 8 };
  }

  /** The cached row sharing the longest prefix with `p` within its first `limit` tokens. */
  private lookup(p: number[], limit: number): { entry: CacheEntry | null; m: number } {
    const lim = this.cacheLimits;
    let best: CacheEntry | null = null, bestM = 0;
    if (lim) for (const e of this.cache) {
      const n = Math.min(e.tokens.length, limit);
      let k = 0;
      while (k < n && e.tokens[k] === p[k]) k++;
      if (k > bestM) { bestM = k; best = e; }
    }
    if (!best || bestM < (lim?.minReuse ?? 1)) return { entry: null, m: 0 };
    // Most recently used last, so eviction drops the least recently used.
    this.cache.splice(this.cache.indexOf(best), 1);
    this.cache.push(best);
    return { entry: best, m: bestM };
  }

  private remember(e: CacheEntry): void {
    const lim = this.cacheLimits;
    if (!lim || e.bytes > lim.maxBytes || e.tokens.length === 0) return;
    const same = this.cache.findIndex((x) => x.tokens.length === e.tokens.length && x.tokens.every((t, i) => t === e.tokens[i]));
    if (same >= 0) { this.cacheBytes -= this.cache[same].bytes; this.cache.splice(same, 1); }
    this.cache.push(e);
    this.cacheBytes += e.bytes;
    while (this.cacheBytes > lim.maxBytes) this.cacheBytes -= this.cache.shift()!.bytes;
  }

  /** Drops every cached prefix (e.g. the weights behind them changed). */
  clearPrefixCache(): void { this.cache = []; this.cacheBytes = 0; }

  /**
   * Prefill of a call's unique prompts over their prefix tree: a stretch of at least `minShare` tokens that
   * several prompts share (the system prompt and tool list of every Act prompt, a task's first message for its
   * K samples) is computed once, and each prompt only extends it (model.extend with the shared keys/values as
   * past). With the prefix cache on, a node whose prefix an earlier row already holds starts from that row's
   * keys/values instead. Nodes of one tree level run as one batch (levels: 1 for prompts sharing nothing, 2–3
   * for a rollout round). Returns each prompt's keys/values ([H, P, D] per layer), logits and the prompt mask of
   * a full prefill's layout (each prompt right-aligned in Tp slots), so decoding runs on the same shapes.
   * Shared or cached keys/values differ from a full prefill's by float rounding only (bench:train: log-probs
   * within 3e-6 of the earlier sampler's, every generation token-identical).
   */
  private async prefillTree(uniq: number[][], Tp: number): Promise<{ logits: Float32Array; perPrompt: KVView[]; pmask: Uint8Array }> {
    const m = this.model;
    const L = m.numLayers, H = m.numKvHeads, D = m.headDim, V = m.vocabSize, pad = this.opts.padTokenId;
    const U = uniq.length;
    const minShare = this.opts.sharePrefixes === false ? Infinity : 16;
    const nodes = prefixTree(uniq, minShare);
    const kv = new Map<PrefixNode, KVView & { logits?: Float32Array }>();
    const levels = Math.max(...nodes.map((n) => n.level)) + 1;
    for (let lv = 0; lv < levels; lv++) {
      type Job = { node: PrefixNode; a: number; cached: boolean; src: KVView | null };
      const jobs: Job[] = [];
      for (const node of nodes) {
        if (node.level !== lv) continue;
        const p = uniq[node.rep];
        const parent = node.parent ? kv.get(node.parent)! : null;
        let job: Job = { node, a: node.from, cached: false, src: parent && node.from > 0 ? parent : null };
        if (this.cacheLimits) {
          // A node whose prompts need logits keeps its last token to compute.
          const hit = this.lookup(p.slice(0, node.end), node.prompts.length ? node.end - 1 : node.end);
          if (hit.entry && hit.m > node.from) job = { node, a: hit.m, cached: true, src: hit.entry.kv };
        }
        if (job.cached) this.stats.reused += job.a; else this.stats.shared += job.a;
        if (job.a >= node.end) { kv.set(node, job.src!); continue; }
        jobs.push(job);
      }
      if (!jobs.length) continue;
      const n = jobs.length;
      const C = Math.max(...jobs.map((j) => j.a)), S = Math.max(...jobs.map((j) => j.node.end - j.a));
      const pastK = Array.from({ length: L }, () => new Float32Array(n * H * C * D));
      const pastV = Array.from({ length: L }, () => new Float32Array(n * H * C * D));
      const mask = new BigInt64Array(n * (C + S)), ids = new Int32Array(n * S).fill(pad), pos = new Int32Array(n * S).fill(1);
      jobs.forEach(({ node, a, src }, i) => {
        const p = uniq[node.rep], suf = node.end - a;
        if (src) for (let l = 0; l < L; l++) for (let h = 0; h < H; h++) {
          const at = src.start + h * src.headStride;
          pastK[l].set(src.keys[l].subarray(at, at + a * D), (i * H + h) * C * D);
          pastV[l].set(src.values[l].subarray(at, at + a * D), (i * H + h) * C * D);
        }
        mask.fill(1n, i * (C + S), i * (C + S) + a);
        for (let k = 0; k < suf; k++) {
          ids[i * S + S - suf + k] = p[a + k]; pos[i * S + S - suf + k] = a + k;
          mask[i * (C + S) + C + S - suf + k] = 1n;
        }
        this.stats.prefilled += suf;
      });
      // With no past (a first level without cached rows) this is a plain prefill: the same graph for the fast
      // model, and the call wrappers such as the worker's interrupt gate know it as the batch's first pass.
      const ext = C === 0 ? await m.prefill(ids, Uint8Array.from(mask, (x) => Number(x)), pos, n, S) : await m.extend!(ids, pos, mask, pastK, pastV, n, C, S);
      jobs.forEach(({ node, a }, i) => {
        const len = node.end, suf = len - a;
        const keys = Array.from({ length: L }, () => new Float32Array(H * len * D));
        const values = Array.from({ length: L }, () => new Float32Array(H * len * D));
        for (let l = 0; l < L; l++) for (let h = 0; h < H; h++) {
          const dst = h * len * D, pk = (i * H + h) * C * D, nk = (i * H + h) * S * D + (S - suf) * D;
          keys[l].set(pastK[l].subarray(pk, pk + a * D), dst);
          values[l].set(pastV[l].subarray(pk, pk + a * D), dst);
          keys[l].set((ext.keys[l] as Float32Array).subarray(nk, nk + suf * D), dst + a * D);
          values[l].set((ext.values[l] as Float32Array).subarray(nk, nk + suf * D), dst + a * D);
        }
        kv.set(node, { keys, values, start: 0, headStride: len * D, logits: node.prompts.length ? ext.logits.slice(i * V, (i + 1) * V) : undefined });
      });
    }

    const pmask = new Uint8Array(U * Tp), logits = new Float32Array(U * V);
    const perPrompt: KVView[] = new Array(U);
    for (const node of nodes) for (const u of node.prompts) {
      const P = uniq[u].length, r = kv.get(node)!;
      perPrompt[u] = r;
      pmask.fill(1, u * Tp + Tp - P, u * Tp + Tp);
      logits.set(r.logits!, u * V);
    }
    return { logits, perPrompt, pmask };
  }

  /** Remembers a row's keys/values (valid prompt slots, then its generated tokens that were fed back). */
  private rememberRow(r: Row, promptMask: Uint8Array, Ts: number, keys: KVBuf[], values: KVBuf[], slot: number, cap: number): void {
    if (!this.cacheLimits || !keys.every(isHost) || !values.every(isHost)) return;
    const H = this.model.numKvHeads, D = this.model.headDim;
    const fed = Math.max(0, r.out.length - 1);
    // The prompt is right-aligned in its Ts slots (prefillTree's layout) and generated tokens follow it, so the
    // row's positions are one contiguous run per head.
    const P = r.prompt.length;
    for (let j = 0; j < Ts; j++) if (!promptMask[j] !== (j < Ts - P)) return;
    const kv: KVView = { keys: keys as Float32Array[], values: values as Float32Array[], start: (slot * H * cap + Ts - P) * D, headStride: cap * D };
    this.remember({ tokens: [...r.prompt, ...r.out.slice(0, fed)], kv, bytes: 8 * keys.length * H * cap * D });
  }

  async generate(reqs: GenerateRequest[]): Promise<Generation[]> {
    if (reqs.length === 0) return [];
    const m = this.model;
    const L = m.numLayers, H = m.numKvHeads, D = m.headDim, V = m.vocabSize, HD = H * D;
    const rows: Row[] = reqs.map((req) => {
      let prompt = this.tokenizer.encode(req.prompt);
      // Keep the most recent context when a prompt alone would not fit.
      if (prompt.length > this.maxContext - 1) prompt = prompt.slice(prompt.length - (this.maxContext - 1));
      if (prompt.length === 0) prompt = [this.opts.padTokenId];
      const maxNew = Math.max(0, Math.min(req.maxNewTokens, this.maxContext - prompt.length));
      return {
        req, prompt, out: [], logprobs: [], entropy: [], maxNew, text: '', stopEnd: -1,
        rng: req.temperature > 0 ? new Rng(req.seed) : null,
        done: maxNew === 0 ? 'length' : null,
      };
    });

    // Prefill unique prompts, left-padded to a common length.
    const dedup = this.opts.dedupPrompts ?? m.stepKind === 'new';
    const uniq: number[][] = [];
    const rowToU: number[] = [];
    const seen = new Map<string, number>();
    for (const r of rows) {
      const key = r.prompt.join(',');
      let u = dedup ? seen.get(key) : undefined;
      if (u === undefined) { u = uniq.length; uniq.push(r.prompt); seen.set(key, u); }
      rowToU.push(u);
    }
    const U = uniq.length;
    const bucket = m.stepKind === 'new' ? (this.opts.shapeBucket ?? 0) : 0;
    const roundUp = (n: number) => (bucket > 0 ? Math.ceil(n / bucket) * bucket : n);
    const Tmax = Math.max(...uniq.map((p) => p.length));
    const Tp = Math.max(Tmax, Math.min(roundUp(Tmax), this.maxContext - 1));
    // Each row keeps its own budget (its prompt plus its new tokens within maxContext): a long prompt elsewhere in
    // the batch only adds masked padding slots in front of this row, and positions are per row. The cache may then
    // hold up to 2·maxContext slots, which the graphs allow (graphs.ts: the causal arange spans 2·maxPos).
    const Ts = Tp;
    let pre: StepOut, pmask: Uint8Array;
    let perPrompt: KVView[] | null = null;
    if (m.extend && m.stepKind === 'new') {
      const t = await this.prefillTree(uniq, Tp);
      ({ pmask, perPrompt } = t);
      pre = { logits: t.logits, keys: [], values: [] };
    } else {
      const ids = new Int32Array(U * Tp).fill(this.opts.padTokenId);
      pmask = new Uint8Array(U * Tp);
      const pos = new Int32Array(U * Tp);
      uniq.forEach((p, u) => {
        const off = u * Tp + (Tp - p.length);
        for (let i = 0; i < p.length; i++) { ids[off + i] = p[i]; pmask[off + i] = 1; pos[off + i] = i; }
        for (let i = 0; i < Tp - p.length; i++) pos[u * Tp + i] = 1;
      });
      pre = await m.prefill(ids, pmask, pos, U, Tp);
      this.stats.prefilled += uniq.reduce((a, p) => a + p.length, 0);
    }

    const B = rows.length;
    const maxNew = Math.max(...rows.map((r) => r.maxNew));
    // 'new' kind: every slot the longest row can need is capFull; `initialRoom` slots for generated tokens are
    // allocated first and doubled when full (few distinct shapes, and no step attends over slots no row reached).
    const capFull = m.stepKind === 'new' ? Math.max(Ts + Math.max(0, maxNew - 1), Math.min(roundUp(Ts + maxNew - 1), this.maxContext - 1)) : Ts;
    const room0 = this.opts.initialRoom ?? 32;
    let cap = m.stepKind === 'new' && room0 > 0 ? Math.min(capFull, roundUp(Ts + room0)) : capFull;
    let keys: KVBuf[] = [], values: KVBuf[] = [];
    const sameRows = U === B && rowToU.every((u, b) => u === b);
    // A present-kind model's prefill output already is the cache (and may live on the device).
    if (m.stepKind === 'present' && sameRows) { keys = pre.keys; values = pre.values; }
    else if (perPrompt) for (let l = 0; l < L; l++) {
      // Straight from each prompt's [H, P, D] keys/values into its rows' slots (right-aligned in Ts).
      const K = new Float32Array(B * HD * cap), Vv = new Float32Array(B * HD * cap);
      for (let b = 0; b < B; b++) {
        const u = rowToU[b], P = uniq[u].length, v = perPrompt[u], pk = v.keys[l], pv = v.values[l];
        for (let h = 0; h < H; h++) {
          const dst = (b * H + h) * cap * D + (Ts - P) * D, at = v.start + h * v.headStride;
          K.set(pk.subarray(at, at + P * D), dst);
          Vv.set(pv.subarray(at, at + P * D), dst);
        }
      }
      keys.push(K); values.push(Vv);
    } else for (let l = 0; l < L; l++) {
      const pk = pre.keys[l], pv = pre.values[l];
      if (!isHost(pk) || !isHost(pv)) throw new Error('device-resident caches need one row per request (no de-duplication)');
      const K = new Float32Array(B * HD * cap), Vv = new Float32Array(B * HD * cap);
      for (let b = 0; b < B; b++) {
        const u = rowToU[b];
        for (let h = 0; h < H; h++) {
          const src = (u * H + h) * Ts * D, dst = (b * H + h) * cap * D;
          K.set(pk.subarray(src, src + Ts * D), dst);
          Vv.set(pv.subarray(src, src + Ts * D), dst);
        }
      }
      keys.push(K); values.push(Vv);
    }
    // Prompt part of the mask per row; generated slots are appended as they are filled.
    const promptMask: Uint8Array[] = rows.map((_, b) => pmask.subarray(rowToU[b] * Ts, rowToU[b] * Ts + Ts));

    // active[i] = index into rows of batch slot i.
    let active = rows.map((_, i) => i);
    const accept = (b: number, logits: Float32Array, off: number) => {
      const r = rows[b];
      const c = chooseToken(logits, off, V, r.req, r.rng, this.scratch);
      r.out.push(c.token); r.logprobs.push(c.logprob); r.entropy.push(c.entropy);
      if (this.eos.has(c.token)) { r.done = 'eos'; return; }
      if (r.req.stop.length) {
        const prevLen = r.text.length;
        r.text = this.tokenizer.decode(r.out);
        // A trailing partial UTF-8 sequence decodes to U+FFFD and changes later, so search a bit back.
        const end = findStop(r.text, r.req.stop, Math.max(0, prevLen - 4));
        if (end >= 0) { r.done = 'stop'; r.stopEnd = end; return; }
      }
      if (r.out.length >= r.maxNew) r.done = 'length';
    };
    for (let b = 0; b < B; b++) if (!rows[b].done) accept(b, pre.logits, rowToU[b] * V);

    let t = 0; // generated tokens already in the cache
    let mask: BigInt64Array | null = null;
    // Exact mode keeps transformers.js's batch shape to the end (ORT results can depend on batch size).
    const compactBelow = this.opts.compactBelow ?? (m.stepKind === 'new' ? 0.5 : 0);
    for (;;) {
      const live = active.filter((b) => !rows[b].done);
      if (live.length === 0) break;
      const hostCache = keys.every(isHost) && values.every(isHost);
      if (hostCache && live.length < active.length && compactBelow > 0 && live.length <= active.length * compactBelow) {
        active.forEach((b, i) => { if (rows[b].done) this.rememberRow(rows[b], promptMask[b], Ts, keys, values, i, cap); });
        const keepSlots = active.map((b, i) => [b, i] as const).filter(([b]) => !rows[b].done).map(([, i]) => i);
        keys = (keys as Float32Array[]).map((K) => gatherRows(K, keepSlots, HD * cap));
        values = (values as Float32Array[]).map((Vv) => gatherRows(Vv, keepSlots, HD * cap));
        active = live;
        mask = null;
      }
      const Bc = active.length;
      if (m.stepKind === 'new' && Ts + t >= cap) {
        const next = Math.min(capFull, Math.max(cap + 1, roundUp(Ts + 2 * (cap - Ts))));
        keys = (keys as Float32Array[]).map((K) => regrow(K, Bc * H, cap, next, D, Ts + t));
        values = (values as Float32Array[]).map((Vv) => regrow(Vv, Bc * H, cap, next, D, Ts + t));
        cap = next;
        mask = null;
      }
      const stepIds = new Int32Array(Bc), stepPos = new Int32Array(Bc);
      for (let i = 0; i < Bc; i++) {
        const r = rows[active[i]];
        // Finished rows ride along (until compaction) with a harmless repeated token.
        stepIds[i] = r.out[r.out.length - 1];
        stepPos[i] = r.prompt.length + Math.min(t, r.out.length - 1);
      }
      const W = cap + 1;
      if (!mask || mask.length !== Bc * W) {
        mask = new BigInt64Array(Bc * W);
        for (let i = 0; i < Bc; i++) {
          const pm = promptMask[active[i]];
          for (let j = 0; j < Ts; j++) if (pm[j]) mask[i * W + j] = 1n;
          mask.fill(1n, i * W + Ts, i * W + Ts + t);
          mask[i * W + cap] = 1n;
        }
      } else if (t > 0) {
        for (let i = 0; i < Bc; i++) mask[i * W + Ts + t - 1] = 1n;
      }
      const so = await m.step(stepIds, stepPos, mask, keys, values, Bc, cap);
      if (m.stepKind === 'present') {
        release(keys); release(values);
        keys = so.keys; values = so.values; cap += 1;
      } else {
        const slot = Ts + t;
        for (let l = 0; l < L; l++) {
          const K = keys[l] as Float32Array, Vv = values[l] as Float32Array;
          const nk = so.keys[l] as Float32Array, nv = so.values[l] as Float32Array;
          // Plain loops: head_dim is small, and subarray views per (row, head) would be garbage each step.
          for (let i = 0; i < Bc; i++) for (let h = 0; h < H; h++) {
            const src = (i * H + h) * D, dst = ((i * H + h) * cap + slot) * D;
            for (let j = 0; j < D; j++) { K[dst + j] = nk[src + j]; Vv[dst + j] = nv[src + j]; }
          }
        }
      }
      t++;
      for (let i = 0; i < Bc; i++) if (!rows[active[i]].done) accept(active[i], so.logits, i * V);
    }
    active.forEach((b, i) => this.rememberRow(rows[b], promptMask[b], Ts, keys, values, i, cap));
    release(keys); release(values);

    return rows.map((r) => {
      const body = r.done === 'eos' ? r.out.slice(0, -1) : r.out;
      let text = this.tokenizer.decode(body);
      if (r.done === 'stop') text = text.slice(0, r.stopEnd);
      return {
        text, promptIds: r.prompt, outputIds: r.out, logprobs: r.logprobs, entropy: r.entropy,
        finishReason: r.done ?? 'length',
      };
    });
  }
}

/** [rows, oldCap, D] → [rows, newCap, D], keeping the first `used` slots of each row. */
function regrow(src: Float32Array, rows: number, oldCap: number, newCap: number, D: number, used: number): Float32Array {
  const out = new Float32Array(rows * newCap * D);
  for (let r = 0; r < rows; r++) out.set(src.subarray(r * oldCap * D, (r * oldCap + used) * D), r * newCap * D);
  return out;
}

function gatherRows(src: Float32Array, slots: number[], rowLen: number): Float32Array {
  const out = new Float32Array(slots.length * rowLen);
  slots.forEach((s, i) => out.set(src.subarray(s * rowLen, (s + 1) * rowLen), i * rowLen));
  return out;
}

// ---------------- ONNX-backed model ----------------

const toI64 = (a: ArrayLike<number>) => { const o = new BigInt64Array(a.length); for (let i = 0; i < a.length; i++) o[i] = BigInt(a[i]); return o; };

/** Last position's logits out of [B, T, V] (a no-op view when T is already 1). */
function lastRows(logits: Float32Array, B: number, T: number, V: number): Float32Array {
  if (T === 1) return logits;
  const out = new Float32Array(B * V);
  for (let b = 0; b < B; b++) out.set(logits.subarray(((b + 1) * T - 1) * V, (b + 1) * T * V), b * V);
  return out;
}

export interface OrtKVModelOptions {
  /**
   * 'fast' (default): prefill with the HF graph (last logits only), then the decode-step graph.
   * 'exact': the given HF-convention graph for everything, fed like transformers.js feeds it.
   */
  mode?: 'fast' | 'exact';
  /** For 'exact': the graph bytes to run (e.g. the folder's onnx/model.onnx); built when omitted. */
  hfGraph?: Uint8Array;
  /**
   * 'exact' only: keep present.* outputs as backend-native tensors and feed them back as the next
   * past, so the cache stays on the device. On WebGPU also pass
   * `sessionExtra: { preferredOutputLocation: kvOutputLocations(cfg, 'gpu-buffer') }`.
   */
  nativeCache?: boolean;
  /** Extra ORT session options (e.g. preferredOutputLocation). */
  sessionExtra?: Record<string, unknown>;
}

/** preferredOutputLocation map placing every present.* output at `where` and logits on the CPU. */
export function kvOutputLocations(cfg: LlamaConfig, where: string): Record<string, string> {
  const out: Record<string, string> = { logits: 'cpu' };
  for (let l = 0; l < cfg.num_hidden_layers; l++) { out[`present.${l}.key`] = where; out[`present.${l}.value`] = where; }
  return out;
}

/** A KVModel over sessions of the engine's inference graphs, on any Runtime (Node CPU, WASM, WebGPU). */
export async function createOrtKVModel(runtime: Runtime, cfg: LlamaConfig, params: Params, opts: OrtKVModelOptions = {}): Promise<KVModel & { release(): Promise<void> }> {
  const L = cfg.num_hidden_layers, H = cfg.num_key_value_heads, D = headDim(cfg), V = cfg.vocab_size;
  const mode = opts.mode ?? 'fast';
  const native = mode === 'exact' && !!opts.nativeCache;
  const so = opts.sessionExtra ? { extra: opts.sessionExtra } : undefined;
  // 'fast': one session (exportDecodeStep, headOnLastPosition) for prefill, extension and decoding, logits of the last position only.
  const prefillSess = await runtime.createSession(
    mode === 'exact' ? (opts.hfGraph ?? exportInference(cfg, params).bytes) : exportDecodeStep(cfg, params, { headOnLastPosition: true }).bytes, so,
  );
  const stepSess = prefillSess;
  const presentNames = Array.from({ length: L }, (_, l) => [`present.${l}.key`, `present.${l}.value`]).flat();
  const buf = (x: KVBuf | undefined, B: number, P: number): HostTensor | NativeTensor =>
    x === undefined ? { type: 'float32', data: new Float32Array(0), dims: [B, H, P, D] }
      : isHost(x) ? { type: 'float32', data: x, dims: [B, H, P, D] } : x;
  const kvFeeds = (feeds: Feeds, keys: KVBuf[] | null, values: KVBuf[] | null, B: number, P: number) => {
    for (let l = 0; l < L; l++) {
      feeds[`past_key_values.${l}.key`] = buf(keys?.[l], B, P);
      feeds[`past_key_values.${l}.value`] = buf(values?.[l], B, P);
    }
    return feeds;
  };
  const run = (s: typeof prefillSess, feeds: Feeds) =>
    native ? s.runMixed(feeds, { keepNative: presentNames }) : s.run(feeds);
  const kv = (t: HostTensor | NativeTensor): KVBuf => ('native' in t && t.native !== undefined ? t as NativeTensor : (t as HostTensor).data as Float32Array);
  const collect = (res: Record<string, HostTensor | NativeTensor>, prefix: string) => ({
    keys: Array.from({ length: L }, (_, l) => kv(res[`${prefix}.${l}.key`])),
    values: Array.from({ length: L }, (_, l) => kv(res[`${prefix}.${l}.value`])),
  });
  const logitsOf = (res: Record<string, HostTensor | NativeTensor>) => res.logits as HostTensor;
  return {
    numLayers: L, numKvHeads: H, headDim: D, vocabSize: V,
    stepKind: mode === 'exact' ? 'present' : 'new',
    async prefill(ids, mask, pos, B, T) {
      const res = await run(prefillSess, kvFeeds({
        input_ids: { type: 'int64', data: toI64(ids), dims: [B, T] },
        attention_mask: { type: 'int64', data: toI64(mask), dims: [B, T] },
        position_ids: { type: 'int64', data: toI64(pos), dims: [B, T] },
      }, null, null, B, 0));
      const lg = logitsOf(res);
      return { logits: lastRows(lg.data as Float32Array, B, lg.dims[1], V), ...collect(res, mode === 'exact' ? 'present' : 'new') };
    },
    async step(ids, pos, mask, keys, values, B, cap) {
      const res = await run(stepSess, kvFeeds({
        input_ids: { type: 'int64', data: toI64(ids), dims: [B, 1] },
        attention_mask: { type: 'int64', data: mask, dims: [B, cap + 1] },
        position_ids: { type: 'int64', data: toI64(pos), dims: [B, 1] },
      }, keys, values, B, cap));
      return { logits: logitsOf(res).data as Float32Array, ...collect(res, mode === 'exact' ? 'present' : 'new') };
    },
    extend: mode === 'exact' ? undefined : async (ids, pos, mask, keys, values, B, past, S) => {
      const res = await run(stepSess, kvFeeds({
        input_ids: { type: 'int64', data: toI64(ids), dims: [B, S] },
        attention_mask: { type: 'int64', data: mask, dims: [B, past + S] },
        position_ids: { type: 'int64', data: toI64(pos), dims: [B, S] },
      }, keys, values, B, past));
      return { logits: logitsOf(res).data as Float32Array, ...collect(res, 'new') };
    },
    async release() {
      await prefillSess.release();
    },
  };
}

export interface FolderSamplerOptions extends OrtKVModelOptions {
  /** Extra token ids that end a row (the folder's eos is always included). */
  extraEosIds?: number[];
  name?: string;
  /** See SamplerOptions.shapeBucket (worth ~64 on WebGPU). */
  shapeBucket?: number;
}

/** A ready TextGenerator for a loaded model folder. */
export async function samplerFromFolder(folder: ModelFolder, runtime: Runtime, opts: FolderSamplerOptions = {}): Promise<Sampler & { release(): Promise<void> }> {
  const hfGraph = opts.mode === 'exact' ? (opts.hfGraph ?? (await folder.readOnnx()) ?? undefined) : undefined;
  const model = await createOrtKVModel(runtime, folder.config, folder.params, { ...opts, hfGraph });
  const s = new Sampler(model, folder.tokenizer, {
    name: opts.name ?? `engine:${opts.mode ?? 'fast'}`,
    maxContext: folder.config.max_position_embeddings,
    eosTokenIds: [folder.ids.eos, ...(opts.extraEosIds ?? [])],
    padTokenId: folder.ids.pad,
    shapeBucket: opts.shapeBucket,
  }) as Sampler & { release(): Promise<void> };
  s.release = () => model.release();
  return s;
}
