// The checklist judge's rules one by one (src/envs/judges.ts): error shapes, argument matching, every pass
// condition's verdict and reason, score rounding, termination, transcript splitting and the printed summary.
// judges.test.ts holds the behaviour on a worked task and on generated worlds; these pin the edges and the exact
// reasons a reader of a failed rollout sees, so a changed comparison, bound or message fails a test here
// (StrykerJS: `npm run mutation`).
import { describe, expect, it } from 'vitest';
import {
  argMismatch, evaluateCondition, explainVerdict, isErrorObservation, judgeEpisode, judgeItems, judgeTurn, stepsFromMessages, valueMatches,
  type AssistantStep,
} from '../../src/envs/judges';
import type { ChecklistItem, Environment, Message, PassCondition } from '../../src/envs/types';

const item = (id: string, cond: PassCondition, weight: number, required = false): ChecklistItem =>
  ({ id, question: id, focus_on: '', pass_condition: cond, weight, required_for_next_turn: required });
const ok = (text = '{"ok": true}') => ({ text, error: false });
const err = (text = 'Error: no') => ({ text, error: true });
const call = (name: string, args: Record<string, unknown> = {}, result: AssistantStep['result'] = ok()): AssistantStep => ({ call: { name, arguments: args }, result });
const says = (reply: string): AssistantStep => ({ reply });

describe('isErrorObservation', () => {
  it('the flag, an "error" word at the start, or a JSON object with an error key', () => {
    expect(isErrorObservation(undefined)).toBe(false);
    expect(isErrorObservation({ text: 'all good', error: true })).toBe(true);
    expect(isErrorObservation(ok('Error: x'))).toBe(true);
    expect(isErrorObservation(ok('ERROR x'))).toBe(true);
    expect(isErrorObservation(ok('error'))).toBe(true);
    expect(isErrorObservation(ok('  \n error: leading space'))).toBe(true);
    expect(isErrorObservation(ok('errors: 0'))).toBe(false); // a word that only starts with "error"
    expect(isErrorObservation(ok('no error'))).toBe(false);
    expect(isErrorObservation(ok('{"error": null}'))).toBe(true);
    expect(isErrorObservation(ok('  {"error_tool_call": {}}'))).toBe(true);
    expect(isErrorObservation(ok('{"errors": 1}'))).toBe(false);
    expect(isErrorObservation(ok('{"status": "error"}'))).toBe(false);
    expect(isErrorObservation(ok('[{"error": 1}]'))).toBe(false);
    expect(isErrorObservation(ok('{"error": 1'))).toBe(false); // not JSON
    expect(isErrorObservation(ok('null'))).toBe(false);
    expect(isErrorObservation(ok(''))).toBe(false);
  });
});

describe('valueMatches', () => {
  it('primitives: exact, numbers within 1e-9', () => {
    expect(valueMatches('a', 'a')).toBe(true);
    expect(valueMatches('a', 'A')).toBe(false);
    expect(valueMatches(1, 1 + 5e-10)).toBe(true);
    expect(valueMatches(1, 1 - 5e-10)).toBe(true);
    expect(valueMatches(1, 1 + 2e-9)).toBe(false);
    expect(valueMatches(0, 1e-9)).toBe(false); // the tolerance is strict
    expect(valueMatches(1, '1')).toBe(false);
    expect(valueMatches('1', 1)).toBe(false);
    expect(valueMatches(true, true)).toBe(true);
    expect(valueMatches(true, 1)).toBe(false);
    expect(valueMatches(null, null)).toBe(true);
    expect(valueMatches(null, undefined)).toBe(false);
    expect(valueMatches(null, {})).toBe(false);
    expect(valueMatches(undefined, undefined)).toBe(false); // not a JSON value: matches nothing
  });

  it('lists of primitives as multisets, other lists position by position', () => {
    expect(valueMatches([1, 2, 2], [2, 1, 2])).toBe(true);
    expect(valueMatches([1, 2, 2], [1, 1, 2])).toBe(false);
    expect(valueMatches([1, '1'], ['1', 1])).toBe(true);
    expect(valueMatches([1, 1], ['1', 1])).toBe(false);
    expect(valueMatches([1, 2], [1, 2, 3])).toBe(false);
    expect(valueMatches([1], { 0: 1 })).toBe(false);
    expect(valueMatches([], [])).toBe(true);
    expect(valueMatches([{ a: 1 }, { b: 2 }], [{ a: 1 }, { b: 2 }])).toBe(true);
    expect(valueMatches([{ a: 1 }, { b: 2 }], [{ b: 2 }, { a: 1 }])).toBe(false);
    expect(valueMatches([[1, 2]], [[2, 1]])).toBe(true);
  });

  it('objects key by key, exactly', () => {
    expect(valueMatches({ a: 1, b: [2] }, { b: [2], a: 1 })).toBe(true);
    expect(valueMatches({ a: 1 }, { a: 2 })).toBe(false);
    expect(valueMatches({ a: 1 }, { b: 1 })).toBe(false); // same size, other key
    expect(valueMatches({ a: 1 }, {})).toBe(false);
    expect(valueMatches({}, {})).toBe(true);
    expect(valueMatches({}, [])).toBe(false);
    expect(valueMatches({}, null)).toBe(false);
    expect(valueMatches({ a: 1 }, 'a')).toBe(false);
    expect(valueMatches({ a: undefined }, { b: undefined })).toBe(false);
  });
});

