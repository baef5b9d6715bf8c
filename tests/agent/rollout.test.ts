import { describe, expect, it } from 'vitest';
import { rollout, rolloutGroups, type RolloutConfig } from '../../src/agent/rollout';
import { formatAct, formatRehearse } from '../../src/agent/protocol';
import {
  FakeGenerator, byRole, expertAct, expertGenerator, isRehearsePrompt, kvTask, oracleRehearse, type Responder,
} from '../../src/agent/testing';
import { batchFidelity } from '../../src/agent/fidelity';
import type { Trajectory } from '../../src/agent/types';

const task = kvTask();
const tasks = [kvTask('kv-a', 'color', 'blue'), kvTask('kv-b', 'size', 'large'), kvTask('kv-c', 'shape', 'round')];
const base = (over: Partial<RolloutConfig> & Pick<RolloutConfig, 'policy'>): RolloutConfig => ({ mode: 'rehearsal', ...over });
const shape = (t: Trajectory) => t.rows.map((r) => `${r.role}${r.error ? `!${r.error.code}` : ''}`).join(' ');

describe('rollout modes', () => {
  it('real: the environment answers, only Act rows', async () => {
    const g = expertGenerator([task]);
    const [t] = await rollout([{ task }], base({ mode: 'real', policy: g }));
    expect(t).toMatchObject({ terminatedBy: 'final_turn', reward: 1, mode: 'real' });
    expect(shape(t)).toBe('act act act act');
    expect(t.verdict?.outcome?.passed).toBe(true);
    expect(t.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant', 'user', 'assistant', 'tool', 'assistant']);
    expect(t.rows[0].call).toEqual({ name: 'set', arguments: { key: 'color', value: 'blue' } });
    expect(t.rows[0].prompt?.startsWith('<|system|>')).toBe(true);
    expect(g.batches.every((b) => b.length === 1 && b.every((r) => !isRehearsePrompt(r.prompt)))).toBe(true);
  });

  it('rehearsal: one Rehearse generation per call, shadow-executed for fidelity', async () => {
    const [t] = await rollout([{ task }], base({ policy: expertGenerator([task]) }));
    expect(t).toMatchObject({ terminatedBy: 'final_turn', reward: 1 });
    expect(shape(t)).toBe('act rehearse act act rehearse act');
    const r = t.rows[1];
    expect(r).toMatchObject({ role: 'rehearse', parent: 0, callIndex: 0, turn: 0, call: { name: 'set' }, imagined: '{"ok":true,"key":"color","value":"blue"}' });
    expect(r.real).toEqual({ text: '{"ok":true,"key":"color","value":"blue"}', error: false });
    expect(r.fidelity).toEqual({ exact: true, fieldF1: 1, errorAgree: true });
    expect(t.rows[4].turn).toBe(1);
    expect(t.verdict?.outcome?.passed).toBe(true); // the shadow env saw the imagined trajectory's calls
  });

  it('simulator: a frozen model answers, the policy never sees Rehearse prompts', async () => {
    const policy = new FakeGenerator(expertAct([task]), { name: 'policy' });
    const sim = new FakeGenerator(oracleRehearse([task]), { name: 'sim' });
    const [t] = await rollout([{ task }], base({ mode: 'simulator', policy, simulator: sim }));
    expect(t.reward).toBe(1);
    expect(t.rows.filter((r) => r.role === 'rehearse').every((r) => r.frozen)).toBe(true);
    expect(policy.batches.flat().some((r) => isRehearsePrompt(r.prompt))).toBe(false);
    expect(sim.batches.flat().every((r) => isRehearsePrompt(r.prompt))).toBe(true);
  });

  it('shadowing can be turned off', async () => {
    const [t] = await rollout([{ task }], base({ policy: expertGenerator([task]), shadow: false }));
    expect(t.rows.some((r) => r.real || r.fidelity)).toBe(false);
    expect(t.verdict?.outcome).toBeUndefined();
  });
});

describe('batching', () => {
  it('one generate() per round over all live trajectories, Act and Rehearse mixed', async () => {
    const g = expertGenerator(tasks);
    const ts = await rolloutGroups(tasks, 2, base({ policy: g }));
    expect(ts.map((t) => t.taskId)).toEqual(['kv-a', 'kv-a', 'kv-b', 'kv-b', 'kv-c', 'kv-c']);
    expect(ts.every((t) => t.reward === 1)).toBe(true);
    // 6 generations per trajectory, all trajectories in lockstep: 6 rounds of 6 requests.
    expect(g.batches.map((b) => b.length)).toEqual([6, 6, 6, 6, 6, 6]);
  });

  it('several calls of one Act output are rehearsed in the same round, answered in order', async () => {
    const two = formatAct('both', [{ name: 'set', arguments: { key: 'color', value: 'blue' } }, { name: 'get', arguments: { key: 'color' } }]);
    const act: Responder = (req) => (req.prompt.split('<|assistant|>').length === 2 ? two : 'color is blue.');
    const g = new FakeGenerator(byRole(act, oracleRehearse([task])));
    const [t] = await rollout([{ task: { ...task, userTurns: task.userTurns.slice(0, 1), checklist: task.checklist.slice(0, 1) } }], base({ policy: g }));
    expect(shape(t)).toBe('act rehearse rehearse act');
    expect(g.batches.map((b) => b.length)).toEqual([1, 2, 1]);
    expect(t.rows[2]).toMatchObject({ callIndex: 1, call: { name: 'get' }, real: { text: '{"key":"color","value":"blue"}' } });
    expect(t.messages.filter((m) => m.role === 'tool').map((m) => (m.role === 'tool' ? m.name : ''))).toEqual(['set', 'get']);
  });
});

describe('determinism', () => {
  const run = (seed: number) => rolloutGroups(tasks, 4, base({ policy: expertGenerator(tasks, { noise: 0.3 }), seed, act: { temperature: 0.7 } }));
  const strip = (ts: Trajectory[]) => JSON.stringify(ts);

  it('same seed → identical trajectories; another seed → different ones', async () => {
    const a = await run(5);
    const b = await run(5);
    const c = await run(6);
    expect(strip(a)).toBe(strip(b));
    expect(strip(a)).not.toBe(strip(c));
    // The noise must actually bite, or the test proves nothing.
    expect(new Set(a.map(shape)).size).toBeGreaterThan(1);
  });

  it('a trajectory does not depend on what else is in the batch', async () => {
    const cfg = base({ policy: expertGenerator(tasks, { noise: 0.3 }), seed: 9 });
    const all = await rolloutGroups(tasks, 4, cfg);
    const alone = await rollout([{ task: tasks[1], sample: 2, groupId: tasks[1].id }], { ...cfg, policy: expertGenerator(tasks, { noise: 0.3 }) });
    expect(JSON.stringify(alone[0])).toBe(JSON.stringify(all[4 + 2]));
  });
});

describe('errors and termination', () => {
  const broken: Responder = () => '\n<tool_call>\n{"name":"set","arguments":{"key":"color"\n</tool_call>';

  it('an Act parse error ends the episode with reward 0', async () => {
    const [t] = await rollout([{ task }], base({ policy: new FakeGenerator(byRole(broken, oracleRehearse([task]))) }));
    expect(t).toMatchObject({ terminatedBy: 'parse_error', reward: 0, error: { code: 'JSON_DECODE_ERROR' } });
    expect(shape(t)).toBe('act!JSON_DECODE_ERROR');
    expect(t.messages.at(-1)).toMatchObject({ role: 'tool', name: 'error_tool_call', error: true });
  });

  it('with errorsEndEpisode off the policy sees the error and goes on', async () => {
    let n = 0;
    const flaky: Responder = (req, rng) => (n++ === 0 ? broken(req, rng) : expertAct([task])(req, rng));
    const g = new FakeGenerator(byRole(flaky, oracleRehearse([task])));
    const [t] = await rollout([{ task }], base({ policy: g, errorsEndEpisode: false, judge: null }));
    expect(t.rows[0].error?.code).toBe('JSON_DECODE_ERROR');
    expect(t.rows.length).toBeGreaterThan(1);
    expect(t.terminatedBy).not.toBe('parse_error');
  });

  it('a Rehearse verdict error is a tool_error; a malformed Rehearse output a parse_error', async () => {
    const verdict: Responder = () => formatRehearse('no', { error_tool_call: { code: 'INVALID_PARAMETERS', message: 'x' } });
    const [t1] = await rollout([{ task }], base({ policy: new FakeGenerator(byRole(expertAct([task]), verdict)) }));
    expect(t1).toMatchObject({ terminatedBy: 'tool_error', reward: 0 });
    expect(t1.rows[1].fidelity).toEqual({ exact: false, fieldF1: 0, errorAgree: false });
    const [t2] = await rollout([{ task }], base({ policy: new FakeGenerator(byRole(expertAct([task]), () => 'no tags')) }));
    expect(t2).toMatchObject({ terminatedBy: 'parse_error', reward: 0, error: { code: 'NO_EXECUTION_RESULT_TAG_FOUND' } });
  });

  it("a fatal error keeps the turn rewards already earned by default (reference); 'zero-episode' zeroes all", async () => {
    let rehearsals = 0;
    const failSecond: Responder = (req, rng) => (++rehearsals === 2 ? '' : oracleRehearse([task])(req, rng));
    const mk = () => new FakeGenerator(byRole(expertAct([task]), failSecond));
    // Turn 1 of 2 was completed and fully passed (0.5 of the episode); the error in turn 2 scores that turn 0.
    const [t] = await rollout([{ task }], base({ policy: mk() }));
    expect(t).toMatchObject({ terminatedBy: 'parse_error', reward: 0.5, error: { code: 'EMPTY_SIMULATOR_OUTPUT' } });
    expect(t.verdict?.score).toBe(0.5);
    rehearsals = 0;
    const [k] = await rollout([{ task }], base({ policy: mk(), errorReward: 'keep-completed-turns' }));
    expect(k.reward).toBe(0.5);
    rehearsals = 0;
    const [z] = await rollout([{ task }], base({ policy: mk(), errorReward: 'zero-episode' }));
    expect(z.reward).toBe(0);
    expect(z.verdict?.score).toBe(0.5); // the judge's verdict is unchanged; only the reward follows the rule
  });

  it('an imagined result that disagrees with the real one scores partial fidelity', async () => {
    const liar: Responder = () => formatRehearse('guess', { ok: true, key: 'color', value: 'red' });
    const [t] = await rollout([{ task }], base({ policy: new FakeGenerator(byRole(expertAct([task]), liar)) }));
    const f = t.rows[1].fidelity!;
    expect(f.exact).toBe(false);
    expect(f.fieldF1).toBeCloseTo(2 / 3);
    expect(f.errorAgree).toBe(true);
    expect(batchFidelity([t]).overall.perTool.set.calls).toBe(1);
  });

  it('a failed required item ends the episode', async () => {
    const wrong: Responder = (req) => (req.prompt.split('<|assistant|>').length === 2 ? formatAct(undefined, [{ name: 'list', arguments: {} }]) : 'ok');
    const [t] = await rollout([{ task }], base({ policy: new FakeGenerator(byRole(wrong, oracleRehearse([task]))) }));
    expect(t.terminatedBy).toBe('required_item_failed');
    expect(t.verdict?.turns[0]).toMatchObject({ score: 0, terminated: true });
    expect(t.reward).toBe(0);
  });

  it('assistant-turn, generation and context caps', async () => {
    const loop: Responder = () => formatAct(undefined, [{ name: 'list', arguments: {} }]);
    const g = () => new FakeGenerator(byRole(loop, oracleRehearse([task])));
    const [a] = await rollout([{ task }], base({ policy: g(), limits: { maxAssistantTurns: 3 } }));
    expect(a.terminatedBy).toBe('turn_cap');
    expect(a.rows.filter((r) => r.role === 'act').length).toBe(3);
    const [b] = await rollout([{ task }], base({ policy: g(), limits: { maxGenerations: 5 } }));
    expect(b.terminatedBy).toBe('generation_cap');
    expect(b.rows.length).toBeLessThanOrEqual(5);
    const [c] = await rollout([{ task }], base({ mode: 'real', policy: new FakeGenerator(loop, { maxContext: 300 }), act: { maxNewTokens: 64 } }));
    expect(c.terminatedBy).toBe('length');
    const [d] = await rollout([{ task }], base({ mode: 'real', policy: new FakeGenerator(expertAct([task]), { maxContext: 190 }), act: { maxNewTokens: 64 }, limits: { minNewTokens: 8 } }));
    expect(d.rows.length).toBeGreaterThan(0);
    expect(d.terminatedBy).toBe('length');
  });

  it('a Rehearse generation always gets its full budget: it sheds context instead (Act may shrink to minNewTokens)', async () => {
    // A context where the full Rehearse prompt leaves less than the budget: the rollout must shed history and hints
    // until the budget fits, never sample the Rehearse row with fewer tokens.
    const run = async (maxContext: number) => (await rollout([{ task }], base({
      policy: new FakeGenerator(byRole(expertAct([task]), oracleRehearse([task])), { maxContext }),
      rehearse: { maxNewTokens: 60 }, act: { maxNewTokens: 40 }, limits: { minNewTokens: 8 },
    })))[0];
    const roomy = (await run(1000)).rows.filter((r) => r.role === 'rehearse');
    const t = await run(480);
    const reh = t.rows.filter((r) => r.role === 'rehearse');
    // (The oracle replays the history the prompt shows, so with history shed its second answer may differ.)
    expect(t.terminatedBy).not.toBe('length');
    expect(reh.length).toBeGreaterThanOrEqual(1);
    // The full prompt would leave less than 60 tokens here (it does not at 1000): the fitted one is shorter.
    expect(480 - roomy[0].promptIds.length).toBeLessThan(60);
    for (const [i, r] of reh.entries()) {
      expect(480 - r.promptIds.length).toBeGreaterThanOrEqual(60);
      expect(r.promptIds.length).toBeLessThanOrEqual(roomy[i].promptIds.length);
    }
    // Nothing fits with a budget larger than the context: the episode ends 'length' before any Rehearse row.
    const [u] = await rollout([{ task }], base({ policy: new FakeGenerator(byRole(expertAct([task]), oracleRehearse([task])), { maxContext: 480 }), rehearse: { maxNewTokens: 400 }, act: { maxNewTokens: 40 }, limits: { minNewTokens: 8 } }));
    expect(u.rows.filter((r) => r.role === 'rehearse')).toHaveLength(0);
    expect(u.terminatedBy).toBe('length');
  });

  it('user turns cap', async () => {
    const [t] = await rollout([{ task }], base({ mode: 'real', policy: expertGenerator([task]), limits: { maxUserTurns: 1 } }));
    expect(t).toMatchObject({ terminatedBy: 'turn_cap', reward: 0.5 });
  });
});

describe('judging', () => {
  it("judgeOn 'real' reads the shadow environment's answers, 'transcript' (default) what the policy saw", async () => {
    const strict = { ...task, checklist: [[{ ...task.checklist[0][0], pass_condition: { kind: 'called' as const, tool: 'set', ok: true } }, task.checklist[0][1]], task.checklist[1]] };
    const denies: Responder = () => formatRehearse('x', { error: 'denied' }); // a domain error: not fatal
    const mk = () => new FakeGenerator(byRole(expertAct([strict]), denies));
    const [shown] = await rollout([{ task: strict }], base({ policy: mk() }));
    expect(shown.terminatedBy).toBe('required_item_failed');
    const [transcript] = await rollout([{ task: strict }], base({ policy: mk(), judgeOn: 'transcript' }));
    expect(transcript.terminatedBy).toBe('required_item_failed');
    const [real] = await rollout([{ task: strict }], base({ policy: mk(), judgeOn: 'real' }));
    expect(real.verdict?.turns[0].items[0].passed).toBe(true);
    expect(real.rows[1].fidelity?.errorAgree).toBe(false);
  });

  it('without a judge the episode still ends and the outcome is verified', async () => {
    const [t] = await rollout([{ task }], base({ policy: expertGenerator([task]), judge: null }));
    expect(t).toMatchObject({ terminatedBy: 'final_turn', reward: 0 });
    expect(t.verdict?.outcome?.passed).toBe(true);
  });
});
