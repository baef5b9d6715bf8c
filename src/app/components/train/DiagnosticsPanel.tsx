// The Train page's Diagnostics panel: is GRPO learning? Informative-group share (and refills), reward per
// trained role, entropy, KL to the initial policy, gradient norm, update-to-weight ratio, learning rate and
// truncated generations, per step, one small chart each. The data mapping is diagnostics.ts (pure, tested).

import { memo } from 'react';
import type { RunRecord } from './runs';
import { diagnosticCharts, runsWithoutDiagnostics, type DiagRun } from './diagnostics';
import { RunsChart } from './RunsChart';

const toDiagRun = (r: RunRecord): DiagRun => ({ runId: r.runId, label: r.label, color: r.color, variant: r.request.spec.variant ?? 'envace', history: r.history });

function DiagnosticsInner(props: { runs: RunRecord[] }) {
  const runs = props.runs.map(toDiagRun);
  const skipped = [...new Set(props.runs.flatMap((r) => r.history.filter((m) => m.skipped).map((m) => m.step)))];
  const older = runsWithoutDiagnostics(runs);
  return (
    <>
      {older.length > 0 && (
        <div className="muted" role="note" data-testid="train-diagnostics-older">
          Recorded before these diagnostics existed (only entropy and grad norm are drawn for them): {older.join(', ')}.
        </div>
      )}
      <div className="chart-grid">
        {diagnosticCharts(runs).map((c) => (
          <RunsChart key={c.id} testId={c.id} title={c.title} note={c.note} lines={c.lines} markers={skipped} domain={c.domain} notes={c.notes} height={120} />
        ))}
      </div>
    </>
  );
}

// Like the Curves panel: only new steps (or another run selection or colour) redraw the charts.
export const Diagnostics = memo(DiagnosticsInner, (a, b) => a.runs.length === b.runs.length && a.runs.every((r, i) => {
  const o = b.runs[i];
  return r.runId === o.runId && r.history === o.history && r.color === o.color && r.label === o.label && r.request.spec.variant === o.request.spec.variant;
}));
