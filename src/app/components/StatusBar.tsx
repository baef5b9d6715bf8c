// Bottom status bar: which backend computes and why. The text is what the worker measured, never a guess
// from the page (the page's navigator.gpu can differ from the worker's).

import { useApp } from '../store';
import { parseQuery } from '../urlState';
import { reasonInWords } from '../errors';

function switchBackend(to: 'auto' | 'webgpu' | 'wasm') {
  const p = new URLSearchParams(location.search);
  if (to === 'auto') p.delete('backend'); else p.set('backend', to);
  const qs = p.toString();
  // The worker's ORT instance is fixed once created, so a reload is the honest way to switch.
  location.assign(`${location.pathname}${qs ? `?${qs}` : ''}${location.hash}`);
}

export function StatusBar() {
  const backend = useApp((s) => s.backend);
  const error = useApp((s) => s.backendError);
  const requested = parseQuery(location.search).backend;

  let label: string;
  let detail = '';
  if (error) {
    label = 'worker failed';
    detail = error;
  } else if (!backend) {
    label = 'starting…';
    detail = 'the compute worker is loading ONNX Runtime (WASM); the page works meanwhile';
  } else if (backend.kind === 'webgpu') {
    const a = backend.adapter;
    label = 'WebGPU';
    detail = [
      a?.vendor && `vendor ${a.vendor}`,
      a?.architecture && `arch ${a.architecture}`,
      a?.device && `device ${a.device}`,
      a?.description && `“${a.description}”`,
      `isFallbackAdapter ${a?.isFallbackAdapter ? 'true' : 'false'}`,
      backend.reason,
    ].filter(Boolean).join(' · ');
  } else {
    label = 'WASM';
    const a = backend.adapter;
    detail = [
      reasonInWords(backend.reason),
      // A probed-and-rejected adapter: name it, so "why not WebGPU" has an answer.
      a && `adapter ${[a.vendor, a.architecture, a.description].filter(Boolean).join(' / ') || '(unnamed)'} · isFallbackAdapter ${a.isFallbackAdapter ? 'true' : 'false'}`,
      `${backend.wasmThreads} thread${backend.wasmThreads === 1 ? '' : 's'}`,
      backend.probing && 'timing WebGPU in the background…',
    ].filter(Boolean).join(' · ');
  }

  return (
    <footer className="statusbar" data-testid="statusbar">
      <span
        className={`backend-pill ${backend?.kind ?? (error ? 'error' : 'pending')}`}
        data-testid="backend-kind"
        data-backend={backend?.kind ?? ''}
        data-fallback-adapter={backend?.adapter ? String(backend.adapter.isFallbackAdapter) : ''}
        data-probing={backend?.probing ? 'true' : 'false'} data-remembered={backend?.remembered ? 'true' : 'false'}
        data-verdict={backend?.verdict ?? ''} data-timing={backend?.timing ? JSON.stringify(backend.timing) : ''}
      >
        {label}
      </span>
      <span className="backend-detail" data-testid="backend-detail" title={detail}>{detail}</span>
      <span className="spacer" />
      {backend && (
        <span className="muted">
          ORT {backend.ortVersion} · {backend.crossOriginIsolated ? 'isolated' : 'not isolated'} · init {Math.round(backend.initMs)} ms
        </span>
      )}
      <span className="backend-switch">
        backend:
        {(['auto', 'webgpu', 'wasm'] as const).map((b) => (
          <button key={b} className={b === requested ? 'on' : ''} onClick={() => b !== requested && switchBackend(b)}>{b}</button>
        ))}
      </span>
    </footer>
  );
}
