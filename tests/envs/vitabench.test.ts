import * as path from 'node:path';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parsePyJson } from '../../src/envs/python';
import { runVitaConformance } from '../../src/envs/vitabench/conformance';
import { VitaEnv } from '../../src/envs/vitabench/env';
import {
  applyJudgeReply, evaluateTrajectory, formatWindowContent, initialRubricStates, parseJudgeReply, passHatK, pyFormat, slidingWindows,
} from '../../src/envs/vitabench/evaluator';
import { loadVitaData } from '../../src/envs/vitabench/fs';
import { defaultProcess, extractPartial, lcsLength, partialRatio } from '../../src/envs/vitabench/fuzz';
import { checkTimeFormat, weekdayName } from '../../src/envs/vitabench/pytime';

// Data is read by path from the shared checkout beside the repo (as the τ² and BFCL tests do).
const DATA = path.resolve(process.cwd(), '../shared/data/vitabench');
const FIXTURES = path.join(DATA, 'fixtures');

describe('VitaBench conformance (every shared fixture)', () => {
  it('reproduces every tool message, error flag, hash, final state, judge window/prompt and stub-judge reward', async () => {
    const r = await runVitaConformance({ fixtures: FIXTURES });
    const index = JSON.parse(readFileSync(path.join(FIXTURES, 'index.json'), 'utf8')) as { tasks: { sequences: { n_calls: number }[] }[] };
    const expectedCalls = index.tasks.flatMap((t) => t.sequences).reduce((a, s) => a + s.n_calls, 0);
    expect(r.mismatches).toEqual([]);
    expect(r.fixtures).toBe(index.tasks.length);
    expect(r.calls).toBe(expectedCalls);
    expect(r.calls_equal).toBe(r.calls);
    expect(r.states_equal).toBe(r.states);
    expect(r.windows).toBeGreaterThan(r.states);
    expect(r.windows_equal).toBe(r.windows);
    expect(r.rewards_equal).toBe(r.rewards);
  }, 120_000);

  it('a single changed byte in a recorded tool message is reported as a mismatch', async () => {
    const { mkdtempSync, mkdirSync, writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(path.join(tmpdir(), 'vita-fx-'));
    mkdirSync(path.join(dir, 'delivery'));
    const src = readFileSync(path.join(FIXTURES, 'delivery/10711001.json'), 'utf8');
    // Edit the text in place (re-serialising would drop the fixture's float spellings such as 21.0).
    const at = src.indexOf('"content": "', src.indexOf('"tool_message"')) + '"content": "'.length;
    writeFileSync(path.join(dir, 'delivery/10711001.json'), `${src.slice(0, at)}X${src.slice(at)}`);
    const r = await runVitaConformance({ fixtures: dir, dataRoot: DATA });
    expect(r.calls_equal).toBe(r.calls - 1);
    expect(r.mismatch_count).toBe(1);
  }, 60_000);
});

describe('VitaBench environment', () => {
  const delivery = loadVitaData('delivery', DATA);
  const instore = loadVitaData('instore', DATA);

  it('loads 100 English tasks and the agent tool list per domain (20 delivery, 24 in-store tools)', () => {
    expect(delivery.tasks).toHaveLength(100);
    expect(instore.tasks).toHaveLength(100);
    expect(delivery.tools).toHaveLength(20);
    expect(instore.tools).toHaveLength(24);
    const env = new VitaEnv('delivery', delivery.tasks[0].environment, delivery.holidays);
    for (const t of delivery.tools) expect(env.hasTool(t.function.name)).toBe(true);
  });

  it('unknown tools, binding errors and assertions come back as the reference phrases them', () => {
    const task = delivery.tasks[0];
    const env = new VitaEnv('delivery', task.environment, delivery.holidays);
    expect(env.call({ id: 'a', name: 'nope', arguments: {} }).message).toMatchObject({ content: "Error: Tool 'nope' not found.", error: true });
    expect(env.call({ id: 'b', name: 'pay_delivery_order', arguments: {} }).message.content)
      .toBe("Error: DeliveryTools.pay_delivery_order() missing 1 required positional argument: 'order_id'");
    expect(env.call({ id: 'c', name: 'search_delivery_orders', arguments: { user_id: 'someone-else' } }).message)
      .toMatchObject({ content: 'User ID does not match', error: false });
    expect(env.call({ id: 'd', name: 'longitude_latitude_to_distance', arguments: parsePyJson('{"longitude1": 1, "latitude1": 2, "longitude2": 1, "latitude2": 2}') }).message.content).toBe('"0.0"');
    expect(env.call({ id: 'e', name: 'longitude_latitude_to_distance', arguments: { longitude1: 'x', latitude1: 2, longitude2: 1, latitude2: 2 } }).message.content)
      .toBe('Error: must be real number, not str');
  });

  it('creating an order consumes one pinned clock value and changes the hash', () => {
    const task = delivery.tasks[0];
    const env = new VitaEnv('delivery', task.environment, delivery.holidays);
    const before = env.hash();
    const store = env.db.stores.values().next().value!;
    const product = store.products[0];
    const addr = env.db.location?.[0]?.address ?? store.location.address;
    const r = env.call({ id: 'x', name: 'create_delivery_order', arguments: { user_id: env.db.user_id, store_id: store.store_id, product_ids: [product.product_id], product_cnts: [2], address: addr, dispatch_time: env.db.time } });
    expect(r.outcome).toBe('ok');
    expect(r.message.content).toMatch(/^Order\(order_id:OT[0-9a-f]{10}, order_type:delivery/);
    expect(env.orderIdTimestamps).toHaveLength(1);
    expect(env.hash()).not.toBe(before);
    expect(env.statesSplit().new_states).toHaveLength(1);
  });
});

describe('VitaBench fuzzy matching and time parsing', () => {
  it('bit-parallel LCS equals the quadratic DP', () => {
    const dp = (a: number[], b: number[]) => {
      const m = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
      for (let i = 1; i <= a.length; i++) for (let j = 1; j <= b.length; j++) m[i][j] = a[i - 1] === b[j - 1] ? m[i - 1][j - 1] + 1 : Math.max(m[i - 1][j], m[i][j - 1]);
      return m[a.length][b.length];
    };
    let seed = 7;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    for (let t = 0; t < 300; t++) {
      const mk = () => Array.from({ length: Math.floor(rnd() * 140) }, () => 97 + Math.floor(rnd() * 5));
      const a = mk(), b = mk();
      expect(lcsLength(a, b)).toBe(dp(a, b));
    }
  });

  it('partial_ratio and extract follow rapidfuzz on known values', () => {
    expect(partialRatio(defaultProcess('this is a test'), defaultProcess('this is a test!'))).toBe(100);
    expect(partialRatio(defaultProcess('a certain string'), defaultProcess('cetain'))).toBeCloseTo(83.33333333333334, 12);
    expect(partialRatio([], [])).toBe(100);
    expect(partialRatio([], defaultProcess('x'))).toBe(0);
    const r = extractPartial('', ['b', 'a']);
    expect(r.map((x) => [x.doc, x.score])).toEqual([['b', 0], ['a', 0]]);
  });

  it('strptime accepts one-digit fields and rejects impossible dates', () => {
    expect(checkTimeFormat('2025-3-5 7:05:09')).toBe(true);
    expect(checkTimeFormat('2025-02-29 10:00:00')).toBe(false);
    expect(checkTimeFormat('2025-03-16T10:00:00')).toBe(false);
    expect(() => checkTimeFormat(5)).toThrow('strptime() argument 1 must be str, not int');
    expect(weekdayName('2025-03-16 10:31:18')).toBe('Sunday');
  });
});

describe('VitaBench judge (deterministic parts)', () => {
  const data = loadVitaData('delivery', DATA);
  const task = data.tasks[0];

  it('windows of 10 every 8, stopping at the first that reaches the end', () => {
    expect(slidingWindows([...Array(10).keys()]).map((w) => w.start)).toEqual([0]);
    expect(slidingWindows([...Array(11).keys()]).map((w) => w.start)).toEqual([0, 8]);
    expect(slidingWindows([...Array(18).keys()]).map((w) => w.start)).toEqual([0, 8]);
    expect(slidingWindows([...Array(19).keys()]).map((w) => w.start)).toEqual([0, 8, 16]);
  });

  it('window lines skip empty messages but keep their index; tool calls are name(k=repr(v))', () => {
    const text = formatWindowContent([
      { role: 'assistant', content: '' },
      { role: 'assistant', content: 'ok', tool_calls: [{ id: '1', name: 'f', arguments: parsePyJson('{"a": 1.0, "b": [true, null]}') }] },
    ], 8);
    expect(text).toBe("[10] assistant: ok f(a=1.0, b=[True, None])");
  });

  it('parses fenced, prose-wrapped and broken replies; unknown rubric ids are ignored', () => {
    expect(parseJudgeReply('```json\n[{"rubric_idx": "rubric_0", "meetExpectation": true}]\n```')).toEqual([{ rubric_idx: 'rubric_0', meetExpectation: true }]);
    expect(parseJudgeReply('Here: [{"rubric_idx": "rubric_0",}] done')).toEqual([{ rubric_idx: 'rubric_0' }]);
    expect(parseJudgeReply('no json at all')).toBeNull();
    const states = initialRubricStates(task);
    const { states: next, parsed } = applyJudgeReply(states, [{ rubric_idx: 'rubric_0', meetExpectation: true }, { rubric_idx: 'rubric_99', meetExpectation: true }]);
    expect(parsed).toBe(true);
    expect(next.get('rubric_0')).toMatchObject({ meetExpectation: true, justification: 'No justification provided' });
    expect(states.get('rubric_0')?.meetExpectation).toBe(false);
  });

  it('reward is 1 only when every rubric is met; short-circuits need no judge', async () => {
    const n = initialRubricStates(task).size;
    let calls = 0;
    const none = await evaluateTrajectory(task, [{ role: 'assistant', content: 'hi' }], data.prompts.judge, () => { calls++; return null; });
    expect(none.reward).toBe(0);
    expect(none.reward_breakdown?.NL_ASSERTION).toBe(0);
    const all = await evaluateTrajectory(task, [{ role: 'assistant', content: 'hi' }], data.prompts.judge,
      () => JSON.stringify([...Array(n).keys()].map((i) => ({ rubric_idx: `rubric_${i}`, meetExpectation: true }))));
    expect(all.reward).toBe(1);
    const stopped = await evaluateTrajectory(task, [], data.prompts.judge, () => { calls++; return null; }, 'max_steps');
    expect(stopped.reward).toBe(0);
    expect(calls).toBe(1);
    expect(pyFormat('{a} {{b}}', { a: 'x' })).toBe('x {b}');
    expect(passHatK(4, 2, 2)).toBeCloseTo(1 / 6, 12);
    expect(() => passHatK(1, 1, 2)).toThrow();
  });
});
