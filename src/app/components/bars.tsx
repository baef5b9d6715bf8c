// A bar chart in plain SVG, for the Rollout page's two small charts (reward per trajectory, fidelity per call):
// the page would otherwise fetch the whole chart library (about 100 KB compressed) for a handful of bars. Same
// props and test id as charts.tsx's BarMetric; each bar's value is its tooltip (<title>).

import { ChartLegend } from './legend';
import type { Series } from './charts';

const label = (v: number) => (v === 0 ? '0' : String(Number(v.toPrecision(3))));

export function BarMetric(props: { data: object[]; x: string; series: Series[]; height?: number; title?: string; yDomain?: [number, number]; definition?: string }) {
  const h = props.height ?? 150, w = 320, left = 36, bottom = 16, top = 4;
  const rows = props.data as Record<string, unknown>[];
  const value = (row: Record<string, unknown>, k: string) => (typeof row[k] === 'number' && Number.isFinite(row[k]) ? (row[k] as number) : null);
  const values = rows.flatMap((r) => props.series.map((s) => value(r, s.key) ?? 0));
  const [lo, hi] = props.yDomain ?? [Math.min(0, ...values), Math.max(1e-9, ...values)];
  const y = (v: number) => top + (h - top - bottom) * (1 - (Math.min(hi, Math.max(lo, v)) - lo) / (hi - lo || 1));
  const group = (w - left) / Math.max(1, rows.length);
  const bar = (group * 0.8) / Math.max(1, props.series.length);
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((t) => lo + t * (hi - lo));
  const every = Math.max(1, Math.ceil(rows.length / 16));
  return (
    <div className="chart" data-testid={`chart-${props.title ?? props.series[0]?.key}`}>
      {props.title && <div className="chart-title" title={props.definition}>{props.title}</div>}
      <svg className="bars" viewBox={`0 0 ${w} ${h}`} width="100%" height={h} preserveAspectRatio="none" role="img" aria-label={props.title}>
        {ticks.map((t) => (
          <g key={t}>
            <line x1={left} x2={w} y1={y(t)} y2={y(t)} stroke="#1f2733" />
            <text x={left - 4} y={y(t) + 3} textAnchor="end" fontSize={10} fill="#8a96aa">{label(t)}</text>
          </g>
        ))}
        {rows.map((r, i) => (
          <g key={i}>
            {props.series.map((s, j) => {
              const v = value(r, s.key);
              if (v === null) return null;
              const x0 = left + i * group + group * 0.1 + j * bar;
              return <rect key={s.key} className="bars-bar" x={x0} width={Math.max(1, bar - 1)} y={Math.min(y(v), y(0))} height={Math.abs(y(0) - y(v))} fill={s.color}>
                <title>{`${String(r[props.x])}: ${s.label} ${label(v)}`}</title>
              </rect>;
            })}
            {i % every === 0 && <text x={left + (i + 0.5) * group} y={h - 3} textAnchor="middle" fontSize={10} fill="#8a96aa">{String(r[props.x])}</text>}
          </g>
        ))}
      </svg>
      {props.series.length > 1 && <ChartLegend entries={props.series.map((s) => ({ label: s.label, color: s.color, kind: 'bar' as const }))} />}
    </div>
  );
}