describe('argMismatch', () => {
  it('null when every expected key matches (extra arguments allowed) or nothing is expected', () => {
    expect(argMismatch(undefined, { a: 1 })).toBeNull();
    expect(argMismatch(undefined, undefined)).toBeNull();
    expect(argMismatch({}, { a: 1 })).toBeNull();
    expect(argMismatch({ a: 1 }, { a: 1, b: 2 })).toBeNull();
  });

  it('names the first missing or different key with the expected value', () => {
    expect(argMismatch({ a: 'x', b: 1 }, { b: 1 })).toBe('a missing (expected "x")');
    expect(argMismatch({ a: 'x', b: 1 }, { a: 'x', b: 2 })).toBe('b=2 (expected 1)');
    expect(argMismatch({ a: [1] }, { a: null })).toBe('a=null (expected [1])');
  });

  it('arguments that are not an object match no expected key', () => {
    for (const actual of [undefined, null, [1], 'a', 3] as unknown[]) {
      expect(argMismatch({ 0: 1 }, actual as Record<string, unknown>)).toBe('0 missing (expected 1)');
    }
  });
});

describe('evaluateCondition', () => {
  const long = { text: 'x'.repeat(100) };

  it("called: the first matching step, with the call in the reason (long arguments cut at 80 characters)", () => {
    expect(evaluateCondition({ kind: 'called', tool: 'get', args: { a: 1 } }, [call('set', { a: 1 }), call('get', { a: 1, b: 'z' })]))
      .toEqual({ passed: true, reason: 'step 1 called get({"a":1,"b":"z"})' });
    const r = evaluateCondition({ kind: 'called', tool: 'get' }, [call('get', long)]);
    expect(r.reason).toBe(`step 0 called get(${JSON.stringify(long).slice(0, 77)}...)`);
    const exactly80 = { t: 'y'.repeat(72) }; // {"t":"…"} is 80 characters: shown whole
    expect(JSON.stringify(exactly80)).toHaveLength(80);
    expect(evaluateCondition({ kind: 'called', tool: 'get' }, [call('get', exactly80)]).reason).toBe(`step 0 called get(${JSON.stringify(exactly80)})`);
    const noArgs = { call: { name: 'get' } as unknown as AssistantStep['call'], result: ok() };
    expect(evaluateCondition({ kind: 'called', tool: 'get' }, [noArgs]).reason).toBe('step 0 called get({})');
  });

  it('called: no call to the tool lists the tools that were called, once each', () => {
    expect(evaluateCondition({ kind: 'called', tool: 'get' }, [call('set'), says('hi'), call('del'), call('set')]))
      .toEqual({ passed: false, reason: 'no call to get (calls: set, del)' });
    expect(evaluateCondition({ kind: 'called', tool: 'get' }, [says('hi')])).toEqual({ passed: false, reason: 'no call to get (calls: none)' });
    expect(evaluateCondition({ kind: 'called', tool: 'get' }, [])).toEqual({ passed: false, reason: 'no call to get (calls: none)' });
  });

  it('called: each call to the tool that did not count, and why', () => {
    const cond: PassCondition = { kind: 'called', tool: 'cancel', args: { id: '#1' }, ok: true };
    expect(evaluateCondition(cond, [call('cancel', { id: '1' }), says('x'), call('cancel', { id: '#1' }, err()), call('get')])).toEqual({
      passed: false, reason: 'cancel called but not as required: step 0: id="1" (expected "#1"); step 2: result was an error',
    });
    // without ok, an error result still counts; with ok, an error only in the text counts as an error too
    expect(evaluateCondition({ kind: 'called', tool: 'cancel' }, [call('cancel', {}, err())]).passed).toBe(true);
    expect(evaluateCondition({ ...cond, args: undefined }, [call('cancel', {}, ok('{"error": "x"}'))]).passed).toBe(false);
    expect(evaluateCondition({ ...cond, args: undefined }, [call('cancel', {}, undefined)]).passed).toBe(true);
  });

  it('not_called: passes when no call matches; names the first forbidden call', () => {
    expect(evaluateCondition({ kind: 'not_called', tool: 'rm' }, [call('ls')])).toEqual({ passed: true, reason: 'rm not called' });
    expect(evaluateCondition({ kind: 'not_called', tool: 'rm', args: { f: 'a' } }, [call('rm', { f: 'b' })])).toEqual({ passed: true, reason: 'rm with {"f":"a"} not called' });
    expect(evaluateCondition({ kind: 'not_called', tool: 'rm', args: { f: 'a' } }, [says('x'), call('rm', { f: 'a' }, err()), call('rm', { f: 'a', g: 1 })]))
      .toEqual({ passed: false, reason: 'forbidden call at step 1: rm({"f":"a"})' });
  });

  it('reply_contains: one reply with every string, case and runs of whitespace ignored', () => {
    const cond: PassCondition = { kind: 'reply_contains', text: ['Order  #W1', 'shipped'] };
    expect(evaluateCondition(cond, [says('no'), call('x'), says('order\t#w1\nhas SHIPPED')])).toEqual({ passed: true, reason: 'reply at step 2 mentions ["Order  #W1","shipped"]' });
    expect(evaluateCondition(cond, [says('order #W1 is pending'), says('it has shipped')]))
      .toEqual({ passed: false, reason: 'no reply mentions all of ["Order  #W1","shipped"] (last reply misses ["Order  #W1"])' });
    expect(evaluateCondition(cond, [says('nothing')]).reason).toBe('no reply mentions all of ["Order  #W1","shipped"] (last reply misses ["Order  #W1","shipped"])');
    expect(evaluateCondition(cond, [call('x')])).toEqual({ passed: false, reason: 'no reply to the user in this turn' });
    expect(evaluateCondition({ kind: 'reply_contains', text: [] }, [says('')]).passed).toBe(true);
    expect(evaluateCondition({ kind: 'reply_contains', text: ['a'] }, [says('')]).passed).toBe(false);
  });

  it('result_contains: the observation of a call to the tool', () => {
    const cond: PassCondition = { kind: 'result_contains', tool: 'get', text: 'shipped' };
    expect(evaluateCondition(cond, [call('other', {}, ok('shipped')), call('get', {}, ok('pending')), call('get', {}, ok('"shipped"'))]))
      .toEqual({ passed: true, reason: 'result of step 2 contains "shipped"' });
    expect(evaluateCondition(cond, [call('get', {}, ok('pending')), { call: { name: 'get', arguments: {} } }]))
      .toEqual({ passed: false, reason: 'no get result contains "shipped"' });
    expect(evaluateCondition(cond, [call('other', {}, ok('shipped')), says('shipped')])).toEqual({ passed: false, reason: 'no call to get' });
    expect(evaluateCondition({ ...cond, text: 'Shipped' }, [call('get', {}, ok('shipped'))]).passed).toBe(false); // exact case
  });

  it('an unknown kind fails with its name', () => {
    expect(evaluateCondition({ kind: 'guess' } as unknown as PassCondition, [says('x')])).toEqual({ passed: false, reason: "unknown pass condition kind 'guess'" });
  });
});

