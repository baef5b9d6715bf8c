// Soak: a long in-browser training run of the built-in tiny model (WASM), started from the Train page.
// While it trains, the spec samples the training worker's WebAssembly memory (ORT's heap: it only ever
// grows, so a leak of tensors or sessions shows as growth) and the renderer processes' RSS, and reads back
// every checkpoint the worker writes, decoding it in Node.
//
// Not part of `npm test` (300 steps take tens of minutes): playwright.config.ts lists this file only when
// ENVACE_SOAK=1, which `npm run soak` sets. SOAK_STEPS overrides the length (default 300); the figures (memory
// samples, checkpoints read, seconds) go as JSON to SOAK_OUT (default test-results/soak.json).

import fs from 'node:fs';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { decodeCheckpoint } from '../src/rl/checkpoint';
import type { StepMetrics } from '../src/rl/trainer';
import type { RunRecord } from '../src/app/components/train/runs';
import { openApp } from './helpers';

const STEPS = Number(process.env.SOAK_STEPS ?? 300);
const CKPT = 10;
/** Memory is sampled at every multiple of this step (and at step 0). */
const EVERY = Math.max(1, Math.min(25, Math.floor(STEPS / 4)));
const HASH = `#/train?t.model=builtin:tiny&t.world=files&t.diff=0&t.steps=${STEPS}&t.tasks=1&t.group=2&t.turns=2&t.max=8&t.mb=4&t.lr=0.01&t.seed=1&t.eval=0&t.ckpt=${CKPT}`;
const MB = 1024 * 1024;

interface Hooks {
  runs(): { runs: RunRecord[]; activeId: string | null };
  api(): { trainCheckpoint(id: string): Promise<Uint8Array | null>; trainDebugMemory(): Promise<{ wasmBytes: number; memories: number; step: number }> };
}
// Not a global declaration: train.spec.ts declares window.__envaceTrain with its own hook list.
type WithHooks = { __envaceTrain: Hooks };

const activeRun = (page: Page) => page.evaluate(() => {
  const s = (window as unknown as WithHooks).__envaceTrain.runs();
  const r = s.runs.find((x) => x.runId === s.activeId);
  return r ? { runId: r.runId, state: r.status?.state ?? null, step: r.history.at(-1)?.step ?? 0, checkpointStep: r.checkpointStep, error: r.error } : null;
});

