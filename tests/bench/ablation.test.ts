import { describe, expect, it } from 'vitest';
import { BASE, OWN_QUESTIONS, PAPER_CHAIN, summarize, summaryMarkdown, SUMMARY_FORMAT, type RunResult } from '../../src/cli/ablation';
import type { EvalReport, TaskScore } from '../../src/bench/evaluation';
import { Rng } from '../../src/engine/rng';

const T = 40;
const seeds = [1, 2, 3, 4, 5];

/** Per-task success of a variant: a shared task difficulty plus the variant's effect, seed noise small. */
function run(variant: string, seed: number, effect: number): RunResult {
  const rng = new Rng(seed * 1000 + variant.length);
  const perTask: TaskScore[] = Array.from({ length: T }, (_, t) => {
    const p = Math.min(1, Math.max(0, ((t * 37) % 10) / 10 * 0.5 + effect + (rng.uniform() - 0.5) * 0.05));
    return { task: `files-${t}`, samples: 4, success: p, outcome: p, checklist: p, passAtK: p > 0 ? 1 : 0, fidelityF1: null, terminations: [] };
  });
  return { variant, seed, steps: variant === BASE ? 0 : 10, secondsPerStep: variant === BASE ? null : 3, report: { n_tasks: T } as EvalReport, perTask, curve: [{ step: 1, reward: 0.1 }], evals: [] };
}

const protocol = { world: 'files', split: 'test' as const, n_tasks: T, k: 4, temperature: 0.6, top_p: 0.95, seeds, steps: 10, model: 'm', config: {}, resamples: 500 };

