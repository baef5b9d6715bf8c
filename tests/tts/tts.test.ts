import { describe, expect, it } from 'vitest';
import { rollout, type RolloutSpec } from '../../src/agent/rollout';
import { compactFormat, ROLE_TOKENS } from '../../src/agent/chatTemplate';
import { formatAct, formatRehearse } from '../../src/agent/protocol';
import { byRole, expertGenerator, FakeGenerator, fakeCount, kvTask, KvEnv, expertAct, oracleRehearse, type Responder } from '../../src/agent/testing';
import type { Trajectory } from '../../src/agent/types';
import { Rng } from '../../src/engine/rng';
import type { Environment, Task, ToolCall } from '../../src/envs/types';
import { getWorld } from '../../src/envs/worlds/index';
import { parseSelfEval, policyAssessments, ruleAssessment, type AttemptStep } from '../../src/tts/assess';
import { buildMemory, MEMORY_HEADER, PLAN_PREFIX, type AttemptSummary } from '../../src/tts/memory';
import { committedCalls, realMatchesCommitted, rehearsalEffect, runTts, type TtsOptions, type TtsRun } from '../../src/tts/rehearse';
import { RecordingEnv, stateHash } from '../../src/tts/recording';

const kvTasks = [kvTask('kv-a', 'color', 'blue'), kvTask('kv-b', 'size', 'large'), kvTask('kv-c', 'shape', 'round')];
const specsOf = (tasks: Task[], k: number): RolloutSpec[] => tasks.flatMap((task) => [...Array(k).keys()].map((j) => ({ task, sample: j })));

function tts(policy: FakeGenerator, tasks: Task[], opts: TtsOptions, k = 2, seed = 0): Promise<TtsRun[]> {
  return runTts(specsOf(tasks, k), { policy, format: compactFormat, cfg: { policy, seed, act: { temperature: 1 } }, opts });
}

/** Everything observable about a run, for equality checks. */
function fingerprint(runs: TtsRun[]): string {
  return JSON.stringify(runs.map((r) => ({
    rows: r.trajectory.rows.map((x) => [x.role, x.text, x.promptIds.length]), reward: r.trajectory.reward, verdict: r.trajectory.verdict,
    rehearsals: r.rehearsals.map((h) => ({ memory: h.memory, best: h.best, attempts: h.attempts.map((a) => [a.trajectory.rows.map((x) => x.text), a.assessment]) })),
    real: r.realCalls,
  })));
}

describe('private rehearsal never touches the real environment', () => {
  for (const strategy of ['parallel', 'sequential'] as const) {
    it(`${strategy}: the real env receives exactly the committed calls; its state hash is unchanged by rehearsal`, async () => {
      for (const seed of [0, 1, 2, 3]) {
        const policy = expertGenerator(kvTasks, { noise: 0.25 });
        const runs = await tts(policy, kvTasks, { n: 3, strategy }, 2, seed);
        let attemptCalls = 0;
        for (const run of runs) {
          expect(realMatchesCommitted(run)).toBe(true);
          expect(run.realCalls.length).toBe(committedCalls(run.trajectory).length);
          for (const h of run.rehearsals) {
            expect(h.stateHashAfter).toBe(h.stateHashBefore);
            expect(h.attempts).toHaveLength(3);
            attemptCalls += h.attempts.reduce((s, a) => s + a.steps.filter((x) => x.call).length, 0);
          }
        }
        // Not vacuous: the attempts did make (imagined, shadow-executed) calls, none of which reached the log.
        expect(attemptCalls).toBeGreaterThan(0);
      }
    });
  }

  it('on a built-in world: the expert with rehearsal still solves the task, calls recorded exactly once', async () => {
    const tasks = getWorld('files').tasks({ split: 'test', count: 3 });
    const policy = expertGenerator(tasks);
    const runs = await tts(policy, tasks, { n: 2, strategy: 'sequential' }, 1);
    for (const run of runs) {
      expect(realMatchesCommitted(run)).toBe(true);
      expect(run.trajectory.verdict?.outcome?.passed).toBe(true);
      expect(run.trajectory.reward).toBe(1);
      expect(run.rehearsals.length).toBe(tasks.find((t) => t.id === run.trajectory.taskId)!.userTurns.length);
      for (const h of run.rehearsals) expect(h.stateHashAfter).toBe(h.stateHashBefore);
    }
  });

  it('the guard fails loudly when rehearsal leaks into the real state (an env whose clone shares state)', async () => {
    class LeakyKv extends KvEnv { override clone(): Environment { return this; } }
    const task: Task = { ...kvTasks[0], makeEnv: () => new LeakyKv() };
    const policy = expertGenerator([task]);
    await expect(tts(policy, [task], { n: 1, strategy: 'parallel' }, 1)).rejects.toThrow(/rehearsal changed the real environment/);
  });

  it('RecordingEnv logs calls and hands out unrecorded clones', () => {
    const rec = new RecordingEnv(new KvEnv());
    const h0 = stateHash(rec);
    const copy = rec.clone();
    copy.call('set', { key: 'a', value: 'b' });
    expect(rec.log).toHaveLength(0);
    expect(stateHash(rec)).toBe(h0);
    rec.call('set', { key: 'a', value: 'b' });
    expect(rec.log).toEqual([{ name: 'set', arguments: { key: 'a', value: 'b' }, error: false }]);
    expect(stateHash(rec)).not.toBe(h0);
    expect(stateHash(rec)).toBe(stateHash(copy));
  });
});

