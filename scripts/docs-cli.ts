// `npm run docs:cli`: writes docs/cli.md from the commands' own option schemas (src/cli/args.ts), and the glossary
// block of docs/app.md from src/app/glossary.ts, so the docs say what `--help` and the page's hover texts say.
// tests/docs-cli.test.ts renders both again and fails when the committed files differ (run this to fix it).
//
// A schema exported by a module that does not run on import is read directly; a schema that lives inside an entry
// point that runs on import (e.g. src/cli/pretrain.ts) is read from that command's own `--help`, which usage()
// prints from the same schema.

import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { usage, type CliDef, type OptSpec } from '../src/cli/args';
import {
  BENCH_ENGINE_CLI, CONFORMANCE_BFCL_CLI, CONFORMANCE_TAU2_CLI, ENGINE_SAMPLE_CLI, ENGINE_TRAIN_LM_CLI, ENVS_CALL_CLI,
  ENVS_LIST_CLI, ENVS_SHOW_CLI, ROLLOUT_CLI,
} from '../src/cli/defs';
import { GLOSSARY } from '../src/app/glossary';

type AnyDef = CliDef<Record<string, OptSpec>>;
/** What one npm script documents: its schemas (one per subcommand) or, when the schema cannot be imported, `help`. */
interface Entry { note: string; defs?: () => Promise<AnyDef[]>; help?: boolean }

const d = (...defs: unknown[]) => async () => defs as AnyDef[];
const from = <M>(path: string, pick: (m: M) => unknown) => async () => [pick(await import(path) as M)] as AnyDef[];

