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

describe('CLI misuse exits 2 listing every problem, before any work', () => {
  const fail = (script: string, args: string[]) => {
    try {
      execFileSync('npx', ['tsx', script, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (e) {
      const err = e as { status: number; stderr: string; stdout: string };
      return { status: err.status, stderr: err.stderr, stdout: err.stdout };
    }
    throw new Error(`${script} ${args.join(' ')} exited 0`);
  };

  it('rollout: a misspelt flag, a bad number and a bad choice are all listed', () => {
    const r = fail('src/cli/rollout.ts', ['--expert', '--world', 'retail', '--task-seed', '7', '--seeds', 'x', '--n', 'two', '--mode', 'fly', '--json']);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');   // no rollout ran
    expect(r.stderr).toMatch(/rollout: 4 problem\(s\)/);
    expect(r.stderr).toMatch(/Unknown option '--seeds'/);
    expect(r.stderr).toMatch(/unexpected argument\(s\): x/);
    expect(r.stderr).toMatch(/--n must be an integer \(got "two"\)/);
    expect(r.stderr).toMatch(/--mode must be one of real, simulator, rehearsal \(got "fly"\)/);
    expect(r.stderr).toMatch(/usage: npm run rollout/);
  });

  it('rollout: options that need each other are checked together', () => {
    const r = fail('src/cli/rollout.ts', ['--world', 'nowhere']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/need --model DIR \(or --expert/);
    expect(r.stderr).toMatch(/need --world NAME --task-seed N/);
    expect(r.stderr).toMatch(/--world must be one of retail, files/);
  });

  it('envs, conformance, engine: unknown subcommands and options exit 2', () => {
    const cases: [string, string[], RegExp][] = [
      ['src/cli/envs.ts', ['show', '--world', 'mars', '--seed=-1', '--jsn'], /Unknown option '--jsn'[\s\S]*--world must be one of retail, files[\s\S]*--seed must be ≥ 0/],
      ['src/cli/conformance.ts', ['tau3'], /unknown subcommand "tau3": expected bfcl \| tau2/],
      ['src/cli/engine.ts', ['sample', '--top-p', '2'], /--model is required[\s\S]*--top-p must be ≤ 1/],
    ];
    for (const [script, args, want] of cases) {
      const r = fail(script, args);
      expect(r.status, `${script} ${args.join(' ')}`).toBe(2);
      expect(r.stderr).toMatch(want);
    }
  });
});
