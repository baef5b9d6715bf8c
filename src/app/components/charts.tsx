// recharts wrappers with the playground's dense styling. Animations are off: curves update every step
// and e2e screenshots must not catch a half-drawn line.

import { Bar, BarChart, CartesianGrid, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { ChartLegend, DASHES } from './legend';

/**
 * Y tick text that fits the axis: three significant digits, exponents for tiny and huge values. The plot
 * used to start left of its own axis (negative margin), which cut labels like "−0.0125" down to "0125".
 */
export function tickLabel(v: number): string {
  if (typeof v !== 'number' || !Number.isFinite(v)) return String(v);
  const a = Math.abs(v);
  // A mean that is 0 by construction (the advantage mean) comes back as ±1e-17 of float residue: that is 0.
  if (a < 1e-12) return '0';
  if (a < 1e-3 || a >= 1e5) return v.toExponential(1).replace('e+', 'e');
  return String(Number(v.toPrecision(3)));
}

export interface Series { key: string; label: string; color: string }

const axis = { stroke: '#8a96aa', fontSize: 11, tickLine: false } as const;
const tooltip = { contentStyle: { background: '#141a24', border: '1px solid #2a3342', fontSize: 11 }, labelStyle: { color: '#9aa6b8' } };

export function LineMetric(props: { data: object[]; x: string; series: Series[]; height?: number; title?: string }) {
  return (
    <div className="chart" data-testid={`chart-${props.title ?? props.series[0]?.key}`}>
      {props.title && <div className="chart-title">{props.title}</div>}
      <ResponsiveContainer width="100%" height={props.height ?? 150}>
        <LineChart data={props.data} margin={{ top: 4, right: 8, bottom: 0, left: 0 }}>
          <CartesianGrid stroke="#1f2733" />
          <XAxis dataKey={props.x} {...axis} />
          <YAxis {...axis} width={56} tickFormatter={tickLabel} />
          <Tooltip {...tooltip} />
          {props.series.map((s, i) => (
            <Line key={s.key} dataKey={s.key} name={s.label} stroke={s.color} dot={false} strokeWidth={1.5} strokeDasharray={DASHES[i % DASHES.length]}
              isAnimationActive={false} connectNulls />
          ))}
        </LineChart>
      </ResponsiveContainer>
      {props.series.length > 1 && <ChartLegend entries={props.series.map((s, i) => ({ label: s.label, color: s.color, dash: DASHES[i % DASHES.length] }))} />}
    </div>
  );
}

export function BarMetric(props: { data: object[]; x: string; series: Series[]; height?: number; title?: string; yDomain?: [number, number]; definition?: string }) {
  return (
    <div className="chart" data-testid={`chart-${props.title ?? props.series[0]?.key}`}>
      {props.title && <div className="chart-title" title={props.definition}>{props.title}</div>}
      <ResponsiveContainer width="100%" height={props.height ?? 150}>
        <BarChart data={props.data} margin={{ top: 4, right: 8, bottom: 0, left: 0 }}>
          <CartesianGrid stroke="#1f2733" />
          <XAxis dataKey={props.x} {...axis} />
          <YAxis {...axis} width={56} domain={props.yDomain} tickFormatter={tickLabel} />
          <Tooltip {...tooltip} cursor={{ fill: '#1f2733' }} />
          {props.series.map((s) => <Bar key={s.key} dataKey={s.key} name={s.label} fill={s.color} isAnimationActive={false} />)}
        </BarChart>
      </ResponsiveContainer>
      {props.series.length > 1 && <ChartLegend entries={props.series.map((s) => ({ label: s.label, color: s.color, kind: 'bar' as const }))} />}
    </div>
  );
}

// In their own module so the Rollout page can colour its lazily loaded charts without loading recharts.
export { COLORS } from './colors';
