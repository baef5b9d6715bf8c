import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { expertGenerator, FakeGenerator } from '../../src/agent/testing';
import { bytesPerSequence, chunkTasksFor, EvalCancelled, EvalOutOfMemory, evalReport, runProtocol, type EvalProgress } from '../../src/bench/evaluation';
import { getWorld } from '../../src/envs/worlds';

const tasks = getWorld('files').tasks({ split: 'test', count: 6 });
const sampling = { k: 2, temperature: 0.7, topP: 0.95, seed: 3 };

describe('evaluation protocol', () => {
  it('gives the same per-task scores whatever the chunk size, with progress to the end', async () => {
    const whole = await runProtocol(tasks, expertGenerator(tasks, { noise: 0.4 }), { ...sampling, chunkTasks: 6 });
    const seen: EvalProgress[] = [];
    const chunked = await runProtocol(tasks, expertGenerator(tasks, { noise: 0.4 }), { ...sampling, chunkTasks: 2, onProgress: (p) => seen.push(p) });
    expect(chunked.perTask).toEqual(whole.perTask);
    expect(chunked.summary.success).toBe(whole.summary.success);
    expect(chunked.chunks).toBe(3);
    expect(whole.chunks).toBe(1);
    // The noise makes some samples fail and some succeed: the comparison above is not trivially all-ones.
    const succ = chunked.perTask.map((t) => t.success);
    expect(Math.min(...succ)).toBeLessThan(1);
    expect(Math.max(...succ)).toBeGreaterThan(0);
    const last = seen[seen.length - 1]!;
    expect(last).toMatchObject({ done: 12, total: 12, tasksDone: 6, tasks: 6, chunks: 3 });
    expect(last.etaMs).toBe(0);
    for (let i = 1; i < seen.length; i++) expect(seen[i]!.done).toBeGreaterThanOrEqual(seen[i - 1]!.done);
    expect(seen.filter((p) => p.tasksDone > 0 && p.tasksDone < 6).length).toBeGreaterThan(0);
  });

  it('an expert policy succeeds everywhere: means 1 with zero-width intervals', async () => {
    const r = await runProtocol(tasks, expertGenerator(tasks), { ...sampling });
    const rep = evalReport(r, { model: 'expert', world: 'files', ...sampling }, { resamples: 500, seed: 1 });
    for (const m of ['success', 'outcome', 'checklist', 'pass_at_k'] as const) expect(rep[m]).toEqual({ mean: 1, ci95: [1, 1] });
  });

  it('slices generation batches for a responsive cancel without changing any trajectory', async () => {
    const whole = await runProtocol(tasks, expertGenerator(tasks, { noise: 0.4 }), { ...sampling, chunkTasks: 6 });
    const g = expertGenerator(tasks, { noise: 0.4 });
    const sliced = await runProtocol(tasks, g, { ...sampling, chunkTasks: 6, sliceMs: 1e-6 });
    expect(sliced.perTask).toEqual(whole.perTask);
    // First slice of 2 measures the time per request; at 1e-6 ms per slice every later slice holds one request.
    expect(g.batches[0]!.length).toBe(2);
    expect(Math.max(...g.batches.slice(1).map((b) => b.length))).toBe(1);
  });

  it('stops between generations when cancelled', async () => {
    const ac = new AbortController();
    let calls = 0;
    const inner = expertGenerator(tasks);
    const g = { name: 'x', maxContext: inner.maxContext, countTokens: (t: string) => inner.countTokens(t),
      generate: (reqs: Parameters<typeof inner.generate>[0]) => { if (++calls === 3) ac.abort(); return inner.generate(reqs); } };
    await expect(runProtocol(tasks, g, { ...sampling, chunkTasks: 2, signal: ac.signal })).rejects.toBeInstanceOf(EvalCancelled);
    expect(calls).toBe(3);
  });

  it('halves the chunk on an allocation failure, and says so clearly when one task does not fit', async () => {
    const inner = expertGenerator(tasks);
    const big = { name: 'x', maxContext: inner.maxContext, countTokens: (t: string) => inner.countTokens(t),
      generate: async (reqs: Parameters<typeof inner.generate>[0]) => {
        if (reqs.length > 2) throw new Error('std::bad_alloc');
        return inner.generate(reqs);
      } };
    const r = await runProtocol(tasks, big, { ...sampling, k: 1, chunkTasks: 6 });
    expect(r.chunkTasks).toBeLessThanOrEqual(2);
    expect(r.perTask.every((t) => t.success === 1)).toBe(true);
    const never = new FakeGenerator(() => { throw new Error('std::bad_alloc'); });
    await expect(runProtocol(tasks, never, { ...sampling, chunkTasks: 4 })).rejects.toThrow(EvalOutOfMemory);
    await expect(runProtocol(tasks, never, { ...sampling, chunkTasks: 4 })).rejects.toThrow(/out of memory evaluating files-\d+ even one task at a time/);
  });

  it('sizes chunks to the memory budget', () => {
    const tiny = { num_hidden_layers: 2, num_attention_heads: 4, num_key_value_heads: 4, hidden_size: 64, head_dim: 16, vocab_size: 1024, max_position_embeddings: 1024 };
    const per = bytesPerSequence(tiny);
    expect(per).toBeGreaterThan(16 * 2 ** 20); // 4 heads × 1024² attention scores alone are 16 MiB
    expect(chunkTasksFor(4, tiny, 40 * per)).toBe(10);
    expect(chunkTasksFor(4, tiny, per)).toBe(1);
    expect(chunkTasksFor(1, { ...tiny, max_position_embeddings: 512 }, 40 * per)).toBeGreaterThanOrEqual(40 * 3);
  });
});

