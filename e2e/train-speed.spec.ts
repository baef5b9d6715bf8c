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
// steps either way, and would cost minutes). s/step: the mean of the trainer's own seconds per step over steps
// 2..N (step 1 also builds sessions); beside it the wall time between the step events the page received.

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

/**
 * Starts `req` in the worker and waits for STEPS steps; returns the trainer's own seconds per step (StepMetrics)
 * and the wall time (ms) at which each step's event reached the page. The worker answers RPCs only between steps,
 * so step ends are read from the page's run store, which the worker's events update as they happen: the run is
 * added to that store first (the page's listener ignores run ids it does not know).
 */
async function timedRun(page: Page, req: TrainRequest): Promise<{ seconds: number[]; ends: number[] }> {
  await page.evaluate(async (r) => {
    const w = (window as unknown as { __envaceTrain: { api(): TrainApi; ready(): Promise<unknown>; runs(): { runs: RunRecord[]; activeId: string | null } } }).__envaceTrain;
    const s = w.runs();
    const base = s.runs.find((x) => x.runId === s.activeId)!;
    s.runs.push({ ...base, runId: r.runId, label: r.label ?? r.runId, request: r, history: [], evals: [], logs: [], status: base.status && { ...base.status, runId: r.runId, state: 'loading', step: 0 } });
    await w.ready();
    await w.api().trainStart(r);
  }, req);
  const ends: number[] = [];
  let seconds: number[] = [];
  for (;;) {
    const h = await page.evaluate((id) => {
      const s = (window as unknown as { __envaceTrain: { runs(): { runs: RunRecord[] } } }).__envaceTrain.runs();
      const r = s.runs.find((x) => x.runId === id);
      return { seconds: r?.history.map((m) => m.secondsPerStep) ?? [], error: r?.error ?? null, state: r?.status?.state ?? null };
    }, req.runId);
    expect(h.error, `${req.runId}: ${h.error}`).toBeNull();
    while (ends.length < h.seconds.length) ends.push(Date.now());
    seconds = h.seconds;
    if (seconds.length >= STEPS || h.state === 'done' || h.state === 'error') break;
    await page.waitForTimeout(250);
  }
  await page.evaluate(() => (window as unknown as { __envaceTrain: { api(): TrainApi } }).__envaceTrain.api().trainStop());
  return { seconds: seconds.slice(0, STEPS), ends: ends.slice(0, STEPS) };
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

  const result: Record<string, { secondsPerStep: number[]; stepEventsS: number[]; meanSecondsPerStep: number; wallSecondsPerStep: number }> = {};
  for (const [name, referencePaths] of [['current', false], ['reference', true]] as const) {
    const req: TrainRequest = { ...preset, spec, runId: `bench-${name}-${Date.now().toString(36)}`, label: `bench ${name}`, referencePaths };
    const t0 = Date.now();
    const { seconds, ends } = await timedRun(page, req);
    expect(seconds.length, `${name}: only ${seconds.length} of ${STEPS} steps`).toBe(STEPS);
    const timed = seconds.slice(1);
    result[name] = {
      secondsPerStep: seconds.map((x) => Math.round(x * 100) / 100),
      stepEventsS: ends.map((t) => Math.round((t - t0) / 10) / 100),
      meanSecondsPerStep: Math.round((timed.reduce((a, b) => a + b, 0) / timed.length) * 100) / 100,
      wallSecondsPerStep: Math.round((ends[STEPS - 1] - ends[0]) / (STEPS - 1) / 10) / 100,
    };
    console.log(`[train-speed] ${name}: s/step ${result[name].secondsPerStep.join(' ')} (trainer), step events at ${result[name].stepEventsS.join(' ')} s`);
  }
  const figures = {
    format: 'envace-train-speed/1',
    command: `E2E_PORT=<port> ENVACE_BENCH_STEPS=${STEPS} npm run bench:browser`,
    backend: 'wasm', ...env,
    model: DEFAULT_TRAIN_STARTER, preset: TRAIN_DEFAULTS, spec, stepsTimed: `2..${STEPS}`,
    current: result.current, reference: result.reference,
    // Mean of the trainer's seconds per step over steps 2..N; the wall-clock ratio from the step events beside it.
    step_speedup_vs_reference: Math.round((result.reference.meanSecondsPerStep / result.current.meanSecondsPerStep) * 100) / 100,
    step_speedup_vs_reference_wall: Math.round((result.reference.wallSecondsPerStep / result.current.wallSecondsPerStep) * 100) / 100,
  };
  console.log(`[train-speed] JSON ${JSON.stringify(figures)}`);
  fs.mkdirSync('test-results', { recursive: true });
  fs.writeFileSync(path.join('test-results', 'train-speed.json'), JSON.stringify(figures, null, 2) + '\n');
  expect(result.current.meanSecondsPerStep).toBeGreaterThan(0);
  expect(result.reference.meanSecondsPerStep).toBeGreaterThan(0);
});
