import { describe, expect, it } from 'vitest';
import { getWorld, listWorlds, replayReference, RestrictedEnv, taskById, type WorldTask } from '../../src/envs/worlds/index';
import { hash32, mulberry32, Rng } from '../../src/envs/worlds/rng';
import { isErrorObservation, judgeEpisode, judgeTranscript } from '../../src/envs/judges';
import type { ChecklistItem, Environment, PassCondition } from '../../src/envs/types';
import { fsStateOf } from '../../src/envs/worlds/files/env';
import { retailStateOf } from '../../src/envs/worlds/retail/env';

const N = 1000;

/** The task as data (functions dropped), for equality across generations. */
const data = (t: WorldTask) => JSON.stringify({ ...t, makeEnv: undefined, verify: undefined, expertState: undefined });

function notCalledArgs(t: WorldTask, tool: string): Record<string, unknown>[] {
  return t.checklist.flat().map((i) => i.pass_condition)
    .filter((c): c is Extract<PassCondition, { kind: 'not_called' }> => c.kind === 'not_called' && c.tool === tool && !!c.args)
    .map((c) => c.args!);
}

function findTask(world: string, tag: string, pred: (t: WorldTask) => boolean = () => true): WorldTask {
  for (let s = 0; s < 3000; s++) {
    const t = getWorld(world).task(s);
    if (t.tags.includes(tag) && pred(t)) return t;
  }
  throw new Error(`no ${world} task tagged ${tag} in seeds 0..2999`);
}

/** Replay reference calls (in order) until `stop` says so; returns the env at that point. */
function replayUntil(t: WorldTask, stop: (name: string, args: Record<string, unknown>) => boolean): Environment {
  const env = t.makeEnv();
  for (const m of t.reference) {
    if (m.role !== 'assistant' || !m.toolCalls) continue;
    for (const c of m.toolCalls) { if (stop(c.name, c.arguments)) return env; env.call(c.name, c.arguments); }
  }
  return env;
}

/** Replay every reference call except those `skip` matches (errors ignored), return the final env. */
function replaySkipping(t: WorldTask, skip: (name: string, args: Record<string, unknown>) => boolean): Environment {
  const env = t.makeEnv();
  for (const m of t.reference) if (m.role === 'assistant' && m.toolCalls) for (const c of m.toolCalls) if (!skip(c.name, c.arguments)) env.call(c.name, c.arguments);
  return env;
}

describe.each(['retail', 'files'])('%s world: experts verify at 100%%', (name) => {
  it(`the reference of ${N} tasks replays identically, verifies, and the judge gives 1`, () => {
    const w = getWorld(name);
    const failures: string[] = [];
    let chars = 0;
    const t0 = performance.now();
    const tasks = w.tasks({ count: N });
    const genMs = performance.now() - t0;
    for (const t of tasks) {
      chars += JSON.stringify(t.reference).length;
      const r = replayReference(t);
      const v = judgeEpisode(t, r.turnSteps, r.env);
      const onStored = judgeTranscript(t, t.reference);
      const bad = [
        r.mismatches.length ? `replay mismatch ${r.mismatches[0]}` : '',
        v.outcome?.passed ? '' : `verify: ${v.outcome?.reason}`,
        v.score === 1 ? '' : `judge ${v.score}: ${v.turns.flatMap((x) => x.items).filter((i) => !i.passed).map((i) => i.reason).join('; ')}`,
        onStored.score === 1 ? '' : `judge on stored transcript ${onStored.score}`,
      ].filter(Boolean);
      if (bad.length) failures.push(`${t.id}: ${bad.join(' | ')}`);
      // structural invariants
      if (t.userTurns.length < 1 || t.userTurns.length > 3) failures.push(`${t.id}: ${t.userTurns.length} user turns`);
      if (t.checklist.length !== t.userTurns.length) failures.push(`${t.id}: checklist/turn count`);
      for (const items of t.checklist) {
        const sum = items.reduce((a, i) => a + i.weight, 0);
        if (Math.abs(sum - 1) > 1e-9) failures.push(`${t.id}: weights sum to ${sum}`);
      }
      const users = t.reference.filter((m) => m.role === 'user').map((m) => m.content);
      if (JSON.stringify(users) !== JSON.stringify(t.userTurns)) failures.push(`${t.id}: userTurns differ from reference`);
      if (t.reference[t.reference.length - 1].role !== 'assistant') failures.push(`${t.id}: reference does not end with a reply`);
    }
    expect(failures.slice(0, 10)).toEqual([]);
    console.log(`${name}: ${N} tasks generated in ${genMs.toFixed(0)} ms (${(N / (genMs / 1000)).toFixed(0)}/s), avg reference ${(chars / N).toFixed(0)} chars`);
  });
});

