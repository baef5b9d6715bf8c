// App-wide state: the serialisable settings (mirrored into the URL hash) plus what the worker reported.
// Per-run results (trajectories, curves) live in page-level stores next to the pages that own them.

import { create } from 'zustand';
import type { BackendInfo, Capabilities, WorldInfo } from '../worker/protocol';
import { parseHash, parseQuery, toHash, withSetting, type Ignored, type Key, type Page, type Settings } from './urlState';
import { api, errorText, onComputeWorker, ready, currentReady as readyNow } from './worker';

interface AppState {
  page: Page;
  settings: Settings;
  backend: BackendInfo | null;
  backendError: string | null;
  caps: Capabilities | null;
  worlds: WorldInfo[] | null;
  /** URL values that were not applied (unknown, malformed, out of range): listed in a notice. */
  ignored: Ignored[];
  setPage(p: Page): void;
  set<K extends Key>(k: K, v: Settings[K]): void;
}

const initial = parseHash(location.hash);
/** How long after the page is interactive the deferred WebGPU timing starts (src/worker/backend-choice.ts). */
const BACKGROUND_PROBE_DELAY_MS = 2000;

export const useApp = create<AppState>((set) => ({
  page: initial.page,
  settings: initial.settings,
  backend: null,
  backendError: null,
  caps: null,
  worlds: null,
  ignored: [...parseQuery(location.search).ignored, ...initial.ignored],
  setPage: (page) => set({ page }),
  set: (k, v) => set((s) => ({ settings: withSetting(s.settings, k, v) })),
}));

// URL ⇄ store. replaceState (not pushState) for settings so dragging a slider does not flood history;
// a page switch pushes so Back returns to the previous tab.
let applyingHash = false;
useApp.subscribe((s, prev) => {
  if (applyingHash) return;
  const hash = toHash({ page: s.page, settings: s.settings });
  if (hash === location.hash) return;
  const url = `${location.pathname}${location.search}${hash}`;
  if (s.page !== prev.page) history.pushState(null, '', url);
  else history.replaceState(null, '', url);
});
window.addEventListener('hashchange', () => {
  const st = parseHash(location.hash);
  applyingHash = true;
  useApp.setState({ page: st.page, settings: st.settings, ...(st.ignored.length ? { ignored: st.ignored } : {}) });
  applyingHash = false;
});
window.addEventListener('popstate', () => {
  const st = parseHash(location.hash);
  applyingHash = true;
  useApp.setState({ page: st.page, settings: st.settings });
  applyingHash = false;
});
// Normalise the initial URL (drops invalid keys) without adding a history entry.
history.replaceState(null, '', `${location.pathname}${location.search}${toHash(initial)}`);

/** What the page learns from a (re)started compute worker: its backend, capabilities and worlds. */
function whenReady(ready: Promise<BackendInfo>): void {
  ready.then(
    async (backend) => {
      useApp.setState({ backend });
      useApp.setState({ caps: await api.capabilities() });
      useApp.setState({ worlds: await api.worlds() });
      // Started on WASM with a fallback WebGPU adapter still to be timed: time it once the page is usable (a
      // moment after it is interactive), off the start path; the verdict is remembered for the next start.
      if (backend.probing) {
        setTimeout(() => {
          api.backendProbe().then(
            (info) => useApp.setState({ backend: info }),
            (e) => useApp.setState((st) => ({ backend: st.backend && { ...st.backend, probing: false, reason: `${st.backend.reason}; the background WebGPU timing failed (${errorText(e).slice(0, 120)})` } })),
          );
        }, BACKGROUND_PROBE_DELAY_MS);
      }
    },
    (e) => useApp.setState({ backendError: errorText(e) }),
  );
}
whenReady(ready);
// A dead compute worker is shown as such (WorkerBanner); the restarted one reports its backend again.
onComputeWorker((dead) => {
  if (dead) useApp.setState({ backendError: dead.message });
  else { useApp.setState({ backendError: null, backend: null }); whenReady(readyNow()); }
});
