// The one "copy link" of the app (top bar): a page that shows computed results registers how to reproduce them
// (the Rollout page: its URL with autorun=1 when a run or a step is on screen), every other page shares its URL,
// which already holds every setting.

type Provider = () => string;
let provider: Provider | null = null;

/** Register (or with null, drop) the current page's link builder; returns an unregister function. */
export function setShareProvider(p: Provider | null): () => void {
  provider = p;
  return () => { if (provider === p) provider = null; };
}

/** `href` with autorun=1 in its hash: the page it opens recomputes what it names (Rollout, Benchmarks) or offers to (Train). */
export function withAutorun(href: string): string {
  const u = new URL(href);
  const h = u.hash.replace(/^#/, '');
  const q = h.indexOf('?');
  const params = new URLSearchParams(q < 0 ? '' : h.slice(q + 1));
  params.set('autorun', '1');
  u.hash = `${q < 0 ? h : h.slice(0, q)}?${params.toString()}`;
  return u.href;
}

/** The link that reproduces what is on screen now. */
export function shareUrl(): string {
  return provider ? provider() : location.href;
}
