// The built-in worlds' shared machinery (src/envs/worlds/common.ts) on a small world of its own: split and
// difficulty by seed, seed queries, checklist weights, the tool-restricting wrapper, the state diff behind
// task.verify, the task builder that runs the expert, and the reference replay. The real worlds are checked
// end to end in worlds.test.ts (1,000 tasks each); these pin each rule and message, so a changed operator,
// bound or text in common.ts fails a test here (StrykerJS: `npm run mutation`).
import { describe, expect, it, vi } from 'vitest';
import {
  buildTask, call, defineWorld, difficultyOf, ExpertError, finalizeChecklist, jsonDiff, replayReference, reply, RestrictedEnv,
  selectSeeds, splitOf, TEST_FRACTION_PERCENT, toolsUsed, type ItemSpec, type TaskPlan, type TurnPlan,
} from '../../src/envs/worlds/common';
import { hash32 } from '../../src/envs/worlds/rng';
import { errorObservation, type Environment, type Observation, type Task, type ToolSchema } from '../../src/envs/types';

// ---- a small world: a key-value store ------------------------------------------------------------------

const schema = (name: string, description = `${name} a key`): ToolSchema => ({ name, description, parameters: { type: 'object', properties: { key: { type: 'string' } } } });

class KvEnv implements Environment {
  readonly name = 'kv';
  toolsCalls = 0;
  constructor(public data: Record<string, string> = {}) {}
  tools(): ToolSchema[] { this.toolsCalls++; return ['get', 'set', 'del', 'fail'].map((n) => schema(n)); }
  call(name: string, args: unknown): Observation {
    const a = (args ?? {}) as { key?: string; value?: string };
    if (name === 'get') return a.key! in this.data ? { text: JSON.stringify({ value: this.data[a.key!] }), error: false } : errorObservation('TOOL_EXECUTION_ERROR', `no key ${a.key}`);
    if (name === 'set') { this.data[a.key!] = a.value ?? ''; return { text: '{"ok":true}', error: false }; }
    if (name === 'del') { delete this.data[a.key!]; return { text: '{"ok":true}', error: false }; }
    if (name === 'fail') return { text: 'Error: always fails', error: false };
    return errorObservation('TOOL_NOT_AVAILABLE', `no tool ${name}`);
  }
  snapshot(): unknown { return { ...this.data }; }
  clone(): KvEnv { return new KvEnv({ ...this.data }); }
}

const item = (question: string, cond: ItemSpec['cond'], weight = 1, extra: Partial<ItemSpec> = {}): ItemSpec => ({ question, focus_on: 'x', cond, weight, ...extra });

function plan(turns: TurnPlan[], makeEnv: () => Environment = () => new KvEnv({ a: '1' })): TaskPlan {
  return { turns, makeEnv, tags: ['kv', 'small'] };
}

const TWO_TURNS: TurnPlan[] = [
  { user: 'set b', steps: [call('set', { key: 'b', value: '2' }), reply('done')], items: [item('set b?', { kind: 'called', tool: 'set', args: { key: 'b' } }, 3, { required: true })] },
  { user: 'read a', steps: [call('get', { key: 'a' }), call('get', { key: 'zz' }), reply('a is 1')].map((s) => ('call' in s && s.call.arguments.key === 'zz' ? { ...s, expectError: true } : s)),
    items: [item('read?', { kind: 'result_contains', tool: 'get', text: '"1"' }), item('said?', { kind: 'reply_contains', text: ['1'] })] },
];

const stateOf = (env: Environment) => (env instanceof RestrictedEnv ? env.unwrap() : env).snapshot();

function kvTask(turns = TWO_TURNS, makeEnv?: () => Environment) {
  return buildTask({ world: 'kv', seed: 7, policy: 'be brief', plan: plan(turns, makeEnv), stateOf });
}

// ---- split and difficulty ---------------------------------------------------------------------------------