describe('determinism and the N = 0 baseline', () => {
  it('same seed, same runs; another seed, other runs', async () => {
    const mk = () => expertGenerator(kvTasks, { noise: 0.3 });
    const a = await tts(mk(), kvTasks, { n: 2, strategy: 'sequential' }, 2, 5);
    const b = await tts(mk(), kvTasks, { n: 2, strategy: 'sequential' }, 2, 5);
    const c = await tts(mk(), kvTasks, { n: 2, strategy: 'sequential' }, 2, 6);
    expect(fingerprint(a)).toBe(fingerprint(b));
    expect(fingerprint(c)).not.toBe(fingerprint(a));
  });

  it('a run does not depend on what else is in the batch', async () => {
    const mk = () => expertGenerator(kvTasks, { noise: 0.3 });
    const all = await tts(mk(), kvTasks, { n: 2, strategy: 'parallel' }, 2, 9);
    const alone = await tts(mk(), [kvTasks[1]], { n: 2, strategy: 'parallel' }, 2, 9);
    expect(fingerprint(alone)).toBe(fingerprint(all.filter((r) => r.trajectory.taskId === 'kv-b')));
  });

  it('N = 0 is exactly a plain real-mode rollout', async () => {
    const policy = expertGenerator(kvTasks, { noise: 0.3 });
    const runs = await tts(policy, kvTasks, { n: 0, strategy: 'parallel' }, 3, 4);
    const plain = await rollout(specsOf(kvTasks, 3), { mode: 'real', policy: expertGenerator(kvTasks, { noise: 0.3 }), seed: 4, act: { temperature: 1 } });
    const strip = (t: Trajectory) => JSON.stringify({ ...t, messages: t.messages, rows: t.rows });
    expect(runs.map((r) => strip(r.trajectory))).toEqual(plain.map(strip));
    expect(runs.every((r) => r.rehearsals.every((h) => h.attempts.length === 0 && h.memory === ''))).toBe(true);
    // Noise made some episodes fail: the equality covers errors too.
    expect(plain.some((t) => t.terminatedBy !== 'final_turn')).toBe(true);
  });
});

describe('rehearsal effect against the same seed without rehearsal', () => {
  const t = (passed: boolean, score: number): Trajectory => ({ reward: score, verdict: { score, turns: [], terminatedEarly: false, outcome: { passed, reason: '' } } } as unknown as Trajectory);
  it('success decides, then the reward; equal rewards are the same', () => {
    expect(rehearsalEffect(t(true, 1), t(false, 0.9)).effect).toBe('better');
    expect(rehearsalEffect(t(false, 0.9), t(true, 1)).effect).toBe('worse');
    // a state check that passes with a checklist item missing is not a success
    expect(rehearsalEffect(t(true, 0.5), t(false, 0.75)).effect).toBe('worse');
    expect(rehearsalEffect(t(false, 0.75), t(false, 0.5)).effect).toBe('better');
    expect(rehearsalEffect(t(false, 0.5), t(false, 0.5 + 1e-12)).effect).toBe('same');
    expect(rehearsalEffect(t(true, 1), t(true, 1))).toEqual({ effect: 'same', success: 1, baselineSuccess: 1, reward: 1, baselineReward: 1 });
  });

  it('compares a run with its N = 0 twin: same seeds, so a policy that ignores the memory gives "same" everywhere', async () => {
    // Without noise the expert does the same with or without a memory: no run may be called better or worse.
    const mk = () => expertGenerator(kvTasks, { noise: 0 });
    const withR = await tts(mk(), kvTasks, { n: 2, strategy: 'parallel' }, 2, 3);
    const without = await tts(mk(), kvTasks, { n: 0, strategy: 'parallel' }, 2, 3);
    expect(withR.map((r, i) => rehearsalEffect(r.trajectory, without[i]!.trajectory).effect)).toEqual(withR.map(() => 'same'));
  });
});

