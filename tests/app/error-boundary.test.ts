// The per-page error boundary (src/app/components/ErrorBoundary.tsx): a render error becomes the page's
// error panel naming the error. (A browser check of the whole app keeping its other pages: e2e/worker-death.spec.ts.)
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { PageError, PageErrorBoundary } from '../../src/app/components/ErrorBoundary';

describe('page error boundary', () => {
  it('turns what a page threw into state, non-Error throws included', () => {
    expect(PageErrorBoundary.getDerivedStateFromError(new TypeError('x.map is not a function')).error?.message).toBe('x.map is not a function');
    expect(PageErrorBoundary.getDerivedStateFromError('plain string').error?.message).toBe('plain string');
  });

  it('renders the failure with the page, the error and where it happened; children when nothing failed', () => {
    const html = renderToStaticMarkup(createElement(PageError, { title: 'Benchmarks', error: new TypeError("Cannot read properties of undefined (reading 'mean')"), componentStack: '\n    at Curves\n    at BenchmarksPage', onRetry: () => {} }));
    expect(html).toContain('The Benchmarks page failed');
    expect(html).toContain('data-testid="page-error"');
    expect(html).toContain('TypeError: Cannot read properties of undefined (reading &#x27;mean&#x27;)');
    expect(html).toContain('at Curves');
    expect(html).toContain('Try again');
    const ok = renderToStaticMarkup(createElement(PageErrorBoundary, { page: 'models', title: 'Models', children: createElement('p', null, 'fine') }));
    expect(ok).toBe('<p>fine</p>');
  });
});
