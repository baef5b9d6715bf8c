// One line chart with 95% bands (a range Area under each mean Line), plus the exports every Benchmarks chart
// offers: CSV of exactly the drawn rows (long format: x, series, mean, lo, hi) and PNG (the chart's SVG
// serialised and painted onto a canvas: no screenshot library, and the page's CSP allows blob: images).

import { useRef, type ReactNode } from 'react';
import { Area, CartesianGrid, ComposedChart, Line, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { tickLabel } from '../charts';
import { ChartLegend, DASHES, MARKERS, markerDot } from '../legend';

export { ChartLegend };
import type { Row, SeriesSpec } from './results';
import { csvLine } from '../../../shared/csv';

export const PALETTE = ['#4dd0e1', '#ff8a65', '#7bd88f', '#c792ea', '#ffd166', '#5cc8ff', '#f78fb3', '#b0bec5'];

const axis = { stroke: '#8a96aa', fontSize: 11, tickLine: false } as const;
const tooltip = { contentStyle: { background: '#141a24', border: '1px solid #2a3342', fontSize: 11 }, labelStyle: { color: '#9aa6b8' } };

/** One CSV line per drawn point: the x value, the series, its mean and its band. */
export function curveCsv(x: string, rows: Row[], series: SeriesSpec[]): string {
  const lines = [csvLine([x, 'series', 'mean', 'ci_lo', 'ci_hi'])];
  for (const s of series) {
    for (const r of rows) {
      const m = r[s.key];
      if (typeof m !== 'number') continue;
      const band = r[`${s.key}_band`];
      const [lo, hi] = Array.isArray(band) ? band : ['', ''];
      lines.push(csvLine([r[x], s.key, m, lo, hi]));
    }
  }
  return lines.join('\n') + '\n';
}

export function download(name: string, data: BlobPart, type: string): void {
  const a = document.createElement('a');
  a.href = URL.createObjectURL(new Blob([data], { type }));
  a.download = name;
  document.body.appendChild(a); a.click(); a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 5000);
}

/**
 * The chart's plot SVG inside `root` as a PNG on the page's dark background (2× for sharp text). The legend is
 * HTML outside that SVG, so it is painted from the legend items' text and colours, under the plot.
 */
export async function svgToPng(root: HTMLElement): Promise<Blob> {
  const svg = root.querySelector('.recharts-wrapper > svg.recharts-surface') as SVGSVGElement | null;
  if (!svg) throw new Error('no chart drawn');
  const legend = [...root.querySelectorAll('.chart-legend-item')].map((li) => ({ text: li.textContent ?? '', color: li.getAttribute('data-color') || '#9aa6b8' }));
  const { width, height: plotHeight } = svg.getBoundingClientRect();
  const height = plotHeight + (legend.length ? 16 * legend.length + 4 : 0);
  const clone = svg.cloneNode(true) as SVGSVGElement;
  clone.setAttribute('xmlns', 'http://www.w3.org/2000/svg');
  clone.setAttribute('width', String(width)); clone.setAttribute('height', String(plotHeight));
  clone.setAttribute('style', 'font-family: sans-serif; font-size: 10px');
  const url = URL.createObjectURL(new Blob([new XMLSerializer().serializeToString(clone)], { type: 'image/svg+xml' }));
  try {
    const img = new Image();
    await new Promise<void>((resolve, reject) => { img.onload = () => resolve(); img.onerror = () => reject(new Error('the chart SVG did not load as an image')); img.src = url; });
    const canvas = document.createElement('canvas');
    canvas.width = Math.ceil(width * 2); canvas.height = Math.ceil(height * 2);
    const ctx = canvas.getContext('2d')!;
    ctx.scale(2, 2);
    ctx.fillStyle = '#0f141c'; ctx.fillRect(0, 0, width, height);
    ctx.drawImage(img, 0, 0, width, plotHeight);
    ctx.font = '10px sans-serif';
    legend.forEach((l, i) => {
      const y = plotHeight + 4 + 16 * i;
      ctx.fillStyle = l.color; ctx.fillRect(8, y + 3, 10, 8);
      ctx.fillStyle = '#c8d0dc'; ctx.fillText(l.text, 24, y + 11);
    });
    return await new Promise<Blob>((resolve, reject) => canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('canvas.toBlob failed'))), 'image/png'));
  } finally {
    URL.revokeObjectURL(url);
  }
}

