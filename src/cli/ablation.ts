// npm run ablation -- [--world files] [--seeds 5] [--steps 10] [--model models/envace-small] [--config base.json]
//                     [--variants envace,per-role,…] [--tasks 100] [--k 4] [--temperature 0.6] [--top-p 0.95]
//                     [--out runs/ablation]
// Trains every variant for every seed, then evaluates the starting model ("base") and every trained model with
// the evaluation protocol (src/bench/evaluation.ts: held-out tasks, Avg@k, real environment), each seed with its
// own sampling seed, so "before" is evaluated per seed exactly like "after". Differences between variants are a
// paired bootstrap over the same seeds and tasks; each of the paper's orderings (EnvACE > per-role > standard
// GRPO > base) gets a verdict at 95%. Each (variant, seed) result is written as it finishes (result.json in its
// folder) and skipped on a rerun; an unfinished training run resumes from its checkpoint.
// Output: summary.json (format in docs/results/README.md) and summary.md.

import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as advantages from '../rl/advantages';
import { VARIANTS, type VariantName } from '../rl/advantages';
import type { RunSpec } from '../rl/session';
import { loadModelFolder } from '../engine/modelFolder';
import { worldNames } from '../envs/worlds/index';
import { evalReport, METRICS, metricValues, PAPER_PROTOCOL, type EvalReport, type MetricName, type TaskScore } from '../bench/evaluation';
import { bootstrapGrid, chainVerdict, compareOrdering, DEFAULT_RESAMPLES, type Estimate, type OrderingResult, type Verdict } from '../bench/stats';
import { hashSeed } from '../agent/rollout';
import { cliArgs, defineCli } from './args';
import { evaluateFolder } from './eval';
import { runTraining } from './train';

// The variant list comes from src/rl/advantages.ts (HEADLINE_VARIANTS); older trees without it: every variant.
const exported = advantages as unknown as { HEADLINE_VARIANTS?: readonly string[] };
export const ABLATION_VARIANTS: string[] = [...(exported.HEADLINE_VARIANTS ?? Object.keys(VARIANTS))];
const labelOf = (v: string) => (v === BASE ? 'Base (starting model, untrained)' : (VARIANTS as Record<string, { label: string }>)[v]?.label ?? v);

export const BASE = 'base';
/** The paper's ordering, best first; a name missing from this tree is skipped. */
export const PAPER_CHAIN: string[] = ['envace', 'per-role', (['standard-grpo', 'grpo-simulator'].find((v) => v in VARIANTS) ?? 'standard-grpo'), BASE];
export const SUMMARY_FORMAT = 'envace-ablation-summary/1';

export const ABLATION_CLI = defineCli({
  name: 'ablation',
  summary: 'Every variant × seed trained and evaluated with the held-out protocol; paired bootstrap and verdicts for the paper\'s orderings.',
  options: {
    world: { type: 'string', help: 'built-in world', choices: worldNames(), default: 'files' },
    seeds: { type: 'int', help: 'seeds 1..N per variant', default: 5, min: 1 },
    steps: { type: 'int', help: 'training steps per run', default: 10, min: 0 },
    model: { type: 'string', help: 'starting model folder', default: 'models/envace-small' },
    config: { type: 'string', help: 'JSON training config shared by every run' },
    variants: { type: 'list', help: 'variants to train', choices: Object.keys(VARIANTS), default: ABLATION_VARIANTS },
    tasks: { type: 'int', help: 'held-out evaluation tasks', default: 100, min: 1 },
    k: { type: 'int', help: 'samples per task (Avg@k)', default: PAPER_PROTOCOL.k, min: 1 },
    temperature: { type: 'number', help: 'evaluation temperature (0 = greedy)', default: PAPER_PROTOCOL.temperature, min: 0 },
    'top-p': { type: 'number', help: 'evaluation nucleus filter', default: PAPER_PROTOCOL.topP, min: 0, max: 1 },
    resamples: { type: 'int', help: 'bootstrap resamples', default: DEFAULT_RESAMPLES, min: 100 },
    out: { type: 'string', help: 'output folder', default: 'runs/ablation' },
  },
});

