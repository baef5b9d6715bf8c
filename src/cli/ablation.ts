// npm run ablation -- [--world files] [--seeds 5] [--steps 10] [--model models/envace-small] [--config base.json]
//                     [--variants envace,per-role,…] [--tasks 100] [--k 4] [--temperature 0.6] [--top-p 0.95]
//                     [--out runs/ablation] [--budget 0,0.1,0.25,0.5,1 [--budget-variant envace]]
// Trains every variant for every seed, then evaluates the starting model ("base") and every trained model with
// the evaluation protocol (src/bench/evaluation.ts: held-out tasks, Avg@k, real environment), each seed with its
// own sampling seed, so "before" is evaluated per seed exactly like "after". Differences between variants are a
// paired bootstrap over the same seeds and tasks; each of the paper's orderings (EnvACE > per-role > standard
// GRPO > base) gets a verdict at 95%. Each (variant, seed) result is written as it finishes (result.json in its
// folder) and skipped on a rerun; an unfinished training run resumes from its checkpoint.
// Output: summary.json (format in docs/results/README.md) and summary.md.
// --budget adds the real-environment budget sweep: the budget variant (EnvACE) trained per seed with each share p
// of its tool calls executed in the real environment (TrainConfig.realFraction), held-out success against the real
// calls spent in training (summary.json "budget", format envace-budget-sweep/1). With --budget and no --variants,
// only the sweep (and the base model) runs.

import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as advantages from '../rl/advantages';
import { VARIANTS, type VariantName } from '../rl/advantages';
import type { RunSpec } from '../rl/session';
import { DEFAULT_TRAIN_CONFIG, validateTrainConfig } from '../rl/trainer';
import { loadModelFolder } from '../engine/modelFolder';
import { worldNames } from '../envs/worlds/index';
import { evalReport, METRICS, metricValues, PAPER_PROTOCOL, type EvalReport, type MetricName, type TaskScore } from '../bench/evaluation';
import { bootstrapGrid, chainVerdict, compareOrdering, DEFAULT_RESAMPLES, fractionRecovered, type Estimate, type OrderingResult, type Verdict } from '../bench/stats';
import { hashSeed } from '../agent/rollout';
import { MECHANISM_FORMAT, sameOptions, type MechanismMeasure, type MechanismOptions, type MechanismRecord } from '../bench/mechanism';
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
/**
 * Comparisons outside the paper's chain that the playground asks of the same runs (A > B, each with its question):
 * whether training the Rehearse role beats keeping the starting simulator frozen, and how far rehearsal stays from
 * the real environment. Added to `orderings` with `question` set when both variants ran on a common seed.
 */
export const OWN_QUESTIONS: { a: string; b: string; question: string }[] = [
  { a: 'envace', b: 'grpo-simulator', question: 'does training the Rehearse role beat a frozen simulator?' },
  { a: 'grpo-real', b: 'envace', question: 'does the real environment beat rehearsal?' },
];
/** The upper bound the rehearsal variants' gains are measured against (the fraction of its gain they recover). */
export const REAL_ARM = 'grpo-real';
export const BUDGET_FORMAT = 'envace-budget-sweep/1';
/** Variants whose rollouts rehearse, so a real-environment budget means something for them. */
const BUDGET_VARIANTS = Object.entries(VARIANTS as Record<string, { rolloutMode: string }>).filter(([, v]) => v.rolloutMode !== 'real').map(([k]) => k);

