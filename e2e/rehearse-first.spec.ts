// Rollout page, "rehearse first" (src/tts/ through the worker's rehearseFirst RPC), on WASM: a link with
// r.tts=2, r.ttss=sequential, r.ttsstep=3 and autorun=1 restores the controls, runs, and shows the run stepped
// to its third event; Run to end shows each user turn's two imagined attempts folded, each with a
// self-evaluation, then the memory, then the committed run; the real environment received exactly the
// committed calls; and the page's numbers equal a Node run of the same request (same memory text, same
// committed outputs), and says whether rehearsing changed the outcome against the same seed without it. Step then works through every event in the order rehearseEvents gives (attempt
// generations one by one, self-evaluations, memory, committed generations), the current one marked and
// nothing after it shown, and the URL follows the cursor. Then a running rehearsal is cancelled: the worker's
// run stops within 2 s and the panel says cancelled, with no results.

import path from 'node:path';
import { expect, test } from '@playwright/test';
import { compactFormat } from '../src/agent/chatTemplate';
import { loadModelFolder } from '../src/engine/modelFolder';
import { createNodeRuntime } from '../src/engine/runtime-node';
import { samplerFromFolder } from '../src/engine/sampler';
import { taskById } from '../src/envs/worlds';
import { rehearsalEffect, runTts } from '../src/tts/rehearse';
import { rehearseEvents } from '../src/app/components/rollout/rehearseSteps';
import { buildRolloutConfig } from '../src/worker/rollout-config';
import type { RehearseFirstRequest } from '../src/worker/protocol';
import { openApp, shot } from './helpers';

const MODEL = 'envace-tiny', TASK = 'files-40';
const SETTINGS = `m.model=${MODEL}&r.world=files&r.task=${TASK}&r.k=1&r.temp=0&r.turns=4`;
// r.ttsp: rehearse with the same tiny policy (the panel otherwise defaults to a memory-trained starter, issue 42).
const HASH = `#/rollout?${SETTINGS}&r.tts=2&r.ttsp=${MODEL}&r.ttss=sequential&r.ttsstep=3&autorun=1`;

