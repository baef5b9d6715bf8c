// The mechanism behind an ablation (issue 20 §2): for the starting model and for every trained (variant, seed),
// the same measurements of the world model and of the policy, so each run's change can be set against its change in
// held-out success. Measured after training, from the run's final checkpoint (src/cli/mechanism.ts), so the runs'
// own scheduled evaluations stay cheap and every run is measured on the same probes, tasks and seeds.

import { tInterval, type Estimate } from './stats';

export const MECHANISM_FORMAT = 'envace-mechanism/1';

/** What is measured on one model (the starting model, or one trained run's end). */
export interface MechanismMeasure {
  /** Success on the trainer's evaluation tasks (greedy, real environment). */
  success: number;
  /** On-path fidelity: the Rehearse role imagining the results of the policy's own calls (hints on). */
  fidelityF1: number;
  /** Probes with a matching hint shown (copying), without one (inference), and all probes with hints off. */
  recallF1: number | null;
  inferenceF1: number | null;
  noHintsF1: number | null;
  /** Teacher-forced Act accuracy: expert prompts answered greedily, exact next message. */
  actExact: number;
  actTurns: number;
  /** The simulator gate's figures (src/bench/agreement.ts); null where the Rehearse role is another model (per-role). */
  agreement: { reward_gap: number; task_correlation: number; sign_agreement: number; error_agreement: number; parse_error_rate: number } | null;
}

export interface MechanismOptions { probes: number; evalTasks: number; actTasks: number; agreementTasks: number; agreementK: number }

export interface MechanismRecord {
  format: typeof MECHANISM_FORMAT;
  /** 'start' for the starting model. */
  variant: string; seed: number; step: number;
  options: MechanismOptions;
  measure: MechanismMeasure;
  cpuSeconds: number;
}

export const MECHANISM_FIELDS = ['success', 'fidelityF1', 'recallF1', 'inferenceF1', 'noHintsF1', 'actExact', 'reward_gap', 'sign_agreement', 'error_agreement'] as const;
export type MechanismField = (typeof MECHANISM_FIELDS)[number];

export function fieldOf(m: MechanismMeasure, f: MechanismField): number | null {
  if (f === 'reward_gap' || f === 'sign_agreement' || f === 'error_agreement') return m.agreement ? m.agreement[f] : null;
  return m[f];
}

export const sameOptions = (a: MechanismOptions, b: MechanismOptions) =>
  a.probes === b.probes && a.evalTasks === b.evalTasks && a.actTasks === b.actTasks && a.agreementTasks === b.agreementTasks && a.agreementK === b.agreementK;

/** One variant: each field's change from the starting model, mean over its seeds with a 95% t-interval (null under 2 seeds). */
export interface MechanismRow {
  variant: string; seeds: number[];
  delta: Record<MechanismField | 'heldOutSuccess', { mean: number; ci95: [number, number] | null } | null>;
}

/**
 * Per variant, the change of every field from the starting model, and of held-out success against the base model
 * of the same seed (the ablation's 150-task evaluation, passed in as heldOut[variant|seed] − base[seed]).
 */
export function mechanismRows(start: MechanismMeasure, runs: { variant: string; seed: number; measure: MechanismMeasure; dHeldOut: number | null }[]): MechanismRow[] {
  const variants = [...new Set(runs.map((r) => r.variant))];
  const summarise = (xs: number[]) => {
    if (!xs.length) return null;
    const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
    const e: Estimate | null = xs.length >= 2 ? tInterval(xs) : null;
    return { mean, ci95: e ? e.ci95 : null };
  };
  return variants.map((v) => {
    const mine = runs.filter((r) => r.variant === v).sort((a, b) => a.seed - b.seed);
    const delta = Object.fromEntries(MECHANISM_FIELDS.map((f) => {
      const s = fieldOf(start, f);
      const xs = mine.map((r) => fieldOf(r.measure, f)).filter((x): x is number => x !== null && s !== null).map((x) => x - s!);
      return [f, summarise(xs)];
    })) as MechanismRow['delta'];
    delta.heldOutSuccess = summarise(mine.map((r) => r.dHeldOut).filter((x): x is number => x !== null));
    return { variant: v, seeds: mine.map((r) => r.seed), delta };
  });
}

const LABELS: Record<MechanismField | 'heldOutSuccess', string> = {
  heldOutSuccess: 'Δ held-out success (vs base, same seed)', success: 'Δ success (eval tasks)', fidelityF1: 'Δ on-path F1',
  recallF1: 'Δ recall F1', inferenceF1: 'Δ inference F1', noHintsF1: 'Δ hints-off F1', actExact: 'Δ Act turns exact',
  reward_gap: 'Δ reward gap', sign_agreement: 'Δ sign agreement', error_agreement: 'Δ error agreement',
};

export function mechanismMarkdown(start: MechanismMeasure, rows: MechanismRow[], o: MechanismOptions): string {
  const cols = ['heldOutSuccess', 'recallF1', 'inferenceF1', 'noHintsF1', 'fidelityF1', 'actExact', 'sign_agreement', 'error_agreement', 'reward_gap'] as const;
  const f = (x: number | null | undefined) => (x === null || x === undefined ? '–' : x.toFixed(3));
  const cell = (d: MechanismRow['delta'][keyof MechanismRow['delta']]) => (d === null ? '–' : d.ci95 ? `${f(d.mean)} [${f(d.ci95[0])}, ${f(d.ci95[1])}]` : f(d.mean));
  return [
    `Mechanism: the starting model and each trained run's end, measured alike (${o.probes} fidelity probes, ${o.evalTasks} evaluation tasks, ` +
    `teacher-forced Act accuracy on ${o.actTasks} test tasks, agreement on ${o.agreementTasks} train tasks × ${o.agreementK}). ` +
    'Changes are means over seeds with a 95% t-interval (two or more seeds).',
    '',
    `Starting model: recall F1 ${f(start.recallF1)}, inference F1 ${f(start.inferenceF1)}, hints-off F1 ${f(start.noHintsF1)}, on-path F1 ${f(start.fidelityF1)}, ` +
    `Act turns exact ${f(start.actExact)} (${start.actTurns} turns)${start.agreement ? `, sign agreement ${f(start.agreement.sign_agreement)}, error agreement ${f(start.agreement.error_agreement)}, reward gap ${f(start.agreement.reward_gap)}` : ''}.`,
    '',
    `| variant | seeds | ${cols.map((c) => LABELS[c]).join(' | ')} |`,
    `|---|---|${cols.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${r.variant} | ${r.seeds.join(', ')} | ${cols.map((c) => cell(r.delta[c])).join(' | ')} |`),
  ].join('\n') + '\n';
}
