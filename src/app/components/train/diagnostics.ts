// The Train page's Diagnostics panel as data: step metrics → chart lines, one chart per question a researcher
// asks of a GRPO run (does the batch carry signal, does each trained role's reward move, is the policy
// drifting or collapsing, how big is the update). Pure, so tests/app/trainDiagnostics.test.ts checks it.
//
// Records may lack any of the per-step diagnostics (runs stored before they existed, a metrics JSON from an
// older build) or hold null (a role the variant does not train, KL to the initial policy not measured): such a
// step is a gap, never a 0, and a run with nothing to draw on a chart says why under it.

import { VARIANTS, isVariantName, type VariantName } from '../../../rl/advantages';
import type { StepMetrics } from '../../../worker/protocol';
import type { ChartLine } from './RunsChart';

/** A step record as stored: `step` and whatever fields its build logged (any may be missing or null). */
export type StepRecord = { step: number } & { [K in keyof StepMetrics]?: StepMetrics[K] | null };

export interface DiagRun {
  runId: string;
  label: string;
  color: string;
  /** The run's variant; unknown or absent → which roles trained is read off the records. */
  variant?: string;
  history: readonly StepRecord[];
}

export interface DiagChart {
  id: string;
  title: string;
  note?: string;
  lines: ChartLine[];
  domain?: [number, number];
  /** What is not drawn and why ("run · Rehearse: n/a (not trained)"). */
  notes: string[];
}

/** The fields this panel reads that older records lack (a run with none of them predates the diagnostics). */
export const DIAGNOSTIC_FIELDS = [
  'groups', 'informativeGroups', 'informativeShare', 'refills', 'rewardActTrained', 'rewardRehearseTrained',
  'klToInit', 'updateRatio', 'lr', 'truncatedAct', 'truncatedRehearse', 'updateRows',
] as const satisfies readonly (keyof StepMetrics)[];

export const NOT_TRAINED = 'n/a (not trained)';

