// The documentation as pages of the built site (src/app/build/docsPlugin.ts, markdown.ts): every link between the
// rendered pages lands on a page and an anchor that exist, and the renderer keeps what the docs use.

import { describe, expect, it } from 'vitest';
import { docFiles, renderDoc } from '../src/app/build/docsPlugin';
import { markdownToHtml, pageHref } from '../src/app/build/markdown';
import { posix } from 'node:path';

describe('docs as site pages', () => {
  const docs = docFiles('docs');
  const pages = new Map(docs.map((d) => [d.replace(/\.md$/, '.html'), renderDoc('docs', d)]));

  it('serves every doc in docs/ and the results README and index', () => {
    expect(docs).toEqual(expect.arrayContaining(['findings.md', 'protocol.md', 'app.md', 'cli.md', 'results/index.md', 'results/README.md']));
  });

  it('every link from one page to another lands on an existing page and anchor', () => {
    const problems: string[] = [];
    for (const [page, html] of pages) {
      for (const [, href] of html.matchAll(/<a href="([^"]+)"/g)) {
        if (/^[a-z]+:/i.test(href!) || !/\.html(#|$)/.test(href!)) continue;
        const [file, anchor] = href!.split('#') as [string, string | undefined];
        const target = posix.normalize(posix.join(posix.dirname(page), file));
        const targetHtml = pages.get(target);
        if (!targetHtml) problems.push(`${page}: ${href} (no page ${target})`);
        else if (anchor && !targetHtml.includes(` id="${anchor}"`)) problems.push(`${page}: ${href} (no anchor)`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('renders headings with GitHub anchors, tables, lists, code and links to .html pages', () => {
    const html = markdownToHtml('# A title\n\n## The paper\'s benchmarks (`x`)\n\n| a | b \\| c |\n|---|---|\n| **1** | `2\\|3` |\n\n- one\n  more\n- [two](findings.md#x)\n\n```\n<b>\n```\n<!-- gone -->');
    expect(html).toContain('<h2 id="the-papers-benchmarks-x">');
    expect(html).toContain('<th>b | c</th>');
    expect(html).toContain('<td><strong>1</strong></td><td><code>2|3</code></td>');
    expect(html).toContain('<li><p>one\nmore</p></li>');
    expect(html).toContain('<a href="findings.html#x">two</a>');
    expect(html).toContain('<pre><code>&lt;b&gt;</code></pre>');
    expect(html).not.toContain('gone');
    expect(pageHref('https://example.org/a.md')).toBe('https://example.org/a.md');
  });
});
