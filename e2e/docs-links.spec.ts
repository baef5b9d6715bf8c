// The app's links to its documentation open on the built site (issue 40): every same-origin link under docs/ on
// each page answers 200 with an HTML page that holds the linked anchor, and every document docs/ has is served.

import { expect, test } from '@playwright/test';
import fs from 'node:fs';

const PAGES = ['/?backend=wasm#/rollout', '/?backend=wasm#/train', '/?backend=wasm#/benchmarks', '/?backend=wasm#/models'];

test('documentation links on every page resolve on the built site', async ({ page, baseURL }) => {
  const checked = new Set<string>();
  for (const url of PAGES) {
    await page.goto(url);
    await expect(page.getByTestId('boot-skeleton')).toHaveCount(0);
    if (url.endsWith('train')) await expect(page.getByTestId('train-why-default')).toBeVisible();
    const hrefs = await page.locator('a[href]').evaluateAll((as) => as.map((a) => (a as HTMLAnchorElement).href));
    for (const href of hrefs.filter((h) => h.startsWith(`${baseURL}/docs/`))) {
      if (checked.has(href)) continue;
      checked.add(href);
      const [path, anchor] = href.split('#') as [string, string | undefined];
      const res = await page.request.get(path);
      expect(res.status(), href).toBe(200);
      expect(res.headers()['content-type'], href).toContain('text/html');
      if (anchor) expect(await res.text(), href).toContain(` id="${anchor}"`);
    }
  }
  // The Train page's default run says why it is the default and links the measurements.
  expect([...checked].some((h) => h.includes('/docs/findings.html#the-positive-control'))).toBe(true);
});

test('every document in docs/ is a page of the site, with its images', async ({ page }) => {
  const docs = [...fs.readdirSync('docs').filter((f) => f.endsWith('.md')), 'results/README.md', 'results/index.md'];
  for (const doc of docs) {
    const res = await page.request.get(`/docs/${doc.replace(/\.md$/, '.html')}`);
    expect(res.status(), doc).toBe(200);
    const title = /^# (.+)$/m.exec(fs.readFileSync(`docs/${doc}`, 'utf8'))![1]!;
    expect(await res.text(), doc).toContain('<h1 id=');
    await page.goto(`/docs/${doc.replace(/\.md$/, '.html')}`);
    await expect(page.locator('h1').first(), doc).toContainText(title.replace(/`/g, ''));
  }
  await page.goto('/docs/app.html');
  const broken = await page.locator('img').evaluateAll((imgs) => imgs.filter((i) => !(i as HTMLImageElement).naturalWidth).map((i) => (i as HTMLImageElement).src));
  expect(broken).toEqual([]);
  await page.getByRole('link', { name: '← back to the playground' }).click();
  await expect(page.getByTestId('boot-skeleton')).toHaveCount(0);
  expect(new URL(page.url()).pathname).toBe('/');
});