describe('judgeItems and judgeTurn', () => {
  it('reasons start PASS/FAIL and the id; the score sums passed weights', () => {
    const v = judgeItems([item('a', { kind: 'reply_contains', text: ['yes'] }, 0.25), item('b', { kind: 'called', tool: 'get' }, 0.75)], 4, [says('yes')]);
    expect(v).toEqual({
      turn: 4, score: 0.25, terminated: false, items: [
        { id: 'a', passed: true, weight: 0.25, reason: 'PASS a: reply at step 0 mentions ["yes"]' },
        { id: 'b', passed: false, weight: 0.75, reason: 'FAIL b: no call to get (calls: none)' },
      ],
    });
  });

  it('scores snap float noise to whole numbers and stay within [0, 1]', () => {
    const tenths = Array.from({ length: 10 }, (_, i) => item(`i${i}`, { kind: 'reply_contains', text: [] }, 0.1));
    expect(tenths.reduce((a, it) => a + it.weight, 0)).not.toBe(1);
    expect(judgeItems(tenths, 0, [says('x')]).score).toBe(1);
    expect(judgeItems([item('a', { kind: 'reply_contains', text: [] }, 0.7), item('b', { kind: 'reply_contains', text: [] }, 0.7)], 0, [says('x')]).score).toBe(1);
    expect(judgeItems([item('a', { kind: 'reply_contains', text: [] }, -0.5)], 0, [says('x')]).score).toBe(0);
    expect(judgeItems([item('a', { kind: 'reply_contains', text: [] }, 0.3)], 0, [says('x')]).score).toBe(0.3);
    expect(judgeItems([item('a', { kind: 'reply_contains', text: [] }, 1e-12)], 0, [says('x')]).score).toBe(0);
    expect(judgeItems([item('a', { kind: 'reply_contains', text: [] }, 2e-9)], 0, [says('x')]).score).toBe(2e-9);
    expect(judgeItems([item('a', { kind: 'reply_contains', text: [] }, 1e-9)], 0, [says('x')]).score).toBe(1e-9);
  });

  it('a turn terminates only when a required item fails', () => {
    const items = [item('a', { kind: 'reply_contains', text: ['yes'] }, 0.5, true), item('b', { kind: 'called', tool: 'get' }, 0.5)];
    expect(judgeItems(items, 0, [says('yes')]).terminated).toBe(false); // the optional one failed
    expect(judgeItems(items, 0, [says('no'), call('get')]).terminated).toBe(true);
    expect(judgeItems([item('a', { kind: 'called', tool: 'get' }, 1)], 0, []).terminated).toBe(false);
  });

  it('a turn the checklist does not have scores 0 and terminates', () => {
    expect(judgeTurn({ checklist: [[item('a', { kind: 'reply_contains', text: [] }, 1)]] }, 3, [says('x')])).toEqual({ turn: 3, score: 0, items: [], terminated: true });
    expect(judgeTurn({ checklist: [[item('a', { kind: 'reply_contains', text: [] }, 1)]] }, 0, [says('x')]).score).toBe(1);
  });
});

