// The tests StrykerJS runs against the four mutated files (`npm run mutation`, stryker.config.mjs): the tests
// that import judges.ts, worlds/common.ts, advantages.ts and protocol.ts directly and run in seconds. Left out:
// tests/envs/worlds.test.ts (1,000 tasks per world, ≈ 4 min on the shared 2-core box — too slow to rerun per mutant)
// and the suites that use these files only on the way to something else (rollouts, SFT, training).
import { defineConfig } from 'vitest/config';

export const MUTATION_TESTS: Record<string, string[]> = {
  'src/envs/judges.ts': ['tests/envs/judges.test.ts', 'tests/envs/judges-details.test.ts', 'tests/envs/own-keys.test.ts'],
  'src/envs/worlds/common.ts': ['tests/envs/worlds-common.test.ts', 'tests/envs/own-keys.test.ts'],
  'src/rl/advantages.ts': ['tests/rl/advantages.test.ts', 'tests/rl/advantages-details.test.ts'],
  'src/agent/protocol.ts': ['tests/agent/protocol.test.ts', 'tests/agent/protocol-details.test.ts', 'tests/envs/own-keys.test.ts'],
};

/** ENVACE_MUTATE=<source file> (set by scripts/mutation.ts) narrows the run to that file's tests. */
const only = process.env.ENVACE_MUTATE;
const include = [...new Set(only ? MUTATION_TESTS[only] ?? [] : Object.values(MUTATION_TESTS).flat())];

export default defineConfig({
  test: {
    include,
    environment: 'node',
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // property tests that draw thousands of cases read this (a smaller draw per mutant; npm test keeps the full one)
    env: { ENVACE_MUTATION: '1' },
  },
});