/** A state change no expert makes, applied on the full port behind the task's restricted tool list. */
function tamper(world: string, env: Environment): void {
  const inner = env instanceof RestrictedEnv ? env.unwrap() : env;
  if (world === 'files') {
    const obs = inner.call('touch', { file_name: 'zz_tampered.txt' });
    if (obs.error || isErrorObservation(obs)) throw new Error(`tamper failed: ${obs.text}`);
    return;
  }
  const users = (env.snapshot() as { users: Record<string, unknown> }).users;
  const obs = inner.call('modify_user_address', { user_id: Object.keys(users)[0], address1: '1 Tamper Lane', address2: '',
    city: 'Nowhere', state: 'NA', country: 'Atlantis', zip: '00000' });
  if (obs.error || isErrorObservation(obs)) throw new Error(`tamper failed: ${obs.text}`);
}

const stateOf: Record<string, (env: Environment) => unknown> = { files: fsStateOf, retail: retailStateOf };

describe.each(['retail', 'files'])('%s world: verify detects a wrong final state', (name) => {
  it(`for ${N} tasks: an extra change fails, and so does the expert's run without its last state-changing call`, () => {
    const failures: string[] = [];
    let dropped = 0;
    for (const t of getWorld(name).tasks({ count: N })) {
      const env = replayReference(t).env;
      tamper(name, env);
      const v = t.verify(env);
      if (v.passed) failures.push(`${t.id}: tampered state verified`);
      else if (!/differs/.test(v.reason)) failures.push(`${t.id}: reason does not name the difference: ${v.reason}`);
      // The last expert call that changed the judged state, found by replaying with a state diff after each call.
      const replay = t.makeEnv();
      let before = JSON.stringify(stateOf[name](replay));
      let last = -1; let k = 0;
      for (const m of t.reference) if (m.role === 'assistant' && m.toolCalls) for (const c of m.toolCalls) {
        replay.call(c.name, c.arguments);
        const after = JSON.stringify(stateOf[name](replay));
        if (after !== before) last = k;
        before = after; k++;
      }
      if (last < 0) continue;
      dropped++;
      let j = 0;
      const without = replaySkipping(t, () => j++ === last);
      if (t.verify(without).passed) failures.push(`${t.id}: verified without state-changing call #${last}`);
    }
    expect(failures.slice(0, 10)).toEqual([]);
    // most tasks change state: the second check must have run on a large share of them
    expect(dropped).toBeGreaterThan(N / 4);
  });
});

