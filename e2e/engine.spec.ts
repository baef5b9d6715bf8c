// Engine self-test in the browser worker (WebGPU on SwiftShader, and WASM) against the same code run in
// Node on onnxruntime-node CPU as the reference. Tiny model, [2,16] batch: SwiftShader is slow. The WebGPU
// page is opened without ?backend, so it also checks the auto choice, the status bar and the smoke graph.

import { expect, test, type Page } from '@playwright/test';
import { createNodeRuntime } from '../src/engine/runtime-node';
import { engineSelfTest } from '../src/worker/selftest';
import type { SelfTestResult } from '../src/worker/protocol';
import { maxAbsDiff, nodeSmoke, openApp, shot } from './helpers';

let ref: SelfTestResult;
test.beforeAll(async () => {
  ref = await engineSelfTest(createNodeRuntime({ threads: 1 }));
});

const rel = (a: number, b: number) => Math.abs(a - b) / Math.max(1e-12, Math.abs(b));

function compare(got: SelfTestResult, kind: 'webgpu' | 'wasm') {
  expect(got.backend).toBe(kind);
  // Same graph, different kernels: float32 summation order differs, nothing more.
  expect(rel(got.loss, ref.loss)).toBeLessThan(1e-4);
  expect(rel(got.gradNorm, ref.gradNorm)).toBeLessThan(1e-3);
  // The first AdamW step is ≈ lr·sign(g): a gradient that is ±noise near zero can flip, so the post-update
  // numbers get a looser (still tight in absolute terms) bound.
  expect(rel(got.lossAfter, ref.lossAfter)).toBeLessThan(1e-3);
  expect(got.lossAfter).toBeLessThan(got.loss);
  expect(maxAbsDiff(got.logits, ref.logits)).toBeLessThan(2e-3);
  // Greedy tokens must agree (the reference's first-token margin is ~0.4 at this seed, far above float noise);
  // their log-probs too.
  expect(ref.margin).toBeGreaterThan(1e-3);
  expect(got.sampled).toEqual(ref.sampled);
  expect(got.sampledText).toBe(ref.sampledText);
  expect(maxAbsDiff(got.logprobs, ref.logprobs)).toBeLessThan(2e-3);
}

async function runInPage(page: Page): Promise<SelfTestResult> {
  // Through the UI button, so the rendered result (and its screenshot) is what the page shows.
  await page.getByRole('tab', { name: 'Models' }).click();
  await page.getByTestId('run-selftest').click();
  const table = page.getByTestId('selftest-result');
  await expect(table).toBeVisible({ timeout: 240_000 });
  // The page keeps the worker's full result on the table it rendered: compare exactly what was shown,
  // without running the (slow on SwiftShader) test a second time.
  return JSON.parse((await table.getAttribute('data-json'))!) as SelfTestResult;
}

test('?backend=webgpu on the SwiftShader fallback adapter; smoke graph and engine self-test match Node', async ({ page }) => {
  test.setTimeout(420_000);
  // Forced: in auto mode a fallback adapter (SwiftShader here) loses to WASM at start (see ux.spec.ts).
  const info = await openApp(page, '?backend=webgpu');
  expect(info.kind).toBe('webgpu');
  expect(info.requested).toBe('webgpu');
  expect(info.adapter?.isFallbackAdapter).toBe(true);
  await expect(page.getByTestId('backend-kind')).toHaveText('WebGPU');
  const bar = page.getByTestId('statusbar');
  await expect(bar).toContainText('isFallbackAdapter true');
  await expect(bar).toContainText(info.adapter!.vendor || info.adapter!.architecture);
  await page.screenshot({ path: shot('app-webgpu'), fullPage: true });
  const smoke = await page.evaluate(() => window.__envace!.api.smokeTest());
  expect(smoke.kind).toBe('webgpu');
  expect(maxAbsDiff(smoke.output, await nodeSmoke())).toBeLessThan(1e-5);

  const got = await runInPage(page);
  console.log('webgpu', JSON.stringify({ loss: got.loss, gradNorm: got.gradNorm, lossAfter: got.lossAfter, sampled: got.sampledText, timings: got.timings }));
  await page.screenshot({ path: shot('selftest-webgpu'), fullPage: true });
  compare(got, 'webgpu');
});

test('engine self-test on WASM matches Node', async ({ page }) => {
  const info = await openApp(page, '?backend=wasm');
  expect(info.kind).toBe('wasm');
  const got = await runInPage(page);
  console.log('wasm', JSON.stringify({ loss: got.loss, gradNorm: got.gradNorm, lossAfter: got.lossAfter, sampled: got.sampledText, timings: got.timings }));
  await page.screenshot({ path: shot('selftest-wasm'), fullPage: true });
  compare(got, 'wasm');
});
