// Identifier scrambling for SFT conversations: one conversation's names and numeric ids replaced by random
// ones, consistently across every row of that conversation (user message, tool calls, tool results,
// Rehearse prompts). A small model trained on the worlds' fixed name pools learns a prior over names
// ("Priya Wong" for "Jamal Wong") long before it learns to copy; with random identifiers the prior is
// useless and only copying lowers the loss. Prices are left alone (replies do arithmetic on them).

import type { Rng } from '../engine/rng';
import type { SftExample } from './sft';

export interface ScrambleOptions {
  /** Words (capitalised, e.g. first and last names) replaced with random pseudo-words, in either case. */
  words: string[];
  /** Digit runs at least this long are replaced with random digits of the same length (default 2). */
  minDigits?: number;
}

const CONSONANTS = 'bdfghklmnprstvz';
const VOWELS = 'aeiou';

function pseudoWord(rng: Rng): string {
  const syllables = 2 + rng.int(2);
  let w = '';
  for (let i = 0; i < syllables; i++) w += CONSONANTS[rng.int(CONSONANTS.length)] + VOWELS[rng.int(VOWELS.length)];
  if (rng.int(2) === 1) w += CONSONANTS[rng.int(CONSONANTS.length)];
  return w;
}

const capital = (w: string) => w[0].toUpperCase() + w.slice(1);

/** A replacement map for one conversation: injective, never mapping onto another original. */
function makeMap(texts: string[], rng: Rng, opts: ScrambleOptions): Map<string, string> {
  const map = new Map<string, string>();
  const taken = new Set<string>();
  const all = texts.join('\n');
  const fresh = (make: () => string, avoid: (s: string) => boolean) => {
    for (;;) { const s = make(); if (!taken.has(s) && !avoid(s)) { taken.add(s); return s; } }
  };
  for (const w of opts.words) {
    if (!new RegExp(`(?<![A-Za-z])(${w}|${w.toLowerCase()})(?![A-Za-z])`).test(all)) continue;
    const lower = fresh(() => pseudoWord(rng), (s) => opts.words.some((x) => x.toLowerCase() === s));
    map.set(w, capital(lower));
    map.set(w.toLowerCase(), lower);
  }
  const minDigits = opts.minDigits ?? 2;
  for (const m of all.matchAll(DIGITS)) {
    const d = m[0];
    if (d.length < minDigits || map.has(d)) continue;
    map.set(d, fresh(() => Array.from({ length: d.length }, () => String(rng.int(10))).join(''), (s) => s !== d && all.includes(s)));
  }
  return map;
}

// A digit run that is not part of a decimal number or an amount ('$110.44', '36.12').
const DIGITS = /(?<![\d.$])\d+(?![\d]|\.\d)/g;

function apply(text: string, map: Map<string, string>, words: string[]): string {
  let out = text.replace(DIGITS, (d) => map.get(d) ?? d);
  for (const w of words) {
    for (const form of [w, w.toLowerCase()]) {
      const to = map.get(form);
      if (to) out = out.replace(new RegExp(`(?<![A-Za-z])${form}(?![A-Za-z])`, 'g'), to);
    }
  }
  return out;
}

/** Scramble the identifiers of each task's examples (one map per task), keeping rows in order. */
export function scrambleExamples(examples: SftExample[], rng: Rng, opts: ScrambleOptions): SftExample[] {
  const byTask = new Map<string, SftExample[]>();
  for (const e of examples) (byTask.get(e.taskId) ?? byTask.set(e.taskId, []).get(e.taskId)!).push(e);
  const maps = new Map<string, Map<string, string>>();
  for (const [id, ex] of byTask) maps.set(id, makeMap(ex.flatMap((e) => [e.prompt, e.target]), rng, opts));
  return examples.map((e) => {
    const m = maps.get(e.taskId)!;
    return { ...e, prompt: apply(e.prompt, m, opts.words), target: apply(e.target, m, opts.words) };
  });
}
