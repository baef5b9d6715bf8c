// Packs token rows into few fixed-length graph rows for training, so that shared prefixes are computed
// once and no position is spent on padding between short rows.
//
// Rows are merged into a prefix tree: the K samples of a task share the system prompt and first user
// message, and an Act row of turn t+1 starts with the whole Act row of turn t. Each tree node is one
// token at one depth; packed into a graph row, a node attends exactly to its ancestors (attention_bias)
// at position id = depth, so its hidden state equals the one it has in every unpacked row through it.
// Logits at a node predict one target, so a node may carry at most one trained child: when a second
// row wants to train a different (or the same) next token from the same context, it continues from a
// duplicate of that node instead (same token, same ancestors, hence the same hidden state).
import { NEG_INF } from './decoder';

export interface PackInput {
  ids: ArrayLike<number>;
  /** trained[i] (i ≥ 1): token i is a target of this row, predicted from position i − 1. */
  trained: ArrayLike<number | boolean>;
}

export interface PackedBatch {
  batch: number;
  seq: number;
  inputIds: Int32Array; // [B, T]
  positionIds: Int32Array; // [B, T]
  attentionBias: Float32Array; // [B, T, T]
  /**
   * Optional one-hot [B, N, T]: only N positions per row are scored (their logits computed); the
   * per-token fields below are then [B, N] instead of [B, T].
   */
  select?: Float32Array;
  /** N: scored positions per row (T without `select`). */
  scored: number;
  targetIds: Int32Array; // [B, N]
  lossWeight: Float32Array; // [B, N]
  advantages?: Float32Array;
  oldLogprobs?: Float32Array;
  refLogprobs?: ArrayLike<number>;
}

export interface Packing {
  /** Graph rows, each with its own length (callers batch rows of equal length into one call). */
  rows: { length: number; inputIds: Int32Array; positionIds: Int32Array; parent: Int32Array; targetIds: Int32Array }[];
  /**
   * where[r][i]: for each trained token i of input row r, [graph row, position] whose logits predict
   * it (target_ids there is ids[i]); undefined for untrained tokens.
   */
  where: ([number, number] | undefined)[][];
  /** Positions used over all graph rows (tree nodes, counting ancestors repeated across graph rows). */
  positions: number;
}

interface Node {
  token: number;
  depth: number;
  parent: Node | null;
  children: Map<number, Node[]>;
  /** The child whose token is trained from this node's logits (at most one). */
  trainedChild: Node | null;
  /** The row that trains this node's token (−1: none). */
  owner: number;
  id: number;
}

/**
 * Packs rows into graph rows of at most `capacity` positions (every row must fit: ids.length ≤
 * capacity). `share: false` only concatenates rows (block-diagonal causal attention), without merging
 * prefixes. Rows are placed in order, so keep related rows (one group, one trajectory) adjacent.
 */