/** Every npm script, in the order the doc lists them. The notes are what the old README's command table said. */
export const CATALOG: Record<string, Entry> = {
  start: { note: 'Vite dev server with the app (models served from `models/`); open http://127.0.0.1:5173.' },
  build: { note: 'Production build into `dist/` (fails if a chunk holds a test hook; writes `dist/_headers`).' },
  preview: { note: 'Serves `dist/` with the CSP and COOP/COEP headers a static host must send.' },
  typecheck: { note: '`tsc --noEmit` over the whole project.' },
  test: { note: '`vitest run && playwright test`: what CI runs.' },
  'test:unit': { note: 'Vitest only (`npx vitest run tests/path.test.ts` for one file).' },
  'test:e2e': { note: 'Playwright only, headless Chromium at `/usr/bin/chromium` (`npx playwright test e2e/x.spec.ts` for one spec; `E2E_PORT=<port>` for its own port and build folder).' },
  soak: { note: 'Long Playwright run kept out of `npm test`: 300 in-browser training steps (memory flat, checkpoints readable; figures to `SOAK_OUT`).' },
  'e2e:learns': { note: "Long Playwright run kept out of `npm test`: the Train page's default run over 5 minutes (asserts the training-reward and paired held-out rises; figures to `test-results/train-learns.json`)." },
  'bench:browser': { note: 'The Train page\'s default preset in headless Chromium, s/step against the worker on both reference paths (`e2e/train-speed.spec.ts`).' },
  'bench:tti': { note: "The Rollout page's time to interactive in headless Chromium (skeleton, trace, Run enabled, WebGPU verdict; cold and verdict-remembered loads): JSON to stdout and `docs/results/bench/tti.json`." },
  'bench:ort': { note: 'Training and sampling speed of two Playwright builds side by side in one headless Chromium (WASM and software WebGPU), to compare ONNX Runtime copies (JSON; [delivery.md](delivery.md)).' },
  'bench:size': { note: 'First-visit transfer of each page of a production build served by `vite preview` in headless Chromium: raw, gzip, brotli and sent bytes per file, the wasm fetched (JSON; [delivery.md](delivery.md)).' },
  engine: { note: 'LM training and sampling on the engine.', defs: d(ENGINE_TRAIN_LM_CLI, ENGINE_SAMPLE_CLI) },
  envs: { note: 'Worlds and tools: list them, show a task, call a tool.', defs: d(ENVS_LIST_CLI, ENVS_SHOW_CLI, ENVS_CALL_CLI) },
  conformance: { note: 'Fixture conformance of the BFCL and τ² ports (exact pins).', defs: d(CONFORMANCE_BFCL_CLI, CONFORMANCE_TAU2_CLI) },
  rollout: { note: 'Trajectories with per-call fidelity and checklist verdicts, e.g. `npm run rollout -- --model DIR_OR_HF_ID --world files --mode rehearsal --json`.', defs: d(ROLLOUT_CLI) },
  sft: { note: "SFT starter policies for both roles (packed batches), held-out success and teacher-forced turn accuracy against CPU-minutes in each folder's `eval.json`; the copying drill, identifier scrambling and Act-only conversations of the retail starter; `--memory-pool` puts the policy's own rehearsal memories in Act prompts (`src/tts/memory-sft.ts`). Was `npm run pretrain`: npm ran that as a pre-hook of `npm run train`.", help: true },
  train: { note: 'One GRPO run, e.g. `npm run train -- --config configs/grpo-real-files.json --seed 1 --screen 256 --out runs/NAME`; 8 tasks × 8 rollouts, dynamic sampling and 10 warmup steps by default; prints CPU-minutes.', defs: from('../src/cli/train', (m: { TRAIN_CLI: unknown }) => m.TRAIN_CLI) },
  ablation: { note: 'Variants × seeds (+ real-environment budget sweep); resumable per (variant, seed); `summary.json` + `summary.md` over every finished run of the same protocol in the folder (two processes on disjoint seeds share one folder); `--results` receives each finished run and the summary; `--summary-only` rebuilds the summary without training.', defs: from('../src/cli/ablation', (m: { ABLATION_CLI: unknown }) => m.ABLATION_CLI) },
  'bench:engine': { note: 'Engine speed against TF.js and transformers.js in the same run.', defs: d(BENCH_ENGINE_CLI) },
  'bench:train': { note: 'GRPO step speed against the reference paths, measured in the same run.', help: true },
  'bench:sft': { note: 'SFT speed, packed against padded buckets, measured in the same run.', help: true },
  'bench:llama': { note: 'One GRPO step at the SmolLM2-135M shape (GQA, tied embeddings) vs a small fixture: s/step, CPU s, RSS.', help: true },
  eval: { note: 'Held-out evaluation (paper protocol: Avg@4, T 0.6, top-p 0.95; `--k 1 --temperature 0` greedy; `--offset N`: tasks N … N+tasks−1), one JSON object with `{mean, ci95}` per metric; `--suite bfcl|tau2` runs the paper\'s benchmarks ([protocol.md](protocol.md#the-papers-benchmarks-as-suites)).', defs: from('../src/cli/eval', (m: { EVAL_CLI: unknown }) => m.EVAL_CLI) },
  compare: { note: "Two models on the same held-out tasks and seeds: each one's `{mean, ci95}`, the paired-bootstrap difference B − A (success, state check, checklist) and per-task wins / losses / ties (`src/bench/compare.ts`).", defs: from('../src/cli/compare', (m: { COMPARE_CLI: unknown }) => m.COMPARE_CLI) },
  fidelity: { note: 'World-model fidelity on the fixed probe set, per label (recall / inference), per tool, hints on and off.', help: true },
  tts: { note: 'Test-time private rehearsal sweep (success, checklist, pass@k with CIs, prompt lengths, seconds).', defs: from('../src/cli/tts', (m: { TTS_CLI: unknown }) => m.TTS_CLI) },
  fuzz: { note: 'Malformed and adversarial inputs for every surface: cases, crashes, hangs, violations, error codes.', defs: from('../src/cli/fuzz', (m: { FUZZ_CLI: unknown }) => m.FUZZ_CLI) },
  mutants: { note: 'Each mutant breaks one named behaviour in a temporary git worktree; its tests must fail (`docs/results/reliability/mutants.json`).', defs: from('./mutants', (m: { MUTANTS_CLI: unknown }) => m.MUTANTS_CLI) },
  mutation: { note: 'StrykerJS mutation scores of four files, one at a time (`docs/results/reliability/mutation.json`).', defs: from('./mutation', (m: { MUTATION_CLI: unknown }) => m.MUTATION_CLI) },
  export: { note: 'Parquet for the reference trainer and stock verl; `--check` reads an export back and lists the rows either would drop, with the reason ([scale-out.md](scale-out.md#check)).', help: true },
  'fixture:qwen3': { note: 'An offline Qwen3-architecture fixture folder (random weights, real Qwen3 tokenizer and template).', help: true },
  'demo-trace': { note: "Regenerates the Rollout page's first-paint trace (`src/app/demo/`) from `models/files-starter`.", help: true },
  'rehearse-budget': { note: "The Rehearse token budget a folder needs: the longest real result of its worlds' 4,000-task training pools as an SFT target, +10% +8 tokens (`--write` stores it in the folder's profile when larger).", defs: from('../src/cli/rehearse-budget', (m: { REHEARSE_BUDGET_CLI: unknown }) => m.REHEARSE_BUDGET_CLI) },
  agreement: { note: 'The simulator gate: the same training tasks and seeds in real and in rehearsal mode (T 1); rewards, gap, correlation, advantage-sign agreement, truncated and unparsable Rehearse rows, recall, error agreement, each `{mean, ci95}`, and which targets it meets (`src/bench/agreement.ts`).', defs: from('../src/cli/agreement', (m: { AGREEMENT_CLI: unknown }) => m.AGREEMENT_CLI) },
  gate: { note: 'The simulator gate for several models × worlds (the files visibility levels, say): one agreement measurement per pair, resumable, `gate.json` + `gate.md` with every figure, its interval and the targets met.', defs: from('../src/cli/gate', (m: { GATE_CLI: unknown }) => m.GATE_CLI) },
  mechanism: { note: "The mechanism of an ablation: the starting model and every trained run's end measured alike (fidelity probes, on-path fidelity, teacher-forced Act accuracy, agreement figures) and each variant's changes with t-intervals over seeds (`src/bench/mechanism.ts`).", defs: from('../src/cli/mechanism', (m: { MECHANISM_CLI: unknown }) => m.MECHANISM_CLI) },
  'docs:cli': { note: 'Writes this file, and the glossary block of [app.md](app.md), from the schemas and `src/app/glossary.ts` (`tests/docs-cli.test.ts` fails when either is stale).' },
};