test('rehearse first: folded attempts with self-evaluations, memory, committed run; URL restores it; equals Node; Step works through it; Cancel stops it', async ({ page }) => {
  await openApp(page, '?backend=wasm', HASH);
  await expect(page.locator('#f-r\\.tts')).toHaveValue('2');
  await expect(page.locator('#f-r\\.ttss')).toHaveValue('sequential');
  const panel = page.getByTestId('rehearse-first');
  await expect(panel.getByTestId('rehearse-result')).toBeVisible({ timeout: 180_000 });
  await expect(panel.getByTestId('rehearse-status')).toContainText('exactly the committed ones');
  // The link's step cursor is restored: three events shown (attempt 1's first generations), nothing after.
  await expect(panel.getByTestId('rehearse-step-label')).toContainText(/^event 3 of \d+: turn 1 · imagined attempt [12] · /);
  await expect(panel.locator('[data-current="true"]')).toHaveCount(1);
  expect(await panel.locator('[data-testid=tts-gen], [data-testid=tts-eval]').count()).toBe(3);
  await expect(panel.getByTestId('tts-memory')).toHaveCount(0);
  await expect(panel.getByTestId('trajectory')).toHaveCount(0);
  await panel.getByTestId('rehearse-to-end').click();
  await expect(panel.getByTestId('rehearse-step-label')).toHaveCount(0);
  expect(page.url()).not.toContain('r.ttsstep');
  const turns = panel.getByTestId('tts-turn');
  const nTurns = await turns.count();
  expect(nTurns).toBeGreaterThanOrEqual(1);
  const attempts = turns.first().getByTestId('tts-attempt');
  await expect(attempts).toHaveCount(2);
  // Folded until opened; each holds its self-evaluation.
  expect(await attempts.first().evaluate((d) => (d as HTMLDetailsElement).open)).toBe(false);
  await attempts.first().locator('summary').click();
  await expect(attempts.first().getByTestId('tts-eval')).toContainText('rule-based');
  await expect(attempts.first().getByTestId('tts-eval')).toContainText('assessment');
  await expect(turns.first().getByTestId('tts-state-ok')).toHaveText('yes');
  await expect(panel.getByTestId('trajectory')).toBeVisible();
  await page.screenshot({ path: shot('rollout-rehearse-first'), fullPage: true });

  // The same request in Node: same memory, same committed outputs.
  const req: RehearseFirstRequest = { modelUrl: `/models/${MODEL}/`, world: 'files', taskId: TASK, k: 1, seed: 0, temperature: 0, maxTurns: 4, maxNewTokens: 128, topP: 1, topK: 0, n: 2, strategy: 'sequential', memory: 'full' };
  const folder = await loadModelFolder(path.resolve('models', MODEL));
  const policy = await samplerFromFolder(folder, createNodeRuntime({ threads: 1 }), { mode: 'fast' });
  let ref, base;
  try {
    const { mode: _m, ...cfg } = buildRolloutConfig(folder.rawConfig, { ...req, mode: 'real' }, policy).cfg;
    ref = (await runTts([{ task: taskById(TASK), sample: 0, groupId: TASK }], { policy, format: compactFormat, cfg, opts: { n: 2, strategy: 'sequential', memory: 'full' } }))[0]!;
    base = (await runTts([{ task: taskById(TASK), sample: 0, groupId: TASK }], { policy, format: compactFormat, cfg, opts: { n: 0, strategy: 'sequential', memory: 'full' } }))[0]!;
  } finally { await policy.release(); }
  const got = await page.evaluate((r) => window.__envace!.api.rehearseFirst(r), req);
  expect(got.runs[0]!.rehearsals.map((h) => h.memory)).toEqual(ref.rehearsals.map((h) => h.memory));
  expect(got.runs[0]!.trajectory.rows.map((r) => r.text)).toEqual(ref.trajectory.rows.map((r) => r.text));
  expect(got.runs[0]!.realMatchesCommitted).toBe(true);
  await expect(panel.getByTestId('tts-memory').first()).toHaveText(ref.rehearsals[0]!.memory);
  expect(nTurns).toBe(ref.rehearsals.length);
  // Whether rehearsing changed the committed outcome, against the same seed run without it (N = 0) in Node.
  const effect = rehearsalEffect(ref.trajectory, base.trajectory);
  expect(got.runs[0]!.againstNoRehearsal).toEqual(effect);
  const effectLine = panel.getByTestId('rehearse-effect');
  await expect(effectLine).toHaveAttribute('data-effect', effect.effect);
  await expect(effectLine).toContainText(`the same seed without: ${effect.baselineSuccess ? 'success' : 'failure'}, reward ${Number(effect.baselineReward.toFixed(2))}`);

  // Step through all of it: one event per click, in the order of the run, the current one marked, nothing
  // after it shown. (dispatchEvent: Playwright's actionability waits cost seconds each on a loaded box.)
  const run = got.runs[0]!;
  const events = rehearseEvents(run);
  const kinds = events.map((e) => e.kind);
  expect(kinds.filter((k) => k === 'memory')).toHaveLength(ref.rehearsals.length);
  expect(kinds.at(-1)).toBe('commit-gen');
  const count = (upTo: number, kind: string) => kinds.slice(0, upTo).filter((k) => k === kind).length;
  const step = panel.getByTestId('rehearse-step');
  for (let i = 1; i <= events.length; i++) {
    await step.dispatchEvent('click');
    const e = events[i - 1]!;
    await expect(panel.getByTestId('rehearse-step-label')).toContainText(new RegExp(`^event ${i} of ${events.length}: turn ${e.turn + 1} · `));
    const cur = panel.locator('[data-current="true"]');
    await expect(cur).toHaveCount(1);
    if (e.kind === 'commit-gen') await expect(cur).toHaveAttribute('data-step', String(run.trajectory.rows[e.row]!.step));
    else await expect(cur).toHaveAttribute('data-event', e.kind);
    await expect(panel.getByTestId('tts-gen')).toHaveCount(count(i, 'attempt-gen'));
    await expect(panel.getByTestId('tts-eval')).toHaveCount(count(i, 'self-eval'));
    await expect(panel.locator('[data-event=memory]')).toHaveCount(count(i, 'memory'));
    await expect(panel.locator('.tts-committed [data-testid=act-row]')).toHaveCount(count(i, 'commit-gen'));
    if (i === 1 || i === events.length) expect(page.url()).toContain(`r.ttsstep=${i}`);
  }
  // The end: the committed run is whole (reward shown), Step has nothing left, Back goes one event back.
  await expect(step).toBeDisabled();
  await expect(panel.getByTestId('reward')).toHaveText(/\d/);
  await page.screenshot({ path: shot('rollout-rehearse-first-stepped'), fullPage: true });
  await panel.getByTestId('rehearse-back').dispatchEvent('click');
  await expect(panel.getByTestId('rehearse-step-label')).toContainText(`event ${events.length - 1} of ${events.length}`);
  await expect(panel.locator('.tts-committed [data-testid=act-row]')).toHaveCount(count(events.length - 1, 'commit-gen'));
  expect(page.url()).toContain(`r.ttsstep=${events.length - 1}`);

  // Cancel (same page: the model is loaded). The worker stops before its next batch of generations, so the
  // wait is the rest of the batch in flight (here one generation: sequential, k = 1); short generations
  // (r.max=32) keep that under 2 s even on a loaded 2-core box (at 128 tokens and load ~20: 2.5 s measured).
  await page.evaluate((h) => { location.hash = h; }, `#/rollout?${SETTINGS}&r.max=32&r.tts=4&r.ttss=sequential`);
  await expect(page.locator('#f-r\\.tts')).toHaveValue('4');
  await panel.getByTestId('rehearse-run').click();
  await expect(panel.getByTestId('rehearse-result')).toHaveCount(0); // a new run hides the old one at once
  // Progress names the attempt and the turn while it runs.
  await expect(panel.getByTestId('rehearse-progress-counts')).toContainText(/imagined attempts \d+ of at most \d+ · turn 1 · rehearsing attempt [1-4] of 4, round \d+/, { timeout: 60_000 });
  await panel.getByTestId('rehearse-cancel').dispatchEvent('click');
  const cancelled = panel.getByTestId('rehearse-cancelled');
  await expect(cancelled).toBeVisible({ timeout: 10_000 });
  const ms = Number(await cancelled.getAttribute('data-cancel-ms'));
  expect(ms).toBeGreaterThan(0);
  expect(ms).toBeLessThan(2_000);
  await expect(cancelled).toContainText(/rehearse first stopped after \d+ generations? \(\d+ imagined attempts, \d+ real calls\)/);
  await expect(panel.getByTestId('rehearse-result')).toHaveCount(0);
  await expect(panel.getByTestId('rehearse-progress')).toHaveCount(0);
  // The worker holds no rehearse-first run any more (a cancel now has nothing to stop).
  expect(await page.evaluate(() => window.__envace!.api.rehearseFirstCancel())).toBe(false);
  console.log(`rehearse first: cancel took ${ms} ms from the click to the worker's rejection; ${await cancelled.textContent()}`);
});
