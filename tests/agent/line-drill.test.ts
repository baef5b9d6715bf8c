import { describe, expect, it } from 'vitest';
import { lineDrill } from '../../src/agent/line-drill';
import { Rng } from '../../src/engine/rng';
import { FILE_NAME_WORDS } from '../../src/envs/worlds/files/tree';

describe('the state-line drill', () => {
  const rows = lineDrill(new Rng(4), 200);
  const parse = (target: string) => /^<think>(.*); (.*): (file|folder|absent)<\/think>$/.exec(target);

  it('asks for the line of the folder the cds lead to, copied verbatim from the tree', () => {
    for (const r of rows) {
      const m = parse(r.target)!;
      expect(m).not.toBeNull();
      const lines = r.prompt.split('\n');
      expect(lines).toContain(m[1]);
      const cds = [...r.prompt.matchAll(/"folder":"([^"]+)"\}\}\n<\/tool_call>/g)].map((x) => x[1]);
      expect(m[1].split(':')[0]).toBe(['~', ...cds].join('/'));
      expect(r.prompt).toContain(`":"${m[2]}"}<|end|>`);
    }
  });

  it('states what the called name is in that folder, with every answer represented', () => {
    const facts = { file: 0, folder: 0, absent: 0 };
    for (const r of rows) {
      const [, line, name, fact] = parse(r.target)!;
      const entries = line.split(': ')[1]?.split(', ') ?? [];
      const want = entries.includes(name) ? 'file' : entries.includes(`${name}/`) ? 'folder' : 'absent';
      expect(fact).toBe(want);
      facts[fact as keyof typeof facts]++;
    }
    for (const n of Object.values(facts)) expect(n).toBeGreaterThan(15);
    // An absent name is often one the tree has elsewhere: the line, not the whole message, decides.
    expect(rows.filter((r) => parse(r.target)![3] === 'absent' && r.prompt.split('Call to execute')[0].includes(parse(r.target)![2])).length).toBeGreaterThan(15);
  });

  it('uses random names, none from the world\'s pools, and is deterministic for a seed', () => {
    const pat = new RegExp(`(?<![A-Za-z])(${FILE_NAME_WORDS.join('|')})(?![A-Za-z])`);
    for (const r of rows) expect(r.prompt.split('My folders:')[1] + r.target).not.toMatch(pat);
    expect(lineDrill(new Rng(4), 200)).toEqual(rows);
    expect(lineDrill(new Rng(5), 5)).not.toEqual(rows.slice(0, 5));
  });
});

describe('the state-line drill with real names', () => {
  it('keeps the world\'s names in about the asked share of rows, and the answers stay right', () => {
    const rows = lineDrill(new Rng(6), 200, 'line', 0.5);
    const pat = new RegExp(`(?<![A-Za-z])(${FILE_NAME_WORDS.join('|')})(?![A-Za-z])`);
    const real = rows.filter((r) => pat.test(r.prompt.split('My folders:')[1]));
    expect(real.length).toBeGreaterThan(70);
    expect(real.length).toBeLessThan(130);
    for (const r of real) expect(r.prompt.split('\n')).toContain(/^<think>(.*); /.exec(r.target)![1]);
  });
});

describe('the state-line drill with a set share of present names (--line-present)', () => {
  it('names an entry of the folder in about that share of rows, so "absent" alone no longer scores two in three', () => {
    const rows = lineDrill(new Rng(7), 400, 'line', 1, 0.5);
    const absent = rows.filter((r) => r.target.endsWith(': absent</think>')).length;
    expect(absent).toBeGreaterThan(160);
    expect(absent).toBeLessThan(240);
    // Absent names are ones the tree holds elsewhere, and folders are named on both sides: the name's form does not
    // give the answer away, the line does.
    const elsewhere = rows.filter((r) => { const m = /; (.*): absent<\/think>$/.exec(r.target); return m && r.prompt.split('Call to execute')[0].includes(m[1]); }).length;
    expect(elsewhere).toBeGreaterThan(absent * 0.9);
    const bare = (want: RegExp) => rows.filter((r) => { const m = /; ([^;]*): (\w+)<\/think>$/.exec(r.target)!; return want.test(m[2]) && !m[1].includes('.'); }).length;
    expect(bare(/absent/)).toBeGreaterThan(absent / 4);
    expect(bare(/folder/)).toBeGreaterThan(40);
    // Without the option the old thirds, draw for draw.
    const thirds = lineDrill(new Rng(7), 400, 'line', 1);
    expect(thirds.filter((r) => r.target.endsWith(': absent</think>')).length).toBeGreaterThan(230);
    expect(lineDrill(new Rng(7), 400, 'line', 1, 0.5)).toEqual(rows);
  });
});

describe('reading a state think', () => {
  it('splits line, path, entries and facts, and scores entry overlap', async () => {
    const { stateThinkParts, entryOverlap } = await import('../../src/agent/line-drill');
    const p = stateThinkParts('<think>~/docs: a.txt, old/; plan.md: absent; old: folder</think>');
    expect(p).toEqual({ line: '~/docs: a.txt, old/', path: '~/docs', entries: new Set(['a.txt', 'old/']), facts: 'plan.md: absent; old: folder' });
    expect(entryOverlap('<think>~/docs: a.txt, b.txt</think>', '<think>~/docs: a.txt, old/</think>')).toBeCloseTo(1 / 3);
    expect(entryOverlap('<think>~: x</think>', '<think>~: y</think>')).toBe(0);
  });
});