/** A finite number, else null (undefined, null, NaN, ±Inf, or a non-number from a hand-edited file). */
export function finite(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

type NumKey = Exclude<keyof StepRecord, 'step' | 'skipped' | 'note'>;

/** One point per record with a usable step; y is null where the field is missing or not a finite number. */
export function points(history: readonly StepRecord[], key: NumKey, tip?: (m: StepRecord) => string | undefined): ChartLine['points'] {
  const out: ChartLine['points'] = [];
  for (const m of history) {
    const x = finite(m?.step);
    if (x === null) continue;
    const t = tip?.(m);
    out.push(t ? { x, y: finite(m[key]), tip: t } : { x, y: finite(m[key]) });
  }
  return out;
}

const hasAny = (history: readonly StepRecord[], key: NumKey) => history.some((m) => finite(m?.[key]) !== null);

/** True when the run logged none of the diagnostics (recorded before they existed). */
export function predatesDiagnostics(r: DiagRun): boolean {
  return r.history.length > 0 && !r.history.some((m) => DIAGNOSTIC_FIELDS.some((k) => m && k in m));
}

function variantOf(r: DiagRun): VariantName | null {
  return isVariantName(r.variant) ? r.variant : null;
}

/**
 * Whether a run trains a role, from its variant. null when the variant is unknown (a record from elsewhere): the
 * records then cannot tell, since the trainer also logs null for a trained role with no rows in a step (no tool
 * call, so no Rehearse generation).
 */
export function roleTrained(r: DiagRun, role: 'act' | 'rehearse'): boolean | null {
  const v = variantOf(r);
  return v ? VARIANTS[v].trainRoles.includes(role) : null;
}

/**
 * Why a run with steps has nothing to draw for `key`, or null when it has something (or no steps): the field is
 * in none of its records ("not recorded"), or present but never a finite number (null: nothing to measure in
 * those steps; NaN: updates the guard skipped).
 */
export function missingWhy(r: DiagRun, key: NumKey): string | null {
  if (r.history.length === 0 || hasAny(r.history, key)) return null;
  return r.history.some((m) => m && key in m) ? 'no value in its steps' : 'not recorded';
}

/** Whether the run's rollouts have Rehearse generations at all (not in real-environment mode). */
function hasRehearseGenerations(r: DiagRun): boolean {
  const v = variantOf(r);
  return v ? VARIANTS[v].rolloutMode !== 'real' : hasAny(r.history, 'truncatedRehearse');
}

function line(r: DiagRun, key: NumKey, suffix = '', style: { dashed?: boolean; dash?: string } = {}, tip?: (m: StepRecord) => string | undefined): ChartLine {
  return { id: `${r.runId}:diag:${key}`, label: `${r.label}${suffix}`, color: r.color, ...style, points: points(r.history, key, tip) };
}

/** Lines of a one-metric chart, and a note for each run that has steps but nothing to draw (runs from before the diagnostics get one notice for the panel instead). */
function single(runs: readonly DiagRun[], key: NumKey): { lines: ChartLine[]; notes: string[] } {
  const lines: ChartLine[] = [];
  const notes: string[] = [];
  for (const r of runs) {
    const why = predatesDiagnostics(r) ? null : missingWhy(r, key);
    if (why) notes.push(`${r.label}: ${why}`);
    lines.push(line(r, key));
  }
  return { lines, notes };
}

const count = (v: unknown) => finite(v) ?? '?';

/** Tooltip text of an informative-share point: the counts behind the share. */
export function informativeTip(m: StepRecord): string | undefined {
  if (finite(m.groups) === null && finite(m.informativeGroups) === null && finite(m.refills) === null) return undefined;
  return `${count(m.informativeGroups)}/${count(m.groups)} groups informative, ${count(m.refills)} refills`;
}

/** Refilled groups as a share of the step's groups (0 without dynamic sampling), null when either is missing. */
export function refillShare(m: StepRecord): number | null {
  const g = finite(m.groups), f = finite(m.refills);
  return g !== null && f !== null && g > 0 ? f / g : null;
}

export function diagnosticCharts(runs: readonly DiagRun[]): DiagChart[] {
  const informative: DiagChart = {
    id: 'diag-informative', title: 'informative groups', note: 'solid share · dashed refills / groups · hover: counts',
    domain: [0, 1], notes: [],
    lines: runs.flatMap((r) => {
      const pts = points(r.history, 'informativeShare', informativeTip);
      const refills: ChartLine['points'] = [];
      for (const m of r.history) { const x = finite(m?.step); if (x !== null) refills.push({ x, y: refillShare(m) }); }
      return [
        { id: `${r.runId}:diag:informativeShare`, label: `${r.label} informative`, color: r.color, points: pts },
        { id: `${r.runId}:diag:refillShare`, label: `${r.label} refills / groups`, color: r.color, dashed: true, points: refills },
      ];
    }),
  };

  const reward: DiagChart = { id: 'diag-reward-role', title: 'reward per trained role', note: 'solid Act · dashed Rehearse', lines: [], notes: [] };
  for (const r of runs) {
    for (const [role, key, name, dashed] of [['act', 'rewardActTrained', 'Act', false], ['rehearse', 'rewardRehearseTrained', 'Rehearse', true]] as const) {
      const trained = roleTrained(r, role);
      const why = predatesDiagnostics(r) ? null : missingWhy(r, key);
      // A known variant that does not train the role, or (variant unknown) a role no record has a value for.
      if (trained === false || (trained === null && why)) { reward.notes.push(`${r.label} · ${name}: ${NOT_TRAINED}`); continue; }
      // Trained, but no step had a row of this role (e.g. no tool call, so nothing rehearsed), or an older record.
      if (why) reward.notes.push(`${r.label} · ${name}: ${why === 'not recorded' ? why : `no ${name} rows in its steps`}`);
      reward.lines.push(line(r, key, ` ${name.toLowerCase()}`, { dashed }));
    }
  }

  const truncated: DiagChart = { id: 'diag-truncated', title: 'truncated generations', note: 'stopped by their token budget · solid Act · dashed Rehearse', lines: [], notes: [] };
  for (const r of runs) {
    truncated.lines.push(line(r, 'truncatedAct', ' act'));
    if (hasRehearseGenerations(r)) truncated.lines.push(line(r, 'truncatedRehearse', ' rehearse', { dashed: true }));
    else truncated.notes.push(`${r.label} · Rehearse: none (the real environment answers tool calls)`);
  }

  return [
    informative,
    reward,
    { id: 'entropy', title: 'entropy', note: 'collapse → 0', ...single(runs, 'entropy') },
    { id: 'diag-kl-init', title: 'KL to the initial policy', note: 'k3 on sampled tokens', ...single(runs, 'klToInit') },
    { id: 'grad-norm', title: 'grad norm (pre-clip)', ...single(runs, 'gradNorm') },
    { id: 'diag-update-ratio', title: 'update / weight ratio', note: '‖Δθ‖ / ‖θ‖', ...single(runs, 'updateRatio') },
    { id: 'diag-lr', title: 'learning rate', note: 'after warmup', ...single(runs, 'lr') },
    truncated,
  ];
}

/** The runs whose records predate the diagnostics (their curves here are empty), for one notice. */
export function runsWithoutDiagnostics(runs: readonly DiagRun[]): string[] {
  return runs.filter(predatesDiagnostics).map((r) => r.label);
}
