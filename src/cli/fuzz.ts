// npm run fuzz -- [--cases 10000] [--seed 1] [--surface act-output,url-hash] [--case-timeout-ms 2000] [--json]
//
// Malformed and adversarial inputs for every surface a user or a model can reach (src/bench/fuzz), per
// surface: cases, crashes (an exception escaping the documented error type, an unhandled rejection, a dead
// worker), hangs (no progress within the per-case time limit), violations (a promised property broken: a
// config accepted with NaN, a lossy tokenizer loaded, a URL state changed by a round trip) and the distinct
// outcome/error codes seen. Exit status 1 when any surface crashed, hung or violated.
// Each surface runs in a worker thread under a watchdog (src/bench/fuzz/isolate.ts): a case stuck in a
// synchronous loop is named and the run goes on after it; `--in-process` runs on this thread instead.
// The URL and CLI surfaces live here because they parse what the app and the CLIs read (pure functions).

import { fileURLToPath } from 'node:url';
import { resolve } from 'node:path';
import { parseHash, parseQuery, toHash, SCHEMA, PAGES } from '../shared/urlState';
import { actSurface, dumpSurface, rehearseSurface, traceSurface } from '../bench/fuzz/agent';
import { trainConfigSurface } from '../bench/fuzz/config';
import { FuzzRng, mutateN, NASTY_STRINGS, PROTO_KEYS, randomString } from '../bench/fuzz/gen';
import { runSurface, type Surface, type SurfaceReport } from '../bench/fuzz/harness';
import { modelFolderSurface } from '../bench/fuzz/model-folder';
import { bfclToolSurface, builtinToolSurface, tau2ToolSurface } from '../bench/fuzz/tools';
import { CliArgsError, cliArgs, defineCli, parseCliArgs } from './args';
import { CLI_DEFS } from './defs';
import { progress } from './util';
import { FuzzViolation } from '../bench/fuzz/harness';
import { runSurfaceIsolated } from '../bench/fuzz/isolate';
import { checkpointSurface } from '../bench/fuzz/checkpoint';
import { envsCallSurface, hfSourceSurface } from '../bench/fuzz/cli-inputs';
import { resultsSurface } from '../bench/fuzz/results';
import { hfFolderSurface, onnxBytesSurface } from '../bench/fuzz/hf-folder';

const KEYS = Object.keys(SCHEMA);

/** encodeURIComponent, except for lone surrogates (which it refuses): those stay raw, as a hand-typed URL would. */
const enc = (s: string) => { try { return encodeURIComponent(s); } catch { return s; } };

function urlText(r: FuzzRng): string {
  const parts: string[] = [];
  for (let i = r.int(6); i > 0; i--) {
    const k = r.bool(0.8) ? r.pick(KEYS) : r.bool(0.5) ? r.pick(PROTO_KEYS) : randomString(r, 8);
    const v = r.bool(0.5) ? r.pick(['0', '1', '-1', '1e3', '0x10', '', ' 4 ', 'NaN', 'Infinity', '2.5', '99999999999', 'real', 'rehearsal'])
      : r.bool(0.5) ? randomString(r, 12) : r.pick(NASTY_STRINGS);
    parts.push(`${r.bool(0.8) ? enc(k) : k}=${r.bool(0.7) ? enc(v) : v}`);
  }
  const page = r.bool(0.8) ? r.pick(PAGES) : randomString(r, 8);
  const text = `#/${page}${parts.length ? `?${parts.join(r.bool(0.9) ? '&' : ';')}` : ''}`;
  return r.bool(0.3) ? mutateN(r, text, 3) : text;
}

/** Settings equal after a round trip through the URL (NaN never parses; -0 and 0 are the same setting). */
function sameSettings(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  return KEYS.every((k) => a[k] === b[k]);
}

