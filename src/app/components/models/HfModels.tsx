// Models page: add a Hugging Face ONNX causal LM (onnx-community layout) from a hub id, a URL, or a picked /
// dropped folder. The worker loads it through src/engine/hf (the Node loader), showing per-file download
// progress; downloads stay in the browser's Cache API until "Clear cache". Once loaded, the model is listed
// on the Rollout page, where it plays Act and Rehearse with its own chat template.

import * as Comlink from 'comlink';
import { useEffect, useRef, useState, type DragEvent } from 'react';
import type { HfCacheInfo, HfDtypeName, HfLoadProgress, HfLoadRequest } from '../../../worker/protocol';
import { useApp } from '../../store';
import { api, errorText, ready } from '../../worker';
import { Empty, ErrorBox, fmt, fmtBytes, Panel } from '../ui';
import { userError } from '../../errors';
import { filesFromDrop, filesFromPicked } from './folderFiles';
import { useHfModel } from './hfStore';
import './hf-models.css';

const DTYPES: { value: HfDtypeName; file: string }[] = [
  { value: 'fp32', file: 'onnx/model.onnx' }, { value: 'fp16', file: 'onnx/model_fp16.onnx' }, { value: 'q8', file: 'onnx/model_quantized.onnx' },
  { value: 'q4', file: 'onnx/model_q4.onnx' }, { value: 'q4f16', file: 'onnx/model_q4f16.onnx' },
];
const DEFAULT_HUB = 'https://huggingface.co/';

function FileProgress(props: { p: HfLoadProgress }) {
  const { p } = props;
  const frac = p.total ? Math.min(1, (p.loaded ?? 0) / p.total) : p.status === 'done' ? 1 : 0;
  const state = p.status === 'progress' ? `${(100 * frac).toFixed(0)}%` : p.status;
  return (
    <div className="progress hf-file" data-testid="hf-progress" data-file={p.file} data-status={p.status} role="progressbar"
      aria-valuemin={0} aria-valuemax={p.total ?? 0} aria-valuenow={p.loaded ?? 0}>
      <div className="progress-track"><div className="progress-fill" style={{ width: `${(100 * frac).toFixed(1)}%` }} /></div>
      <div className="progress-text"><span>{p.file}</span><span>{state}{p.total ? ` · ${fmtBytes(p.loaded ?? 0)} / ${fmtBytes(p.total)}` : ''}</span></div>
    </div>
  );
}

