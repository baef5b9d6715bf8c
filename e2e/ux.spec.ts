// The first five minutes, as a new user at 1440×900 meets them: the Rollout page shows a shipped trace with
// rehearsed-vs-real panels before any click; auto mode on the SwiftShader fallback adapter ends on the
// faster backend (timed at start) and says why; numeric fields keep what is typed and refuse bad values
// visibly; bad URL values are listed; Cancel stops a running rollout; a saved and reloaded trace shows the
// checklist questions. Screenshots of every page go to docs/screenshots/ (linked from the README).

import fs from 'node:fs';
import { expect, test, type Page } from '@playwright/test';
import { openApp, workerReady } from './helpers';

test.use({ viewport: { width: 1440, height: 900 } });

const META = JSON.parse(fs.readFileSync('src/app/demo/demo-meta.json', 'utf8')) as { request: { taskId: string }; task: { checklist: { question: string; required: boolean }[][] } };
const REQUIRED_QS = new RegExp(META.task.checklist.flat().filter((c) => c.required).map((c) => c.question.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'));
const docShot = (name: string) => `docs/screenshots/${name}.png`;

async function hashOf(page: Page): Promise<string> { return decodeURIComponent(new URL(page.url()).hash); }

/**
 * Loads '/' and times, in the page, when the demo banner and both panels of a Rehearse row are first on
 * screen: an observer installed at document start (independent of the app's own mark) looks every
 * animation frame for all three laid out with a size and records performance.now(), i.e. ms since
 * navigation start. No click; waits for them to appear.
 */
async function firstPaint(page: Page): Promise<{ seenAt: number; paintedAt: number; dcl: number; appStart: number }> {
  await page.addInitScript(() => {
    const shown = (root: Element, id: string) => {
      const el = root.querySelector(`[data-testid=${id}]`);
      if (!el) return false;
      const r = el.getBoundingClientRect();
      return r.width > 0 && r.height > 0 && getComputedStyle(el).visibility !== 'hidden';
    };
    const tick = () => {
      const tl = document.querySelector('[data-testid=rollout-timeline]');
      if (tl && ['demo-banner', 'imagined-panel', 'real-panel'].every((id) => shown(tl, id))) {
        (window as unknown as { __firstTraceFrame: number }).__firstTraceFrame = performance.now();
        return;
      }
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
  await page.goto('/');
  const timeline = page.getByTestId('rollout-timeline');
  await expect(timeline.getByTestId('demo-banner')).toBeVisible({ timeout: 30_000 });
  await expect(timeline.getByTestId('imagined-panel').first()).toBeVisible();
  await expect(timeline.getByTestId('real-panel').first()).toBeVisible();
  await page.waitForFunction(() => (window as unknown as { __firstTraceFrame?: number }).__firstTraceFrame !== undefined);
  const [seenAt, paintedAt, dcl, appStart] = await page.evaluate(() => [
    (window as unknown as { __firstTraceFrame: number }).__firstTraceFrame,
    performance.getEntriesByName('envace-demo-painted')[0]?.startTime ?? NaN,
    (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming).domContentLoadedEventEnd,
    performance.getEntriesByName('envace-app-start')[0]?.startTime ?? NaN,
  ]);
  return { seenAt: seenAt!, paintedAt: paintedAt!, dcl: dcl!, appStart: appStart! };
}

test('first paint: the shipped trace with rehearsed vs real panels, no click; auto mode on a fallback adapter ends on the faster backend', async ({ page, browser }) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const consoleErrors: string[] = [];
  page.on('console', (m) => { if (m.type() === 'error') consoleErrors.push(m.text()); });
  // Warm the static server (a host serving dist/ has no first-request cost); every page below is a fresh
  // browser context, so nothing comes from the browser's cache.
  for (const u of ['/', '/models/index.json']) await page.request.get(u);
  // Three fresh loads: on a shared 2-core box one load can lose a second to other jobs, so the figure
  // asserted is the median of three. The extra two come first and are closed (their workers with them),
  // so no page's start-up work overlaps another's load; this test's page is the last.
  const more: number[] = [];
  for (let i = 0; i < 2; i++) {
    const ctx = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    more.push((await firstPaint(await ctx.newPage())).seenAt);
    await ctx.close();
  }
  const first = await firstPaint(page);
  const timeline = page.getByTestId('rollout-timeline');
  const all = [first.seenAt, ...more].sort((a, b) => a - b);
  const median = all[1]!;
  console.log(`[ux] first paint (banner + rehearsed and real panels on screen, ms after navigation start, fresh context each): ${[...more, first.seenAt].map((x) => x.toFixed(0)).join(', ')}; median ${median.toFixed(0)} ms (last load: app mark ${first.paintedAt.toFixed(0)} ms, app code started ${first.appStart.toFixed(0)} ms, DOMContentLoaded ${first.dcl.toFixed(0)} ms)`);
  // The figure is printed, not asserted (issue 24: wall-clock bounds flake on a shared box; npm run bench:tti
  // gathers the time-to-interactive figures).
  await expect(timeline.getByTestId('field-diff').first()).toBeAttached();
  // Honest labels: the required item ticked on an imagined result is marked, with the real verdict beside it
  // (on the sample that has one: the page opens on the instructive mostly-agreeing sample).
  const picker = timeline.locator('.traj-picker button');
  for (let i = 0; i < await picker.count() && await timeline.locator('[data-testid=checklist-item][data-imagined=true]').count() === 0; i++) await picker.nth(i).click();
  const ticked = timeline.locator('[data-testid=checklist-item][data-imagined=true]').filter({ has: page.getByTestId('checklist-required') }).first();
  await expect(ticked).toContainText(REQUIRED_QS);
  await expect(ticked.getByTestId('checklist-required')).toHaveText('required');
  await expect(ticked.getByTestId('real-verdict')).toContainText('real env: ✗');
  await expect(timeline.getByTestId('state-check')).toContainText('state check');
  await expect(timeline.locator('[data-metric=reward]')).toHaveAttribute('title', /checklist score/);

  // Auto mode: SwiftShader reports isFallbackAdapter; the start is on WASM at once (issue 24) and both EPs are
  // timed in the background; the faster one is remembered for the adapter (this load stays on WASM).
  const info = await workerReady(page);
  console.log(`[ux] auto backend: ${info.kind} · ${info.reason}`);
  expect(info.requested).toBe('auto');
  expect(info.adapter?.isFallbackAdapter).toBe(true);
  expect(info.kind).toBe('wasm');
  expect(info.reason).toMatch(/fallback \(software\) adapter/);
  const pill = page.getByTestId('backend-kind');
  await expect(pill).toHaveAttribute('data-timing', /webgpuMs/, { timeout: 180_000 });
  const timing = JSON.parse((await pill.getAttribute('data-timing'))!) as { webgpuMs: number; wasmMs: number };
  const faster = timing.wasmMs <= timing.webgpuMs ? 'wasm' : 'webgpu';
  await expect(pill).toHaveAttribute('data-verdict', faster);
  await expect(pill).toHaveText('WASM');
  await expect(page.getByTestId('backend-detail')).toContainText('timed in the background');
  await expect(page.getByTestId('backend-detail')).toContainText('isFallbackAdapter true');
  await page.screenshot({ path: docShot('rollout') });

  // Run it live: the same request in the worker gives the shipped trace (the page's defaults are its request).
  await page.getByTestId('demo-run').click();
  await expect(page.getByTestId('run-status')).toContainText('full run', { timeout: 120_000 });
  await expect(timeline.getByTestId('demo-banner')).toHaveCount(0);
  const live = await page.$$eval('[data-testid=trajectory] [data-step] .gen-text', (els) => els.length);
  expect(live).toBeGreaterThan(0);
  await expect(timeline.getByTestId('real-panel').first()).toBeVisible();
  expect(errors).toEqual([]);
  // ORT's node-placement warning is no console error (and no raw ANSI colour codes anywhere).
  expect(consoleErrors.filter((t) => /\u001b\[|not assigned to the preferred execution providers/.test(t))).toEqual([]);
});

test('numeric fields keep what is typed, commit on Enter or blur, refuse visibly; URL values are refused with a notice', async ({ page }) => {
  await openApp(page, '?backend=wasm', '#/train?t.lr=0.0001&t.group=8');
  const lr = page.locator('#f-t\\.lr');
  // 5e-4, not the preset's 3e-4: a value equal to the default is left out of the URL.
  await lr.fill('5e-4');
  await expect(lr).toHaveValue('5e-4'); // kept as typed until committed
  await lr.press('Enter');
  await expect.poll(() => hashOf(page)).toContain('t.lr=0.0005');
  await expect(lr).toHaveValue('0.0005');

  // 8 → 16 the way a user does it: Backspace empties the field (it stays empty while editing), then type.
  const group = page.locator('#f-t\\.group');
  await group.click();
  await group.press('End');
  await group.press('Backspace');
  await expect(group).toHaveValue('');
  await group.pressSequentially('16');
  await expect(group).toHaveValue('16');
  await group.press('Tab');
  await expect.poll(() => hashOf(page)).toContain('t.group=16');

  // An empty field, a lone minus and an out-of-range value are refused in place; the value in force stays.
  await group.fill('');
  await group.blur();
  await expect(page.getByTestId('f-t.group-refused')).toContainText('empty');
  await expect(group).toHaveAttribute('aria-invalid', 'true');
  expect(await hashOf(page)).toContain('t.group=16');
  await group.press('Escape');
  await expect(group).toHaveValue('16');
  await lr.fill('-');
  await lr.press('Enter');
  await expect(page.getByTestId('f-t.lr-refused')).toContainText('not a number');
  await lr.fill('2');
  await lr.press('Enter');
  await expect(page.getByTestId('f-t.lr-refused')).toContainText('too large: at most 1 (0 … 1)');
  expect(await hashOf(page)).toContain('t.lr=0.0005');
  await expect(page.locator('label[for="f-t.lr"] .field-range')).toContainText('0 … 1');

  // 1 → 0.7 on the Rollout page; at temperature 0 with n > 1 the page warns that trajectories are identical.
  await page.getByRole('tab', { name: 'Rollout' }).click();
  const temp = page.locator('#f-r\\.temp');
  await temp.click();
  await temp.press('End');
  await temp.press('Backspace');
  await temp.pressSequentially('0.7');
  await temp.press('Enter');
  await expect.poll(() => hashOf(page)).toContain('r.temp=0.7');
  await expect(page.getByTestId('identical-warning')).toHaveCount(0);
  await temp.fill('0');
  await temp.press('Enter');
  await expect(page.getByTestId('identical-warning')).toContainText('identical');

  // A link with bad values: nothing is clamped, the notice lists each one and why.
  await page.goto('about:blank');
  await openApp(page, '?backend=wasm', '#/rollout?r.temp=9&r.k=0&r.kk=1&r.mode=dream');
  const notice = page.getByTestId('url-notice');
  await expect(notice).toContainText('r.temp=9');
  await expect(notice).toContainText('too large: at most 2 (0 … 2)');
  await expect(notice).toContainText('r.k=0');
  await expect(notice).toContainText('r.kk=1');
  await expect(notice).toContainText('r.mode=dream');
  await expect(page.locator('#f-r\\.temp')).toHaveValue('1');
  await expect(page.locator('#f-r\\.k')).toHaveValue('4');
});

test('Cancel stops a running rollout; a saved and reloaded trace shows its checklist questions', async ({ page }) => {
  // Minutes on a loaded 2-core box: the worker's start, one full run of the shipped request, then the cancel.
  test.setTimeout(600_000);
  // A trace this page computed itself: the shipped trace's request (the page's defaults, so the demo is shown and
  // "Run it live" recomputes it). Its trajectories reach the task's second user turn, whose required checklist
  // item the reloaded file must show as a question.
  await openApp(page, '?backend=wasm', '#/rollout');
  const run = page.getByRole('button', { name: 'Run', exact: true });
  await expect(run).toBeEnabled({ timeout: 60_000 });
  await page.getByTestId('demo-run').click();
  await expect(page.getByTestId('run-status')).toContainText('full run', { timeout: 240_000 });
  const timeline = page.getByTestId('rollout-timeline');
  await expect(timeline.locator('.traj-picker button')).toHaveCount(4);
  // Save the computed run (not the shipped trace: the file is named after the view's source).
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('save-traces').click()]);
  expect(download.suggestedFilename()).toMatch(/-run\.jsonl$/);
  const text = fs.readFileSync((await download.path())!, 'utf8');
  expect(text.trim().split('\n')).toHaveLength(4);

  // A long batch on purpose: the first round's batch of 64 generations at temperature 2 on envace-tiny, the
  // weakest shipped policy, runs until its longest sample stops (281 and 381 tokens for seeds 0 and 1 in Node);
  // a cancel that waited for the end of the batch, as before, would take far longer than 2 s. (The 16
  // generations this spec used before no longer make a long batch: every shipped policy now emits its stop
  // within about 140 tokens even at temperature 2, and a whole run of them took under 2 s.) Hash-only
  // navigation: the same document, the worker stays warm and the computed run stays on screen (for settings
  // that have changed since).
  const LONG = '#/rollout?m.model=envace-tiny&r.k=64&r.turns=16&r.temp=2&r.max=1024';
  const counts = page.getByTestId('rollout-progress-counts');
  // Whether a seed's first batch outlasts 0.4 s depends on when its samples stop (temperature 2, WASM with
  // threads): try a few seeds until one is still inside its first batch, then cancel that one.
  let inside = false;
  for (const seed of [0, 1, 2, 3, 4]) {
    await openApp(page, '?backend=wasm', seed > 0 ? `${LONG}&r.seed=${seed}` : LONG);
    await expect(page.getByTestId('run-status')).toContainText('settings changed since');
    await expect(run).toBeEnabled({ timeout: 60_000 });
    await run.click();
    await expect(counts).toContainText(/rounds 0 of at most \d+/, { timeout: 60_000 });
    // Inside the first batch (its prefill is done, decoding is under way).
    await page.waitForTimeout(400);
    if (await counts.count() > 0 && /rounds 0 of at most \d+/.test((await counts.textContent()) ?? '')) { inside = true; break; }
    console.log(`[ux] seed ${seed}: the first batch ended within 0.4 s; trying the next seed`);
    // This seed's run goes on past its first batch: stop it, so the next seed's Run is enabled.
    if (await page.getByTestId('rollout-cancel').count() > 0) await page.getByTestId('rollout-cancel').dispatchEvent('click');
    await expect(page.getByTestId('rollout-cancel')).toHaveCount(0, { timeout: 60_000 });
  }
  expect(inside, 'no seed gave a first batch longer than 0.4 s').toBe(true);
  const t0 = Date.now();
  // dispatchEvent: no actionability waits (seconds on a loaded box); the page times click → rejection.
  await page.getByTestId('rollout-cancel').dispatchEvent('click');
  // The worker checks before every forward pass (prefill or decode step), inside a batch of generations.
  const cancelled = page.getByTestId('rollout-cancelled');
  await expect(cancelled).toContainText('rollout stopped after', { timeout: 60_000 });
  const wallMs = Date.now() - t0;
  const cancelMs = Number(await cancelled.getAttribute('data-cancel-ms'));
  const msg = (await cancelled.textContent())!;
  console.log(`[ux] rollout cancel: stopped ${cancelMs} ms after the click (${wallMs} ms as Playwright saw it): ${msg}`);
  expect(cancelMs).toBeGreaterThan(0);
  expect(cancelMs).toBeLessThan(2_000);
  // Stopped inside the first round's batch, not at its end.
  expect(msg).toContain('rollout stopped after 0 rounds (0 generations), inside round 1');
  // The worker is free again: its next call is answered at once.
  const t1 = Date.now();
  await page.evaluate(() => window.__envace!.api.taskInfo('files'));
  const freeMs = Date.now() - t1;
  console.log(`[ux] the worker answered the next call ${freeMs} ms after the cancel`);
  expect(freeMs).toBeLessThan(2_000);
  await expect(run).toBeEnabled();
  await expect(page.getByTestId('rollout-progress')).toHaveCount(0);
  // The previous view (the run computed above, for other settings) is kept, not replaced by a half-finished run.
  await expect(page.getByTestId('run-status')).toContainText('full run');
  await expect(page.getByTestId('run-status')).toContainText('settings changed since');
  await expect(timeline.locator('.traj-picker button')).toHaveCount(4);

  // Reload the saved trace: the checklist shows questions and the required mark, not bare ids.
  await page.getByTestId('trace-file').setInputFiles({ name: download.suggestedFilename(), mimeType: 'application/x-ndjson', buffer: Buffer.from(text) });
  await expect(page.getByTestId('loaded-file')).toContainText('4 trajectories');
  const item = page.locator('[data-testid=checklist-item]', { hasText: REQUIRED_QS }).first();
  await expect(item).toBeVisible({ timeout: 30_000 });
  await expect(item.getByTestId('checklist-required')).toBeVisible();
  await expect(page.getByTestId('checklist').first()).not.toContainText(/t0\.\d w /);
});

test('Train shows progress inside a step: rollout rounds and generations, then the update, from the worker', async ({ page }) => {
  // Minutes on a loaded 2-core box (the worker's ORT start, the model's training graphs, one step); ~1 min quiet.
  test.setTimeout(900_000);
  // files-starter-small: trained on files tasks, so its trajectories run several rounds (the built-in tiny
  // model's end at the first Act with a parse error: one round).
  await openApp(page, '?backend=wasm', '#/train?t.model=files-starter-small&t.world=files&t.steps=1&t.tasks=2&t.group=4&t.turns=4&t.max=24&t.mb=8&t.seed=5&t.eval=0&t.ckpt=0');
  await expect(page.getByTestId('train-presets')).toBeVisible();
  // Every state of the in-step line as the page drew it, with the step counter beside it at that moment.
  await page.evaluate(() => {
    const seen: Record<string, string>[] = [];
    (window as unknown as { __inStep: typeof seen }).__inStep = seen;
    const read = () => {
      const el = document.querySelector('[data-testid=train-step-progress]');
      if (!el) return;
      const row: Record<string, string> = { counter: document.querySelector('[data-testid=train-step]')?.textContent ?? '', text: el.textContent ?? '' };
      for (const a of Array.from(el.attributes)) if (a.name.startsWith('data-') && a.name !== 'data-testid') row[a.name.slice(5)] = a.value;
      if (JSON.stringify(seen.at(-1)) !== JSON.stringify(row)) seen.push(row);
    };
    new MutationObserver(read).observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
  });
  await page.getByRole('button', { name: 'Start', exact: true }).click();
  // The observer keeps every state drawn: a one-step run can end before a poll of the live line sees it.
  await expect.poll(() => page.evaluate(() => (window as unknown as { __inStep: Record<string, string>[] }).__inStep.some((r) => r.phase === 'rollout' && /rollout, round/.test(r.text))), { timeout: 600_000 }).toBe(true);
  await expect(page.getByTestId('train-state')).toHaveText('done', { timeout: 600_000 });
  const seen = await page.evaluate(() => (window as unknown as { __inStep: Record<string, string>[] }).__inStep);
  const step1 = seen.filter((r) => r.step === '1');
  const rollout = step1.filter((r) => r.phase === 'rollout');
  console.log(`[ux] in-step progress of step 1: ${rollout.length} rollout states (${rollout.map((r) => `r${r.round}:g${r.generations}:f${r.finished}`).join(' ')}), then ${step1.filter((r) => r.phase === 'update').map((r) => r.text).join('; ')}`);
  // Drawn while step 1 ran (the counter still said 0 steps done), round after round, generations growing.
  expect(rollout.every((r) => r.counter.startsWith('step 0 /'))).toBe(true);
  expect(new Set(rollout.map((r) => r.round)).size).toBeGreaterThanOrEqual(2);
  const gens = rollout.map((r) => Number(r.generations));
  expect(gens).toEqual([...gens].sort((x, y) => x - y));
  expect(gens.at(-1)!).toBeGreaterThan(0);
  expect(rollout.every((r) => r.trajectories === '8')).toBe(true);
  // Then the update, still inside step 1, after its rollout.
  const upd = step1.findIndex((r) => r.phase === 'update');
  expect(upd).toBeGreaterThan(step1.findIndex((r) => r.phase === 'rollout'));
  expect(step1[upd]!.counter.startsWith('step 0 /')).toBe(true);
  expect(step1[upd]!.text).toMatch(/step 1: update \(\d+ rows\)/);
  // The line is gone once the run is done.
  await expect(page.getByTestId('train-step-progress')).toHaveCount(0);
});

test('screenshots: Train, Benchmarks and Models (params and held-out results)', async ({ page }) => {
  await openApp(page, '?backend=wasm', '#/train');
  await expect(page.getByTestId('train-presets')).toBeVisible();
  await page.screenshot({ path: docShot('train') });
  await page.getByRole('tab', { name: 'Models' }).click();
  await page.getByTestId('model-list').locator('tr', { hasText: 'envace-small' }).click();
  const row = page.getByTestId('model-list').locator('tr', { hasText: 'envace-small' });
  await expect(row.getByTestId('model-params')).toHaveText('688.8k');
  const held = page.getByTestId('model-heldout');
  await expect(held).toContainText('688,768 parameters');
  await expect(held.locator('tbody tr', { hasText: 'rehearsal' })).toContainText('files');
  await page.screenshot({ path: docShot('models') });
  await page.getByRole('tab', { name: 'Benchmarks' }).click();
  await expect(page.getByRole('tab', { name: 'Benchmarks' })).toHaveAttribute('aria-selected', 'true');
  // The page is lazy-loaded and draws its curves one per frame: shoot once the first curve is on screen.
  await expect(page.getByTestId('curve-training').locator('.recharts-surface').first()).toBeVisible({ timeout: 30_000 });
  await page.screenshot({ path: docShot('benchmarks') });
});
