import { createHash } from 'node:crypto';
import * as path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PyFloat } from '../../src/envs/python';
import { sha256Hex, sha256HexPortable } from '../../src/envs/sha256';
import { calculate } from '../../src/envs/tau2/calc';
import { runTau2Conformance } from '../../src/envs/tau2/conformance';
import {
  evaluateCommunicate, evaluateTask, passHatK, passHatKForTask, trajectoryFromCalls,
} from '../../src/envs/tau2/evaluator';
import { loadTau2Domain } from '../../src/envs/tau2/fs';
import { pyRound } from '../../src/envs/tau2/py';
import { createRetailEnv, RetailDataError, type RetailDBJson } from '../../src/envs/tau2';
import { ScriptedUser, STOP } from '../../src/envs/tau2/user';
import { toPlaygroundTask } from '../../src/envs/tau2/playground';
import type { Tau2Task } from '../../src/envs/tau2/tasks';

const DATA = path.resolve(process.cwd(), '../shared/data/tau2');
const RETAIL = path.join(DATA, 'retail');
const MOCK = path.join(DATA, 'mock');

describe('sha256 (@noble/hashes in browsers, native in Node)', () => {
  it('matches known vectors and node:crypto on arbitrary strings and block boundaries', () => {
    for (const h of [sha256Hex, sha256HexPortable]) {
      expect(h('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
      expect(h('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    }
    fc.assert(fc.property(fc.string({ maxLength: 300, unit: 'binary' }), (s) => {
      expect(sha256HexPortable(s)).toBe(createHash('sha256').update(s, 'utf8').digest('hex'));
    }), { numRuns: 200 });
    for (const n of [55, 56, 63, 64, 65, 119, 120, 1000, 100_000]) {
      const s = 'aé'.repeat(n);
      expect(sha256HexPortable(s)).toBe(createHash('sha256').update(s).digest('hex'));
    }
  });
});

describe('τ² DB hash', () => {
  it('untouched retail and mock DBs hash like Python', () => {
    expect(loadTau2Domain(RETAIL).makeEnv().hash()).toBe('b25c9cb211f5efcaee5dd646054a73c4a9f43f4f5acc32c10713cd9f9ac20e9c');
    expect(loadTau2Domain(MOCK).makeEnv().hash()).toBe('107f83a70b7bf4f616e283b0b0b8451346fe7681173398d4498a1ec15c5fdfc6');
  });
});

describe('τ² gold-replay conformance', () => {
  it('mock: all 9 tasks (results, states, env assertions, evaluator cross-check)', () => {
    const r = runTau2Conformance({ domainDir: MOCK, fixture: path.join(MOCK, 'fixtures/gold_replay.fixture.json') });
    expect(r.mismatches).toEqual([]);
    expect(r.tasks).toBe(9);
    expect(r.total_calls).toBe(7);
    expect(r.matched_results).toBe(7);
    expect(r.matched_states).toBe(9);
    expect(r.matched_crosschecks).toBe(r.total_crosschecks);
  });
  it('retail train: every result string and all 74 final hashes', () => {
    const r = runTau2Conformance({ domainDir: RETAIL, fixture: path.join(RETAIL, 'fixtures/gold_replay.train.fixture.json') });
    expect(r.mismatches).toEqual([]);
    expect(r.initial_hash_ok).toBe(true);
    expect(r.total_calls).toBe(367);
    expect(r.matched_results).toBe(367);
    expect(r.total_states).toBe(74);
    expect(r.matched_states).toBe(74);
    expect(r.matched_crosschecks).toBe(74);
  });
});

describe('τ² retail tool semantics', () => {
  const env = () => loadTau2Domain(RETAIL).makeEnv();

  it('TypeError-style texts for unknown tools and bad arguments', () => {
    const e = env();
    expect(e.call('nope', {})).toEqual({ text: "Error: Tool 'nope' not found.", error: true, code: 'TOOL_NOT_AVAILABLE' });
    expect(e.call('get_order_details', { bad: 1 }).text)
      .toBe("Error: RetailTools.get_order_details() got an unexpected keyword argument 'bad'");
    expect(e.call('find_user_id_by_name_zip', { zip: '1' }).text)
      .toBe("Error: RetailTools.find_user_id_by_name_zip() missing 2 required positional arguments: 'first_name' and 'last_name'");
    expect(e.call('modify_user_address', {}).text).toBe("Error: RetailTools.modify_user_address() missing 7 required positional arguments: "
      + "'user_id', 'address1', 'address2', 'city', 'state', 'country', and 'zip'");
    expect(e.call('get_order_details', [1]).text).toBe('Error: Environment.make_tool_call() argument after ** must be a mapping, not list');
    expect(e.call('get_order_details', { order_id: ['x'] }).text).toBe("Error: unhashable type: 'list'");
    const v = e.call('modify_user_address', { user_id: 'noah_brown_6181', address1: 1, address2: '', city: 'c', state: 's', country: 'c', zip: null });
    expect(v.text).toBe('Error: 2 validation errors for UserAddress\naddress1\n  Input should be a valid string [type=string_type, input_value=1, input_type=int]\n'
      + '    For further information visit https://errors.pydantic.dev/2.13/v/string_type\nzip\n'
      + '  Input should be a valid string [type=string_type, input_value=None, input_type=NoneType]\n'
      + '    For further information visit https://errors.pydantic.dev/2.13/v/string_type');
    expect(e.call('list_all_product_types', {}).text.startsWith('{"Action Camera": ')).toBe(true);
    expect(e.call('get_order_details', { order_id: '#W1', requestor: 'user' }).text)
      .toBe("Error: tau2.environment.environment.Environment.make_tool_call() got multiple values for keyword argument 'requestor'");
    expect(e.call('get_order_details', { self: 1 }).text).toBe("Error: Environment.make_tool_call() got multiple values for argument 'self'");
    expect(e.hash()).toBe('b25c9cb211f5efcaee5dd646054a73c4a9f43f4f5acc32c10713cd9f9ac20e9c');
  });

  it('calculate follows Python eval/round/str', () => {
    const cases: [string, string][] = [
      ['2 + 2', '4.0'], ['1/3', '0.33'], ['0.125*1', '0.12'], ['0.005+0', '0.01'], ['2.675', '2.67'], ['-2**2', '-4.0'],
      ['3 ** 2 ** 2', '81.0'], ['-7//2.0', '-4.0'], ['7.5//-2', '-4.0'], ['2**-1', '0.5'], ['1.', '1.0'], ['.5', '0.5'],
      ['10**308*10.', 'inf'], ['9999999999999999999999/3', '3.3333333333333335e+21'], ['2*(3+4)*5/7', '10.0'], ['1-1.1', '-0.1'],
    ];
    for (const [x, want] of cases) expect(calculate(x)).toBe(want);
    const errors: [string, string][] = [
      ['', 'invalid syntax (<string>, line 0)'], ['(2', "'(' was never closed (<string>, line 1)"], ['2)', "unmatched ')' (<string>, line 1)"],
      ['1 2', 'invalid syntax (<string>, line 1)'], ['1/0', 'division by zero'], ['1.0/0', 'float division by zero'],
      ['1//0', 'integer division or modulo by zero'], ['0**-1', '0.0 cannot be raised to a negative power'],
      ['(-8)**0.5', "float() argument must be a string or a real number, not 'complex'"], ['2(3)', "'int' object is not callable"],
      ['()', "float() argument must be a string or a real number, not 'tuple'"], ['10**400', 'int too large to convert to float'],
      ['01', 'leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers (<string>, line 1)'],
      ['2 + x', 'Invalid characters in expression'],
    ];
    for (const [x, msg] of errors) expect(() => calculate(x)).toThrow(msg);
  });

  it('round() is half-even on the exact binary value', () => {
    expect(pyRound(0.125, 2)).toBe(0.12);
    expect(pyRound(0.375, 2)).toBe(0.38);
    expect(pyRound(2.675, 2)).toBe(2.67);
    expect(pyRound(-0.125, 2)).toBe(-0.12);
    expect(pyRound(1234.5, 0)).toBe(1234);
  });

  it('clone is independent in both directions', () => {
    const a = env();
    const h0 = a.hash();
    const b = a.clone();
    expect(b.call('cancel_pending_order', { order_id: '#W5918442', reason: 'no longer needed' }).error).toBe(false);
    expect(a.hash()).toBe(h0);
    expect(JSON.parse(a.call('get_order_details', { order_id: '#W5918442' }).text).status).toBe('pending');
    expect(a.call('modify_user_address', { user_id: 'noah_brown_6181', address1: 'a', address2: '', city: 'c', state: 's', country: 'US', zip: '1' }).error).toBe(false);
    const c = b.clone();
    expect(c.hash()).toBe(b.hash());
    expect(JSON.parse(b.call('get_user_details', { user_id: 'noah_brown_6181' }).text).address.address1).toBe('986 Sunset Drive');
    expect(JSON.parse(c.call('get_order_details', { order_id: '#W5918442' }).text).status).toBe('cancelled');
    expect(new Set([a.hash(), b.hash(), h0]).size).toBe(3);
  });

  it('random and malformed calls never throw and always return an Observation', () => {
    const base = env();
    const names = [...base.tools().map((t) => t.name), 'nope', '', 'assert_task_status'];
    const json = fc.letrec((tie) => ({
      v: fc.oneof({ depthSize: 'small' }, fc.constant(null), fc.boolean(), fc.integer(), fc.double().map((d) => new PyFloat(d)),
        fc.string(), fc.constantFrom('#W5918442', '#W2378156', 'noah_brown_6181', '1656367028', '1151293680', 'gift_card_1725971', 'pending'),
        fc.array(tie('v'), { maxLength: 3 }), fc.dictionary(fc.string({ maxLength: 8 }), tie('v'), { maxKeys: 3 })),
    })).v;
    const paramNames = fc.constantFrom('order_id', 'item_ids', 'new_item_ids', 'payment_method_id', 'user_id', 'reason', 'expression',
      'first_name', 'last_name', 'zip', 'email', 'product_id', 'summary', 'address1', 'requestor', 'tool_name', 'x');
    const args = fc.oneof(fc.dictionary(paramNames, json, { maxKeys: 8 }), json);
    fc.assert(fc.property(fc.array(fc.tuple(fc.constantFrom(...names), args), { maxLength: 6 }), (calls) => {
      const e = base.clone();
      for (const [name, a] of calls) {
        const o = e.call(name, a);
        expect(typeof o.text).toBe('string');
        expect(typeof o.error).toBe('boolean');
        expect(o.error).toBe(o.text.startsWith('Error: '));
      }
      expect(e.hash()).toMatch(/^[0-9a-f]{64}$/);
    }), { numRuns: 100 });
    expect(base.hash()).toBe('b25c9cb211f5efcaee5dd646054a73c4a9f43f4f5acc32c10713cd9f9ac20e9c');
  });
});

describe('createRetailEnv on a small generated DB', () => {
  const db: RetailDBJson = {
    products: {
      '100': { name: 'Mug', product_id: '100', variants: {
        '1': { item_id: '1', options: { color: 'red' }, available: true, price: 10 },
        '2': { item_id: '2', options: { color: 'blue' }, available: true, price: 12.5 },
      } },
    },
    users: {
      ann_1: {
        user_id: 'ann_1', name: { first_name: 'Ann', last_name: 'Lee' },
        address: { address1: '1 A St', address2: '', city: 'X', country: 'USA', state: 'CA', zip: '90000' },
        email: 'ann@example.com',
        payment_methods: { gift_card_1: { source: 'gift_card', id: 'gift_card_1', balance: 5 } },
        orders: ['#W1'],
      },
    },
    orders: {
      '#W1': {
        order_id: '#W1', user_id: 'ann_1',
        address: { address1: '1 A St', address2: '', city: 'X', country: 'USA', state: 'CA', zip: '90000' },
        items: [{ name: 'Mug', product_id: '100', item_id: '1', price: 10, options: { color: 'red' } }],
        status: 'pending', fulfillments: [], payment_history: [{ transaction_type: 'payment', amount: 10, payment_method_id: 'gift_card_1' }],
      },
    },
  };

  it('runs the tools and keeps the caller data untouched', () => {
    const e = createRetailEnv(db);
    expect(e.call('find_user_id_by_email', { email: 'ANN@example.com' }).text).toBe('ann_1');
    const r = e.call('modify_pending_order_items', { order_id: '#W1', item_ids: ['1'], new_item_ids: ['2'], payment_method_id: 'gift_card_1' });
    expect(r.error).toBe(false);
    expect(r.text).toContain('"price": 12.5');
    expect(r.text).toContain('"amount": 2.5');
    expect(JSON.parse(e.call('get_user_details', { user_id: 'ann_1' }).text).payment_methods.gift_card_1.balance).toBe(2.5);
    expect(e.call('cancel_pending_order', { order_id: '#W1', reason: 'ordered by mistake' }).text).toBe('Error: Non-pending order cannot be cancelled');
    expect(db.orders['#W1'].status).toBe('pending');
    expect(createRetailEnv(db).hash()).not.toBe(e.hash());
    expect(e.snapshot()).toMatchObject({ orders: { '#W1': { status: 'pending (item modified)', cancel_reason: null } } });
  });

  it('can render errors in the shared error_tool_call shape', () => {
    const e = createRetailEnv(db, { errorStyle: 'envace' });
    const o = e.call('get_order_details', { order_id: '#W9' });
    expect(o.error).toBe(true);
    expect(JSON.parse(o.text)).toEqual({ error_tool_call: { code: 'TOOL_EXECUTION_ERROR', message: 'Order not found', details: null } });
    expect(JSON.parse(e.clone().call('nope', {}).text).error_tool_call.code).toBe('TOOL_NOT_AVAILABLE');
    expect(e.call('get_order_details', { order_id: '#W1' }).error).toBe(false);
  });

  it('rejects invalid data', () => {
    const bad = structuredClone(db) as unknown as { orders: Record<string, { status: string }> };
    bad.orders['#W1'].status = 'lost';
    expect(() => createRetailEnv(bad as unknown as RetailDBJson)).toThrow(RetailDataError);
  });
});

describe('τ² mock domain', () => {
  it('set_state replays history and rejects a history whose results differ', () => {
    const d = loadTau2Domain(MOCK);
    const call = { id: 'c1', name: 'create_task', arguments: { user_id: 'user_1', title: 'T' } };
    const env = d.makeEnv();
    env.setState(null, [
      { role: 'assistant', tool_calls: [call] },
      { role: 'tool', id: 'c1', content: '{"task_id":"task_2","title":"T","description":null,"status":"pending"}' },
    ]);
    expect(env.runEnvAssertion({ env_type: 'assistant', func_name: 'assert_number_of_tasks', arguments: { user_id: 'user_1', expected_number: 2 } })).toBe(true);
    expect(() => d.makeEnv().setState(null, [
      { role: 'assistant', tool_calls: [call] },
      { role: 'tool', id: 'c1', content: '{"task_id":"task_9"}' },
    ])).toThrow(/Expected/);
    expect(() => env.runEnvFunctionCall({ env_type: 'assistant', func_name: 'nope', arguments: {} })).toThrow("'MockTools' object has no attribute 'nope'");
    expect(env.call('update_task_status', { task_id: 'task_1' }).text)
      .toBe("Error: MockTools.update_task_status() missing 1 required positional argument: 'status'");
  });
});

describe('τ² evaluator and user', () => {
  it('communicate_info is a case-insensitive substring check with commas dropped', () => {
    const task = { evaluation_criteria: { communicate_info: ['1,234.50'.replace(',', ''), 'refund'] } } as unknown as Tau2Task;
    const yes = evaluateCommunicate(task, [{ role: 'assistant', content: 'Your REFUND of $1,234.50 is on its way.' }]);
    expect(yes.reward).toBe(1);
    const no = evaluateCommunicate(task, [{ role: 'user', content: 'refund 1234.50' }]);
    expect(no.reward).toBe(0);
  });

  it('gold trajectory scores 1; a wrong write scores 0 (DB × COMMUNICATE)', () => {
    const d = loadTau2Domain(RETAIL);
    const task = d.tasks.find((t) => t.id === '0')!;
    const env = d.makeEnv();
    const calls = task.evaluation_criteria!.actions!.map((a) => {
      const r = env.getResponse({ id: a.action_id, name: a.name, arguments: a.arguments });
      return { id: a.action_id, name: a.name, arguments: a.arguments, result: r.content, error: r.error };
    });
    expect(evaluateTask(d.makeEnv, task, trajectoryFromCalls(calls)).reward).toBe(1);
    const wrong = trajectoryFromCalls(calls.slice(0, -1));
    const info = evaluateTask(d.makeEnv, task, wrong);
    expect(info.reward).toBe(0);
    expect(info.db_check?.db_match).toBe(false);
  });

  it('playground Task adapter: replaying the reference verifies, an untouched DB does not', () => {
    const d = loadTau2Domain(RETAIL);
    const t = toPlaygroundTask(d, d.tasks.find((x) => x.id === '0')!);
    expect(t.split).toBe('train');
    expect(t.userTurns[0]).toContain('Yusuf Rossi');
    expect(t.checklist[0].reduce((s, i) => s + i.weight, 0)).toBeCloseTo(1);
    const env = t.makeEnv();
    expect(t.verify(env).passed).toBe(false);
    for (const m of t.reference) if (m.role === 'assistant') for (const c of m.toolCalls ?? []) env.call(c.name, c.arguments);
    expect(t.verify(env)).toEqual({ passed: true, reason: 'final DB matches the gold replay' });
  });

  it('pass^k', () => {
    expect(passHatKForTask(4, 2, 2)).toBeCloseTo(1 / 6);
    expect(passHatK({ a: [1, 1, 1], b: [1, 0, 1] }, 1)).toBeCloseTo((1 + 2 / 3) / 2);
    expect(passHatK({ a: [1, 1, 1], b: [1, 0, 1] }, 3)).toBeCloseTo(0.5);
  });

  it('scripted user opens with the reason, gives known info, confirms, then stops', () => {
    const task = loadTau2Domain(RETAIL).tasks[0];
    const u = new ScriptedUser(task);
    expect(u.start().content).toMatch(/^I received my order #W2378156/);
    expect(u.respond('Please provide your email or name and zip code.').content).toBe('I am Yusuf Rossi in zip code 19122.');
    expect(u.respond('Shall I proceed with the exchange (yes/no)?').content).toBe('Yes, please go ahead.');
    expect(u.respond('The exchange is done.')).toEqual({ content: STOP, stop: true });
  });
});
