import { describe, expect, it } from 'vitest';
import { CliArgsError, parseCliArgs } from '../../src/cli/args';
import { TTS_CLI } from '../../src/cli/tts';

function problems(argv: string[]): string[] {
  try { parseCliArgs(TTS_CLI, argv); return []; } catch (e) { expect(e).toBeInstanceOf(CliArgsError); return (e as CliArgsError).problems; }
}

describe('npm run tts arguments', () => {
  it('parses the sweep of the issue, with the documented defaults', () => {
    const v = parseCliArgs(TTS_CLI, ['--model', 'models/envace-small', '--world', 'files', '--tasks', '100', '--n', '0,1,2,3,4', '--strategy', 'parallel,sequential', '--memory', 'full,best-calls', '--json']);
    if (v === 'help') throw new Error('unexpected help');
    expect(v).toMatchObject({ model: 'models/envace-small', world: 'files', tasks: 100, n: [0, 1, 2, 3, 4], strategy: ['parallel', 'sequential'], memory: ['full', 'best-calls'], json: true });
    expect(v).toMatchObject({ assessor: 'rules', 'memory-tokens': 192, k: 2, 'attempt-temperature': 1 });
  });
  it('lists every bad value', () => {
    const p = problems(['--strategy', 'parallel,tree', '--memory', 'all', '--n', '1,-1', '--assessor', 'llm']);
    expect(p.some((s) => /--strategy: "tree"/.test(s))).toBe(true);
    expect(p.some((s) => /--memory: "all"/.test(s))).toBe(true);
    expect(p.some((s) => /--n must be ≥ 0/.test(s))).toBe(true);
    expect(p.some((s) => /--assessor must be one of/.test(s))).toBe(true);
  });
});