describe('split and difficulty by seed', () => {
  it('follow the pinned hash: test when hash % 100 < 10, difficulty 1 + hash % 3', () => {
    expect(TEST_FRACTION_PERCENT).toBe(10);
    let tests = 0; const diffs = [0, 0, 0, 0];
    for (let seed = 0; seed < 3000; seed++) {
      const h = hash32('kv', 'split', seed) % 100;
      expect(splitOf('kv', seed)).toBe(h < 10 ? 'test' : 'train');
      if (splitOf('kv', seed) === 'test') tests++;
      const d = difficultyOf('kv', seed);
      expect(d).toBe(1 + (hash32('kv', 'difficulty', seed) % 3));
      diffs[d]++;
    }
    expect(tests / 3000).toBeGreaterThan(0.07);
    expect(tests / 3000).toBeLessThan(0.13);
    expect(diffs[0]).toBe(0);
    for (const d of [1, 2, 3]) expect(diffs[d]).toBeGreaterThan(800);
  });

  it('the boundary: a hash of exactly 10 (mod 100) is train, 9 is test', () => {
    const at = (r: number) => { for (let s = 0; ; s++) if (hash32('kv', 'split', s) % 100 === r) return s; };
    expect(splitOf('kv', at(10))).toBe('train');
    expect(splitOf('kv', at(9))).toBe('test');
    expect(splitOf('kv', at(0))).toBe('test');
  });

  it('differ between worlds (the world name is hashed in)', () => {
    const a = Array.from({ length: 200 }, (_, s) => splitOf('kv', s) + difficultyOf('kv', s));
    const b = Array.from({ length: 200 }, (_, s) => splitOf('other', s) + difficultyOf('other', s));
    expect(a).not.toEqual(b);
  });
});

describe('selectSeeds', () => {
  it('defaults to the first 100 seeds from 0', () => {
    expect(selectSeeds('kv')).toEqual(Array.from({ length: 100 }, (_, i) => i));
    expect(selectSeeds('kv', { count: 3 })).toEqual([0, 1, 2]);
    expect(selectSeeds('kv', { count: 0 })).toEqual([]);
    expect(selectSeeds('kv', { count: 3, offset: 5 })).toEqual([5, 6, 7]);
  });

  it('filters by split and difficulty, and the offset skips matching seeds only', () => {
    const tests = Array.from({ length: 400 }, (_, s) => s).filter((s) => splitOf('kv', s) === 'test');
    expect(selectSeeds('kv', { split: 'test', count: 5 })).toEqual(tests.slice(0, 5));
    expect(selectSeeds('kv', { split: 'test', count: 3, offset: 2 })).toEqual(tests.slice(2, 5));
    const trains = Array.from({ length: 20 }, (_, s) => s).filter((s) => splitOf('kv', s) === 'train');
    expect(selectSeeds('kv', { split: 'train', count: 4 })).toEqual(trains.slice(0, 4));
    const hard = Array.from({ length: 400 }, (_, s) => s).filter((s) => difficultyOf('kv', s) === 3);
    expect(selectSeeds('kv', { difficulty: 3, count: 4, offset: 1 })).toEqual(hard.slice(1, 5));
    const both = Array.from({ length: 2000 }, (_, s) => s).filter((s) => splitOf('kv', s) === 'test' && difficultyOf('kv', s) === 1);
    expect(selectSeeds('kv', { split: 'test', difficulty: 1, count: 3 })).toEqual(both.slice(0, 3));
  });

  it('refuses a query that could never be met, with the reason', () => {
    for (const difficulty of [0, 4, 1.5, -1]) expect(() => selectSeeds('kv', { difficulty })).toThrow(`difficulty must be 1, 2 or 3, got ${difficulty}`);
    expect(() => selectSeeds('kv', { split: 'dev' as 'test' })).toThrow("split must be 'train' or 'test', got dev");
    for (const q of [{ count: -1 }, { count: 1.5 }, { offset: -1 }, { offset: 0.5 }, { count: Number.NaN }]) {
      expect(() => selectSeeds('kv', q)).toThrow('count and offset must be non-negative integers');
    }
    expect(selectSeeds('kv', { difficulty: 2, count: 1 })).toHaveLength(1);
    expect(selectSeeds('kv', { split: 'train', count: 1, offset: 0 })).toHaveLength(1);
  });
});

