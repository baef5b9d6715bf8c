// Soak: a long in-browser training run of the built-in tiny model (WASM), started from the Train page.
// While it trains, the spec samples the training worker's WebAssembly memory (ORT's heap: it only ever
// grows, so a leak of tensors or sessions shows as growth) and the renderer processes' RSS, copies every
// checkpoint the worker writes to IndexedDB as it is written, decodes each in Node, and checks that the store
// ends holding the last one.
//
// Not part of `npm test` (300 steps take tens of minutes): playwright.config.ts lists this file only when
// ENVACE_SOAK=1, which `npm run soak` sets. SOAK_STEPS overrides the length (default 300); the figures (memory
// samples, checkpoints read, seconds) go as JSON to SOAK_OUT (default test-results/soak.json).

import fs from 'node:fs';
import path from 'node:path';
import { expect, test, type Page, type Worker } from '@playwright/test';
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

/**
 * Installed in every page worker that has IndexedDB: a copy of each checkpoint the worker writes, kept until
 * the spec drains it. The store keeps only the latest checkpoint per run, and on a loaded machine the page
 * can answer too late to read each one back before the next overwrites it (seen: a 30-step run outran it).
 */
function hookCheckpointWrites(): boolean {
  const g = self as unknown as { name?: string; __soakHooked?: boolean; __soakPuts?: { key: string; bytes: Uint8Array }[] };
  // Only the app's own workers (envace-compute, envace-train-N): ORT's wasm threads are workers too, and one
  // parked in Atomics.wait never answers an evaluate.
  if (typeof IDBObjectStore === 'undefined' || !/^envace-/.test(g.name ?? '')) return false;
  if (g.__soakHooked) return true;
  g.__soakHooked = true;
  g.__soakPuts = [];
  const put = IDBObjectStore.prototype.put;
  IDBObjectStore.prototype.put = function (this: IDBObjectStore, value: unknown, key?: IDBValidKey) {
    if (value instanceof Uint8Array) g.__soakPuts!.push({ key: String(key), bytes: value.slice() });
    return put.call(this, value, key);
  };
  return true;
}

function drainCheckpointWrites(): { key: string; b64: string }[] {
  const g = self as unknown as { __soakPuts?: { key: string; bytes: Uint8Array }[] };
  const xs = g.__soakPuts ?? [];
  if (g.__soakPuts) g.__soakPuts = [];
  return xs.map(({ key, bytes }) => {
    let s = '';
    for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    return { key, b64: btoa(s) };
  });
}

