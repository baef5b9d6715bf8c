// The fuzzy matching VitaBench's tools rank with: thefuzz.process.extract(query, docs,
// scorer=fuzz.partial_ratio, limit=None) over rapidfuzz 3.x, and thefuzz's fuzz.ratio.
// Strings are compared as Unicode code points after rapidfuzz's default_process. Scores are the raw
// float similarity in [0, 100]; extract sorts on the raw float and reports int(round(x)).

import { pyRound } from '../tau2/py';

const ALNUM = /[\p{L}\p{Nd}\p{Nl}\p{No}]/u;

/** rapidfuzz.utils.default_process: alphanumerics lower-cased, everything else a space, then trimmed. */
export function defaultProcess(s: string): number[] {
  const out: number[] = [];
  for (const ch of s) {
    if (!ALNUM.test(ch)) { out.push(32); continue; }
    const low = ch.toLowerCase();
    // rapidfuzz maps one code point to one code point; a multi-code-point lowering is left alone.
    out.push([...low].length === 1 ? low.codePointAt(0)! : ch.codePointAt(0)!);
  }
  let a = 0, b = out.length;
  while (a < b && out[a] === 32) a++;
  while (b > a && out[b - 1] === 32) b--;
  return out.slice(a, b);
}

export const codePoints = (s: string): number[] => [...s].map((c) => c.codePointAt(0)!);

function buildMasks(a: number[], from: number, to: number): Map<number, Uint32Array> {
  const words = Math.ceil((to - from) / 32);
  const masks = new Map<number, Uint32Array>();
  for (let i = 0; i < to - from; i++) {
    const c = a[from + i];
    let m = masks.get(c);
    if (!m) { m = new Uint32Array(words); masks.set(c, m); }
    m[i >>> 5] |= 1 << (i & 31);
  }
  return masks;
}

// A needle is matched against many windows: build its bit masks once.
const maskCache = new WeakMap<number[], Map<number, Uint32Array>>();
function cachedMasks(a: number[]): Map<number, Uint32Array> {
  let m = maskCache.get(a);
  if (!m) { m = buildMasks(a, 0, a.length); maskCache.set(a, m); }
  return m;
}

/** Length of the longest common subsequence, bit-parallel over 32-bit words (Hyyrö). */
export function lcsLength(a: number[], b: number[], aFrom = 0, aTo = a.length, bFrom = 0, bTo = b.length): number {
  const n = aTo - aFrom;
  if (n === 0 || bTo - bFrom === 0) return 0;
  const words = Math.ceil(n / 32);
  const masks = aFrom === 0 && aTo === a.length ? cachedMasks(a) : buildMasks(a, aFrom, aTo);
  const S = new Uint32Array(words).fill(0xffffffff);
  for (let j = bFrom; j < bTo; j++) {
    const m = masks.get(b[j]);
    if (!m) continue;
    let carry = 0;
    for (let w = 0; w < words; w++) {
      const s = S[w];
      const u = (s & m[w]) >>> 0;
      const sum = s + u + carry;
      carry = sum > 0xffffffff ? 1 : 0;
      S[w] = ((sum >>> 0) | (s - u)) >>> 0;
    }
  }
  let zeros = 0;
  for (let i = 0; i < n; i++) if (((S[i >>> 5] >>> (i & 31)) & 1) === 0) zeros++;
  return zeros;
}

/** rapidfuzz's Indel normalized similarity scaled to 0..100, computed the way it computes it. */
function ratioOfRange(a: number[], b: number[], bFrom: number, bTo: number): number {
  const max = a.length + (bTo - bFrom);
  if (max === 0) return 100;
  const dist = max - 2 * lcsLength(a, b, 0, a.length, bFrom, bTo);
  return (1 - dist / max) * 100;
}

/**
 * rapidfuzz-cpp's partial_ratio_impl (needle no longer than hay): full-length windows are searched
 * branch-and-bound (a window range is split only while its lower bound could beat the best distance
 * so far, so the bound decides which windows are ever scored), then prefixes ending and suffixes
 * starting in a needle character. Reproduced step for step because the pruning is not exhaustive.
 */