// ---- checklists ------------------------------------------------------------------------------------------

describe('finalizeChecklist', () => {
  it('numbers items t{turn}.{i} and normalises weights to sum to exactly 1, the last absorbing rounding', () => {
    const items = finalizeChecklist(2, [item('a', { kind: 'called', tool: 'get' }, 1), item('b', { kind: 'called', tool: 'set' }, 1), item('c', { kind: 'reply_contains', text: ['x'] }, 1)]);
    expect(items.map((i) => i.id)).toEqual(['t2.0', 't2.1', 't2.2']);
    expect(items.map((i) => i.weight)).toEqual([0.333333, 0.333333, 0.333334]);
    expect(items.reduce((a, i) => a + i.weight, 0)).toBe(1);
    const w = finalizeChecklist(0, [item('a', { kind: 'called', tool: 'get' }, 3), item('b', { kind: 'called', tool: 'set' }, 1)]);
    expect(w.map((i) => i.weight)).toEqual([0.75, 0.25]);
    expect(finalizeChecklist(0, [item('only', { kind: 'called', tool: 'get' }, 5)])[0].weight).toBe(1);
  });

  it('copies question, focus, condition and the required flag (false unless set); failure examples only when given', () => {
    const cond = { kind: 'called', tool: 'set', args: { key: 'b' } } as const;
    const [a, b] = finalizeChecklist(1, [
      { question: 'q1', focus_on: 'f1', cond, weight: 1, required: true, failure_examples: ['e1'] },
      { question: 'q2', focus_on: 'f2', cond, weight: 1 },
    ]);
    expect(a).toEqual({ id: 't1.0', question: 'q1', focus_on: 'f1', pass_condition: cond, weight: 0.5, required_for_next_turn: true, failure_examples: ['e1'] });
    expect(b).toEqual({ id: 't1.1', question: 'q2', focus_on: 'f2', pass_condition: cond, weight: 0.5, required_for_next_turn: false });
    expect(Object.hasOwn(b, 'failure_examples')).toBe(false);
    expect(b.required_for_next_turn).toBe(false);
  });

  it('refuses a turn without items', () => {
    expect(() => finalizeChecklist(3, [])).toThrow('turn 3 has no checklist items');
  });
});

// ---- RestrictedEnv ---------------------------------------------------------------------------------------

describe('RestrictedEnv', () => {
  it('exposes the named tools in the given order, overrides first', () => {
    const inner = new KvEnv();
    const env = new RestrictedEnv(inner, ['set', 'get'], { get: schema('get', 'short get') });
    expect(env.name).toBe('kv');
    expect(env.tools().map((t) => [t.name, t.description])).toEqual([['set', 'set a key'], ['get', 'short get']]);
  });

  it('reads the full tool list at most once, and not at all when overrides cover every name', () => {
    const inner = new KvEnv();
    new RestrictedEnv(inner, ['get', 'set', 'del'], {});
    expect(inner.toolsCalls).toBe(1);
    const other = new KvEnv();
    new RestrictedEnv(other, ['get'], { get: schema('get') });
    expect(other.toolsCalls).toBe(0);
  });

  it('refuses a tool the environment does not offer', () => {
    expect(() => new RestrictedEnv(new KvEnv(), ['get', 'nope'])).toThrow('tool nope not offered by kv');
  });

  it('a hidden tool answers TOOL_NOT_AVAILABLE like an unknown one; a visible one reaches the environment', () => {
    const inner = new KvEnv({ a: '1' });
    const env = new RestrictedEnv(inner, ['get', 'set']);
    const hidden = env.call('del', { key: 'a' });
    expect(hidden.error).toBe(true);
    expect(JSON.parse(hidden.text)).toEqual({ error_tool_call: { code: 'TOOL_NOT_AVAILABLE', message: "Tool 'del' is not available.", details: { available: ['get', 'set'] } } });
    expect(inner.data).toEqual({ a: '1' });
    expect(env.call('get', { key: 'a' })).toEqual({ text: '{"value":"1"}', error: false });
    env.call('set', { key: 'b', value: '2' });
    expect(env.snapshot()).toEqual({ a: '1', b: '2' });
    expect(env.unwrap()).toBe(inner);
  });

  it('a clone is independent, keeps the same tools and still hides the others', () => {
    const env = new RestrictedEnv(new KvEnv({ a: '1' }), ['get', 'set']);
    const c = env.clone() as RestrictedEnv;
    expect(c).toBeInstanceOf(RestrictedEnv);
    expect(c.name).toBe('kv');
    expect(c.tools()).toEqual(env.tools());
    c.call('set', { key: 'a', value: 'changed' });
    expect(env.snapshot()).toEqual({ a: '1' });
    expect(c.snapshot()).toEqual({ a: 'changed' });
    expect(c.unwrap()).not.toBe(env.unwrap());
    expect(c.call('del', { key: 'a' }).error).toBe(true);
    expect(c.snapshot()).toEqual({ a: 'changed' });
  });
});

