import { describe, expect, it } from 'vitest';
import {
  argMismatch, evaluateCondition, isErrorObservation, judgeEpisode, judgeTranscript, judgeTurn, stepsFromMessages, valueMatches,
  type AssistantStep,
} from '../../src/envs/judges';
import type { ChecklistItem, Message, PassCondition } from '../../src/envs/types';

const item = (id: string, cond: PassCondition, weight: number, required = false): ChecklistItem =>
  ({ id, question: id, focus_on: '', pass_condition: cond, weight, required_for_next_turn: required });

const ok = (text = '{"ok": true}') => ({ text, error: false });
const call = (name: string, args: Record<string, unknown> = {}, result = ok()): AssistantStep => ({ call: { name, arguments: args }, result });

// A three-turn task: look up, act (required), then a refusal turn with a not_called item.
const task = {
  checklist: [
    [item('t0.0', { kind: 'called', tool: 'get_order_details', args: { order_id: '#W0012' } }, 0.4),
      item('t0.1', { kind: 'reply_contains', text: ['W0012', 'pending'] }, 0.6)],
    [item('t1.0', { kind: 'called', tool: 'cancel_pending_order', args: { order_id: '#W0012' }, ok: true }, 0.75, true),
      item('t1.1', { kind: 'reply_contains', text: ['cancelled'] }, 0.25)],
    [item('t2.0', { kind: 'not_called', tool: 'cancel_pending_order', args: { order_id: '#W0099' } }, 0.5, true),
      item('t2.1', { kind: 'result_contains', tool: 'get_order_details', text: '"delivered"' }, 0.5)],
  ],
};

