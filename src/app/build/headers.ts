// The HTTP response headers the app needs and wants, in one place: `vite preview` sends them (vite.config.ts), a
// production build writes them as dist/_headers (the format Netlify and Cloudflare Pages read), and the README lists
// them for any other static host. Runs in Node only (imported by vite.config.ts and tests).
//
// Why headers and not only index.html's <meta> policy: a module worker's Content-Security-Policy is the one its
// script is served with — the page's <meta> does not reach it — and the compute worker is where untrusted model
// files, tokenizers and chat templates are parsed and Hugging Face hosts fetched. `frame-ancestors` works only as a
// header. COOP/COEP make the page cross-origin isolated (SharedArrayBuffer: multithreaded WASM).

/** Hosts a browser worker may fetch model files from: the Hugging Face hub and its file CDNs (LFS, Xet). */
export const MODEL_HOSTS = ['https://huggingface.co', 'https://*.huggingface.co', 'https://*.hf.co'] as const;

export interface HeaderOptions {
  /** The Playwright build: its hub mirror is a local server on another port of 127.0.0.1. */
  e2e?: boolean;
}

/** The Content-Security-Policy for every response (pages and worker scripts alike). */
export function contentSecurityPolicy(opts: HeaderOptions = {}): string {
  const connect = ["'self'", ...MODEL_HOSTS, ...(opts.e2e ? ['http://127.0.0.1:*'] : [])];
  return [
    "default-src 'self'",
    // No inline script and no eval; WebAssembly compilation for ONNX Runtime only.
    "script-src 'self' 'wasm-unsafe-eval'",
    "worker-src 'self' blob:",
    `connect-src ${connect.join(' ')}`,
    "img-src 'self' data: blob:",
    "style-src 'self' 'unsafe-inline'",
    "font-src 'self' data:",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** Cross-origin isolation alone (the dev server: its React refresh preamble is an inline script, so no CSP there). */
export const ISOLATION_HEADERS: Readonly<Record<string, string>> = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

/** Every header a served build should carry. */
export function securityHeaders(opts: HeaderOptions = {}): Record<string, string> {
  return {
    ...ISOLATION_HEADERS,
    'Content-Security-Policy': contentSecurityPolicy(opts),
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
  };
}

/**
 * The same headers in the `_headers` file format of static hosts (one block for every path), and the cache rule of
 * assets/: every file there carries its content hash in its name, so a browser may keep it for a year without
 * asking again (index.html, which names them, is not under assets/ and keeps the host's default).
 */
export function headersFile(opts: HeaderOptions = {}): string {
  return [
    '/*', ...Object.entries(securityHeaders(opts)).map(([k, v]) => `  ${k}: ${v}`),
    '',
    '# Content-hashed names: cache for a year. Each compressible file has .br and .gz siblings (precompress.ts) for a',
    '# host that serves pre-compressed files (nginx brotli_static/gzip_static, Caddy precompressed br gzip).',
    '/assets/*', '  Cache-Control: public, max-age=31536000, immutable',
  ].join('\n') + '\n';
}
