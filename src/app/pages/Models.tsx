// Models page: the shipped model folders (from /models/index.json, see src/app/build/modelsPlugin.ts),
// their config and size, a sample prompt run in the worker, and the engine/backend self-tests.

import { modelOrigin, NAME_SUFFIXES } from '../modelOrigin';
import { useModelIndex } from '../modelIndex';
import { fmtParams, llamaParams, useEvalFile, type EvalFile } from '../modelStats';
import type { LoadedModel, SampleResult, SelfTestResult, SmokeResult } from '../../worker/protocol';
import { Empty, ErrorBox, Field, fmt, fmtBytes, Metric, NotAvailable, Panel } from '../components/ui';
import { useRpc } from '../components/useRpc';
import { useApp } from '../store';
import { api } from '../worker';
import { HfModelsPanel } from '../components/models/HfModels';
import { PretrainCurve } from '../components/models/PretrainCurve';
import { heldOutRows } from '../components/bench/readers';
import type { HeldOutCurve } from '../components/models/pretrainCurve';

export function ModelsPage() {
  const s = useApp((st) => st.settings);
  const set = useApp((st) => st.set);
  const caps = useApp((st) => st.caps);
  const { models, error } = useModelIndex();
  const load = useRpc<LoadedModel>();
  const sample = useRpc<SampleResult>();
  const smoke = useRpc<SmokeResult>();
  const self = useRpc<SelfTestResult>();

  const selected = models?.find((m) => m.name === s['m.model']) ?? null;
  const evalFile = useEvalFile(selected);

  return (
    <div className="page page-models">
      <Panel title="Shipped models" className="controls" testId="model-list">
        <ErrorBox error={error} />
        {!models && !error && <Empty>loading index…</Empty>}
        {models && models.length === 0 && <Empty>No model folders in models/ yet (a folder with config.json is a model).</Empty>}
        {models && models.length > 0 && (
          <table className="rows selectable">
            <thead><tr><th>name</th><th title="parameters, from config.json">params</th><th>layers</th><th>d</th><th>vocab</th><th>size</th><th>how it was made</th></tr></thead>
            <tbody>
              {models.map((m) => {
                const c = m.config ?? {};
                return (
                  <tr key={m.name} className={m.name === s['m.model'] ? 'on' : ''} onClick={() => { set('m.model', m.name); load.reset(); sample.reset(); }}>
                    <td>{m.name}</td><td data-testid="model-params">{fmtParams(llamaParams(m.config))}</td><td>{String(c.num_hidden_layers ?? '–')}</td>
                    <td>{String(c.hidden_size ?? '–')}</td><td>{String(c.vocab_size ?? '–')}</td><td>{fmtBytes(m.totalBytes)}</td>
                    <td className="muted" data-testid="model-origin">{modelOrigin(m.config)}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        )}
        {models && models.length > 0 && <div className="muted" data-testid="model-suffixes">Names: {NAME_SUFFIXES}.</div>}
      </Panel>

      <Panel title={selected ? `Model ${selected.name}` : 'Model'} className="timeline">
        {!selected ? <Empty>Select a model to see its config and files, and to sample from it.</Empty> : (
          <div className="model-detail">
            <div className="cols2">
              <div>
                <div className="subhead">config.json</div>
                <div className="scroll-box"><table className="kv"><tbody>
                  {Object.entries(selected.config ?? {}).map(([k, v]) => (
                    <tr key={k}><th>{k}</th><td>{typeof v === 'object' ? JSON.stringify(v) : String(v)}</td></tr>
                  ))}
                </tbody></table></div>
              </div>
              <div>
                <div className="subhead">files ({fmtBytes(selected.totalBytes)})</div>
                <table className="kv files"><tbody>
                  {selected.files.map((f) => <tr key={f.path}><th>{f.path}</th><td>{fmtBytes(f.bytes)}</td></tr>)}
                </tbody></table>
              </div>
            </div>
            <div className="subhead">held-out evaluation (eval.json)</div>
            <HeldOut name={selected.name} file={evalFile.data} error={evalFile.error} shipped={selected.files.some((f) => f.path === 'eval.json')} params={llamaParams(selected.config)} />
            <div className="subhead">sample</div>
            <div className="fields">
              <Field k="m.prompt" label="prompt" wide />
              <Field k="m.max" label="max new tokens" />
              <Field k="m.temp" label="temperature" step={0.05} />
              <Field k="m.seed" label="seed" />
            </div>
            <div className="actions">
              <button disabled={load.busy} onClick={() => void load.run(() => api.loadModel(selected.url))}>
                {load.busy ? 'loading…' : load.result?.name === selected.name ? 'loaded ✓' : 'Load in worker'}
              </button>
              <button className="primary" disabled={sample.busy || load.busy}
                onClick={() => void sample.run(async () => {
                  if (load.result?.url !== selected.url) await api.loadModel(selected.url);
                  return api.sample({ prompt: s['m.prompt'], maxNewTokens: s['m.max'], temperature: s['m.temp'], topP: 1, topK: 0, seed: s['m.seed'] });
                })}>
                {sample.busy ? 'sampling…' : 'Sample'}
              </button>
              {load.result && <span className="muted">loaded in {Math.round(load.result.loadMs)} ms{load.result.parameters ? ` · ${load.result.parameters.toLocaleString()} params` : ''}</span>}
            </div>
            {caps && !caps.generate.available && <NotAvailable what="sampling" reason={caps.generate.reason} />}
            {(load.notAvailable || sample.notAvailable) && <NotAvailable what="sampling" reason={load.notAvailable ?? sample.notAvailable ?? ''} />}
            <ErrorBox error={load.error ?? sample.error} />
            {sample.result && (
              <div className="sample-out" data-testid="sample-output">
                <pre><span className="muted">{s['m.prompt']}</span>{sample.result.text}</pre>
                <div className="muted">{sample.result.promptTokens} prompt + {sample.result.outputTokens} new tokens · {sample.result.finishReason} · {fmt(sample.result.tokensPerSecond, 1)} tok/s</div>
              </div>
            )}
          </div>
        )}
      </Panel>

      <Panel title="Backend checks" className="charts" testId="backend-checks">
        <div className="actions">
          <button disabled={smoke.busy} data-testid="run-smoke" onClick={() => void smoke.run(() => api.smokeTest())}>{smoke.busy ? 'running…' : 'Smoke test'}</button>
          <button disabled={self.busy} data-testid="run-selftest" onClick={() => void self.run(() => api.engineSelfTest())}>{self.busy ? 'running…' : 'Engine self-test'}</button>
        </div>
        <ErrorBox error={smoke.error ?? self.error} />
        {smoke.result && (
          <div data-testid="smoke-result" className="muted">
            smoke on {smoke.result.kind}: softmax row 0 = [{smoke.result.output.slice(0, 8).map((v) => v.toFixed(4)).join(', ')}] · {Math.round(smoke.result.ms)} ms
          </div>
        )}
        {self.notAvailable && <NotAvailable what="engine self-test" reason={self.notAvailable} />}
        {self.result && (
          <table className="kv" data-testid="selftest-result" data-json={JSON.stringify(self.result)}><tbody>
            <tr><th>runtime</th><td>{self.result.runtimeDetail}</td></tr>
            <tr><th>loss → after AdamW</th><td>{fmt(self.result.loss, 6)} → {fmt(self.result.lossAfter, 6)}</td></tr>
            <tr><th>grad norm</th><td>{fmt(self.result.gradNorm, 6)}</td></tr>
            <tr><th>logits[0:6]</th><td>{self.result.logits.slice(0, 6).map((v) => v.toFixed(4)).join(', ')}</td></tr>
            <tr><th>sampled (greedy)</th><td>{self.result.sampled.join(' ')} · “{self.result.sampledText}”</td></tr>
            <tr><th>top-1 margin</th><td>{fmt(self.result.margin, 4)}</td></tr>
            {Object.entries(self.result.timings).map(([k, v]) => <tr key={k}><th>{k}</th><td>{Math.round(v)} ms</td></tr>)}
          </tbody></table>
        )}
      </Panel>

      <HfModelsPanel />
    </div>
  );
}

/** The folder's shipped held-out results: per world and mode, the same numbers the Benchmarks page computes. */
function HeldOut(props: { name: string; file: EvalFile | null; error: string | null; shipped: boolean; params: number | null }) {
  const f = props.file;
  return (
    <div data-testid="model-heldout">
      <div className="muted">{props.params !== null ? `${props.params.toLocaleString()} parameters` : 'parameter count unknown'}{f?.heldOutTasks ? ` · ${f.heldOutTasks} held-out test tasks per world, greedy` : ''}</div>
      {!props.shipped && <div className="muted">this folder ships no eval.json</div>}
      <ErrorBox error={props.error} />
      {f && !(f.evals && typeof f.evals === 'object' && Object.keys(f.evals).length > 0) && (
        <div className="muted" data-testid="model-heldout-none">this eval.json holds no per-mode evaluation (only its pretraining curve, below)</div>
      )}
      {f && f.evals && typeof f.evals === 'object' && Object.keys(f.evals).length > 0 && (
        <table className="rows">
          <thead><tr><th>world</th><th>mode</th><th>tasks × k</th><th><Metric name="success" /></th><th><Metric name="state check" /></th><th><Metric name="checklist" /></th><th><Metric name="field F1" /></th><th><Metric name="exact" /></th></tr></thead>
          <tbody>
            {heldOutRows(f).map((e) => (
              <tr key={e.key}>
                <td>{e.world}</td><td>{e.mode}</td><td>{e.tasks} × {e.k}</td><td>{fmt(e.success, 3)}</td><td>{fmt(e.outcome, 3)}</td><td>{fmt(e.checklist, 3)}</td>
                <td>{e.fieldF1 !== null ? fmt(e.fieldF1, 3) : '–'}</td><td>{e.exact !== null ? fmt(e.exact, 3) : '–'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {f?.note && <div className="muted">{f.note}</div>}
      <div className="subhead">pretraining curve</div>
      {f || !props.shipped ? <PretrainCurve name={props.name} curve={f?.heldOutCurve as HeldOutCurve | undefined} /> : null}
    </div>
  );
}
