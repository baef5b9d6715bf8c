// npm run bench:size [-- --dist DIR] [--pages rollout,train] [--out FILE.json]
// What a first visit to each page downloads, as JSON. A production build (`vite build` into tmp/, or --dist) is
// served by `vite preview` (with this repository's vite.config.ts, so its preview middleware too); headless
// Chromium (/usr/bin/chromium) opens each page in a fresh context (empty cache) and waits until no request has
// been in flight for 3 s (the compute worker's wasm included). Per page: every response, its file's size raw and
// compressed (gzip level 9 and brotli, as src/app/build/precompress.ts compresses), the bytes that actually
// crossed the wire (counted in the server, under its compression: what it chose to send for Chromium's
// Accept-Encoding), and the wasm fetched. Sizes only; no wall-clock figure is asserted anywhere.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { chromium } from '@playwright/test';
import { preview, type Plugin } from 'vite';
import { brotli, gzip } from '../src/app/build/precompress';
import { PAGES } from '../src/shared/urlState';

const { values: a } = parseArgs({ options: { dist: { type: 'string' }, pages: { type: 'string' }, out: { type: 'string' }, 'quiet-ms': { type: 'string', default: '3000' } } });
const root = path.resolve(import.meta.dirname, '..');
const log = (s: string) => process.stderr.write(`bench:size: ${s}\n`);

let dist = a.dist ? path.resolve(a.dist) : '';
if (!dist) {
  dist = path.join(root, 'tmp', `bench-size-${process.pid}`);
  log(`building into ${path.relative(root, dist)}`);
  execFileSync('npx', ['vite', 'build', '--outDir', dist, '--emptyOutDir', '--logLevel', 'warn'], { cwd: root, env: { ...process.env, ENVACE_E2E: '', ENVACE_EXTRA_MODELS: '' }, stdio: ['ignore', 'ignore', 'inherit'] });
}

const sizes = new Map<string, { raw: number; gzip: number; brotli: number }>();
function fileSizes(file: string) {
  let s = sizes.get(file);
  if (!s) {
    const bytes = fs.readFileSync(file);
    s = { raw: bytes.length, gzip: Math.min(bytes.length, gzip(bytes).length), brotli: Math.min(bytes.length, brotli(bytes).length) };
    sizes.set(file, s);
  }
  return s;
}

interface Fetched { path: string; status: number; encoding: string | null; cacheControl: string | null; transferred: number; raw: number; gzip: number; brotli: number }

