// Rollout page: run K trajectories of one task in real | simulator | rehearsal mode and inspect them turn
// by turn (timeline) next to per-trajectory reward and per-rehearsal fidelity (charts).

import { useMemo, useState } from 'react';
import type { Trajectory } from '../../agent/types';
import type { RolloutMode, RolloutRequest } from '../../worker/protocol';
import { BarMetric, COLORS } from '../components/charts';
import { Empty, ErrorBox, Field, fmt, NotAvailable, Panel } from '../components/ui';
import { useRpc } from '../components/useRpc';
import { useApp } from '../store';
import { api } from '../worker';
import { useModelIndex } from '../modelIndex';

export function RolloutPage() {
  const s = useApp((st) => st.settings);
  const caps = useApp((st) => st.caps);
  const worlds = useApp((st) => st.worlds);
  const { models } = useModelIndex();
  const rpc = useRpc<Trajectory[]>();
  const [selected, setSelected] = useState(0);

  const model = models?.find((m) => m.name === s['m.model']) ?? null;
  const world = worlds?.find((w) => w.name === s['r.world']);
  const req: RolloutRequest = {
    modelUrl: model?.url ?? '',
    world: s['r.world'], taskId: s['r.task'] || undefined, mode: s['r.mode'] as RolloutMode,
    k: s['r.k'], seed: s['r.seed'], temperature: s['r.temp'], maxTurns: s['r.turns'], maxNewTokens: s['r.max'],
  };
  const trajs = rpc.result ?? [];
  const cur = trajs[Math.min(selected, trajs.length - 1)];

  const rewardData = useMemo(() => trajs.map((t, i) => ({ i: `#${i}`, reward: t.reward ?? 0 })), [trajs]);
  const fidData = useMemo(() => (cur?.rows ?? [])
    .filter((r) => r.role === 'rehearse' && r.fidelity)
    .map((r) => ({ step: `t${r.turn}.${r.step}`, fieldF1: r.fidelity!.fieldF1, exact: r.fidelity!.exact ? 1 : 0 })), [cur]);

  const cap = caps?.rollout;
  return (
    <div className="page page-rollout">
      <Panel title="Rollout settings" className="controls">
        <div className="fields">
          <Field k="m.model" label="policy model" wide
            options={[{ value: '', label: models?.length ? '(choose a model)' : '(no models shipped)' }, ...(models ?? []).map((m) => ({ value: m.name }))]} />
          <Field k="r.world" label="world" options={worlds?.map((w) => ({ value: w.name }))} />
          <Field k="r.task" label="task" title="empty = first test task"
            options={[{ value: '', label: '(first test task)' },
              ...(world?.testTasks ?? []).map((t) => ({ value: t, label: `${t} (test)` })),
              ...(world?.trainTasks ?? []).map((t) => ({ value: t, label: `${t} (train)` }))]} />
          <Field k="r.mode" label="mode" />
          <Field k="r.k" label="K (group)" />
          <Field k="r.seed" label="seed" />
          <Field k="r.temp" label="temperature" step={0.05} />
          <Field k="r.turns" label="turn cap" />
          <Field k="r.max" label="max new tokens" />
        </div>
        {world && <div className="muted">{world.description} · {world.tools} tools</div>}
        {s['r.mode'] === 'simulator' && <div className="muted">simulator = the same model, frozen (one model until training runs)</div>}
        <div className="actions">
          <button className="primary" disabled={rpc.busy || !caps || !model} title={model ? '' : 'choose a policy model first'} onClick={() => { setSelected(0); void rpc.run(() => api.rollout(req)); }}>
            {rpc.busy ? 'running…' : 'Run rollout'}
          </button>
          {rpc.ms !== null && <span className="muted">{(rpc.ms / 1000).toFixed(1)} s</span>}
        </div>
        {models && !model && <div className="muted">Choose a policy model (the Models page lists what models/ ships).</div>}
        {cap && !cap.available && <NotAvailable what="rollout" reason={cap.reason} />}
        {rpc.notAvailable && <NotAvailable what="rollout" reason={rpc.notAvailable} />}
        <ErrorBox error={rpc.error} />
      </Panel>

      <Panel title="Timeline" className="timeline" testId="rollout-timeline"
        right={trajs.length > 0 && (
          <span className="traj-picker">
            {trajs.map((t, i) => (
              <button key={i} className={i === selected ? 'on' : ''} onClick={() => setSelected(i)} title={t.terminatedBy}>
                #{i} {fmt(t.reward ?? null, 2)}
              </button>
            ))}
          </span>
        )}>
        {!cur ? <Empty>No trajectories yet. Run a rollout to see the conversation, tool calls, imagined vs real observations and fidelity.</Empty>
          : <TrajectoryView t={cur} />}
      </Panel>

      <Panel title="Charts" className="charts">
        {trajs.length === 0 ? <Empty>Reward per trajectory and rehearsal fidelity appear after a run.</Empty> : (
          <>
            <BarMetric title="reward per trajectory" data={rewardData} x="i" series={[{ key: 'reward', label: 'reward', color: COLORS.reward }]} />
            {fidData.length > 0
              ? <BarMetric title={`fidelity (trajectory #${selected})`} data={fidData} x="step"
                  series={[{ key: 'fieldF1', label: 'field F1', color: COLORS.fidelity }, { key: 'exact', label: 'exact', color: COLORS.success }]} />
              : <Empty>No rehearse rows in this trajectory (mode {cur?.mode}).</Empty>}
          </>
        )}
      </Panel>
    </div>
  );
}