export function packRows(rows: PackInput[], capacity: number, opts: { share?: boolean; pad?: number; order?: 'given' | 'prefix' } = {}): Packing {
  const share = opts.share ?? true, pad = opts.pad ?? 0;
  let nextId = 0;
  const mk = (token: number, parent: Node | null): Node => ({
    token, depth: parent ? parent.depth + 1 : 0, parent, children: new Map(), trainedChild: null, owner: -1, id: nextId++,
  });
  const root = mk(-1, null);
  root.depth = -1;
  const addChild = (p: Node, n: Node) => {
    const list = p.children.get(n.token);
    if (list) list.push(n); else p.children.set(n.token, [n]);
  };
  const paths: Node[][] = [];
  const predictors: [number, Node][][] = [];
  rows.forEach((row, r) => {
    const preds: [number, Node][] = [];
    const L = row.ids.length;
    if (L > capacity) throw new Error(`row ${r} has ${L} tokens, more than the packing capacity ${capacity}`);
    const path: Node[] = [];
    // Without sharing each row gets its own root, so nothing is merged.
    let cur = share ? root : mk(-1, null);
    if (!share) cur.depth = -1;
    for (let i = 0; i < L; i++) {
      const x = row.ids[i];
      const trained = i > 0 && !!row.trained[i];
      let next: Node | undefined;
      if (!trained) {
        next = cur.children.get(x)?.[0];
        if (!next) { next = mk(x, cur); addChild(cur, next); }
      } else {
        if (cur.trainedChild) {
          // cur's logits already serve another target: continue from a copy of cur.
          const copy = mk(cur.token, cur.parent);
          addChild(cur.parent!, copy);
          path[path.length - 1] = copy;
          cur = copy;
        }
        next = cur.children.get(x)?.find((c) => c.owner < 0);
        if (!next) { next = mk(x, cur); addChild(cur, next); }
        next.owner = r;
        cur.trainedChild = next;
        preds.push([i, cur]);
      }
      path.push(next);
      cur = next;
    }
    paths.push(path);
    predictors.push(preds);
  });

  // Greedy placement: a row goes into the current graph row with whatever of its path is not there yet.
  // In 'prefix' order (default) rows are placed in lexicographic token order, so rows that share a
  // prefix (a task's samples, one role's system prompt) land in the same graph row and share it there.
  const out: Packing = { rows: [], where: rows.map(() => []), positions: 0 };
  const order = rows.map((_, r) => r);
  if ((opts.order ?? 'prefix') === 'prefix') order.sort((x, y) => compareTokens(rows[x].ids, rows[y].ids) || x - y);
  let slot = new Map<Node, number>();
  let nodes: Node[] = [];
  const flush = () => {
    if (!nodes.length) return;
    const n = nodes.length;
    const inputIds = new Int32Array(n), positionIds = new Int32Array(n), parent = new Int32Array(n), targetIds = new Int32Array(n).fill(pad);
    nodes.forEach((nd, t) => {
      inputIds[t] = nd.token; positionIds[t] = nd.depth;
      parent[t] = nd.parent && slot.has(nd.parent) ? slot.get(nd.parent)! : -1;
      if (nd.trainedChild) targetIds[t] = nd.trainedChild.token;
    });
    out.rows.push({ length: n, inputIds, positionIds, parent, targetIds });
    out.positions += n;
    slot = new Map(); nodes = [];
  };
  order.forEach((r) => {
    const path = paths[r];
    const missing = path.reduce((s, nd) => s + (slot.has(nd) ? 0 : 1), 0);
    if (nodes.length + missing > capacity) flush();
    for (const nd of path) if (!slot.has(nd)) { slot.set(nd, nodes.length); nodes.push(nd); }
    const g = out.rows.length; // index this graph row will get when flushed
    for (const [i, nd] of predictors[r]) out.where[r][i] = [g, slot.get(nd)!];
  });
  flush();
  return out;
}

function compareTokens(a: ArrayLike<number>, b: ArrayLike<number>): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
}

/** Attention pairs (B·T²) per graph call: bounds the [B, heads, T, T] tensors, whose element-wise work is memory-bound. */
export const MAX_PAIRS_PER_CALL = 2 ** 20;

/**
 * Relative cost of training on a packing with graph rows padded to `bucket(length)`: positions times
 * the per-token work (projections, MLP, LM head and one-hot embedding), attention pairs (the graph
 * computes every T×T pair), and a fixed cost per graph call (parameters in, gradients out, many small
 * kernels; about 300 positions' worth on the `small` preset in Node). Used to choose a packing capacity.
 */
export function packingCost(p: Packing, bucket: (n: number) => number, dims: ModelDims, maxPairs = MAX_PAIRS_PER_CALL): number {
  const { hidden: d, inter: f, vocab: V, layers: L } = dims;
  const perPos = L * (4 * d * d + 3 * d * f) + 2 * d * V, perPair = L * 2 * d;
  const rowsOfT = new Map<number, number>();
  let cost = 0;
  for (const r of p.rows) { const T = bucket(r.length); cost += perPos * T + perPair * T * T; rowsOfT.set(T, (rowsOfT.get(T) ?? 0) + 1); }
  for (const [T, n] of rowsOfT) cost += 300 * perPos * Math.ceil(n / Math.max(1, Math.floor(maxPairs / (T * T))));
  return cost;
}

