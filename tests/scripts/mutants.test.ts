// The find/replace of scripts/mutants.ts, and its mutant list against the current sources: a list whose
// find texts no longer match (code moved on) fails here rather than at the next `npm run mutants`.
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { applyMutation, countOccurrences, MUTANTS } from '../../scripts/mutants';

describe('mutants: find and replace', () => {
  it('replaces the single occurrence and nothing else', () => {
    expect(applyMutation('a = 1; b = 2;', 'b = 2', 'b = 3')).toBe('a = 1; b = 3;');
    expect(applyMutation('x\ny\nz', 'y\n', '')).toBe('x\nz');
    // `$&` and friends are literal text, not String.replace patterns
    expect(applyMutation('f(a)', 'a', '$&$&')).toBe('f($&$&)');
  });

  it('fails loudly when the text is missing, repeated or unchanged', () => {
    expect(() => applyMutation('abc', 'x', 'y', 'f.ts')).toThrow(/f\.ts: the find text occurs 0 times/);
    expect(() => applyMutation('if (a) continue; if (b) continue;', 'continue;', 'break;')).toThrow(/occurs 2 times/);
    expect(() => applyMutation('abc', 'b', 'b')).toThrow(/equals the find text/);
    expect(() => countOccurrences('abc', '')).toThrow(/empty/);
    expect(countOccurrences('aaaa', 'aa')).toBe(2);
  });
});

describe('mutants: the list', () => {
  it('has unique ids, and every find text occurs exactly once in its file in this checkout', () => {
    expect(new Set(MUTANTS.map((m) => m.id)).size).toBe(MUTANTS.length);
    expect(MUTANTS.length).toBeGreaterThanOrEqual(12);
    for (const m of MUTANTS) {
      expect(countOccurrences(readFileSync(m.file, 'utf8'), m.find), `${m.id} in ${m.file}`).toBe(1);
      expect(m.replace).not.toBe(m.find);
      expect(m.tests.length, m.id).toBeGreaterThan(0);
      for (const t of m.tests) expect(existsSync(t), `${m.id}: ${t}`).toBe(true);
    }
  });
});