export function ExportButtons(props: { name: string; csv: () => string; chart: React.RefObject<HTMLDivElement | null>; testId: string }) {
  return (
    <span className="actions">
      <button data-testid={`${props.testId}-csv`} onClick={() => download(`${props.name}.csv`, props.csv(), 'text/csv')}>CSV</button>
      <button data-testid={`${props.testId}-png`} onClick={() => { if (props.chart.current) void svgToPng(props.chart.current).then((b) => download(`${props.name}.png`, b, 'image/png')); }}>PNG</button>
    </span>
  );
}

export interface CurveChartProps {
  testId: string; name: string; title: ReactNode; note?: ReactNode;
  x: string; xLabel: string; rows: Row[]; series: SeriesSpec[];
  yDomain?: [number, number]; height?: number; controls?: ReactNode; empty?: ReactNode;
}

/** A titled chart block: controls, the chart (or `empty`), a note, and CSV/PNG of exactly what is drawn. */
export function CurveChart(p: CurveChartProps) {
  const ref = useRef<HTMLDivElement>(null);
  const drawn = p.rows.length > 0 && p.series.length > 0;
  return (
    <div className="bench-curve" data-testid={p.testId} data-rows={JSON.stringify(p.rows)} data-series={JSON.stringify(p.series)}>
      <div className="bench-curve-head">
        <span className="chart-title">{p.title}</span>
        {drawn && <ExportButtons name={p.name} testId={p.testId} chart={ref} csv={() => curveCsv(p.x, p.rows, p.series)} />}
      </div>
      {p.controls && <div className="bench-curve-controls">{p.controls}</div>}
      {!drawn ? p.empty : (
        <div ref={ref}>
          <ResponsiveContainer width="100%" height={p.height ?? 200} initialDimension={{ width: 420, height: p.height ?? 200 }}>
            <ComposedChart data={p.rows} margin={{ top: 6, right: 12, bottom: 14, left: 0 }}>
              <CartesianGrid stroke="#1f2733" />
              <XAxis dataKey={p.x} type="number" domain={['dataMin', 'dataMax']} allowDecimals={false} {...axis}
                label={{ value: p.xLabel, position: 'insideBottom', offset: -8, fill: '#6b7689', fontSize: 10 }} />
              <YAxis {...axis} width={48} domain={p.yDomain ?? [0, 'auto']} tickFormatter={tickLabel} />
              <Tooltip {...tooltip} formatter={(v: unknown) => (Array.isArray(v) ? `[${v.map((x) => tickLabel(Number(x))).join(', ')}]` : tickLabel(Number(v)))} />
              {/* Bands faint, each edged in its series' colour and dash, so overlapping bands stay two bands and never hide a line. */}
              {p.series.map((s, i) => (
                <Area key={`${s.key}_band`} dataKey={`${s.key}_band`} name={`${s.label} 95%`} legendType="none"
                  stroke={PALETTE[i % PALETTE.length]} strokeOpacity={0.45} strokeWidth={0.8} strokeDasharray={DASHES[i % DASHES.length] ?? '3 3'}
                  fill={PALETTE[i % PALETTE.length]} fillOpacity={0.08} isAnimationActive={false} connectNulls />
              ))}
              {p.series.map((s, i) => (
                <Line key={s.key} dataKey={s.key} name={s.label} stroke={PALETTE[i % PALETTE.length]} strokeWidth={1.8}
                  strokeDasharray={DASHES[i % DASHES.length]} dot={markerDot(i, PALETTE[i % PALETTE.length]!)} isAnimationActive={false} connectNulls />
              ))}
            </ComposedChart>
          </ResponsiveContainer>
          <ChartLegend testId={`${p.testId}-legend`} entries={[
            ...p.series.map((s, i) => ({ label: s.label, color: PALETTE[i % PALETTE.length]!, dash: DASHES[i % DASHES.length], marker: MARKERS[i % MARKERS.length] })),
            ...(p.series.length ? [{ label: 'band: 95% interval', color: '#6b7689', kind: 'bar' as const }] : []),
          ]} />
        </div>
      )}
      {p.note && <div className="muted bench-note">{p.note}</div>}
    </div>
  );
}
