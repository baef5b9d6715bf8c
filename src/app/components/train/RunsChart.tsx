// One metric, several runs: recharts wants one row per x with a column per line, so lines from runs
// with different step sets are merged by step. Dashed lines are a run's second series (the Rehearse role,
// or the train-time counterpart of an eval metric); red verticals mark steps the NaN guard skipped.

import { memo, useMemo } from 'react';
import { CartesianGrid, Line, LineChart, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { tickLabel } from '../charts';
import { ChartLegend } from '../legend';

/** `dash` overrides the dash pattern (a third series of one run, e.g. dotted); a point's `tip` is added to its tooltip value. */
export interface ChartLine { id: string; label: string; color: string; dashed?: boolean; dash?: string; points: { x: number; y: number | null; tip?: string }[] }

// Playwright build only: renders per chart id (and of the Train page, 'page'), read by scripts/train-render-cost.ts
// to count the page's work per training step; null (nothing counted) everywhere else.
const renders = typeof __ENVACE_E2E__ !== 'undefined' && __ENVACE_E2E__ ? ((window as unknown as { __envaceRenders?: Record<string, number> }).__envaceRenders ??= {}) : null;
export function countRender(name: string): void { if (renders) renders[name] = (renders[name] ?? 0) + 1; }

const axis = { stroke: '#8a96aa', fontSize: 11, tickLine: false } as const;

/** One-line definition of each Train chart's metric (hover on the title). */
export const CHART_DEFINITIONS: Record<string, string> = {
  'reward-role': 'mean reward of the step\'s rows per role: the checklist score of the trajectory a row belongs to (0 when an error ended it)',
  'adv-mean': 'mean GRPO advantage per role: reward minus the group baseline, per (task, role) with the role-wise baseline',
  'adv-abs': 'mean |advantage| per role: how strongly the update pushes each role',
  success: 'held-out test tasks in the real environment: success = state check passed and every checklist item passed',
  fidelity: 'rehearsal fidelity: F1 over the fields of each imagined tool result vs the real one (0…1)',
  'fidelity-probes': 'probe fidelity F1: recall probes (a hint holds the answer) vs inference probes (none does)',
  kl: 'ppo_kl: mean log-ratio of new to old policy on the trained tokens; kl_loss: the KL penalty to the reference model',
  entropy: 'mean token entropy of the policy on the trained rows (nats)',
  'grad-norm': 'global L2 norm of the gradient before clipping',
  loss: 'the clipped policy-gradient loss as aggregated by loss_agg_mode (plus the KL term when on)',
  'tokens-per-s': 'generated tokens per second during the step\'s rollouts',
  'seconds-per-step': 'wall-clock seconds per optimizer step (rollout + judge + update); dashed: the update alone',
  'diag-informative': 'share of the step\'s groups whose K trajectory rewards differ (the rest carry zero advantage); dashed: refilled groups (dynamic sampling) as a share of all groups rolled out',
  'diag-reward-role': 'mean trajectory reward of the rows of each role the variant trains; a role it does not train is not drawn',
  'diag-kl-init': 'KL(policy ‖ initial policy), k3 estimator on the sampled tokens of the step\'s first packed batch: how far training has moved the policy',
  'diag-update-ratio': '‖Δθ‖ / ‖θ‖ of the step\'s update over all parameters (around 1e-3 is a common healthy scale)',
  'diag-lr': 'the learning rate the step used (linear warmup, then constant)',
  'diag-truncated': 'generations of the step\'s rollouts stopped by their token budget, per role (finish reason "length")',
};

// recharts 3 copies a chart's props into its own store and redraws when their identity changes: the constant ones
// are made once here, not per render.
const MARGIN = { top: 4, right: 8, bottom: 0, left: 0 };
const X_DOMAIN = ['dataMin', 'dataMax'];
const TIP_STYLE = { background: '#141a24', border: '1px solid #2a3342', fontSize: 11 };
const TIP_LABEL_STYLE = { color: '#9aa6b8' };
const stepLabel = (x: unknown) => `step ${String(x)}`;
const SMALL_DOT = { r: 2 };

type ChartProps = { title: string; lines: ChartLine[]; markers?: number[]; height?: number; testId: string; note?: string; domain?: [number, number]; notes?: string[] };

/** One row per step with a column per line (recharts' shape), and the tooltip extras by `line@step`. */
function chartRows(lines: ChartLine[]) {
  const rows = new Map<number, Record<string, number | null>>();
  const tips = new Map<string, string>();
  for (const l of lines) {
    for (const p of l.points) {
      if (p.y === null || !Number.isFinite(p.y)) continue;
      const row = rows.get(p.x) ?? { x: p.x };
      // Float residue of a mean that is 0 by construction (±1e-17) is drawn as 0, so the axis is not a stack of "0"s.
      row[l.id] = Math.abs(p.y) < 1e-12 ? 0 : p.y;
      rows.set(p.x, row);
      if (p.tip) tips.set(`${l.id}@${p.x}`, p.tip);
    }
  }
  const formatter = tips.size === 0 ? undefined : (value: unknown, name: unknown, item: { dataKey?: unknown; payload?: { x?: unknown } }) => {
    const tip = tips.get(`${String(item.dataKey)}@${String(item.payload?.x)}`);
    return [tip ? `${String(value)} (${tip})` : String(value), String(name)] as [string, string];
  };
  return { data: [...rows.values()].sort((a, b) => (a.x as number) - (b.x as number)), formatter };
}

/** `domain` fixes the y axis (e.g. [0, 1] for rates and F1, which can never leave it). */
/** `notes`: what the chart does not draw and why (one line each, under the chart). */
function RunsChartInner(props: ChartProps) {
  countRender(props.testId);
  const { data, formatter } = useMemo(() => chartRows(props.lines), [props.lines]);
  const yDomain = useMemo(() => (props.domain ? { domain: props.domain, allowDataOverflow: true } : {}), [props.domain]);
  return (
    <div className="chart" data-testid={`chart-${props.testId}`} data-points={data.length} data-domain={props.domain?.join(',')}>
      <div className="chart-title" title={CHART_DEFINITIONS[props.testId]}>{props.title}{props.note ? <span className="muted"> · {props.note}</span> : null}</div>
      <ResponsiveContainer width="100%" height={props.height ?? 150}>
        <LineChart data={data} margin={MARGIN}>
          <CartesianGrid stroke="#1f2733" />
          <XAxis dataKey="x" type="number" domain={X_DOMAIN} allowDecimals={false} {...axis} />
          <YAxis {...axis} width={56} tickFormatter={tickLabel} {...yDomain} />
          <Tooltip contentStyle={TIP_STYLE} labelStyle={TIP_LABEL_STYLE} labelFormatter={stepLabel} formatter={formatter} />
          {(props.markers ?? []).map((m) => <ReferenceLine key={m} x={m} stroke="#ff5370" strokeDasharray="2 2" />)}
          {props.lines.map((l) => (
            <Line key={l.id} dataKey={l.id} name={l.label} stroke={l.color} strokeDasharray={l.dash ?? (l.dashed ? '4 3' : undefined)}
              dot={data.length <= 3 ? SMALL_DOT : false} strokeWidth={1.5} isAnimationActive={false} connectNulls />
          ))}
        </LineChart>
      </ResponsiveContainer>
      {props.lines.length > 0 && <ChartLegend testId={`chart-${props.testId}-legend`} entries={props.lines.map((l) => ({ label: l.label, color: l.color, dash: l.dash ?? (l.dashed ? '4 3' : undefined) }))} />}
      {props.notes?.length ? <div className="muted" data-testid={`chart-${props.testId}-notes`} style={{ fontSize: 10 }}>{props.notes.map((n, i) => <div key={i}>{n}</div>)}</div> : null}
    </div>
  );
}

const sameList = <T,>(a: readonly T[] | undefined, b: readonly T[] | undefined) => a === b || (!!a && !!b && a.length === b.length && a.every((x, i) => x === b[i]));
const sameLine = (a: ChartLine, b: ChartLine) => a.id === b.id && a.label === b.label && a.color === b.color && a.dashed === b.dashed && a.dash === b.dash && a.points === b.points;

/**
 * Equal when every line keeps its points array (the Train page keeps a run's series while its history and evals are
 * the same arrays: series.ts) and the rest is equal by value; exported for tests/app/train-chart-memo.test.ts.
 */
export function sameChart(a: ChartProps, b: ChartProps): boolean {
  return a.title === b.title && a.testId === b.testId && a.note === b.note && a.height === b.height
    && a.lines.length === b.lines.length && a.lines.every((l, i) => sameLine(l, b.lines[i]!))
    && sameList(a.markers, b.markers) && sameList(a.domain, b.domain) && sameList(a.notes, b.notes);
}

// A step event redraws only the charts whose series it changed: one recharts chart costs the page's thread tens of
// ms on a 2-core box, and a chart of evaluations (or of a finished run) must not pay that for every training step.
export const RunsChart = memo(RunsChartInner, sameChart);
