// The project's Markdown (docs/*.md) as HTML pages the deployed site serves, so the app's links to its
// documentation open for a visitor (issue 40). Only what these docs use: headings with GitHub's anchors, paragraphs,
// lists, tables, fenced code, block quotes, inline code, links, images, bold and italic. Links to another .md file
// become links to its .html page. Runs at build time in Node (docsPlugin.ts), never in the page.

const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** GitHub's anchor for a heading text: lower case, punctuation dropped, spaces to hyphens. */
export function slug(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
}

/** `x.md#a` → `x.html#a`; other targets unchanged. */
export function pageHref(target: string): string {
  return /^[a-z]+:/i.test(target) ? target : target.replace(/\.md(?=$|#)/, '.html');
}

function inline(text: string): string {
  // Code spans first, kept out of the other rules by placeholders.
  const codes: string[] = [];
  let s = text.replace(/`([^`]+)`/g, (_, c: string) => `\u0000${codes.push(`<code>${escape(c)}</code>`) - 1}\u0000`);
  s = escape(s).replace(/\\([|*_\\[\]])/g, '$1');
  s = s.replace(/!\[([^\]]*)\]\(([^)\s]+)\)/g, (_, alt: string, src: string) => `<img src="${src}" alt="${alt}">`);
  s = s.replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, (_, label: string, href: string) => `<a href="${pageHref(href)}">${label}</a>`);
  s = s.replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>').replace(/(^|[\s(])\*([^*\s][^*]*)\*/g, '$1<em>$2</em>');
  return s.replace(/\u0000(\d+)\u0000/g, (_, i: string) => codes[Number(i)]!);
}

const cells = (row: string) => row.trim().replace(/^\|/, '').replace(/\|$/, '').split(/(?<!\\)\|/).map((c) => c.trim().replace(/\\\|/g, '|'));

function table(rows: string[]): string {
  const [head, , ...body] = rows;
  return `<table><thead><tr>${cells(head!).map((c) => `<th>${inline(c)}</th>`).join('')}</tr></thead><tbody>${
    body.map((r) => `<tr>${cells(r).map((c) => `<td>${inline(c)}</td>`).join('')}</tr>`).join('')}</tbody></table>`;
}

/** The body HTML of one Markdown document. */
export function markdownToHtml(md: string): string {
  const lines = md.replace(/<!--[\s\S]*?-->/g, '').split('\n');
  const out: string[] = [];
  const seen = new Map<string, number>();
  let i = 0;
  const isBlockStart = (l: string) => /^(#{1,6} |```|\||> |- |\d+\. )/.test(l);
  while (i < lines.length) {
    const line = lines[i]!;
    if (!line.trim()) { i++; continue; }
    const h = /^(#{1,6}) (.+)$/.exec(line);
    if (h) {
      const base = slug(h[2]!);
      const n = seen.get(base) ?? 0;
      seen.set(base, n + 1);
      out.push(`<h${h[1]!.length} id="${n ? `${base}-${n}` : base}">${inline(h[2]!)}</h${h[1]!.length}>`);
      i++;
    } else if (line.startsWith('```')) {
      const end = lines.findIndex((l, k) => k > i && l.startsWith('```'));
      const stop = end < 0 ? lines.length : end;
      out.push(`<pre><code>${escape(lines.slice(i + 1, stop).join('\n'))}</code></pre>`);
      i = stop + 1;
    } else if (line.trimStart().startsWith('|')) {
      const start = i;
      while (i < lines.length && lines[i]!.trimStart().startsWith('|')) i++;
      out.push(table(lines.slice(start, i)));
    } else if (line.startsWith('> ')) {
      const start = i;
      while (i < lines.length && lines[i]!.startsWith('>')) i++;
      out.push(`<blockquote>${markdownToHtml(lines.slice(start, i).map((l) => l.replace(/^> ?/, '')).join('\n'))}</blockquote>`);
    } else if (/^(- |\d+\. )/.test(line)) {
      const ordered = !line.startsWith('- ');
      const items: string[] = [];
      while (i < lines.length && /^(- |\d+\. )/.test(lines[i]!)) {
        const item = [lines[i]!.replace(/^(- |\d+\. )/, '')];
        i++;
        while (i < lines.length && /^ {2,}\S/.test(lines[i]!)) item.push(lines[i++]!.replace(/^ {2,3}/, ''));
        items.push(`<li>${markdownToHtml(item.join('\n'))}</li>`);
      }
      out.push(ordered ? `<ol>${items.join('')}</ol>` : `<ul>${items.join('')}</ul>`);
    } else {
      const start = i;
      while (i < lines.length && lines[i]!.trim() && !(i > start && isBlockStart(lines[i]!))) i++;
      out.push(`<p>${inline(lines.slice(start, i).join('\n'))}</p>`);
    }
  }
  return out.join('\n');
}

/** A whole page: the document, its title, a link back to the app, and plain styles (no script: the site's CSP). */
export function docPage(md: string, appHref: string): string {
  const title = /^# (.+)$/m.exec(md)?.[1] ?? 'EnvACE Playground';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(title)} · EnvACE Playground</title>
<style>
body { font: 15px/1.55 system-ui, sans-serif; max-width: 980px; margin: 0 auto; padding: 16px; color: #1d2430; }
nav { margin-bottom: 12px; font-size: 14px; } a { color: #1f5fbf; }
code { font: 13px ui-monospace, monospace; background: #f2f4f7; padding: 0 3px; border-radius: 3px; }
pre { background: #f2f4f7; padding: 10px; overflow-x: auto; } pre code { padding: 0; background: none; }
table { border-collapse: collapse; display: block; overflow-x: auto; font-size: 13px; margin: 8px 0; }
th, td { border: 1px solid #d0d5dd; padding: 3px 6px; vertical-align: top; text-align: left; }
img { max-width: 100%; } blockquote { border-left: 3px solid #d0d5dd; margin: 0; padding-left: 12px; color: #475467; }
</style></head>
<body><nav><a href="${appHref}">← back to the playground</a></nav>
<main>
${markdownToHtml(md)}
</main></body></html>
`;
}