describe('checklist judge', () => {
  it('passes an item if ANY step of the turn satisfies it, and sums passed weights', () => {
    const v = judgeTurn(task, 0, [
      call('get_order_details', { order_id: 'W0012' }, { text: 'Error: Order not found', error: true }),
      call('get_order_details', { order_id: '#W0012' }),
      { reply: 'It is on its way.' },
    ]);
    expect(v.items.map((i) => i.passed)).toEqual([true, false]);
    expect(v.score).toBeCloseTo(0.4, 12);
    expect(v.terminated).toBe(false);
    expect(v.items[1].reason).toMatch(/FAIL t0\.1/);
    expect(v.items[0].reason).toMatch(/step 1/);
    // Any step, for every kind: the satisfying reply or result need not be the turn's last one.
    expect(evaluateCondition({ kind: 'reply_contains', text: ['W0012', 'pending'] },
      [{ reply: 'W0012 is pending.' }, { reply: 'Anything else?' }]).passed).toBe(true);
    expect(evaluateCondition({ kind: 'result_contains', tool: 'get_order_details', text: '"delivered"' }, [
      call('get_order_details', { order_id: '#W0099' }, ok('{"status": "delivered"}')),
      call('get_order_details', { order_id: '#W0012' }, ok('{"status": "pending"}')),
    ]).passed).toBe(true);
  });

  it('ids must be written exactly: W0012 does not match #W0012', () => {
    const r = evaluateCondition({ kind: 'called', tool: 'get_order_details', args: { order_id: '#W0012' } }, [call('get_order_details', { order_id: 'W0012' })]);
    expect(r.passed).toBe(false);
    expect(r.reason).toContain('order_id="W0012"');
  });

  it('ok: true ignores calls whose result is an error', () => {
    const cond: PassCondition = { kind: 'called', tool: 'cancel_pending_order', args: { order_id: '#W0012' }, ok: true };
    expect(evaluateCondition(cond, [call('cancel_pending_order', { order_id: '#W0012' }, { text: 'Error: Non-pending order cannot be cancelled', error: true })]).passed).toBe(false);
    expect(evaluateCondition(cond, [call('cancel_pending_order', { order_id: '#W0012', reason: 'x' })]).passed).toBe(true);
  });

  it('not_called is a property of the whole turn', () => {
    const cond: PassCondition = { kind: 'not_called', tool: 'cancel_pending_order', args: { order_id: '#W0099' } };
    expect(evaluateCondition(cond, [{ reply: 'cannot' }]).passed).toBe(true);
    expect(evaluateCondition(cond, [call('cancel_pending_order', { order_id: '#W0012' })]).passed).toBe(true);   // other args
    const bad = evaluateCondition(cond, [{ reply: 'ok' }, call('cancel_pending_order', { order_id: '#W0099', reason: 'no longer needed' }), { reply: 'done' }]);
    expect(bad.passed).toBe(false);
    expect(bad.reason).toMatch(/forbidden call at step 1/);
    // without args: any call to the tool is forbidden
    expect(evaluateCondition({ kind: 'not_called', tool: 'rm' }, [call('rm', { file_name: 'a' })]).passed).toBe(false);
  });

  it('a failed required item ends the episode; score is normalised by the annotated turns', () => {
    const v = judgeEpisode(task, [
      [call('get_order_details', { order_id: '#W0012' }), { reply: 'Order #W0012 is pending.' }],
      [{ reply: 'Sure, it is cancelled.' }],             // claims but never calls: required item fails
      [{ reply: 'never judged' }],
    ]);
    expect(v.turns.map((t) => t.score)).toEqual([1, 0.25, 0]);
    expect(v.turns[1].terminated).toBe(true);
    expect(v.terminatedEarly).toBe(true);
    expect(v.turns[2].items.every((i) => !i.passed && /ended by a failed required item/.test(i.reason))).toBe(true);
    expect(v.score).toBeCloseTo(1.25 / 3, 12);
  });

  it('turns never reached score 0 and still count in the denominator', () => {
    const v = judgeEpisode(task, [[call('get_order_details', { order_id: '#W0012' }), { reply: 'W0012 is PENDING' }]]);
    expect(v.score).toBeCloseTo(1 / 3, 12);
    expect(v.terminatedEarly).toBe(false);
    expect(v.turns[1].items[0].reason).toMatch(/not reached/);
  });

  it('a perfect episode scores exactly 1 and result_contains reads the observation', () => {
    const v = judgeEpisode(task, [
      [call('get_order_details', { order_id: '#W0012' }), { reply: 'Order #W0012 is pending.' }],
      [call('cancel_pending_order', { order_id: '#W0012', reason: 'no longer needed' }), { reply: 'Cancelled.' }],
      [call('get_order_details', { order_id: '#W0099' }, ok('{"status": "delivered"}')), { reply: 'It is delivered; I cannot cancel it.' }],
    ]);
    expect(v.score).toBe(1);
    expect(v.turns.every((t) => t.score === 1)).toBe(true);
  });

  it('reply_contains is case- and whitespace-insensitive and needs all strings in one reply', () => {
    const cond: PassCondition = { kind: 'reply_contains', text: ['W0012', 'is  Pending'] };
    expect(evaluateCondition(cond, [{ reply: 'order #w0012 IS pending' }]).passed).toBe(true);
    expect(evaluateCondition(cond, [{ reply: 'order #W0012' }, { reply: 'is pending' }]).passed).toBe(false);
    expect(evaluateCondition(cond, [call('x')]).reason).toMatch(/no reply/);
  });

  it('argument matching: subsets, numbers, lists as multisets', () => {
    expect(argMismatch({ a: 1 }, { a: 1.0, b: 2 })).toBeNull();
    expect(argMismatch({ ids: ['2', '1'] }, { ids: ['1', '2'] })).toBeNull();
    expect(argMismatch({ ids: ['1', '1'] }, { ids: ['1', '2'] })).toMatch(/ids=/);
    expect(argMismatch({ a: 'x' }, {})).toMatch(/a missing/);
    expect(valueMatches({ k: { z: 1 } }, { k: { z: 1 } })).toBe(true);
    expect(valueMatches({ k: 1 }, { k: 1, extra: 2 })).toBe(false);   // nested objects compare exactly
  });

  it('recognises the error shapes of every port', () => {
    expect(isErrorObservation({ text: 'Error: Order not found', error: true })).toBe(true);
    expect(isErrorObservation({ text: '{"error": "cd: x: No such directory."}', error: false })).toBe(true);
    expect(isErrorObservation({ text: '{"error_tool_call": {"code": "INVALID_PARAMETERS"}}', error: false })).toBe(true);
    expect(isErrorObservation({ text: '{"result": "ok"}', error: false })).toBe(false);
    expect(isErrorObservation({ text: 'None', error: false })).toBe(false);
  });

  it('stepsFromMessages pairs calls with their results and splits by user turn', () => {
    const msgs: Message[] = [
      { role: 'system', content: 'policy' },
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: '', toolCalls: [{ name: 'a', arguments: {} }, { name: 'b', arguments: { x: 1 } }] },
      { role: 'tool', name: 'a', content: 'A' },
      { role: 'tool', name: 'b', content: 'Error: B', error: true },
      { role: 'assistant', content: 'done' },
      { role: 'user', content: 'more' },
      { role: 'assistant', content: 'ok' },
    ];
    const turns = stepsFromMessages(msgs);
    expect(turns).toHaveLength(2);
    expect(turns[0]).toEqual([
      { call: { name: 'a', arguments: {} }, result: { text: 'A', error: false } },
      { call: { name: 'b', arguments: { x: 1 } }, result: { text: 'Error: B', error: true } },
      { reply: 'done' },
    ]);
    expect(turns[1]).toEqual([{ reply: 'ok' }]);
    const v = judgeTranscript({ checklist: [[item('i', { kind: 'called', tool: 'b', ok: true }, 1)], [item('j', { kind: 'reply_contains', text: ['ok'] }, 1)]] }, msgs);
    expect(v.turns.map((t) => t.score)).toEqual([0, 1]);
  });

  it('runs the outcome verifier when given the final env', () => {
    const env = { name: 'x', tools: () => [], call: () => ok(), snapshot: () => ({}), clone: () => env };
    const v = judgeEpisode({ ...task, verify: () => ({ passed: false, reason: 'differs at $.a' }) }, [], env);
    expect(v.outcome).toEqual({ passed: false, reason: 'differs at $.a' });
    expect(v.score).toBe(0);
  });
});

