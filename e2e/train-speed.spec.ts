// Browser benchmark (issue 9): seconds per GRPO step of the Train page's default preset on WASM, on today's paths
// (packed update, sampler with prefix tree and cache) and on the paths they replaced (row-by-row padded update,
// the earlier sampler without prefix cache: the worker's `referencePaths` option, src/bench/reference-paths.ts),
// one after the other in the same page and worker. Not part of `npm test`: `E2E_PORT=<port> npm run bench:browser`
// (ENVACE_BENCH_BROWSER=1; ENVACE_BENCH_STEPS steps per path, default 3). Prints one JSON line and writes
// test-results/train-speed.json.
//
// The request is the one the page builds for its default preset (src/app/components/train/preset.ts, read, never
// restated here): Start is clicked as a visitor would, the request is taken from the run record, and that run is
// stopped at once. Both measured runs then use it with held-out evaluation off (evaluations lie outside the timed
// steps either way, and would cost minutes). s/step: wall time from the end of step 1 to the end of step N, over
// N − 1 (step 1 also builds sessions), polled from the page every 250 ms.

import fs from 'node:fs';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { DEFAULT_TRAIN_STARTER, TRAIN_DEFAULTS } from '../src/app/components/train/preset';
import type { RunRecord } from '../src/app/components/train/runs';
import type { TrainRequest } from '../src/worker/protocol';
import { openApp } from './helpers';

const STEPS = Math.max(2, Number(process.env.ENVACE_BENCH_STEPS ?? 3));

type TrainApi = {
  trainStart(req: TrainRequest): Promise<{ state: string }>;
  trainStatus(): Promise<{ runId: string | null; state: string; step: number; error?: string }>;
  trainStop(): Promise<unknown>;
};

const activeRequest = (page: Page) => page.evaluate(() => {
  const s = (window as unknown as { __envaceTrain: { runs(): { runs: RunRecord[]; activeId: string | null } } }).__envaceTrain.runs();
  return s.runs.find((r) => r.runId === s.activeId)?.request ?? null;
});

/** Starts `req` in the worker and returns the wall time (ms) at which each step 1..STEPS ended. */
async function timedRun(page: Page, req: TrainRequest): Promise<number[]> {
  await page.evaluate(async (r) => {
    const w = (window as unknown as { __envaceTrain: { api(): TrainApi; ready(): Promise<unknown> } }).__envaceTrain;
    await w.ready();
    await w.api().trainStart(r);
  }, req);
  const ends: number[] = [];
  let seen = 0;
  for (;;) {
    const st = await page.evaluate(() => (window as unknown as { __envaceTrain: { api(): TrainApi } }).__envaceTrain.api().trainStatus());
    expect(st.state, st.error).not.toBe('error');
    while (st.runId === req.runId && st.step > seen) { seen++; ends.push(Date.now()); }
    if (seen >= STEPS || (st.runId === req.runId && st.state === 'done')) break;
    await page.waitForTimeout(250);
  }
  await page.evaluate(() => (window as unknown as { __envaceTrain: { api(): TrainApi } }).__envaceTrain.api().trainStop());
  return ends;
}

test('seconds per step of the default preset on WASM: packed update and current sampler vs the reference paths', async ({ page }) => {
  test.setTimeout(40 * 60_000);
  await openApp(page, '?backend=wasm', '#/train');
  await expect(page.locator('#f-t\\.model')).toHaveValue(DEFAULT_TRAIN_STARTER);
  await page.getByRole('button', { name: 'Start', exact: true }).click();
  await expect.poll(() => activeRequest(page), { timeout: 60_000 }).not.toBeNull();
  const preset = (await activeRequest(page))!;
  await page.evaluate(() => (window as unknown as { __envaceTrain: { api(): TrainApi } }).__envaceTrain.api().trainStop());
  const env = await page.evaluate(() => ({ crossOriginIsolated: self.crossOriginIsolated, hardwareConcurrency: navigator.hardwareConcurrency }));
  const spec = { ...preset.spec, evalEvery: 0, steps: Math.max(STEPS, preset.spec.steps ?? STEPS) };

  const result: Record<string, { stepEndsS: number[]; secondsPerStep: number }> = {};
  for (const [name, referencePaths] of [['current', false], ['reference', true]] as const) {
    const req: TrainRequest = { ...preset, spec, runId: `bench-${name}-${Date.now().toString(36)}`, label: `bench ${name}`, referencePaths };
    const t0 = Date.now();
    const ends = await timedRun(page, req);
    expect(ends.length, `${name}: only ${ends.length} of ${STEPS} steps`).toBe(STEPS);
    result[name] = {
      stepEndsS: ends.map((t) => Math.round((t - t0) / 10) / 100),
      secondsPerStep: Math.round((ends[STEPS - 1] - ends[0]) / (STEPS - 1) / 10) / 100,
    };
    console.log(`[train-speed] ${name}: step ends at ${result[name].stepEndsS.join(' ')} s; ${result[name].secondsPerStep} s/step`);
  }
  const figures = {
    format: 'envace-train-speed/1',
    command: `E2E_PORT=<port> ENVACE_BENCH_STEPS=${STEPS} npm run bench:browser`,
    backend: 'wasm', ...env,
    model: DEFAULT_TRAIN_STARTER, preset: TRAIN_DEFAULTS, spec, stepsTimed: `2..${STEPS}`,
    current: result.current, reference: result.reference,
    step_speedup_vs_reference: Math.round((result.reference.secondsPerStep / result.current.secondsPerStep) * 100) / 100,
  };
  console.log(`[train-speed] JSON ${JSON.stringify(figures)}`);
  fs.mkdirSync('test-results', { recursive: true });
  fs.writeFileSync(path.join('test-results', 'train-speed.json'), JSON.stringify(figures, null, 2) + '\n');
  expect(result.current.secondsPerStep).toBeGreaterThan(0);
  expect(result.reference.secondsPerStep).toBeGreaterThan(0);
});
