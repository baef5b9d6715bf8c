// npm run bench:ort -- --dist before=DIR --dist after=DIR [--backends wasm,webgpu] [--reps 1] [--steps 4] [--out FILE.json]
// Training and sampling speed of Playwright builds (`ENVACE_E2E=1 npx vite build --outDir DIR`: the Train page's
// window.__envaceTrain and the worker's window.__envace hooks) side by side in one browser, to compare ORT copies
// (issue 39). Each build is served by `vite preview` (this vite.config.ts, so COOP/COEP and threads); headless
// /usr/bin/chromium with the Playwright launch flags (software WebGPU adapter where the machine has no GPU). Per
// repetition, backend and build (order of the builds alternates between repetitions), one fresh context:
//  - sampling: the page's worker loads /models/<model>/ (its load already generates one throwaway token), then
//    `samples` generations of `tokens` new tokens (temperature 1, seeds 1..n): tokens/s of each;
//  - training: the Train page's Start with a small spec (files world, `steps` steps of 2 tasks x group 2, 2 turns, no
//    evaluation, no checkpoint): the trainer's own seconds of each step (step 1 builds the sessions).
// Timings only, printed as JSON; nothing asserts a bound.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { chromium, type Page } from '@playwright/test';

process.env.ENVACE_E2E = '1'; // vite.config.ts: the Playwright build's preview headers
const { preview } = await import('vite');

const { values: a } = parseArgs({
  options: {
    dist: { type: 'string', multiple: true }, backends: { type: 'string', default: 'wasm,webgpu' }, reps: { type: 'string', default: '1' },
    steps: { type: 'string', default: '4' }, model: { type: 'string', default: 'files-starter' }, samples: { type: 'string', default: '3' },
    tokens: { type: 'string', default: '48' }, out: { type: 'string' },
  },
});
const root = path.resolve(import.meta.dirname, '..');
const log = (s: string) => process.stderr.write(`bench:ort: ${s}\n`);
const dists = (a.dist ?? []).map((d) => { const [label, dir] = d.includes('=') ? [d.slice(0, d.indexOf('=')), d.slice(d.indexOf('=') + 1)] : [d, d]; return { label: label!, dir: path.resolve(dir!) }; });
if (!dists.length) throw new Error('give at least one --dist LABEL=DIR (a Playwright build: ENVACE_E2E=1 npx vite build --outDir DIR)');
const backends = a.backends!.split(',');
const reps = Number(a.reps), steps = Math.max(2, Number(a.steps)), samples = Number(a.samples), tokens = Number(a.tokens);
const trainHash = `#/train?t.model=${a.model}&t.world=files&t.steps=${steps}&t.tasks=2&t.group=2&t.turns=2&t.seed=3&t.eval=0&t.ckpt=0`;

interface Measured { build: string; backend: string; rep: number; ortVersion: string; adapter: string; tokensPerSecond: number[]; outputTokens: number[]; secondsPerStep: number[]; error?: string }

async function measure(page: Page, base: string, backend: string): Promise<Omit<Measured, 'build' | 'backend' | 'rep'>> {
  const pageErrors: string[] = [];
  page.on('pageerror', (e) => pageErrors.push(e.message));
  await page.goto(`${base}?backend=${backend}${trainHash}`);
  await page.waitForFunction(() => Boolean((window as { __envace?: unknown }).__envace), null, { timeout: 60_000 });
  const info = await page.evaluate(() => (window as unknown as { __envace: { ready: Promise<{ kind: string; ortVersion: string; adapter?: { vendor?: string; architecture?: string; isFallbackAdapter?: boolean } }> } }).__envace.ready);
  if (info.kind !== backend) throw new Error(`asked for ${backend}, the worker runs ${info.kind}`);
  const adapter = info.adapter ? `${info.adapter.vendor ?? ''} ${info.adapter.architecture ?? ''}${info.adapter.isFallbackAdapter ? ' (fallback adapter)' : ''}`.trim() : '';

  const sampled = await page.evaluate(async ({ model, samples, tokens }) => {
    const api = (window as unknown as { __envace: { api: { loadModel(u: string): Promise<unknown>; sample(r: object): Promise<{ tokensPerSecond: number; outputTokens: number }> } } }).__envace.api;
    await api.loadModel(`/models/${model}/`);
    const out: { tokensPerSecond: number; outputTokens: number }[] = [];
    for (let i = 1; i <= samples; i++) out.push(await api.sample({ prompt: 'list the files in the project folder', maxNewTokens: tokens, temperature: 1, topP: 1, topK: 0, seed: i }));
    await (api as unknown as { unloadModel(): Promise<void> }).unloadModel();
    return out;
  }, { model: a.model!, samples, tokens });

  await page.getByRole('button', { name: 'Start', exact: true }).click();
  const t0 = Date.now();
  let secondsPerStep: number[] = [];
  for (;;) {
    const h = await page.evaluate(() => {
      const s = (window as unknown as { __envaceTrain: { runs(): { runs: { runId: string; error?: string | null; history: { secondsPerStep: number }[]; status?: { state: string } | null }[]; activeId: string | null } } }).__envaceTrain.runs();
      const r = s.runs.find((x) => x.runId === s.activeId);
      return { seconds: r?.history.map((m) => m.secondsPerStep) ?? [], error: r?.error ?? null, state: r?.status?.state ?? null };
    });
    if (h.error) throw new Error(`training: ${h.error}`);
    secondsPerStep = h.seconds;
    if (secondsPerStep.length >= steps || h.state === 'done' || h.state === 'error') break;
    if (Date.now() - t0 > 20 * 60_000) throw new Error(`training: ${secondsPerStep.length} of ${steps} steps after 20 min`);
    await page.waitForTimeout(500);
  }
  if (pageErrors.length) throw new Error(`page errors: ${pageErrors.join('; ')}`);
  const r2 = (x: number) => Math.round(x * 100) / 100;
  return {
    ortVersion: info.ortVersion, adapter,
    tokensPerSecond: sampled.map((s) => r2(s.tokensPerSecond)), outputTokens: sampled.map((s) => s.outputTokens),
    secondsPerStep: secondsPerStep.slice(0, steps).map(r2),
  };
}