// ---- jsonDiff --------------------------------------------------------------------------------------------

describe('jsonDiff', () => {
  it('null for equal values (numbers within 1e-9, key order ignored)', () => {
    expect(jsonDiff(1, 1)).toBeNull();
    expect(jsonDiff(0.1 + 0.2, 0.3)).toBeNull();
    expect(jsonDiff({ a: 1, b: [1, { c: 'x' }] }, { b: [1, { c: 'x' }], a: 1 })).toBeNull();
    expect(jsonDiff([], [])).toBeNull();
    expect(jsonDiff({}, {})).toBeNull();
    expect(jsonDiff(null, null)).toBeNull();
  });

  it('names the first difference with its path', () => {
    expect(jsonDiff(1, 1 + 1e-6)).toBe(`$: expected 1, got ${1 + 1e-6}`);
    expect(jsonDiff(1, 1 - 2e-9)).toBe(`$: expected 1, got ${1 - 2e-9}`);
    expect(jsonDiff(2, 1)).toBe('$: expected 2, got 1');
    expect(jsonDiff(0, 1e-9)).toBe('$: expected 0, got 1e-9'); // the tolerance is strict
    expect(jsonDiff('a', 'b')).toBe('$: expected "a", got "b"');
    expect(jsonDiff(1, '1')).toBe('$: expected 1, got "1"');
    expect(jsonDiff(null, {})).toBe('$: expected null, got {}');
    expect(jsonDiff({}, null)).toBe('$: expected {}, got null');
    expect(jsonDiff(true, false)).toBe('$: expected true, got false');
    expect(jsonDiff([1, 2], [1, 2, 3])).toBe('$: expected 2 entries, got 3');
    expect(jsonDiff([1, 2], { 0: 1, 1: 2 })).toBe('$: expected [1,2], got {"0":1,"1":2}');
    expect(jsonDiff({ 0: 1 }, [1])).toBe('$: expected {"0":1}, got [1]');
    expect(jsonDiff([1, [2, 3]], [1, [2, 4]])).toBe('$[1][1]: expected 3, got 4');
    expect(jsonDiff([1, 5, 6], [1, 7, 8])).toBe('$[1]: expected 5, got 7');
    expect(jsonDiff({ a: { b: 1 } }, { a: { b: 2 } })).toBe('$.a.b: expected 1, got 2');
    expect(jsonDiff({ a: 1, b: 2 }, { b: 2 })).toBe('$.a: missing');
    expect(jsonDiff({ a: 1 }, { a: 1, z: [1] })).toBe('$.z: unexpected ([1])');
    expect(jsonDiff({ a: 1, b: 1 }, { a: 2, b: 2 })).toBe('$.a: expected 1, got 2');
    expect(jsonDiff({ a: [{ b: 'x' }] }, { a: [{ b: 'y' }] }, '#')).toBe('#.a[0].b: expected "x", got "y"');
    expect(jsonDiff(undefined, 1)).toBe('$: expected undefined, got 1');
  });

  it('shortens long values to 60 characters', () => {
    const long = 'x'.repeat(100);
    const shown = JSON.stringify(long).slice(0, 57) + '...';
    expect(jsonDiff(long, 'y')).toBe(`$: expected ${shown}, got "y"`);
    expect(jsonDiff({}, { k: long })).toBe(`$.k: unexpected (${shown})`);
    const exactly60 = 'y'.repeat(58); // 60 characters with its quotes: shown whole
    expect(jsonDiff(exactly60, 1)).toBe(`$: expected ${JSON.stringify(exactly60)}, got 1`);
  });
});

