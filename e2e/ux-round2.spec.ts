// Issue 24, "the first ten minutes, round two": one test per group of the numbered findings.
//  1 Cancel now never leaves the Train page stuck (Resume and Start work at once); 5 the run bar stays on screen;
//  6 n/a (not 0) for a role or a fidelity a variant lacks, the loss_agg_mode that runs, Benchmarks progress that
//    ends on the finished counts;
//  2 one copy link that reproduces the screen (a fresh browser recomputes the trace), the demo trace only for its
//    own request, reload keeps the trace;
//  3 start on WASM without waiting for the WebGPU timing (printed: skeleton, trace, Run enabled, verdict);
//  4 the competent starters are the defaults; 7 390 px without sideways scroll; 8 legends outside the plots,
//    series told apart by dash and marker; 9 glossary hover texts and Back on the stepper; 10 errors in the
//    page's words, "1 generation".
// Wall-clock figures are printed, never asserted, except "Resume enabled within 3 s of Cancel now" (the issue's
// functional bound: the fix makes it immediate, the margin is for a loaded box).

import { expect, test, type Page } from '@playwright/test';
import { GLOSSARY } from '../src/app/glossary';
import { openApp } from './helpers';

test.use({ viewport: { width: 1440, height: 900 } });

interface TrainHooks { api(): { trainDebugStallBefore(step: number): Promise<void> } }

// GRPO + real environment (Act only) on the tiny model the worker builds: fast, and it has no Rehearse role.
const TRAIN = '#/train?t.model=builtin:tiny&t.mode=real&t.diff=0&t.pool=4000&t.world=files&t.steps=3&t.tasks=1&t.group=2&t.turns=2&t.max=8&t.mb=4&t.seed=3&t.eval=0&t.ckpt=1';
// envace-tiny, greedy, on a files task (5 generations; e2e/rollout.spec.ts): stepping is fast.
const STEP_HASH = '#/rollout?m.model=envace-tiny&r.world=files&r.task=files-40&r.k=1&r.temp=0&r.turns=4';

async function rowsShown(page: Page): Promise<string[]> {
  return page.$$eval('[data-testid=trajectory] [data-step] .gen-text', (els) => els.map((e) => e.textContent ?? ''));
}

