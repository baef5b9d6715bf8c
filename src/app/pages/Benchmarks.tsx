// Benchmarks page: held-out evaluation of a shipped model on a built-in world's test split (success,
// verified outcome, checklist score, pass@k, rehearsal fidelity), run in the worker by src/agent/evaluate.ts.

import { useMemo } from 'react';
import type { BenchResult, RolloutMode } from '../../worker/protocol';
import { BarMetric, COLORS } from '../components/charts';
import { Empty, ErrorBox, Field, fmt, NotAvailable, Panel } from '../components/ui';
import { useRpc } from '../components/useRpc';
import { useModelIndex } from '../modelIndex';
import { useApp } from '../store';
import { api } from '../worker';

export function BenchmarksPage() {
  const s = useApp((st) => st.settings);
  const caps = useApp((st) => st.caps);
  const worlds = useApp((st) => st.worlds);
  const { models } = useModelIndex();
  const rpc = useRpc<BenchResult>();
  const res = rpc.result;
  const model = models?.find((m) => m.name === s['m.model']) ?? null;
  const summary = useMemo(() => Object.entries(res?.summary ?? {}).map(([metric, value]) => ({ metric, value })), [res]);
  const terms = useMemo(() => Object.entries(res?.terminations ?? {}).map(([reason, n]) => ({ reason, n })), [res]);
  const cap = caps?.bench;

  const run = () => rpc.run(() => api.bench({
    modelUrl: model?.url ?? '', world: s['b.world'], tasks: s['b.tasks'], mode: s['b.mode'] as RolloutMode,
    k: s['b.k'], seed: s['b.seed'], temperature: s['b.temp'], maxTurns: s['b.turns'], maxNewTokens: s['b.max'],
  }));

  return (
    <div className="page page-bench">
      <Panel title="Evaluation" className="controls">
        <div className="fields">
          <Field k="m.model" label="model" wide
            options={[{ value: '', label: models?.length ? '(choose a model)' : '(no models shipped)' }, ...(models ?? []).map((m) => ({ value: m.name }))]} />
          <Field k="b.world" label="world (test split)" options={worlds?.map((w) => ({ value: w.name }))} />
          <Field k="b.tasks" label="tasks" />
          <Field k="b.mode" label="mode" />
          <Field k="b.k" label="k (samples / task)" />
          <Field k="b.temp" label="temperature" step={0.05} title="0 = greedy" />
          <Field k="b.seed" label="seed" />
          <Field k="b.turns" label="turn cap" />
          <Field k="b.max" label="max new tokens" />
        </div>
        <div className="actions">
          <button className="primary" disabled={rpc.busy || !caps || !model} onClick={() => void run()}>
            {rpc.busy ? 'running…' : 'Run evaluation'}
          </button>
          {res && <span className="muted">{(res.ms / 1000).toFixed(1)} s</span>}
        </div>
        {models && !model && <div className="muted">Choose a model (the Models page lists what models/ ships).</div>}
        <div className="muted">BFCL and τ² suites (src/bench) appear here once they are wired into the worker.</div>
        {cap && !cap.available && <NotAvailable what="benchmarks" reason={cap.reason} />}
        {rpc.notAvailable && <NotAvailable what="benchmarks" reason={rpc.notAvailable} />}
        <ErrorBox error={rpc.error} />
      </Panel>
      <Panel title="Per task" className="timeline" testId="bench-rows">
        {!res ? <Empty>Per-task success, outcome, checklist score and fidelity appear after a run.</Empty> : (
          <table className="rows">
            <thead><tr><th>task</th><th>n</th><th>success</th><th>outcome</th><th>checklist</th><th>fidelity F1</th><th>ended by</th></tr></thead>
            <tbody>{res.rows.map((r) => (
              <tr key={r.task}><td>{r.task}</td><td>{r.samples}</td><td>{fmt(r.success, 3)}</td><td>{fmt(r.outcome, 3)}</td>
                <td>{fmt(r.checklist, 3)}</td><td>{fmt(r.fidelityF1, 3)}</td><td className="clip">{r.terminations.join(', ')}</td></tr>
            ))}</tbody>
          </table>
        )}
      </Panel>
      <Panel title="Summary" className="charts" testId="bench-summary">
        {!res ? <Empty>Avg@k success, pass@k, checklist and fidelity appear after a run.</Empty> : (
          <>
            <div className="muted" data-testid="bench-suite" data-json={JSON.stringify(res.summary)}>{res.suite}</div>
            <BarMetric title="summary" data={summary} x="metric" series={[{ key: 'value', label: 'value', color: COLORS.reward }]} height={180} />
            <BarMetric title="terminations" data={terms} x="reason" series={[{ key: 'n', label: 'trajectories', color: COLORS.loss }]} />
          </>
        )}
      </Panel>
    </div>
  );
}
