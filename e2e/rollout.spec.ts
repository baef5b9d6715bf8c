// Rollout and Benchmarks pages: K trajectories of a built-in world task with the fixture model as policy,
// and a small held-out evaluation, run in the worker (WASM), rendered, and identical to the same calls in
// Node. One page (one worker start) for both: WASM init is the slow part on a loaded 2-core box.

import path from 'node:path';
import { expect, test } from '@playwright/test';
import { evaluate } from '../src/agent/evaluate';
import { profileFromConfig, rolloutSettings } from '../src/agent/profile';
import { rolloutGroups } from '../src/agent/rollout';
import type { Trajectory } from '../src/agent/types';
import { loadModelFolder } from '../src/engine/modelFolder';
import { createNodeRuntime } from '../src/engine/runtime-node';
import { samplerFromFolder } from '../src/engine/sampler';
import { getWorld } from '../src/envs/worlds';
import { openApp, shot } from './helpers';

const NAME = 'e2e-tiny';
const K = 2, SEED = 5, MAX = 12, TURNS = 2;

test('rollout and evaluation in the worker match Node and render', async ({ page }) => {
  const folder = await loadModelFolder(path.resolve('tmp/e2e-models', NAME));
  const policy = await samplerFromFolder(folder, createNodeRuntime({ threads: 1 }), { mode: 'fast' });
  const task = getWorld('retail').tasks({ split: 'test', count: 1 })[0]!;
  const settings = rolloutSettings(profileFromConfig(folder.rawConfig));
  const ref = await rolloutGroups([task], K, {
    ...settings, mode: 'rehearsal', policy, seed: SEED,
    act: { ...settings.act, temperature: 1, maxNewTokens: MAX }, rehearse: { ...settings.rehearse, temperature: 1, maxNewTokens: MAX },
    limits: { ...settings.limits, maxAssistantTurns: TURNS },
  });
  await policy.release();

  await openApp(page, '?backend=wasm', `#/rollout?m.model=${NAME}&r.k=${K}&r.seed=${SEED}&r.max=${MAX}&r.turns=${TURNS}`);
  await page.getByRole('button', { name: 'Run rollout' }).click();
  const timeline = page.getByTestId('rollout-timeline');
  await expect(timeline.locator('.traj-head')).toBeVisible({ timeout: 120_000 });
  await expect(timeline.locator('.traj-picker button')).toHaveCount(K);
  await expect(timeline.locator('.traj-head')).toContainText(`ended by ${ref[0]!.terminatedBy}`);
  await page.screenshot({ path: shot('rollout-run'), fullPage: true });

  // Same numbers as Node: compare the worker's trajectories (fetched through the same RPC) field by field.
  const got = await page.evaluate(async ([u, k, s, m, t]) => window.__envace!.api.rollout({
    modelUrl: u as string, world: 'retail', mode: 'rehearsal', k: k as number, seed: s as number,
    temperature: 1, maxTurns: t as number, maxNewTokens: m as number,
  }), [`/models/${NAME}/`, K, SEED, MAX, TURNS]) as Trajectory[];
  expect(got.map((t) => t.terminatedBy)).toEqual(ref.map((t) => t.terminatedBy));
  expect(got.map((t) => t.rows.map((r) => r.text))).toEqual(ref.map((t) => t.rows.map((r) => r.text)));
  expect(got.map((t) => t.reward)).toEqual(ref.map((t) => t.reward));

  // Benchmarks: 2 test tasks, greedy, real environment.
  const tasks = getWorld('retail').tasks({ split: 'test', count: 2 });
  const policy2 = await samplerFromFolder(folder, createNodeRuntime({ threads: 1 }), { mode: 'fast' });
  const { result } = await evaluate(tasks, policy2, {
    mode: 'real', k: 1, temperature: 0, seed: 0,
    rollout: { ...settings, act: { ...settings.act, maxNewTokens: MAX }, rehearse: { ...settings.rehearse, maxNewTokens: MAX }, limits: { ...settings.limits, maxAssistantTurns: TURNS } },
  });
  await policy2.release();
  await page.goto(`/?backend=wasm#/benchmarks?m.model=${NAME}&b.tasks=2&b.max=${MAX}&b.turns=${TURNS}`);
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
});
