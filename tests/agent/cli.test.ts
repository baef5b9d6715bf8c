import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const run = (args: string[]) => execFileSync('npx', ['tsx', 'src/cli/rollout.ts', ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

describe('npm run rollout', () => {
  it('--expert --json: trajectories with per-call fidelity and checklist verdicts', () => {
    const out = JSON.parse(run(['--expert', '--world', 'retail', '--task-seed', '7', '--mode', 'rehearsal', '--n', '2', '--json']));
    expect(out.task.id).toBe('retail-7');
    expect(out.trajectories.length).toBe(2);
    expect(out.meanReward).toBe(1);
    expect(out.fidelity.exactRate).toBe(1);
    const t = out.trajectories[0];
    expect(t.calls.length).toBeGreaterThan(0);
    expect(t.calls[0].fidelity).toEqual({ exact: true, fieldF1: 1, errorAgree: true });
    expect(t.verdict.turns[0].items.every((i: { passed: boolean }) => i.passed)).toBe(true);
  });

  it('fails clearly without a model', () => {
    expect(() => run(['--world', 'retail', '--task-seed', '7'])).toThrow(/need --model/);
  });
});