describe('ablation summary', () => {
  it('reproduces a clear ordering, flags a reversed one, and keeps the documented format', () => {
    const [a, b, c] = PAPER_CHAIN;
    const runs = seeds.flatMap((s) => [run(BASE, s, 0), run(a!, s, 0.3), run(b!, s, 0.2), run(c!, s, 0.1)]);
    const sum = summarize(runs, protocol);
    expect(sum.format).toBe(SUMMARY_FORMAT);
    expect(sum.protocol).toMatchObject({ n_tasks: T, k: 4, seeds, primary_metric: 'success', bootstrap: { resamples: 500, level: 0.95, over: 'seeds × tasks' } });
    expect(sum.variants.map((v) => v.name)).toEqual([BASE, a, b, c]);
    const links = sum.orderings.filter((o) => o.chain_link && o.metric === 'success');
    expect(links.map((o) => `${o.a}>${o.b}`)).toEqual([`${a}>${b}`, `${b}>${c}`, `${c}>${BASE}`]);
    expect(links.every((o) => o.verdict === 'reproduced')).toBe(true);
    expect(sum.chain).toMatchObject({ verdict: 'reproduced', missing: [] });
    // 4 chain members → 6 implied pairs × 4 metrics.
    expect(sum.orderings).toHaveLength(24);
    const envace = sum.variants.find((v) => v.name === a)!;
    expect(envace.vs_base!.success.mean).toBeGreaterThan(0.25);
    expect(envace.vs_base!.success.ci95[0]).toBeGreaterThan(0.2);
    expect(sum.variants[0]!.vs_base).toBeNull();
    expect(sum.runs).toHaveLength(20);
    expect(sum.runs[1]!.curve).toEqual([{ step: 1, reward: 0.1 }]);
    // the summary keeps the drawn per-step fields, rounded; the run's own result.json keeps everything
    const long = { ...runs[1]!, curve: [{ step: 2, reward: 0.123456789, tokens: 9759, rolloutTokensPerS: 3126.7, trainSuccess: 0.25, skipped: false }] };
    expect(summarize([...runs.slice(0, 1), long, ...runs.slice(2)], protocol).runs[1]!.curve).toEqual([{ step: 2, reward: 0.1235, trainSuccess: 0.25, skipped: false }]);

    const reversed = summarize(seeds.flatMap((s) => [run(BASE, s, 0.2), run(a!, s, 0), run(b!, s, 0), run(c!, s, 0.1)]), protocol);
    const l = reversed.orderings.filter((o) => o.chain_link && o.metric === 'success');
    expect(l.find((o) => o.a === c && o.b === BASE)!.verdict).toBe('not reproduced');
    expect(l.find((o) => o.a === a && o.b === b)!.verdict).toBe('inconclusive');
    expect(reversed.chain.verdict).toBe('not reproduced');
    const md = summaryMarkdown(reversed);
    expect(md).toMatch(/\| ordering \| metric \| paired seeds \| A − B \| verdict at 95% \| MDE \|/);
    expect(md).toMatch(/not reproduced/);
  });

  it('leaves the chain inconclusive when a variant was not run, and summarises a variant on the seeds it has', () => {
    const [a] = PAPER_CHAIN;
    const runs = seeds.flatMap((s) => [run(BASE, s, 0), run(a!, s, 0.3)]);
    runs.push(run('grpo-real', 2, 0.1)); // one seed only: summarised on that seed, paired with base seed 2
    const sum = summarize(runs, protocol);
    expect(sum.variants.map((v) => [v.name, v.seeds])).toEqual([[BASE, seeds], [a, seeds], ['grpo-real', [2]]]);
    const real = sum.variants.find((v) => v.name === 'grpo-real')!;
    // Paired with base seed 2 only: the mean difference is that seed's, not base's mean over five seeds.
    const base2 = runs.find((r) => r.variant === BASE && r.seed === 2)!.perTask, real2 = runs.find((r) => r.variant === 'grpo-real')!.perTask;
    expect(real.vs_base!.success.mean).toBeCloseTo(real2.reduce((x, t, i) => x + t.success - base2[i]!.success, 0) / T, 6);
    expect(sum.chain.missing.length).toBe(2);
    expect(sum.chain.verdict).toBe('inconclusive');
    expect(sum.orderings.filter((o) => o.metric === 'success').map((o) => [o.a, o.b, o.chain_link, o.seeds])).toEqual([[a, BASE, false, seeds], ['grpo-real', a, false, [2]]]);
  });

  it('pairs two variants over the seeds both have and skips a pair with none', () => {
    const [a, b, c] = PAPER_CHAIN;
    const runs = [...seeds.map((s) => run(BASE, s, 0)), run(a!, 1, 0.3), run(a!, 2, 0.3), run(b!, 2, 0.2), run(b!, 3, 0.2), run(c!, 4, 0.1)];
    const sum = summarize(runs, protocol);
    const success = sum.orderings.filter((o) => o.metric === 'success');
    expect(success.find((o) => o.a === a && o.b === b)!.seeds).toEqual([2]);
    // c (seed 4) shares no seed with a or b: no comparison, and the chain cannot be reproduced as a whole.
    expect(success.some((o) => (o.a === b && o.b === c) || (o.a === a && o.b === c))).toBe(false);
    expect(success.find((o) => o.a === c && o.b === BASE)!.seeds).toEqual([4]);
    expect(sum.chain.verdict).not.toBe('reproduced');
    expect(summaryMarkdown(sum)).toMatch(/\| seeds \|/);
  });

  it("adds the playground's own questions (frozen simulator, real environment) outside the chain, on the seeds both have", () => {
    expect(OWN_QUESTIONS.map((q) => `${q.a}>${q.b}`)).toEqual(['envace>grpo-simulator', 'grpo-real>envace']);
    const runs = seeds.flatMap((s) => [run(BASE, s, 0), run('envace', s, 0.1)]);
    // Without the frozen simulator or the real environment, no question is asked.
    expect(summarize(runs, protocol).orderings.some((o) => o.question)).toBe(false);
    runs.push(run('grpo-simulator', 2, 0.1), run('grpo-simulator', 3, 0.1), ...seeds.map((s) => run('grpo-real', s, 0.4)));
    const sum = summarize(runs, protocol);
    const q = sum.orderings.filter((o) => o.question && o.metric === 'success');
    expect(q.map((o) => [o.a, o.b, o.chain_link, o.seeds])).toEqual([['envace', 'grpo-simulator', false, [2, 3]], ['grpo-real', 'envace', false, seeds]]);
    expect(q[1]!.verdict).toBe('reproduced');
    expect(q[1]!.diff.mean).toBeGreaterThan(0.25);
    expect(sum.orderings.filter((o) => o.question)).toHaveLength(2 * 4);
    // They never count as links of the paper's chain.
    expect(sum.chain.links).toEqual(summarize(runs.filter((r) => r.variant !== 'grpo-real' && r.variant !== 'grpo-simulator'), protocol).chain.links);
    expect(summaryMarkdown(sum)).toContain("EnvACE > GRPO + frozen simulator (not in the paper's chain: does training the Rehearse role beat a frozen simulator?)");
  });

  it('reports the fraction of the real environment\'s gain each rehearsal variant recovers, on the seeds all three have', () => {
    const runs = seeds.flatMap((s) => [run(BASE, s, 0), run('envace', s, 0.1), run('grpo-real', s, 0.4)]);
    const sum = summarize(runs, protocol);
    const f = sum.fraction_recovered!.find((x) => x.variant === 'envace')!;
    expect(f.seeds).toEqual(seeds);
    const envace = sum.variants.find((v) => v.name === 'envace')!.vs_base!.success.mean;
    const real = sum.variants.find((v) => v.name === 'grpo-real')!.vs_base!.success.mean;
    expect(f.fraction.mean).toBeCloseTo(envace / real, 10);
    expect(f.fraction.mean).toBeGreaterThan(0.1);
    expect(f.fraction.mean).toBeLessThan(0.5);
    expect(f.conclusive).toBe(true);
    expect(summaryMarkdown(sum)).toContain('Fraction of the real environment');
    // No real arm, no fraction.
    expect(summarize(runs.filter((r) => r.variant !== 'grpo-real'), protocol).fraction_recovered).toBeUndefined();
  });

  it('merges the runs another process left in the output folder, one per (variant, seed), and checks their protocol', async () => {
    const { mergeRuns, folderResults, sameProtocol } = await import('../../src/cli/ablation');
    const { mkdtemp, mkdir, writeFile } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const dir = await mkdtemp(join(tmpdir(), 'ablation-'));
    const report = { n_tasks: T, offset: 300, k: 1, temperature: 0, top_p: 0.95, world: 'files' } as EvalReport;
    const theirs = { ...run('grpo-real', 3, 0.1), report };
    const stale = { ...run('envace', 3, 0.1), report: { ...report, offset: 0 } };
    for (const [name, r] of [['grpo-real-seed3', theirs], ['envace-seed3', stale], ['base-seed1', { ...run(BASE, 1, 0), report }]] as const) {
      await mkdir(join(dir, name)); await writeFile(join(dir, name, 'result.json'), JSON.stringify(r));
    }
    await mkdir(join(dir, 'broken')); await writeFile(join(dir, 'broken', 'result.json'), '{ not json');
    const found = await folderResults(dir);
    expect(found.map((r) => `${r.variant}-${r.seed}`)).toEqual(['base-1', 'envace-3', 'grpo-real-3']);
    const args = { tasks: T, offset: 300, k: 1, temperature: 0, 'top-p': 0.95, world: 'files', steps: 10 };
    const ok = found.filter((r) => sameProtocol(r, args));
    expect(ok.map((r) => r.variant)).toEqual([BASE, 'grpo-real']);
    const mine = [{ ...run(BASE, 1, 0.05), report }];
    const merged = mergeRuns(mine, ok);
    expect(merged.map((r) => `${r.variant}-${r.seed}`)).toEqual(['base-1', 'grpo-real-3']);
    expect(merged[0]).toBe(mine[0]);
  });

  it('puts back the finished runs and mechanism records a results folder holds, never over a run folder\'s own', async () => {
    const { restoreFromResults, folderResults, runFolder, MECHANISM_FILE, MECHANISM_START } = await import('../../src/cli/ablation');
    const { mkdtemp, mkdir, writeFile, readFile } = await import('node:fs/promises');
    const { existsSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const root = await mkdtemp(join(tmpdir(), 'restore-'));
    const [out, results] = [join(root, 'runs'), join(root, 'results')];
    await mkdir(join(results, 'avg2'), { recursive: true });
    const files: Record<string, string> = {
      'base-seed1.json': JSON.stringify(run(BASE, 1, 0)), 'grpo-real-seed3.json': JSON.stringify(run('grpo-real', 3, 0.1)),
      'budget-p0.25-seed2.json': JSON.stringify(run('envace', 2, 0)), 'mechanism-start-seed0.json': '{"s":1}',
      'mechanism-grpo-real-seed3.json': '{"m":3}', 'summary.json': '{}', 'summary.md': '',
    };
    for (const [n, t] of Object.entries(files)) await writeFile(join(results, n), t);
    // A run folder that already finished here keeps its own result.
    await mkdir(runFolder(out, BASE, 1), { recursive: true });
    await writeFile(join(runFolder(out, BASE, 1), 'result.json'), JSON.stringify(run(BASE, 1, 0.5)));
    const written = await restoreFromResults(out, results);
    expect(written.length).toBe(4);
    expect((await folderResults(out)).map((r) => `${r.variant}-${r.seed}`)).toEqual(['base-1', 'envace-2', 'grpo-real-3']);
    expect(JSON.parse(await readFile(join(runFolder(out, BASE, 1), 'result.json'), 'utf8')).perTask).toEqual(run(BASE, 1, 0.5).perTask);
    expect(await readFile(join(out, MECHANISM_START), 'utf8')).toBe('{"s":1}');
    expect(await readFile(join(runFolder(out, 'grpo-real', 3), MECHANISM_FILE), 'utf8')).toBe('{"m":3}');
    expect(existsSync(join(out, 'summary-seed0'))).toBe(false);
    expect(await restoreFromResults(out, results)).toEqual([]);
    expect(await restoreFromResults(out, join(root, 'absent'))).toEqual([]);
  });
});

describe('ablation command line', () => {
  it('defaults to the protocol: ≥ 5 seeds, 100 tasks, Avg@4 at T 0.6, top-p 0.95, the headline variants', async () => {
    const { parseCliArgs } = await import('../../src/cli/args');
    const { ABLATION_CLI, ABLATION_VARIANTS } = await import('../../src/cli/ablation');
    const adv = await import('../../src/rl/advantages') as unknown as { HEADLINE_VARIANTS?: readonly string[] };
    const v = parseCliArgs(ABLATION_CLI, []);
    if (v === 'help') throw new Error('unexpected help');
    expect(v.seeds).toBeGreaterThanOrEqual(5);
    expect(v).toMatchObject({ tasks: 100, k: 4, temperature: 0.6, 'top-p': 0.95 });
    expect(v.variants).toEqual(ABLATION_VARIANTS);
    if (adv.HEADLINE_VARIANTS) expect(ABLATION_VARIANTS).toEqual([...adv.HEADLINE_VARIANTS]);
    expect(() => parseCliArgs(ABLATION_CLI, ['--variants', 'envace,nope', '--seeds', '0'])).toThrow(/nope[\s\S]*|seeds/);
    expect(v.offset).toBe(0);
  });

  it('takes a slice of the test split, an explicit seed list (one process per core) and a results folder', async () => {
    const { parseCliArgs } = await import('../../src/cli/args');
    const { ABLATION_CLI } = await import('../../src/cli/ablation');
    const v = parseCliArgs(ABLATION_CLI, ['--offset', '300', '--seed-list', '2,3', '--results', 'docs/results/x']);
    if (v === 'help') throw new Error('unexpected help');
    expect(v).toMatchObject({ offset: 300, 'seed-list': [2, 3], results: 'docs/results/x' });
    expect(() => parseCliArgs(ABLATION_CLI, ['--seed-list', '0'])).toThrow(/seed-list/);
    expect(() => parseCliArgs(ABLATION_CLI, ['--offset', '-1'])).toThrow(/offset/);
  });
});

describe('importing a run trained earlier (--import)', () => {
  it('accepts a folder whose recorded run is this recipe, and names every difference otherwise', async () => {
    const { importMismatch } = await import('../../src/cli/ablation');
    const want = { variant: 'envace', seed: 1, steps: 300, model: 'models/files-starter', config: { lr: 1e-4, groupSize: 8, negativeAdvantages: 'keep' } };
    const defaults = { lr: 1e-6, groupSize: 4, negativeAdvantages: 'keep' };
    // recorded before negativeAdvantages existed: its default stands in
    const rl = { variant: 'envace', seed: 1, steps: 300, from: 'models/files-starter/', config: { lr: 1e-4, groupSize: 8 } };
    expect(importMismatch(rl, want, defaults)).toEqual([]);
    expect(importMismatch({ ...rl, seed: 2, config: { lr: 3e-4, groupSize: 8 } }, want, defaults)).toEqual(['seed 2, not 1', 'lr 0.0003, not 0.0001']);
    expect(importMismatch({ ...rl, from: 'models/retail-starter' }, want, defaults)[0]).toMatch(/trained from models\/retail-starter/);
    expect(importMismatch({ ...rl, config: { lr: 1e-4, groupSize: 8, negativeAdvantages: 'drop' } }, want, defaults)).toEqual(['negativeAdvantages "drop", not "keep"']);
    expect(importMismatch(undefined, want, defaults)).toEqual(['the folder records no RL run (config.json envace.rl)']);
  });
});
