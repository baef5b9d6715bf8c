// The shell on WASM: the status bar names the backend the worker chose and why, the URL hash reproduces page
// + settings (and edits write back), and the backend smoke graph gives Node's numbers. The WebGPU side of
// the status bar and smoke graph is checked in engine.spec.ts, on the page that also runs the self-test.

import { expect, test } from '@playwright/test';
import { maxAbsDiff, nodeSmoke, openApp, shot } from './helpers';

test('?backend=wasm: status bar, smoke graph vs Node, URL state round trip', async ({ page }) => {
  const info = await openApp(page, '?backend=wasm', '#/train?t.lr=0.0005&t.steps=7&bogus=1&t.group=notanumber');
  expect(info.kind).toBe('wasm');
  expect(info.reason).toBe('forced by ?backend=wasm');
  await expect(page.getByTestId('backend-kind')).toHaveText('WASM');
  await expect(page.getByTestId('backend-detail')).toContainText('forced by ?backend=wasm');

  const smoke = await page.evaluate(() => window.__envace!.api.smokeTest());
  expect(smoke.kind).toBe('wasm');
  expect(maxAbsDiff(smoke.output, await nodeSmoke())).toBeLessThan(1e-5);

  // The hash selected the tab and its settings; unknown keys and invalid values fell back to defaults, a
  // notice lists them (a link never changes silently), and the URL was normalised to what the controls show.
  const notice = page.getByTestId('url-notice');
  await expect(notice).toContainText('bogus=1');
  await expect(notice).toContainText('unknown setting');
  await expect(notice).toContainText('t.group=notanumber');
  await expect(page.getByRole('tab', { name: 'Train' })).toHaveAttribute('aria-selected', 'true');
  await expect(page.locator('#f-t\\.lr')).toHaveValue('0.0005');
  await expect(page.locator('#f-t\\.steps')).toHaveValue('7');
  await expect(page.locator('#f-t\\.group')).toHaveValue('4');
  expect(new URL(page.url()).hash).toBe('#/train?t.steps=7&t.lr=0.0005');

  // Numeric fields commit on Enter (or blur), not on every keystroke.
  await page.locator('#f-t\\.steps').fill('9');
  await page.locator('#f-t\\.steps').press('Enter');
  await expect.poll(() => new URL(page.url()).hash).toContain('t.steps=9');
  await page.getByRole('tab', { name: 'Rollout' }).click();
  await expect.poll(() => new URL(page.url()).hash).toMatch(/^#\/rollout\?/);
  expect(new URL(page.url()).search).toBe('?backend=wasm');
  await page.locator('#f-r\\.k').fill('3');
  await page.locator('#f-r\\.k').blur();
  await expect.poll(() => new URL(page.url()).hash).toContain('r.k=3');
  // Back returns to the previous tab with its settings.
  await page.goBack();
  await expect(page.getByRole('tab', { name: 'Train' })).toHaveAttribute('aria-selected', 'true');
  await expect(page.locator('#f-t\\.steps')).toHaveValue('9');

  // Without a model chosen the Rollout page falls back to the world's starter policy, so it works offline as opened.
  await page.getByRole('tab', { name: 'Rollout' }).click();
  await expect(page.locator('#f-m\\.model')).toHaveValue('files-starter');
  await expect(page.getByRole('button', { name: 'Run', exact: true })).toBeEnabled();
  await page.screenshot({ path: shot('app-wasm-rollout-shell'), fullPage: true });
});