// ---- buildTask -------------------------------------------------------------------------------------------

describe('buildTask', () => {
  it('describes the task without running the expert', () => {
    const makeEnv = vi.fn(() => new KvEnv({ a: '1' }));
    const t = kvTask(TWO_TURNS, makeEnv);
    expect(t.id).toBe('kv-7');
    expect(t.world).toBe('kv');
    expect(t.seed).toBe(7);
    expect(t.split).toBe(splitOf('kv', 7));
    expect(t.difficulty).toBe(difficultyOf('kv', 7));
    expect(t.userTurns).toEqual(['set b', 'read a']);
    expect(t.policy).toBe('be brief');
    expect(t.tags).toEqual(['kv', 'small']);
    expect(t.checklist.map((c) => c.map((i) => [i.id, i.weight, i.required_for_next_turn]))).toEqual([[['t0.0', 1, true]], [['t1.0', 0.5, false], ['t1.1', 0.5, false]]]);
    expect(makeEnv).not.toHaveBeenCalled();
    expect(t.makeEnv).toBe(makeEnv);
  });

  it('runs the expert once, on first use, and keeps the real observations in the reference', () => {
    const makeEnv = vi.fn(() => new KvEnv({ a: '1' }));
    const t = kvTask(TWO_TURNS, makeEnv);
    expect(t.reference).toEqual([
      { role: 'user', content: 'set b' },
      { role: 'assistant', content: '', toolCalls: [{ name: 'set', arguments: { key: 'b', value: '2' } }] },
      { role: 'tool', name: 'set', content: '{"ok":true}' },
      { role: 'assistant', content: 'done' },
      { role: 'user', content: 'read a' },
      { role: 'assistant', content: '', toolCalls: [{ name: 'get', arguments: { key: 'a' } }] },
      { role: 'tool', name: 'get', content: '{"value":"1"}' },
      { role: 'assistant', content: '', toolCalls: [{ name: 'get', arguments: { key: 'zz' } }] },
      { role: 'tool', name: 'get', content: errorObservation('TOOL_EXECUTION_ERROR', 'no key zz').text, error: true },
      { role: 'assistant', content: 'a is 1' },
    ]);
    expect(Object.hasOwn(t.reference[2], 'error')).toBe(false);
    expect(t.expertState).toEqual({ a: '1', b: '2' });
    t.verify(new KvEnv({ a: '1', b: '2' }));
    t.verify(new KvEnv({}));
    expect(t.reference).toBe(t.reference);
    expect(makeEnv).toHaveBeenCalledTimes(1);
  });

  it('verify passes the expert final state (any key order) and names the first difference otherwise', () => {
    const t = kvTask();
    expect(t.verify(new KvEnv({ a: '1', b: '2' }))).toEqual({ passed: true, reason: 'final state matches the expert final state' });
    expect(t.verify(new KvEnv({ b: '2', a: '1' }))).toEqual({ passed: true, reason: 'final state matches the expert final state' });
    expect(t.verify(new KvEnv({ a: '1' }))).toEqual({ passed: false, reason: "final state differs from the expert's: $.b: missing" });
    expect(t.verify(new KvEnv({ a: '1', b: '3' }))).toEqual({ passed: false, reason: 'final state differs from the expert\'s: $.b: expected "2", got "3"' });
    expect(t.verify(new KvEnv({ a: '1', b: '2', c: '' }))).toEqual({ passed: false, reason: 'final state differs from the expert\'s: $.c: unexpected ("")' });
  });

  it('an expert call that errors unexpectedly, or succeeds where it should fail, is a generator bug', () => {
    const bad = kvTask([{ user: 'u', steps: [call('get', { key: 'missing' }), reply('r')], items: [item('q', { kind: 'called', tool: 'get' })] }]);
    expect(() => bad.reference).toThrow(ExpertError);
    expect(() => bad.expertState).toThrow(/^kv seed 7 turn 0: expert call get\(\{"key":"missing"\}\) -> .*no key missing/);
    const ok = kvTask([{ user: 'u', steps: [{ call: { name: 'get', arguments: { key: 'a' } }, expectError: true }, reply('r')], items: [item('q', { kind: 'called', tool: 'get' })] }]);
    expect(() => ok.reference).toThrow('kv seed 7 turn 0: expert call get({"key":"a"}) -> {"value":"1"}');
    // an error in the text shape other ports use counts too
    const textErr = kvTask([{ user: 'u', steps: [call('fail'), reply('r')], items: [item('q', { kind: 'called', tool: 'fail' })] }]);
    expect(() => textErr.reference).toThrow('expert call fail({}) -> Error: always fails');
  });

  it('every expert turn must end with a reply', () => {
    const noReply = kvTask([{ user: 'u', steps: [reply('first'), call('get', { key: 'a' })], items: [item('q', { kind: 'called', tool: 'get' })] }]);
    expect(() => noReply.reference).toThrow('kv seed 7 turn 0: expert turn must end with a reply');
    const second = kvTask([TWO_TURNS[0], { user: 'u2', steps: [], items: [item('q', { kind: 'called', tool: 'get' })] }]);
    expect(() => second.verify(new KvEnv())).toThrow('kv seed 7 turn 1: expert turn must end with a reply');
    expect(() => second.expertState).toThrow(ExpertError);
  });
});