const BUCKETS = [64, 128, 256, 512, 1024, 2048, 4096, 8192];

/** Graph-row length for `n` positions: the smallest bucket that fits, never beyond max(capacity, n). */
export function bucketLength(n: number, capacity: number): number {
  return Math.min(BUCKETS.find((b) => b >= n) ?? capacity, Math.max(capacity, n));
}

export interface ModelDims { hidden: number; inter: number; vocab: number; layers: number }

/**
 * packRows with the given capacity, or else the cheapest (packingCost) of 1, 2 and 4 × the longest
 * row's bucket, up to 1024: bigger graph rows share more prefixes but pay T² attention.
 */
export function packAuto(rows: PackInput[], dims: ModelDims, opts: { capacity?: number; share?: boolean; pad?: number } = {}): { packing: Packing; capacity: number } {
  if (opts.capacity) return { packing: packRows(rows, opts.capacity, opts), capacity: opts.capacity };
  const longest = Math.max(1, ...rows.map((r) => r.ids.length));
  let best: { packing: Packing; capacity: number; cost: number } | null = null;
  const base = BUCKETS.find((b) => b >= longest) ?? longest;
  // Never beyond 1024 positions unless one row needs it: T² attention tensors grow fast in memory and time.
  for (const capacity of [base, base * 2, base * 4].filter((c, i) => i === 0 || c <= 1024)) {
    const packing = packRows(rows, capacity, opts);
    const cost = packingCost(packing, (n) => bucketLength(n, capacity), dims);
    if (!best || cost < best.cost) best = { packing, capacity, cost };
  }
  return { packing: best!.packing, capacity: best!.capacity };
}

/**
 * The given graph rows of a packing as one [B, T] batch (T ≥ every row's length): right-padded; a pad
 * position attends only to itself. Per-token fields start zeroed; fill them through `where`.
 */
export function packedBatch(p: Packing, graphRows: number[], T: number, pad = 0, selected?: number[][], N = T): PackedBatch {
  const B = graphRows.length;
  const inputIds = new Int32Array(B * T).fill(pad), positionIds = new Int32Array(B * T), targetIds = new Int32Array(B * T).fill(pad);
  const attentionBias = new Float32Array(B * T * T).fill(NEG_INF);
  for (let b = 0; b < B; b++) {
    const row = p.rows[graphRows[b]];
    if (row.length > T) throw new Error(`graph row of ${row.length} positions does not fit T=${T}`);
    inputIds.set(row.inputIds, b * T); positionIds.set(row.positionIds, b * T); targetIds.set(row.targetIds, b * T);
    const base = b * T * T;
    for (let t = 0; t < T; t++) {
      if (t >= row.length) { attentionBias[base + t * T + t] = 0; continue; }
      // A node sees itself and its ancestors, all placed earlier in the same graph row.
      for (let a = t; a >= 0; a = row.parent[a]) attentionBias[base + t * T + a] = 0;
    }
  }
  if (!selected) return { batch: B, seq: T, inputIds, positionIds, attentionBias, targetIds, lossWeight: new Float32Array(B * T), scored: T };
  const select = new Float32Array(B * N * T), targets = new Int32Array(B * N).fill(pad);
  selected.forEach((ts, b) => ts.forEach((t, k) => { select[(b * N + k) * T + t] = 1; targets[b * N + k] = targetIds[b * T + t]; }));
  return { batch: B, seq: T, inputIds, positionIds, attentionBias, select, scored: N, targetIds: targets, lossWeight: new Float32Array(B * N) };
}

/** One graph call: graph rows of one length T, and where each of them sits in the call's batch. */
export interface PackedCall { T: number; graphRows: number[]; batch: PackedBatch }

/**
 * Graph rows grouped into calls: rows of one bucket length share a call, at most `maxPairs` attention
 * pairs (B·T²) per call, which bounds the memory of the [B, heads, T, T] attention tensors. Fewer calls
 * matter: each graph run has a fixed cost (parameters in, gradients out, hundreds of small kernels).
 */
