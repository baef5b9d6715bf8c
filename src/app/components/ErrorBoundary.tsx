// One per page (App.tsx): a render error in a page shows what failed in that page's place, while the top bar,
// the status bar and the other pages keep working (without it, any render error blanks the whole app).
// "Try again" re-renders the page; switching pages remounts the boundary (App keys it by page).

import { Component, useSyncExternalStore, type ErrorInfo, type ReactNode } from 'react';

interface Props { /** Page id (the e2e hook's name for it). */ page: string; /** Shown in the message. */ title: string; children: ReactNode }
interface State { error: Error | null; componentStack: string | null }

export class PageErrorBoundary extends Component<Props, State> {
  override state: State = { error: null, componentStack: null };

  static getDerivedStateFromError(error: unknown): Partial<State> {
    return { error: error instanceof Error ? error : new Error(String(error)) };
  }

  override componentDidCatch(error: unknown, info: ErrorInfo): void {
    this.setState({ componentStack: info.componentStack ?? null });
    console.error(`[envace] the ${this.props.title} page failed to render:`, error);
  }

  override render(): ReactNode {
    const { error, componentStack } = this.state;
    if (!error) return <>{this.props.children}{E2E && <E2EBreak page={this.props.page} />}</>;
    return <PageError title={this.props.title} error={error} componentStack={componentStack} onRetry={() => this.setState({ error: null, componentStack: null })} />;
  }
}

/** What a failed page shows in its place. */
export function PageError(props: { title: string; error: Error; componentStack: string | null; onRetry?: () => void }) {
  const where = props.componentStack?.trim().split('\n').slice(0, 6).map((l) => l.trim()).join('\n');
  return (
    <div className="panel" role="alert" data-testid="page-error">
      <header className="panel-head"><span>The {props.title} page failed</span></header>
      <div className="panel-body">
        <p>This page hit an error while drawing and was stopped; the other pages still work.</p>
        <pre className="error-box" data-testid="page-error-message">{props.error.name}: {props.error.message}</pre>
        {where && <details><summary>where</summary><pre className="muted">{where}</pre></details>}
        {props.onRetry && <button onClick={props.onRetry}>Try again</button>}
      </div>
    </div>
  );
}

// ---- e2e hook: make a page's render throw (only in the Playwright build; production has none) ---------------

const E2E = typeof __ENVACE_E2E__ !== 'undefined' && __ENVACE_E2E__ === true;
const broken = new Set<string>();
const subscribers = new Set<() => void>();
let version = 0;

function E2EBreak(props: { page: string }): null {
  useSyncExternalStore((cb) => { subscribers.add(cb); return () => subscribers.delete(cb); }, () => version);
  if (broken.has(props.page)) throw new Error(`e2e: the ${props.page} page was told to fail`);
  return null;
}

if (E2E && typeof window !== 'undefined') {
  (window as unknown as { __envaceBreakPage?: (page: string, on?: boolean) => void }).__envaceBreakPage = (page, on = true) => {
    if (on) broken.add(page); else broken.delete(page);
    version++;
    for (const cb of subscribers) cb();
  };
}
