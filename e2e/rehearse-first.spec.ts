// Rollout page, "rehearse first" (src/tts/ through the worker's rehearseFirst RPC), on WASM: a link with
// r.tts=2, r.ttss=sequential and autorun=1 restores the controls and runs; each user turn shows its two
// imagined attempts folded, each with a self-evaluation, then the memory, then the committed run; the real
// environment received exactly the committed calls; and the page's numbers equal a Node run of the same
// request (same memory text, same committed outputs).

import path from 'node:path';
import { expect, test } from '@playwright/test';
import { compactFormat } from '../src/agent/chatTemplate';
import { loadModelFolder } from '../src/engine/modelFolder';
import { createNodeRuntime } from '../src/engine/runtime-node';
import { samplerFromFolder } from '../src/engine/sampler';
import { taskById } from '../src/envs/worlds';
import { runTts } from '../src/tts/rehearse';
import { buildRolloutConfig } from '../src/worker/rollout-config';
import type { RehearseFirstRequest } from '../src/worker/protocol';
import { openApp, shot } from './helpers';

const MODEL = 'envace-tiny', TASK = 'files-40';
const HASH = `#/rollout?m.model=${MODEL}&r.world=files&r.task=${TASK}&r.k=1&r.temp=0&r.turns=4&r.tts=2&r.ttss=sequential&autorun=1`;

test('rehearse first: folded attempts with self-evaluations, memory, committed run; URL restores it; equals Node', async ({ page }) => {
  await openApp(page, '?backend=wasm', HASH);
  await expect(page.locator('#f-r\\.tts')).toHaveValue('2');
  await expect(page.locator('#f-r\\.ttss')).toHaveValue('sequential');
  const panel = page.getByTestId('rehearse-first');
  await expect(panel.getByTestId('rehearse-result')).toBeVisible({ timeout: 180_000 });
  await expect(panel.getByTestId('rehearse-status')).toContainText('exactly the committed ones');
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
  let ref;
  try {
    const { mode: _m, ...cfg } = buildRolloutConfig(folder.rawConfig, { ...req, mode: 'real' }, policy).cfg;
    ref = (await runTts([{ task: taskById(TASK), sample: 0, groupId: TASK }], { policy, format: compactFormat, cfg, opts: { n: 2, strategy: 'sequential', memory: 'full' } }))[0]!;
  } finally { await policy.release(); }
  const got = await page.evaluate((r) => window.__envace!.api.rehearseFirst(r), req);
  expect(got.runs[0]!.rehearsals.map((h) => h.memory)).toEqual(ref.rehearsals.map((h) => h.memory));
  expect(got.runs[0]!.trajectory.rows.map((r) => r.text)).toEqual(ref.trajectory.rows.map((r) => r.text));
  expect(got.runs[0]!.realMatchesCommitted).toBe(true);
  await expect(panel.getByTestId('tts-memory').first()).toHaveText(ref.rehearsals[0]!.memory);
  expect(nTurns).toBe(ref.rehearsals.length);
});