function partialImpl(needle: number[], hay: number[], scoreCutoff: number): number {
  const len1 = needle.length, len2 = hay.length;
  const chars = new Set(needle);
  let best = 0;
  let cutoff = scoreCutoff;
  if (len2 > len1) {
    const maximum = 2 * len1;
    let cutoffDist = Math.ceil(maximum * Math.min(1, 1 - cutoff / 100 + 0.00001));
    let bestDist = Infinity;
    const scores = new Array<number>(len2 - len1).fill(-1);
    const dist = (start: number) => maximum - 2 * lcsLength(needle, hay, 0, len1, start, start + len1);
    let windows: [number, number][] = [[0, len2 - len1 - 1]];
    while (windows.length) {
      const next: [number, number][] = [];
      for (const [a, b] of windows) {
        for (const w of [a, b]) {
          if (scores[w] >= 0) continue;
          scores[w] = dist(w);
          if (scores[w] < cutoffDist) {
            cutoffDist = bestDist = scores[w];
            if (bestDist === 0) return 100;
          }
        }
        const cellDiff = b - a;
        if (cellDiff === 1) continue;
        const knownEdits = Math.abs(scores[a] - scores[b]);
        const maxImprovement = Math.floor((cellDiff - Math.floor(knownEdits / 2)) / 2) * 2;
        if (Math.min(scores[a], scores[b]) - maxImprovement < cutoffDist) {
          const center = Math.floor(cellDiff / 2);
          next.push([a, a + center], [a + center, b]);
        }
      }
      windows = next;
    }
    const score = (1 - bestDist / maximum) * 100;
    if (score >= cutoff) cutoff = best = score;
  }
  const consider = (from: number, to: number): boolean => {
    const r = ratioOfRange(needle, hay, from, to);
    if (r >= cutoff && r > best) {
      cutoff = best = r;
      return r === 100;
    }
    return false;
  };
  for (let i = 1; i < len1; i++) {
    if (chars.has(hay[i - 1]) && consider(0, i)) return 100;
  }
  for (let i = len2 - len1; i < len2; i++) {
    if (chars.has(hay[i]) && consider(i, len2)) return 100;
  }
  return best;
}

/** rapidfuzz fuzz.partial_ratio on already-processed code points. */
export function partialRatio(s1: number[], s2: number[]): number {
  if (s1.length === 0 && s2.length === 0) return 100;
  if (s1.length === 0 || s2.length === 0) return 0;
  const [shorter, longer] = s1.length <= s2.length ? [s1, s2] : [s2, s1];
  const score = partialImpl(shorter, longer, 0);
  if (score !== 100 && s1.length === s2.length) {
    const swapped = partialImpl(longer, shorter, score);
    if (swapped > score) return swapped;
  }
  return score;
}

/** thefuzz fuzz.ratio(x, y): unprocessed strings, int(round(indel similarity)). */
export function thefuzzRatio(x: string, y: string): number {
  const a = codePoints(x), b = codePoints(y);
  return pyRound(ratioOfRange(a, b, 0, b.length), 0);
}

export interface Ranked { index: number; doc: string; raw: number; score: number }

/**
 * thefuzz.process.extract(query, docs, scorer=partial_ratio, limit=None): every doc, best first
 * by the raw float (ties keep input order), each with its reported int(round(raw)) score.
 */
export function extractPartial(query: string, docs: string[]): Ranked[] {
  const q = defaultProcess(query);
  const ranked = docs.map((doc, index) => {
    const raw = partialRatio(q, defaultProcess(doc));
    return { index, doc, raw, score: pyRound(raw, 0) };
  });
  return ranked.sort((a, b) => b.raw - a.raw || a.index - b.index);
}

/**
 * vita.utils.rerank over an id → text dict: identical texts collapse onto the last id carrying them
 * (a reversed dict), so that id can appear more than once.
 */
export function rerank(keywords: string, docs: [string, string][]): { id: string; doc: string; score: number }[] {
  const lastId = new Map<string, string>();
  for (const [id, text] of docs) lastId.set(text, id);
  return extractPartial(keywords, docs.map(([, text]) => text)).map((r) => ({ id: lastId.get(r.doc)!, doc: r.doc, score: r.score }));
}
