// Supervised (SFT) batches: the rows of `npm run sft` and the two ways to train a step on them.
// - reference (the pretrain loop before packing): the picked rows padded to their common length bucket,
//   one [rows, bucket] graph call;
// - packed (engine/packing.ts): the same rows merged into a prefix tree (they share the system prompt and
//   tool list) and packed into graph rows of `capacity` positions; equal loss and gradients.
import { TINY_PROFILE, type PromptProfile } from '../agent/profile';
import type { SftExample } from '../agent/sft';
import { packLmRows, type ModelDims, type PackedBatch } from '../engine/packing';
import type { Rng } from '../engine/rng';
import type { BPETokenizer } from '../engine/tokenizer';
import { makeLmBatch, type LmBatch } from '../engine/trainer-core';

/** The prompt profile pretrain builds its SFT examples with. */
export const SFT_PROFILE: PromptProfile = { ...TINY_PROFILE, rehearse: { ...TINY_PROFILE.rehearse, maxNewTokens: 320 } };

export interface SftRow { role: string; ids: number[]; weights: number[] }

/** Prompt tokens are context (weight 0); target tokens are learned (weight 1), in both roles. */
export function sftTokenRows(examples: SftExample[], tok: BPETokenizer, maxContext: number): SftRow[] {
  const out: SftRow[] = [];
  for (const e of examples) {
    const p = tok.encode(e.prompt), t = tok.encode(e.target);
    const ids = [...p, ...t];
    if (ids.length > maxContext) continue;
    out.push({ role: e.role, ids, weights: [...p.map(() => 0), ...t.map(() => 1)] });
  }
  return out;
}

/** The rows of each task's conversation, in conversation order (tasks whose rows all exceed the context dropped). */
export function sftConversationRows(examples: SftExample[], tok: BPETokenizer, maxContext: number): SftRow[][] {
  const byTask = new Map<string, SftExample[]>();
  for (const e of examples) (byTask.get(e.taskId) ?? byTask.set(e.taskId, []).get(e.taskId)!).push(e);
  return [...byTask.values()].map((ex) => sftTokenRows(ex, tok, maxContext)).filter((rows) => rows.length > 0);
}

/**
 * Rehearse rows with one span of their target weighted ×w. `span` reads the target a token at a time (`piece(i)`:
 * the i-th target token, decoded) and returns the span's first and last target index, or null to leave the row.
 */
function spanWeighted(rows: SftRow[], tok: BPETokenizer, w: number, span: (piece: (i: number) => string, n: number) => [number, number] | null): SftRow[] {
  if (w === 1) return rows;
  return rows.map((r) => {
    if (r.role !== 'rehearse') return r;
    const first = r.weights.findIndex((x) => x > 0);
    if (first < 0) return r;
    const s = span((i) => tok.decode([r.ids[first + i]]), r.ids.length - first);
    if (!s) return r;
    const [from, to] = [first + s[0], first + s[1]];
    return { ...r, weights: r.weights.map((x, i) => (i >= from && i <= to ? x * w : x)) };
  });
}

/**
 * `npm run sft --decision-weight`: a Rehearse target opens with `<execution_result>` and a JSON object whose first key
 * says whether the call failed ({"error…) or what it returned. That one token is what error agreement measures, and it
 * is 1 of a 10–300-token target: its weight (and the `{"` before it) is multiplied by `w`.
 */
export function decisionWeighted(rows: SftRow[], tok: BPETokenizer, w: number): SftRow[] {
  return spanWeighted(rows, tok, w, (piece, n) => {
    // After the `<think>` a target may open with (`--think-state`), the first `{"` of the result.
    let text = '';
    for (let i = 0; i < n; i++) {
      text += piece(i);
      const open = text.indexOf('<execution_result>');
      if (open >= 0 && text.indexOf('{"', open) >= 0) return [i, i + 1];
    }
    return null;
  });
}

/**
 * A state think's facts (`<think>~/docs: a.txt, old/; plan.md: absent</think>`: the tokens after the line's `;` up
 * to `</think>`) weighted ×w. The facts are a lookup of the called names in the line; in the expert rows the call
 * alone predicts them (a `cd` names a folder, a `cat` a file), so at weight 1 the lookup gets little gradient.
 */
export function factWeighted(rows: SftRow[], tok: BPETokenizer, w: number): SftRow[] {
  return spanWeighted(rows, tok, w, (piece, n) => {
    if (piece(0) !== '<think>') return null;
    let text = '', from = -1;
    for (let i = 1; i < n; i++) {
      text += piece(i);
      if (from < 0 && text.includes(';')) from = i + 1;
      if (text.includes('</think>')) return from < 0 || i - 1 < from ? null : [from, i - 1]; // `</think>` keeps its weight
    }
    return null;
  });
}

export const sftBuckets = (maxContext: number) => [128, 256, 512, 1024, 2048].filter((b) => b <= maxContext);

export function bucketOf(n: number, buckets: number[]): number {
  return buckets.find((b) => b >= n) ?? buckets[buckets.length - 1];
}

/** One step's rows: rows of similar length (one bucket, picked through a random anchor), drawn with replacement. */
export function pickSftRows(rows: SftRow[], rng: Rng, batchSize: number, buckets: number[]): SftRow[] {
  const anchor = rows[rng.int(rows.length)];
  const T = bucketOf(anchor.ids.length, buckets);
  const pool = rows.filter((r) => bucketOf(r.ids.length, buckets) === T);
  return Array.from({ length: batchSize }, () => pool[rng.int(pool.length)]);
}

export function referenceSftBatch(pick: SftRow[], buckets: number[]): LmBatch {
  const T = bucketOf(Math.max(...pick.map((r) => r.ids.length)), buckets);
  return makeLmBatch(pick.map((r) => r.ids), T, { pad: 0, weights: pick.map((r) => r.weights) });
}

export function packedSftBatches(pick: SftRow[], dims: ModelDims, capacity?: number): PackedBatch[] {
  return packLmRows(pick, dims, { capacity, pad: 0 });
}

export const trainedTokens = (pick: SftRow[]) => pick.reduce((s, r) => s + r.weights.reduce((a, w, i) => a + (i > 0 && w > 0 ? 1 : 0), 0), 0);