test(`soak: ${STEPS} training steps of the tiny model, flat worker memory, every checkpoint readable`, async ({ page }) => {
  test.setTimeout(Number(process.env.SOAK_TIMEOUT_S ?? 5400) * 1000);
  const t0 = Date.now();
  // Hooked as each worker starts (the training worker is its own, started by the Train page), before it
  // can write a checkpoint. A worker that does not answer within 20 s is left alone.
  const hooked = new Set<Worker>();
  const hookings: Promise<void>[] = [];
  page.on('worker', (w) => {
    hookings.push(Promise.race([w.evaluate(hookCheckpointWrites), new Promise<boolean>((res) => setTimeout(() => res(false), 20_000))])
      .then((ok) => { if (ok) hooked.add(w); }, () => {}));
  });
  const info = await openApp(page, '?backend=wasm', HASH);
  expect(info.kind).toBe('wasm');
  await page.getByRole('button', { name: 'Start', exact: true }).click();

  const samples: Sample[] = [];
  let nextSample = 0;
  /** At the worker's own step (the page's run record can lag it by many steps under load): every EVERY steps, or when forced. */
  const sample = async (force = false) => {
    const m = await page.evaluate(() => (window as unknown as WithHooks).__envaceTrain.api().trainDebugMemory());
    if (!force && m.step < nextSample) return;
    while (nextSample <= m.step) nextSample += EVERY;
    const s = { step: m.step, wasmMB: m.wasmBytes / MB, rendererMB: rendererRssBytes() / MB, at: (Date.now() - t0) / 1000 };
    samples.push(s);
    console.log(`[soak] step ${s.step}: wasm ${s.wasmMB.toFixed(1)} MB in ${m.memories} memory, renderer RSS ${s.rendererMB.toFixed(1)} MB, ${s.at.toFixed(0)} s`);
  };
  // A short run (SOAK_STEPS) may be done before the page shows it running.
  await expect.poll(async () => (await activeRun(page))?.state, { timeout: 120_000 }).toMatch(/^(running|done)$/);
  const runId = (await activeRun(page))!.runId;
  await Promise.all(hookings);
  expect(hooked.size, 'workers with IndexedDB hooked (the page\'s and the training worker)').toBeGreaterThanOrEqual(1);

  const decoded: number[] = [];
  const problems: string[] = [];
  let lastBytes: Buffer | null = null;
  const otherWrites: string[] = [];
  const readWritten = async () => {
    await Promise.all(hookings);
    for (const w of hooked) {
      for (const { key, b64 } of await w.evaluate(drainCheckpointWrites).catch(() => [])) {
        // The store keeps a run's checkpoint under its run id (and the run's request under `<id>#request`).
        if (key !== runId) { otherWrites.push(key); continue; }
        lastBytes = Buffer.from(b64, 'base64');
        try {
          const ck = decodeCheckpoint(new Uint8Array(lastBytes));
          const history = (ck.meta as { history: StepMetrics[] }).history;
          const params = ck.tensors['0.params']!;
          const finite = Object.values(params).every((t) => t.every(Number.isFinite));
          if (ck.runId !== runId || ck.step % CKPT !== 0 || history.length !== ck.step || !finite) {
            problems.push(`checkpoint under ${key}: runId ${ck.runId}, step ${ck.step}, history ${history.length}, finite ${finite}`);
          }
          decoded.push(ck.step);
          console.log(`[soak] checkpoint @${ck.step} decoded: ${lastBytes.length / 1024 | 0} KiB, history ${history.length}, finite ${finite}`);
        } catch (e) {
          problems.push(`checkpoint under ${key}: ${String(e)}`);
        }
      }
    }
  };

  for (;;) {
    await readWritten();
    await sample();
    const r = (await activeRun(page))!;
    if (r.state !== 'running' && r.state !== 'loading') {
      expect(r.error, 'run error').toBeNull();
      expect(r.state).toBe('done');
      break;
    }
    await page.waitForTimeout(400);
  }
  await readWritten();
  if (samples.at(-1)?.step !== STEPS) await sample(true);
  // What the store holds at the end is the last checkpoint written, read back through the app's own RPC.
  const storedB64 = await page.evaluate(async (id) => {
    const b = await (window as unknown as WithHooks).__envaceTrain.api().trainCheckpoint(id);
    if (!b) return null;
    let s = '';
    for (let i = 0; i < b.length; i += 0x8000) s += String.fromCharCode(...b.subarray(i, i + 0x8000));
    return btoa(s);
  }, runId);
  const storedMatchesLast = storedB64 !== null && lastBytes !== null && Buffer.from(storedB64, 'base64').equals(lastBytes);

  const total = (Date.now() - t0) / 1000;
  const base = samples.filter((s) => s.step <= STEPS / 3).at(-1)!;
  const last = samples.at(-1)!;
  // Growth after the first sampling interval: the largest later sample minus the first one at or past EVERY.
  const first = samples.find((s) => s.step >= EVERY) ?? last;
  const later = samples.filter((s) => s.step >= first.step);
  const growthAfter = {
    fromStep: first.step,
    wasmMB: Math.max(...later.map((s) => s.wasmMB)) - first.wasmMB,
    rendererMB: Math.max(...later.map((s) => s.rendererMB)) - first.rendererMB,
  };
  const summary = {
    steps: STEPS, checkpointEvery: CKPT, sampleEvery: EVERY, seconds: total, secondsPerStep: total / STEPS,
    checkpointsRead: decoded.length, checkpointsDecoded: decoded, storedMatchesLast, otherWrites, problems,
    first: samples[0], base, last, growthAfter, samples,
  };
  console.log(`[soak] ${JSON.stringify(summary)}`);
  // Written before the assertions so a failing run still leaves its figures.
  const out = process.env.SOAK_OUT ?? path.join('test-results', 'soak.json');
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, JSON.stringify(summary, null, 1) + '\n');

  // Every checkpoint the run wrote decodes to its own step with the full history; the store holds the last.
  expect(problems).toEqual([]);
  expect(decoded).toEqual(Array.from({ length: STEPS / CKPT }, (_, i) => (i + 1) * CKPT));
  expect(storedMatchesLast, 'the stored checkpoint is the last one written').toBe(true);
  // Flat: after the first third of the run (every shape the tiny tasks produce has been seen by then) the
  // wasm heap grows by at most 10%; the renderer's RSS (page charts and GC timing included) by at most 50%.
  expect(samples.length).toBeGreaterThanOrEqual(5);
  expect(last.wasmMB).toBeLessThanOrEqual(base.wasmMB * 1.1);
  expect(last.rendererMB).toBeLessThanOrEqual(base.rendererMB * 1.5);
});
