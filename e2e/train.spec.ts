// Train page: role-wise GRPO in the training worker (WASM) with the tiny model the worker builds itself.
// One run exercises the curves, the crash drill (worker terminated mid-run, a fresh worker resumes from
// the IndexedDB checkpoint), the checkpoint bytes and the exported model folder.

import { expect, test, type Page } from '@playwright/test';
import { loadModelFolder, memoryFileSource } from '../src/engine/modelFolder';
import { decodeCheckpoint } from '../src/rl/checkpoint';
import type { EvalMetrics, StepMetrics } from '../src/rl/trainer';
import type { RunRecord } from '../src/app/components/train/runs';
import { openApp, shot } from './helpers';

const STEPS = 3;
const HASH = `#/train?t.model=builtin:tiny&t.mode=rehearsal&t.diff=0&t.pool=4000&t.world=files&t.steps=${STEPS}&t.tasks=1&t.group=2&t.turns=2&t.max=8&t.mb=4&t.lr=0.01&t.seed=3&t.eval=2&t.evaltasks=1&t.evalk=1&t.ckpt=1`;

interface Hooks {
  killWorker(): number;
  ready(): Promise<unknown>;
  runs(): { runs: RunRecord[]; activeId: string | null };
  api(): { trainDebugStallBefore(step: number): Promise<void>; trainDebugLoseDevice(real?: boolean): Promise<string>; trainDebugPoisonNextStep(): Promise<void>; trainCheckpoint(id: string): Promise<Uint8Array | null>; trainExport(): Promise<{ name: string; files: Record<string, Uint8Array> }> };
}
declare global { interface Window { __envaceTrain?: Hooks } }

const activeRun = (page: Page) => page.evaluate(() => {
  const s = window.__envaceTrain!.runs();
  return s.runs.find((r) => r.runId === s.activeId)!;
});

/** Bytes out of the page as base64 (a plain array of numbers would be ~10× larger over CDP). */
const b64 = (page: Page, expr: 'checkpoint' | 'export', runId: string) => page.evaluate(async ([what, id]) => {
  const enc = (b: Uint8Array) => { let s = ''; for (let i = 0; i < b.length; i += 0x8000) s += String.fromCharCode(...b.subarray(i, i + 0x8000)); return btoa(s); };
  const api = window.__envaceTrain!.api();
  if (what === 'checkpoint') return { ckpt: enc((await api.trainCheckpoint(id))!) };
  const f = await api.trainExport();
  return Object.fromEntries(Object.entries(f.files).map(([p, b]) => [p, enc(b)]));
}, [expr, runId] as const);
const unb64 = (s: string) => new Uint8Array(Buffer.from(s, 'base64'));

