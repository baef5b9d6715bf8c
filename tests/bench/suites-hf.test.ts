// The suites with a Hugging Face ONNX model (the Qwen3-shaped fixture of `npm run fixture:qwen3`, random
// weights): τ² retail with the fixture as both agent and user, and BFCL base with it as the policy, run through
// `npm run eval -- --suite …` and in this process; the two give the same per-task results (plumbing: the
// scores of a random model are whatever they are, and are checked only for their shape).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSuiteCommand, type SuiteArgs } from '../../src/cli/eval-suites';

const ROOT = mkdtempSync(join(tmpdir(), 'suites-hf-'));
const DIR = join(ROOT, 'qwen3-fixture');
const DATA = resolve(process.cwd(), '../shared/data');
const SLOW = 600_000;

beforeAll(() => {
  execFileSync('npx', ['tsx', 'src/cli/fixture-qwen3.ts', '--out', DIR, '--json'], { stdio: ['ignore', 'pipe', 'pipe'] });
}, SLOW);
afterAll(() => rmSync(ROOT, { recursive: true, force: true }));

const base = (over: Partial<SuiteArgs>): SuiteArgs => ({
  model: DIR, split: 'test', 'skip-unsupported': false, offset: 0, 'user-temperature': 0,
  k: 1, temperature: 0, 'top-p': 1, seed: 0, resamples: 500, threads: 1, 'per-task': true, json: true, ...over,
});
const cli = (args: string[]) => JSON.parse(execFileSync('npx', ['tsx', 'src/cli/eval.ts', '--model', DIR, '--k', '1', '--temperature', '0', '--top-p', '1',
  '--resamples', '500', '--per-task', '--json', ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 << 20 }));
const noTime = ({ seconds: _s, ...rest }: Record<string, unknown>) => rest;

describe('suites with the Qwen3 fixture', () => {
  it('τ² retail, fixture as agent and user: the CLI completes and prints what the library gives in-process', async () => {
    const args = ['--suite', 'tau2', '--domain', `${DATA}/tau2/retail`, '--user-model', DIR, '--limit', '2', '--max-new-tokens', '8', '--max-steps', '6'];
    const printed = cli(args);
    const mine = await runSuiteCommand(base({ suite: 'tau2', domain: `${DATA}/tau2/retail`, 'user-model': DIR, limit: 2, 'max-new-tokens': 8, 'max-steps': 6 }), true) as Record<string, unknown>;
    expect(printed.n_tasks).toBe(2);
    expect(printed.user).toBe(DIR);
    expect(printed.generations.agent).toBeGreaterThanOrEqual(2);
    expect(printed.generations.user).toBeGreaterThanOrEqual(2);
    expect(Object.values(printed.terminations as Record<string, number>).reduce((a, b) => a + b, 0)).toBe(2);
    for (const t of printed.per_task) for (const r of t.rewards) expect([0, 1]).toContain(r);
    expect(noTime(printed)).toEqual(JSON.parse(JSON.stringify(noTime(mine))));
  }, SLOW);

  it('BFCL base, fixture as the policy: every entry is scored by the checker; CLI = in-process', async () => {
    const q = `${DATA}/bfcl/BFCL_v4_multi_turn_base.json`, a = `${DATA}/bfcl/possible_answer/BFCL_v4_multi_turn_base.json`;
    const printed = cli(['--suite', 'bfcl', '--questions', q, '--answers', a, '--limit', '1', '--max-new-tokens', '8', '--max-steps', '2']);
    const mine = await runSuiteCommand(base({ suite: 'bfcl', questions: q, answers: a, limit: 1, 'max-new-tokens': 8, 'max-steps': 2 }), true) as Record<string, unknown>;
    expect(printed.n_entries).toBe(1);
    expect(printed.generations).toBeGreaterThanOrEqual(1);
    expect(Object.values(printed.verdicts as Record<string, number>).reduce((x, y) => x + y, 0)).toBe(1);
    expect(noTime(printed)).toEqual(JSON.parse(JSON.stringify(noTime(mine))));
  }, SLOW);
});
