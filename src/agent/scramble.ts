// Identifier scrambling for SFT conversations: one conversation's names and numeric ids replaced by random
// ones, consistently across every row of that conversation (user message, tool calls, tool results,
// Rehearse prompts). A small model trained on the worlds' fixed name pools learns a prior over names
// ("Priya Wong" for "Jamal Wong") long before it learns to copy; with random identifiers the prior is
// useless and only copying lowers the loss. Prices are left alone (replies do arithmetic on them).

import type { Rng } from '../engine/rng';
import { END_TOKEN, ROLE_TOKENS } from './chatTemplate';
import type { SftExample } from './sft';

export interface ScrambleOptions {
  /** Words (capitalised, e.g. first and last names) replaced with random pseudo-words, in either case. */
  words: string[];
  /** Digit runs at least this long are replaced with random digits of the same length (default 2). */
  minDigits?: number;
}

const CONSONANTS = 'bdfghklmnprstvz';
const VOWELS = 'aeiou';

/** A random lowercase pseudo-word of 2–3 consonant-vowel syllables (shared with the copying drill). */
export function pseudoWord(rng: Rng): string {
  const syllables = 2 + rng.int(2);
  let w = '';
  for (let i = 0; i < syllables; i++) w += CONSONANTS[rng.int(CONSONANTS.length)] + VOWELS[rng.int(VOWELS.length)];
  return w;
}
export const randomDigits = (rng: Rng, n: number) => Array.from({ length: n }, () => String(rng.int(10))).join('');
export const capital = (w: string) => w[0].toUpperCase() + w.slice(1);

/** A name-like pseudo-word: a pseudo-word, half the time closed by a consonant. */
function nameWord(rng: Rng): string {
  const w = pseudoWord(rng);
  return rng.int(2) === 1 ? w + CONSONANTS[rng.int(CONSONANTS.length)] : w;
}

const wordPattern = (forms: string[]) => new RegExp(`(?<![A-Za-z])(${forms.join('|')})(?![A-Za-z])`, 'g');

/** A replacement map for one conversation: injective, never mapping onto another original. */
function makeMap(texts: string[], rng: Rng, opts: ScrambleOptions): Map<string, string> {
  const map = new Map<string, string>();
  const taken = new Set<string>();
  const all = texts.join('\n');
  const fresh = (make: () => string, avoid: (s: string) => boolean) => {
    for (;;) { const s = make(); if (!taken.has(s) && !avoid(s)) { taken.add(s); return s; } }
  };
  for (const w of opts.words) {
    if (!wordPattern([w, w.toLowerCase()]).test(all)) continue;
    const lower = fresh(() => nameWord(rng), (s) => opts.words.some((x) => x.toLowerCase() === s));
    map.set(w, capital(lower));
    map.set(w.toLowerCase(), lower);
  }
  const minDigits = opts.minDigits ?? 2;
  for (const m of all.matchAll(DIGITS)) {
    const d = m[0];
    if (d.length < minDigits || map.has(d)) continue;
    map.set(d, fresh(() => randomDigits(rng, d.length), (s) => s !== d && all.includes(s)));
  }
  return map;
}

// A digit run that is not part of a decimal number or an amount ('$110.44', '36.12').
const DIGITS = /(?<![\d.$])\d+(?![\d]|\.\d)/g;

/** One pass: digit runs, then every mapped name form (a replacement is never another name, so order is moot). */
function apply(text: string, map: Map<string, string>, names: RegExp | null): string {
  const out = text.replace(DIGITS, (d) => map.get(d) ?? d);
  return names ? out.replace(names, (w) => map.get(w) ?? w) : out;
}

/** Scramble the identifiers of each task's examples (one map per task), keeping rows in order. */
export function scrambleExamples(examples: SftExample[], rng: Rng, opts: ScrambleOptions): SftExample[] {
  // A word the instructions use (the Rehearse role's "a tool not in the list") stays: the instructions are
  // the same in every conversation, and a name pool's common words ("list", "plan") must not reword them.
  const instructions = [...new Set(examples.map((e) => (e.prompt.startsWith(ROLE_TOKENS.system) ? e.prompt.slice(0, e.prompt.indexOf(END_TOKEN)) : '')))].join('\n');
  opts = { ...opts, words: opts.words.filter((w) => !wordPattern([w, w.toLowerCase()]).test(instructions)) };
  const byTask = new Map<string, SftExample[]>();
  for (const e of examples) (byTask.get(e.taskId) ?? byTask.set(e.taskId, []).get(e.taskId)!).push(e);
  const maps = new Map<string, Map<string, string>>();
  for (const [id, ex] of byTask) maps.set(id, makeMap(ex.flatMap((e) => [e.prompt, e.target]), rng, opts));
  const patterns = new Map([...maps].map(([id, m]) => {
    const forms = opts.words.flatMap((w) => [w, w.toLowerCase()]).filter((f) => m.has(f));
    return [id, forms.length ? wordPattern(forms) : null] as const;
  }));
  return examples.map((e) => {
    const m = maps.get(e.taskId)!, names = patterns.get(e.taskId)!;
    return { ...e, prompt: apply(e.prompt, m, names), target: apply(e.target, m, names) };
  });
}
