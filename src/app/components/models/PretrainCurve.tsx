// The Models page's pretraining curve of one folder: held-out success (greedy, real environment) against
// cumulative pretraining CPU-minutes, one line per world × difficulty with its 95% band (eval.json's
// `heldOutCurve`, written by the pretraining runs). Folders without one say so.

import { CurveChart } from '../bench/CurveChart';
import { shapeHeldOutCurve, type HeldOutCurve } from './pretrainCurve';

export function PretrainCurve(props: { name: string; curve: HeldOutCurve | undefined | null }) {
  if (!props.curve) return <div className="muted" data-testid="pretrain-curve-none">no pretraining curve recorded</div>;
  const shaped = shapeHeldOutCurve(props.curve);
  const c = props.curve;
  return (
    <div data-testid="pretrain-curve">
      <CurveChart testId="pretrain-curve-chart" name={`${props.name}-pretraining-curve`}
        title={<span title="held-out success = final state equals the expert's and every checklist item passed; band: 95% interval">held-out success vs pretraining CPU-minutes</span>}
        x="cpuMinutes" xLabel="cumulative pretraining CPU-minutes" rows={shaped.rows} series={shaped.series} yDomain={[0, 1]} height={180}
        note={`${typeof c.protocol === 'string' ? c.protocol : 'protocol not stated'}${typeof c.tasks === 'number' ? ` · ${c.tasks} held-out tasks per line` : ''}`}
        empty={<div className="muted">the recorded curve has no drawable point</div>} />
      {shaped.problems.length > 0 && (
        <div className="not-available" role="status" data-testid="pretrain-curve-problems">
          <strong>{shaped.problems.length} point{shaped.problems.length === 1 ? '' : 's'} not drawn</strong>: {shaped.problems.slice(0, 3).join(' · ')}{shaped.problems.length > 3 ? ' …' : ''}
        </div>
      )}
    </div>
  );
}