// Act: before any tool result in the current turn, call set with key "seen<number of attempt lines in the
// prompt>"; after one, reply. Rehearse: the oracle. Shows exactly what each Act prompt contained.
function countingPolicy(tasks: Task[]): FakeGenerator {
  const act: Responder = (req) => {
    const turn = req.prompt.slice(req.prompt.lastIndexOf(ROLE_TOKENS.user));
    if (turn.includes(ROLE_TOKENS.tool)) return 'done';
    const seen = (req.prompt.match(/^A\d+ \[/gm) ?? []).length;
    return formatAct(undefined, [{ name: 'set', arguments: { key: `seen${seen}`, value: 'v' } }]);
  };
  return new FakeGenerator(byRole(act, oracleRehearse(tasks)));
}

describe('sequential vs parallel', () => {
  const task = kvTasks[0];
  it('sequential attempt k sees attempts < k (and their self-evaluations); the committed run sees all', async () => {
    const N = 4;
    const [run] = await tts(countingPolicy([task]), [task], { n: N, strategy: 'sequential', memoryTokens: 2000 }, 1);
    for (const h of run.rehearsals) {
      h.attempts.forEach((a, k) => {
        expect(a.steps[0].call?.arguments.key).toBe(`seen${k}`);
        for (let i = 0; i < N; i++) expect(a.shown.includes(`\nA${i + 1} [`)).toBe(i < k);
        if (k > 0) expect(a.shown).toContain(h.attempts[k - 1].assessment.revision);
      });
    }
    expect(run.trajectory.rows[0].call?.arguments.key).toBe(`seen${N}`);
    expect(run.trajectory.rows[0].prompt).toContain(MEMORY_HEADER);
  });

  it('parallel attempts see nothing of each other; best-calls memory shows only the plan', async () => {
    const [run] = await tts(countingPolicy([task]), [task], { n: 3, strategy: 'parallel', memory: 'best-calls', memoryTokens: 2000 }, 1);
    for (const h of run.rehearsals) {
      expect(h.attempts.map((a) => a.steps[0].call?.arguments.key)).toEqual(['seen0', 'seen0', 'seen0']);
      expect(h.attempts.every((a) => a.shown === '')).toBe(true);
      expect(h.memory.startsWith(PLAN_PREFIX)).toBe(true);
      expect(h.memory.split('\n')).toHaveLength(1);
    }
    expect(run.trajectory.rows[0].call?.arguments.key).toBe('seen0');
    expect(run.trajectory.rows[0].prompt).toContain('{"name":"set","arguments":{"key":"seen0","value":"v"}}');
  });

  it('attempts at a later turn start from the real history of the committed run', async () => {
    const [run] = await tts(expertGenerator([task]), [task], { n: 2, strategy: 'parallel' }, 1);
    const t1 = run.rehearsals.find((h) => h.userTurn === 1)!;
    const prompt = t1.attempts[0].trajectory.rows[0].prompt!;
    expect(prompt).toContain(task.userTurns[0]);
    expect(prompt).toContain(task.userTurns[1]);
    expect(t1.attempts[0].trajectory.rows.every((r) => r.turn === 1)).toBe(true);
  });

  it('a cache shared across runs reuses attempts without changing results', async () => {
    const cache = new Map();
    const mk = () => expertGenerator(kvTasks, { noise: 0.3 });
    const fresh = await tts(mk(), kvTasks, { n: 2, strategy: 'parallel' }, 1, 3);
    await tts(mk(), kvTasks, { n: 3, strategy: 'parallel', cache }, 1, 3);
    const reused = await tts(mk(), kvTasks, { n: 2, strategy: 'parallel', cache }, 1, 3);
    expect(fingerprint(reused)).toBe(fingerprint(fresh));
    expect(reused[0].rehearsals[0].cached).toBe(2);
  });
});

describe('memory', () => {
  const call = (rng: Rng): ToolCall => ({ name: ['cd', 'ls', 'wc', 'cat'][rng.int(4)], arguments: { file_name: 'x'.repeat(rng.int(60)), n: rng.int(100) } });
  function randomAttempts(rng: Rng): AttemptSummary[] {
    return [...Array(1 + rng.int(5)).keys()].map((index) => {
      const steps: AttemptStep[] = [...Array(rng.int(8)).keys()].map(() => ({ call: call(rng), result: '{}', resultError: rng.uniform() < 0.3 }));
      if (rng.uniform() < 0.6) steps.push({ reply: 'y'.repeat(rng.int(200)) });
      const flags = steps.filter((s) => s.resultError).map((s) => `result_error:${s.call!.name}`);
      return { index, steps, assessment: { by: 'rules', score: rng.uniform(), flags, assessment: 'a'.repeat(rng.int(120)), revision: 'r'.repeat(rng.int(120)), avoid: steps.filter((s) => s.resultError).map((s) => s.call!) } };
    });
  }

  it('never exceeds its budget (characters or tokens), for both kinds', () => {
    const rng = new Rng(11);
    let nonEmpty = 0;
    for (let i = 0; i < 400; i++) {
      const attempts = randomAttempts(rng);
      const budget = rng.int(600);
      for (const kind of ['full', 'best-calls'] as const) {
        for (const measure of [(s: string) => s.length, fakeCount]) {
          const m = buildMemory(attempts, { kind, budget, measure });
          expect(measure(m)).toBeLessThanOrEqual(budget);
          if (m) nonEmpty++;
        }
      }
    }
    expect(nonEmpty).toBeGreaterThan(800);
  });

  it('with room: full = header, plan, avoid list, one line per attempt (best first); best-calls = the plan alone', () => {
    const mk = (index: number, score: number, calls: ToolCall[], bad?: ToolCall): AttemptSummary => ({
      index, steps: [...calls.map((c) => ({ call: c, result: '{}', resultError: c === bad })), { reply: 'It has 4 lines.' }],
      assessment: { by: 'rules', score, flags: [], assessment: `assessment ${index}`, revision: `revision ${index}`, avoid: bad ? [bad] : [] },
    });
    const cd = { name: 'cd', arguments: { folder: 'docs' } };
    const wc = { name: 'wc', arguments: { file_name: 'a.txt' } };
    const bad = { name: 'cd', arguments: { folder: 'docs/a' } };
    const attempts = [mk(0, 0.8, [bad, wc], bad), mk(1, 1, [cd, wc])];
    const full = buildMemory(attempts, { kind: 'full', budget: 5000 }).split('\n');
    expect(full[0]).toBe(MEMORY_HEADER);
    expect(full[1]).toBe(`${PLAN_PREFIX} {"name":"cd","arguments":{"folder":"docs"}} ; {"name":"wc","arguments":{"file_name":"a.txt"}} ; then reply like: "It has 4 lines."`);
    expect(full[2]).toBe('Avoid: cd {"folder":"docs/a"}');
    expect(full[3]).toMatch(/^A2 \[rules 1\.0\] cd \{"folder":"docs"\}, wc \{"file_name":"a.txt"\}, reply\. assessment 1 Revise: revision 1$/);
    expect(full[4]).toMatch(/^A1 \[rules 0\.8\] cd \{"folder":"docs\/a"\} \(error\)/);
    expect(buildMemory(attempts, { kind: 'best-calls', budget: 5000 })).toBe(`${PLAN_PREFIX} {"name":"cd","arguments":{"folder":"docs"}} ; {"name":"wc","arguments":{"file_name":"a.txt"}}`);
    // The full plan is revised by the assessments: a call under Avoid never appears in it (best-calls keeps it).
    const flawed = [mk(0, 0.9, [bad, wc], bad)];
    expect(buildMemory(flawed, { kind: 'full', budget: 5000 }).split('\n')[1]).toBe(`${PLAN_PREFIX} {"name":"wc","arguments":{"file_name":"a.txt"}} ; then reply like: "It has 4 lines."`);
    expect(buildMemory(flawed, { kind: 'best-calls', budget: 5000 })).toContain('"folder":"docs/a"');
    expect(buildMemory([mk(0, 0.5, [bad], bad)], { kind: 'full', budget: 5000 }).split('\n')[1]).toBe(`${PLAN_PREFIX} none (every rehearsed call is under Avoid) ; then reply like: "It has 4 lines."`);
    // A tight budget keeps the plan's head and drops attempt lines first.
    const tight = buildMemory(attempts, { kind: 'full', budget: 150 });
    expect(tight.startsWith(`${MEMORY_HEADER}\n${PLAN_PREFIX} {"name":"cd"`)).toBe(true);
    expect(tight).not.toContain('A1 [');
  });
});

describe('self-evaluation', () => {
  const task = kvTasks[0];
  const run1 = async (act: Responder, rehearse: Responder = oracleRehearse([task])) => {
    const [t] = await rollout([{ task, resume: { conversation: [{ role: 'user', content: task.userTurns[0] }], userTurn: 0 }, lastTurn: 0 }],
      { mode: 'rehearsal', policy: new FakeGenerator(byRole(act, rehearse)), judge: null, limits: { maxAssistantTurns: 4 } });
    return t;
  };

  it('rules: a clean attempt scores 1; an imagined error, a repeat, no reply and an unparsable output are each flagged', async () => {
    const clean = ruleAssessment(await run1(expertAct([task])), 0);
    expect(clean).toMatchObject({ by: 'rules', score: 1, flags: [] });
    const set = { name: 'set', arguments: { key: 'color', value: 'blue' } };
    const looping: Responder = () => formatAct(undefined, [set]);
    const err: Responder = () => formatRehearse(undefined, { error: 'disk full' });
    const a = ruleAssessment(await run1(looping, err), 0);
    expect(a.flags).toEqual(expect.arrayContaining(['result_error:set', 'repeated:set', 'no_reply', 'ended:turn_cap']));
    expect(a.score).toBe(0);
    expect(a.avoid).toEqual([set]);
    expect(a.revision).toMatch(/avoid set .*finish with a reply/);
    const unparsable = ruleAssessment(await run1(() => '<tool_call>\n{"name": "set"'), 0);
    expect(unparsable.flags.some((f) => f.startsWith('act_error:'))).toBe(true);
    const lazy = ruleAssessment(await run1(() => 'It is blue.'), 0);
    expect(lazy.flags).toEqual(['no_calls']);
    expect(lazy.score).toBeLessThan(1);
  });

  it('policy: the critique prompt is sent, its two lines parsed, labelled by "policy"', async () => {
    expect(parseSelfEval('<think>x</think>Assessment: wrong key.\nRevision: use color.')).toEqual({ assessment: 'wrong key.', revision: 'use color.', parsed: true });
    expect(parseSelfEval('garbage\nmore')).toMatchObject({ assessment: 'garbage', parsed: false });
    const t = await run1(expertAct([task]));
    const critic = new FakeGenerator((req) => (req.prompt.includes('You review a rehearsal') && req.prompt.includes('Request: Please set color') ? 'Assessment: fine.\nRevision: none.' : 'no'));
    const [a] = await policyAssessments(critic, compactFormat, [{ request: task.userTurns[0], trajectory: t, userTurn: 0, seed: 1 }], { maxNewTokens: 32, temperature: 0 });
    expect(a).toMatchObject({ by: 'policy', assessment: 'fine.', revision: 'none.', score: 1 });
    const runs = await tts(new FakeGenerator((req, rng) => (req.prompt.includes('You review a rehearsal') ? 'Assessment: ok.\nRevision: same.' : byRole(expertAct([task]), oracleRehearse([task]))(req, rng))),
      [task], { n: 2, strategy: 'sequential', assessor: 'policy', memoryTokens: 2000 }, 1);
    const h = runs[0].rehearsals[0];
    expect(h.attempts.every((x) => x.assessment.by === 'policy' && x.assessment.assessment === 'ok.')).toBe(true);
    expect(h.memory).toContain('[policy 1.0]');
    expect(realMatchesCommitted(runs[0])).toBe(true);
  });
});
