// Benchmarks page curves (src/app/components/bench/): the shipped results are drawn within 3 s of load with no
// evaluation started; each chart's selection lives in the URL and survives a reload; CSV export holds exactly
// the values of the committed JSON (recomputed here from docs/results/ independently of the page's code); the
// paper panel says plainly it is a different scale; the paper suites say where they are evaluated; a small
// evaluation run on the page adds a point marked "your run".

import fs from 'node:fs';
import { expect, test, type Download, type Page } from '@playwright/test';
import { openApp, shot } from './helpers';
import { ablationOrder, defaultSweep, type AblationSummary, type TtsResult } from '../src/app/components/bench/readers';

/** The plot itself (legend icons are small svg.recharts-surface elements too). */
const PLOT = '.recharts-wrapper > svg.recharts-surface';

test.use({ viewport: { width: 1440, height: 1000 } });

async function csvOf(page: Page, testId: string): Promise<string[][]> {
  const [d]: [Download, void] = await Promise.all([page.waitForEvent('download'), page.getByTestId(testId).click()]);
  return fs.readFileSync((await d.path())!, 'utf8').trim().split('\n').map((l) => l.split(','));
}

interface Summary { runs: { variant: string; seed: number; evals: Record<string, number | null>[] }[] }

/** Mean over seeds of one eval metric, by variant and step, straight from the summary JSON. */
function expectedCurve(s: Summary, metric: string): Map<string, number> {
  const acc = new Map<string, number[]>();
  for (const r of s.runs) {
    if (r.variant === 'base') continue;
    for (const e of r.evals) {
      const v = e[metric];
      if (typeof v !== 'number') continue;
      const k = `${e.step}|${r.variant}`;
      acc.set(k, [...(acc.get(k) ?? []), v]);
    }
  }
  return new Map([...acc].map(([k, xs]) => [k, xs.reduce((a, b) => a + b, 0) / xs.length]));
}

