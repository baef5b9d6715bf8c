// The one CSV writer (src/shared/csv.ts): RFC 4180 quoting incl. \r, spreadsheet formulas neutralised, and every
// export of the app goes through it (no second escaper left in src/).

import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { csvCell, csvLine, csvTable } from '../../src/shared/csv';
import { metricsCsv } from '../../src/app/components/train/exports';
import { curveCsv } from '../../src/app/components/bench/CurveChart';
import type { RunRecord } from '../../src/app/components/train/runs';

/** A reader of the quoted format: cells of one line (the writer's inverse for lines without a raw newline). */
function parseLine(line: string): string[] {
  const out: string[] = [];
  let i = 0;
  for (;;) {
    if (line[i] === '"') {
      let s = '';
      i++;
      for (;;) {
        if (line[i] === '"' && line[i + 1] === '"') { s += '"'; i += 2; } else if (line[i] === '"') { i++; break; } else { s += line[i]; i++; }
      }
      out.push(s);
    } else {
      const j = line.indexOf(',', i);
      out.push(line.slice(i, j < 0 ? line.length : j));
      i = j < 0 ? line.length : j;
    }
    if (i >= line.length) return out;
    i++; // the comma
  }
}

describe('csvCell', () => {
  it('quotes ", comma, \\n and \\r', () => {
    expect(csvCell('a"b')).toBe('"a""b"');
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('a\nb')).toBe('"a\nb"');
    expect(csvCell('a\rb')).toBe('"a\rb"');
    expect(csvCell('plain')).toBe('plain');
    expect(csvCell(null)).toBe('');
    expect(csvCell(undefined)).toBe('');
  });

  it('neutralises formulas: =, +, -, @, tab and \\r first', () => {
    expect(csvCell('=HYPERLINK("http://x","y")')).toBe(`"'=HYPERLINK(""http://x"",""y"")"`);
    expect(csvCell('+1+2')).toBe(`"'+1+2"`);
    expect(csvCell('-2+3')).toBe(`"'-2+3"`);
    expect(csvCell('@SUM(A1)')).toBe(`"'@SUM(A1)"`);
    expect(csvCell('\t=1')).toBe(`"'\t=1"`);
    expect(csvCell('\r=1')).toBe(`"'\r=1"`);
    expect(csvCell(['=cmd', 'x'])).toBe(`"'=cmd x"`);
  });

  it('leaves numbers, negative ones included, as numbers', () => {
    expect(csvCell(-0.5)).toBe('-0.5');
    expect(csvCell('-0.5')).toBe('-0.5');
    expect(csvCell('+3e-4')).toBe('+3e-4');
    expect(csvCell(0)).toBe('0');
    expect(csvCell(true)).toBe('true');
    expect(csvCell({ a: 1 })).toBe('"{""a"":1}"');
    expect(csvCell(['a', 'b'])).toBe('a b');
  });

  it('property: no cell a spreadsheet would evaluate, and the text reads back', () => {
    fc.assert(fc.property(fc.array(fc.string({ unit: fc.constantFrom('=', '+', '-', '@', '\t', '\r', '"', ',', 'a', '1', '.', ' ', 'e') }), { minLength: 1, maxLength: 6 }), (cells) => {
      const line = csvLine(cells);
      const back = parseLine(line);
      expect(back).toHaveLength(cells.length);
      back.forEach((b, i) => {
        expect(/^[=+\-@\t\r]/.test(b) && !/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(b)).toBe(false);
        expect(b === cells[i] || b === `'${cells[i]}`).toBe(true);
      });
    }), { numRuns: 2000 });
  });
});

describe('the exports use it', () => {
  it('Train metrics and curve CSVs neutralise a formula from data', () => {
    const run = { runId: '=1+1', request: { spec: { variant: 'grpo' } }, history: [{ step: 1, note: '@x' }], evals: [] } as unknown as RunRecord;
    expect(metricsCsv([run]).split('\n')[1]).toBe(`"'=1+1",grpo,step,1,"'@x"`);
    expect(curveCsv('step', [{ step: 1, '=s': 0.5, '=s_band': [0.25, 0.75] }], [{ key: '=s' } as never]).split('\n')[1]).toBe(`1,"'=s",0.5,0.25,0.75`);
    expect(csvTable(['a'], [['-x']])).toBe(`a\n"'-x"\n`);
  });

  it('no other CSV escaper is left in src/', () => {
    const walk = (d: string): string[] => fs.readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(d, e.name)) : /\.tsx?$/.test(e.name) ? [path.join(d, e.name)] : []));
    const src = path.resolve(__dirname, '../../src');
    const copies = walk(src).filter((f) => !f.endsWith(path.join('shared', 'csv.ts')) && /replace\(\/"\/g, '""'\)/.test(fs.readFileSync(f, 'utf8')));
    expect(copies.map((f) => path.relative(src, f))).toEqual([]);
  });
});
