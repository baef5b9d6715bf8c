// The Train page's charts under a fast run (scripts/train-render-cost.ts measures what they cost the page): while a
// run is live they take up its steps at most once a second, yet the latest step always reaches them, even when no
// further step comes; a step redraws a chart only when it brings that chart a point, so the evaluation charts of a
// run without evaluations are drawn once. Render counts come from the Playwright build (RunsChart.tsx countRender);
// nothing here is timed.

import { expect, test } from '@playwright/test';
import { openApp } from './helpers';

const STEPS = 12;
const FIRST_HOLD = 5;
const HOLD = 10;
// The smallest steps (1 task × 2 generations of ≤ 8 tokens, no evaluation): the case where the page fell behind.
const TRAIN = `#/train?t.model=builtin:tiny&t.mode=real&t.diff=0&t.pool=4000&t.world=files&t.steps=${STEPS}&t.tasks=1&t.group=2&t.turns=4&t.max=8&t.mb=8&t.seed=3&t.eval=0&t.ckpt=0`;

type W = { __envaceRenders: Record<string, number>; __envaceTrain: { api(): { trainDebugStallBefore(step: number): Promise<void>; trainDebugReleaseStall(): Promise<boolean> } } };

test('Train charts: the latest step reaches them while the run is live; steps never redraw the evaluation charts', async ({ page }) => {
  test.setTimeout(300_000);
  await openApp(page, '?backend=wasm', TRAIN);
  const pointsAre = async (n: number) => {
    for (const id of ['reward-role', 'grad-norm']) await expect(page.getByTestId(`chart-${id}`)).toHaveAttribute('data-points', String(n), { timeout: 30_000 });
  };
  // Held before a step, the run stays live with the steps before it done and nothing more arriving: the charts must
  // still reach the last of them. Two holds, so the charts are drawn at least twice with different steps.
  await page.evaluate((n) => (window as unknown as W).__envaceTrain.api().trainDebugStallBefore(n), FIRST_HOLD);
  await page.getByTestId('train-runbar').getByRole('button', { name: 'Start', exact: true }).click();
  await expect(page.getByTestId('train-log')).toContainText(`hanging before step ${FIRST_HOLD}`, { timeout: 240_000 });
  await pointsAre(FIRST_HOLD - 1);
  await page.evaluate((n) => (window as unknown as W).__envaceTrain.api().trainDebugStallBefore(n), HOLD);
  expect(await page.evaluate(() => (window as unknown as W).__envaceTrain.api().trainDebugReleaseStall())).toBe(true);
  await expect(page.getByTestId('train-log')).toContainText(`hanging before step ${HOLD}`, { timeout: 240_000 });
  await pointsAre(HOLD - 1);
  await expect(page.getByTestId('train-state')).toHaveText('running');
  const renders = await page.evaluate(() => ({ ...(window as unknown as W).__envaceRenders }));
  console.log(`[train-charts] renders after ${HOLD - 1} steps: ${JSON.stringify(renders)}`);
  // A step chart: drawn again for new steps (at least once), at most once per step; the evaluation charts only once.
  for (const id of ['reward-role', 'loss', 'seconds-per-step', 'grad-norm', 'diag-lr']) {
    expect(renders[id], id).toBeGreaterThanOrEqual(2);
    expect(renders[id], id).toBeLessThanOrEqual(HOLD - 1);
  }
  for (const id of ['success', 'fidelity', 'fidelity-probes']) expect(renders[id], id).toBe(1);

  expect(await page.evaluate(() => (window as unknown as W).__envaceTrain.api().trainDebugReleaseStall())).toBe(true);
  await expect(page.getByTestId('train-state')).toHaveText('done', { timeout: 120_000 });
  await pointsAre(STEPS);
});