describe('defineWorld', () => {
  const generate = vi.fn((seed: number, difficulty: number): TaskPlan => plan([{ user: `seed ${seed} d${difficulty}`, steps: [reply('ok')], items: [item('q', { kind: 'reply_contains', text: ['ok'] })] }]));
  const world = defineWorld({ name: 'kv', description: 'a store', policy: 'p', tools: () => [schema('get')], generate, stateOf });

  it('builds tasks from the generator with the seed and its difficulty', () => {
    expect([world.name, world.description, world.policy]).toEqual(['kv', 'a store', 'p']);
    expect(world.tools().map((t) => t.name)).toEqual(['get']);
    const t = world.task(12);
    expect(generate).toHaveBeenLastCalledWith(12, difficultyOf('kv', 12));
    expect(t.id).toBe('kv-12');
    expect(t.userTurns).toEqual([`seed 12 d${difficultyOf('kv', 12)}`]);
    expect(t.policy).toBe('p');
    expect(world.task(0).id).toBe('kv-0');
  });

  it('delegates split, difficulty and seed queries, and lists tasks in seed order', () => {
    for (const s of [0, 5, 99]) {
      expect(world.splitOf(s)).toBe(splitOf('kv', s));
      expect(world.difficultyOf(s)).toBe(difficultyOf('kv', s));
    }
    expect(world.seeds({ split: 'test', count: 3 })).toEqual(selectSeeds('kv', { split: 'test', count: 3 }));
    expect(world.tasks({ count: 3, offset: 2 }).map((t) => t.id)).toEqual(['kv-2', 'kv-3', 'kv-4']);
  });

  it('refuses a seed that is not a non-negative integer', () => {
    for (const s of [-1, 1.5, Number.NaN]) expect(() => world.task(s)).toThrow(`seed must be a non-negative integer, got ${s}`);
  });
});

describe('generator helpers', () => {
  it('call and reply build expert steps', () => {
    expect(call('get', { key: 'a' })).toEqual({ call: { name: 'get', arguments: { key: 'a' } } });
    expect(call('list')).toEqual({ call: { name: 'list', arguments: {} } });
    expect(reply('hi')).toEqual({ reply: 'hi' });
  });

  it('toolsUsed collects the expert calls and the tools pass conditions name', () => {
    const turns: TurnPlan[] = [
      { user: 'u', steps: [call('get', { key: 'a' }), reply('r')], items: [item('q', { kind: 'not_called', tool: 'del' }), item('q', { kind: 'reply_contains', text: ['x'] })] },
      { user: 'u', steps: [reply('r')], items: [item('q', { kind: 'result_contains', tool: 'get', text: 'x' }), item('q', { kind: 'called', tool: 'set' })] },
    ];
    expect([...toolsUsed(turns)].sort()).toEqual(['del', 'get', 'set']);
    expect(toolsUsed([]).size).toBe(0);
  });
});