const root = resolve(fileURLToPath(import.meta.url), '../..');
const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

function optionRows(def: AnyDef): string[] {
  const rows = ['| option | value | default | what it does |', '|---|---|---|---|'];
  for (const [k, o] of Object.entries(def.options)) {
    const value = o.type === 'boolean' ? 'flag' : o.type === 'list' ? 'a,b,…' : o.type === 'numbers' ? 'n,n,…' : o.type;
    const choices = 'choices' in o && o.choices ? ` (one of ${o.choices.join(', ')})` : '';
    const range = 'min' in o && (o.min !== undefined || o.max !== undefined)
      ? ` (${[o.min !== undefined ? `≥ ${o.min}` : '', o.max !== undefined ? `≤ ${o.max}` : ''].filter(Boolean).join(', ')})` : '';
    const dflt = o.required ? '**required**' : o.default !== undefined ? `\`${JSON.stringify(o.default)}\`` : '';
    rows.push(`| \`--${k}\` | ${cell(value + choices + range)} | ${cell(dflt)} | ${cell(o.help)} |`);
  }
  return rows;
}

/** The command's own `--help` text (its schema lives inside an entry point that runs on import). */
function helpOf(script: string, command: string): string {
  const file = /tsx (\S+\.ts)/.exec(command)?.[1];
  if (!file) throw new Error(`docs:cli: no tsx entry point in the script ${script}: ${command}`);
  const r = spawnSync(process.execPath, ['--import', 'tsx', resolve(root, file), '--help'], { cwd: root, encoding: 'utf8', timeout: 120_000 });
  if (r.status !== 0 || !r.stdout.startsWith('usage:')) throw new Error(`docs:cli: ${file} --help failed (${r.status}): ${r.stderr}`);
  return r.stdout.trimEnd();
}