/** One finished (variant, seed): what result.json holds. */
export interface RunResult {
  variant: string; seed: number; steps: number;
  secondsPerStep: number | null;
  report: EvalReport;
  perTask: TaskScore[];
  /** Training curves: one entry per step (metrics.jsonl) and per scheduled evaluation (evals.jsonl). */
  curve: Record<string, unknown>[];
  evals: Record<string, unknown>[];
}

async function readJsonl(path: string): Promise<Record<string, unknown>[]> {
  if (!existsSync(path)) return [];
  return (await readFile(path, 'utf8')).split('\n').filter(Boolean).map((l) => JSON.parse(l));
}

export interface VariantSummary {
  name: string; label: string; seeds: number[];
  /** Bootstrap over seeds × tasks. */
  metrics: Record<MetricName, Estimate>;
  /** Paired difference to the base model on the same seeds and tasks. */
  vs_base: Record<MetricName, Estimate> | null;
  seconds_per_step: number | null;
}

export interface AblationSummary {
  format: typeof SUMMARY_FORMAT;
  protocol: {
    world: string; split: 'test'; n_tasks: number; k: number; temperature: number; top_p: number;
    seeds: number[]; steps: number; model: string; config: RunSpec;
    bootstrap: { resamples: number; seed: number; level: 0.95; over: 'seeds × tasks' };
    primary_metric: MetricName;
  };
  variants: VariantSummary[];
  orderings: (OrderingResult & { chain_link: boolean })[];
  chain: { order: string[]; metric: MetricName; links: Verdict[]; verdict: Verdict; missing: string[] };
  runs: { variant: string; seed: number; report: EvalReport; seconds_per_step: number | null; curve: Record<string, unknown>[]; evals: Record<string, unknown>[] }[];
}

/** seeds × tasks grid of one metric for one variant (rows in seed order). */
function grid(runs: RunResult[], variant: string, seeds: number[], m: MetricName): number[][] {
  return seeds.map((s) => {
    const r = runs.find((x) => x.variant === variant && x.seed === s);
    if (!r) throw new Error(`no result for ${variant} seed ${s}`);
    return metricValues(r.perTask, m);
  });
}

