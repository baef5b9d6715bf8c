// The shell: the app loads, the status bar names the backend the worker chose (and why), the URL hash
// reproduces page + settings, and the backend smoke graph gives Node's numbers on WebGPU and on WASM.

import { expect, test } from '@playwright/test';
import * as ort from 'onnxruntime-node';
import { buildSmokeGraph, smokeInput, SMOKE_SHAPE } from '../src/worker/smoke';
import { maxAbsDiff, openApp, shot } from './helpers';

let nodeSmoke: number[];
test.beforeAll(async () => {
  const s = await ort.InferenceSession.create(buildSmokeGraph());
  const r = await s.run({ x: new ort.Tensor('float32', smokeInput(), [SMOKE_SHAPE.rows, SMOKE_SHAPE.inner]) });
  nodeSmoke = Array.from(r.y!.data as Float32Array);
  await s.release();
});

test('default: WebGPU on the SwiftShader fallback adapter, shown in the status bar', async ({ page }) => {
  const info = await openApp(page);
  expect(info.kind).toBe('webgpu');
  expect(info.adapter?.isFallbackAdapter).toBe(true);
  const bar = page.getByTestId('statusbar');
  await expect(page.getByTestId('backend-kind')).toHaveText('WebGPU');
  await expect(bar).toContainText('isFallbackAdapter true');
  await expect(bar).toContainText(info.adapter!.vendor || info.adapter!.architecture);
  await page.screenshot({ path: shot('app-webgpu'), fullPage: true });

  const smoke = await page.evaluate(() => window.__envace!.api.smokeTest());
  expect(smoke.kind).toBe('webgpu');
  expect(maxAbsDiff(smoke.output, nodeSmoke)).toBeLessThan(1e-5);
});

test('?backend=wasm forces WASM and says why', async ({ page }) => {
  const info = await openApp(page, '?backend=wasm');
  expect(info.kind).toBe('wasm');
  expect(info.reason).toBe('forced by ?backend=wasm');
  await expect(page.getByTestId('backend-kind')).toHaveText('WASM');
  await expect(page.getByTestId('backend-detail')).toContainText('forced by ?backend=wasm');

  const smoke = await page.evaluate(() => window.__envace!.api.smokeTest());
  expect(smoke.kind).toBe('wasm');
  expect(maxAbsDiff(smoke.output, nodeSmoke)).toBeLessThan(1e-5);
  await page.screenshot({ path: shot('app-wasm'), fullPage: true });
});

test('URL hash reproduces page and settings; edits write back to the hash', async ({ page }) => {
  await openApp(page, '?backend=wasm', '#/train?t.lr=0.0003&t.steps=7&t.adv=pooled&bogus=1&t.group=notanumber');
  await expect(page.getByRole('tab', { name: 'Train' })).toHaveAttribute('aria-selected', 'true');
  await expect(page.locator('#f-t\\.lr')).toHaveValue('0.0003');
  await expect(page.locator('#f-t\\.steps')).toHaveValue('7');
  await expect(page.locator('#f-t\\.adv')).toHaveValue('pooled');
  await expect(page.locator('#f-t\\.group')).toHaveValue('4'); // invalid value → default
  expect(new URL(page.url()).hash).toBe('#/train?t.steps=7&t.lr=0.0003&t.adv=pooled'); // normalised

  await page.locator('#f-t\\.clip').fill('0.3');
  await expect.poll(() => new URL(page.url()).hash).toContain('t.clip=0.3');
  await page.getByRole('tab', { name: 'Models' }).click();
  await expect.poll(() => new URL(page.url()).hash).toMatch(/^#\/models\?/);
  expect(new URL(page.url()).search).toBe('?backend=wasm');

  // Capabilities not wired yet are stated, not faked.
  await page.getByRole('tab', { name: 'Rollout' }).click();
  await expect(page.getByTestId('not-available').first()).toContainText('not available yet');
  await page.screenshot({ path: shot('rollout-shell'), fullPage: true });
});