export const ABLATION_CLI = defineCli({
  name: 'ablation',
  summary: 'Every variant × seed trained and evaluated with the held-out protocol; paired bootstrap and verdicts for the paper\'s orderings.',
  options: {
    world: { type: 'string', help: 'built-in world', choices: worldNames(), default: 'files' },
    seeds: { type: 'int', help: 'seeds 1..N per variant', default: 5, min: 1 },
    'seed-list': { type: 'numbers', help: 'these seeds instead of 1..N (e.g. one process per core on disjoint seeds, same --out)', min: 1 },
    steps: { type: 'int', help: 'training steps per run', default: 10, min: 0 },
    model: { type: 'string', help: 'starting model folder', default: 'models/envace-small' },
    config: { type: 'string', help: 'JSON training config shared by every run' },
    variants: { type: 'list', help: 'variants to train (with --budget: only when given explicitly)', choices: Object.keys(VARIANTS), default: ABLATION_VARIANTS },
    budget: { type: 'numbers', help: 'real-environment budget sweep: shares p of training tool calls executed in the real environment', min: 0, max: 1 },
    'budget-variant': { type: 'string', help: 'variant trained at every budget', choices: BUDGET_VARIANTS, default: 'envace' },
    tasks: { type: 'int', help: 'held-out evaluation tasks', default: 100, min: 1 },
    offset: { type: 'int', help: 'index of the first held-out task in the test split (a slice nobody tuned on)', default: 0, min: 0 },
    difficulty: { type: 'int', help: 'held-out tasks of this difficulty only (1–3; default all; training tasks: the config\'s "difficulty")', min: 1, max: 3 },
    k: { type: 'int', help: 'samples per task (Avg@k)', default: PAPER_PROTOCOL.k, min: 1 },
    temperature: { type: 'number', help: 'evaluation temperature (0 = greedy)', default: PAPER_PROTOCOL.temperature, min: 0 },
    'top-p': { type: 'number', help: 'evaluation nucleus filter', default: PAPER_PROTOCOL.topP, min: 0, max: 1 },
    resamples: { type: 'int', help: 'bootstrap resamples', default: DEFAULT_RESAMPLES, min: 100 },
    out: { type: 'string', help: 'output folder', default: 'runs/ablation' },
    results: { type: 'string', help: 'also write each finished (variant, seed) result here at once, as VARIANT-seedS.json (e.g. under docs/results/), so a stop loses at most the run in flight; and the summary at the end' },
    import: { type: 'list', help: 'count runs trained earlier with this recipe: VARIANT:SEED:MODEL_DIR (the folder\'s recorded variant, seed, steps, starting model and training config must be this ablation\'s); evaluated like the others, without a per-step curve' },
    'summary-only': { type: 'boolean', help: 'train and evaluate nothing: rebuild summary.json and summary.md from the finished runs in --out' },
    'no-train': { type: 'boolean', help: 'train nothing: evaluate the base model per seed and the --import runs (e.g. the same runs under a second protocol), then the summary' },
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
  /** Held-out tasks of this difficulty only (absent: all). */
  difficulty?: number;
  /** Budget-sweep runs: the share of training tool calls executed in the real environment. */
  realFraction?: number;
  /** The run's end measured by `npm run mechanism` (its folder's mechanism.json), when measured. */
  mechanism?: MechanismMeasure;
  /** A run trained earlier with the same recipe (--import): its model folder. */
  imported?: string;
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
    world: string; split: 'test'; n_tasks: number; offset?: number; k: number; temperature: number; top_p: number;
    seeds: number[]; steps: number; model: string; config: RunSpec;
    /** Held-out tasks of this difficulty only (absent: all). */
    difficulty?: number;
    bootstrap: { resamples: number; seed: number; level: 0.95; over: 'seeds × tasks' };
    primary_metric: MetricName;
  };
  variants: VariantSummary[];
  /** seeds: the seeds both variants have (the pairing of the difference). */
  orderings: (OrderingResult & { chain_link: boolean; seeds: number[]; question?: string })[];
  chain: { order: string[]; metric: MetricName; links: Verdict[]; verdict: Verdict; missing: string[] };
  runs: { variant: string; seed: number; report: EvalReport; seconds_per_step: number | null; curve: Record<string, unknown>[]; evals: Record<string, unknown>[]; mechanism?: MechanismMeasure }[];
  /** The starting model measured by `npm run mechanism`, with its options; each run's end is under runs[].mechanism. */
  mechanism?: { start: MechanismMeasure; options: MechanismOptions };
  /** Present when the run had a real-environment budget sweep (--budget). */
  budget?: BudgetSweep;
  /**
   * How much of the real environment's gain each rehearsal variant recovers on the primary metric: (V − base) /
   * (GRPO + real − base), paired over the seeds all three have (src/bench/stats.ts fractionRecovered).
   */
  fraction_recovered?: { variant: string; seeds: number[]; fraction: Estimate; numerator: Estimate; denominator: Estimate; conclusive: boolean }[];
}

export interface BudgetPoint {
  real_fraction: number; seeds: number[];
  /** Real tool calls spent in training (sum over the run's steps): mean over seeds and each seed's. */
  real_calls: { mean: number; per_seed: number[] };
  /** real_calls.mean over that of the p = 1 point (null without one): the share of GRPO's real interaction spent. */
  real_calls_vs_full: number | null;
  metrics: Record<MetricName, Estimate>;
  /** Paired differences on the same seeds and tasks: to the untrained base model, and to the p = 1 point. */
  vs_base: Record<MetricName, Estimate> | null;
  vs_full: Record<MetricName, Estimate> | null;
  seconds_per_step: number | null;
}

export interface BudgetSweep {
  format: typeof BUDGET_FORMAT;
  variant: string; label: string; fractions: number[]; seeds: number[]; steps: number;
  /** The untrained starting model at 0 real calls: the sweep's origin (also in AblationSummary.variants). */
  base: { real_calls: 0; metrics: Record<MetricName, Estimate> } | null;
  points: BudgetPoint[];
  runs: { real_fraction: number; seed: number; real_calls: number; real_calls_cumulative: number[]; report: EvalReport; seconds_per_step: number | null; curve: Record<string, unknown>[]; evals: Record<string, unknown>[] }[];
}

/** Cumulative real calls after each training step of a run (StepMetrics.realCalls; 0 for older curves without it). */
export function cumulativeRealCalls(curve: Record<string, unknown>[]): number[] {
  let sum = 0;
  return curve.map((m) => (sum += typeof m.realCalls === 'number' ? m.realCalls : 0));
}

/**
 * Pure: the budget sweep of finished runs (tested on hand-made runs). `runs` holds the sweep's runs (realFraction
 * set) and the base model's (variant BASE); a share appears in `points` only when every seed finished.
 */
export function summarizeBudget(runs: RunResult[], p: { variant: string; fractions: number[]; seeds: number[]; steps: number; world: string; resamples: number }): BudgetSweep {
  // The ablation's bootstrap stream, so the base (and a p = 0 run shared with a variant) gets the same interval in both tables.
  const boot = { resamples: p.resamples, seed: hashSeed('ablation-bootstrap', p.world, p.seeds.join(',')) };
  const at = (f: number, s: number) => runs.find((r) => r.variant !== BASE && r.realFraction === f && r.seed === s);
  const baseRun = (s: number) => runs.find((r) => r.variant === BASE && r.seed === s);
  const gridOf = (get: (s: number) => RunResult | undefined, m: MetricName) => p.seeds.map((s) => metricValues(get(s)!.perTask, m));
  const hasBase = p.seeds.every((s) => baseRun(s));
  const complete = p.fractions.filter((f) => p.seeds.every((s) => at(f, s)));
  const total = (r: RunResult) => cumulativeRealCalls(r.curve).at(-1) ?? 0;
  const full = complete.includes(1) ? p.seeds.map((s) => total(at(1, s)!)).reduce((a, b) => a + b, 0) / p.seeds.length : null;
  const diff = (f: number, get: (s: number) => RunResult | undefined, name: string) =>
    Object.fromEntries(METRICS.map((m) => [m, compareOrdering(`budget-${f}`, name, m, gridOf((s) => at(f, s), m), gridOf(get, m), boot).diff])) as Record<MetricName, Estimate>;
  const points: BudgetPoint[] = complete.map((f) => {
    const rs = p.seeds.map((s) => at(f, s)!);
    const perSeed = rs.map(total);
    const mean = perSeed.reduce((a, b) => a + b, 0) / perSeed.length;
    const sps = rs.map((r) => r.secondsPerStep).filter((x): x is number => x !== null);
    return {
      real_fraction: f, seeds: p.seeds,
      real_calls: { mean, per_seed: perSeed },
      real_calls_vs_full: full ? mean / full : null,
      metrics: Object.fromEntries(METRICS.map((m) => [m, bootstrapGrid(gridOf((s) => at(f, s), m), boot)])) as Record<MetricName, Estimate>,
      vs_base: hasBase ? diff(f, baseRun, BASE) : null,
      vs_full: full !== null && f !== 1 ? diff(f, (s) => at(1, s), 'budget-1') : null,
      seconds_per_step: sps.length ? sps.reduce((a, b) => a + b, 0) / sps.length : null,
    };
  });
  return {
    format: BUDGET_FORMAT, variant: p.variant, label: labelOf(p.variant), fractions: p.fractions, seeds: p.seeds, steps: p.steps,
    base: hasBase ? { real_calls: 0, metrics: Object.fromEntries(METRICS.map((m) => [m, bootstrapGrid(gridOf(baseRun, m), boot)])) as Record<MetricName, Estimate> } : null,
    points,
    runs: runs.filter((r) => r.variant !== BASE && r.realFraction !== undefined).map((r) => ({
      real_fraction: r.realFraction!, seed: r.seed, real_calls: total(r), real_calls_cumulative: cumulativeRealCalls(r.curve),
      report: r.report, seconds_per_step: r.secondsPerStep, curve: r.curve, evals: r.evals,
    })),
  };
}

export function budgetMarkdown(b: BudgetSweep): string {
  const lines = [
    `Real-environment budget sweep: ${b.label} trained with a share p of its tool calls executed in the real environment ` +
    `(the rest rehearsed), seeds ${b.seeds.join(', ')} × ${b.steps} steps per share; held-out evaluation as above. ` +
    'Real calls: summed over the training steps, mean over seeds (evaluation calls not counted).',
    '',
    '| p | real calls in training | share of p = 1 | success | checklist | Δ success vs base | Δ success vs p = 1 | Δ checklist vs p = 1 | s/step |',
    '|---|---|---|---|---|---|---|---|---|',
    ...(b.base ? [`| base (untrained) | 0 | – | ${ci(b.base.metrics.success)} | ${ci(b.base.metrics.checklist)} | – | – | – | – |`] : []),
    ...b.points.map((pt) => `| ${pt.real_fraction} | ${pt.real_calls.mean.toFixed(1)} (${pt.real_calls.per_seed.join(', ')}) | ${pt.real_calls_vs_full === null ? '–' : pt.real_calls_vs_full.toFixed(2)} | ${ci(pt.metrics.success)} | ${ci(pt.metrics.checklist)} | ${pt.vs_base ? ci(pt.vs_base.success) : '–'} | ${pt.vs_full ? ci(pt.vs_full.success) : '–'} | ${pt.vs_full ? ci(pt.vs_full.checklist) : '–'} | ${pt.seconds_per_step === null ? '–' : pt.seconds_per_step.toFixed(1)} |`),
  ];
  return lines.join('\n') + '\n';
}

/** seeds × tasks grid of one metric for one variant (rows in seed order). */
function grid(runs: RunResult[], variant: string, seeds: number[], m: MetricName): number[][] {
  return seeds.map((s) => {
    const r = runs.find((x) => x.variant === variant && x.seed === s);
    if (!r) throw new Error(`no result for ${variant} seed ${s}`);
    return metricValues(r.perTask, m);
  });
}

/**
 * Pure: the summary of finished runs (tested on hand-made runs). A variant is summarised on the seeds it has
 * (a powered ablation fills in over sessions, arm by arm); a difference between two variants is paired over the
 * seeds both have, and a pair with no common seed is not compared (its ordering stays "not run").
 */
export function summarize(runs: RunResult[], p: Omit<AblationSummary['protocol'], 'bootstrap' | 'primary_metric'> & { resamples: number }): AblationSummary {
  const boot = { resamples: p.resamples, seed: hashSeed('ablation-bootstrap', p.world, p.seeds.join(',')) };
  const names = [BASE, ...new Set(runs.map((r) => r.variant).filter((v) => v !== BASE))];
  const seedsOf = (v: string) => p.seeds.filter((s) => runs.some((r) => r.variant === v && r.seed === s));
  const common = (a: string, b: string) => seedsOf(a).filter((s) => seedsOf(b).includes(s));
  const complete = names.filter((v) => seedsOf(v).length > 0);
  const compare = (a: string, b: string, m: MetricName) => { const ss = common(a, b); return compareOrdering(a, b, m, grid(runs, a, ss, m), grid(runs, b, ss, m), boot); };
  const variants: VariantSummary[] = complete.map((name) => {
    const rs = runs.filter((r) => r.variant === name);
    const sps = rs.map((r) => r.secondsPerStep).filter((x): x is number => x !== null);
    return {
      name, label: labelOf(name), seeds: seedsOf(name),
      metrics: Object.fromEntries(METRICS.map((m) => [m, bootstrapGrid(grid(runs, name, seedsOf(name), m), boot)])) as Record<MetricName, Estimate>,
      vs_base: name !== BASE && common(name, BASE).length
        ? Object.fromEntries(METRICS.map((m) => [m, compare(name, BASE, m).diff])) as Record<MetricName, Estimate>
        : null,
      seconds_per_step: sps.length ? sps.reduce((a, b) => a + b, 0) / sps.length : null,
    };
  });
  // Every pair the paper's ordering implies (A before B in the chain), on every metric; adjacent pairs are its links.
  const present = PAPER_CHAIN.filter((v) => complete.includes(v));
  const orderings: AblationSummary['orderings'] = [];
  for (let i = 0; i < present.length; i++) {
    for (let j = i + 1; j < present.length; j++) {
      if (!common(present[i]!, present[j]!).length) continue;
      for (const m of METRICS) {
        const o = compare(present[i]!, present[j]!, m);
        orderings.push({ ...o, seeds: common(present[i]!, present[j]!), chain_link: PAPER_CHAIN.indexOf(present[j]!) === PAPER_CHAIN.indexOf(present[i]!) + 1 });
      }
    }
  }
  for (const q of OWN_QUESTIONS) {
    const seeds = complete.includes(q.a) && complete.includes(q.b) ? common(q.a, q.b) : [];
    if (seeds.length) for (const m of METRICS) orderings.push({ ...compare(q.a, q.b, m), seeds, chain_link: false, question: q.question });
  }
  const primary: MetricName = 'success';
  const fraction_recovered: NonNullable<AblationSummary['fraction_recovered']> = [];
  if (complete.includes(REAL_ARM) && complete.includes(BASE)) {
    for (const v of complete.filter((x) => x !== REAL_ARM && x !== BASE)) {
      const seeds = common(v, REAL_ARM).filter((sd) => common(v, BASE).includes(sd));
      if (!seeds.length) continue;
      const f = fractionRecovered(grid(runs, v, seeds, primary), grid(runs, REAL_ARM, seeds, primary), grid(runs, BASE, seeds, primary), boot);
      fraction_recovered.push({ variant: v, seeds, ...f });
    }
  }
  const links = orderings.filter((o) => o.chain_link && o.metric === primary).map((o) => o.verdict);
  const missing = PAPER_CHAIN.filter((v) => !complete.includes(v));
  return {
    format: SUMMARY_FORMAT,
    protocol: { ...p, bootstrap: { ...boot, level: 0.95, over: 'seeds × tasks' }, primary_metric: primary },
    variants, orderings,
    // With a variant missing (or two neighbours without a common seed) the chain cannot be reproduced as a whole.
    chain: { order: PAPER_CHAIN, metric: primary, links, verdict: (missing.length || links.length < PAPER_CHAIN.length - 1) && chainVerdict(links) === 'reproduced' ? 'inconclusive' : chainVerdict(links), missing },
    ...(fraction_recovered.length ? { fraction_recovered } : {}),
    runs: runs.map((r) => ({ variant: r.variant, seed: r.seed, report: r.report, seconds_per_step: r.secondsPerStep, curve: slimCurve(r.curve), evals: r.evals, ...(r.mechanism ? { mechanism: r.mechanism } : {}) })),
  };
}

/**
 * The per-step fields a summary keeps (what the Benchmarks page draws, and the training diagnostics), at 4 significant
 * digits: the Benchmarks page bundles every summary.json, and 300 steps × 40 fields × 15 runs would be megabytes.
 * Each run's full metrics stay in its result.json.
 */
export const SUMMARY_CURVE_FIELDS = ['step', 'reward', 'trainSuccess', 'fidelityF1', 'informativeShare', 'entropy', 'klToInit', 'realCalls', 'skipped'] as const;

export function slimCurve(curve: Record<string, unknown>[]): Record<string, unknown>[] {
  return curve.map((m) => {
    const out: Record<string, unknown> = Object.create(null);
    for (const k of SUMMARY_CURVE_FIELDS) {
      const v = m[k];
      if (v === undefined) continue;
      out[k] = typeof v === 'number' && Number.isFinite(v) && !Number.isInteger(v) ? Number(v.toPrecision(4)) : v;
    }
    return out;
  });
}

const ci = (e: Estimate, digits = 3) => `${e.mean.toFixed(digits)} [${e.ci95[0].toFixed(digits)}, ${e.ci95[1].toFixed(digits)}]`;

export function summaryMarkdown(s: AblationSummary): string {
  const p = s.protocol;
  const lines = [
    `Ablation on the built-in **${p.world}** world from \`${p.model}\`: seeds ${p.seeds.join(', ')} × ${p.steps} steps per variant (each variant on the seeds in its row; differences paired over the seeds both have). ` +
    `Evaluation: ${p.n_tasks} held-out tasks${p.offset ? ` (test tasks ${p.offset}–${p.offset + p.n_tasks - 1})` : ''}${p.difficulty ? ` of difficulty ${p.difficulty}` : ""}${p.config.difficulty ? ` (training tasks of difficulty ${p.config.difficulty})` : ""}, Avg@${p.k} at T ${p.temperature}, top-p ${p.top_p}, real environment; the base model is evaluated per seed like every trained one. ` +
    `Means with 95% bootstrap intervals over seeds × tasks (${p.bootstrap.resamples} resamples); differences by a paired bootstrap over the same seeds and tasks.`,
    '',
    '| variant | seeds | success | state check | checklist | pass@k | Δ success vs base | Δ checklist vs base | s/step |',
    '|---|---|---|---|---|---|---|---|---|',
    ...s.variants.map((v) => `| ${v.label} | ${v.seeds.join(', ')} | ${ci(v.metrics.success)} | ${ci(v.metrics.outcome)} | ${ci(v.metrics.checklist)} | ${ci(v.metrics.pass_at_k)} | ${v.vs_base ? ci(v.vs_base.success) : '–'} | ${v.vs_base ? ci(v.vs_base.checklist) : '–'} | ${v.seconds_per_step === null ? '–' : v.seconds_per_step.toFixed(1)} |`),
    '',
    `The paper's ordering ${s.chain.order.map(labelShort).join(' > ')} on ${s.chain.metric}: **${s.chain.verdict}**${s.chain.missing.length ? ` (not run: ${s.chain.missing.map(labelShort).join(', ')})` : ''}.`,
    // A budget sweep alone trains no variant: no ordering to tabulate.
    ...(s.orderings.length ? ['', '| ordering | metric | paired seeds | A − B | verdict at 95% | MDE |', '|---|---|---|---|---|---|'] : []),
    ...s.orderings.map((o) => `| ${labelShort(o.a)} > ${labelShort(o.b)}${o.chain_link ? '' : o.question ? ` (not in the paper's chain: ${o.question})` : ' (implied)'} | ${o.metric} | ${(o.seeds ?? s.protocol.seeds).join(', ')} | ${ci(o.diff)} | ${o.verdict} | ±${o.mde.toFixed(3)} |`),
    ...(s.fraction_recovered?.length ? ['', `Fraction of the real environment's gain recovered, (V − base) / (${labelShort(REAL_ARM)} − base) on ${s.chain.metric}, seeds × tasks resampled together, percentile interval; read only where the real gain's interval stays above 0.02:`, '',
      '| variant | paired seeds | V − base | real − base | fraction [95%] | readable |', '|---|---|---|---|---|---|',
      ...s.fraction_recovered.map((f) => `| ${labelShort(f.variant)} | ${f.seeds.join(', ')} | ${ci(f.numerator)} | ${ci(f.denominator)} | ${Number.isFinite(f.fraction.mean) ? ci(f.fraction, 2) : '–'} | ${f.conclusive ? 'yes' : 'no: inconclusive'} |`)] : []),
  ];
  return lines.join('\n') + '\n';
}

/** Whether a finished run was measured with this command's protocol (same held-out slice, sampling and steps). */
export function sameProtocol(r: RunResult, a: { tasks: number; offset: number; difficulty?: number; k: number; temperature: number; 'top-p': number; world: string; steps: number }): boolean {
  const p = r.report;
  return p.n_tasks === a.tasks && (p.offset ?? 0) === a.offset && (r.difficulty ?? undefined) === a.difficulty && p.k === a.k && p.temperature === a.temperature &&
    p.top_p === a['top-p'] && p.world === a.world && r.steps === (r.variant === BASE ? 0 : a.steps);
}

/** Every result.json one level under `out` (run folders), in name order; an unreadable one is named and skipped. */
export async function folderResults(out: string): Promise<RunResult[]> {
  if (!existsSync(out)) return [];
  const found: RunResult[] = [];
  for (const d of (await readdir(out, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name).sort()) {
    const f = join(out, d, 'result.json');
    if (!existsSync(f)) continue;
    try { found.push(JSON.parse(await readFile(f, 'utf8')) as RunResult); } catch (e) { process.stderr.write(`${f}: not readable (${(e as Error).message}); left out of the summary\n`); }
  }
  return found;
}

/**
 * Why a model folder is not a run of this ablation (--import): its recorded RL run (config.json envace.rl) against
 * the variant, seed, steps, starting model and resolved training config this ablation would use. A field the
 * recorded config lacks counts as its default (fields added since keep the old behaviour by default). [] = it is one.
 */
export function importMismatch(rl: unknown, want: { variant: string; seed: number; steps: number; model: string; config: Record<string, unknown> }, defaults: Record<string, unknown>): string[] {
  if (typeof rl !== 'object' || rl === null) return ['the folder records no RL run (config.json envace.rl)'];
  const r = rl as { variant?: unknown; seed?: unknown; steps?: unknown; from?: unknown; config?: Record<string, unknown> };
  const out: string[] = [];
  if (r.variant !== want.variant) out.push(`variant ${String(r.variant)}, not ${want.variant}`);
  if (r.seed !== want.seed) out.push(`seed ${String(r.seed)}, not ${want.seed}`);
  if (r.steps !== want.steps) out.push(`${String(r.steps)} steps, not ${want.steps}`);
  if (String(r.from ?? '').replace(/\/+$/, '') !== want.model.replace(/\/+$/, '')) out.push(`trained from ${String(r.from)}, not ${want.model}`);
  const got = r.config ?? {};
  for (const k of [...new Set([...Object.keys(got), ...Object.keys(want.config)])].sort()) {
    const g = k in got ? got[k] : defaults[k];
    if (JSON.stringify(g) !== JSON.stringify(want.config[k])) out.push(`${k} ${JSON.stringify(g)}, not ${JSON.stringify(want.config[k])}`);
  }
  return out;
}

/** A run spec's training config alone (what a trained folder records as envace.rl.config). */
const stripSpec = ({ world: _w, difficulty: _d, taskPool: _t, poolSeeds: _p, model: _m, ...cfg }: RunSpec & { model?: string }) => cfg;

/** Where one (variant, seed) of an ablation lives, and the mechanism's files (npm run mechanism): one place for both commands. */
export const runFolder = (out: string, variant: string, seed: number) => join(out, `${variant}-seed${seed}`);
export const MECHANISM_START = 'mechanism-start.json';
export const MECHANISM_FILE = 'mechanism.json';

/** A mechanism record (npm run mechanism), or null when absent, of another format, or measured with other options. */
export async function readMechanism(f: string, options?: MechanismOptions): Promise<MechanismRecord | null> {
  if (!existsSync(f)) return null;
  const r = JSON.parse(await readFile(f, 'utf8')) as MechanismRecord;
  return r.format === MECHANISM_FORMAT && (!options || sameOptions(r.options, options)) ? r : null;
}

/**
 * Put back into `out` what the results folder holds and the run folders lack: each finished (arm, seed)'s result
 * (VARIANT-seedS.json, budget-pP-seedS.json) as its run folder's result.json, and the mechanism records. The results
 * folder is the committed, durable copy; `out` (runs/) is scratch that a new machine does not have. A run folder
 * that already has its file keeps it. Returns the files written.
 */
export async function restoreFromResults(out: string, results: string): Promise<string[]> {
  if (!existsSync(results)) return [];
  const written: string[] = [];
  const put = async (to: string, from: string) => {
    if (existsSync(to)) return;
    await mkdir(join(to, '..'), { recursive: true });
    await writeFile(to, await readFile(join(results, from)));
    written.push(to);
  };
  for (const name of (await readdir(results)).sort()) {
    const m = /^(mechanism-)?([\w.-]+)-seed(\d+)\.json$/.exec(name);
    if (!m) continue;
    const [mech, run, seed] = [Boolean(m[1]), m[2]!, Number(m[3])];
    if (!mech) await put(join(out, `${run}-seed${seed}`, 'result.json'), name);
    else await put(run === 'start' ? join(out, MECHANISM_START) : join(runFolder(out, run, seed), MECHANISM_FILE), name);
  }
  return written;
}

/** This process's runs, then the folder's others; one per (variant, seed). */
export function mergeRuns(mine: RunResult[], others: RunResult[]): RunResult[] {
  const key = (r: RunResult) => `${r.variant}|${r.seed}`;
  const seen = new Set(mine.map(key));
  return [...mine, ...others.filter((r) => !seen.has(key(r)) && seen.add(key(r)))];
}

function labelShort(v: string): string { return v === BASE ? 'base' : ((VARIANTS as Record<string, { short?: string }>)[v]?.short ?? v); }

async function main() {
  const a = cliArgs(ABLATION_CLI);
  const base: RunSpec = a.config ? JSON.parse(await readFile(a.config, 'utf8')) : {};
  const seeds = a['seed-list']?.length ? [...new Set(a['seed-list'])] : Array.from({ length: a.seeds }, (_, i) => i + 1);
  if (!seeds.every((x) => Number.isInteger(x))) throw new Error(`--seed-list takes whole numbers, got ${seeds.join(',')}`);
  if (a.results) await mkdir(a.results, { recursive: true });
  const save = async (dir: string, r: RunResult) => {
    const text = JSON.stringify(r) + '\n';
    await writeFile(join(dir, 'result.json'), text);
    if (a.results) await writeFile(join(a.results, `${r.realFraction !== undefined ? `budget-p${r.realFraction}` : r.variant}-seed${r.seed}.json`), text);
  };
  const sampling = { k: a.k, temperature: a.temperature, topP: a['top-p'] };
  await mkdir(a.out, { recursive: true });
  if (a.results) {
    const restored = await restoreFromResults(a.out, a.results);
    if (restored.length) process.stderr.write(`${restored.length} finished file(s) put back into ${a.out} from ${a.results}\n`);
  }
  const startFolder = await loadModelFolder(a.model);
  const runs: RunResult[] = [];
  const evaluate = async (folderPath: string | null, variant: string, seed: number, label: string) => {
    const folder = folderPath ? await loadModelFolder(folderPath) : startFolder;
    const r = await evaluateFolder({ folder, model: folderPath ?? a.model, world: a.world, tasks: a.tasks, offset: a.offset, difficulty: a.difficulty, sampling: { ...sampling, seed }, label });
    return { report: evalReport(r, { model: folderPath ?? a.model, world: a.world, offset: a.offset, ...sampling, seed }, { resamples: a.resamples, seed: hashSeed('bootstrap', seed) }), perTask: r.perTask };
  };
  const finished = async (dir: string): Promise<RunResult | null> => {
    const f = join(dir, 'result.json');
    if (!existsSync(f)) return null;
    const r = JSON.parse(await readFile(f, 'utf8')) as RunResult;
    // A result measured with another protocol is not reused.
    if (!sameProtocol(r, a)) return null;
    process.stderr.write(`${r.variant}${r.realFraction !== undefined ? ` p ${r.realFraction}` : ''} seed ${r.seed}: done earlier (${f})\n`);
    return r;
  };
  for (const seed of a['summary-only'] ? [] : seeds) {
    const dir = runFolder(a.out, BASE, seed);
    let r = await finished(dir);
    if (!r) {
      await mkdir(dir, { recursive: true });
      const e = await evaluate(null, BASE, seed, `base seed ${seed} eval`);
      r = { variant: BASE, seed, steps: 0, secondsPerStep: null, ...e, curve: [], evals: [], difficulty: a.difficulty };
      await save(dir, r);
    }
    runs.push(r);
  }
  for (const spec of a['summary-only'] ? [] : a.import ?? []) {
    const m = /^([\w-]+):(\d+):(.+)$/.exec(spec);
    if (!m || !(m[1]! in VARIANTS)) throw new Error(`--import ${spec}: expected VARIANT:SEED:MODEL_DIR with a known variant`);
    const [variant, seed, dir] = [m[1]!, Number(m[2]), m[3]!];
    const target = runFolder(a.out, variant, seed);
    let r = await finished(target);
    if (!r) {
      const folder = await loadModelFolder(dir);
      const runSpec = { ...base, variant: variant as VariantName, seed, steps: a.steps };
      const resolved = validateTrainConfig(stripSpec(runSpec));
      if (!resolved.ok) throw new Error(`--import ${spec}: ${resolved.errors.join('; ')}`);
      const problems = importMismatch((folder.rawConfig.envace as { rl?: unknown } | undefined)?.rl, { variant, seed, steps: a.steps, model: a.model, config: resolved.config as unknown as Record<string, unknown> }, DEFAULT_TRAIN_CONFIG as unknown as Record<string, unknown>);
      if (problems.length) throw new Error(`--import ${spec}: not this ablation's recipe: ${problems.join('; ')}`);
      await mkdir(target, { recursive: true });
      await writeFile(join(target, 'config.json'), JSON.stringify({ model: a.model, world: a.world, ...runSpec, resolved: resolved.config }, null, 2) + '\n');
      const e = await evaluate(dir, variant, seed, `${variant} seed ${seed} (imported) eval`);
      r = { variant, seed, steps: a.steps, secondsPerStep: null, ...e, curve: [], evals: [], difficulty: a.difficulty, imported: dir };
      await save(target, r);
    }
    runs.push(r);
  }
  const budget = [...new Set(a.budget ?? [])];
  // A budget sweep alone unless variants were asked for by name (the default list would multiply its cost).
  const named = process.argv.slice(2).some((x) => x === '--variants' || x.startsWith('--variants='));
  for (const variant of (a['summary-only'] || a['no-train'] || (budget.length && !named) ? [] : a.variants) as VariantName[]) {
    for (const seed of seeds) {
      const dir = runFolder(a.out, variant, seed);
      let r = await finished(dir);
      if (!r) {
        const t = await runTraining({
          spec: { ...base, model: a.model, world: a.world, variant, seed, steps: a.steps }, out: dir,
          resume: existsSync(join(dir, 'checkpoints')), label: `${variant} seed ${seed}`,
        });
        const e = await evaluate(join(dir, 'model'), variant, seed, `${variant} seed ${seed} eval`);
        r = { variant, seed, steps: a.steps, secondsPerStep: t.secondsPerStep, ...e, curve: await readJsonl(join(dir, 'metrics.jsonl')), evals: await readJsonl(join(dir, 'evals.jsonl')), difficulty: a.difficulty };
        await save(dir, r);
      }
      runs.push(r);
    }
  }
  const budgetRuns: RunResult[] = [];
  for (const p of a['summary-only'] || a['no-train'] ? [] : budget) {
    for (const seed of seeds) {
      const dir = join(a.out, `budget-p${p}-seed${seed}`);
      // p = 0 is the plain variant: its run of this ablation is reused when there is one.
      const same = p === 0 && !base.realFraction ? runs.find((r) => r.variant === a['budget-variant'] && r.seed === seed) : undefined;
      let r = same ? { ...same, realFraction: 0 } : await finished(dir);
      if (r && r.realFraction !== p) r = null;
      if (!r) {
        const label = `budget p ${p} seed ${seed}`;
        const t = await runTraining({
          spec: { ...base, model: a.model, world: a.world, variant: a['budget-variant'] as VariantName, seed, steps: a.steps, realFraction: p }, out: dir,
          resume: existsSync(join(dir, 'checkpoints')), label,
        });
        const e = await evaluate(join(dir, 'model'), a['budget-variant'], seed, `${label} eval`);
        r = { variant: a['budget-variant'], seed, steps: a.steps, secondsPerStep: t.secondsPerStep, ...e, curve: await readJsonl(join(dir, 'metrics.jsonl')), evals: await readJsonl(join(dir, 'evals.jsonl')), realFraction: p };
        await save(dir, r);
      }
      budgetRuns.push(r);
    }
  }
  // The summary covers every finished run of this protocol in the folder, also those another process (--seed-list on
  // the other core) or an earlier session wrote, so the last process to finish leaves the whole table.
  const all = mergeRuns(runs, (await folderResults(a.out)).filter((r) => r.realFraction === undefined && sameProtocol(r, a)));
  const allSeeds = [...new Set(all.map((r) => r.seed))].sort((x, y) => x - y);
  // The mechanism's measurements (npm run mechanism), where a run has them with the starting model's.
  const start = await readMechanism(join(a.out, MECHANISM_START));
  if (start) for (const r of all) r.mechanism = (await readMechanism(join(runFolder(a.out, r.variant, r.seed), MECHANISM_FILE), start.options))?.measure ?? r.mechanism;
  const s = summarize(all, { world: a.world, split: 'test', n_tasks: a.tasks, offset: a.offset, difficulty: a.difficulty, k: a.k, temperature: a.temperature, top_p: a['top-p'], seeds: allSeeds, steps: a.steps, model: a.model, config: base, resamples: a.resamples });
  if (budget.length) s.budget = summarizeBudget([...runs.filter((r) => r.variant === BASE), ...budgetRuns], { variant: a['budget-variant'], fractions: budget, seeds, steps: a.steps, world: a.world, resamples: a.resamples });
  if (start && all.some((r) => r.mechanism)) s.mechanism = { start: start.measure, options: start.options };
  const md = summaryMarkdown(s) + (s.budget ? '\n' + budgetMarkdown(s.budget) : '');
  // The results folder gets the summary too (a committed folder under docs/results/ is drawn by the Benchmarks page).
  for (const dir of a.results ? [a.out, a.results] : [a.out]) {
    await writeFile(join(dir, 'summary.json'), JSON.stringify(s, null, 2) + '\n');
    await writeFile(join(dir, 'summary.md'), md);
  }
  console.log(md);
}

const isMain = /(^|[\/])ablation.ts$/.test(process.argv[1] ?? '');
if (isMain) main().catch((e) => { console.error(e); process.exit(1); });
