// Issue 21 (production hygiene): one production `vite build` (no ENVACE_E2E), then its output is read. No test hook
// (window.__envace…, worker debug RPCs) and no benchmark reference path (src/bench/*-reference.ts) may ship; the
// worker refuses `referencePaths` instead; the security headers are written for static hosts and `vite preview`
// sends them with the worker script too (a module worker's CSP is its own response's, not the page's <meta>).

import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chunkProblems, FORBIDDEN_TEXT } from '../../src/app/build/bundleGuard';
import { contentSecurityPolicy, headersFile, securityHeaders } from '../../src/app/build/headers';

const root = path.resolve(__dirname, '../..');
const outDir = path.join(root, 'tmp', `bundle-test-${process.pid}`);
let buildLog = '';

function files(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? files(path.join(dir, d.name)) : [path.join(dir, d.name)]));
}

describe('production bundle', () => {
  beforeAll(async () => {
    const env = { ...process.env, ENVACE_E2E: '', ENVACE_EXTRA_MODELS: '' };
    const r = await promisify(execFile)('npx', ['vite', 'build', '--outDir', outDir, '--emptyOutDir', '--logLevel', 'warn'], { cwd: root, env, maxBuffer: 64 << 20 });
    buildLog = r.stdout + r.stderr;
  }, 300_000);
  afterAll(() => { fs.rmSync(outDir, { recursive: true, force: true }); });

  it('holds no test hook and no reference path, in the page or the worker', () => {
    const js = files(path.join(outDir, 'assets')).filter((f) => /\.(m?js)$/.test(f));
    expect(js.length, buildLog).toBeGreaterThan(3);
    const worker = js.filter((f) => path.basename(f).startsWith('compute.worker'));
    expect(worker).toHaveLength(1);
    const hits: string[] = [];
    for (const f of js) {
      const code = fs.readFileSync(f, 'utf8');
      for (const t of [...FORBIDDEN_TEXT, 'window.__envace', 'useReferencePaths', 'referenceGrpoGradients']) if (code.includes(t)) hits.push(`${path.basename(f)}: ${t}`);
    }
    expect(hits).toEqual([]);
    // The production worker refuses the option instead of silently ignoring it.
    expect(fs.readFileSync(worker[0]!, 'utf8')).toContain('REFERENCE_PATHS_UNAVAILABLE');
  });

  it('ships one ONNX Runtime wasm family: transformers.js runs on the worker\'s ORT, not a copy of its own (issue 39)', () => {
    const assets = files(path.join(outDir, 'assets')).map((f) => path.basename(f));
    const family = (re: RegExp) => assets.filter((f) => re.test(f)).map((f) => f.replace(/-[\w-]+\.(wasm|mjs)$/, '.$1')).sort();
    expect(family(/\.wasm$/)).toEqual(['ort-wasm-simd-threaded.jsep.wasm']);
    expect(family(/^ort-wasm.*\.mjs$/)).toEqual(['ort-wasm-simd-threaded.jsep.mjs']);
    // the Hugging Face chunk takes ORT from the worker (src/worker/ort-shared.ts), so it bundles no ORT of its own
    const hf = files(path.join(outDir, 'assets')).filter((f) => /hf-service-[^.]+\.js$/.test(f));
    expect(hf).toHaveLength(1);
    expect(fs.readFileSync(hf[0]!, 'utf8')).toContain('runtime-web.ts must be loaded before transformers.js');
  });

  it('writes the security headers for static hosts', () => {
    const text = fs.readFileSync(path.join(outDir, '_headers'), 'utf8');
    expect(text).toBe(headersFile());
    expect(text).toMatch(/Content-Security-Policy: .*frame-ancestors 'none'/);
    expect(text).toContain('Cross-Origin-Embedder-Policy: require-corp');
  });

  it('vite preview serves the page and the worker script with the CSP and COOP/COEP', async () => {
    const { preview } = await import('vite');
    const server = await preview({ root, logLevel: 'silent', build: { outDir }, preview: { host: '127.0.0.1', port: 0, strictPort: false } });
    try {
      const base = server.resolvedUrls!.local[0]!;
      const worker = path.basename(files(path.join(outDir, 'assets')).find((f) => path.basename(f).startsWith('compute.worker'))!);
      for (const url of [base, `${base}assets/${worker}`]) {
        const res = await fetch(url);
        expect(res.status, url).toBe(200);
        expect(res.headers.get('content-security-policy'), url).toBe(contentSecurityPolicy());
        expect(res.headers.get('cross-origin-opener-policy'), url).toBe('same-origin');
        expect(res.headers.get('cross-origin-embedder-policy'), url).toBe('require-corp');
      }
    } finally {
      await new Promise<void>((r) => server.httpServer.close(() => r()));
    }
  });

  it('writes brotli and gzip siblings of the wasm and the scripts; vite preview sends the one the request accepts, cached as immutable (issue 39)', async () => {
    const assets = files(path.join(outDir, 'assets'));
    const wasm = assets.find((f) => /ort-wasm-simd-threaded\.jsep-[^.]+\.wasm$/.test(f))!;
    const worker = assets.find((f) => /compute\.worker-[^.]+\.js$/.test(f))!;
    for (const f of [wasm, worker]) for (const ext of ['.br', '.gz']) expect(fs.statSync(f + ext).size, f + ext).toBeLessThan(fs.statSync(f).size / 2);
    expect(fs.readFileSync(path.join(outDir, '_headers'), 'utf8')).toContain('/assets/*\n  Cache-Control: public, max-age=31536000, immutable');
    const { preview } = await import('vite');
    const server = await preview({ root, logLevel: 'silent', build: { outDir }, preview: { host: '127.0.0.1', port: 0, strictPort: false } });
    try {
      const base = server.resolvedUrls!.local[0]!;
      const get = (url: string, accept: string) => new Promise<{ status: number; headers: Record<string, unknown>; bytes: Buffer }>((resolve, reject) => {
        // node:http, not fetch: fetch decodes the body and does not say how many bytes came.
        import('node:http').then(({ get: httpGet }) => httpGet(url, { headers: { 'accept-encoding': accept } }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, bytes: Buffer.concat(chunks) }));
        }).on('error', reject));
      });
      const url = `${base}assets/${path.basename(wasm)}`;
      const raw = fs.readFileSync(wasm);
      for (const [accept, encoding, sibling] of [['gzip, deflate, br', 'br', '.br'], ['gzip', 'gzip', '.gz'], ['identity', undefined, '']] as const) {
        const r = await get(url, accept);
        expect(r.status).toBe(200);
        expect(r.headers['content-encoding'], accept).toBe(encoding);
        expect(r.headers['content-type']).toBe('application/wasm');
        expect(r.headers['cache-control']).toBe('public, max-age=31536000, immutable');
        expect(r.headers['vary']).toBe('Accept-Encoding');
        expect(r.headers['content-security-policy']).toBe(contentSecurityPolicy());
        expect(r.bytes.equals(fs.readFileSync(wasm + sibling)), accept).toBe(true);
      }
      // what comes back decodes to the file
      const zlib = await import('node:zlib');
      expect(zlib.brotliDecompressSync((await get(url, 'br')).bytes).equals(raw)).toBe(true);
      // the page itself is not immutable (it names the hashed files), and a path outside assets/ is Vite's to serve
      const page = await get(base, 'br');
      expect(page.status).toBe(200);
      expect(String(page.headers['cache-control'] ?? '')).not.toContain('immutable');
      expect((await get(`${base}assets/..%2Findex.html`, 'br')).headers['cache-control'] ?? '').not.toContain('immutable');
    } finally {
      await new Promise<void>((r) => server.httpServer.close(() => r()));
    }
  });
});

