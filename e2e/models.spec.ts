// Models page: the index lists model folders with config and size, and a sample prompt runs in the worker
// (WASM here; the engine spec covers WebGPU) and gives the same greedy text as the engine's sampler in Node.
// The shipped envace-tiny (models/): the e2e build serves exactly the production models.

import path from 'node:path';
import { expect, test } from '@playwright/test';
import { loadModelFolder } from '../src/engine/modelFolder';
import { createNodeRuntime } from '../src/engine/runtime-node';
import { samplerFromFolder } from '../src/engine/sampler';
import { openApp, shot } from './helpers';

const NAME = 'envace-tiny';
const PROMPT = 'hello';
const MAX = 8;

test('lists models, shows config and size, samples in the worker like Node', async ({ page }) => {
  const folder = await loadModelFolder(path.resolve('models', NAME));
  const sampler = await samplerFromFolder(folder, createNodeRuntime({ threads: 1 }), { mode: 'fast' });
  const [ref] = await sampler.generate([{ prompt: PROMPT, maxNewTokens: MAX, temperature: 0, topP: 1, topK: 0, stop: [], seed: 0 }]);
  await sampler.release();

  await openApp(page, '?backend=wasm', `#/models?m.model=${NAME}&m.prompt=${PROMPT}&m.max=${MAX}`);
  const list = page.getByTestId('model-list');
  const row = list.locator('tr', { hasText: NAME });
  await expect(row).toBeVisible();
  await expect(row).toHaveClass(/on/); // selected from the URL
  await expect(row).toContainText(String(folder.config.vocab_size));
  // The file table's row headers (the Hugging Face panel's dtype select also names onnx/model.onnx).
  await expect(page.getByRole('rowheader', { name: 'model.safetensors', exact: true })).toBeVisible();
  await expect(page.getByRole('rowheader', { name: 'onnx/model.onnx', exact: true })).toBeVisible();

  await page.getByRole('button', { name: 'Sample' }).click();
  const out = page.getByTestId('sample-output');
  await expect(out).toBeVisible({ timeout: 120_000 });
  await expect(out.locator('pre')).toHaveText(PROMPT + ref!.text);
  await expect(out).toContainText(`${ref!.outputIds.length} new tokens`);
  await page.screenshot({ path: shot('models-sample'), fullPage: true });
});