describe('replayReference', () => {
  it('replays the reference on a fresh env: the final env, per-turn steps with fresh observations, no mismatch', () => {
    const t = kvTask();
    const r = replayReference(t);
    expect(r.mismatches).toEqual([]);
    expect(r.env.snapshot()).toEqual({ a: '1', b: '2' });
    expect(t.verify(r.env).passed).toBe(true);
    expect(r.turnSteps).toEqual([
      [{ call: { name: 'set', arguments: { key: 'b', value: '2' } }, result: { text: '{"ok":true}', error: false } }, { reply: 'done' }],
      [
        { call: { name: 'get', arguments: { key: 'a' } }, result: { text: '{"value":"1"}', error: false } },
        { call: { name: 'get', arguments: { key: 'zz' } }, result: errorObservation('TOOL_EXECUTION_ERROR', 'no key zz') },
        { reply: 'a is 1' },
      ],
    ]);
  });

  it('lists a stored observation the replay does not reproduce, and ignores tool messages without a call', () => {
    const t = kvTask();
    const reference = t.reference.map((m) => (m.role === 'tool' && m.content === '{"value":"1"}' ? { ...m, content: '{"value":"stale"}' } : m));
    const r = replayReference({ ...t, reference, makeEnv: t.makeEnv, verify: t.verify } as Task);
    expect(r.mismatches).toEqual(['get: stored {"value":"stale"} vs replay {"value":"1"}']);
    // both sides shown to 60 characters
    const long = t.reference.map((m) => (m.role === 'tool' && m.content === '{"value":"1"}' ? { ...m, content: 'x'.repeat(100) } : m));
    expect(replayReference({ ...t, reference: long, makeEnv: t.makeEnv, verify: t.verify } as Task).mismatches).toEqual([`get: stored ${'x'.repeat(60)} vs replay {"value":"1"}`]);
    const big = new KvEnv({ a: 'v'.repeat(100) });
    const t2 = kvTask([{ user: 'u', steps: [call('get', { key: 'a' }), reply('r')], items: [item('q', { kind: 'called', tool: 'get' })] }], () => big.clone());
    const changed = t2.reference.map((m) => (m.role === 'tool' ? { ...m, content: 'old' } : m));
    expect(replayReference({ ...t2, reference: changed, makeEnv: t2.makeEnv, verify: t2.verify } as Task).mismatches).toEqual([`get: stored old vs replay ${JSON.stringify({ value: 'v'.repeat(100) }).slice(0, 60)}`]);
    const orphan = replayReference({ ...t, makeEnv: t.makeEnv, verify: t.verify, reference: [{ role: 'user', content: 'u' }, { role: 'tool', name: 'get', content: 'x' }, { role: 'assistant', content: 'r' }] } as Task);
    expect(orphan.mismatches).toEqual([]);
    expect(orphan.turnSteps).toEqual([[{ reply: 'r' }]]);
    // messages before the first user turn belong to no turn
    const sys = replayReference({ ...t, makeEnv: t.makeEnv, verify: t.verify, reference: [{ role: 'system', content: 's' }, { role: 'user', content: 'u' }, { role: 'assistant', content: 'r' }] } as Task);
    expect(sys.turnSteps).toEqual([[{ reply: 'r' }]]);
  });

  it('a second tool message for one call is compared once', () => {
    const t = kvTask();
    const ref = t.reference.slice(0, 4);
    const doubled = [...ref.slice(0, 3), { role: 'tool' as const, name: 'set', content: 'other' }, ref[3]];
    const r = replayReference({ ...t, makeEnv: t.makeEnv, verify: t.verify, reference: doubled } as Task);
    expect(r.mismatches).toEqual([]);
  });
});
