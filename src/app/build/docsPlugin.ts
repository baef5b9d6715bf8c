// Vite plugin: the documentation in docs/ as pages of the site, so the app's links to it open for a visitor of the
// deployed page (issue 40). Every docs/*.md, docs/results/README.md and docs/results/index.md becomes
// <base>/docs/<same path>.html (markdown.ts), with the images they show; `vite` dev renders them on request,
// `vite build` writes them into the output. Runs in Node only (imported by vite.config.ts).

import fs from 'node:fs';
import path from 'node:path';
import type { Plugin } from 'vite';
import { docPage } from './markdown';

/** The documents the site serves, relative to docs/. */
export function docFiles(docsDir: string): string[] {
  const top = fs.existsSync(docsDir) ? fs.readdirSync(docsDir).filter((f) => f.endsWith('.md')) : [];
  return [...top, ...['results/README.md', 'results/index.md'].filter((f) => fs.existsSync(path.join(docsDir, f)))].sort();
}

/** Relative paths of the images a document shows or links (resolved against its folder, relative to docs/). */
function imagesOf(docsDir: string, rel: string): string[] {
  const md = fs.readFileSync(path.join(docsDir, rel), 'utf8');
  return [...md.matchAll(/\]\(([^)\s]+\.(?:png|jpe?g|svg))\)/g)].map((m) => m[1]!).filter((src) => !/^[a-z]+:/i.test(src))
    .map((src) => path.posix.join(path.posix.dirname(rel), src)).filter((p) => fs.existsSync(path.join(docsDir, p)));
}

/** The HTML page of one document, its link back to the app relative to its depth. */
export function renderDoc(docsDir: string, rel: string): string {
  const depth = rel.split('/').length; // docs/x.html → ../ ; docs/results/x.html → ../../
  return docPage(fs.readFileSync(path.join(docsDir, rel), 'utf8'), '../'.repeat(depth));
}

export function docsPlugin(opts: { dir?: string } = {}): Plugin {
  let docsDir = '';
  return {
    name: 'envace-docs',
    configResolved(config) { docsDir = path.resolve(config.root, opts.dir ?? 'docs'); },
    configureServer(server) {
      server.middlewares.use((req, res, next) => {
        const url = decodeURIComponent((req.url ?? '').split(/[?#]/)[0]!);
        const rel = url.replace(new RegExp(`^${server.config.base}docs/`), '');
        if (rel === url) return next();
        const md = rel.replace(/\.html$/, '.md');
        if (rel.endsWith('.html') && docFiles(docsDir).includes(md)) {
          res.setHeader('Content-Type', 'text/html; charset=utf-8');
          res.end(renderDoc(docsDir, md));
        } else if (/\.(png|jpe?g|svg)$/.test(rel) && docFiles(docsDir).some((d) => imagesOf(docsDir, d).includes(rel))) {
          res.setHeader('Content-Type', rel.endsWith('.svg') ? 'image/svg+xml' : rel.endsWith('.png') ? 'image/png' : 'image/jpeg');
          res.end(fs.readFileSync(path.join(docsDir, rel)));
        } else next();
      });
    },
    generateBundle() {
      const images = new Set<string>();
      for (const rel of docFiles(docsDir)) {
        this.emitFile({ type: 'asset', fileName: `docs/${rel.replace(/\.md$/, '.html')}`, source: renderDoc(docsDir, rel) });
        for (const img of imagesOf(docsDir, rel)) images.add(img);
      }
      for (const img of images) this.emitFile({ type: 'asset', fileName: `docs/${img}`, source: fs.readFileSync(path.join(docsDir, img)) });
    },
  };
}