/**
 * `select`: score only the positions trained tokens need (PackedBatch.select). Off by default: in
 * onnxruntime-node on 2 cores the select MatMul and its gradient cost more than the smaller LM head saves
 * (measured on `small`: T=1024, 256 scored, 793 vs 622 ms); worth trying with a larger vocabulary.
 */
export function packedCalls(p: Packing, capacity: number, opts: { pad?: number; maxPairs?: number; select?: boolean } = {}): { calls: PackedCall[]; at: (g: number, t: number) => [number, number] } {
  const maxPairs = opts.maxPairs ?? MAX_PAIRS_PER_CALL;
  // The positions whose logits some trained token needs, per graph row (in position order).
  const scoredIn: number[][] = p.rows.map(() => []);
  for (const ws of p.where) for (const w of ws) if (w) scoredIn[w[0]].push(w[1]);
  scoredIn.forEach((ts) => ts.sort((a, b) => a - b));
  const slotOf = new Map<string, number>();
  const byT = new Map<number, number[]>();
  p.rows.forEach((r, g) => { const T = bucketLength(r.length, capacity); (byT.get(T) ?? byT.set(T, []).get(T)!).push(g); });
  const calls: PackedCall[] = [];
  const where = new Map<number, [number, number]>(); // graph row → [call, batch row]
  for (const [T, gs] of [...byT.entries()].sort((a, b) => a[0] - b[0])) {
    const per = Math.max(1, Math.floor(maxPairs / (T * T)));
    for (let i = 0; i < gs.length; i += per) {
      const graphRows = gs.slice(i, i + per);
      graphRows.forEach((g, b) => where.set(g, [calls.length, b]));
      const most = Math.max(...graphRows.map((g) => scoredIn[g].length));
      const N = 2 ** Math.ceil(Math.log2(Math.max(16, most))); // few distinct shapes
      const select = (opts.select ?? false) && N < T;
      if (select) graphRows.forEach((g) => scoredIn[g].forEach((t, k) => slotOf.set(`${g}:${t}`, k)));
      calls.push({ T, graphRows, batch: select ? packedBatch(p, graphRows, T, opts.pad, graphRows.map((g) => scoredIn[g]), N) : packedBatch(p, graphRows, T, opts.pad) });
    }
  }
  return {
    calls,
    at: (g, t) => {
      const [c, b] = where.get(g)!;
      const { batch } = calls[c];
      return [c, batch.select ? b * batch.scored + slotOf.get(`${g}:${t}`)! : b * calls[c].T + t];
    },
  };
}

/**
 * Next-token rows (`weights[i]` > 0: token i is learned, as makeLmBatch's weights) packed (packAuto),
 * one PackedBatch per graph row. lossWeight is weight / Σ weights over all rows, so Σ over the batches
 * of the packed 'ce' loss equals makeLmBatch's masked token-mean over the same rows.
 */
export function packLmRows(rows: { ids: ArrayLike<number>; weights: ArrayLike<number> }[], dims: ModelDims,
  opts: { capacity?: number; pad?: number; share?: boolean } = {}): PackedBatch[] {
  const { packing: p, capacity } = packAuto(rows.map((r) => ({ ids: r.ids, trained: Array.from(r.weights, (w, i) => (i > 0 && w > 0 ? 1 : 0)) })), dims, opts);
  let total = 0;
  rows.forEach((r) => { for (let i = 1; i < r.ids.length; i++) if (r.weights[i] > 0) total += r.weights[i]; });
  const { calls, at } = packedCalls(p, capacity, { pad: opts.pad });
  rows.forEach((r, k) => {
    p.where[k].forEach((w, i) => {
      if (!w) return;
      const [c, x] = at(w[0], w[1]);
      calls[c].batch.lossWeight[x] = r.weights[i] / Math.max(total, 1e-12);
    });
  });
  return calls.map((c) => c.batch);
}

/** Model dimensions for packingCost from an HF-style config. */
export const modelDims = (c: { hidden_size: number; intermediate_size: number; vocab_size: number; num_hidden_layers: number }): ModelDims =>
  ({ hidden: c.hidden_size, inter: c.intermediate_size, vocab: c.vocab_size, layers: c.num_hidden_layers });
