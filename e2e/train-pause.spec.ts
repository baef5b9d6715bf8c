// Issue 42 point 6: Pause stops after the step it names. The page names only the step the worker answered (its
// 'pausing' event), so wherever the click lands (inside a step, in the gap between two, on a page whose last progress
// is a step behind the worker) a named step is the step the run stops at. Read from what the page drew (an observer
// records every state of the pausing note, so a note shown for one frame still counts), the run log, the step
// counter and the worker's own status; nothing here depends on how long a step takes. Three Pauses in one run: one
// while the worker holds before a step (a debug hook: the note must name that step), two wherever they land.

import { expect, test, type Page } from '@playwright/test';
import { openApp } from './helpers';

test.use({ viewport: { width: 1440, height: 900 } });

// GRPO + real environment (Act only) on the tiny model the worker builds, with steps long enough (16 generations of
// up to 64 tokens) that the page keeps up with them: with the smallest steps (2 generations of 8 tokens) a loaded
// page spent its thread redrawing the charts after every step and acted on a click minutes late, after the run had
// ended. 60 steps, and holds (below) before steps 40 and 59, so the run is still going when each Pause is read.
const STEPS = 60;
const TRAIN = `#/train?t.model=builtin:tiny&t.mode=real&t.diff=0&t.pool=4000&t.world=files&t.steps=${STEPS}&t.tasks=4&t.group=4&t.turns=4&t.max=64&t.mb=8&t.seed=3&t.eval=0&t.ckpt=0`;

interface Drawn { named: string | null; note: string; counter: string; state: string }
type W = {
  __pauseNotes: Drawn[];
  __envaceTrain: {
    api(): { trainStatus(): Promise<{ state: string; step: number }>; trainDebugStallBefore(step: number): Promise<void>; trainDebugReleaseStall(): Promise<boolean> };
    runs(): { activeId: string; runs: { runId: string; history: { secondsPerStep: number }[] }[] };
  };
};

/** Records every distinct state of the pausing note with the step counter and run state beside it. */
async function observeNotes(page: Page): Promise<void> {
  await page.evaluate(() => {
    const seen: Drawn[] = [];
    (window as unknown as W).__pauseNotes = seen;
    const text = (id: string) => document.querySelector(`[data-testid=${id}]`)?.textContent ?? '';
    const read = () => {
      const note = document.querySelector('[data-testid=train-pausing]');
      if (!note) return;
      const row: Drawn = { named: note.querySelector('[data-testid=train-pausing-step]')?.textContent ?? null, note: note.textContent ?? '', counter: text('train-step'), state: text('train-state') };
      if (JSON.stringify(seen.at(-1)) !== JSON.stringify(row)) seen.push(row);
    };
    new MutationObserver(read).observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
  });
}

/** The steps the run log says the worker answered Pauses with, oldest first. */
async function answersInLog(page: Page): Promise<number[]> {
  const log = (await page.getByTestId('train-log').textContent()) ?? '';
  return [...log.matchAll(/pause read by the worker: the run stops after step (\d+)/g)].map((m) => Number(m[1]));
}

/**
 * After the `round`-th Pause: the run is paused at the step the worker answered (the run log's line), every step the
 * note named is that step, and the page's counter and the worker's own status agree. Returns the step and the names.
 */