/** Pure: the summary of finished runs (tested on hand-made runs). */
export function summarize(runs: RunResult[], p: Omit<AblationSummary['protocol'], 'bootstrap' | 'primary_metric'> & { resamples: number }): AblationSummary {
  const boot = { resamples: p.resamples, seed: hashSeed('ablation-bootstrap', p.world, p.seeds.join(',')) };
  const names = [BASE, ...new Set(runs.map((r) => r.variant).filter((v) => v !== BASE))];
  const complete = names.filter((v) => p.seeds.every((s) => runs.some((r) => r.variant === v && r.seed === s)));
  const hasBase = complete.includes(BASE);
  const variants: VariantSummary[] = complete.map((name) => {
    const rs = runs.filter((r) => r.variant === name);
    const sps = rs.map((r) => r.secondsPerStep).filter((x): x is number => x !== null);
    return {
      name, label: labelOf(name), seeds: p.seeds,
      metrics: Object.fromEntries(METRICS.map((m) => [m, bootstrapGrid(grid(runs, name, p.seeds, m), boot)])) as Record<MetricName, Estimate>,
      vs_base: hasBase && name !== BASE
        ? Object.fromEntries(METRICS.map((m) => [m, compareOrdering(name, BASE, m, grid(runs, name, p.seeds, m), grid(runs, BASE, p.seeds, m), boot).diff])) as Record<MetricName, Estimate>
        : null,
      seconds_per_step: sps.length ? sps.reduce((a, b) => a + b, 0) / sps.length : null,
    };
  });
  // Every pair the paper's ordering implies (A before B in the chain), on every metric; adjacent pairs are its links.
  const chain = PAPER_CHAIN.filter((v) => complete.includes(v));
  const orderings: AblationSummary['orderings'] = [];
  for (let i = 0; i < chain.length; i++) {
    for (let j = i + 1; j < chain.length; j++) {
      for (const m of METRICS) {
        const o = compareOrdering(chain[i]!, chain[j]!, m, grid(runs, chain[i]!, p.seeds, m), grid(runs, chain[j]!, p.seeds, m), boot);
        orderings.push({ ...o, chain_link: PAPER_CHAIN.indexOf(chain[j]!) === PAPER_CHAIN.indexOf(chain[i]!) + 1 });
      }
    }
  }
  const primary: MetricName = 'success';
  const links = orderings.filter((o) => o.chain_link && o.metric === primary).map((o) => o.verdict);
  const missing = PAPER_CHAIN.filter((v) => !complete.includes(v));
  return {
    format: SUMMARY_FORMAT,
    protocol: { ...p, bootstrap: { ...boot, level: 0.95, over: 'seeds × tasks' }, primary_metric: primary },
    variants, orderings,
    // With a variant missing the chain cannot be reproduced as a whole.
    chain: { order: PAPER_CHAIN, metric: primary, links, verdict: missing.length && chainVerdict(links) === 'reproduced' ? 'inconclusive' : chainVerdict(links), missing },
    runs: runs.map((r) => ({ variant: r.variant, seed: r.seed, report: r.report, seconds_per_step: r.secondsPerStep, curve: r.curve, evals: r.evals })),
  };
}

const ci = (e: Estimate, digits = 3) => `${e.mean.toFixed(digits)} [${e.ci95[0].toFixed(digits)}, ${e.ci95[1].toFixed(digits)}]`;

export function summaryMarkdown(s: AblationSummary): string {
  const p = s.protocol;
  const lines = [
    `Ablation on the built-in **${p.world}** world from \`${p.model}\`: seeds ${p.seeds.join(', ')} × ${p.steps} steps per variant. ` +
    `Evaluation: ${p.n_tasks} held-out tasks, Avg@${p.k} at T ${p.temperature}, top-p ${p.top_p}, real environment; the base model is evaluated per seed like every trained one. ` +
    `Means with 95% bootstrap intervals over seeds × tasks (${p.bootstrap.resamples} resamples); differences by a paired bootstrap over the same seeds and tasks.`,
    '',
    '| variant | success | state check | checklist | pass@k | Δ success vs base | Δ checklist vs base | s/step |',
    '|---|---|---|---|---|---|---|---|',
    ...s.variants.map((v) => `| ${v.label} | ${ci(v.metrics.success)} | ${ci(v.metrics.outcome)} | ${ci(v.metrics.checklist)} | ${ci(v.metrics.pass_at_k)} | ${v.vs_base ? ci(v.vs_base.success) : '–'} | ${v.vs_base ? ci(v.vs_base.checklist) : '–'} | ${v.seconds_per_step === null ? '–' : v.seconds_per_step.toFixed(1)} |`),
    '',
    `The paper's ordering ${s.chain.order.map(labelShort).join(' > ')} on ${s.chain.metric}: **${s.chain.verdict}**${s.chain.missing.length ? ` (not run: ${s.chain.missing.map(labelShort).join(', ')})` : ''}.`,
    '',
    '| ordering | metric | A − B | verdict at 95% |',
    '|---|---|---|---|',
    ...s.orderings.map((o) => `| ${labelShort(o.a)} > ${labelShort(o.b)}${o.chain_link ? '' : ' (implied)'} | ${o.metric} | ${ci(o.diff)} | ${o.verdict} |`),
  ];
  return lines.join('\n') + '\n';
}

