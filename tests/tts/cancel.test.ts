// Cancelling a rehearse-first run (TtsOptions.signal) and its progress hook (TtsOptions.onProgress): an abort
// that arrives during any batch of generations stops the run there, with no later generation and no call
// reaching the real environment, and runTts rejects with TtsCancelled carrying what was finished.
import { describe, expect, it } from 'vitest';
import { compactFormat } from '../../src/agent/chatTemplate';
import { expertGenerator, KvEnv, kvTask } from '../../src/agent/testing';
import type { GenerateRequest, Generation, TextGenerator } from '../../src/engine/generator';
import type { Environment, Observation, Task } from '../../src/envs/types';
import { runTts, TtsCancelled, type TtsOptions, type TtsProgress } from '../../src/tts/rehearse';

/** The real environment of a committed run: it notes whether each call it receives came after the abort. */
class WatchedKv extends KvEnv {
  late = 0;
  constructor(private readonly signal: AbortSignal, state: Record<string, string> = {}) { super(state); }
  override call(name: string, args: unknown): Observation {
    if (this.signal.aborted) this.late++;
    return super.call(name, args);
  }
  // Rehearsal works on clones: plain, unwatched copies.
  override clone(): Environment { return new KvEnv({ ...this.state }); }
}

/** Aborts the controller while its `at`-th batch is generating (a cancel arriving mid-generation). */
function abortingAt(inner: TextGenerator, ac: AbortController, at: number): TextGenerator & { batches: number; after: number } {
  const g = {
    name: inner.name, maxContext: inner.maxContext, countTokens: (t: string) => inner.countTokens(t),
    batches: 0, after: 0,
    async generate(reqs: GenerateRequest[]): Promise<Generation[]> {
      if (ac.signal.aborted) g.after++;
      g.batches++;
      const out = await inner.generate(reqs);
      if (g.batches === at) ac.abort();
      return out;
    },
  };
  return g;
}

function setup(at: number, strategy: TtsOptions['strategy']) {
  const ac = new AbortController();
  const envs: WatchedKv[] = [];
  const base = kvTask('kv-a', 'color', 'blue');
  const task: Task = { ...base, makeEnv: () => { const e = new WatchedKv(ac.signal); envs.push(e); return e; } };
  const policy = abortingAt(expertGenerator([base], { noise: 0.2 }), ac, at);
  const events: TtsProgress[] = [];
  const run = runTts([{ task, sample: 0 }, { task, sample: 1 }], {
    policy, format: compactFormat, cfg: { policy, seed: 3, act: { temperature: 1 } },
    opts: { n: 2, strategy, signal: ac.signal, onProgress: (p) => events.push(p) },
  });
  return { run, policy, envs, events };
}

describe('rehearse first: cancel', () => {
  for (const strategy of ['parallel', 'sequential'] as const) {
    it(`${strategy}: an abort during any batch stops there; nothing generates or reaches the real env afterwards`, async () => {
      // The uncancelled run: how many batches it takes (abort "at" a batch past the end never fires).
      const full = setup(10_000, strategy);
      const runs = await full.run;
      const total = full.policy.batches;
      expect(total).toBeGreaterThan(4);
      const realTotal = full.envs.reduce((s, e) => s + e.calls, 0);
      expect(realTotal).toBeGreaterThan(0);
      expect(runs.every((r) => r.rehearsals.length > 0)).toBe(true);
      let sawCommitCalls = false, sawAttemptsDone = false;
      for (let at = 1; at <= total; at++) {
        const c = setup(at, strategy);
        const err = await c.run.then(() => null, (e: unknown) => e);
        expect(err, `abort at batch ${at}`).toBeInstanceOf(TtsCancelled);
        const done = (err as TtsCancelled).done;
        expect(c.policy.batches).toBe(at);
        expect(c.policy.after).toBe(0);
        expect(c.envs.reduce((s, e) => s + e.late, 0)).toBe(0);
        // What it reports finished is what really happened, and less than the whole run.
        expect(done.generations).toBeGreaterThan(0);
        expect(done.realCalls.map((l) => l.length)).toEqual(c.envs.map((e) => e.calls));
        const attempts = done.rehearsals.flat().reduce((s, h) => s + h.attempts.length, 0);
        expect(attempts).toBeLessThanOrEqual(runs.reduce((s, r) => s + r.rehearsals.reduce((u, h) => u + h.attempts.length, 0), 0));
        expect((err as Error).message).toMatch(/^rehearse first cancelled after \d+ generations? \(\d+ imagined attempts, \d+ real calls\)$/);
        if (c.envs.some((e) => e.calls > 0)) sawCommitCalls = true;
        if (attempts > 0) sawAttemptsDone = true;
      }
      // Not vacuous: some aborts came after real calls had been made, some after attempts had finished.
      expect(sawCommitCalls).toBe(true);
      expect(sawAttemptsDone).toBe(true);
    });
  }

  it('an already aborted signal: no generation, no real call', async () => {
    const ac = new AbortController();
    ac.abort();
    const task = kvTask('kv-a', 'color', 'blue');
    const env = new WatchedKv(ac.signal);
    const policy = abortingAt(expertGenerator([task]), ac, -1);
    await expect(runTts([{ task: { ...task, makeEnv: () => env } }], {
      policy, format: compactFormat, cfg: { policy, seed: 0 }, opts: { n: 2, strategy: 'parallel', signal: ac.signal },
    })).rejects.toBeInstanceOf(TtsCancelled);
    expect(policy.batches).toBe(0);
    expect(env.calls).toBe(0);
  });

  it('a signal that never fires changes nothing; progress names attempts, then the commit, turn by turn', async () => {
    const task = kvTask('kv-a', 'color', 'blue');
    const mk = (signal?: AbortSignal, events?: TtsProgress[]) => {
      const policy = expertGenerator([task]);
      return runTts([{ task, sample: 0 }], { policy, format: compactFormat, cfg: { policy, seed: 1, act: { temperature: 1 } }, opts: { n: 3, strategy: 'sequential', signal, onProgress: events && ((p) => events.push(p)) } });
    };
    const events: TtsProgress[] = [];
    const [a] = await mk(new AbortController().signal, events);
    const [b] = await mk();
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    // Sequential, n = 3: attempts 1, 2, 3 of 3 at turn 0, then the commit of turn 0, then turn 1 likewise.
    const phases = events.map((p) => (p.phase === 'attempts' ? `t${p.userTurn}a${p.attempts!.from}-${p.attempts!.to}/${p.attempts!.of}` : `t${p.userTurn}c`));
    const collapsed = phases.filter((p, i) => p !== phases[i - 1]);
    const turns = a!.rehearsals.length;
    expect(turns).toBe(task.userTurns.length);
    expect(collapsed).toEqual([...Array(turns).keys()].flatMap((t) => [`t${t}a1-1/3`, `t${t}a2-2/3`, `t${t}a3-3/3`, `t${t}c`]));
    // attemptsDone counts up to every attempt of the run.
    expect(events.at(-1)!.attemptsDone).toBe(3 * turns);
    expect(events.map((p) => p.attemptsDone)).toEqual([...events.map((p) => p.attemptsDone)].sort((x, y) => x - y));
  });
});
