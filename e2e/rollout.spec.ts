// Rollout page (and the Benchmarks run that shares its worker start). Only shipped models (models/), as in
// production. WASM: K sampled trajectories of envace-tiny on a retail task, identical to Node; then
// envace-tiny greedy on a files task stepped one generation at a time, each a prefix of
// the next and of the full Run; rehearsed-vs-real panels; trace save → load (file chooser), bad and
// reference-dump files by drop; the view restored from its link. WebGPU (SwiftShader): a two-generation
// greedy rehearsal run (Act, then its Rehearse beside the real result) with the same token ids as Node and
// log-probs within 2e-3, and one step.

import fs from 'node:fs';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { evaluate } from '../src/agent/evaluate';
import { profileFromConfig, rolloutSettings } from '../src/agent/profile';
import { rolloutGroups } from '../src/agent/rollout';
import { importTraces } from '../src/agent/traces';
import type { Trajectory } from '../src/agent/types';
import { loadModelFolder } from '../src/engine/modelFolder';
import { createNodeRuntime } from '../src/engine/runtime-node';
import { samplerFromFolder } from '../src/engine/sampler';
import { getWorld, taskById } from '../src/envs/worlds';
import { maxAbsDiff, openApp, shot } from './helpers';

const NAME = 'envace-tiny';
const K = 2, SEED = 5, MAX = 12, TURNS = 2;
// envace-tiny, greedy, on this task: act, rehearse (wrong), act, rehearse (exact), act (bad JSON) → 5 generations.
const SHIPPED = 'envace-tiny', STEP_TASK = 'files-40', STEP_HASH = `#/rollout?m.model=${SHIPPED}&r.world=files&r.task=${STEP_TASK}&r.k=1&r.temp=0&r.turns=4`;
// (The page sends its max-new-tokens control, default 128, over the profile's budget; so does the reference.)

async function nodeRollout(dir: string, taskId: string | null, k: number, seed: number, temperature: number, maxNew: number | null, turns: number): Promise<Trajectory[]> {
  const folder = await loadModelFolder(path.resolve(dir));
  const policy = await samplerFromFolder(folder, createNodeRuntime({ threads: 1 }), { mode: 'fast' });
  const task = taskId ? taskById(taskId) : getWorld('retail').tasks({ split: 'test', count: 1 })[0]!;
  const s = rolloutSettings(profileFromConfig(folder.rawConfig));
  const over = (c: object | undefined) => ({ ...c, temperature, topP: 1, topK: 0, ...(maxNew !== null ? { maxNewTokens: maxNew } : {}) });
  try {
    return await rolloutGroups([task], k, { ...s, mode: 'rehearsal', policy, seed, act: over(s.act), rehearse: over(s.rehearse), limits: { ...s.limits, maxAssistantTurns: turns } });
  } finally { await policy.release(); }
}

/** (step, generated text) of every card in the shown trajectory, in timeline order. */
async function shownRows(page: Page): Promise<[number, string][]> {
  return page.$$eval('[data-testid=trajectory] [data-step]', (els) => els
    .map((e) => {
      // The kept text only: spans after the stop string are shown but are not the row's text.
      const pre = e.querySelector('.gen-text');
      const text = pre ? Array.from(pre.childNodes).filter((n) => !(n instanceof HTMLElement && n.classList.contains('tok-stop'))).map((n) => n.textContent).join('') : '';
      return [Number((e as HTMLElement).dataset.step), text] as [number, string];
    })
    .sort((a, b) => a[0] - b[0]));
}