test('1, 5, 6: Cancel now while a Pause waits leaves Resume and Start usable at once; the run bar stays on screen; an Act-only run shows n/a, not 0', async ({ page }) => {
  await openApp(page, '?backend=wasm', TRAIN);
  const bar = page.getByTestId('train-runbar');
  const btn = (name: string) => bar.getByRole('button', { name, exact: true });
  // 5: every control of a run and its state are in the bar, visible at the top and after scrolling to the bottom.
  for (const name of ['Start', 'Pause', 'Cancel now', 'Resume', 'Step', 'Stop']) await expect(btn(name)).toBeVisible();
  await expect(page.getByTestId('train-state')).toHaveText('no run');
  // 6: the loss_agg_mode that runs is what the page says (the measured default run's), with the trainer's default named.
  await expect(page.getByTestId('train-agg-truth')).toContainText('runs with loss_agg_mode token-mean');
  await expect(page.getByTestId('train-agg-truth')).toContainText('seq-mean-token-mean');

  // The worker hangs before step 2, so the Pause below can never finish on its own: the stuck state.
  await page.evaluate(() => (window as unknown as { __envaceTrain: TrainHooks }).__envaceTrain.api().trainDebugStallBefore(2));
  await btn('Start').click();
  await expect(page.getByTestId('train-step')).toHaveText('step 1 / 3', { timeout: 240_000 });
  await expect(page.getByTestId('train-log')).toContainText('hanging before step 2', { timeout: 60_000 });

  // 6: GRPO + real environment trains Act only: its Rehearse reward and its train-rollout fidelity are n/a.
  const reward = page.getByTestId('train-last-reward');
  await expect(reward.getByTestId('na')).toHaveText('n/a');
  await expect(reward.getByTestId('na')).toHaveAttribute('title', /Act role only/);
  await expect(page.getByTestId('train-run-agg')).toHaveText('token-mean');
  await expect(page.getByTestId('chart-reward-role-notes')).toContainText('n/a');
  await expect(page.getByTestId('chart-fidelity-notes')).toContainText('nothing is imagined');
  // No dashed Rehearse line and no train-fidelity line drawn at 0: only the Act / eval lines are in the legends.
  await expect(page.getByTestId('chart-reward-role-legend').locator('.chart-legend-item')).toHaveCount(1);
  await expect(page.getByTestId('chart-fidelity-legend')).not.toContainText('train');

  // 5: scrolled to the bottom of the page, the bar is still within the viewport.
  await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
  const box = await bar.boundingBox();
  expect(box).not.toBeNull();
  expect(box!.y).toBeGreaterThanOrEqual(0);
  expect(box!.y + box!.height).toBeLessThanOrEqual(900);
  for (const name of ['Start', 'Pause', 'Cancel now', 'Resume', 'Step', 'Stop']) await expect(btn(name)).toBeInViewport();
  await expect(page.getByTestId('train-eta')).toBeInViewport();

  // 1: Pause (waits for a step that never ends), then Cancel now.
  await btn('Pause').click();
  await expect(page.getByTestId('train-pausing')).toContainText('finishes step 2 first');
  await expect(btn('Cancel now')).toBeEnabled();
  // Timed in the page, from the click event to the DOM commit that enables Resume (no CDP round trips in it).
  // A MutationObserver, not a requestAnimationFrame loop: the loop wrote its time only at the first frame after
  // the commit (73 ms after it in one loaded run), while the spec read the times as soon as Playwright saw Resume
  // enabled, which can be before that frame: undefined − at printed "NaN ms". The observer records the time in
  // the commit's own microtask, and the spec waits until both times exist before printing.
  await page.evaluate(() => {
    type Times = { at?: number; resumeAt?: number };
    const w = window as unknown as { __cancel: Times };
    w.__cancel = {};
    const resumeEnabled = () => {
      const resume = [...document.querySelectorAll('[data-testid=train-runbar] button')].find((b) => b.textContent === 'Resume') as HTMLButtonElement | undefined;
      return !!resume && !resume.disabled;
    };
    // On the document (capture), so a re-rendered bar or button cannot lose the listener.
    document.addEventListener('click', (ev) => {
      const b = (ev.target as Element).closest('[data-testid=train-runbar] button');
      if (b?.textContent !== 'Cancel now' || w.__cancel.at !== undefined) return;
      w.__cancel.at = performance.now();
      if (resumeEnabled()) { w.__cancel.resumeAt = w.__cancel.at; return; }
      const mo = new MutationObserver(() => {
        if (!resumeEnabled()) return;
        w.__cancel.resumeAt = performance.now();
        mo.disconnect();
      });
      mo.observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['disabled'] });
    }, { capture: true });
  });
  await btn('Cancel now').click();
  // Functional bound with a margin for a loaded box (before the fix: never; the 3 s is the printed figure).
  await expect(btn('Resume')).toBeEnabled({ timeout: 10_000 });
  await page.waitForFunction(() => {
    const c = (window as unknown as { __cancel: { at?: number; resumeAt?: number } }).__cancel;
    return c.at !== undefined && c.resumeAt !== undefined;
  }, null, { timeout: 10_000 });
  const c = await page.evaluate(() => (window as unknown as { __cancel: { at: number; resumeAt: number } }).__cancel);
  console.log(`[ux-round2] Cancel now → Resume enabled in ${(c.resumeAt - c.at).toFixed(0)} ms (in the page; issue 24 asks ≤ 3 s)`);
  await expect(btn('Start')).toBeEnabled({ timeout: 10_000 });
  await expect(btn('Step')).toBeEnabled();
  await expect(btn('Stop')).toBeDisabled();
  await expect(page.getByTestId('train-state')).toHaveText('interrupted');
  await expect(page.getByTestId('train-pausing')).toHaveCount(0);
  // The killed Pause is no error.
  await expect(bar.getByRole('alert')).toHaveCount(0);

  // Resume works: a fresh worker continues from checkpoint @1 to the end.
  await btn('Resume').click();
  await expect(page.getByTestId('train-state')).not.toHaveText('interrupted', { timeout: 30_000 });
  await expect(page.getByTestId('train-state')).toHaveText('done', { timeout: 300_000 });
  await expect(page.getByTestId('train-step')).toHaveText('step 3 / 3');
  await expect(btn('Start')).toBeEnabled();
});

