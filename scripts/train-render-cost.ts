// How much main-thread work one training step costs the Train page (issue 42 point 6's lag): a fast run of the tiny
// model the worker builds (one task × 2 generations of up to 8 tokens, WASM) is started in headless Chromium, and
// while it runs the page records its long tasks (PerformanceObserver 'longtask', > 50 ms), the lateness of a 50 ms
// timer (how late a click would be handled), its localStorage writes, and how often each chart and the page itself
// rendered (counted by the Playwright build only: RunsChart.tsx countRender). Printed as JSON, per step.
// Needs the Playwright build: ENVACE_E2E=1 npx vite build --outDir tmp/dist-4276
// Run:   nice -n 15 npx tsx scripts/train-render-cost.ts --dist tmp/dist-4276 --port 4276 --steps 30 --runs 2
// --runs R runs R runs one after another on one page; run n is drawn beside the n−1 before it (the page overlays runs).

import { spawn } from 'node:child_process';
import { chromium } from '@playwright/test';

const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1]! : fallback;
};
const dist = arg('dist', 'tmp/dist-4276');
const port = Number(arg('port', '4276'));
const steps = Number(arg('steps', '30'));
const runs = Number(arg('runs', '2'));
const TRAIN = `#/train?t.model=builtin:tiny&t.mode=real&t.diff=0&t.pool=4000&t.world=files&t.steps=${steps}&t.tasks=1&t.group=2&t.turns=4&t.max=8&t.mb=8&t.seed=3&t.eval=0&t.ckpt=0`;

interface Probe { longMs: number; longCount: number; lagSum: number; lagMax: number; lags: number[]; writes: number; writeMs: number }
type W = { __probe: Probe; __envaceRenders?: Record<string, number>; __envaceTrain: { runs(): { activeId: string; runs: { runId: string; history: { secondsPerStep: number }[] }[] } } };

async function main(): Promise<void> {
  const server = spawn('npx', ['vite', 'preview', '--host', '127.0.0.1', '--port', String(port), '--strictPort', '--outDir', dist], { stdio: 'ignore', detached: true });
  const base = `http://127.0.0.1:${port}/`;
  for (let i = 0; ; i++) {
    if (await fetch(base).then((r) => r.ok, () => false)) break;
    if (i > 120) throw new Error(`no server on ${base}`);
    await new Promise((r) => setTimeout(r, 500));
  }
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium' });
  try {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await page.addInitScript(() => {
      const p: Probe = { longMs: 0, longCount: 0, lagSum: 0, lagMax: 0, lags: [], writes: 0, writeMs: 0 };
      (window as unknown as W).__probe = p;
      new PerformanceObserver((l) => { for (const e of l.getEntries()) { p.longMs += e.duration; p.longCount++; } }).observe({ type: 'longtask', buffered: true });
      let due = performance.now() + 50;
      setInterval(() => {
        const now = performance.now();
        const lag = Math.max(0, now - due);
        p.lagSum += lag; p.lagMax = Math.max(p.lagMax, lag); p.lags.push(lag);
        due = now + 50;
      }, 50);
      const setItem = Storage.prototype.setItem;
      Storage.prototype.setItem = function (k: string, v: string) {
        const t = performance.now();
        try { setItem.call(this, k, v); } finally { p.writes++; p.writeMs += performance.now() - t; }
      };
    });
    await page.goto(base + TRAIN);
    await page.evaluate(() => localStorage.clear());
    await page.reload();
    const out = [];
    for (let n = 1; n <= runs; n++) {
      await page.getByRole('button', { name: 'Start', exact: true }).waitFor();
      await page.waitForFunction(() => !document.querySelector<HTMLButtonElement>('.run-bar button.primary')?.disabled);
      await page.evaluate(() => { const w = window as unknown as W; Object.assign(w.__probe, { longMs: 0, longCount: 0, lagSum: 0, lagMax: 0, lags: [], writes: 0, writeMs: 0 }); });
      // RunsChart keeps its own reference to the counters: emptied in place.
      await page.evaluate(() => { const r = (window as unknown as W).__envaceRenders!; for (const k of Object.keys(r)) delete r[k]; });
      const t0 = Date.now();
      await page.getByRole('button', { name: 'Start', exact: true }).click();
      await page.getByTestId('train-state').filter({ hasText: /^done$/ }).waitFor({ timeout: 600_000 });
      const wall = (Date.now() - t0) / 1000;
      const got = await page.evaluate(() => {
        const w = window as unknown as W;
        const s = w.__envaceTrain.runs();
        const h = s.runs.find((r) => r.runId === s.activeId)?.history ?? [];
        const lags = [...w.__probe.lags].sort((a, b) => a - b);
        return { probe: { ...w.__probe, lags: undefined, lagP50: lags[Math.floor(lags.length / 2)] ?? 0, lagP95: lags[Math.floor(lags.length * 0.95)] ?? 0 }, renders: { ...(w.__envaceRenders ?? {}) }, workerSecondsPerStep: h.reduce((a, m) => a + m.secondsPerStep, 0) / Math.max(1, h.length), steps: h.length };
      });
      const per = (x: number) => Number((x / got.steps).toFixed(2));
      const chartRenders = Object.entries(got.renders).filter(([k]) => k !== 'page');
      out.push({
        run: n, runsOnChart: n, steps: got.steps, wallSeconds: wall, workerSecondsPerStep: Number(got.workerSecondsPerStep.toFixed(3)),
        longTaskMsPerStep: per(got.probe.longMs), longTasks: got.probe.longCount,
        timerLagMs: { p50: Math.round(got.probe.lagP50), p95: Math.round(got.probe.lagP95), max: Math.round(got.probe.lagMax) },
        storageWritesPerStep: per(got.probe.writes), storageWriteMsPerStep: per(got.probe.writeMs),
        pageRendersPerStep: per(got.renders.page ?? 0),
        chartRendersPerStep: per(chartRenders.reduce((a, [, v]) => a + v, 0)), charts: chartRenders.length,
        rendersPerChart: Object.fromEntries(chartRenders.map(([k, v]) => [k, v])),
      });
    }
    console.log(JSON.stringify({ protocol: { steps, runs, settings: TRAIN, viewport: '1440x900', chromium: browser.version() }, runs: out }, null, 2));
  } finally {
    await browser.close();
    if (server.pid) process.kill(-server.pid);
  }
}

void main().catch((e) => { console.error(e); process.exit(1); });