describe('determinism, variety, splits', () => {
  it('same seed -> same task and same results; different seeds differ', () => {
    for (const w of listWorlds()) {
      for (const s of [0, 7, 123, 4567]) {
        const a = w.task(s); const b = w.task(s);
        expect(data(a)).toBe(data(b));
        const ra = replayReference(a); const rb = replayReference(b);
        expect(JSON.stringify(ra.turnSteps)).toBe(JSON.stringify(rb.turnSteps));
        expect(JSON.stringify(a.expertState)).toBe(JSON.stringify(b.expertState));
      }
      const seen = new Set<string>();
      // two seeds may share a conversation (e.g. "no folder named X") but never the whole task
      for (let s = 0; s < 200; s++) { const t = w.task(s); seen.add(JSON.stringify([t.reference, t.makeEnv().snapshot()])); }
      expect(seen.size).toBe(200);
    }
  });

  it('the PRNG and hash are pinned (changing them would silently reshuffle every task)', () => {
    const r = mulberry32(42);
    expect([r(), r(), r()].map((x) => x.toFixed(6))).toEqual(['0.601104', '0.448291', '0.852466']);
    expect(hash32('retail', 'split', 0)).toBe(hash32('retail', 'split', 0));
    expect(hash32('a', 1)).not.toBe(hash32('a', 2));
    const g = new Rng(1);
    for (let i = 0; i < 1000; i++) { const x = g.int(3, 5); expect(x >= 3 && x <= 5).toBe(true); }
  });

  it('split and difficulty are stable functions of the seed and queries honour them', () => {
    for (const w of listWorlds()) {
      let test = 0;
      const diff = [0, 0, 0, 0];
      for (let s = 0; s < 5000; s++) {
        const sp = w.splitOf(s);
        if (sp === 'test') test++;
        diff[w.difficultyOf(s)]++;
      }
      expect(test / 5000).toBeGreaterThan(0.07);
      expect(test / 5000).toBeLessThan(0.13);
      for (const d of [1, 2, 3]) expect(diff[d] / 5000).toBeGreaterThan(0.28);
      const seeds = w.seeds({ split: 'test', difficulty: 2, count: 5, offset: 3 });
      const all = w.seeds({ split: 'test', difficulty: 2, count: 8 });
      expect(seeds).toEqual(all.slice(3));
      const tasks = w.tasks({ split: 'test', difficulty: 2, count: 5, offset: 3 });
      expect(tasks.map((t) => t.seed)).toEqual(seeds);
      for (const t of tasks) { expect(t.split).toBe('test'); expect(t.difficulty).toBe(2); expect(t.id).toBe(`${w.name}-${t.seed}`); }
      expect(taskById(tasks[0].id).seed).toBe(tasks[0].seed);
    }
    // pinned: the first test seeds must never move (evaluation sets are defined by them)
    expect(getWorld('retail').seeds({ split: 'test', count: 5 })).toEqual(PINNED.retail);
    expect(getWorld('files').seeds({ split: 'test', count: 5 })).toEqual(PINNED.files);
  });

  it('each task exposes a short tool list containing every tool its checklist names', () => {
    for (const w of listWorlds()) {
      for (let s = 0; s < 100; s++) {
        const t = w.task(s);
        const names = t.makeEnv().tools().map((x) => x.name);
        for (const it of t.checklist.flat() as ChecklistItem[]) if ('tool' in it.pass_condition) expect(names).toContain(it.pass_condition.tool);
        expect(names.length).toBeLessThanOrEqual(10);
        // a tool the task does not offer answers TOOL_NOT_AVAILABLE
        const hidden = w.tools().map((x) => x.name).find((n) => !names.includes(n));
        if (hidden) expect(t.makeEnv().call(hidden, {}).text).toContain('TOOL_NOT_AVAILABLE');
      }
    }
  });

  it('makeEnv gives independent fresh environments', () => {
    const t = getWorld('files').task(1);
    const a = t.makeEnv(); const b = t.makeEnv();
    a.call('mkdir', { dir_name: 'zzz' });
    expect(t.verify(a).passed).toBe(false);
    expect(JSON.stringify(b.snapshot())).toBe(JSON.stringify(t.makeEnv().snapshot()));
  });
});

const PINNED: Record<string, number[]> = { retail: [4, 34, 54, 66, 68], files: [24, 37, 40, 59, 70] };

