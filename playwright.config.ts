import { defineConfig } from '@playwright/test';

// Never let Playwright download a browser: use Debian's Chromium.
// The web server first writes a tiny model fixture (e2e/fixtures/make-model.ts) into tmp/e2e-models, which the
// models plugin serves next to models/ because of ENVACE_EXTRA_MODELS; a plain `npm run build` ships models/ only.
export default defineConfig({
  testDir: 'e2e',
  timeout: 300_000,
  workers: 1,
  retries: 0,
  reporter: [['list']],
  outputDir: 'test-results',
  use: {
    baseURL: 'http://127.0.0.1:4173',
    launchOptions: { executablePath: '/usr/bin/chromium', args: ['--enable-unsafe-webgpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'] },
    screenshot: 'only-on-failure',
  },
  webServer: {
    command: 'npx tsx e2e/fixtures/make-model.ts tmp/e2e-models && npm run build && npm run preview',
    env: { ENVACE_EXTRA_MODELS: 'tmp/e2e-models' },
    url: 'http://127.0.0.1:4173',
    timeout: 240_000,
    reuseExistingServer: !process.env.CI,
  },
});