// What the server sent, counted under every other middleware (so after any compression): one entry per response.
interface Sent { path: string; status: number; encoding: string | null; cacheControl: string | null; bytes: number }
let sent: Sent[] = [];
const counter: Plugin = {
  name: 'bench-size-counter', enforce: 'pre',
  configurePreviewServer(s) {
    s.middlewares.use((req, res, next) => {
      let bytes = 0;
      const count = (chunk: unknown) => { if (chunk && typeof chunk !== 'function') bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : (chunk as Uint8Array).length; };
      const write = res.write.bind(res), end = res.end.bind(res);
      res.write = ((chunk: unknown, ...rest: unknown[]) => { count(chunk); return (write as (...x: unknown[]) => boolean)(chunk, ...rest); }) as typeof res.write;
      res.end = ((chunk: unknown, ...rest: unknown[]) => {
        count(chunk);
        const h = (k: string) => { const v = res.getHeader(k); return v === undefined ? null : String(v); };
        sent.push({ path: decodeURIComponent((req.url ?? '').split('?')[0]!), status: res.statusCode, encoding: h('content-encoding'), cacheControl: h('cache-control'), bytes });
        return (end as (...x: unknown[]) => typeof res)(chunk, ...rest);
      }) as typeof res.end;
      next();
    });
  },
};
const server = await preview({ root, logLevel: 'silent', plugins: [counter], build: { outDir: dist }, preview: { host: '127.0.0.1', port: 0, strictPort: false } });
const base = server.resolvedUrls!.local[0]!;
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--enable-unsafe-webgpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'] });
const chromiumVersion = browser.version();
const pages = a.pages ? a.pages.split(',') : [...PAGES];
const report: Record<string, unknown> = {};
try {
  for (const name of pages) {
    const context = await browser.newContext();
    const page = await context.newPage();
    let inflight = 0, last = Date.now();
    page.on('request', () => { inflight++; last = Date.now(); });
    const settle = () => { inflight--; last = Date.now(); };
    page.on('requestfailed', settle);
    page.on('requestfinished', settle);
    sent = [];
    await page.goto(`${base}#/${name}`, { waitUntil: 'load' });
    const quiet = Number(a['quiet-ms']);
    const t0 = Date.now();
    while (inflight > 0 || Date.now() - last < quiet) {
      if (Date.now() - t0 > 180_000) { log(`${name}: still ${inflight} requests in flight after 180 s`); break; }
      await new Promise((r) => setTimeout(r, 200));
    }
    const files: Fetched[] = sent.filter((x) => x.status === 200).map((x) => {
      const file = path.join(dist, x.path === '/' ? '/index.html' : x.path);
      const s = fs.statSync(file, { throwIfNoEntry: false })?.isFile() ? fileSizes(file) : { raw: 0, gzip: 0, brotli: 0 };
      return { path: x.path, status: x.status, encoding: x.encoding, cacheControl: x.cacheControl, transferred: x.bytes, ...s };
    });
    const notModified = sent.filter((x) => x.status === 304).length;
    const sum = (k: 'raw' | 'gzip' | 'brotli' | 'transferred', xs = files) => xs.reduce((n, f) => n + f[k], 0);
    const wasm = files.filter((f) => f.path.endsWith('.wasm'));
    const code = files.filter((f) => /\.(m?js|css)$/.test(f.path));
    report[name] = {
      requests: files.length, notModified, raw: sum('raw'), gzip: sum('gzip'), brotli: sum('brotli'), transferred: sum('transferred'),
      jsCss: { files: code.length, raw: sum('raw', code), gzip: sum('gzip', code), brotli: sum('brotli', code), transferred: sum('transferred', code) },
      wasm: wasm.map((w) => ({ path: w.path, raw: w.raw, gzip: w.gzip, brotli: w.brotli, transferred: w.transferred, encoding: w.encoding, cacheControl: w.cacheControl })),
      files: files.sort((x, y) => y.raw - x.raw).map((f) => ({ path: f.path, raw: f.raw, transferred: f.transferred, encoding: f.encoding, cacheControl: f.cacheControl })),
    };
    log(`${name}: ${files.length} files, ${(sum('raw') / 1e6).toFixed(2)} MB raw, ${(sum('transferred') / 1e6).toFixed(2)} MB transferred`);
    await context.close();
  }
} finally {
  await browser.close();
  await new Promise<void>((r) => server.httpServer.close(() => r()));
}

let commit = '';
try { commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim(); } catch { /* not a checkout */ }
// Every wasm binary the build ships, fetched or not (a second ONNX Runtime family would show here: issue 39).
const shippedWasm = fs.readdirSync(path.join(dist, 'assets')).filter((f) => f.endsWith('.wasm')).sort()
  .map((f) => ({ path: `/assets/${f}`, ...fileSizes(path.join(dist, 'assets', f)) }));
const result = {
  protocol: 'production vite build served by vite preview (this vite.config.ts); headless /usr/bin/chromium, one fresh context per page, first visit (empty cache), until no request for quiet-ms; sizes in bytes: raw = the file, gzip = level 9, brotli = quality 11 under 2 MB else 9, transferred = body bytes the server sent (counted under its compression); a file fetched twice (two workers) counts twice',
  commit, dist: path.relative(root, dist), quietMs: Number(a['quiet-ms']), chromium: chromiumVersion, shippedWasm, pages: report,
};
const text = `${JSON.stringify(result, null, 2)}\n`;
if (a.out) fs.writeFileSync(a.out, text);
process.stdout.write(text);
if (!a.dist) fs.rmSync(dist, { recursive: true, force: true });