describe('judgeEpisode', () => {
  const need = (id: string, text: string) => item(id, { kind: 'reply_contains', text: [text] }, 1, true);
  const task = { checklist: [[need('t0', 'one')], [need('t1', 'two')], [need('t2', 'three')]] };

  it('a required item failed in the last turn ends nothing early', () => {
    const v = judgeEpisode(task, [[says('one')], [says('two')], [says('nope')]]);
    expect(v.terminatedEarly).toBe(false);
    expect(v.turns[2].terminated).toBe(true);
    expect(v.score).toBeCloseTo(2 / 3, 12);
  });

  it('after a failed required item the later turns fail with the reason, unterminated, with their weights', () => {
    const v = judgeEpisode(task, [[says('nope')], [says('two')], [says('three')]]);
    expect(v.terminatedEarly).toBe(true);
    expect(v.score).toBe(0);
    expect(v.turns.slice(1)).toEqual([
      { turn: 1, score: 0, terminated: false, items: [{ id: 't1', passed: false, weight: 1, reason: 'FAIL t1: episode ended by a failed required item' }] },
      { turn: 2, score: 0, terminated: false, items: [{ id: 't2', passed: false, weight: 1, reason: 'FAIL t2: episode ended by a failed required item' }] },
    ]);
  });

  it('turns the rollout never reached fail as not reached', () => {
    const v = judgeEpisode(task, [[says('one')]]);
    expect(v.terminatedEarly).toBe(false);
    expect(v.turns[1].items[0].reason).toBe('FAIL t1: turn not reached');
    expect(v.turns.map((t) => t.score)).toEqual([1, 0, 0]);
    expect(v.score).toBeCloseTo(1 / 3, 12);
  });

  it('an empty checklist scores 0; the verifier runs only with both a final env and verify', () => {
    expect(judgeEpisode({ checklist: [] }, [])).toEqual({ score: 0, turns: [], terminatedEarly: false });
    const env = { name: 'x' } as Environment;
    let runs = 0;
    const verify = () => { runs++; return { passed: true, reason: 'same' }; };
    expect(Object.hasOwn(judgeEpisode(task, [], env), 'outcome')).toBe(false);
    expect(Object.hasOwn(judgeEpisode({ ...task, verify }, []), 'outcome')).toBe(false);
    expect(runs).toBe(0);
    expect(judgeEpisode({ ...task, verify }, [], env).outcome).toEqual({ passed: true, reason: 'same' });
    expect(runs).toBe(1);
  });

  it('a perfect episode scores exactly 1 even when weights carry float noise', () => {
    const tenths = Array.from({ length: 10 }, (_, i) => item(`i${i}`, { kind: 'reply_contains', text: [] }, 0.1));
    const v = judgeEpisode({ checklist: [tenths, tenths, tenths] }, [[says('x')], [says('x')], [says('x')]]);
    expect(v.score).toBe(1);
  });
});

