import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fromVerlLine, toVerlLine, VERL_METRIC_NAMES } from '../../src/rl/verl-metrics';

// One metrics.jsonl record (StepMetrics field names; the values are made up).
const record = { step: 12, reward: 0.25, pgLoss: -0.013, klLoss: 0, ppoKl: 0.0004, clipfrac: 0.02, entropy: 0.81, gradNorm: 1.7, lr: 2e-6, secondsPerStep: 41.2, rolloutSeconds: 30.5, trainSuccess: 0.125, tokens: 9000 };

describe('verl metric names', () => {
  it("maps our step metrics to the names verl's trainer logs, as its file logger writes them", () => {
    const line = toVerlLine(record);
    expect(line.step).toBe(12);
    expect(line.data).toEqual({
      'critic/score/mean': 0.25, 'critic/rewards/mean': 0.25, 'actor/pg_loss': -0.013, 'actor/kl_loss': 0, 'actor/ppo_kl': 0.0004, 'actor/pg_clipfrac': 0.02,
      'actor/entropy': 0.81, 'actor/grad_norm': 1.7, 'actor/lr': 2e-6, 'timing_s/step': 41.2, 'timing_s/gen': 30.5,
    });
    // a record from before lr was logged, and non-finite values, leave the name out instead of writing null
    expect(Object.keys(toVerlLine({ step: 1, reward: Number.NaN, pgLoss: 0.1 }).data)).toEqual(['actor/pg_loss']);
  });

  it('reads a verl line back under our names (only what both log), and refuses what is not a record', () => {
    const back = fromVerlLine(JSON.parse(JSON.stringify(toVerlLine(record))));
    const mapped = Object.fromEntries(Object.keys(VERL_METRIC_NAMES).map((k) => [k, record[k as keyof typeof record]]));
    expect(back).toEqual({ step: 12, ...mapped });
    expect(fromVerlLine({ step: 3, data: { 'actor/pg_loss': 0.5, 'response_length/mean': 300, constructor: 1 } })).toEqual({ step: 3, pgLoss: 0.5 });
    for (const bad of [null, 7, { data: {} }, { step: 'x', data: {} }, { step: 1 }]) expect(fromVerlLine(bad)).toBeNull();
  });

  it('the script converts a file either way', () => {
    const dir = mkdtempSync(join(tmpdir(), 'verl-metrics-'));
    writeFileSync(join(dir, 'metrics.jsonl'), `${JSON.stringify(record)}\nnot json\n${JSON.stringify({ ...record, step: 13 })}\n`);
    const run = (args: string[]) => execFileSync('npx', ['tsx', 'scripts/verl-metrics.ts', ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    const verl = run(['to-verl', join(dir, 'metrics.jsonl')]);
    expect(verl.trim().split('\n').map((l) => JSON.parse(l).step)).toEqual([12, 13]);
    writeFileSync(join(dir, 'verl.jsonl'), verl);
    const ours = run(['from-verl', join(dir, 'verl.jsonl')]).trim().split('\n').map((l) => JSON.parse(l));
    expect(ours.map((r) => [r.step, r.pgLoss, r.reward])).toEqual([[12, -0.013, 0.25], [13, -0.013, 0.25]]);
    expect(() => execFileSync('npx', ['tsx', 'scripts/verl-metrics.ts', 'sideways', 'x'], { stdio: 'pipe' })).toThrow(/usage/);
  }, 60_000);
});
