// Benchmarks page: run one suite in the worker and show per-task metrics plus the suite summary.

import { useMemo } from 'react';
import type { BenchResult } from '../../worker/protocol';
import { BarMetric, COLORS } from '../components/charts';
import { Empty, ErrorBox, Field, fmt, NotAvailable, Panel } from '../components/ui';
import { useRpc } from '../components/useRpc';
import { useApp } from '../store';
import { api } from '../worker';

export function BenchmarksPage() {
  const s = useApp((st) => st.settings);
  const caps = useApp((st) => st.caps);
  const rpc = useRpc<BenchResult>();
  const res = rpc.result;
  const summary = useMemo(() => Object.entries(res?.summary ?? {}).map(([metric, value]) => ({ metric, value })), [res]);
  const cap = caps?.bench;
  return (
    <div className="page page-bench">
      <Panel title="Suite" className="controls">
        <div className="fields">
          <Field k="b.suite" label="suite" />
          <Field k="b.k" label="k (samples)" />
          <Field k="b.seed" label="seed" />
          <Field k="b.temp" label="temperature" step={0.05} />
        </div>
        <div className="actions">
          <button className="primary" disabled={rpc.busy || !caps}
            onClick={() => void rpc.run(() => api.bench({ suite: s['b.suite'], k: s['b.k'], seed: s['b.seed'], temperature: s['b.temp'] }))}>
            {rpc.busy ? 'running…' : 'Run suite'}
          </button>
        </div>
        {cap && !cap.available && <NotAvailable what="benchmarks" reason={cap.reason} />}
        {rpc.notAvailable && <NotAvailable what="benchmarks" reason={rpc.notAvailable} />}
        <ErrorBox error={rpc.error} />
      </Panel>
      <Panel title="Summary" className="charts">
        {!res ? <Empty>Success, checklist score, Avg@k, pass^k and tool precision/recall/F1 appear after a run.</Empty> : (
          <BarMetric title={res.suite} data={summary} x="metric" series={[{ key: 'value', label: 'value', color: COLORS.reward }]} />
        )}
      </Panel>
      <Panel title="Per task" className="timeline">
        {!res ? <Empty>No results.</Empty> : (
          <table className="rows">
            <thead><tr><th>task</th><th>metric</th><th>value</th></tr></thead>
            <tbody>{res.rows.map((r, i) => <tr key={i}><td>{r.task}</td><td>{r.metric}</td><td>{fmt(r.value)}</td></tr>)}</tbody>
          </table>
        )}
      </Panel>
    </div>
  );
}
