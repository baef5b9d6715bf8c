// Shared e2e helpers. Specs drive the page's own worker through window.__envace (the same RPCs the UI uses).

import type { Page } from '@playwright/test';
import * as ort from 'onnxruntime-node';
import type { BackendInfo } from '../src/worker/protocol';
import { buildSmokeGraph, smokeInput, SMOKE_SHAPE } from '../src/worker/smoke';

/** Open the app with an optional ?backend= and wait until the worker reports its backend. */
export async function openApp(page: Page, query = '', hash = ''): Promise<BackendInfo> {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`/${query}${hash}`);
  await page.waitForFunction(() => Boolean(window.__envace), null, { timeout: 30_000 });
  const info = await workerReady(page);
  if (errors.length) throw new Error(`page errors: ${errors.join('\n')}`);
  return info;
}

/**
 * The worker's init, settled. Not `evaluate(() => window.__envace.ready)`: the protocol holds the promise it awaits
 * weakly, and on a loaded box an init that takes seconds let it be collected ("Resulting promise was garbage
 * collected", once in a full clean-clone run). The page records the outcome; the test polls for it.
 */
export async function workerReady(page: Page, timeout = 60_000): Promise<BackendInfo> {
  await page.evaluate(() => {
    const w = window as unknown as { __envaceReadyOutcome?: { info?: BackendInfo; error?: string } };
    delete w.__envaceReadyOutcome;
    void window.__envace!.ready.then((info) => { w.__envaceReadyOutcome = { info }; }, (e) => { w.__envaceReadyOutcome = { error: String(e) }; });
  });
  const handle = await page.waitForFunction(() => (window as unknown as { __envaceReadyOutcome?: unknown }).__envaceReadyOutcome, null, { timeout });
  const outcome = await handle.jsonValue() as { info?: BackendInfo; error?: string };
  if (outcome.error !== undefined) throw new Error(`worker init failed: ${outcome.error}`);
  return outcome.info!;
}

/** Max absolute difference between two equal-length numeric arrays. */
export function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) throw new Error(`length mismatch ${a.length} vs ${b.length}`);
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i]! - b[i]!));
  return m;
}

export function shot(name: string): string {
  return `test-results/screenshots/${name}.png`;
}

/** The smoke graph's output on onnxruntime-node CPU: the reference for both browser backends. */
export async function nodeSmoke(): Promise<number[]> {
  const s = await ort.InferenceSession.create(buildSmokeGraph());
  const r = await s.run({ x: new ort.Tensor('float32', smokeInput(), [SMOKE_SHAPE.rows, SMOKE_SHAPE.inner]) });
  await s.release();
  return Array.from(r.y!.data as Float32Array);
}
