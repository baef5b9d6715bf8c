// `npm run bench:tti`: time to interactive of the Rollout page (issue 24), measured, never asserted. Headless
// Chromium, auto backend (SwiftShader: a fallback WebGPU adapter, so the page starts on WASM and times WebGPU in the
// background), the e2e build served by vite preview. Each cold load is a fresh browser context (no HTTP cache, no
// IndexedDB: no remembered backend verdict, no stored trace); each warm load reloads that context (verdict
// remembered). Per load, ms after navigation start: first contentful paint, the skeleton or app shell on screen, the
// shipped trace on screen (banner + imagined and real panels), Run enabled, the WebGPU verdict in the status bar.
// Prints one JSON object and writes it to TTI_OUT (default docs/results/bench/tti.json).

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test, type Page } from '@playwright/test';

const LOADS = Number(process.env.TTI_LOADS ?? 5);
type Marks = { fcp?: number; skeleton?: number; trace?: number; run?: number; verdict?: number; probingAtRun?: number };

async function measure(page: Page, how: 'goto' | 'reload'): Promise<Marks> {
  if (how === 'goto') await page.goto('/');
  else await page.reload();
  await expect(page.getByRole('button', { name: 'Run', exact: true })).toBeEnabled({ timeout: 120_000 });
  await page.waitForFunction(() => (window as unknown as { __tti: Marks }).__tti.run !== undefined);
  // The verdict: timed in the background (cold) or remembered (warm): wait until the status bar has it.
  await expect(page.getByTestId('backend-kind')).toHaveAttribute('data-timing', /webgpuMs/, { timeout: 180_000 });
  await page.waitForFunction(() => (window as unknown as { __tti: Marks }).__tti.verdict !== undefined);
  return page.evaluate(() => {
    const m = (window as unknown as { __tti: Marks }).__tti;
    const fcp = performance.getEntriesByName('first-contentful-paint')[0]?.startTime;
    return { ...m, fcp };
  });
}

const median = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); return s.length ? s[Math.floor((s.length - 1) / 2)]! : NaN; };

test('time to interactive of the Rollout page (printed, written to JSON)', async ({ browser }) => {
  test.setTimeout(1_800_000);
  const init = () => {
    const w = window as unknown as { __tti: Marks };
    w.__tti = {};
    const seen = (sel: string) => { const el = document.querySelector(sel); if (!el) return false; const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
    const tick = () => {
      const t = performance.now();
      if (w.__tti.skeleton === undefined && (seen('[data-testid=boot-skeleton]') || seen('.topbar'))) w.__tti.skeleton = t;
      if (w.__tti.trace === undefined && seen('[data-testid=demo-banner]') && seen('[data-testid=imagined-panel]') && seen('[data-testid=real-panel]')) w.__tti.trace = t;
      const run = [...document.querySelectorAll('button')].find((b) => b.textContent === 'Run') as HTMLButtonElement | undefined;
      if (w.__tti.run === undefined && run && !run.disabled) {
        w.__tti.run = t;
        w.__tti.probingAtRun = document.querySelector('[data-testid=backend-kind]')?.getAttribute('data-probing') === 'true' ? 1 : 0;
      }
      if (w.__tti.verdict === undefined && document.querySelector('[data-testid=backend-kind]')?.getAttribute('data-timing')) w.__tti.verdict = t;
      if (w.__tti.verdict === undefined || w.__tti.run === undefined || w.__tti.trace === undefined) requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  };
  // Warm the static server once (a host serving dist/ has no first-request cost); browser caches stay cold.
  const warm = await browser.newContext();
  await (await warm.newPage()).request.get('/');
  await warm.close();
  const cold: Marks[] = [];
  const remembered: Marks[] = [];
  for (let i = 0; i < LOADS; i++) {
    const ctx = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await ctx.newPage();
    await page.addInitScript(init);
    cold.push(await measure(page, 'goto'));
    remembered.push(await measure(page, 'reload'));
    await ctx.close();
    console.log(`[tti] load ${i + 1}: cold ${JSON.stringify(cold[i])} · verdict remembered ${JSON.stringify(remembered[i])}`);
  }
  const summary = (ms: Marks[]) => Object.fromEntries((['fcp', 'skeleton', 'trace', 'run', 'verdict'] as const).map((k) => [k, { median: Math.round(median(ms.map((m) => m[k]!).filter(Number.isFinite))), all: ms.map((m) => Math.round(m[k] ?? NaN)) }]));
  const out = {
    what: 'Rollout page time to interactive, ms after navigation start (headless Chromium, auto backend on SwiftShader: WASM computes, WebGPU timed in the background; vite preview of the e2e build)',
    command: 'npm run bench:tti',
    loads: LOADS,
    targets: { skeleton: 1500, trace: 3000, run: 5000 },
    cold: summary(cold),
    verdictRemembered: summary(remembered),
    runBeforeVerdict: cold.every((m) => m.probingAtRun === 1 && m.run! < m.verdict!),
    machine: { cpus: os.cpus().length, loadavg: os.loadavg().map((x) => Number(x.toFixed(2))) },
    at: new Date().toISOString(),
  };
  console.log(JSON.stringify(out));
  const file = process.env.TTI_OUT ?? 'docs/results/bench/tti.json';
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(out, null, 1)}\n`);
});
