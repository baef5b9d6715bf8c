// A training worker that dies on its own (issue 21): the worker closes itself mid-run (no message, no
// event); the page notices through the Web Lock the worker holds for its life, marks the run interrupted with
// the reason and offers Resume, which continues from the IndexedDB checkpoint in a fresh worker. Then a page
// that fails to render shows its error in its own place while the other pages keep working.

import { expect, test, type Page } from '@playwright/test';
import type { RunRecord } from '../src/app/components/train/runs';
import { openApp, shot } from './helpers';

const STEPS = 2;
const HASH = `#/train?t.model=builtin:tiny&t.mode=rehearsal&t.diff=0&t.pool=4000&t.world=files&t.steps=${STEPS}&t.tasks=1&t.group=2&t.turns=2&t.max=8&t.mb=4&t.lr=0.01&t.seed=3&t.eval=0&t.evaltasks=1&t.evalk=1&t.ckpt=1`;

interface Hooks {
  runs(): { runs: RunRecord[]; activeId: string | null };
  api(): { trainDebugStallBefore(step: number): Promise<void>; debugDie(how: 'close' | 'throw'): Promise<void> };
}
/** The test hooks, typed here (train.spec.ts declares window.__envaceTrain with fewer members). */
type W = { __envaceTrain: Hooks; __envaceBreakPage: (page: string, on?: boolean) => void };

const activeRun = (page: Page) => page.evaluate(() => {
  const s = (window as unknown as W).__envaceTrain.runs();
  return s.runs.find((r) => r.runId === s.activeId)!;
});

test('a training worker that closes itself is noticed; Resume continues; a failing page keeps the app alive', async ({ page }) => {
  await openApp(page, '?backend=wasm', HASH);
  await page.evaluate(() => (window as unknown as W).__envaceTrain.api().trainDebugStallBefore(2));
  await page.getByRole('button', { name: 'Start', exact: true }).click();
  await expect(page.getByTestId('train-log')).toContainText('hanging before step 2', { timeout: 150_000 });
  await expect.poll(async () => (await activeRun(page)).checkpointStep).toBe(1);

  // An uncaught error in a living worker is logged, not taken for a death.
  await page.evaluate(() => (window as unknown as W).__envaceTrain.api().debugDie('throw'));
  await expect(page.getByTestId('train-log')).toContainText('uncaught error in the training worker');
  await expect(page.getByTestId('train-state')).not.toHaveText('interrupted');

  // The worker ends from inside: nothing tells the page but the released lock.
  await page.evaluate(() => (window as unknown as W).__envaceTrain.api().debugDie('close'));
  await expect(page.getByTestId('train-state')).toHaveText('interrupted', { timeout: 30_000 });
  await expect(page.getByTestId('train-error-top')).toContainText('the training worker stopped unexpectedly');
  await expect(page.getByTestId('train-interrupted')).toBeVisible();
  await page.screenshot({ path: shot('train-worker-died'), fullPage: true });

  const resume = page.getByRole('button', { name: 'Resume', exact: true });
  await expect(resume).toBeEnabled();
  await resume.click();
  await expect(page.getByTestId('train-state')).toHaveText('done', { timeout: 180_000 });
  const done = await activeRun(page);
  expect(done.status?.resumedFrom).toBe(1);
  expect(done.history.map((m) => m.step)).toEqual([1, 2]);
  expect(done.error).toBeNull();

  // A page whose render throws shows the failure in its place; the top bar and the other pages still work.
  await page.evaluate(() => (window as unknown as W).__envaceBreakPage('benchmarks'));
  await page.getByRole('tab', { name: 'Benchmarks' }).click();
  await expect(page.getByTestId('page-error')).toContainText('The Benchmarks page failed');
  await expect(page.getByTestId('page-error-message')).toHaveText('Error: e2e: the benchmarks page was told to fail');
  await page.screenshot({ path: shot('page-error-boundary'), fullPage: true });
  await page.getByRole('tab', { name: 'Train' }).click();
  await expect(page.getByTestId('page-error')).toHaveCount(0);
  await expect(page.getByTestId('train-state')).toHaveText('done');
  await page.evaluate(() => (window as unknown as W).__envaceBreakPage('benchmarks', false));
  await page.getByRole('tab', { name: 'Benchmarks' }).click();
  await expect(page.getByTestId('page-error')).toHaveCount(0);
  await expect(page.getByTestId('bench-summary')).toBeVisible();
});
