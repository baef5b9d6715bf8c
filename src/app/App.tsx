import { lazy, Suspense, useEffect, useRef, useState } from 'react';
import { shareUrl } from './share';
import { useApp } from './store';
import { startWorker } from './worker';
import { PAGES, type Page } from './urlState';
import { StatusBar } from './components/StatusBar';
import { echo } from './components/ui';
import { PageErrorBoundary } from './components/ErrorBoundary';
import { WorkerBanner } from './components/WorkerBanner';
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
  // Sticky bars under the top bar (the Train run bar) sit at its height, which wraps on a phone.
  const topbar = useRef<HTMLElement>(null);
  useEffect(() => {
    const el = topbar.current;
    if (!el || typeof ResizeObserver === 'undefined') return;
    const ro = new ResizeObserver(() => document.documentElement.style.setProperty('--topbar-h', `${el.offsetHeight}px`));
    ro.observe(el);
    return () => ro.disconnect();
  }, []);
  return (
    <div className="app">
      <nav className="topbar" ref={topbar}>
        <span className="brand">EnvACE <span className="muted">Playground</span></span>
        <div className="tabs" role="tablist">
          {PAGES.map((p) => (
            <button key={p} role="tab" aria-selected={p === page} className={p === page ? 'on' : ''} onClick={() => setPage(p)}>{TITLES[p]}</button>
          ))}
        </div>
        <span className="spacer" />
        <CopyLink />
      </nav>
      <UrlNotice />
      <main className="main">
        <WorkerBanner />
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

/**
 * The one link control: copies a URL that reproduces what is on screen (every setting, and on the Rollout page
 * autorun=1 when a computed trace is shown, so the link recomputes it on open with progress). The copied URL is
 * also kept on the button (data-url) and shown for a moment, for browsers that refuse the clipboard.
 */
function CopyLink() {
  const [copied, setCopied] = useState<string | null>(null);
  const copy = () => {
    const url = shareUrl();
    setCopied(url);
    void navigator.clipboard?.writeText(url).catch(() => undefined);
    setTimeout(() => setCopied((c) => (c === url ? null : c)), 2500);
  };
  return (
    <button className="link copy-link" data-testid="copy-link" data-url={copied ?? ''} onClick={copy}
      title="copy a link that reproduces this page as shown: its settings, and what was computed (a Rollout trace or a Benchmarks evaluation, recomputed on open; a Train run's settings, with a button that starts it)">
      {copied ? 'link copied' : 'copy link'}
    </button>
  );
}

/** What the URL asked for that was not applied: a shared link never changes silently. */
function UrlNotice() {
  const ignored = useApp((s) => s.ignored);
  if (ignored.length === 0) return null;
  return (
    <div className="url-notice" role="status" data-testid="url-notice">
      <span>Ignored from the URL (defaults kept):</span>
      <ul>{ignored.map((x, i) => <li key={i}><code>{x.key}={echo(x.raw)}</code>: {x.why}</li>)}</ul>
      <button onClick={() => useApp.setState({ ignored: [] })}>dismiss</button>
    </div>
  );
}
