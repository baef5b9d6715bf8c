// Reading the project's Markdown the way a reader's browser (GitHub) does: its links, and the anchors its headings
// get. Shared by tests/docs-*.test.ts.

import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** Text outside fenced code blocks (links and headings inside code are not links or headings). */
export function withoutCode(md: string): string {
  return md.replace(/^```[\s\S]*?^```/gm, '');
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens; repeats get -1, -2, … */
export function anchors(md: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const m of withoutCode(md).matchAll(/^#{1,6} (.+)$/gm)) {
    const base = m[1]!.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n ? `${base}-${n}` : base);
  }
  return out;
}

/** Every link and image target of a Markdown file (external ones included). */
export function links(md: string): string[] {
  return [...withoutCode(md).matchAll(/!?\[[^\]]*\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
}

/** Problems with the relative links of one file: missing targets, missing anchors in a Markdown target. */
export function brokenLinks(file: string): string[] {
  const problems: string[] = [];
  const md = readFileSync(file, 'utf8');
  for (const target of links(md)) {
    if (/^[a-z]+:/i.test(target)) continue;
    const [path, anchor] = target.split('#') as [string, string | undefined];
    const abs = path ? resolve(dirname(file), decodeURIComponent(path)) : file;
    if (!existsSync(abs)) { problems.push(`${file}: ${target} (no such file)`); continue; }
    if (anchor !== undefined && !statSync(abs).isDirectory() && abs.endsWith('.md') && !anchors(readFileSync(abs, 'utf8')).has(anchor)) {
      problems.push(`${file}: ${target} (no heading with that anchor)`);
    }
  }
  return problems;
}

/** The lines of a Markdown section, from its heading to the next heading of the same or a higher level. */
export function section(md: string, heading: string): string[] {
  const lines = md.split('\n');
  const at = lines.findIndex((l) => l.replace(/^#+ /, '') === heading && /^#+ /.test(l));
  if (at < 0) return [];
  const level = /^#+/.exec(lines[at]!)![0].length;
  const end = lines.findIndex((l, i) => i > at && /^#+ /.test(l) && /^#+/.exec(l)![0].length <= level);
  return lines.slice(at + 1, end < 0 ? undefined : end);
}
