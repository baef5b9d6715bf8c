// Issue 42, "the first hour, round three": one test per numbered finding (point 0 is e2e/first-run.spec.ts).
//  1 rehearse-first works by default (a memory-trained policy preselected and named; unparsable runs said in words);
//  2 Benchmarks opens on its headline chart and verdict; 3 inputs never widen the page; 4 the held-out change can be
//  judged; 5 runs told apart; 6 Pause stops after the step it names; 7 the suites panel; 8 jargon explained;
//  9 links reproduce Train and Benchmarks; 10 phone bars.
// Screenshots of each page's first screen at 1440 and 390 px go to docs/screenshots/first-screen/.

import { expect, test, type Page } from '@playwright/test';
import { openApp } from './helpers';

test.use({ viewport: { width: 1440, height: 900 } });

const widths = (page: Page) => page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));

test('3: a 5,000-digit value never widens the page; the refusal says "too large: at most …"', async ({ page }) => {
  const huge = '9'.repeat(5000);
  await openApp(page, '?backend=wasm', '#/rollout');
  for (const width of [1440, 390]) {
    await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
    for (const [tab, field] of [['Rollout', 'f-r.seed'], ['Rollout', 'task-seed'], ['Train', 'f-t.seed']] as const) {
      await page.getByRole('tab', { name: tab }).click();
      const input = page.getByTestId(field);
      await input.fill(huge);
      await input.press('Enter');
      const refused = page.getByTestId(`${field}-refused`);
      await expect(refused).toContainText('too large: at most 2³¹−1');
      await expect(refused).toContainText('(5000 characters)');
      const w = await widths(page);
      expect(w.scroll, `${tab} ${field} at ${width} px`).toBeLessThanOrEqual(w.client);
      // The column the field sits in keeps its width (it was squeezed to ≈ 60 px).
      const box = await input.boundingBox();
      expect(box!.width, `${field} at ${width} px`).toBeGreaterThan(80);
      await input.press('Escape');
      await expect(refused).toHaveCount(0);
    }
  }
  // The same value in a link: listed as ignored, and the notice does not widen the page either.
  await page.goto(`/?backend=wasm#/train?t.seed=${huge}`);
  await expect(page.getByTestId('url-notice')).toContainText('too large: at most');
  const w = await widths(page);
  expect(w.scroll).toBeLessThanOrEqual(w.client);
});
