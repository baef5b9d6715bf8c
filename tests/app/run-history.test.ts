// The Train page's run history (issue 21): a corrupt store is kept aside and said, never silently reset and then
// overwritten; a save that fails (quota) is said; the store (runs.ts) carries both to the page.

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { readRunHistory, RUN_HISTORY_KEY, UNREADABLE_KEY, writeRunHistory, type StorageLike } from '../../src/app/components/train/runHistory';

class FakeStorage implements StorageLike {
  data = new Map<string, string>();
  /** Keys whose writes fail, and how. */
  failing = new Map<string, () => Error>();
  getItem(k: string) { return this.data.get(k) ?? null; }
  setItem(k: string, v: string) {
    const f = this.failing.get(k) ?? this.failing.get('*');
    if (f) throw f();
    this.data.set(k, String(v));
  }
}
const quota = () => new DOMException('the quota has been exceeded', 'QuotaExceededError');
const run = (id: string) => ({ runId: id, request: { runId: id, spec: { variant: 'grpo' } }, history: [], evals: [], logs: [] });

describe('readRunHistory / writeRunHistory', () => {
  it('reads a good history as it is', () => {
    const st = new FakeStorage();
    st.data.set(RUN_HISTORY_KEY, JSON.stringify({ runs: [run('a')], activeId: 'a' }));
    expect(readRunHistory(st)).toEqual({ stored: { runs: [run('a')], activeId: 'a' }, problem: null, writable: true });
    expect(readRunHistory(new FakeStorage())).toEqual({ stored: null, problem: null, writable: true });
  });

  it('a corrupt history is kept aside under its own key and said', () => {
    for (const raw of ['{"runs": [', '"x"', '{"runs": 3}', 'null']) {
      const st = new FakeStorage();
      st.data.set(RUN_HISTORY_KEY, raw);
      const r = readRunHistory(st);
      expect(r.stored).toBeNull();
      expect(r.writable).toBe(true);
      expect(r.problem).toMatch(/^RUN_HISTORY_CORRUPT: the saved run history could not be read \(.+\); it is kept under localStorage 'envace-train-runs\.unreadable'/);
      expect(st.data.get(UNREADABLE_KEY)).toBe(raw);
      expect(st.data.get(RUN_HISTORY_KEY)).toBe(raw); // reading changes nothing
    }
  });

  it('a corrupt history that cannot be kept aside is never saved over', () => {
    const st = new FakeStorage();
    st.data.set(RUN_HISTORY_KEY, '{oops');
    st.failing.set('*', quota);
    const r = readRunHistory(st);
    expect(r.writable).toBe(false);
    expect(r.problem).toMatch(/^RUN_HISTORY_CORRUPT: .*nor kept aside \(QuotaExceededError: .*\); it is left as it is and this page will not save over it$/);
  });

  it('unreadable runs are left out and counted, the whole text kept aside', () => {
    const st = new FakeStorage();
    const raw = JSON.stringify({ runs: [run('a'), { runId: 5 }, null, { ...run('c'), history: 'x' }], activeId: 'c' });
    st.data.set(RUN_HISTORY_KEY, raw);
    const r = readRunHistory<{ runId: string }>(st);
    expect(r.stored!.runs.map((x) => x.runId)).toEqual(['a']);
    expect(r.stored!.activeId).toBeNull(); // 'c' was left out
    expect(r.problem).toMatch(/^RUN_HISTORY_CORRUPT: 3 saved run\(s\) could not be read and are left out/);
    expect(st.data.get(UNREADABLE_KEY)).toBe(raw);
  });

  it('storage that throws on read, or none, is said and never written', () => {
    const st = new FakeStorage();
    st.getItem = () => { throw new DOMException('denied', 'SecurityError'); };
    expect(readRunHistory(st)).toMatchObject({ stored: null, writable: false, problem: expect.stringMatching(/^RUN_HISTORY_UNAVAILABLE: .*SecurityError: denied/) });
    expect(readRunHistory(null)).toMatchObject({ writable: false, problem: expect.stringMatching(/^RUN_HISTORY_UNAVAILABLE/) });
  });

  it('a save over the quota is said, not swallowed', () => {
    const st = new FakeStorage();
    expect(writeRunHistory(st, { runs: [run('a')], activeId: null })).toBeNull();
    st.failing.set(RUN_HISTORY_KEY, quota);
    expect(writeRunHistory(st, { runs: [run('a'), run('b')], activeId: null })).toMatch(/^RUN_HISTORY_NOT_SAVED: the browser's storage for this site is full/);
    st.failing.set(RUN_HISTORY_KEY, () => new Error('disk'));
    expect(writeRunHistory(st, { runs: [], activeId: null })).toBe('RUN_HISTORY_NOT_SAVED: the run history could not be saved (Error: disk); it stays in this page until it is closed');
  });
});

describe('the Train page store (runs.ts) uses them', () => {
  let st: FakeStorage;
  beforeEach(() => {
    vi.resetModules();
    vi.doMock('../../src/app/worker', () => ({ errorText: (e: unknown) => String(e) }));
    vi.doMock('../../src/app/components/train/client', () => ({
      eventProxy: (h: unknown) => h, forceBackend: () => {}, killTrainWorker: () => 0, onDeath: () => () => {}, onWorkerError: () => () => {},
      trainWorker: () => { throw new Error('no worker in this test'); }, whileAlive: (p: unknown) => p, TrainWorkerKilled: class extends Error {}, TrainWorkerDied: class extends Error {},
    }));
    st = new FakeStorage();
    (globalThis as { localStorage?: unknown }).localStorage = st;
  });
  afterEach(() => { delete (globalThis as { localStorage?: unknown }).localStorage; vi.doUnmock('../../src/app/worker'); vi.doUnmock('../../src/app/components/train/client'); });

  it('a corrupt store is said and kept; the next save starts a new history beside it', async () => {
    st.data.set(RUN_HISTORY_KEY, '{"runs": [');
    const { useRuns } = await import('../../src/app/components/train/runs');
    expect(useRuns.getState().storageProblem).toMatch(/^RUN_HISTORY_CORRUPT/);
    expect(useRuns.getState().runs).toEqual([]);
    useRuns.setState({ runs: [run('n') as never], activeId: 'n' });
    expect(st.data.get(UNREADABLE_KEY)).toBe('{"runs": [');
    expect(JSON.parse(st.data.get(RUN_HISTORY_KEY)!).runs[0].runId).toBe('n');
    expect(useRuns.getState().storageProblem).toMatch(/^RUN_HISTORY_CORRUPT/); // still said
  });

  it('a quota failure is said until a save succeeds', async () => {
    const { useRuns } = await import('../../src/app/components/train/runs');
    expect(useRuns.getState().storageProblem).toBeNull();
    st.failing.set(RUN_HISTORY_KEY, quota);
    useRuns.setState({ runs: [run('q') as never], activeId: 'q' });
    expect(useRuns.getState().storageProblem).toMatch(/^RUN_HISTORY_NOT_SAVED: the browser's storage for this site is full/);
    st.failing.clear();
    useRuns.setState({ activeId: null });
    expect(useRuns.getState().storageProblem).toBeNull();
    expect(JSON.parse(st.data.get(RUN_HISTORY_KEY)!).runs).toHaveLength(1);
  });

  it('an unreadable store that cannot be kept aside is never overwritten', async () => {
    st.data.set(RUN_HISTORY_KEY, 'garbage');
    st.failing.set(UNREADABLE_KEY, quota);
    const { useRuns } = await import('../../src/app/components/train/runs');
    useRuns.setState({ runs: [run('z') as never], activeId: 'z' });
    expect(st.data.get(RUN_HISTORY_KEY)).toBe('garbage');
    expect(useRuns.getState().storageProblem).toMatch(/will not save over it/);
  });
});

describe('run labels and ids are unique (issue 42, point 5)', async () => {
  const { uniqueLabel, distinctRuns } = await import('../../src/app/components/train/runHistory');
  it('a repeated label is numbered; a duplicate id in a stored history is left out', () => {
    expect(uniqueLabel('GRPO · seed 0', [])).toBe('GRPO · seed 0');
    expect(uniqueLabel('GRPO · seed 0', ['GRPO · seed 0'])).toBe('GRPO · seed 0 · #2');
    expect(uniqueLabel('GRPO · seed 0', ['GRPO · seed 0', 'GRPO · seed 0 · #2'])).toBe('GRPO · seed 0 · #3');
    const runs = distinctRuns([{ runId: 'a', label: 'x' }, { runId: 'b', label: 'x' }, { runId: 'a', label: 'y' }]);
    expect(runs).toEqual([{ runId: 'a', label: 'x' }, { runId: 'b', label: 'x · #2' }]);
  });
});