describe('judge properties on generated tasks', () => {
  // Under mutation testing (vitest.mutation.config.ts) every mutant that survives reruns these: fewer tasks there.
  const PER_WORLD = process.env.ENVACE_MUTATION ? 5 : 15;
  const load = async () => {
    const { getWorld, replayReference } = await import('../../src/envs/worlds/index');
    const tasks = [...getWorld('retail').tasks({ count: PER_WORLD }), ...getWorld('files').tasks({ count: PER_WORLD })];
    return { tasks, replays: tasks.map((t) => replayReference(t).turnSteps) };
  };

  it('the full expert replay (every step kept) scores exactly 1 on every task', async () => {
    const { tasks, replays } = await load();
    for (const [i, t] of tasks.entries()) {
      const v = judgeEpisode(t, replays[i]);
      expect(v.score, t.id).toBe(1);
      expect(v.terminatedEarly).toBe(false);
    }
  });

  it('dropping expert steps never passes an item a fuller replay fails, nor raises any turn score', async () => {
    const fc = await import('fast-check');
    const { tasks, replays } = await load();
    const full = tasks.map((t, i) => judgeEpisode(t, replays[i]));
    let lowered = 0;
    const mask = fc.array(fc.boolean(), { minLength: 40, maxLength: 40 });
    fc.assert(fc.property(fc.nat(tasks.length - 1), mask, mask, fc.boolean(), (i, keep, more, junk) => {
      // two nested trims of the same replay: `fewer` keeps a subset of the steps `superset` keeps
      const trim = (kept: (k: number) => boolean) => {
        let k = 0;
        return replays[i].map((turn) => {
          const out = turn.filter(() => kept(k++ % 40));
          // junk: arguments of the wrong type and unknown tools must not crash the judge
          return junk ? [...out, { call: { name: 'nope', arguments: 'x' as unknown as Record<string, unknown> } }, { reply: '' }] : out;
        });
      };
      const fewer = judgeEpisode(tasks[i], trim((k) => keep[k]));
      const superset = judgeEpisode(tasks[i], trim((k) => keep[k] || more[k]));
      for (const [small, big] of [[fewer, superset], [superset, full[i]], [fewer, full[i]]]) {
        expect(small.score).toBeGreaterThanOrEqual(0);
        expect(small.score).toBeLessThanOrEqual(big.score + 1e-12);
        small.turns.forEach((turn, ti) => {
          const sum = turn.items.reduce((a, it) => a + (it.passed ? it.weight : 0), 0);
          expect(turn.score).toBeCloseTo(sum, 9);
          expect(turn.score).toBeLessThanOrEqual(big.turns[ti].score + 1e-12);
          turn.items.forEach((it, ii) => { if (it.passed) expect(big.turns[ti].items[ii].passed, it.id).toBe(true); });
        });
      }
      if (fewer.score < superset.score) lowered++;
    }), { numRuns: 200, seed: 7 });
    // the comparison is not vacuous: the smaller trim often scores strictly lower
    expect(lowered).toBeGreaterThan(40);
  });
});
