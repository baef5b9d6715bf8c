import { lazy, Suspense, useEffect } from 'react';
import { useApp } from './store';
import { startWorker } from './worker';
import { PAGES, type Page } from './urlState';
import { StatusBar } from './components/StatusBar';
import { PageErrorBoundary } from './components/ErrorBoundary';
import { RolloutPage } from './pages/Rollout';
// The other pages (and recharts, which they use) load on demand: the Rollout page's first paint waits
// only for its own code.
const TrainPage = lazy(() => import('./pages/Train').then((m) => ({ default: m.TrainPage })));
const BenchmarksPage = lazy(() => import('./pages/Benchmarks').then((m) => ({ default: m.BenchmarksPage })));
const ModelsPage = lazy(() => import('./pages/Models').then((m) => ({ default: m.ModelsPage })));

const TITLES: Record<Page, string> = { rollout: 'Rollout', train: 'Train', benchmarks: 'Benchmarks', models: 'Models' };

export function App() {
  const page = useApp((s) => s.page);
  const setPage = useApp((s) => s.setPage);
  // The frame after the first commit is on screen: now the compute worker may take the CPU.
  useEffect(() => { requestAnimationFrame(() => setTimeout(startWorker, 0)); }, []);
  return (
    <div className="app">
      <nav className="topbar">
        <span className="brand">EnvACE <span className="muted">Playground</span></span>
        <div className="tabs" role="tablist">
          {PAGES.map((p) => (
            <button key={p} role="tab" aria-selected={p === page} className={p === page ? 'on' : ''} onClick={() => setPage(p)}>{TITLES[p]}</button>
          ))}
        </div>
        <span className="spacer" />
        <button className="link" title="copy a link that reproduces this page and its settings"
          onClick={() => void navigator.clipboard?.writeText(location.href)}>copy link</button>
      </nav>
      <UrlNotice />
      <main className="main">
        {/* One boundary per page, keyed by it: a page that fails to render shows why; the rest keeps working. */}
        <PageErrorBoundary key={page} page={page} title={TITLES[page]}>
          {page === 'rollout' && <RolloutPage />}
          <Suspense fallback={<div className="empty">loading…</div>}>
            {page === 'train' && <TrainPage />}
            {page === 'benchmarks' && <BenchmarksPage />}
            {page === 'models' && <ModelsPage />}
          </Suspense>
        </PageErrorBoundary>
      </main>
      <StatusBar />
    </div>
  );
}

/** What the URL asked for that was not applied: a shared link never changes silently. */
function UrlNotice() {
  const ignored = useApp((s) => s.ignored);
  if (ignored.length === 0) return null;
  return (
    <div className="url-notice" role="status" data-testid="url-notice">
      <span>Ignored from the URL (defaults kept):</span>
      <ul>{ignored.map((x, i) => <li key={i}><code>{x.key}={x.raw}</code>: {x.why}</li>)}</ul>
      <button onClick={() => useApp.setState({ ignored: [] })}>dismiss</button>
    </div>
  );
}