describe('stepsFromMessages', () => {
  it('pairs results with calls by name, then in order; drops what has no call', () => {
    const msgs: Message[] = [
      { role: 'assistant', content: 'before any user turn' },
      { role: 'tool', name: 'a', content: 'orphan' },
      { role: 'user', content: 'u' },
      { role: 'tool', name: 'a', content: 'nothing pending' },
      { role: 'assistant', content: '', toolCalls: [{ name: 'a', arguments: {} }, { name: 'b', arguments: {} }, { name: 'c', arguments: {} }] },
      { role: 'tool', name: 'b', content: 'B' },
      { role: 'tool', name: 'zz', content: 'first open' },
      { role: 'tool', name: 'c', content: 'C', error: true },
      { role: 'tool', name: 'c', content: 'no call left' },
      { role: 'assistant', content: 'reply' },
      { role: 'tool', name: 'a', content: 'after the reply' },
    ];
    expect(stepsFromMessages(msgs)).toEqual([[
      { call: { name: 'a', arguments: {} }, result: { text: 'first open', error: false } },
      { call: { name: 'b', arguments: {} }, result: { text: 'B', error: false } },
      { call: { name: 'c', arguments: {} }, result: { text: 'C', error: true } },
      { reply: 'reply' },
    ]]);
  });

  it('a new user turn, or an assistant message with an empty call list, closes the pending calls', () => {
    const msgs: Message[] = [
      { role: 'user', content: 'u1' },
      { role: 'assistant', content: '', toolCalls: [{ name: 'a', arguments: {} }] },
      { role: 'user', content: 'u2' },
      { role: 'tool', name: 'a', content: 'late' },
      { role: 'assistant', content: 'text', toolCalls: [] },
      { role: 'tool', name: 'a', content: 'later' },
    ];
    expect(stepsFromMessages(msgs)).toEqual([[{ call: { name: 'a', arguments: {} } }], [{ reply: 'text' }]]);
    expect(stepsFromMessages([])).toEqual([]);
    expect(stepsFromMessages([{ role: 'user', content: 'u' }])).toEqual([[]]);
  });
});

