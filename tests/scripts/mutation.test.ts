// `npm run mutation` (scripts/mutation.ts, StrykerJS) stays wired up: the Stryker config mutates exactly the files
// the mutation test list names, every listed test exists and imports what it tests, the summary is computed as
// Stryker computes its score, and the committed summary covers the four files.
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { MUTATION_TESTS } from '../../vitest.mutation.config';
import { EQUIVALENT, mergeSummary, MUTATED_FILES, summarise, SUMMARY_PATH, type FileScore, type StrykerReport } from '../../scripts/mutation';

// The config is plain JavaScript (Stryker reads .mjs); imported by URL so the type checker does not look for its types.
const strykerConfig = (await import(pathToFileURL(resolve('stryker.config.mjs')).href)).default as {
  mutate: string[]; concurrency: number; inPlace?: boolean; testRunner: string; tempDirName: string; vitest: { configFile: string };
};

describe('npm run mutation', () => {
  it('mutates the four files of issue 21, each with its own tests, one mutant at a time in a sandbox', () => {
    expect(MUTATED_FILES).toEqual(['src/envs/judges.ts', 'src/envs/worlds/common.ts', 'src/rl/advantages.ts', 'src/agent/protocol.ts']);
    expect(strykerConfig.mutate).toEqual(MUTATED_FILES);
    expect(strykerConfig.concurrency).toBe(1);
    expect(strykerConfig.inPlace ?? false).toBe(false);
    expect(strykerConfig.testRunner).toBe('vitest');
    expect(strykerConfig.vitest.configFile).toBe('vitest.mutation.config.ts');
    for (const [file, tests] of Object.entries(MUTATION_TESTS)) {
      expect(existsSync(file), file).toBe(true);
      expect(tests.length).toBeGreaterThan(0);
      for (const t of tests) {
        expect(existsSync(t), t).toBe(true);
        expect(t).toMatch(/^tests\/.*\.test\.ts$/); // also picked up by `npm test` (vitest.config.ts: tests/**/*.test.ts)
      }
      // the file's own tests import it (a test that reaches it only through other modules is not the point)
      const module = file.replace(/^src\//, '').replace(/\.ts$/, '');
      expect(tests.some((t) => readFileSync(t, 'utf8').includes(`src/${module}'`)), file).toBe(true);
    }
  });

  it('is its own npm script beside the named mutants, niced; sandboxes and raw reports are not committed', () => {
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string>; devDependencies: Record<string, string> };
    expect(pkg.scripts.mutation).toBe('nice -n 10 tsx scripts/mutation.ts');
    expect(pkg.scripts.mutants).toBe('tsx scripts/mutants.ts');
    expect(pkg.devDependencies['@stryker-mutator/core']).toBeDefined();
    expect(pkg.devDependencies['@stryker-mutator/vitest-runner']).toBe(pkg.devDependencies['@stryker-mutator/core']);
    const ignore = readFileSync('.gitignore', 'utf8').split('\n');
    expect(ignore).toContain('.stryker-tmp/');
    expect(ignore).toContain('/reports/');
    expect(strykerConfig.tempDirName).toBe('.stryker-tmp');
  });

  const report: StrykerReport = {
    files: {
      'src/x.ts': {
        source: 'const a = 1;\nif (a > 0) f();\nreturn a;\n',
        mutants: [
          { id: '1', mutatorName: 'EqualityOperator', replacement: 'a >= 0', status: 'Survived', location: { start: { line: 2, column: 5 }, end: { line: 2, column: 10 } } },
          { id: '2', mutatorName: 'ConditionalExpression', replacement: 'true', status: 'Killed', location: { start: { line: 2, column: 5 }, end: { line: 2, column: 10 } } },
          { id: '3', mutatorName: 'BlockStatement', replacement: '{}', status: 'Timeout', location: { start: { line: 2, column: 12 }, end: { line: 2, column: 15 } } },
          { id: '4', mutatorName: 'NumericLiteral', replacement: '0', status: 'NoCoverage', location: { start: { line: 1, column: 11 }, end: { line: 1, column: 12 } } },
          { id: '5', mutatorName: 'StringLiteral', replacement: '""', status: 'CompileError', location: { start: { line: 3, column: 1 }, end: { line: 3, column: 2 } } },
          { id: '6', mutatorName: 'BooleanLiteral', replacement: 'false', status: 'Killed', location: { start: { line: 3, column: 1 }, end: { line: 3, column: 2 } } },
        ],
      },
    },
  };

  it('scores as Stryker does: killed and timed out over all but errors and ignored; survivors listed with their line', () => {
    const s = summarise(report, 'src/x.ts');
    expect(s).toMatchObject({ file: 'src/x.ts', mutants: 6, killed: 2, timeout: 1, survived: 1, noCoverage: 1, excluded: 1, score: 60, scoreWithoutEquivalents: 60 });
    expect(s.survivors).toEqual([
      { id: '4', line: 1, column: 11, mutator: 'NumericLiteral', code: 'const a = 1;', replacement: '0', status: 'NoCoverage' },
      { id: '1', line: 2, column: 5, mutator: 'EqualityOperator', code: 'if (a > 0) f();', replacement: 'a >= 0', status: 'Survived' },
    ]);
    expect(() => summarise(report, 'src/y.ts')).toThrow('src/y.ts is not in the report');
  });

  it('an explained equivalent mutant is marked and counted in the second score only', () => {
    EQUIVALENT.push({ file: 'src/x.ts', mutator: 'EqualityOperator', code: 'a > 0', replacement: 'a >= 0', why: 'a is 1' });
    try {
      const s = summarise(report, 'src/x.ts');
      expect(s.score).toBe(60);
      expect(s.scoreWithoutEquivalents).toBe(80);
      expect(s.survivors.find((x) => x.id === '1')?.equivalent).toBe('a is 1');
      expect(s.survivors.find((x) => x.id === '4')?.equivalent).toBeUndefined();
    } finally { EQUIVALENT.pop(); }
  });

  it('a run of some files replaces only their entries in the summary', () => {
    const f = (file: string, score: number) => ({ file, score } as FileScore);
    const merged = mergeSummary({ files: [f('src/agent/protocol.ts', 50), f('src/envs/judges.ts', 70)] }, [f('src/rl/advantages.ts', 90), f('src/envs/judges.ts', 85)]);
    expect(merged.files.map((x) => [x.file, x.score])).toEqual([['src/envs/judges.ts', 85], ['src/rl/advantages.ts', 90], ['src/agent/protocol.ts', 50]]);
    expect(merged.tool).toMatch(/^StrykerJS \d+\.\d+\.\d+$/);
    // rebuilt without a run: the earlier run's time and commit and the file's baseline stay
    const before = { commit: 'abc', tests: ['t'], score: 40, killed: 4, timeout: 0, survived: 6, noCoverage: 0 };
    const prev = { files: [{ ...f('src/rl/advantages.ts', 90), seconds: 60, commit: 'c1', at: 'then', before }] };
    expect(mergeSummary(prev, [f('src/rl/advantages.ts', 95)]).files[0]).toEqual({ file: 'src/rl/advantages.ts', score: 95, seconds: 60, commit: 'c1', at: 'then', before });
    expect(mergeSummary(prev, [{ ...f('src/rl/advantages.ts', 95), seconds: 5, commit: 'c2', at: 'now' }]).files[0]).toMatchObject({ seconds: 5, commit: 'c2', before });
  });

  it('the committed summary has every file at 80% or more, each survivor explained or listed', () => {
    const summary = JSON.parse(readFileSync(SUMMARY_PATH, 'utf8')) as { files: FileScore[] };
    expect(summary.files.map((x) => x.file)).toEqual(MUTATED_FILES);
    for (const s of summary.files) {
      expect(s.score, s.file).toBeGreaterThanOrEqual(80);
      expect(s.survivors.length).toBe(s.survived + s.noCoverage);
    }
  });
});
