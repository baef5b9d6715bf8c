// Pre-compressed assets (issue 39): a build writes a brotli (.br) and a gzip (.gz) sibling next to every
// compressible file of dist/assets/ (JavaScript, CSS, JSON, SVG and the ONNX Runtime wasm), and `vite preview`
// serves them: the sibling the request's Accept-Encoding allows, with Content-Encoding, Vary and, since every name
// under assets/ carries its content hash, `Cache-Control: public, max-age=31536000, immutable`. Vite's own preview
// compresses JavaScript on the fly with gzip and sends the wasm (most of a first visit) as it is, with no-cache.
// A static host that serves pre-compressed siblings (nginx gzip_static/brotli_static, Caddy's precompressed) uses
// the same files; dist/_headers (./headers.ts) carries the cache rule. Runs in Node only.

import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import type { Plugin, PreviewServer } from 'vite';

/** Files worth compressing, by extension, with the Content-Type they are served as. */
export const COMPRESSIBLE: Readonly<Record<string, string>> = {
  '.js': 'text/javascript', '.mjs': 'text/javascript', '.css': 'text/css', '.json': 'application/json',
  '.svg': 'image/svg+xml', '.wasm': 'application/wasm', '.map': 'application/json',
};

export const IMMUTABLE = 'public, max-age=31536000, immutable';

/**
 * Brotli at quality 11 for files under 2 MB; 9 above (quality 11 takes about 90 s for the 28 MB wasm on this
 * machine, 9 about 6 s, for 4.6 MB against 4.0 MB). gzip at level 9.
 */
export function brotli(bytes: Uint8Array): Buffer {
  const quality = bytes.length < 2 << 20 ? 11 : 9;
  return zlib.brotliCompressSync(bytes, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: quality, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: bytes.length } });
}
export const gzip = (bytes: Uint8Array): Buffer => zlib.gzipSync(bytes, { level: 9 });

function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? filesUnder(path.join(dir, d.name)) : [path.join(dir, d.name)]));
}

/** Writes x.br and x.gz beside each compressible file of `dir` over 1 KB, where that is smaller than x. */
export function precompressDir(dir: string): { files: number; raw: number; br: number; gz: number } {
  const out = { files: 0, raw: 0, br: 0, gz: 0 };
  for (const f of filesUnder(dir)) {
    if (!Object.hasOwn(COMPRESSIBLE, path.extname(f))) continue;
    const bytes = fs.readFileSync(f);
    if (bytes.length < 1024) continue;
    const br = brotli(bytes), gz = gzip(bytes);
    if (br.length < bytes.length) fs.writeFileSync(`${f}.br`, br);
    if (gz.length < bytes.length) fs.writeFileSync(`${f}.gz`, gz);
    out.files++; out.raw += bytes.length; out.br += Math.min(br.length, bytes.length); out.gz += Math.min(gz.length, bytes.length);
  }
  return out;
}

/** The encoding to send a file in: the first of br, gzip that the client accepts and that has a sibling on disk. */
export function chooseEncoding(file: string, acceptEncoding: string): { encoding: 'br' | 'gzip' | null; path: string } {
  const accepted = new Set(acceptEncoding.split(',').map((t) => t.trim().toLowerCase().split(/\s*;\s*q\s*=\s*/))
    .filter(([, q]) => q === undefined || Number(q) > 0).map(([name]) => name));
  const accepts = (name: string) => accepted.has(name);
  if (accepts('br') && fs.existsSync(`${file}.br`)) return { encoding: 'br', path: `${file}.br` };
  if (accepts('gzip') && fs.existsSync(`${file}.gz`)) return { encoding: 'gzip', path: `${file}.gz` };
  return { encoding: null, path: file };
}

/** The preview middleware for /assets/*: the pre-compressed sibling when accepted, always with the immutable rule. */
export function assetMiddleware(distDir: string, headers: Readonly<Record<string, string>>) {
  const assets = path.join(distDir, 'assets');
  return (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse, next: () => void): void => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    let url: string;
    try { url = decodeURIComponent((req.url ?? '').split('?')[0]!); } catch { return next(); }
    if (!url.startsWith('/assets/')) return next();
    const file = path.join(distDir, url);
    const type = COMPRESSIBLE[path.extname(file)];
    // Outside assets/ (a `..` in the path), not a file, or a kind this does not serve: Vite's static server decides.
    if (!file.startsWith(`${assets}${path.sep}`) || !type || !fs.statSync(file, { throwIfNoEntry: false })?.isFile()) return next();
    const chosen = chooseEncoding(file, String(req.headers['accept-encoding'] ?? ''));
    for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
    res.setHeader('Content-Type', type);
    res.setHeader('Cache-Control', IMMUTABLE);
    res.setHeader('Vary', 'Accept-Encoding');
    if (chosen.encoding) res.setHeader('Content-Encoding', chosen.encoding);
    res.setHeader('Content-Length', fs.statSync(chosen.path).size);
    if (req.method === 'HEAD') { res.end(); return; }
    fs.createReadStream(chosen.path).pipe(res);
  };
}

/** The build half (`write`: compress dist/assets after the bundle is written) and the preview half. */
export function precompress(opts: { write: boolean }): Plugin {
  let outDir = 'dist';
  return {
    name: 'envace-precompress',
    configResolved(config) { outDir = path.resolve(config.root, config.build.outDir); },
    closeBundle: {
      order: 'post',
      handler() { if (opts.write) precompressDir(path.join(outDir, 'assets')); },
    },
    configurePreviewServer(server: PreviewServer) {
      const dist = path.resolve(server.config.root, server.config.build.outDir);
      server.middlewares.use(assetMiddleware(dist, (server.config.preview.headers ?? {}) as Record<string, string>));
    },
  };
}