describe('npm run eval', () => {
  it('prints one JSON object with the documented fields', () => {
    const r = spawnSync('npx', ['tsx', 'src/cli/eval.ts', '--model', 'models/envace-tiny', '--world', 'files', '--tasks', '3', '--k', '2', '--temperature', '0.6', '--top-p', '0.95', '--seed', '4', '--json'], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const j = JSON.parse(lines[0]!);
    expect(j).toMatchObject({ n_tasks: 3, k: 2, temperature: 0.6, top_p: 0.95, seed: 4, world: 'files', split: 'test', mode: 'real' });
    for (const m of ['success', 'outcome', 'checklist', 'pass_at_k']) {
      expect(Object.keys(j[m]).sort()).toEqual(['ci95', 'mean']);
      const [lo, hi] = j[m].ci95;
      expect(lo).toBeLessThanOrEqual(j[m].mean);
      expect(hi).toBeGreaterThanOrEqual(j[m].mean);
    }
    expect(Object.values(j.terminations as Record<string, number>).reduce((a, b) => a + b, 0)).toBe(6);
    expect(typeof j.seconds).toBe('number');
    expect(r.stderr).toMatch(/eta/);
    const bad = spawnSync('npx', ['tsx', 'src/cli/eval.ts', '--world', 'mars', '--k', '0'], { encoding: 'utf8' });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/--model is required/);
    expect(bad.stderr).toMatch(/--world must be one of/);
  }, 60_000);
});

describe('held-out split', () => {
  it('every built-in world has at least 100 test tasks, disjoint from train, by the hash rule', () => {
    for (const w of ['files', 'retail']) {
      const world = getWorld(w);
      const test = world.seeds({ split: 'test', count: 150 });
      expect(test).toHaveLength(150);
      const train = new Set(world.seeds({ split: 'train', count: 4000 }));
      expect(test.some((s) => train.has(s))).toBe(false);
      for (const s of test) expect(world.splitOf(s)).toBe('test');
      // The rule is a stable hash (≈10% of seeds): the first test seeds never change.
      expect(test.length / (test[test.length - 1]! + 1)).toBeGreaterThan(0.05);
      expect(test.length / (test[test.length - 1]! + 1)).toBeLessThan(0.2);
      const ts = world.tasks({ split: 'test', count: 100 });
      expect(new Set(ts.map((t) => t.id)).size).toBe(100);
      for (const t of ts) { expect(t.split).toBe('test'); expect(t.checklist.length).toBe(t.userTurns.length); }
    }
  });
});
