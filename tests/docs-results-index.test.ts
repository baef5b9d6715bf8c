// docs/results/index.md covers every committed result (issue 40): each file under docs/results/ is matched by a row
// that names the command that wrote it, its commit and date; a row that matches nothing is stale.

import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const ROOT = 'docs/results/';
const OWN = new Set(['README.md', 'index.md']);

interface Row { patterns: string[]; command: string; commit: string; date: string; relation: string }

function rows(): Row[] {
  return readFileSync(`${ROOT}index.md`, 'utf8').split('\n')
    .filter((l) => l.startsWith('| `'))
    .map((l) => {
      const cells = l.slice(1, -1).split(/(?<!\\)\|/).map((c) => c.trim());
      return { patterns: [...cells[0]!.matchAll(/`([^`]+)`/g)].map((m) => m[1]!), command: cells[2]!, commit: cells[3]!, date: cells[4]!, relation: cells[5]! };
    });
}

/** A row's pattern: a folder (trailing /) covers everything under it; * matches within one path segment. */
function matches(pattern: string, file: string): boolean {
  if (pattern.endsWith('/')) return file.startsWith(pattern);
  const re = new RegExp(`^${pattern.split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('[^/]*')}$`);
  return re.test(file);
}

const FILES = (readdirSync(ROOT, { recursive: true }) as string[])
  .map((f) => f.split('\\').join('/'))
  .filter((f) => !OWN.has(f) && /\.[a-z0-9]+$/i.test(f));

describe('docs/results/index.md', () => {
  const index = rows();

  it('has rows, each with a command, a commit, a date and what it supersedes or what superseded it', () => {
    expect(index.length).toBeGreaterThan(10);
    for (const r of index) {
      expect(r.command, r.patterns.join()).toMatch(/npm run|tsx /);
      expect(r.commit, r.patterns.join()).toMatch(/^[0-9a-f]{7,40}$/);
      expect(r.date, r.patterns.join()).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(r.relation.length, r.patterns.join()).toBeGreaterThan(0);
    }
  });

  it('covers every file under docs/results/ (add a row for a new result)', () => {
    const uncovered = FILES.filter((f) => !index.some((r) => r.patterns.some((p) => matches(p, f))));
    expect(uncovered).toEqual([]);
  });

  it('every row matches a file (a moved or deleted result updates its row)', () => {
    const stale = index.flatMap((r) => r.patterns).filter((p) => !FILES.some((f) => matches(p, f)));
    expect(stale).toEqual([]);
  });

  it('superseded results that moved live under archive/, and only those', () => {
    for (const r of index) {
      const archived = r.patterns.some((p) => p.startsWith('archive/'));
      expect(archived, r.patterns.join()).toBe(/moved to `archive\/`/.test(r.relation));
      if (archived) expect(r.relation, r.patterns.join()).toMatch(/^superseded by /);
    }
  });
});
