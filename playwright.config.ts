import { defineConfig } from '@playwright/test';

// Never let Playwright download a browser: use Debian's Chromium.
// The e2e build serves exactly the production models/ (no extra fixture folder); it differs from `npm run build`
// only by the test hooks (ENVACE_E2E=1).
// E2E_PORT gives a run its own port and build folder, so several runs can share one checkout.
// ENVACE_SOAK=1 (`npm run soak`) and ENVACE_LEARNS=1 (`npm run e2e:learns`) each run only their long spec,
// which the default run leaves out.
const port = Number(process.env.E2E_PORT ?? 4173);
const own = process.env.E2E_PORT ? `-${port}` : '';
const outDir = own ? `tmp/dist${own}` : 'dist';
const LONG_SPECS = ['soak.spec.ts', 'train-learns.spec.ts', 'train-speed.spec.ts', 'tti.spec.ts'];
// ENVACE_BENCH_BROWSER=1 (`npm run bench:browser`): the browser training-speed benchmark only.
// ENVACE_BENCH_TTI=1 (`npm run bench:tti`): the Rollout page's time to interactive only (issue 24).
const only = process.env.ENVACE_SOAK ? 'soak.spec.ts' : process.env.ENVACE_LEARNS ? 'train-learns.spec.ts' : process.env.ENVACE_BENCH_BROWSER ? 'train-speed.spec.ts' : process.env.ENVACE_BENCH_TTI ? 'tti.spec.ts' : null;
// E2E_PREBUILT=1: serve the build already in the run's folder (made with `ENVACE_E2E=1 npx vite build --outDir <it>`)
// instead of building inside the web server's timeout, which a heavily loaded machine can exceed.
const build = process.env.E2E_PREBUILT ? '' : `npx vite build --outDir ${outDir} --emptyOutDir && `;

export default defineConfig({
  testDir: 'e2e',
  // The soak run (tens of minutes), the in-browser learning run (five minutes of training, its rise asserted) and the
  // browser speed benchmark are their own commands, never part of `npm test`.
  ...(only ? { testMatch: only } : { testIgnore: LONG_SPECS }),
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
    command: `${build}npx vite preview --host 127.0.0.1 --port ${port} --strictPort --outDir ${outDir}`,
    // ENVACE_E2E=1: the build carries the test hooks (worker debug RPCs, window.__envaceTrain); production does not.
    // ENVACE_EXTRA_MODELS is emptied so a value in the caller's shell cannot add models production lacks.
    env: { ENVACE_E2E: '1', ENVACE_EXTRA_MODELS: '' },
    url: `http://127.0.0.1:${port}`,
    // A build on a loaded 2-core box has taken over 4 minutes.
    timeout: 600_000,
    reuseExistingServer: !process.env.CI && !own,
  },
});