async function expectStoppedWhereNamed(page: Page, round: number, label: string): Promise<{ step: number; named: string[] }> {
  await expect(page.getByTestId('train-state')).toHaveText('paused', { timeout: 300_000 });
  await expect.poll(async () => (await answersInLog(page)).length, { timeout: 60_000 }).toBe(round);
  const step = (await answersInLog(page))[round - 1]!;
  const drawn = await page.evaluate(() => (window as unknown as W).__pauseNotes.splice(0));
  const named = [...new Set(drawn.flatMap((d) => (d.named === null ? [] : [d.named])))];
  const counter = (await page.getByTestId('train-step').textContent()) ?? '';
  const worker = await page.evaluate(() => (window as unknown as W).__envaceTrain.api().trainStatus());
  const perStep = await page.evaluate(() => {
    const s = (window as unknown as W).__envaceTrain.runs();
    const h = s.runs.find((r) => r.runId === s.activeId)?.history ?? [];
    return h.reduce((a, m) => a + m.secondsPerStep, 0) / Math.max(1, h.length);
  });
  console.log(`[train-pause] ${label}: worker answered step ${step}; note drawn ${drawn.length} times (${drawn.map((d) => `${d.named ?? 'unnamed'} at ${d.counter}`).join(' → ')}); counter "${counter}"; worker ${worker.state} at step ${worker.step}; ${perStep.toFixed(2)} s per step`);
  // The note named no step but the worker's (a step read before the answer would be a guess), and never changed it.
  expect(named.every((n) => n === `step ${step}`), named.join(', ')).toBe(true);
  expect(counter).toBe(`step ${step} / ${STEPS}`);
  expect(worker).toMatchObject({ state: 'paused', step });
  await expect(page.getByTestId('train-pausing')).toHaveCount(0);
  return { step, named };
}

/**
 * Resume, wait for `ready`, Pause. A page that falls behind a fast worker (it redraws ten charts per step) could
 * click after the run ended; so the worker is held before step `holdAt`, which the run can reach but not pass on its
 * own, and released once it has answered the Pause (a no-op when it is not holding).
 */
async function pauseFreeRunning(page: Page, round: number, label: string, holdAt: number, ready: () => Promise<void>) {
  const bar = page.getByTestId('train-runbar');
  await page.evaluate((n) => (window as unknown as W).__envaceTrain.api().trainDebugStallBefore(n), holdAt);
  await bar.getByRole('button', { name: 'Resume', exact: true }).click();
  await ready();
  await bar.getByRole('button', { name: 'Pause', exact: true }).click();
  await expect.poll(async () => (await answersInLog(page)).length, { timeout: 300_000 }).toBe(round);
  await page.evaluate(() => (window as unknown as W).__envaceTrain.api().trainDebugReleaseStall());
  return expectStoppedWhereNamed(page, round, label);
}

test('Pause stops after the step it names: held before a step, mid-run, and just after a Resume', async ({ page }) => {
  test.setTimeout(600_000);
  await openApp(page, '?backend=wasm', TRAIN);
  const bar = page.getByTestId('train-runbar');
  const btn = (name: string) => bar.getByRole('button', { name, exact: true });
  await observeNotes(page);

  // 1: the worker holds before step 2 (a debug hook), so the Pause is read while the run is provably inside step 2:
  // the note names step 2; released, step 2 runs and the run stops there.
  await page.evaluate(() => (window as unknown as W).__envaceTrain.api().trainDebugStallBefore(2));
  await btn('Start').click();
  await expect(page.getByTestId('train-log')).toContainText('hanging before step 2', { timeout: 300_000 });
  await btn('Pause').click();
  await expect(page.getByTestId('train-pausing-step')).toHaveText('step 2', { timeout: 60_000 });
  expect(await page.evaluate(() => (window as unknown as W).__envaceTrain.api().trainDebugReleaseStall())).toBe(true);
  const held = await expectStoppedWhereNamed(page, 1, 'held before step 2');
  expect(held.step).toBe(2);
  expect(held.named).toEqual(['step 2']);

  // 2: resumed and paused wherever the click lands once a further step has finished (inside a step: the answer
  // comes mid-step and the note names it; at a step's end: the run stops as the answer arrives).
  const mid = await pauseFreeRunning(page, 2, 'mid-run', 40, async () => {
    await expect(page.getByTestId('train-step')).not.toHaveText(`step 2 / ${STEPS}`, { timeout: 300_000 });
  });
  expect(mid.step).toBeGreaterThanOrEqual(3);

  // 3: resumed and paused as soon as the page says it runs (often before the first resumed step ends).
  const next = await pauseFreeRunning(page, 3, 'just after Resume', STEPS - 1, async () => {
    await expect(page.getByTestId('train-state')).toHaveText('running', { timeout: 120_000 });
  });
  expect(next.step).toBeGreaterThanOrEqual(mid.step);
});