test('shipped curves are drawn with no compute (time printed), and CSV export matches the committed JSON', async ({ page }) => {
  await page.goto('/?backend=wasm#/benchmarks', { waitUntil: 'commit' });
  const training = page.getByTestId('curve-training');
  // Polled in the page every animation frame, so the time is when the plot first existed, not when the test
  // process got round to looking (the 2-core box is shared and loaded).
  const drawnAt = await (await page.waitForFunction(
    () => (document.querySelector('[data-testid="curve-training"] .recharts-wrapper > svg.recharts-surface .recharts-line') ? performance.now() : null),
    null, { polling: 'raf', timeout: 30_000 })).jsonValue() as number;
  const loadEnd = await page.evaluate(async () => {
    const nav = () => performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming;
    while (!nav() || nav().loadEventEnd === 0) await new Promise((r) => setTimeout(r, 50));
    return nav().loadEventEnd;
  });
  // A speed figure: printed, never asserted (issue 24: a fresh-clone npm test on a shared box measured 3.04 s and failed).
  console.log(`curves drawn ${Math.round(drawnAt)} ms after navigation start, ${Math.round(drawnAt - loadEnd)} ms after the load event`);
  await expect(training.locator(PLOT)).toBeVisible();
  // Beside it, the paper's orderings as the summary judged them, each with its minimum detectable effect.
  const verdicts = training.getByTestId('verdict-row');
  expect(await verdicts.count()).toBeGreaterThan(0);
  await expect(verdicts.first()).toContainText(/(reproduced|not reproduced|inconclusive)\s*±0\.\d{3}$/);
  // The mechanism: one marker per trained run (Δ fidelity against Δ success), and the correlation with its interval.
  const mechanism = page.getByTestId('curve-mechanism');
  const points = JSON.parse((await mechanism.getAttribute('data-points'))!) as unknown[];
  expect(points.length).toBeGreaterThan(3);
  await expect(mechanism.locator('.recharts-scatter-symbol')).toHaveCount(points.length);
  await expect(page.getByTestId('mechanism-note')).toContainText(/r = -?\d\.\d\d \[-?\d\.\d\d, -?\d\.\d\d\]/);
  await expect(page.getByTestId('curve-rehearsal').locator(PLOT)).toBeVisible();
  await expect(page.getByTestId('curve-evals').locator(PLOT)).toBeVisible();
  await expect(page.getByTestId('paper-reference').locator(PLOT)).toBeVisible();
  // No evaluation RPC went out: the progress block appears the moment one starts, and nothing is "your run".
  await expect(page.getByTestId('bench-progress')).toHaveCount(0);
  await expect(page.getByTestId('your-run-hint')).toBeVisible();
  expect(await page.evaluate(() => performance.getEntriesByType('resource').filter((e) => /docs\/results/.test(e.name)).map((e) => e.name))).toEqual([]);

  // Lines and bands: each series draws a curve (Line) and a band (Area).
  // The chart opens on the first summary in the page's own order (readers.ts ablationOrder: a starter's, then the
  // most training behind it), over every committed ablation summary with a trained run.
  const shownFile = (fs.readdirSync('docs/results', { recursive: true }) as string[]).filter((f) => /summary\.json$/.test(f))
    .map((f) => ({ file: f, data: JSON.parse(fs.readFileSync(`docs/results/${f}`, 'utf8')) as AblationSummary }))
    .filter((x) => typeof x.data.format === 'string' && x.data.format.startsWith('envace-ablation-summary/') && x.data.runs.some((r) => r.variant !== 'base'))
    .sort(ablationOrder)[0]!.file;
  const summary = JSON.parse(fs.readFileSync(`docs/results/${shownFile}`, 'utf8')) as Summary;
  const drawnSeries = (JSON.parse((await training.getAttribute('data-series'))!) as unknown[]).length;
  // One series per trained variant (base has no training curve).
  expect(drawnSeries).toBe(new Set(summary.runs.filter((r) => r.variant !== 'base').map((r) => r.variant)).size);
  await expect(training.locator('path.recharts-line-curve')).toHaveCount(drawnSeries);
  await expect(training.locator('path.recharts-area-area')).toHaveCount(drawnSeries);
  // The playground's own questions (frozen simulator, real environment) sit under the chain, each naming its question.
  const questions = (summary as unknown as { orderings: { metric: string; question?: string }[] }).orderings.filter((o) => o.metric === 'success' && o.question);
  await expect(training.getByTestId('verdict-question')).toHaveCount(questions.length);
  for (const [i, q] of questions.entries()) await expect(training.getByTestId('verdict-question').nth(i)).toHaveText(`(${q.question})`);

  // Training curves CSV = the summary's evals, averaged over seeds (recomputed here from the file).
  for (const metric of ['success', 'checklist']) {
    await page.locator('#f-bc\\.metric').selectOption(metric);
    const csv = await csvOf(page, 'curve-training-csv');
    expect(csv[0]).toEqual(['step', 'series', 'mean', 'ci_lo', 'ci_hi']);
    const want = expectedCurve(summary, metric);
    expect(csv.length - 1).toBe(want.size);
    for (const [step, series, mean, lo, hi] of csv.slice(1)) {
      const w = want.get(`${step}|${series}`);
      expect(w, `${metric} ${step} ${series}`).toBeDefined();
      expect(Number(mean)).toBeCloseTo(w!, 12);
      expect(Number(lo)).toBeLessThanOrEqual(Number(mean) + 1e-12);
      expect(Number(hi)).toBeGreaterThanOrEqual(Number(mean) - 1e-12);
    }
  }

  // Rehearsal sweep CSV = the tts JSON's configs (N = 0 starts every line).
  await page.locator('#f-bt\\.mem').selectOption('both');
  // The sweep it opens on is the page's own rule (readers.ts defaultSweep) over the committed files read here.
  type Tts = TtsResult & { configs: { strategy: string; n: number; memory: string; success: { mean: number; ci95: [number, number] } }[] };
  const sweeps = (fs.readdirSync('docs/results') as string[]).filter((f) => /^tts-.*\.json$/.test(f)).sort()
    .map((f) => ({ file: f, data: JSON.parse(fs.readFileSync(`docs/results/${f}`, 'utf8')) as Tts }));
  const tts = defaultSweep(sweeps)!.data;
  // Issue 20 §3: a sweep of a policy trained with memories in its prompts exists, so that is the one it opens on.
  expect(tts.memoryTrained).toBe(true);
  const sweep = await csvOf(page, 'curve-rehearsal-csv');
  expect(sweep[0]).toEqual(['n', 'series', 'mean', 'ci_lo', 'ci_hi']);
  const none = tts.configs.find((c) => c.n === 0)!;
  const combos = new Set(tts.configs.filter((c) => c.n > 0).map((c) => `${c.strategy}_${c.memory}`.replace(/-/g, '_')));
  expect(sweep.length - 1).toBe(tts.configs.filter((c) => c.n > 0).length + combos.size);
  for (const [n, series, mean, lo, hi] of sweep.slice(1)) {
    const c = Number(n) === 0 ? none : tts.configs.find((x) => x.n === Number(n) && `${x.strategy}_${x.memory}`.replace(/-/g, '_') === series)!;
    expect(c, `${n} ${series}`).toBeDefined();
    expect([Number(mean), Number(lo), Number(hi)]).toEqual([c.success.mean, c.success.ci95[0], c.success.ci95[1]]);
  }
  const ttsModels = new Set((fs.readdirSync('docs/results') as string[]).filter((f) => /^tts-.*\.json$/.test(f))
    .map((f) => (JSON.parse(fs.readFileSync(`docs/results/${f}`, 'utf8')) as { model: string }).model));
  await expect(page.getByTestId('rehearsal-policies')).toContainText(ttsModels.size < 2 ? 'no EnvACE-trained policy exists yet' : 'sweeps exist for');

  // Evaluation suites: every shipped eval JSON is a point with its interval; BFCL and τ² say they are not evaluated.
  // (Other sessions may add eval files after the build: the chart has those bundled, at least the 7 of the start.)
  const evalCsv = await csvOf(page, 'curve-evals-csv');
  const drawnEvals = JSON.parse((await page.getByTestId('curve-evals').getAttribute('data-rows'))!) as unknown[];
  expect(evalCsv.length - 1).toBe(drawnEvals.length);
  expect(evalCsv.length - 1).toBeGreaterThanOrEqual(7);
  await expect(page.getByTestId('curve-evals').locator('.recharts-scatter-symbol')).toHaveCount(drawnEvals.length);
  for (const row of evalCsv.slice(1)) {
    const file = row[1]!.replace(/^eval\//, '');
    const j = JSON.parse(fs.readFileSync(`docs/results/eval/${file}`, 'utf8')) as { success: { mean: number; ci95: [number, number] } };
    expect(row.slice(2, 4)).toEqual(['shipped', 'success']);
    expect(row.slice(4).map(Number)).toEqual([j.success.mean, j.success.ci95[0], j.success.ci95[1]]);
  }
  // The paper's suites say where they are evaluated (issue 22), never "not yet evaluated".
  await expect(page.getByTestId('suites-status')).toContainText('npm run eval -- --suite bfcl');
  await expect(page.getByTestId('suites-status')).toContainText('npm run eval -- --suite tau2');
  await expect(page.getByTestId('suites-status')).toContainText('npm run eval -- --suite vita');
  await expect(page.getByTestId('suites-status').locator('tbody tr')).toHaveCount(3);
  await expect(page.getByTestId('bench-curves')).not.toContainText('not yet evaluated');

  // The paper panel says it is a different scale; its CSV is the typed-in table.
  await expect(page.getByTestId('paper-scale')).toContainText('Different scale');
  const paper = await csvOf(page, 'paper-reference-csv');
  expect(paper[0]).toEqual(['model', 'bfcl', 'tau2', 'vita', 'overall']);
  expect(paper.find((r) => r[0] === 'EnvACE-8B')).toEqual(['EnvACE-8B', '46.04', '36.7', '16', '32.91']);

  // Budget sweep: the committed sweep's points (x = mean real calls in training, base at 0), or, before one is
  // committed, a named command and no fake data.
  const budgetFile = (fs.readdirSync('docs/results', { recursive: true }) as string[]).filter((f) => /summary\.json$/.test(f)).sort()
    .find((f) => JSON.parse(fs.readFileSync(`docs/results/${f}`, 'utf8')).budget?.format?.startsWith('envace-budget-sweep/'));
  if (!budgetFile) await expect(page.getByTestId('curve-budget-empty')).toContainText('npm run ablation -- --budget');
  else {
    await expect(page.getByTestId('curve-budget').locator(PLOT)).toBeVisible();
    const sweep = JSON.parse(fs.readFileSync(`docs/results/${budgetFile}`, 'utf8')).budget as { base: { real_calls: number; metrics: { success: { mean: number; ci95: number[] } } }; points: { real_calls: { mean: number }; metrics: { success: { mean: number; ci95: number[] } } }[] };
    const csv = await csvOf(page, 'curve-budget-csv');
    expect(csv[0]).toEqual(['real_calls', 'series', 'mean', 'ci_lo', 'ci_hi']);
    const want = [
      ...sweep.points.map((p) => ['trained', p.real_calls.mean, p.metrics.success.mean, ...p.metrics.success.ci95].join(',')),
      ['base', sweep.base.real_calls, sweep.base.metrics.success.mean, ...sweep.base.metrics.success.ci95].join(','),
    ].sort();
    expect(csv.slice(1).map(([x, series, ...rest]) => [series, x, ...rest].join(',')).sort()).toEqual(want);
  }

  // PNG export: a real PNG of the chart.
  const [png] = await Promise.all([page.waitForEvent('download'), page.getByTestId('curve-training-png').click()]);
  const bytes = fs.readFileSync((await png.path())!);
  expect([...bytes.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  expect(bytes.length).toBeGreaterThan(2_000);
  await page.screenshot({ path: shot('benchmark-curves'), fullPage: true });
  await expect(page.getByTestId('bench-progress')).toHaveCount(0);
});

test('the URL restores every chart\'s selection, and changing one writes the URL', async ({ page }) => {
  const sel = 'bc.metric=checklist&bc.variant=grpo-real&bt.mem=best-calls&bt.metric=checklist&be.metric=checklist&bp.table=rehearsal';
  await page.goto(`/?backend=wasm#/benchmarks?${sel}`);
  // The charts appear once the results files are fetched (results.ts loads them when the section mounts).
  await expect(page.getByTestId('curve-training')).toBeVisible({ timeout: 30_000 });
  await expect(page.locator('#f-bc\\.metric')).toHaveValue('checklist');
  await expect(page.locator('#f-bc\\.variant')).toHaveValue('grpo-real');
  await expect(page.locator('#f-bt\\.mem')).toHaveValue('best-calls');
  await expect(page.locator('#f-bt\\.metric')).toHaveValue('checklist');
  await expect(page.locator('#f-be\\.metric')).toHaveValue('checklist');
  await expect(page.locator('#f-bp\\.table')).toHaveValue('rehearsal');
  // What is drawn follows the selection: one variant only, best-calls lines only, the N = 2 table.
  const series = JSON.parse((await page.getByTestId('curve-training').getAttribute('data-series'))!) as { key: string }[];
  expect(series.map((s) => s.key)).toEqual(['grpo-real']);
  const tts = JSON.parse((await page.getByTestId('curve-rehearsal').getAttribute('data-series'))!) as { key: string }[];
  expect(tts.map((s) => s.key).sort()).toEqual(['parallel_best_calls', 'sequential_best_calls']);
  await expect(page.getByTestId('paper-reference')).toContainText('test-time rehearsal at N = 2');

  await page.locator('#f-bc\\.metric').selectOption('reward');
  await page.locator('#f-bc\\.variant').selectOption('standard-grpo');
  await expect.poll(() => page.evaluate(() => location.hash)).toContain('bc.metric=reward');
  expect(await page.evaluate(() => location.hash)).toContain('bc.variant=standard-grpo');
  await page.reload();
  await expect(page.locator('#f-bc\\.metric')).toHaveValue('reward');
  await expect(page.locator('#f-bc\\.variant')).toHaveValue('standard-grpo');
  await expect(page.locator('#f-bp\\.table')).toHaveValue('rehearsal');
  const after = JSON.parse((await page.getByTestId('curve-training').getAttribute('data-series'))!) as { key: string }[];
  expect(after.map((s) => s.key)).toEqual(['standard-grpo']);
});

test('a small evaluation run here adds a point marked "your run"', async ({ page }) => {
  await openApp(page, '?backend=wasm', '#/benchmarks?m.model=envace-tiny&b.world=files&b.tasks=2&b.k=1&b.temp=0&b.turns=1&b.max=8&b.seed=1');
  // The page defaults to the world's starter; the tiny model keeps this run short.
  await expect(page.locator('#f-m\\.model')).toHaveValue('envace-tiny', { timeout: 30_000 });
  const before = JSON.parse((await page.getByTestId('curve-evals').getAttribute('data-rows'))!) as unknown[];
  await page.getByRole('button', { name: 'Run evaluation' }).click();
  await expect(page.getByTestId('bench-rows').locator('tbody tr')).toHaveCount(2, { timeout: 180_000 });
  await expect(page.getByTestId('your-run-hint')).toHaveCount(0);
  const rows = JSON.parse((await page.getByTestId('curve-evals').getAttribute('data-rows'))!) as { label: string; yours?: number }[];
  expect(rows.length).toBe(before.length + 1);
  const mine = rows.find((r) => r.yours !== undefined)!;
  expect(mine.label).toMatch(/^your run: .* files k1$/);
  const est = JSON.parse((await page.getByTestId('bench-estimates').getAttribute('data-json'))!) as { success: { mean: number } };
  expect(mine.yours).toBe(est.success.mean);
  // Drawn with its own marker and legend entry.
  await expect(page.getByTestId('curve-evals-legend').locator('.chart-legend-item', { hasText: 'your run' })).toBeVisible();
  await expect(page.getByTestId('curve-evals').locator('.recharts-scatter-symbol')).toHaveCount(before.length + 1);
  await page.screenshot({ path: shot('benchmark-curves-your-run'), fullPage: true });
});
