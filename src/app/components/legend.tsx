// Chart legends outside the plot, and the dash patterns and markers that tell series apart by more than colour
// (issue 24). Shared by the Benchmarks curves, the Train charts and the Rollout page's bar charts.

/** Series i's dash pattern and marker, so lines differ by more than colour (issue 24): solid first. */
export const DASHES = [undefined, '7 3', '2 3', '10 3 2 3', '4 2 1 2', '1 2'] as const;
export const MARKERS = ['circle', 'square', 'triangle', 'diamond', 'cross', 'circle-open'] as const;
export type Marker = (typeof MARKERS)[number];

/** A marker shape at (cx, cy), r ≈ 3 px. */
export function markerPath(m: Marker, cx: number, cy: number, r = 3): string {
  switch (m) {
    case 'square': return `M${cx - r},${cy - r}h${2 * r}v${2 * r}h${-2 * r}Z`;
    case 'triangle': return `M${cx},${cy - r * 1.2}L${cx + r * 1.1},${cy + r * 0.9}L${cx - r * 1.1},${cy + r * 0.9}Z`;
    case 'diamond': return `M${cx},${cy - r * 1.3}L${cx + r * 1.1},${cy}L${cx},${cy + r * 1.3}L${cx - r * 1.1},${cy}Z`;
    case 'cross': return `M${cx - r},${cy - r}L${cx + r},${cy + r}M${cx - r},${cy + r}L${cx + r},${cy - r}`;
    default: return `M${cx - r},${cy}a${r},${r} 0 1,0 ${2 * r},0a${r},${r} 0 1,0 ${-2 * r},0`;
  }
}

/** recharts `dot` renderer drawing series i's marker. */
export function markerDot(i: number, color: string) {
  const m = MARKERS[i % MARKERS.length]!;
  const filled = m !== 'cross' && m !== 'circle-open';
  // eslint-disable-next-line react/display-name
  return (p: { cx?: number; cy?: number; index?: number; value?: unknown }) => (typeof p.cx !== 'number' || typeof p.cy !== 'number' || p.value === null || p.value === undefined
    ? <g key={`m${i}-${p.index}`} />
    : <path key={`m${i}-${p.index}`} d={markerPath(m, p.cx, p.cy)} fill={filled ? color : 'none'} stroke={color} strokeWidth={1.3} />);
}

export interface LegendEntry { label: string; color: string; dash?: string; marker?: Marker; kind?: 'line' | 'bar' | 'point' }

/**
 * The legend as HTML outside the plot (issue 24: inside it, five long entries squeezed the plot to ≈100 px):
 * each entry shows the series' colour, dash pattern and marker, so lines differ by more than colour.
 */
export function ChartLegend(props: { entries: LegendEntry[]; testId?: string }) {
  return (
    <ul className="chart-legend" data-testid={props.testId}>
      {props.entries.map((e, i) => (
        <li key={`${i}:${e.label}`} className="chart-legend-item" data-color={e.color} data-dash={e.dash ?? ''} data-marker={e.marker ?? ''}>
          <svg width="26" height="10" aria-hidden="true">
            {e.kind === 'bar' ? <rect x="6" y="1" width="14" height="8" fill={e.color} />
              : <>
                {e.kind !== 'point' && <line x1="1" y1="5" x2="25" y2="5" stroke={e.color} strokeWidth="1.8" strokeDasharray={e.dash} />}
                {e.marker && <path d={markerPath(e.marker, 13, 5)} fill={e.marker === 'cross' || e.marker === 'circle-open' ? 'none' : e.color} stroke={e.color} strokeWidth="1.2" />}
              </>}
          </svg>
          <span>{e.label}</span>
        </li>
      ))}
    </ul>
  );
}

