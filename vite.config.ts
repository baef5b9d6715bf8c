import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { modelsPlugin } from './src/app/build/modelsPlugin';

// Cross-origin isolation lets ORT-web use multithreaded WASM (SharedArrayBuffer).
const isolation = { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' };

export default defineConfig({
  // modelsPlugin: serves models/ at /models/ in dev and copies it into dist/models/ on build (+ index.json).
  plugins: [react(), modelsPlugin()],
  server: { headers: isolation },
  preview: { headers: isolation },
  worker: { format: 'es' },
  optimizeDeps: { exclude: ['onnxruntime-web'] },
  build: { target: 'es2022', chunkSizeWarningLimit: 4000 },
});
