// Vite plugin for production builds (not the Playwright build, ENVACE_E2E=1): the build fails when a chunk — the
// page's or the compute worker's — contains a test hook or a benchmark-only reference path, and it writes the
// security headers as <outDir>/_headers for static hosts (src/app/build/headers.ts). tests/build/bundle.test.ts runs
// the build and checks its output with the same lists. Runs in Node only (imported by vite.config.ts).

import type { Plugin } from 'vite';
import { headersFile } from './headers';

/** Modules that exist for benchmarks and tests only (src/bench/*-reference.ts, reference-paths.ts, TF.js). */
export const FORBIDDEN_MODULES: readonly RegExp[] = [
  /\/src\/bench\/(reference-paths|sampler-reference|train-reference|sft-reference|tfjs-reference)\.ts$/,
  /\/node_modules\/@tensorflow\//,
];

/** Text a shipped chunk must not contain: window test handles, worker debug RPCs, the reference paths' own words. */
export const FORBIDDEN_TEXT: readonly string[] = [
  '__envace', // window.__envace, __envaceTrain, __envaceBreakPage
  'debugDie',
  'trainDebug',
  'reference paths cannot be installed', // src/bench/reference-paths.ts
];

export interface BundleProblem { chunk: string; what: string }

/** What is wrong with one emitted chunk (its file name, code and the ids of the modules it holds). */
export function chunkProblems(fileName: string, code: string, moduleIds: readonly string[]): BundleProblem[] {
  const out: BundleProblem[] = [];
  for (const id of moduleIds) {
    const norm = id.replace(/\\/g, '/').replace(/\?.*$/, '');
    if (FORBIDDEN_MODULES.some((re) => re.test(norm))) out.push({ chunk: fileName, what: `module ${norm}` });
  }
  for (const t of FORBIDDEN_TEXT) if (code.includes(t)) out.push({ chunk: fileName, what: `text "${t}"` });
  return out;
}

/** `headers`: also write <outDir>/_headers (the page build; the worker sub-build writes none). */
export function bundleGuard(opts: { e2e: boolean; headers?: boolean }): Plugin {
  return {
    name: 'envace-bundle-guard',
    apply: 'build',
    generateBundle(_options, bundle) {
      if (opts.e2e) return;
      const problems: BundleProblem[] = [];
      for (const item of Object.values(bundle)) {
        if (item.type !== 'chunk') continue;
        // Modules whose code was tree-shaken away entirely are listed with nothing rendered: they ship nothing.
        const rendered = Object.entries(item.modules ?? {}).filter(([, m]) => (m?.renderedLength ?? 1) > 0).map(([id]) => id);
        problems.push(...chunkProblems(item.fileName, item.code, rendered));
      }
      if (problems.length) {
        this.error(`production bundle holds test-only code:\n${problems.map((p) => `  ${p.chunk}: ${p.what}`).join('\n')}`);
      }
      if (opts.headers) this.emitFile({ type: 'asset', fileName: '_headers', source: headersFile() });
    },
  };
}
