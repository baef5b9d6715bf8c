// @ts-check
// StrykerJS mutation testing of four files (issue 21): `npm run mutation` (scripts/mutation.ts runs one file at a
// time and writes docs/results/reliability/mutation.json). Not `npm run mutants`: that is the list of named,
// hand-written mutants (scripts/mutants.ts). Each file is mutated in a sandbox copy under .stryker-tmp/ (never in
// place: other processes on the box import these files) and only the tests vitest.mutation.config.ts lists run,
// one mutant at a time (concurrency 1: the box is shared).
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
const config = {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutation.config.ts', related: false },
  plugins: ['@stryker-mutator/vitest-runner'],
  mutate: ['src/envs/judges.ts', 'src/envs/worlds/common.ts', 'src/rl/advantages.ts', 'src/agent/protocol.ts'],
  coverageAnalysis: 'perTest',
  concurrency: 1,
  timeoutMS: 30_000,
  timeoutFactor: 3,
  reporters: ['clear-text', 'progress-append-only', 'json'],
  jsonReporter: { fileName: process.env.ENVACE_MUTATION_REPORT ?? 'reports/mutation/mutation.json' },
  clearTextReporter: { allowColor: false, logTests: false, maxTestsToLog: 0 },
  thresholds: { high: 90, low: 80, break: null },
  tempDirName: '.stryker-tmp',
  cleanTempDir: true,
  // The sandbox needs the sources, tests and configs, not the run outputs, models or reports.
  ignorePatterns: ['runs', 'models', 'docs', 'logs', 'e2e', 'public', 'shared', 'tmp', 'dist', 'reports', 'test-results*', 'playwright-report', '*.log'],
};
export default config;