function labelShort(v: string): string { return v === BASE ? 'base' : ((VARIANTS as Record<string, { short?: string }>)[v]?.short ?? v); }

async function main() {
  const a = cliArgs(ABLATION_CLI);
  const base: RunSpec = a.config ? JSON.parse(await readFile(a.config, 'utf8')) : {};
  const seeds = Array.from({ length: a.seeds }, (_, i) => i + 1);
  const sampling = { k: a.k, temperature: a.temperature, topP: a['top-p'] };
  await mkdir(a.out, { recursive: true });
  const startFolder = await loadModelFolder(a.model);
  const runs: RunResult[] = [];
  const evaluate = async (folderPath: string | null, variant: string, seed: number, label: string) => {
    const folder = folderPath ? await loadModelFolder(folderPath) : startFolder;
    const r = await evaluateFolder({ folder, model: folderPath ?? a.model, world: a.world, tasks: a.tasks, sampling: { ...sampling, seed }, label });
    return { report: evalReport(r, { model: folderPath ?? a.model, world: a.world, ...sampling, seed }, { resamples: a.resamples, seed: hashSeed('bootstrap', seed) }), perTask: r.perTask };
  };
  const finished = async (dir: string): Promise<RunResult | null> => {
    const f = join(dir, 'result.json');
    if (!existsSync(f)) return null;
    const r = JSON.parse(await readFile(f, 'utf8')) as RunResult;
    const p = r.report;
    // A result measured with another protocol is not reused.
    if (p.n_tasks !== a.tasks || p.k !== a.k || p.temperature !== a.temperature || p.top_p !== a['top-p'] || p.world !== a.world || r.steps !== (r.variant === BASE ? 0 : a.steps)) return null;
    process.stderr.write(`${r.variant} seed ${r.seed}: done earlier (${f})\n`);
    return r;
  };
  for (const seed of seeds) {
    const dir = join(a.out, `${BASE}-seed${seed}`);
    let r = await finished(dir);
    if (!r) {
      await mkdir(dir, { recursive: true });
      const e = await evaluate(null, BASE, seed, `base seed ${seed} eval`);
      r = { variant: BASE, seed, steps: 0, secondsPerStep: null, ...e, curve: [], evals: [] };
      await writeFile(join(dir, 'result.json'), JSON.stringify(r) + '\n');
    }
    runs.push(r);
  }
  for (const variant of a.variants as VariantName[]) {
    for (const seed of seeds) {
      const dir = join(a.out, `${variant}-seed${seed}`);
      let r = await finished(dir);
      if (!r) {
        const t = await runTraining({
          spec: { ...base, model: a.model, world: a.world, variant, seed, steps: a.steps }, out: dir,
          resume: existsSync(join(dir, 'checkpoints')), label: `${variant} seed ${seed}`,
        });
        const e = await evaluate(join(dir, 'model'), variant, seed, `${variant} seed ${seed} eval`);
        r = { variant, seed, steps: a.steps, secondsPerStep: t.secondsPerStep, ...e, curve: await readJsonl(join(dir, 'metrics.jsonl')), evals: await readJsonl(join(dir, 'evals.jsonl')) };
        await writeFile(join(dir, 'result.json'), JSON.stringify(r) + '\n');
      }
      runs.push(r);
    }
  }
  const s = summarize(runs, { world: a.world, split: 'test', n_tasks: a.tasks, k: a.k, temperature: a.temperature, top_p: a['top-p'], seeds, steps: a.steps, model: a.model, config: base, resamples: a.resamples });
  const md = summaryMarkdown(s);
  await writeFile(join(a.out, 'summary.json'), JSON.stringify(s, null, 2) + '\n');
  await writeFile(join(a.out, 'summary.md'), md);
  console.log(md);
}

const isMain = /(^|[\/])ablation.ts$/.test(process.argv[1] ?? '');
if (isMain) main().catch((e) => { console.error(e); process.exit(1); });