async function dropFile(page: Page, name: string, text: string): Promise<void> {
  await page.evaluate(([n, t]) => {
    const dt = new DataTransfer();
    dt.items.add(new File([t!], n!, { type: 'application/x-ndjson' }));
    document.querySelector('[data-testid=drop-zone]')!.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, [name, text]);
}

test('rollout on WASM: matches Node, steps, rehearsed vs real, traces, URL', async ({ page }) => {
  // Five minutes on a loaded 2-core box (a passing run took 292 s at load ≈ 8): the default 300 s is too tight.
  test.setTimeout(600_000);
  const t0 = Date.now();
  const lap = (what: string) => console.log(`[rollout wasm] ${what}: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  const ref = await nodeRollout(path.join('models', NAME), null, K, SEED, 1, MAX, TURNS);

  await openApp(page, '?backend=wasm', `#/rollout?m.model=${NAME}&r.world=retail&r.k=${K}&r.seed=${SEED}&r.max=${MAX}&r.turns=${TURNS}&r.temp=1`);
  await expect(page.getByTestId('rollout-backend')).toHaveText('wasm');
  await expect(page.getByTestId('task-meta')).toContainText('test');
  lap('open');
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  // The page opened on the shipped demo trace: wait for this run's view before reading the timeline.
  await expect(page.getByTestId('run-status')).toContainText('full run', { timeout: 120_000 });
  const timeline = page.getByTestId('rollout-timeline');
  await expect(timeline.getByTestId('termination')).toHaveText(ref[0]!.terminatedBy, { timeout: 120_000 });
  await expect(timeline.locator('.traj-picker button')).toHaveCount(K);
  await page.screenshot({ path: shot('rollout-run'), fullPage: true });
  lap('sampled run');

  // Same numbers as Node: compare the worker's trajectories (fetched through the same RPC) field by field.
  const got = await page.evaluate(async ([u, k, s, m, t]) => window.__envace!.api.rollout({
    modelUrl: u as string, world: 'retail', mode: 'rehearsal', k: k as number, seed: s as number,
    temperature: 1, maxTurns: t as number, maxNewTokens: m as number,
  }), [`/models/${NAME}/`, K, SEED, MAX, TURNS]) as Trajectory[];
  expect(got.map((t) => t.terminatedBy)).toEqual(ref.map((t) => t.terminatedBy));
  expect(got.map((t) => t.rows.map((r) => r.text))).toEqual(ref.map((t) => t.rows.map((r) => r.text)));
  expect(got.map((t) => t.reward)).toEqual(ref.map((t) => t.reward));
  // Per-token strings: one per output id, and together the raw output the row's text was cut from.
  for (const r of got.flatMap((t) => t.rows)) {
    expect(r.outputTokens).toHaveLength(r.outputIds.length);
    expect(r.outputTokens!.join('').startsWith(r.text.replace(/\uFFFD+$/, ''))).toBe(true);
  }

  // ---- the shipped model, default selection, stepped ----------------------------------------------
  const shippedRef = (await nodeRollout(`models/${SHIPPED}`, STEP_TASK, 1, 0, 0, 128, 4))[0]!;
  expect(shippedRef.rows.length).toBeGreaterThanOrEqual(4);
  await page.goto(`/?backend=wasm${STEP_HASH}`); // hash-only change: same document, worker stays warm
  await expect(page.locator('#f-m\\.model')).toHaveValue(SHIPPED);
  await expect(page.getByTestId('task-meta')).toContainText(/split test · difficulty \d/);
  const stepButton = page.getByTestId('rollout-controls').getByRole('button', { name: /^Step/ });
  let prev: [number, string][] = [];
  for (let k = 1; k <= 3; k++) {
    await stepButton.click();
    await expect(page.getByTestId('run-status')).toContainText(`${k} generation`, { timeout: 60_000 });
    await expect(page.getByTestId('run-status')).toContainText('1 sampled now');
    const rows = await shownRows(page);
    expect(rows.map((r) => r[0])).toEqual(Array.from({ length: k }, (_, i) => i));
    expect(rows.slice(0, prev.length)).toEqual(prev);
    prev = rows;
    if (k === 2) {
      // The Rehearse row: imagined beside the real (shadow) result, with fidelity numbers and the field diff.
      const reh = page.getByTestId('rehearse-row').first();
      await expect(reh.getByTestId('imagined-panel')).toBeVisible();
      await expect(reh.getByTestId('real-panel')).not.toContainText('not recorded');
      await expect(reh.getByTestId('fidelity')).toContainText('field F1');
      await expect(reh.getByTestId('field-diff').locator('tbody tr').first()).toBeAttached();
    }
  }
  await expect(page.getByTestId('in-progress')).toContainText('step 3');
  expect(page.url()).toContain('r.gen=3');
  await expect(page.locator('.tok').first()).toHaveAttribute('title', /logprob -?\d/);
  await page.screenshot({ path: shot('rollout-step-3'), fullPage: true });
  lap('3 steps');

  // Save the stepped view, load it back through the file chooser.
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('save-traces').click()]);
  const saved = await download.path();
  const text = fs.readFileSync(saved!, 'utf8');
  const parsed = importTraces(text);
  expect(parsed.errors).toEqual([]);
  expect(parsed.trajectories[0]!.rows.map((r) => r.text)).toEqual(prev.map((r) => r[1]));
  // The top bar's one copy link: with the stepped view on screen it recomputes it on open (autorun=1).
  await page.getByTestId('copy-link').click();
  const shareUrl = (await page.getByTestId('copy-link').getAttribute('data-url'))!;

  // The whole rollout: an independent computation (no memo), whose prefix the steps were.
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await expect(page.getByTestId('run-status')).toContainText('full run', { timeout: 60_000 });
  await expect(timeline.getByTestId('termination')).toHaveText(shippedRef.terminatedBy, { timeout: 60_000 });
  const full = await shownRows(page);
  expect(full.map((r) => r[1])).toEqual(shippedRef.rows.map((r) => r.text));
  expect(full.slice(0, 3)).toEqual(prev);
  await expect(page.getByTestId('checklist').first()).toBeVisible();
  await page.screenshot({ path: shot('rollout-full'), fullPage: true });

  await page.getByTestId('trace-file').setInputFiles({ name: download.suggestedFilename(), mimeType: 'application/x-ndjson', buffer: Buffer.from(text) });
  await expect(page.getByTestId('loaded-file')).toContainText('1 trajectory');
  expect(await shownRows(page)).toEqual(prev);
  await expect(page.getByTestId('imagined-panel').first()).toBeVisible();

  // A broken file: line-numbered problems, nothing replaced, no crash.
  await dropFile(page, 'broken.jsonl', `not json\n${text.trim()}\n{"v":1,"taskId":3}\n`);
  await expect(page.getByTestId('load-errors')).toContainText('invalid JSON');
  await expect(page.getByTestId('load-errors').locator('tbody tr').first().locator('td').first()).toHaveText('1');
  await expect(page.getByTestId('load-errors')).toContainText('$.taskId');
  await dropFile(page, 'garbage.bin', '\u0000\u0001{{{');
  await expect(page.getByTestId('load-errors')).toContainText('nothing loaded');
  await page.screenshot({ path: shot('rollout-load-errors'), fullPage: true });
  // The reference code's verl dump format goes through importReferenceDump.
  const dump = `${JSON.stringify({ input: 'system\nYou help.\nuser\nWhere is my order?\nassistant\n', output: '<think>look it up</think>It is on its way.', score: 0.5, step: 3 })}\n`;
  await dropFile(page, 'step3.jsonl', dump);
  await expect(page.getByTestId('loaded-file')).toContainText('reference-dump records');
  await expect(page.getByTestId('act-row')).toHaveCount(1);
  lap('traces');

  // The link reproduces the stepped view after a fresh load (new worker): same controls, same 3 generations.
  // Same tab via about:blank, so the old worker (and its ORT threads) is gone before the new one starts.
  expect(shareUrl).toContain('autorun=1');
  const link = new URL(shareUrl);
  await page.goto('about:blank');
  await openApp(page, link.search, link.hash);
  lap('fresh load ready');
  await expect(page.getByTestId('in-progress')).toContainText('step 3', { timeout: 60_000 });
  expect(await shownRows(page)).toEqual(prev);
  await expect(page.locator('#f-r\\.task')).toHaveValue(STEP_TASK);
  await expect(page.locator('#f-r\\.temp')).toHaveValue('0');
  await expect(page.locator('#f-m\\.model')).toHaveValue(SHIPPED);
  await page.screenshot({ path: shot('rollout-from-url'), fullPage: true });
  lap('url restore');

  // Benchmarks: 2 test tasks, greedy, real environment.
  const folder = await loadModelFolder(path.resolve('models', NAME));
  const settings = rolloutSettings(profileFromConfig(folder.rawConfig));
  const tasks = getWorld('retail').tasks({ split: 'test', count: 2 });
  const policy2 = await samplerFromFolder(folder, createNodeRuntime({ threads: 1 }), { mode: 'fast' });
  const { result } = await evaluate(tasks, policy2, {
    mode: 'real', k: 1, temperature: 0, seed: 0,
    rollout: { ...settings, act: { ...settings.act, maxNewTokens: MAX }, rehearse: { ...settings.rehearse, maxNewTokens: MAX }, limits: { ...settings.limits, maxAssistantTurns: TURNS } },
  });
  await policy2.release();
  // Hash-only navigation: the Benchmarks page reuses the warm worker.
  await page.goto(`/?backend=wasm#/benchmarks?m.model=${NAME}&b.world=retail&b.tasks=2&b.max=${MAX}&b.turns=${TURNS}`);
  await page.getByRole('button', { name: 'Run evaluation' }).click();
  const rows = page.getByTestId('bench-rows').locator('tbody tr');
  await expect(rows).toHaveCount(2, { timeout: 120_000 });
  await expect(rows.first()).toContainText(tasks[0]!.id);
  await expect(page.getByTestId('bench-summary')).toContainText('retail test · 2 tasks · real · k=1');
  for (const t of Object.keys(result.terminations)) await expect(page.getByTestId('bench-rows')).toContainText(t);
  const shown = JSON.parse((await page.getByTestId('bench-suite').getAttribute('data-json'))!) as Record<string, number>;
  expect(shown).toEqual(expect.objectContaining({
    success: result.success, outcome: result.outcome, checklist: result.checklist, passAtK: result.passAtK,
  }));
  await page.screenshot({ path: shot('benchmarks-run'), fullPage: true });
  lap('benchmarks');
});

