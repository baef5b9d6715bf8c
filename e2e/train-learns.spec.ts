// The Train page's default run visibly learns: the default preset (a shipped starter policy on a small pool of
// difficulty-1 files tasks, src/app/components/train/preset.ts) is started as a visitor would, on WASM, and runs
// to its last step within about five minutes. The spec prints the training reward over the first and last
// steps and the held-out success of the trainer's scheduled evaluations (step 0 and the last step), each with
// a 95% interval.
//
// Criterion (stated in the output): the training reward rose when the 95% Welch interval of
// mean(last W steps) − mean(first W steps) lies above 0 (each step's reward is one observation: the mean
// over its tasks × group). Held-out success is printed with Wilson intervals over the evaluation's tasks.

import { expect, test, type Page } from '@playwright/test';
import { DEFAULT_TRAIN_STARTER, TRAIN_DEFAULTS } from '../src/app/components/train/preset';
import type { RunRecord } from '../src/app/components/train/runs';
import { openApp, shot } from './helpers';

const BUDGET_MS = 300_000;

const activeRun = (page: Page) => page.evaluate(() => {
  const s = (window as unknown as { __envaceTrain: { runs(): { runs: RunRecord[]; activeId: string | null } } }).__envaceTrain.runs();
  return s.runs.find((r) => r.runId === s.activeId) ?? null;
});

/** Two-sided 97.5% quantile of Student's t for df ≥ 1 (table to 30, then the normal approximation). */
function t975(df: number): number {
  const T = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145, 2.131, 2.12, 2.11, 2.101, 2.093, 2.086, 2.08, 2.074, 2.069, 2.064, 2.06, 2.056, 2.052, 2.048, 2.045, 2.042];
  const d = Math.max(1, Math.floor(df));
  return d <= 30 ? T[d - 1]! : 1.96;
}

function summary(xs: number[]) {
  const n = xs.length;
  const mean = xs.reduce((a, b) => a + b, 0) / n;
  const v = n > 1 ? xs.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - 1) : 0;
  const h = t975(n - 1) * Math.sqrt(v / n);
  return { n, mean, v, ci: [mean - h, mean + h] as [number, number] };
}

/** Welch's 95% interval of mean(b) − mean(a). */
export function welch(a: number[], b: number[]) {
  const A = summary(a), B = summary(b);
  const se2 = A.v / A.n + B.v / B.n;
  const df = se2 === 0 ? 1e9 : se2 ** 2 / ((A.v / A.n) ** 2 / Math.max(1, A.n - 1) + (B.v / B.n) ** 2 / Math.max(1, B.n - 1));
  const d = B.mean - A.mean;
  const h = t975(df) * Math.sqrt(se2);
  return { diff: d, ci: [d - h, d + h] as [number, number], df };
}

/** Wilson 95% interval of a share p over n tasks. */
function wilson(p: number, n: number): [number, number] {
  const z = 1.96, z2 = z * z;
  const c = (p + z2 / (2 * n)) / (1 + z2 / n);
  const h = (z / (1 + z2 / n)) * Math.sqrt(p * (1 - p) / n + z2 / (4 * n * n));
  return [Math.max(0, c - h), Math.min(1, c + h)];
}

const f3 = (x: number) => x.toFixed(3);
const iv = (c: [number, number]) => `[${f3(c[0])}, ${f3(c[1])}]`;

test('the default preset fine-tunes the shipped starter and its training reward rises within five minutes (WASM)', async ({ page }) => {
  test.setTimeout(BUDGET_MS + 240_000);
  await openApp(page, '?backend=wasm', '#/train');
  // The default preset is the learning run on the shipped starter, and the page says what is being watched.
  await expect(page.locator('#f-t\\.model')).toHaveValue(DEFAULT_TRAIN_STARTER);
  const watching = page.getByTestId('train-watching');
  await expect(watching).toContainText(`starter policy ${DEFAULT_TRAIN_STARTER}`);
  await expect(watching).toContainText(`difficulty-${TRAIN_DEFAULTS.difficulty} files tasks`);
  console.log(`[train-learns] ${await watching.textContent()}`);

  const t0 = Date.now();
  await page.getByRole('button', { name: 'Start', exact: true }).click();
  // Wait for the end of the run or of the budget, then print what there is either way (a run that did not
  // finish in time still shows how far it got and how long its steps took).
  while (Date.now() - t0 < BUDGET_MS && (await page.getByTestId('train-state').textContent()) !== 'done') await page.waitForTimeout(2_000);
  const wallS = (Date.now() - t0) / 1000;
  const run = (await activeRun(page))!;
  await page.screenshot({ path: shot('train-learns'), fullPage: true });
  console.log(`[train-learns] state ${run.status?.state} after ${wallS.toFixed(0)} s: ${run.history.length} of ${run.request.spec.steps} steps, evals at ${run.evals.map((e) => `${e.step}: ${f3(e.success)}`).join(', ') || 'none'}; s/step ${run.history.map((m) => m.secondsPerStep.toFixed(1)).join(' ')}`);
  expect(run.status?.state, `the default run did not finish within ${BUDGET_MS / 1000} s`).toBe('done');

  const rewards = run.history.map((m) => m.reward);
  const W = Math.max(2, Math.min(4, Math.floor(rewards.length / 3)));
  const first = summary(rewards.slice(0, W)), last = summary(rewards.slice(-W));
  const d = welch(rewards.slice(0, W), rewards.slice(-W));
  const evStart = run.evals.find((e) => e.step === 0)!, evEnd = run.evals[run.evals.length - 1]!;
  const n = run.request.spec.evalTasks ?? TRAIN_DEFAULTS.evalTasks;
  console.log(`[train-learns] backend ${run.status?.backend}`);
  console.log(`[train-learns] reward per step: ${rewards.map(f3).join(' ')}`);
  console.log(`[train-learns] training reward, first ${W} steps: ${f3(first.mean)} ${iv(first.ci)}; last ${W} steps: ${f3(last.mean)} ${iv(last.ci)}; difference ${f3(d.diff)} ${iv(d.ci)} (Welch 95%, criterion: lower bound > 0)`);
  console.log(`[train-learns] held-out success (${n} difficulty-${TRAIN_DEFAULTS.difficulty} test tasks, greedy, real environment): step 0 ${f3(evStart.success)} ${iv(wilson(evStart.success, n))} → step ${evEnd.step} ${f3(evEnd.success)} ${iv(wilson(evEnd.success, n))}; checklist ${f3(evStart.checklist)} → ${f3(evEnd.checklist)}`);

  expect(run.history.length).toBe(run.request.spec.steps);
  expect(evEnd.step).toBe(run.request.spec.steps);
  // GRPO had something to work with: groups with different rewards gave non-zero advantages.
  expect(run.history.some((m) => m.advActAbs > 0)).toBe(true);
  expect(d.ci[0], `training reward did not rise: first ${W} ${f3(first.mean)} ${iv(first.ci)}, last ${W} ${f3(last.mean)} ${iv(last.ci)}`).toBeGreaterThan(0);
});
