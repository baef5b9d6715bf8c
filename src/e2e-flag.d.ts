// Build-time flag: true only in the Playwright build (vite.config.ts `define`, set through ENVACE_E2E=1 by
// playwright.config.ts). Test hooks (worker debug RPCs, window handles) are compiled in only under it; read it
// as `typeof __ENVACE_E2E__ !== 'undefined' && __ENVACE_E2E__` so Node and vitest, which define nothing, see false.
declare const __ENVACE_E2E__: boolean | undefined;