test('rollout on WebGPU (?backend=webgpu): a short rehearsal run like Node, and a step', async ({ page }) => {
  const t0 = Date.now();
  // The same request in Node (onnxruntime-node CPU): envace-tiny, greedy, one assistant turn, 20 new tokens.
  const ref = (await nodeRollout(`models/${SHIPPED}`, STEP_TASK, 1, 0, 0, 20, 1))[0]!;
  // One Act (a call) and its Rehearse, then the turn cap: two short generations. Forced: in auto mode a
  // fallback adapter (SwiftShader here) loses to WASM at start (ux.spec.ts).
  const info = await openApp(page, '?backend=webgpu', `${STEP_HASH.replace('r.turns=4', 'r.turns=1')}&r.max=20`);
  expect(info.kind).toBe('webgpu');
  console.log(`[rollout webgpu] open: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  await expect(page.getByTestId('rollout-backend')).toHaveText('webgpu');
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await expect(page.getByTestId('run-status')).toContainText('full run', { timeout: 120_000 });
  const full = await shownRows(page);
  expect(full.length).toBe(2);
  // Same trajectory as Node, read from the page's own trace file (token ids and log-probs travel in it).
  // Greedy token ids must be equal: WebGPU's fp32 kernels sum in another order, which moves log-probs by
  // ~1e-5 here, far below the top-2 gaps of this trained model. Log-probs: within 2e-3, the engine spec's bound.
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('save-traces').click()]);
  const shown = importTraces(fs.readFileSync((await download.path())!, 'utf8'));
  expect(shown.errors).toEqual([]);
  const got = shown.trajectories[0]!;
  expect(got.rows.map((r) => r.role)).toEqual(ref.rows.map((r) => r.role));
  expect(got.rows.map((r) => r.outputIds)).toEqual(ref.rows.map((r) => r.outputIds));
  expect(got.rows.map((r) => r.text)).toEqual(ref.rows.map((r) => r.text));
  expect(full.map((r) => r[1])).toEqual(ref.rows.map((r) => r.text));
  let lpDiff = 0;
  got.rows.forEach((r, i) => { lpDiff = Math.max(lpDiff, maxAbsDiff(r.logprobs, ref.rows[i]!.logprobs)); });
  console.log(`[rollout webgpu] vs Node: ${got.rows.map((r) => r.outputIds.length).join('+')} tokens equal, max |Δ logprob| ${lpDiff.toExponential(2)}`);
  expect(lpDiff).toBeLessThan(2e-3);
  expect(got.terminatedBy).toBe(ref.terminatedBy);
  await expect(page.getByTestId('rehearse-row').getByTestId('real-panel')).not.toContainText('not recorded');
  await expect(page.getByTestId('rehearse-row').getByTestId('fidelity')).toContainText('field F1');
  console.log(`[rollout webgpu] run: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  await page.getByTestId('rollout-controls').getByRole('button', { name: /^Step/ }).click();
  await expect(page.getByTestId('run-status')).toContainText('1 generation', { timeout: 60_000 });
  const stepped = await shownRows(page);
  expect(stepped).toEqual(full.slice(0, 1));
  await page.screenshot({ path: shot('rollout-webgpu'), fullPage: true });
  console.log(`[rollout webgpu] ${((Date.now() - t0) / 1000).toFixed(1)} s, ${full.length} generations`);
});
