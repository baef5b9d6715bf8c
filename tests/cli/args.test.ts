import { describe, expect, it } from 'vitest';
import { CliArgsError, defineCli, parseCliArgs } from '../../src/cli/args';

const def = defineCli({
  name: 'demo', summary: 'a demo',
  options: {
    model: { type: 'string', help: 'model folder', required: true },
    world: { type: 'string', help: 'world', choices: ['files', 'retail'], default: 'files' },
    seeds: { type: 'int', help: 'seeds', default: 5, min: 1 },
    lr: { type: 'number', help: 'learning rate', default: 1e-4, min: 0 },
    n: { type: 'numbers', help: 'N values', default: [0, 1, 2], integer: true, min: 0 },
    json: { type: 'boolean', help: 'print JSON' },
  },
});

function problems(argv: string[]): string[] {
  try { parseCliArgs(def, argv); return []; } catch (e) { expect(e).toBeInstanceOf(CliArgsError); return (e as CliArgsError).problems; }
}

describe('cli args', () => {
  it('parses typed values and defaults', () => {
    const v = parseCliArgs(def, ['--model', 'm', '--lr=3e-4', '--n', '0,2,4', '--json']);
    expect(v).not.toBe('help');
    if (v === 'help') return;
    expect(v.model).toBe('m'); expect(v.world).toBe('files'); expect(v.seeds).toBe(5);
    expect(v.lr).toBeCloseTo(3e-4); expect(v.n).toEqual([0, 2, 4]); expect(v.json).toBe(true);
  });
  it('lists every problem, including unknown flags', () => {
    expect(problems(['--model', 'm', '--seedz', '3'])[0]).toMatch(/seedz/);
    const p = problems(['--seeds', 'x', '--world', 'mars', '--n', '1,a']);
    expect(p.some((s) => /--model is required/.test(s))).toBe(true);
    expect(p.some((s) => /--seeds must be an integer/.test(s))).toBe(true);
    expect(p.some((s) => /--world must be one of/.test(s))).toBe(true);
    expect(p.some((s) => /--n must be an integer/.test(s))).toBe(true);
    expect(problems(['--model', 'm', '--seeds', '0'])).toEqual(['--seeds must be ≥ 1 (got 0)']);
    expect(problems(['--model', 'm', 'stray'])[0]).toMatch(/unexpected argument/);
  });
  it('answers --help', () => {
    expect(parseCliArgs(def, ['--help'])).toBe('help');
  });
});
