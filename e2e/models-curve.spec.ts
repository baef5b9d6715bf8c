// Models page: each folder's pretraining curve (eval.json `heldOutCurve`: held-out success against cumulative
// pretraining CPU-minutes, one line per world × difficulty with its 95% band). A known curve served in place of
// a shipped folder's eval.json is drawn exactly (rows, series, lines, a [0, 1] success axis); every folder the
// index lists shows its own curve, or says that none is recorded.

import fs from 'node:fs';
import { expect, test } from '@playwright/test';
import { shapeHeldOutCurve } from '../src/app/components/models/pretrainCurve';
import { openApp, shot } from './helpers';

const CURVE = JSON.parse(fs.readFileSync('e2e/fixtures/pretrain-curve.json', 'utf8'));
const FOLDER = 'files-starter-small';

test('draws a folder\'s pretraining curve with bands and a success axis within [0, 1]', async ({ page }) => {
  const shipped = JSON.parse(fs.readFileSync(`models/${FOLDER}/eval.json`, 'utf8'));
  await page.route(`**/models/${FOLDER}/eval.json`, (r) => r.fulfill({ contentType: 'application/json', body: JSON.stringify({ ...shipped, heldOutCurve: CURVE }) }));
  await openApp(page, '?backend=wasm', `#/models?m.model=${FOLDER}`);
  const held = page.getByTestId('model-heldout');
  await expect(held).toContainText(/[\d,]+ parameters/);
  await expect(held.locator('tbody tr', { hasText: 'real' }).first()).toContainText('files');
  const chart = page.getByTestId('pretrain-curve-chart');
  await expect(chart).toBeVisible();
  const want = shapeHeldOutCurve(CURVE);
  expect(want.problems).toEqual([]);
  expect(JSON.parse((await chart.getAttribute('data-rows'))!)).toEqual(want.rows);
  expect(JSON.parse((await chart.getAttribute('data-series'))!)).toEqual([
    { key: 'files_dall', label: 'files · all tasks' }, { key: 'files_d1', label: 'files · difficulty 1' },
  ]);
  await expect(chart.locator('path.recharts-line-curve')).toHaveCount(2);
  await expect(chart.locator('.recharts-area-area')).toHaveCount(2);
  // Success axis: ticks from 0 to 1, none above.
  // recharts 3 may draw tick labels in a layer of their own, outside the axis group: the left axis's labels are
  // the tick texts anchored at their end (the x axis's are centred). allTextContents does not wait: poll.
  const yTicks = chart.locator('text.recharts-cartesian-axis-tick-value[text-anchor="end"]');
  await expect.poll(async () => (await yTicks.allTextContents()).length, { timeout: 15_000 }).toBeGreaterThan(1);
  const ticks = (await yTicks.allTextContents()).map(Number).filter((x) => Number.isFinite(x));
  expect(Math.min(...ticks)).toBe(0);
  expect(Math.max(...ticks)).toBe(1);
  await expect(chart).toContainText('cumulative pretraining CPU-minutes');
  await expect(page.getByTestId('pretrain-curve')).toContainText('100 held-out tasks per line');
  await expect(page.getByTestId('pretrain-curve-problems')).toHaveCount(0);
  await page.screenshot({ path: shot('models-pretrain-curve'), fullPage: true });
});

test('every listed folder shows its recorded curve or says none is recorded', async ({ page }) => {
  await openApp(page, '?backend=wasm', '#/models');
  const index = await page.evaluate(async () => (await (await fetch('/models/index.json')).json()) as { models: { name: string; url: string; files: { path: string }[] }[] });
  expect(index.models.length).toBeGreaterThan(0);
  const seen: string[] = [];
  for (const m of index.models) {
    await page.getByTestId('model-list').locator('tr', { hasText: m.name }).first().click();
    await expect(page.locator('.page-models .timeline .panel-head')).toContainText(`Model ${m.name}`);
    const hasEval = m.files.some((f) => f.path === 'eval.json');
    const curve = hasEval ? (await page.evaluate(async (u) => (await (await fetch(`${u}eval.json`)).json()) as { heldOutCurve?: unknown }, m.url)).heldOutCurve : undefined;
    if (curve) {
      const chart = page.getByTestId('pretrain-curve-chart');
      await expect.poll(async () => JSON.parse((await chart.getAttribute('data-rows')) ?? 'null')).toEqual(shapeHeldOutCurve(curve).rows);
      seen.push(`${m.name}: curve (${shapeHeldOutCurve(curve).rows.length} points)`);
    } else {
      await expect(page.getByTestId('pretrain-curve-none')).toHaveText('no pretraining curve recorded');
      seen.push(`${m.name}: none`);
    }
  }
  console.log(`[models-curve] ${seen.join(' · ')}`);
});