export const urlSurface: Surface<string> = {
  name: 'url-params',
  about: 'URL hash (#/page?key=value) and query (?backend=&threads=) through parseHash/parseQuery (pure; invalid values are ignored and listed, never thrown); the parsed state must survive toHash → parseHash unchanged (violation round-trip-changed)',
  generate: (r) => (r.bool(0.8) ? urlText(r) : `?backend=${enc(r.pick(['webgpu', 'wasm', 'auto', 'WEBGPU', '', randomString(r, 6)]))}&threads=${enc(r.pick(['1', '64', '65', '0', '-1', '2.5', 'x', '']))}`),
  run(text) {
    if (text.startsWith('?')) {
      const q = parseQuery(text);
      return q.ignored.length ? `ignored:${q.ignored[0].key === 'backend' || q.ignored[0].key === 'threads' ? q.ignored[0].key : 'other'}` : 'ok';
    }
    const h = parseHash(text);
    const back = parseHash(toHash(h));
    if (back.page !== h.page || !sameSettings(back.settings as Record<string, unknown>, h.settings as Record<string, unknown>) || back.ignored.length) {
      throw new FuzzViolation('round-trip-changed', `round trip changed the state: ${toHash(h)}`);
    }
    if (!h.ignored.length) return 'ok';
    const why = h.ignored[0].why;
    return `ignored:${why.startsWith('outside') ? 'outside range' : why.startsWith('not one of') ? 'not one of' : why}`;
  },
};

function argvFor(r: FuzzRng, def: (typeof CLI_DEFS)[number]): string[] {
  const names = Object.keys(def.options);
  const argv: string[] = [];
  for (let i = r.int(7); i > 0; i--) {
    const k = r.bool(0.85) ? r.pick(names) : r.pick(['help', 'seeds', 'sed', randomString(r, 6), '', '-', r.pick(PROTO_KEYS)]);
    const spec = Object.hasOwn(def.options, k) ? def.options[k] : undefined;
    const value = r.pick([
      '0', '1', '-1', '1.5', '1e3', 'NaN', 'Infinity', '', ' ', 'x', 'a,b', ',', '1,,2', '--json', '-', ...(spec && 'choices' in spec && spec.choices ? spec.choices : []),
      randomString(r, 10), r.pick(NASTY_STRINGS),
    ]);
    const form = r.int(5);
    if (form === 0) argv.push(`--${k}=${value}`);
    else if (form === 1) argv.push(`--${k}`);
    else if (form === 2) argv.push(value);
    else argv.push(`--${k}`, value);
  }
  return r.bool(0.1) ? [...argv, '--', randomString(r, 5)] : argv;
}

export const cliSurface: Surface<{ cli: number; argv: string[] }> = {
  name: 'cli-args',
  about: `argument lists for ${CLI_DEFS.length} CLI schemas (src/cli/defs.ts) through parseCliArgs; documented error: CliArgsError (listing every problem)`,
  generate: (r) => { const cli = r.int(CLI_DEFS.length); return { cli, argv: argvFor(r, CLI_DEFS[cli]) }; },
  run({ cli, argv }) {
    const v = parseCliArgs(CLI_DEFS[cli], argv);
    return v === 'help' ? 'help' : 'ok';
  },
  documented: (e) => (e instanceof CliArgsError ? (e.problems.length > 1 ? 'CliArgsError:several' : 'CliArgsError:one') : null),
  show: ({ cli, argv }) => `${CLI_DEFS[cli].name} ${JSON.stringify(argv)}`,
};

export function allSurfaces(): Surface<any>[] {
  return [actSurface, rehearseSurface, traceSurface, dumpSurface, modelFolderSurface, urlSurface, trainConfigSurface, cliSurface,
    bfclToolSurface, tau2ToolSurface, builtinToolSurface, checkpointSurface, hfSourceSurface, envsCallSurface, resultsSurface,
    onnxBytesSurface, hfFolderSurface];
}

