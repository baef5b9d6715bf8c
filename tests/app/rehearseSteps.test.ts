// Stepping through a rehearse-first run (src/app/components/rollout/rehearseSteps.ts): the flattened event
// list is the run in the order it happened, a cursor reveals a growing prefix of it, and the committed
// trajectory is cut consistently (rows and messages) at every step. Built on real runTts output.
import { describe, expect, it } from 'vitest';
import { compactFormat } from '../../src/agent/chatTemplate';
import { expertGenerator, kvTask } from '../../src/agent/testing';
import { attemptRows, cutTrajectory, eventLabel, rehearseEvents, reveal, type RehearseEvent } from '../../src/app/components/rollout/rehearseSteps';
import { realMatchesCommitted, runTts, type TtsOptions } from '../../src/tts/rehearse';
import type { RehearseFirstRun } from '../../src/worker/protocol';

async function runOf(opts: TtsOptions, noise = 0): Promise<RehearseFirstRun> {
  const task = kvTask('kv-a', 'color', 'blue');
  const policy = expertGenerator([task], { noise });
  const [r] = await runTts([{ task, sample: 0 }], { policy, format: compactFormat, cfg: { policy, seed: 2, act: { temperature: 1 } }, opts });
  return { trajectory: r!.trajectory, rehearsals: r!.rehearsals, realCalls: r!.realCalls.length, realMatchesCommitted: realMatchesCommitted(r!) };
}

const tag = (e: RehearseEvent) => (e.kind === 'attempt-gen' ? `t${e.turn}a${e.attempt}g${e.row}` : e.kind === 'self-eval' ? `t${e.turn}a${e.attempt}e`
  : e.kind === 'memory' ? `t${e.turn}m` : `t${e.turn}c${e.row}`);

describe('rehearse-first step events', () => {
  for (const strategy of ['parallel', 'sequential'] as const) {
    it(`${strategy}: per turn, each attempt's generations then its self-evaluation, the memory, then the committed generations`, async () => {
      const run = await runOf({ n: 2, strategy });
      const events = rehearseEvents(run);
      expect(run.rehearsals.length).toBe(2); // the kv task has two user turns
      const expected: string[] = [];
      for (const h of run.rehearsals) {
        for (const a of h.attempts) {
          // An attempt rollout covers its one user turn: no generation is left out of the steps.
          expect(attemptRows(a).length).toBe(a.trajectory.rows.length);
          expect(a.trajectory.rows.length).toBeGreaterThan(0);
          a.trajectory.rows.forEach((_, g) => expected.push(`t${h.userTurn}a${a.index}g${g}`));
          expected.push(`t${h.userTurn}a${a.index}e`);
        }
        expected.push(`t${h.userTurn}m`);
        run.trajectory.rows.forEach((r, i) => { if (r.turn === h.userTurn) expected.push(`t${h.userTurn}c${i}`); });
      }
      expect(events.map(tag)).toEqual(expected);
      // Each committed generation once, in trajectory order; the attempts' rows alternate act / imagined result.
      expect(events.filter((e) => e.kind === 'commit-gen').map((e) => (e as { row: number }).row)).toEqual(run.trajectory.rows.map((_, i) => i));
      const a0 = run.rehearsals[0]!.attempts[0]!;
      expect(attemptRows(a0).map((r) => r.role)).toEqual(attemptRows(a0).map((_, i) => (i % 2 === 0 ? 'act' : 'rehearse')));
    });
  }

  it('a cursor reveals a growing prefix; the current event is the last shown; complete only at the end', async () => {
    const run = await runOf({ n: 3, strategy: 'sequential' }, 0.3);
    const events = rehearseEvents(run);
    let prev = reveal(events, 0);
    expect(prev.current).toBeNull();
    expect(prev.turns.size + prev.attemptRows.size + prev.evals.size + prev.memories.size + prev.commitRows).toBe(0);
    for (let c = 1; c <= events.length; c++) {
      const r = reveal(events, c);
      expect(r.current).toEqual(events[c - 1]);
      expect(r.complete).toBe(c === events.length);
      // Monotone: nothing shown before is hidden again.
      for (const t of prev.turns) expect(r.turns.has(t)).toBe(true);
      for (const [k, n] of prev.attemptRows) expect(r.attemptRows.get(k)!).toBeGreaterThanOrEqual(n);
      for (const k of prev.evals) expect(r.evals.has(k)).toBe(true);
      for (const t of prev.memories) expect(r.memories.has(t)).toBe(true);
      expect(r.commitRows).toBeGreaterThanOrEqual(prev.commitRows);
      // Exactly one event more is revealed.
      const size = (x: typeof r) => [...x.attemptRows.values()].reduce((s, n) => s + n, 0) + x.evals.size + x.memories.size + x.commitRows;
      expect(size(r)).toBe(size(prev) + 1);
      prev = r;
    }
    expect(reveal(events, events.length + 5)).toEqual(reveal(events, events.length));
  });

  it('the committed trajectory cut at each step: its rows, and messages only up to the shown outputs and turns', async () => {
    const run = await runOf({ n: 1, strategy: 'parallel' });
    const t = run.trajectory;
    const events = rehearseEvents(run);
    // Whole: unchanged.
    expect(cutTrajectory(t, t.rows.length, 99)).toEqual(t);
    for (let c = 0; c <= events.length; c++) {
      const r = reveal(events, c);
      const through = Math.max(-1, ...r.turns);
      const cut = cutTrajectory(t, r.commitRows, through);
      expect(cut.rows).toEqual(t.rows.slice(0, r.commitRows));
      // A prefix of the messages, with one assistant message per shown Act row and the requests of the shown turns.
      expect(cut.messages).toEqual(t.messages.slice(0, cut.messages.length));
      expect(cut.messages.filter((m) => m.role === 'assistant').length).toBe(cut.rows.filter((x) => x.role === 'act').length);
      expect(cut.messages.filter((m) => m.role === 'user').length).toBe(through + 1);
      // The real results of a shown call are shown with it.
      const last = cut.messages.at(-1);
      if (cut.rows.at(-1)?.calls?.length) expect(last?.role).toBe('tool');
    }
  });

  it('labels name the turn, the attempt, the generation and what it was', async () => {
    const run = await runOf({ n: 2, strategy: 'parallel' });
    const labels = rehearseEvents(run).map((e) => eventLabel(run, e));
    expect(labels[0]).toMatch(/^turn 1 · imagined attempt 1 · generation 1: (call \w+|reply|unparsable output \(.+\))$/);
    expect(labels[1]).toMatch(/^turn 1 · imagined attempt 1 · generation 2: imagined result of \w+$/);
    expect(labels).toContain('turn 1 · imagined attempt 2 · self-evaluation (rule-based)');
    expect(labels).toContain('turn 1 · the memory the committed run is shown');
    expect(labels.filter((l) => l.startsWith('turn 2 · committed run (real environment) · generation ')).length).toBeGreaterThan(0);
  });
});
