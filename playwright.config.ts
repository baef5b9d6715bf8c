import { defineConfig } from '@playwright/test';

// Never let Playwright download a browser: use Debian's Chromium.
// The web server first writes a tiny model fixture (e2e/fixtures/make-model.ts) into tmp/e2e-models, which the
// models plugin serves next to models/ because of ENVACE_EXTRA_MODELS; a plain `npm run build` ships models/ only.
// E2E_PORT gives a run its own port, build folder and fixture folder, so several runs can share one checkout.
const port = Number(process.env.E2E_PORT ?? 4173);
const own = process.env.E2E_PORT ? `-${port}` : '';
const outDir = own ? `tmp/dist${own}` : 'dist';
const extra = `tmp/e2e-models${own}`;

export default defineConfig({
  testDir: 'e2e',
  timeout: 300_000,
  workers: 1,
  retries: 0,
  reporter: [['list']],
  outputDir: `test-results${own}`,
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    launchOptions: { executablePath: '/usr/bin/chromium', args: ['--enable-unsafe-webgpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'] },
    screenshot: 'only-on-failure',
  },
  webServer: {
    command: `npx tsx e2e/fixtures/make-model.ts ${extra} && npx vite build --outDir ${outDir} --emptyOutDir && npx vite preview --host 127.0.0.1 --port ${port} --strictPort --outDir ${outDir}`,
    // ENVACE_E2E=1: the build carries the test hooks (worker debug RPCs, window.__envaceTrain); production does not.
    env: { ENVACE_EXTRA_MODELS: extra, ENVACE_E2E: '1' },
    url: `http://127.0.0.1:${port}`,
    timeout: 240_000,
    reuseExistingServer: !process.env.CI && !own,
  },
});
