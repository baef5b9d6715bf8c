import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { modelsPlugin } from './src/app/build/modelsPlugin';

// Cross-origin isolation lets ORT-web use multithreaded WASM (SharedArrayBuffer).
const isolation = { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' };

export default defineConfig({
  // modelsPlugin: serves models/ at /models/ in dev and copies it into dist/models/ on build (+ index.json).
  plugins: [react(), modelsPlugin(), {
    // index.html's Content-Security-Policy forbids inline script, and the dev server's React refresh
    // preamble is one: dev pages go without the policy; every build (production and e2e) keeps it.
    name: 'envace-csp-dev', apply: 'serve',
    transformIndexHtml: (html: string) => html.replace(/\s*<meta http-equiv="Content-Security-Policy"[^>]*>/, ''),
  }],
  server: { headers: isolation },
  preview: { headers: isolation },
  worker: { format: 'es' },
  // Test hooks (src/e2e-flag.d.ts) exist only in the Playwright build: a production build folds them away.
  define: { __ENVACE_E2E__: JSON.stringify(process.env.ENVACE_E2E === '1') },
  optimizeDeps: {
    exclude: ['onnxruntime-web'],
    // Scan the worker too: otherwise its CommonJS deps (onnx-proto, jinja) are discovered only when the
    // worker first loads, and the dev server re-optimises and reloads the page mid-session.
    entries: ['index.html', 'src/worker/compute.worker.ts'],
  },
  build: { target: 'es2022', chunkSizeWarningLimit: 4000 },
});