export async function renderCliDocs(): Promise<string> {
  const scripts = (JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
  const out = [
    '# Commands',
    '',
    '<!-- Generated by `npm run docs:cli` from package.json and each command\'s option schema (src/cli/args.ts);',
    '     do not edit by hand: tests/docs-cli.test.ts fails when this file is stale. -->',
    '',
    'Every npm script, what it runs, and every option it takes. Each command validates all its arguments first',
    '(Node\'s `util.parseArgs`, strict, with a typed schema per command) and exits 2 listing every problem; `--help`',
    'prints the same options. Options go after `--`: `npm run eval -- --model models/files-starter --json`.',
    '',
    Object.keys(CATALOG).filter((s) => s in scripts).map((s) => `[${s}](#${s.replace(/[^a-z0-9 -]/g, '')})`).join(' · '),
    '',
  ];
  for (const [script, entry] of Object.entries(CATALOG)) {
    const command = scripts[script];
    if (command === undefined) throw new Error(`docs:cli: the catalog lists ${script}, which package.json does not have`);
    out.push(`## ${script}`, '', `\`${script === 'start' || script === 'test' ? `npm ${script}` : `npm run ${script}`}\` runs \`${command}\`. ${entry.note}`, '');
    if (entry.defs) {
      const defs = await entry.defs();
      for (const def of defs) {
        if (defs.length > 1 || def.positionals) out.push(`### ${script} ${def.positionals?.usage ?? ''}`.trimEnd(), '');
        out.push(def.summary, '');
        out.push(...(Object.keys(def.options).length ? optionRows(def) : ['No options.']), '');
      }
    } else if (entry.help) {
      out.push('Its schema lives inside the entry point, so this is its `--help`:', '', '```text', helpOf(script, command), '```', '');
    }
  }
  const missing = Object.keys(scripts).filter((s) => !(s in CATALOG));
  if (missing.length) throw new Error(`docs:cli: package.json scripts missing from the catalog in scripts/docs-cli.ts: ${missing.join(', ')}`);
  return out.join('\n');
}

/** The glossary block of docs/app.md: the page's hover texts, word for word. */
export function renderGlossary(): string {
  const rows = Object.entries(GLOSSARY).map(([term, text]) => `| ${cell(term)} | ${cell(text)} |`);
  return ['| term | hover text on the page |', '|---|---|', ...rows].join('\n');
}

const START = '<!-- glossary:start (generated from src/app/glossary.ts by npm run docs:cli; do not edit) -->';
const END = '<!-- glossary:end -->';

/** docs/app.md with its glossary block replaced by the current one. */
export function withGlossary(appMd: string): string {
  const a = appMd.indexOf(START);
  const b = appMd.indexOf(END);
  if (a < 0 || b < a) throw new Error('docs/app.md has no glossary block (glossary:start … glossary:end)');
  return `${appMd.slice(0, a + START.length)}\n${renderGlossary()}\n${appMd.slice(b)}`;
}

async function main(): Promise<void> {
  writeFileSync(resolve(root, 'docs/cli.md'), `${await renderCliDocs()}\n`);
  const app = resolve(root, 'docs/app.md');
  writeFileSync(app, withGlossary(readFileSync(app, 'utf8')));
  console.log('wrote docs/cli.md and the glossary of docs/app.md');
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((e) => { console.error(e instanceof Error ? e.message : e); process.exit(1); });
}