function TrajectoryView({ t }: { t: Trajectory }) {
  return (
    <div className="traj">
      <div className="traj-head">
        <span>task <b>{t.taskId}</b></span><span>mode <b>{t.mode}</b></span><span>seed <b>{t.seed}</b></span>
        <span>reward <b>{fmt(t.reward ?? null)}</b></span><span>ended by <b>{t.terminatedBy}</b></span>
        {t.verdict && <span>checklist score <b>{fmt(t.verdict.score)}</b>{t.verdict.terminatedEarly ? ' (terminated early)' : ''}</span>}
        {t.verdict?.outcome && <span>outcome <b>{t.verdict.outcome.passed ? 'passed' : 'failed'}</b></span>}
      </div>
      {t.verdict && t.verdict.turns.some((tv) => tv.items.length > 0) && (
        <table className="rows checklist">
          <thead><tr><th>turn</th><th>item</th><th>weight</th><th>passed</th><th>reason</th></tr></thead>
          <tbody>
            {t.verdict.turns.flatMap((tv) => tv.items.map((it) => (
              <tr key={`${tv.turn}-${it.id}`} className={it.passed ? 'pass' : 'fail'}>
                <td>{tv.turn}</td><td>{it.id}</td><td>{fmt(it.weight, 2)}</td><td>{it.passed ? '✓' : '✗'}</td><td className="clip" title={it.reason}>{it.reason}</td>
              </tr>
            )))}
          </tbody>
        </table>
      )}
      <ol className="messages">
        {t.messages.map((m, i) => (
          <li key={i} className={`msg msg-${m.role}${m.role === 'tool' && m.error ? ' msg-error' : ''}`}>
            {m.role === 'system' ? (
              // The system prompt (policy + tool list) is long and the same for every trajectory of a task.
              <details><summary className="msg-role">system ({m.content.length} chars)</summary><pre className="msg-body">{m.content}</pre></details>
            ) : <>
              <span className="msg-role">{m.role}{m.role === 'tool' ? ` ${m.name}` : ''}</span>
              <pre className="msg-body">{m.content}</pre>
            </>}
            {m.role === 'assistant' && m.toolCalls?.map((c, j) => (
              <pre key={j} className="msg-call">{c.name}({JSON.stringify(c.arguments)})</pre>
            ))}
          </li>
        ))}
      </ol>
      {t.rows.length === 0 ? <Empty>No generations: the episode ended ({t.terminatedBy}) before the first one.</Empty> : <table className="rows">
        <thead><tr><th>turn</th><th>step</th><th>role</th><th>tokens</th><th>call / imagined</th><th>real</th><th>fidelity</th><th>error</th></tr></thead>
        <tbody>
          {t.rows.map((r, i) => (
            <tr key={i} className={`row-${r.role}`}>
              <td>{r.turn}</td><td>{r.step}</td><td>{r.role}</td><td>{r.outputIds.length}</td>
              <td className="clip">{r.call ? `${r.call.name}(${JSON.stringify(r.call.arguments)})` : r.imagined ?? ''}</td>
              <td className="clip">{r.real?.text ?? ''}</td>
              <td>{r.fidelity ? `${r.fidelity.exact ? 'exact' : fmt(r.fidelity.fieldF1, 2)}${r.fidelity.errorAgree ? '' : ' ≠err'}` : ''}</td>
              <td className="clip">{r.error ? `${r.error.code}` : ''}</td>
            </tr>
          ))}
        </tbody>
      </table>}
    </div>
  );
}