export function HfModelsPanel() {
  const set = useApp((st) => st.set);
  const setPage = useApp((st) => st.setPage);
  const info = useHfModel((s) => s.loaded);
  const [ref, setRef] = useState('');
  const [host, setHost] = useState(DEFAULT_HUB);
  const [dtype, setDtype] = useState<HfDtypeName>('fp32');
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [progress, setProgress] = useState<Record<string, HfLoadProgress>>({});
  const [cache, setCache] = useState<HfCacheInfo | null>(null);
  const [dragging, setDragging] = useState(false);
  const folderInput = useRef<HTMLInputElement>(null);

  const refreshCache = () => api.hfCacheInfo().then(setCache, (e) => setError(errorText(e)));
  useEffect(() => { void ready.then(refreshCache, () => undefined); }, []);

  const load = async (req: HfLoadRequest, what: string) => {
    setBusy(what); setError(null); setProgress({});
    const onProgress = Comlink.proxy((p: HfLoadProgress) => {
      if (!p.file) return;
      // 'done' and 'initiate' events carry no sizes: keep the last known ones.
      setProgress((cur) => {
        const prev = cur[p.file];
        const total = p.total ?? prev?.total;
        const loaded = p.status === 'done' ? total ?? p.loaded : p.loaded ?? prev?.loaded;
        return { ...cur, [p.file]: { file: p.file, status: p.status, loaded, total } };
      });
    });
    try {
      useHfModel.setState({ loaded: await api.hfLoad(req, onProgress) });
    } catch (e) {
      setError(userError(e, `loading ${what}`));
    } finally {
      setBusy(null);
      void refreshCache();
    }
  };
  const loadFolder = (f: { name: string; files: Map<string, Blob> } | null) => {
    if (!f) { setError('MISSING_FILE: the folder you picked is empty: pick the folder that holds config.json, tokenizer.json and onnx/'); return; }
    void load({ kind: 'files', name: f.name, files: f.files, dtype }, `folder ${f.name}`);
  };
  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    e.stopPropagation();
    setDragging(false);
    void filesFromDrop(e.dataTransfer).then(loadFolder, (err) => setError(userError(err, 'reading the dropped folder')));
  };

  const shown = Object.values(progress);
  const total = shown.reduce((s, p) => s + (p.total ?? 0), 0);
  const done = shown.reduce((s, p) => s + Math.min(p.loaded ?? 0, p.total ?? 0), 0);
  const c = info?.config ?? {};
  return (
    <Panel title="Hugging Face model (ONNX, onnx-community layout)" className="hf-panel" testId="hf-models">
      <div className="hf-cols">
        <div>
          <div className="fields">
            <label className="field wide" htmlFor="hf-ref">
              <span className="field-label">hub id (owner/name[@revision]) or URL of a model folder</span>
              <input id="hf-ref" data-testid="hf-ref" value={ref} placeholder="onnx-community/Qwen3-0.6B-ONNX" spellCheck={false}
                onChange={(e) => setRef(e.target.value)} onKeyDown={(e) => { if (e.key === 'Enter' && ref.trim() && !busy) void load({ kind: 'ref', ref, dtype, hubHost: host }, ref); }} />
            </label>
            <label className="field" htmlFor="hf-host" title="where hub ids are resolved (owner/name/resolve/revision/file); a mirror works too">
              <span className="field-label">hub host</span>
              <input id="hf-host" data-testid="hf-host" value={host} spellCheck={false} onChange={(e) => setHost(e.target.value)} />
            </label>
            <label className="field" htmlFor="hf-dtype" title="which onnx/model*.onnx file: fp16 and q4f16 need WebGPU's shader-f16 on WebGPU">
              <span className="field-label">dtype</span>
              <select id="hf-dtype" data-testid="hf-dtype" value={dtype} onChange={(e) => setDtype(e.target.value as HfDtypeName)}>
                {DTYPES.map((d) => <option key={d.value} value={d.value}>{d.value} ({d.file})</option>)}
              </select>
            </label>
          </div>
          <div className="actions">
            <button className="primary" data-testid="hf-add" disabled={!!busy || !ref.trim()} onClick={() => void load({ kind: 'ref', ref, dtype, hubHost: host }, ref)}>
              {busy ? 'loading…' : 'Download and load'}
            </button>
            <button data-testid="hf-pick" disabled={!!busy} onClick={() => folderInput.current?.click()}>Pick a folder…</button>
            {/* webkitdirectory is not in React's input props: set through the ref's attribute. */}
            <input ref={(el) => { folderInput.current = el; el?.setAttribute('webkitdirectory', ''); }} type="file" multiple hidden data-testid="hf-folder-input"
              onChange={(e) => { const fl = e.target.files; if (fl?.length) loadFolder(filesFromPicked(fl)); e.target.value = ''; }} />
          </div>
          <div className={`drop-zone${dragging ? ' on' : ''}`} data-testid="hf-drop"
            onDragOver={(e) => { e.preventDefault(); e.stopPropagation(); setDragging(true); }} onDragLeave={() => setDragging(false)} onDrop={onDrop}>
            or drop a model folder here (config.json, tokenizer.json, tokenizer_config.json, onnx/model*.onnx)
          </div>
          {busy && <div className="muted" data-testid="hf-busy">loading {busy} in the worker…</div>}
          {shown.length > 0 && (
            <div className="hf-progress" data-testid="hf-progress-list">
              <div className="muted">{busy ? 'downloading' : 'downloaded'} {fmtBytes(done)} of {fmtBytes(total)} over {shown.length} file{shown.length === 1 ? '' : 's'}</div>
              {shown.map((p) => <FileProgress key={p.file} p={p} />)}
            </div>
          )}
          <ErrorBox error={error} />
          <div className="actions hf-cache" data-testid="hf-cache">
            <span className="muted" data-testid="hf-cache-info">
              {cache ? `download cache: ${cache.entries} file${cache.entries === 1 ? '' : 's'}, ${fmtBytes(cache.bytes)}` : 'download cache: …'}
            </span>
            <button data-testid="hf-clear-cache" disabled={!!busy || !cache || cache.entries === 0}
              onClick={() => void api.hfClearCache().then(setCache, (e) => setError(errorText(e)))}>Clear cache</button>
          </div>
        </div>
        <div data-testid="hf-loaded">
          {!info ? <Empty>No Hugging Face model loaded. A loaded model is listed on the Rollout page, where it plays Act and Rehearse with its own chat template.</Empty> : (
            <>
              <table className="kv"><tbody>
                <tr><th>model</th><td data-testid="hf-loaded-url">{info.url}</td></tr>
                <tr><th>source</th><td>{info.source}</td></tr>
                <tr><th>dtype · device</th><td>{info.dtype} · {info.device}</td></tr>
                <tr><th>architecture</th><td>{String(c.model_type ?? '?')}: {String(c.num_hidden_layers ?? '?')} layers, hidden {String(c.hidden_size ?? '?')}, {String(c.num_attention_heads ?? '?')} heads ({String(c.num_key_value_heads ?? c.num_attention_heads ?? '?')} KV), vocabulary {String(c.vocab_size ?? '?')}</td></tr>
                <tr><th>chat template</th><td>{info.chatTemplate ? 'the model\'s own (tokenizer_config.json)' : 'none in tokenizer_config.json: the compact template'}</td></tr>
                <tr><th>loaded in</th><td>{fmt(info.loadMs / 1000, 1)} s</td></tr>
              </tbody></table>
              <table className="kv files"><tbody>
                {info.files.map((f) => <tr key={f.path}><th>{f.path}</th><td>{fmtBytes(f.bytes)}</td></tr>)}
              </tbody></table>
              <div className="actions">
                <button className="primary" data-testid="hf-use" onClick={() => { set('m.model', info.url); set('r.mode', 'rehearsal'); setPage('rollout'); }}>
                  Roll out with it (rehearsal mode)
                </button>
                <button data-testid="hf-unload" onClick={() => void api.hfUnload().then(() => useHfModel.setState({ loaded: null }))}>Unload</button>
              </div>
            </>
          )}
        </div>
      </div>
    </Panel>
  );
}
