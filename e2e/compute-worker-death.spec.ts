// The page's compute worker (Rollout, Benchmarks, Models) dying on its own (issue 21), as the training worker's
// e2e does for training: the worker ends from inside (debugDie: self.close(), as a crash or an out-of-memory kill
// would), the call pending on it rejects with COMPUTE_WORKER_DIED instead of hanging, the page says so with a
// "Restart the worker" button, and after the restart the same page computes again.

import { expect, test, type Page } from '@playwright/test';
import { openApp, workerReady } from './helpers';

type E2eApi = { debugDie(how: 'close' | 'throw'): Promise<void>; worlds(): Promise<unknown[]> };
const die = (page: Page) => page.evaluate(() => (window.__envace!.api as unknown as E2eApi).debugDie('close'));

test('the compute worker dies under a Rollout run and on the Models page: calls settle, the page offers a restart', async ({ page }) => {
  await openApp(page, '?backend=wasm', '#/rollout?r.world=files&r.k=1&r.temp=0&r.turns=4');

  // Rollout: a run in flight when the worker dies.
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await die(page);
  await expect(page.getByTestId('worker-dead')).toContainText('The compute worker stopped', { timeout: 30_000 });
  await expect(page.locator('.error-box').first()).toContainText('COMPUTE_WORKER_DIED', { timeout: 30_000 });
  await expect(page.getByRole('button', { name: 'Run', exact: true })).toBeEnabled();
  // A call made while it is dead fails at once, naming the cause.
  const err = await page.evaluate(() => (window.__envace!.api as unknown as E2eApi).worlds().then(() => 'answered', (e: Error) => e.message));
  expect(err).toMatch(/^COMPUTE_WORKER_DIED: the compute worker stopped unexpectedly/);

  await page.getByTestId('worker-restart').click();
  await expect(page.getByTestId('worker-dead')).toHaveCount(0);
  await workerReady(page);
  expect((await page.evaluate(() => (window.__envace!.api as unknown as E2eApi).worlds())).length).toBeGreaterThan(0);

  // Models: the worker dies while the page is open; its engine self-test then fails at once with the cause (the
  // self-test is too quick to be caught in flight), and after a restart the smoke test runs.
  await page.getByRole('tab', { name: /models/i }).click();
  await die(page);
  await expect(page.getByTestId('worker-dead')).toBeVisible({ timeout: 30_000 });
  await page.getByTestId('run-selftest').click();
  await expect(page.getByTestId('backend-checks').locator('.error-box')).toContainText('COMPUTE_WORKER_DIED', { timeout: 30_000 });
  await expect(page.getByTestId('run-selftest')).toBeEnabled();
  await page.getByTestId('worker-restart').click();
  await expect(page.getByTestId('worker-dead')).toHaveCount(0);
  await page.getByTestId('run-smoke').click();
  await expect(page.getByTestId('smoke-result')).toContainText('smoke on wasm', { timeout: 120_000 });
});