describe('explainVerdict', () => {
  it('prints the score, each turn and each item with its weight, and the outcome', () => {
    const task = { checklist: [[item('t0.0', { kind: 'reply_contains', text: ['one'] }, 0.5, true), item('t0.1', { kind: 'called', tool: 'get' }, 0.5)], [item('t1.0', { kind: 'reply_contains', text: [] }, 1)]] };
    const env = { name: 'x' } as Environment;
    const v = judgeEpisode({ ...task, verify: () => ({ passed: false, reason: 'differs' }) }, [[says('nope')]], env);
    expect(explainVerdict(v)).toBe([
      'score 0.000 (terminated early)',
      '  turn 0: 0.000 [required item failed]',
      '    [w=0.50] FAIL t0.0: no reply mentions all of ["one"] (last reply misses ["one"])',
      '    [w=0.50] FAIL t0.1: no call to get (calls: none)',
      '  turn 1: 0.000',
      '    [w=1.00] FAIL t1.0: episode ended by a failed required item',
      '  outcome: FAIL differs',
    ].join('\n'));
    const good = judgeEpisode(task, [[says('one'), call('get')], [says('x')]]);
    expect(explainVerdict(good)).toBe([
      'score 1.000',
      '  turn 0: 1.000',
      '    [w=0.50] PASS t0.0: reply at step 0 mentions ["one"]',
      '    [w=0.50] PASS t0.1: step 1 called get({})',
      '  turn 1: 1.000',
      '    [w=1.00] PASS t1.0: reply at step 0 mentions []',
    ].join('\n'));
    expect(explainVerdict({ ...good, outcome: { passed: true, reason: 'same' } }).split('\n').pop()).toBe('  outcome: PASS same');
  });
});

// Edges that tell each StrykerJS survivor of the first scoring from the original (docs/results/reliability/mutation.json).
describe('edges: valueMatches', () => {
  it('a list with any non-primitive compares position by position, not as a multiset', () => {
    expect(valueMatches([{ a: 1 }, 1], [{ a: 1 }, 1])).toBe(true);
    expect(valueMatches([{ a: 1 }, 1], [1, { a: 1 }])).toBe(false);
    expect(valueMatches([1, [2]], [[2], 1])).toBe(false);
  });

  it('every element of a list of objects must match, not just one', () => {
    expect(valueMatches([{ a: 1 }, { b: 2 }], [{ a: 1 }, { b: 3 }])).toBe(false);
    expect(valueMatches([{ a: 1 }, { b: 2 }], [{ a: 0 }, { b: 2 }])).toBe(false);
  });

  it('an expected object matches only an object: not a string, a number or a list with the same keys', () => {
    expect(valueMatches({ 0: 'a' }, 'a')).toBe(false);
    expect(valueMatches({}, 5)).toBe(false);
    expect(valueMatches({}, 'x')).toBe(false);
    expect(valueMatches({ 0: 1 }, [1])).toBe(false);
  });

  it('an expected value that is not JSON (undefined, a function) matches nothing and does not throw', () => {
    expect(valueMatches(undefined, {})).toBe(false);
    expect(valueMatches(undefined, { a: 1 })).toBe(false);
    expect(valueMatches(() => 1, {})).toBe(false);
    expect(argMismatch({ a: undefined }, { a: {} })).toBe('a={} (expected undefined)');
  });
});

describe('edges: reply_contains normalisation', () => {
  const says = (reply: string): AssistantStep => ({ reply });
  const passes = (want: string, reply: string) => evaluateCondition({ kind: 'reply_contains', text: [want] }, [says(reply)]).passed;

  it('whitespace runs become one space; they are not removed', () => {
    expect(passes('order 12', 'your order\n\t 12 is here')).toBe(true);
    expect(passes('order 12', 'order12')).toBe(false);
    expect(passes('order12', 'order 12')).toBe(false);
  });

  it('case folds to lower case (ß does not match SS, σ does not match ς)', () => {
    expect(passes('Straße', 'STRASSE')).toBe(false);
    expect(passes('straße', 'die straße')).toBe(true);
    expect(passes('σ', 'ς')).toBe(false);
    expect(passes('ABC', 'abc')).toBe(true);
  });
});

describe('edges: stepsFromMessages', () => {
  it('a system message inside a turn is not a tool result', () => {
    const msgs: Message[] = [
      { role: 'user', content: 'u' },
      { role: 'assistant', content: '', toolCalls: [{ name: 'a', arguments: {} }] },
      { role: 'system', content: 'note' },
      { role: 'tool', name: 'a', content: 'A' },
    ];
    expect(stepsFromMessages(msgs)).toEqual([[{ call: { name: 'a', arguments: {} }, result: { text: 'A', error: false } }]]);
  });
});