describe('situations where imagining the result first pays off', () => {
  it('retail: an order id without # fails lookup', () => {
    const t = findTask('retail', 'order_id_without_hash');
    const [{ order_id }] = notCalledArgs(t, 'get_order_details');
    expect(String(order_id)).not.toMatch(/^#/);
    const obs = t.makeEnv().call('get_order_details', { order_id });
    expect(isErrorObservation(obs)).toBe(true);
    expect(obs.text).toBe('Error: Order not found');
    expect(isErrorObservation(t.makeEnv().call('get_order_details', { order_id: '#' + String(order_id) }))).toBe(false);
  });

  it('retail: cancelling a delivered/cancelled order is refused by the tool and fails the required item', () => {
    const t = findTask('retail', 'policy_refusal');
    const [{ order_id }] = notCalledArgs(t, 'cancel_pending_order');
    const env = t.makeEnv();
    const obs = env.call('cancel_pending_order', { order_id, reason: 'no longer needed' });
    expect(isErrorObservation(obs)).toBe(true);
    expect(obs.text).toContain('Non-pending order cannot be cancelled');
    // an agent that tries anyway fails the turn's required item: the episode ends there
    const turn = t.checklist.findIndex((items) => items.some((i) => i.pass_condition.kind === 'not_called' && i.pass_condition.tool === 'cancel_pending_order'));
    const r = replayReference(t);
    r.turnSteps[turn].unshift({ call: { name: 'cancel_pending_order', arguments: { order_id: order_id as string, reason: 'no longer needed' } }, result: obs });
    const v = judgeEpisode(t, r.turnSteps);
    expect(v.turns[turn].terminated).toBe(true);
    expect(v.score).toBeLessThan(1);
  });

  it('retail: paying with a gift card that does not cover the order fails', () => {
    const t = findTask('retail', 'insufficient_balance');
    const [{ order_id }] = notCalledArgs(t, 'modify_pending_order_payment');
    const user = t.reference.find((m) => m.role === 'tool' && m.content.includes('"payment_methods"'))!;
    const gift = /"(gift_card_\d+)"/.exec(user.role === 'tool' ? user.content : '')![1];
    const obs = t.makeEnv().call('modify_pending_order_payment', { order_id, payment_method_id: gift });
    expect(isErrorObservation(obs)).toBe(true);
    expect(obs.text).toContain('Insufficient gift card balance');
  });

  it('retail: exchanging for an out-of-stock variant is refused by the tool', () => {
    const t = findTask('retail', 'unavailable_variant');
    const [{ order_id }] = notCalledArgs(t, 'exchange_delivered_order_items');
    const env = t.makeEnv();
    const order = JSON.parse(env.call('get_order_details', { order_id }).text) as { items: { item_id: string; product_id: string }[]; payment_history: { payment_method_id: string }[] };
    let tried = 0;
    for (const it of order.items) {
      const product = JSON.parse(env.call('get_product_details', { product_id: it.product_id }).text) as { variants: Record<string, { available: boolean }> };
      for (const [id, v] of Object.entries(product.variants)) {
        if (v.available || id === it.item_id) continue;
        tried++;
        const obs = env.call('exchange_delivered_order_items', { order_id, item_ids: [it.item_id], new_item_ids: [id], payment_method_id: order.payment_history[0].payment_method_id });
        expect(isErrorObservation(obs)).toBe(true);
        expect(obs.text).toContain('not found or available');
      }
    }
    expect(tried).toBeGreaterThan(0);
  });

  it("retail: acting on another user's order fails the required item", () => {
    const t = findTask('retail', 'not_your_order');
    const [{ order_id }] = notCalledArgs(t, 'cancel_pending_order');
    const turn = t.checklist.findIndex((items) => items.some((i) => i.pass_condition.kind === 'not_called' && i.pass_condition.tool === 'cancel_pending_order'));
    const r = replayReference(t);
    r.turnSteps[turn].push({ call: { name: 'cancel_pending_order', arguments: { order_id: order_id as string, reason: 'no longer needed' } } });
    expect(judgeEpisode(t, r.turnSteps).turns[turn].terminated).toBe(true);
  });

  it('files: a nested path passed to cd, or a path passed as a file name, errors', () => {
    const t = findTask('files', 'nested_cd');
    const [{ folder }] = notCalledArgs(t, 'cd');
    expect(String(folder)).toContain('/');
    expect(isErrorObservation(t.makeEnv().call('cd', { folder }))).toBe(true);
    const fileTrap = t.checklist.flat().map((i) => i.pass_condition).find((c) => c.kind === 'not_called' && c.args && 'file_name' in c.args) as Extract<PassCondition, { kind: 'not_called' }>;
    expect(isErrorObservation(t.makeEnv().call(fileTrap.tool, { ...fileTrap.args, pattern: 'x' }))).toBe(true);
  });

  it('files: cd into a folder that does not exist errors', () => {
    const t = findTask('files', 'missing_dir');
    const [{ folder }] = notCalledArgs(t, 'cd');
    const obs = t.makeEnv().call('cd', { folder });
    expect(isErrorObservation(obs)).toBe(true);
    expect(obs.text).toMatch(/No such (file or )?directory/);
  });

  it('files: mv onto an existing file name errors and changes nothing', () => {
    const t = findTask('files', 'rename_conflict');
    const [{ source, destination }] = notCalledArgs(t, 'mv');
    const env = replayUntil(t, (n) => n === 'ls');
    const before = JSON.stringify(env.snapshot());
    const obs = env.call('mv', { source, destination });
    expect(isErrorObservation(obs)).toBe(true);
    expect(obs.text).toContain('Not a directory');
    expect(JSON.stringify(env.snapshot())).toBe(before);
  });

  it('files: mv into a "new folder" without mkdir silently renames: the outcome check catches it', () => {
    const t = findTask('files', 'mkdir_before_mv');
    const env = replaySkipping(t, (n) => n === 'mkdir');
    const v = t.verify(env);
    expect(v.passed).toBe(false);
    expect(v.reason).toMatch(/differs/);
  });

  it('files: echo into a file that was not touched errors', () => {
    const t = findTask('files', 'touch_before_echo');
    const echo = t.reference.flatMap((m) => (m.role === 'assistant' && m.toolCalls ? m.toolCalls : [])).find((c) => c.name === 'echo')!;
    const env = replayUntil(t, (n) => n === 'touch');
    const obs = env.call('echo', echo.arguments);
    expect(isErrorObservation(obs)).toBe(true);
    expect(obs.text).toContain('No such file');
    expect(t.verify(replaySkipping(t, (n) => n === 'touch')).passed).toBe(false);
  });
});

describe('envs CLI', () => {
  it('show --json prints the task and call runs a tool on its initial env', async () => {
    const { execFileSync } = await import('node:child_process');
    const run = (...args: string[]) => execFileSync(process.execPath, ['--import', 'tsx', 'src/cli/envs.ts', ...args], { encoding: 'utf8' });
    const shown = JSON.parse(run('show', '--world', 'retail', '--seed', '3', '--json')) as { id: string; reference: unknown[]; checklist: unknown[][] };
    const t = getWorld('retail').task(3);
    expect(shown.id).toBe('retail-3');
    expect(shown.reference).toEqual(JSON.parse(JSON.stringify(t.reference)));
    expect(shown.checklist).toEqual(JSON.parse(JSON.stringify(t.checklist)));
    const out = run('call', '--world', 'files', '--seed', '3', '--calls', '[{"name":"cd","arguments":{"folder":"no_such_dir"}},{"name":"ls"}]', '--json')
      .trim().split('\n').map((l) => JSON.parse(l) as { observation: { text: string } });
    expect(out).toHaveLength(2);
    expect(out[0].observation.text).toContain('error');
    expect(out[1].observation.text).toContain('current_directory_content');
  });
});
