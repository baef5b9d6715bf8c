// Train page: the reference-vs-ours options of issue 8 are in the options form, with the reference's rule
// as the default and a link able to pick the other one.
import { expect, test } from '@playwright/test';
import { openApp } from './helpers';

test('reward after a fatal error and what the judge reads: reference default, settable by link and form', async ({ page }) => {
  await openApp(page, '', '#/train?t.judgeon=real');
  await expect(page.locator('#f-t\\.errrew')).toHaveValue('keep-completed-turns');
  await expect(page.locator('#f-t\\.judgeon')).toHaveValue('real');
  await page.locator('#f-t\\.errrew').selectOption('zero-episode');
  await expect(page).toHaveURL(/t\.errrew=zero-episode/);
  await page.locator('#f-t\\.judgeon').selectOption('transcript');
  await expect(page).not.toHaveURL(/t\.judgeon=/);
});
