// One metric, several runs: recharts wants one row per x with a column per line, so lines from runs
// with different step sets are merged by step. Dashed lines are a run's second series (the Rehearse role,
// or the train-time counterpart of an eval metric); red verticals mark steps the NaN guard skipped.

import { CartesianGrid, Line, LineChart, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { tickLabel } from '../charts';

export interface ChartLine { id: string; label: string; color: string; dashed?: boolean; points: { x: number; y: number | null }[] }

const axis = { stroke: '#6b7689', fontSize: 10, tickLine: false } as const;

export function RunsChart(props: { title: string; lines: ChartLine[]; markers?: number[]; height?: number; testId: string; note?: string }) {
  const rows = new Map<number, Record<string, number | null>>();
  for (const l of props.lines) {
    for (const p of l.points) {
      if (p.y === null || !Number.isFinite(p.y)) continue;
      const row = rows.get(p.x) ?? { x: p.x };
      row[l.id] = p.y;
      rows.set(p.x, row);
    }
  }
  const data = [...rows.values()].sort((a, b) => (a.x as number) - (b.x as number));
  return (
    <div className="chart" data-testid={`chart-${props.testId}`} data-points={data.length}>
      <div className="chart-title">{props.title}{props.note ? <span className="muted"> · {props.note}</span> : null}</div>
      <ResponsiveContainer width="100%" height={props.height ?? 150}>
        <LineChart data={data} margin={{ top: 4, right: 8, bottom: 0, left: 0 }}>
          <CartesianGrid stroke="#1f2733" />
          <XAxis dataKey="x" type="number" domain={['dataMin', 'dataMax']} allowDecimals={false} {...axis} />
          <YAxis {...axis} width={56} tickFormatter={tickLabel} />
          <Tooltip contentStyle={{ background: '#141a24', border: '1px solid #2a3342', fontSize: 11 }} labelStyle={{ color: '#9aa6b8' }} labelFormatter={(x) => `step ${x}`} />
          {(props.markers ?? []).map((m) => <ReferenceLine key={m} x={m} stroke="#ff5370" strokeDasharray="2 2" />)}
          {props.lines.map((l) => (
            <Line key={l.id} dataKey={l.id} name={l.label} stroke={l.color} strokeDasharray={l.dashed ? '4 3' : undefined}
              dot={data.length <= 3 ? { r: 2 } : false} strokeWidth={1.5} isAnimationActive={false} connectNulls />
          ))}
        </LineChart>
      </ResponsiveContainer>
    </div>
  );
}
