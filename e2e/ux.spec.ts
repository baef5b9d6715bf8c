// The first five minutes, as a new user at 1440×900 meets them: the Rollout page shows a shipped trace with
// rehearsed-vs-real panels before any click; auto mode on the SwiftShader fallback adapter ends on the
// faster backend (timed at start) and says why; numeric fields keep what is typed and refuse bad values
// visibly; bad URL values are listed; Cancel stops a running rollout; a saved and reloaded trace shows the
// checklist questions. Screenshots of every page go to docs/screenshots/ (linked from the README).

import fs from 'node:fs';
import { expect, test, type Page } from '@playwright/test';
import type { BackendInfo } from '../src/worker/protocol';
import { openApp } from './helpers';

test.use({ viewport: { width: 1440, height: 900 } });

const META = JSON.parse(fs.readFileSync('src/app/demo/demo-meta.json', 'utf8')) as { request: { taskId: string }; task: { checklist: { question: string; required: boolean }[][] } };
const REQUIRED_Q = META.task.checklist.flat().find((c) => c.required)!.question;
const docShot = (name: string) => `docs/screenshots/${name}.png`;

async function hashOf(page: Page): Promise<string> { return decodeURIComponent(new URL(page.url()).hash); }

test('first paint: the shipped trace with rehearsed vs real panels, no click; auto mode on a fallback adapter ends on the faster backend', async ({ page }) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const consoleErrors: string[] = [];
  page.on('console', (m) => { if (m.type() === 'error') consoleErrors.push(m.text()); });
  await page.goto('/');
  // Within 3 s of navigation start and without a click: the demo banner and both panels of a Rehearse row.
  const timeline = page.getByTestId('rollout-timeline');
  await expect(timeline.getByTestId('demo-banner')).toBeVisible({ timeout: 3_000 });
  await expect(timeline.getByTestId('imagined-panel').first()).toBeVisible({ timeout: 3_000 });
  await expect(timeline.getByTestId('real-panel').first()).toBeVisible({ timeout: 3_000 });
  // Measured in the page, from navigation start to the frame that drew the trace.
  const [paintedAt, nav, appStart] = await page.evaluate(() => [
    performance.getEntriesByName('envace-demo-painted')[0]?.startTime ?? Infinity,
    (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming).domContentLoadedEventEnd,
    performance.getEntriesByName('envace-app-start')[0]?.startTime ?? NaN,
  ]);
  console.log(`[ux] demo trace painted at ${paintedAt.toFixed(0)} ms after navigation start (app code started ${appStart.toFixed(0)} ms, DOMContentLoaded ${nav.toFixed(0)} ms)`);
  // Soft: the rest of this test still runs (and is reported) when the box is too loaded to paint in time.
  expect.soft(paintedAt).toBeLessThan(3_000);
  await expect(timeline.getByTestId('field-diff').first()).toBeAttached();
  // Honest labels: the required item ticked on an imagined result is marked, with the real verdict beside it.
  const ticked = timeline.locator('[data-testid=checklist-item][data-imagined=true]').first();
  await expect(ticked).toContainText(REQUIRED_Q);
  await expect(ticked.getByTestId('checklist-required')).toHaveText('required');
  await expect(ticked.getByTestId('real-verdict')).toContainText('real env: ✗');
  await expect(timeline.getByTestId('state-check')).toContainText('state check');
  await expect(timeline.locator('[data-metric=reward]')).toHaveAttribute('title', /checklist score/);

  // Auto mode: SwiftShader reports isFallbackAdapter; both EPs were timed at start and WASM won.
  const info = await page.evaluate(() => window.__envace!.ready) as BackendInfo;
  console.log(`[ux] auto backend: ${info.kind} · ${info.reason}`);
  expect(info.requested).toBe('auto');
  expect(info.adapter?.isFallbackAdapter).toBe(true);
  expect(info.timing).toBeDefined();
  const faster = info.timing!.wasmMs <= info.timing!.webgpuMs ? 'wasm' : 'webgpu';
  expect(info.kind).toBe(faster);
  expect(info.reason).toMatch(/fallback \(software\) adapter/);
  await expect(page.getByTestId('backend-kind')).toHaveText(faster === 'wasm' ? 'WASM' : 'WebGPU');
  await expect(page.getByTestId('backend-detail')).toContainText('timed at start');
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
  await lr.fill('3e-4');
  await expect(lr).toHaveValue('3e-4'); // kept as typed until committed
  await lr.press('Enter');
  await expect.poll(() => hashOf(page)).toContain('t.lr=0.0003');
  await expect(lr).toHaveValue('0.0003');

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
  await expect(page.getByTestId('f-t.lr-refused')).toContainText('outside 0 … 1');
  expect(await hashOf(page)).toContain('t.lr=0.0003');
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
  await expect(notice).toContainText('outside 0 … 2');
  await expect(notice).toContainText('r.k=0');
  await expect(notice).toContainText('r.kk=1');
  await expect(notice).toContainText('r.mode=dream');
  await expect(page.locator('#f-r\\.temp')).toHaveValue('1');
  await expect(page.locator('#f-r\\.k')).toHaveValue('4');
});

test('Cancel stops a running rollout; a saved and reloaded trace shows its checklist questions', async ({ page }) => {
  await openApp(page, '?backend=wasm', '#/rollout?r.k=8&r.turns=16');
  const run = page.getByRole('button', { name: 'Run', exact: true });
  await expect(run).toBeEnabled({ timeout: 60_000 });

  // Save the shipped trace before running anything, then run, then cancel.
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('save-traces').click()]);
  const text = fs.readFileSync((await download.path())!, 'utf8');

  await run.click();
  const counts = page.getByTestId('rollout-progress-counts');
  await expect(counts).toContainText(/rounds [1-9]\d* of at most \d+/, { timeout: 60_000 });
  await expect(page.getByTestId('rollout-progress')).toContainText('ETA');
  const t0 = Date.now();
  await page.getByTestId('rollout-cancel').click();
  // The worker checks between batches of generations: one batch at most runs on after the click.
  await expect(page.getByTestId('rollout-cancelled')).toContainText('rollout stopped after', { timeout: 60_000 });
  const stoppedMs = Date.now() - t0;
  console.log(`[ux] cancel took effect after ${stoppedMs} ms`);
  await expect(run).toBeEnabled();
  await expect(page.getByTestId('rollout-progress')).toHaveCount(0);
  // The previous view (the shipped trace) is kept, not replaced by a half-finished run.
  await expect(page.getByTestId('demo-banner')).toBeVisible();

  // Reload the saved trace: the checklist shows questions and the required mark, not bare ids.
  await page.getByTestId('trace-file').setInputFiles({ name: download.suggestedFilename(), mimeType: 'application/x-ndjson', buffer: Buffer.from(text) });
  await expect(page.getByTestId('loaded-file')).toContainText('4 trajectories');
  const item = page.locator('[data-testid=checklist-item]', { hasText: REQUIRED_Q }).first();
  await expect(item).toBeVisible({ timeout: 30_000 });
  await expect(item.getByTestId('checklist-required')).toBeVisible();
  await expect(page.getByTestId('checklist').first()).not.toContainText(/t0\.\d w /);
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
