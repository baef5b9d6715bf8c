import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { modelsPlugin } from './src/app/build/modelsPlugin';
import { ISOLATION_HEADERS, securityHeaders } from './src/app/build/headers';
import { bundleGuard } from './src/app/build/bundleGuard';
import { docsPlugin } from './src/app/build/docsPlugin';
import { precompress } from './src/app/build/precompress';

// The Playwright build (playwright.config.ts): test hooks compiled in, a local hub mirror allowed by the CSP.
const e2e = process.env.ENVACE_E2E === '1';

export default defineConfig({
  // modelsPlugin: serves models/ at /models/ in dev and copies it into dist/models/ on build (+ index.json).
  // bundleGuard: a production build fails if the page or the worker holds a test hook or a benchmark reference
  // path, and writes dist/_headers (src/app/build/headers.ts). docsPlugin: docs/*.md as pages at /docs/*.html.
  // precompress: .br/.gz beside each compressible asset (not in the Playwright build, which has no use for them), and
  // the preview server sends them with Cache-Control immutable (src/app/build/precompress.ts).
  plugins: [react(), modelsPlugin(), docsPlugin(), bundleGuard({ e2e, headers: true }), precompress({ write: !e2e }), {
    // index.html's Content-Security-Policy forbids inline script, and the dev server's React refresh
    // preamble is one: dev pages go without the policy; every build (production and e2e) keeps it.
    name: 'envace-csp-dev', apply: 'serve',
    transformIndexHtml: (html: string) => html.replace(/\s*<meta http-equiv="Content-Security-Policy"[^>]*>/, ''),
  }],
  // Cross-origin isolation lets ORT-web use multithreaded WASM (SharedArrayBuffer). The preview server sends the full
  // set a static host should send (CSP for the page and the module worker, frame-ancestors, COOP/COEP).
  server: { headers: ISOLATION_HEADERS },
  preview: { headers: securityHeaders({ e2e }) },
  worker: { format: 'es', plugins: () => [bundleGuard({ e2e })] },
  // Test hooks (src/e2e-flag.d.ts) exist only in the Playwright build: a production build folds them away.
  define: { __ENVACE_E2E__: JSON.stringify(e2e) },
  // One ORT copy: transformers.js's only ORT import is this entry (the asyncify build); in the worker it runs on ours
  // (src/worker/ort-shared.ts says how), so the build ships one wasm family.
  resolve: { alias: [{ find: /^onnxruntime-web\/webgpu$/, replacement: fileURLToPath(new URL('./src/worker/ort-shared.ts', import.meta.url)) }] },
  optimizeDeps: {
    exclude: ['onnxruntime-web'],
    // Scan the worker too: otherwise its CommonJS deps (onnx-proto, jinja) are discovered only when the
    // worker first loads, and the dev server re-optimises and reloads the page mid-session.
    entries: ['index.html', 'src/worker/compute.worker.ts'],
  },
  // JSON is never inlined as a data: URL: the results files are fetched (src/app/components/bench/results.ts) and the
  // CSP's connect-src has no data:.
  build: { target: 'es2022', chunkSizeWarningLimit: 4000, assetsInlineLimit: (file: string) => (file.endsWith('.json') ? false : undefined) },
});
