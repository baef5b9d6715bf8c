import { defineConfig } from '@playwright/test';

// Never let Playwright download a browser: use Debian's Chromium.
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
    command: 'npm run build && npm run preview',
    url: 'http://127.0.0.1:4173',
    timeout: 240_000,
    reuseExistingServer: !process.env.CI,
  },
});