test('GRPO run in the worker: curves, resume after a killed worker, checkpoint and export round trips', async ({ page }) => {
  const t0 = Date.now();
  const mark = (what: string) => console.log(`[train.spec] ${what} at ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  await openApp(page, '?backend=wasm', HASH);
  await expect(page.getByTestId('train-variant')).toContainText('EnvACE');
  // Crash drill: the worker hangs before step 2 (so it is provably mid-run, whatever the machine's load
  // does to the page's view of its progress) and is then terminated; its checkpoint @1 is in IndexedDB.
  await page.evaluate(() => window.__envaceTrain!.api().trainDebugStallBefore(2));
  await page.getByRole('button', { name: 'Start', exact: true }).click();
  await expect(page.getByTestId('train-log')).toContainText('hanging before step 2', { timeout: 150_000 });
  await expect.poll(async () => (await activeRun(page)).checkpointStep).toBe(1);
  await page.evaluate(() => window.__envaceTrain!.killWorker());
  mark('checkpoint @1, worker killed');
  const killed = await activeRun(page);
  const ckAtKill = killed.checkpointStep;
  const historyAtKill = killed.history.filter((m) => m.step <= ckAtKill);
  await expect(page.getByTestId('train-state')).toHaveText('interrupted');
  expect(killed.status?.backend).toBe('wasm');
  expect(killed.history.map((m) => m.step)).toEqual([1]);
  expect(killed.status?.state).toBe('paused'); // shown as interrupted: the worker is gone
  // One step so far: recharts draws a single point as a dot, not a path.
  await expect(page.getByTestId('chart-reward-role')).toHaveAttribute('data-points', '1');
  await expect(page.getByTestId('chart-reward-role').locator('.recharts-dot').first()).toBeAttached();
  await page.screenshot({ path: shot('train-killed'), fullPage: true });
  console.log(`[train.spec] at kill: checkpoint @${ckAtKill}, history ${killed.history.map((m) => `${m.step}:${m.secondsPerStep.toFixed(2)}s`).join(' ')}`);

  // A fresh worker knows nothing of the run: Step loads it from IndexedDB, runs one step and holds.
  await page.getByRole('button', { name: 'Step', exact: true }).click();
  await expect(page.getByTestId('train-state')).toHaveText('paused', { timeout: 120_000 }); // ORT init + rebuild + 1 step
  mark('stepped once in a fresh worker');
  await expect(page.getByTestId('train-step')).toHaveText(`step ${ckAtKill + 1} / ${STEPS}`);
  const stepped = await activeRun(page);
  expect(stepped.status?.resumedFrom).toBe(ckAtKill); // continued from the checkpoint, not from 0
  expect(stepped.history.map((m) => m.step)).toEqual([1, 2]);
  await expect(page.getByTestId('train-log')).toContainText(`from its checkpoint at step ${ckAtKill}`);
  // Resume continues the run held in this worker's memory.
  await page.getByRole('button', { name: 'Resume', exact: true }).click();
  await expect(page.getByTestId('train-state')).toHaveText('done', { timeout: 150_000 });
  mark('run done');
  await expect(page.getByTestId('train-step')).toHaveText(`step ${STEPS} / ${STEPS}`);

  const done = await activeRun(page);
  expect(done.history.map((m: StepMetrics) => m.step)).toEqual([1, 2, 3]);
  // The steps before the kill came back from the checkpoint unchanged.
  for (const m of historyAtKill) {
    const again = done.history.find((h) => h.step === m.step)!;
    expect({ loss: again.loss, reward: again.reward, rows: again.rows, gradNorm: again.gradNorm }).toEqual({ loss: m.loss, reward: m.reward, rows: m.rows, gradNorm: m.gradNorm });
  }
  expect(done.evals.map((e: EvalMetrics) => e.step)).toEqual([0, 2, 3]);
  // Recall and inference probe fidelity are their own curves; F1 axes are fixed to [0, 1].
  expect(done.evals.every((e: EvalMetrics) => typeof e.recallF1 === 'number' && (e.recallProbes ?? 0) + (e.inferenceProbes ?? 0) > 0)).toBe(true);
  for (const id of ['fidelity', 'fidelity-probes']) await expect(page.getByTestId(`chart-${id}`)).toHaveAttribute('data-domain', '0,1');
  for (const id of ['reward-role', 'adv-mean', 'adv-abs', 'success', 'fidelity', 'fidelity-probes', 'kl', 'entropy', 'grad-norm', 'tokens-per-s', 'seconds-per-step']) {
    // A flat line has an empty bounding box (Playwright calls it hidden): check the drawn path instead.
    await expect(page.getByTestId(`chart-${id}`).locator('path.recharts-line-curve').first()).toHaveAttribute('d', /^M/);
  }
  const secondsPerStep = done.history.map((m) => m.secondsPerStep);
  console.log(`[train.spec] seconds per step (WASM, headless): ${secondsPerStep.map((s) => s.toFixed(2)).join(', ')}; rows ${done.history.map((m) => m.rows).join(', ')}`);
  await page.screenshot({ path: shot('train-done'), fullPage: true });

  // Checkpoint round trip: the bytes in IndexedDB decode in Node to the final state and the full history.
  const { ckpt } = await b64(page, 'checkpoint', done.runId) as { ckpt: string };
  const ck = decodeCheckpoint(unb64(ckpt));
  expect(ck.runId).toBe(done.runId);
  expect(ck.step).toBe(STEPS);
  const meta = ck.meta as { history: StepMetrics[]; evals: EvalMetrics[]; config: { variant: string; seed: number } };
  expect(meta.history.map((m) => m.step)).toEqual([1, 2, 3]);
  expect(meta.history.map((m) => m.loss)).toEqual(done.history.map((m) => m.loss));
  expect(meta.config).toMatchObject({ variant: 'envace', seed: 3 });
  expect(Object.keys(ck.tensors).sort()).toEqual(['0.m', '0.params', '0.v']);

  // Exported model folder = the checkpoint's weights, readable by the engine's folder loader.
  await page.getByRole('button', { name: 'Export model' }).click();
  await expect(page.getByTestId('train-export')).toContainText('model.safetensors');
  const files = Object.fromEntries(Object.entries(await b64(page, 'export', done.runId)).map(([p, s]) => [p, unb64(s)]));
  expect(Object.keys(files)).toEqual(expect.arrayContaining(['config.json', 'tokenizer.json', 'model.safetensors', 'onnx/model.onnx']));
  const folder = await loadModelFolder(memoryFileSource(files));
  const w = folder.params['lm_head.weight']!;
  expect(Array.from(w)).toEqual(Array.from(ck.tensors['0.params']!['lm_head.weight']!));
  expect((folder.rawConfig.envace as { rl: { step: number } }).rl.step).toBe(STEPS);

  // Metrics export: one CSV row per step and per eval.
  const dl = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Metrics CSV' }).click();
  const csv = await (await dl).createReadStream().then(async (s) => { let t = ''; for await (const c of s) t += c; return t; });
  const lines = csv.trim().split('\n');
  expect(lines[0]).toMatch(/^run,variant,kind,step,reward/);
  expect(lines.length).toBe(1 + STEPS + done.evals.length);
  mark('round trips checked');

  // A second run overlays the first. Its policy is poisoned before its only step: the trainer's NaN guard
  // skips the update and the page says so.
  await page.getByRole('button', { name: 'Pooled rows' }).click();
  await page.locator('#f-t\\.steps').fill('1');
  await page.locator('#f-t\\.steps').press('Enter'); // numeric fields commit on Enter or blur
  await page.locator('#f-t\\.eval').fill('0');
  await page.locator('#f-t\\.eval').press('Enter');
  await expect.poll(() => new URL(page.url()).hash).toContain('t.adv=pooled');
  await page.evaluate(() => window.__envaceTrain!.api().trainDebugPoisonNextStep());
  await page.getByRole('button', { name: 'Start', exact: true }).click();
  await expect(page.getByTestId('train-nan-guard')).toContainText('1 update skipped', { timeout: 90_000 });
  mark('second run: NaN guard shown');
  await expect(page.getByTestId('train-state')).toHaveText('done', { timeout: 60_000 });
  const second = await activeRun(page);
  expect(second.request.spec.variant).toBe('pooled');
  expect(second.history.map((m) => [m.step, m.skipped])).toEqual([[1, true]]);
  const gradLines = page.getByTestId('chart-grad-norm').locator('.recharts-line');
  await expect(gradLines).toHaveCount(2);
  await page.getByTestId('train-run-row').first().locator('input[type=checkbox]').uncheck();
  await expect(gradLines).toHaveCount(1);
  await page.getByTestId('train-run-row').first().locator('input[type=checkbox]').check();
  await page.screenshot({ path: shot('train-overlay-nan-guard'), fullPage: true });

  mark('overlay toggled');
  // Reload: settings from the URL, runs and curves from localStorage.
  await page.reload();
  await expect(page.getByTestId('train-run-row')).toHaveCount(2, { timeout: 30_000 });
  await expect(page.getByTestId('train-run-row').nth(0)).toContainText('done');
  await expect(page.locator('#f-t\\.adv')).toHaveValue('pooled');
  await expect(page.getByTestId('chart-grad-norm').locator('.recharts-line')).toHaveCount(2);
  mark('overlay, NaN guard and reload checked');
});

test('WebGPU smoke: a destroyed device moves the run to a fresh WASM worker, reported, and it continues', async ({ page }) => {
  const info = await openApp(page, '?backend=webgpu', `#/train?t.model=builtin:tiny&t.mode=rehearsal&t.diff=0&t.pool=4000&t.world=files&t.steps=1&t.tasks=1&t.group=2&t.turns=2&t.max=8&t.mb=4&t.seed=3&t.eval=0&t.ckpt=1`);
  test.skip(info.kind !== 'webgpu', `no WebGPU here (${info.reason})`);
  // Destroyed before the start, the device fails the first step's first GPU call: SwiftShader is far too
  // slow for a training step, and the path under test is the recovery, not WebGPU numerics. ORT-web does
  // not throw on a destroyed device (its reads hang), so this also proves the device.lost watchdog.
  expect(await page.evaluate(async () => { const h = window.__envaceTrain!; await h.ready(); return h.api().trainDebugLoseDevice(true); })).toBe('device destroyed');
  await page.getByRole('button', { name: 'Start', exact: true }).click();
  await expect(page.getByTestId('train-backend-switch')).toContainText('webgpu → wasm', { timeout: 120_000 });
  await expect(page.getByTestId('train-state')).toHaveText('done', { timeout: 150_000 });
  const r = await activeRun(page);
  expect(r.status?.backend).toBe('wasm');
  expect(r.switches).toEqual([expect.objectContaining({ from: 'webgpu', to: 'wasm', atStep: 0, resumedFrom: 0 })]);
  expect(r.history.map((m) => m.step)).toEqual([1]);
  await page.screenshot({ path: shot('train-webgpu-switch'), fullPage: true });
});
