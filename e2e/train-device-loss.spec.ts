// A WebGPU device lost in the middle of a training run that already has a checkpoint: the page replaces the
// worker with a WASM one, which resumes from that checkpoint (not from step 0) and keeps the curves drawn so
// far. (train.spec.ts covers a loss before any checkpoint: the run starts over at step 0.)
//
// The first step(s) really run on WebGPU (SwiftShader here, slow but only one tiny step is needed); the loss
// is real too: the test hook destroys the GPUDevice that ORT-web uses, so the failure comes from the EP and
// the worker's device.lost watchdog, not from a flag.

import { expect, test, type Page } from '@playwright/test';
import type { RunRecord } from '../src/app/components/train/runs';
import { openApp, shot } from './helpers';

const STEPS = 4;
const HASH = `#/train?t.model=builtin:tiny&t.world=files&t.diff=0&t.steps=${STEPS}&t.tasks=1&t.group=2&t.turns=2&t.max=8&t.mb=4&t.lr=0.01&t.seed=3&t.eval=0&t.ckpt=1`;

interface Hooks {
  ready(): Promise<unknown>;
  runs(): { runs: RunRecord[]; activeId: string | null };
  api(): { trainDebugLoseDevice(real?: boolean): Promise<string> };
}
// Not a global declaration: train.spec.ts declares window.__envaceTrain with its own hook list.
type WithHooks = { __envaceTrain: Hooks };

const activeRun = (page: Page) => page.evaluate(() => {
  const s = (window as unknown as WithHooks).__envaceTrain.runs();
  return s.runs.find((r) => r.runId === s.activeId) ?? null;
});

test('WebGPU device lost after a checkpoint: the run continues on WASM from that checkpoint', async ({ page }) => {
  test.setTimeout(900_000);
  const t0 = Date.now();
  const mark = (what: string) => console.log(`[device-loss] ${what} at ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  // Forced: in auto mode the SwiftShader adapter loses to WASM at start. engine.spec.ts asserts that this
  // machine has a WebGPU adapter, so its absence is a failure here, not a skip.
  const info = await openApp(page, '?backend=webgpu', HASH);
  expect(info.kind).toBe('webgpu');
  await page.evaluate(() => (window as unknown as WithHooks).__envaceTrain.ready());
  await page.getByRole('button', { name: 'Start', exact: true }).click();
  await expect.poll(async () => (await activeRun(page))?.checkpointStep ?? 0, { timeout: 600_000, intervals: [250] }).toBeGreaterThanOrEqual(1);
  const before = (await activeRun(page))!;
  const ck = before.checkpointStep;
  mark(`checkpoint @${ck} on ${before.status?.backend}`);
  expect(before.status?.backend).toBe('webgpu');
  expect(ck).toBeLessThan(STEPS);
  const kept = before.history.filter((m) => m.step <= ck);
  expect(kept.map((m) => m.step)).toEqual(Array.from({ length: ck }, (_, i) => i + 1));

  // The next step is under way on the GPU when its device goes.
  expect(await page.evaluate(() => (window as unknown as WithHooks).__envaceTrain.api().trainDebugLoseDevice(true))).toBe('device destroyed');
  await expect(page.getByTestId('train-backend-switch')).toContainText('webgpu → wasm', { timeout: 180_000 });
  mark('switched to wasm');
  await expect(page.getByTestId('train-log')).toContainText(`from its checkpoint at step ${ck}`, { timeout: 180_000 });
  await expect(page.getByTestId('train-state')).toHaveText('done', { timeout: 300_000 });
  mark('done');

  const r = (await activeRun(page))!;
  expect(r.switches).toEqual([expect.objectContaining({ from: 'webgpu', to: 'wasm', atStep: ck, resumedFrom: ck })]);
  expect(r.status?.backend).toBe('wasm');
  expect(r.status?.resumedFrom).toBe(ck); // continued from the checkpoint, not from 0
  expect(r.history.map((m) => m.step)).toEqual(Array.from({ length: STEPS }, (_, i) => i + 1));
  // The WebGPU steps stay on the curves unchanged (they came back from the checkpoint's metrics).
  for (const m of kept) {
    const again = r.history.find((h) => h.step === m.step)!;
    expect({ loss: again.loss, reward: again.reward, rows: again.rows, gradNorm: again.gradNorm }).toEqual({ loss: m.loss, reward: m.reward, rows: m.rows, gradNorm: m.gradNorm });
  }
  await expect(page.getByTestId('train-step')).toHaveText(`step ${STEPS} / ${STEPS}`);
  await expect(page.getByTestId('chart-grad-norm')).toHaveAttribute('data-points', String(STEPS));
  await page.screenshot({ path: shot('train-webgpu-loss-after-checkpoint'), fullPage: true });
});