describe('pre-compressed assets', () => {
  it('chooses the first accepted encoding that has a sibling, and honours q=0', async () => {
    const { chooseEncoding } = await import('../../src/app/build/precompress');
    const dir = fs.mkdtempSync(path.join(root, 'tmp', 'precompress-'));
    try {
      const f = path.join(dir, 'a.js');
      fs.writeFileSync(f, 'x'); fs.writeFileSync(`${f}.br`, 'b'); fs.writeFileSync(`${f}.gz`, 'g');
      expect(chooseEncoding(f, 'gzip, deflate, br').encoding).toBe('br');
      expect(chooseEncoding(f, 'gzip, br;q=0').encoding).toBe('gzip');
      expect(chooseEncoding(f, 'GZIP;q=0.5').encoding).toBe('gzip');
      expect(chooseEncoding(f, 'identity').encoding).toBeNull();
      expect(chooseEncoding(f, '').encoding).toBeNull();
      fs.rmSync(`${f}.br`);
      expect(chooseEncoding(f, 'br, gzip')).toEqual({ encoding: 'gzip', path: `${f}.gz` });
    } finally { fs.rmSync(dir, { recursive: true, force: true }); }
  });
});

describe('security headers and the bundle guard', () => {
  it('the policy allows no eval, no inline script, no framing; a local mirror only in the test build', () => {
    const csp = contentSecurityPolicy();
    expect(csp).toContain("script-src 'self' 'wasm-unsafe-eval';");
    expect(csp).not.toMatch(/'unsafe-eval'|script-src[^;]*'unsafe-inline'/);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('127.0.0.1');
    expect(contentSecurityPolicy({ e2e: true })).toContain('http://127.0.0.1:*');
    expect(Object.keys(securityHeaders())).toEqual(expect.arrayContaining(['Cross-Origin-Opener-Policy', 'Cross-Origin-Embedder-Policy', 'Content-Security-Policy']));
  });

  it('names the chunk and what it holds', () => {
    expect(chunkProblems('w.js', 'x.__envaceTrain={}', ['/r/src/worker/train-service.ts', '/r/src/bench/sampler-reference.ts?worker'])).toEqual([
      { chunk: 'w.js', what: 'module /r/src/bench/sampler-reference.ts' },
      { chunk: 'w.js', what: 'text "__envace"' },
    ]);
    expect(chunkProblems('w.js', 'const a=1', ['/r/src/bench/evaluation.ts'])).toEqual([]);
  });
});