/** RSS of every renderer process under this test worker's browser (the page and its workers live there). */
function rendererRssBytes(): number {
  const children = new Map<number, number[]>();
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const ppid = Number(/PPid:\s+(\d+)/.exec(fs.readFileSync(`/proc/${d}/status`, 'utf8'))![1]);
      (children.get(ppid) ?? children.set(ppid, []).get(ppid)!).push(Number(d));
    } catch { /* exited */ }
  }
  let rss = 0;
  const walk = (pid: number) => {
    for (const c of children.get(pid) ?? []) {
      try {
        if (fs.readFileSync(`/proc/${c}/cmdline`, 'utf8').includes('--type=renderer')) {
          rss += Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${c}/status`, 'utf8'))![1]) * 1024;
        }
      } catch { /* exited */ }
      walk(c);
    }
  };
  walk(process.pid);
  return rss;
}

interface Sample { step: number; wasmMB: number; rendererMB: number; at: number }

test(`soak: ${STEPS} training steps of the tiny model, flat worker memory, every checkpoint readable`, async ({ page }) => {
  test.setTimeout(Number(process.env.SOAK_TIMEOUT_S ?? 5400) * 1000);
  const t0 = Date.now();
  const info = await openApp(page, '?backend=wasm', HASH);
  expect(info.kind).toBe('wasm');
  await page.getByRole('button', { name: 'Start', exact: true }).click();

  const samples: Sample[] = [];
  const sample = async (step: number) => {
    const m = await page.evaluate(() => (window as unknown as WithHooks).__envaceTrain.api().trainDebugMemory());
    const s = { step, wasmMB: m.wasmBytes / MB, rendererMB: rendererRssBytes() / MB, at: (Date.now() - t0) / 1000 };
    samples.push(s);
    console.log(`[soak] step ${step} (worker at ${m.step}): wasm ${s.wasmMB.toFixed(1)} MB in ${m.memories} memory, renderer RSS ${s.rendererMB.toFixed(1)} MB, ${s.at.toFixed(0)} s`);
  };
  await expect.poll(async () => (await activeRun(page))?.state, { timeout: 120_000 }).toBe('running');
  await sample(0);

  const decoded: number[] = [];
  const problems: string[] = [];
  let lastCk = 0, nextSample = EVERY;
  for (;;) {
    const r = (await activeRun(page))!;
    if (r.checkpointStep > lastCk) {
      lastCk = r.checkpointStep;
      // Read back now: the next checkpoint overwrites this one.
      const b64 = await page.evaluate(async (id) => {
        const b = await (window as unknown as WithHooks).__envaceTrain.api().trainCheckpoint(id);
        if (!b) return null;
        let s = '';
        for (let i = 0; i < b.length; i += 0x8000) s += String.fromCharCode(...b.subarray(i, i + 0x8000));
        return btoa(s);
      }, r.runId);
      try {
        const ck = decodeCheckpoint(new Uint8Array(Buffer.from(b64!, 'base64')));
        const history = (ck.meta as { history: StepMetrics[] }).history;
        const params = ck.tensors['0.params']!;
        const finite = Object.values(params).every((t) => t.every(Number.isFinite));
        if (ck.runId !== r.runId || ck.step < lastCk || ck.step % CKPT !== 0 || history.length !== ck.step || !finite) {
          problems.push(`checkpoint @${lastCk}: runId ${ck.runId}, step ${ck.step}, history ${history.length}, finite ${finite}`);
        }
        decoded.push(ck.step);
        console.log(`[soak] checkpoint @${ck.step} read back: ${b64!.length * 3 / 4 / 1024 | 0} KiB, history ${history.length}, finite ${finite}`);
      } catch (e) {
        problems.push(`checkpoint @${lastCk}: ${String(e)}`);
      }
    }
    if (r.step >= nextSample) {
      await sample(r.step);
      while (nextSample <= r.step) nextSample += EVERY;
    }
    if (r.state !== 'running' && r.state !== 'loading') {
      expect(r.error, 'run error').toBeNull();
      expect(r.state).toBe('done');
      break;
    }
    await page.waitForTimeout(400);
  }
  if (samples.at(-1)!.step !== STEPS) await sample(STEPS);
  const total = (Date.now() - t0) / 1000;
  const summary = { steps: STEPS, checkpointEvery: CKPT, sampleEvery: EVERY, seconds: total, checkpointsRead: decoded.length, checkpointsDecoded: decoded, problems, samples };
  console.log(`[soak] ${JSON.stringify(summary)}`);
  // Written before the assertions so a failing run still leaves its figures.
  const out = process.env.SOAK_OUT ?? path.join('test-results', 'soak.json');
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, JSON.stringify(summary, null, 1) + '\n');

  // Every checkpoint the run wrote was read back and decodes to its own step with the full history.
  expect(problems).toEqual([]);
  expect(decoded).toEqual(Array.from({ length: STEPS / CKPT }, (_, i) => (i + 1) * CKPT));
  // Flat: after the first third of the run (every shape the tiny tasks produce has been seen by then) the
  // wasm heap grows by at most 10%; the renderer's RSS (page charts and GC timing included) by at most 50%.
  const base = samples.filter((s) => s.step <= STEPS / 3).at(-1)!;
  const last = samples.at(-1)!;
  expect(samples.length).toBeGreaterThanOrEqual(5);
  expect(last.wasmMB).toBeLessThanOrEqual(base.wasmMB * 1.1);
  expect(last.rendererMB).toBeLessThanOrEqual(base.rendererMB * 1.5);
});