test('6, 4: Benchmarks defaults to a starter on its own world, and a finished run shows its final counts', async ({ page }) => {
  await openApp(page, '?backend=wasm', '#/benchmarks?b.tasks=2&b.turns=1&b.max=8');
  await expect(page.locator('#f-m\\.model')).toHaveValue('files-starter', { timeout: 30_000 });
  await expect(page.locator('#f-b\\.world')).toHaveValue('files');
  // 4: the curves open on a starter's results.
  await expect(page.locator('#f-bt\\.file option:checked')).toContainText('files-starter');
  await expect(page.locator('#f-bc\\.file option:checked')).toContainText('starter');
  await page.getByRole('button', { name: 'Run evaluation' }).click();
  await expect(page.getByTestId('bench-rows').locator('tbody tr')).toHaveCount(2, { timeout: 180_000 });
  const progress = page.getByTestId('bench-progress');
  await expect(progress).toHaveAttribute('data-finished', 'true');
  await expect(page.getByTestId('bench-progress-counts')).toContainText('2 / 2 tasks · 2 / 2 trajectories');
  await expect(page.getByTestId('bench-progress-eta')).toContainText('done in');
  // 10: counts in the right number.
  await expect(page.getByTestId('bench-summary')).not.toContainText(/\b1 (generations|chunks|tasks)\b/);
  // 9: the summary's metric names carry the glossary's definitions.
  await expect(page.getByTestId('bench-estimates').locator('[data-term="state check"]')).toHaveAttribute('title', GLOSSARY['state check']);
});

test('2: the copy link reproduces a computed trace in a fresh browser; the demo only for its own request; reload keeps the trace', async ({ page, browser }) => {
  // A run of retail-starter on retail, mode real: not the demo's request.
  const hash = '#/rollout?m.model=retail-starter&r.world=retail&r.task=&r.mode=real&r.k=1&r.temp=0&r.turns=2&r.max=48';
  await openApp(page, '?backend=wasm', hash);
  const timeline = page.getByTestId('rollout-timeline');
  // The shipped trace is for other settings: set aside, and said so.
  await expect(timeline.getByTestId('demo-aside')).toBeVisible();
  await expect(timeline.getByTestId('demo-banner')).toHaveCount(0);
  await expect(timeline.getByTestId('trajectory')).toHaveCount(0);
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await expect(page.getByTestId('run-status')).toContainText('full run', { timeout: 180_000 });
  const rows = await rowsShown(page);
  expect(rows.length).toBeGreaterThan(0);
  await expect(timeline.getByTestId('trajectory')).toContainText('mode real');

  // One link control: the top bar's. With a computed trace on screen it asks the page to recompute it on open.
  await expect(page.getByTestId('share-link')).toHaveCount(0);
  await page.getByTestId('copy-link').click();
  const url = (await page.getByTestId('copy-link').getAttribute('data-url'))!;
  expect(url).toContain('autorun=1');
  expect(url).toContain('r.world=retail');

  // A fresh browser (no storage shared): the link recomputes the same request and shows the same trace.
  const ctx = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const fresh = await ctx.newPage();
  await fresh.goto(url);
  await expect(fresh.getByTestId('run-status')).toContainText('full run', { timeout: 180_000 });
  expect(await rowsShown(fresh)).toEqual(rows);
  await expect(fresh.getByTestId('demo-banner')).toHaveCount(0);
  await ctx.close();

  // Reload (no autorun in this page's URL): the trace comes back from this browser, not the shipped demo.
  expect(page.url()).not.toContain('autorun');
  await page.reload();
  await expect(page.getByTestId('run-status')).toContainText('restored from this browser', { timeout: 60_000 });
  expect(await rowsShown(page)).toEqual(rows);
  await expect(timeline.getByTestId('demo-aside')).toHaveCount(0);

  // A fresh page whose controls differ from the shipped request (nothing stored for them): the shipped trace is set
  // aside; "Show the shipped trace" puts every control back on its request, and it is shown again.
  await page.goto('about:blank');
  await page.goto('/?backend=wasm#/rollout?r.world=retail&r.task=');
  await expect(timeline.getByTestId('demo-aside')).toBeVisible({ timeout: 60_000 });
  await timeline.getByTestId('show-demo').click();
  await expect(timeline.getByTestId('demo-banner')).toBeVisible();
  await expect(timeline.getByTestId('demo-banner')).toContainText('files-starter');
  await expect(page.locator('#f-r\\.world')).toHaveValue('files');
});