const servers = await Promise.all(dists.map((d) => preview({ root, logLevel: 'silent', build: { outDir: d.dir }, preview: { host: '127.0.0.1', port: 0, strictPort: false } })));
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--enable-unsafe-webgpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'] });
const runs: Measured[] = [];
try {
  for (let rep = 1; rep <= reps; rep++) {
    for (const backend of backends) {
      const order = dists.map((d, i) => ({ ...d, base: servers[i]!.resolvedUrls!.local[0]! }));
      if (rep % 2 === 0) order.reverse();
      for (const d of order) {
        const context = await browser.newContext();
        const page = await context.newPage();
        log(`rep ${rep} ${backend} ${d.label} (load ${os.loadavg()[0]!.toFixed(2)})`);
        try {
          runs.push({ build: d.label, backend, rep, ...(await measure(page, d.base, backend)) });
        } catch (e) {
          runs.push({ build: d.label, backend, rep, ortVersion: '', adapter: '', tokensPerSecond: [], outputTokens: [], secondsPerStep: [], error: (e as Error).message });
        }
        log(JSON.stringify(runs[runs.length - 1]));
        await context.close();
      }
    }
  }
} finally {
  await browser.close();
  for (const s of servers) await new Promise<void>((r) => s.httpServer.close(() => r()));
}

const median = (xs: number[]) => { const s = [...xs].sort((x, y) => x - y); return s.length ? (s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2) : NaN; };
const mean = (xs: number[]) => xs.reduce((x, y) => x + y, 0) / xs.length;
const r2 = (x: number) => Math.round(x * 100) / 100;
const summary: Record<string, Record<string, { firstStepS: number; steadyStepS: number; tokensPerSecond: number; runs: number }>> = {};
for (const d of dists) {
  for (const b of backends) {
    const ok = runs.filter((r) => r.build === d.label && r.backend === b && !r.error);
    if (!ok.length) continue;
    (summary[d.label] ??= {})[b] = {
      firstStepS: r2(median(ok.map((r) => r.secondsPerStep[0]!))),
      steadyStepS: r2(median(ok.map((r) => mean(r.secondsPerStep.slice(1))))),
      tokensPerSecond: r2(median(ok.flatMap((r) => r.tokensPerSecond))),
      runs: ok.length,
    };
  }
}
let commit = '';
try { commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim(); } catch { /* not a checkout */ }
const result = {
  format: 'envace-bench-ort/1',
  protocol: `Playwright builds served by vite preview; headless /usr/bin/chromium ${browser.version()} (--enable-unsafe-webgpu); one fresh context per repetition x backend x build, builds alternating order per repetition; sampling: /models/${a.model}/ loaded by the page's worker, ${samples} generations of up to ${tokens} new tokens (temperature 1, seeds 1..${samples}), tokens/s each; training: Train page Start with ${trainHash.slice(8)}, the trainer's seconds per step; firstStepS = step 1 (builds sessions), steadyStepS = mean of steps 2..${steps}; summary = medians over repetitions (tokens/s over all generations)`,
  commit, cpus: os.cpus().length, loadavgAtEnd: os.loadavg().map(r2), builds: dists.map((d) => ({ label: d.label, dir: path.relative(root, d.dir) })),
  summary, runs,
};
const text = `${JSON.stringify(result, null, 2)}\n`;
if (a.out) fs.writeFileSync(a.out, text);
process.stdout.write(text);