export const FUZZ_CLI = defineCli({
  name: 'fuzz',
  summary: 'Malformed and adversarial inputs for every surface; per surface: cases, crashes, hangs, violations, distinct codes.',
  options: {
    cases: { type: 'int', default: 10000, min: 1, help: 'cases per surface' },
    seed: { type: 'int', default: 1, min: 0, help: 'seed (each surface derives its own stream from it)' },
    surface: { type: 'list', choices: allSurfaces().map((s) => s.name), help: 'only these surfaces' },
    'case-timeout-ms': { type: 'int', default: 2000, min: 1, help: 'a case without progress for this long is a hang' },
    'in-process': { type: 'boolean', help: 'run the cases on this thread (no watchdog: a synchronous infinite loop stops the run)' },
    json: { type: 'boolean', help: 'one JSON object on stdout' },
  },
});

async function main(): Promise<void> {
  const a = cliArgs(FUZZ_CLI);
  // A rejection nobody handled on this thread is a failure of the run, not a warning.
  let unhandled = 0;
  process.on('unhandledRejection', (e) => { unhandled++; process.stderr.write(`fuzz: unhandled rejection: ${e instanceof Error ? e.stack : String(e)}\n`); });
  const surfaces = allSurfaces().filter((s) => !a.surface || a.surface.includes(s.name));
  const bar = progress(surfaces.length, 'fuzz');
  const reports: SurfaceReport[] = [];
  const t0 = Date.now();
  for (const s of surfaces) {
    const o = { cases: a.cases, seed: a.seed, caseTimeoutMs: a['case-timeout-ms'] };
    reports.push(a['in-process'] ? await runSurface(s, o)
      : await runSurfaceIsolated(s.name, s.about, { ...o, registry: import.meta.url, exportName: 'allSurfaces' }));
    const r = reports[reports.length - 1];
    bar.tick(`${s.name}: ${r.crashes} crashes, ${r.hangs} hangs, ${r.violations} violations`);
  }
  bar.done();
  const sum = (f: (r: SurfaceReport) => number) => reports.reduce((n, r) => n + f(r), 0);
  const totals = { surfaces: reports.length, cases: sum((r) => r.cases), crashes: sum((r) => r.crashes), hangs: sum((r) => r.hangs),
    violations: sum((r) => r.violations), unhandledRejections: sum((r) => r.unhandledRejections) + unhandled };
  if (a.json) {
    process.stdout.write(`${JSON.stringify({ seed: a.seed, casesPerSurface: a.cases, caseTimeoutMs: a['case-timeout-ms'], seconds: (Date.now() - t0) / 1000, totals,
      surfaces: reports.map((r) => ({ ...r, distinctCodes: Object.keys(r.codes).length })) }, null, 2)}\n`);
  } else {
    for (const r of reports) {
      const codes = Object.entries(r.codes).sort((x, y) => y[1] - x[1]);
      process.stdout.write(`${r.surface}: ${r.cases} cases, ${r.crashes} crashes, ${r.hangs} hangs, ${r.violations} violations, ${codes.length} distinct codes (${(r.ms / 1000).toFixed(1)} s)\n`);
      process.stdout.write(`  ${codes.slice(0, 12).map(([c, n]) => `${c}=${n}`).join('  ')}${codes.length > 12 ? '  …' : ''}\n`);
      if (r.violations) process.stdout.write(`  violations: ${Object.entries(r.violationCodes).map(([c, n]) => `${c}=${n}`).join('  ')}\n`);
      for (const x of r.examples) process.stdout.write(`  ${x.kind} at case ${x.case}: ${x.error}\n    input ${x.input}\n`);
    }
    process.stdout.write(`total: ${totals.cases} cases, ${totals.crashes} crashes, ${totals.hangs} hangs, ${totals.violations} violations${totals.unhandledRejections ? ` (${totals.unhandledRejections} unhandled rejections)` : ''}\n`);
  }
  if (totals.crashes || totals.hangs || totals.violations || unhandled) process.exitCode = 1;
}

const isMain = !!process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1]);
if (isMain) main().catch((e) => { process.stderr.write(`fuzz: ${e instanceof Error ? e.stack : String(e)}\n`); process.exit(1); });