test('3, 4, 9: cold start on WASM with WebGPU timed in the background; the starter demo; glossary hover texts', async ({ browser }) => {
  // A fresh context: no cache, no remembered backend verdict. Auto mode (SwiftShader is a fallback adapter).
  const ctx = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await ctx.newPage();
  await page.addInitScript(() => {
    const w = window as unknown as { __tti: Record<string, number> };
    w.__tti = {};
    const seen = (sel: string) => { const el = document.querySelector(sel); if (!el) return false; const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
    const tick = () => {
      const t = performance.now();
      if (w.__tti.skeleton === undefined && (seen('[data-testid=boot-skeleton]') || seen('.topbar'))) w.__tti.skeleton = t;
      if (w.__tti.trace === undefined && seen('[data-testid=demo-banner]') && seen('[data-testid=imagined-panel]')) w.__tti.trace = t;
      const run = [...document.querySelectorAll('button')].find((b) => b.textContent === 'Run');
      if (w.__tti.run === undefined && run && !(run as HTMLButtonElement).disabled) {
        w.__tti.run = t;
        w.__tti.probingAtRun = document.querySelector('[data-testid=backend-kind]')?.getAttribute('data-probing') === 'true' ? 1 : 0;
      }
      const pill = document.querySelector('[data-testid=backend-kind]');
      if (w.__tti.verdict === undefined && pill?.getAttribute('data-timing')) w.__tti.verdict = t;
      if (w.__tti.verdict === undefined || w.__tti.run === undefined) requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
  await page.goto('/');
  // The skeleton is in the HTML itself, painted before any script.
  expect(await (await page.request.get('/')).text()).toContain('data-testid="boot-skeleton"');
  await expect(page.getByRole('button', { name: 'Run', exact: true })).toBeEnabled({ timeout: 120_000 });
  await expect(page.getByTestId('backend-kind')).toHaveText('WASM');
  // Run was usable before the WebGPU verdict existed: the start did not wait for the timing.
  await expect(page.getByTestId('backend-kind')).toHaveAttribute('data-timing', /webgpuMs/, { timeout: 180_000 });
  const tti = await page.evaluate(() => (window as unknown as { __tti: Record<string, number> }).__tti);
  console.log(`[ux-round2] cold load, ms after navigation: skeleton ${tti.skeleton?.toFixed(0)}, trace ${tti.trace?.toFixed(0)}, Run enabled ${tti.run?.toFixed(0)}, WebGPU verdict ${tti.verdict?.toFixed(0)}`);
  expect(tti.probingAtRun).toBe(1);
  expect(tti.run).toBeLessThan(tti.verdict!);
  const pill = page.getByTestId('backend-kind');
  await expect(pill).toHaveAttribute('data-probing', 'false');
  await expect(page.getByTestId('backend-detail')).toContainText('timed in the background');
  // The verdict is remembered for this adapter: the next start in this browser uses it without timing.
  await page.reload();
  await expect(pill).toHaveAttribute('data-remembered', 'true', { timeout: 120_000 });
  await expect(page.getByTestId('backend-detail')).toContainText('remembered for this adapter');
  await expect(pill).toHaveAttribute('data-probing', 'false');

  // 4: the shipped trace is a starter's, in rehearsal mode, and the default model is that starter.
  const timeline = page.getByTestId('rollout-timeline');
  await expect(timeline.getByTestId('demo-banner')).toContainText('files-starter');
  await expect(page.locator('#f-m\\.model')).toHaveValue('files-starter');
  // Mostly agreeing rehearsal with one instructive disagreement.
  const exact = await timeline.locator('[data-term=exact]').allTextContents();
  expect(exact.filter((t) => t.includes('✓')).length).toBeGreaterThan(exact.filter((t) => t.includes('✗')).length);
  expect(exact.some((t) => t.includes('✗'))).toBe(true);

  // 9: every glossary term shown carries its one definition.
  for (const term of ['Act', 'Rehearse', 'fidelity', 'exact', 'field F1', 'error agreement', 'checklist', 'state check', 'success'] as const) {
    const el = page.locator(`[data-term="${term}"]`).first();
    await expect(el, term).toBeAttached();
    await expect(el).toHaveAttribute('title', GLOSSARY[term]);
  }
  await ctx.close();
});

test('9, 10: Back on the ordinary rollout stepper; "1 generation"; a Hugging Face URL with no model says so in the page\'s words', async ({ page }) => {
  await openApp(page, '?backend=wasm', STEP_HASH);
  const step = page.getByTestId('rollout-controls').getByRole('button', { name: /^Step/ });
  const back = page.getByTestId('rollout-back');
  await expect(back).toBeDisabled();
  await expect(step).toBeEnabled({ timeout: 60_000 });
  await step.click();
  await expect(page.getByTestId('run-status')).toContainText('1 generation ·', { timeout: 60_000 });
  await expect(page.getByTestId('trajectory')).toContainText('1 generation');
  await expect(page.getByTestId('trajectory')).not.toContainText('1 generations');
  const one = await rowsShown(page);
  await step.click();
  await expect(page.getByTestId('run-status')).toContainText('2 generations', { timeout: 60_000 });
  const two = await rowsShown(page);
  expect(two.length).toBe(one.length + 1);
  await expect(back).toBeEnabled();
  await back.click();
  await expect(page.getByTestId('run-status')).toContainText('1 generation ·', { timeout: 60_000 });
  expect(await rowsShown(page)).toEqual(one);
  await expect(back).toBeDisabled();

  // 10: a URL with nothing behind it (same origin, so the page's CSP allows the fetch).
  await page.getByRole('tab', { name: 'Models' }).click();
  await page.getByTestId('hf-ref').fill(new URL('/no-model-here/', page.url()).href);
  await page.getByTestId('hf-add').click();
  const err = page.getByTestId('hf-models').getByRole('alert');
  await expect(err).toBeVisible({ timeout: 120_000 });
  const text = (await err.textContent()) ?? '';
  console.log(`[ux-round2] HF URL with no model: ${text}`);
  expect(text).not.toMatch(/Cannot read propert|undefined \(reading|is not a function|Unexpected token/);
  expect(text).toMatch(/no model was found there|could not be downloaded|missing/i);
  expect(text).toMatch(/Check/);
});

test('7, 8: 390 px without sideways scroll, panels stacked; legends outside the plots, series told apart by dash and marker', async ({ page }) => {
  // The curves need no worker: the page is opened without waiting for it.
  await page.goto('/?backend=wasm#/benchmarks');
  // 8: no recharts legend inside any plot; each curve's legend is outside, one entry per series, dashes and markers differ.
  await expect(page.getByTestId('curve-training').locator('.recharts-surface').first()).toBeVisible({ timeout: 30_000 });
  for (const id of ['curve-training', 'curve-rehearsal', 'curve-evals', 'paper-reference']) await expect(page.getByTestId(id).locator('.recharts-legend-wrapper'), id).toHaveCount(0);
  const series = JSON.parse((await page.getByTestId('curve-training').getAttribute('data-series'))!) as unknown[];
  const items = page.getByTestId('curve-training-legend').locator('.chart-legend-item');
  await expect(items).toHaveCount(series.length + 1); // + the band's entry
  const styles = await items.evaluateAll((els) => els.slice(0, -1).map((e) => `${e.getAttribute('data-dash')}|${e.getAttribute('data-marker')}`));
  expect(new Set(styles).size).toBe(series.length);
  const plot = await page.getByTestId('curve-training').locator('.recharts-surface').first().boundingBox();
  expect(plot!.height).toBeGreaterThanOrEqual(180);
  // Suite labels: one row each, on the left of the plot (seventeen under a horizontal axis overlapped), whole and
  // each clear of the next.
  await page.getByTestId('curve-evals').scrollIntoViewIfNeeded();
  const rows = JSON.parse((await page.getByTestId('curve-evals').getAttribute('data-rows'))!) as { label: string }[];
  const ticks = page.getByTestId('curve-evals').locator('.recharts-yAxis-tick-labels .recharts-cartesian-axis-tick-label text');
  await expect(ticks).toHaveCount(rows.length);
  const labels = await ticks
    .evaluateAll((els) => els.map((e) => { const r = e.getBoundingClientRect(); return { top: r.top, bottom: r.bottom, left: r.left, text: e.textContent ?? '' }; }));
  expect(labels.map((l) => l.text).sort()).toEqual(rows.map((r) => r.label).sort());
  const plotLeft = (await page.getByTestId('curve-evals').locator('.recharts-surface').first().boundingBox())!.x;
  labels.sort((a, b) => a.top - b.top);
  for (let i = 0; i < labels.length; i++) {
    expect(labels[i]!.left, labels[i]!.text).toBeGreaterThanOrEqual(plotLeft - 0.5);
    if (i > 0) expect(labels[i]!.top, `${labels[i - 1]!.text} / ${labels[i]!.text}`).toBeGreaterThanOrEqual(labels[i - 1]!.bottom - 0.5);
  }
  // Dropdowns with file names are a full row wide, so the names are not cut.
  const sel = await page.locator('#f-bc\\.file').boundingBox();
  expect(sel!.width).toBeGreaterThanOrEqual(300);

  // Screenshots of every page at 1440 px (docs/screenshots/, linked from the README).
  for (const tab of ['Rollout', 'Train', 'Benchmarks', 'Models']) {
    await page.getByRole('tab', { name: tab }).click();
    await page.waitForTimeout(500);
    await page.screenshot({ path: `docs/screenshots/${tab.toLowerCase()}-1440.png`, fullPage: true });
  }

  // 7: every page at 390 px: nothing wider than the screen, panels one under the other, the copy link on screen.
  await page.setViewportSize({ width: 390, height: 844 });
  for (const tab of ['Rollout', 'Train', 'Benchmarks', 'Models']) {
    await page.getByRole('tab', { name: tab }).click();
    await page.waitForTimeout(500);
    await page.screenshot({ path: `docs/screenshots/${tab.toLowerCase()}-390.png`, fullPage: true });
    const w = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth }));
    expect(w.scroll, `${tab}: page width`).toBeLessThanOrEqual(w.inner);
    await expect(page.getByTestId('copy-link')).toBeInViewport();
    const panels = await page.$$eval('.main .page > .panel, .main .page > div:not(.run-bar)', (els) => els.map((e) => { const r = e.getBoundingClientRect(); return { x: r.x, w: r.width, y: r.y, h: r.height }; }).filter((r) => r.h > 0));
    for (const p of panels) {
      expect(p.x, `${tab}: panel inside the screen`).toBeGreaterThanOrEqual(0);
      expect(p.x + p.w, `${tab}: panel inside the screen`).toBeLessThanOrEqual(391);
    }
    // Stacked: each panel starts below the previous one (no two side by side, none overlapping).
    for (let i = 1; i < panels.length; i++) expect(panels[i]!.y, `${tab}: panel ${i} below panel ${i - 1}`).toBeGreaterThanOrEqual(panels[i - 1]!.y + panels[i - 1]!.h - 1);
  }
});
