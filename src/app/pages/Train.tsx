// Train page: RL loop driven step by step from the page (each step is one worker RPC), so Stop is
// immediate between steps and the curves update after every optimizer step.

import { useRef } from 'react';
import { create } from 'zustand';
import type { AdvantageMode, RolloutMode, TrainMetrics, TrainRequest } from '../../worker/protocol';
import { COLORS, LineMetric } from '../components/charts';
import { Empty, ErrorBox, Field, fmt, NotAvailable, Panel } from '../components/ui';
import { useApp } from '../store';
import { api, errorText, isNotAvailable } from '../worker';

interface TrainState {
  running: boolean;
  history: TrainMetrics[];
  error: string | null;
  notAvailable: string | null;
}
// Module-level store so curves survive switching tabs during a run.
const useTrain = create<TrainState>(() => ({ running: false, history: [], error: null, notAvailable: null }));

function download(name: string, text: string, type: string) {
  const a = document.createElement('a');
  a.href = URL.createObjectURL(new Blob([text], { type }));
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}

export function TrainPage() {
  const s = useApp((st) => st.settings);
  const caps = useApp((st) => st.caps);
  const { running, history, error, notAvailable } = useTrain();
  const stopRef = useRef(false);

  const req: TrainRequest = {
    world: s['t.world'], mode: s['t.mode'] as RolloutMode, steps: s['t.steps'], tasksPerStep: s['t.tasks'],
    groupSize: s['t.group'], lr: s['t.lr'], klCoef: s['t.kl'], clip: s['t.clip'],
    advantage: s['t.adv'] as AdvantageMode, seed: s['t.seed'],
  };

  async function start() {
    stopRef.current = false;
    useTrain.setState({ running: true, history: [], error: null, notAvailable: null });
    try {
      for (let i = 0; i < req.steps && !stopRef.current; i++) {
        const m = await api.trainStep(req);
        useTrain.setState((st) => ({ history: [...st.history, m] }));
      }
    } catch (e) {
      if (isNotAvailable(e)) useTrain.setState({ notAvailable: errorText(e).replace(/^not available yet:\s*/, '') });
      else useTrain.setState({ error: errorText(e) });
    } finally {
      useTrain.setState({ running: false });
    }
  }

  const last = history[history.length - 1];
  const cap = caps?.train;
  return (
    <div className="page page-train">
      <Panel title="Training settings" className="controls">
        <div className="fields">
          <Field k="t.world" label="world" />
          <Field k="t.mode" label="rollout mode" />
          <Field k="t.adv" label="advantage" />
          <Field k="t.steps" label="steps" />
          <Field k="t.tasks" label="tasks / step" />
          <Field k="t.group" label="group size K" />
          <Field k="t.lr" label="learning rate" step={1e-5} />
          <Field k="t.kl" label="KL coef" step={0.01} />
          <Field k="t.clip" label="clip ε" step={0.05} />
          <Field k="t.seed" label="seed" />
        </div>
        <div className="actions">
          <button className="primary" disabled={running || !caps} onClick={() => void start()}>{running ? `step ${history.length}/${req.steps}…` : 'Train'}</button>
          <button disabled={!running} onClick={() => { stopRef.current = true; }}>Stop</button>
          <button disabled={history.length === 0} onClick={() => download('train-metrics.json', JSON.stringify({ request: req, history }, null, 1), 'application/json')}>Export JSON</button>
        </div>
        {cap && !cap.available && <NotAvailable what="training" reason={cap.reason} />}
        {notAvailable && <NotAvailable what="training" reason={notAvailable} />}
        <ErrorBox error={error} />
        {last && (
          <table className="kv">
            <tbody>
              <tr><th>step</th><td>{last.step}</td><th>reward</th><td>{fmt(last.reward)}</td></tr>
              <tr><th>success</th><td>{fmt(last.success)}</td><th>loss</th><td>{fmt(last.loss)}</td></tr>
              <tr><th>grad norm</th><td>{fmt(last.gradNorm)}</td><th>KL</th><td>{fmt(last.kl)}</td></tr>
              <tr><th>fidelity</th><td>{fmt(last.fidelity)}</td><th>ms/step</th><td>{Math.round(last.ms)}</td></tr>
            </tbody>
          </table>
        )}
      </Panel>

      <Panel title="Curves" className="charts wide" testId="train-charts">
        {history.length === 0 ? <Empty>Reward, success, loss, gradient norm, KL and rehearsal fidelity per step appear once training runs.</Empty> : (
          <div className="chart-grid">
            <LineMetric title="reward / success" data={history} x="step"
              series={[{ key: 'reward', label: 'reward', color: COLORS.reward }, { key: 'success', label: 'success', color: COLORS.success }]} />
            <LineMetric title="loss" data={history} x="step" series={[{ key: 'loss', label: 'loss', color: COLORS.loss }]} />
            <LineMetric title="grad norm" data={history} x="step" series={[{ key: 'gradNorm', label: 'grad norm', color: COLORS.grad }]} />
            <LineMetric title="KL" data={history} x="step" series={[{ key: 'kl', label: 'KL', color: COLORS.kl }]} />
            <LineMetric title="fidelity" data={history} x="step" series={[{ key: 'fidelity', label: 'fidelity', color: COLORS.fidelity }]} />
          </div>
        )}
      </Panel>
    </div>
  );
}
