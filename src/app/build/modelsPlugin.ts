// Vite plugin: `models/` at the repo root is the source of truth for shipped model folders; this serves it
// at <base>/models/ in `vite` dev (middleware, always fresh) and copies it into <outDir>/models/ on
// `vite build` (so `vite preview` and any static host serve the same URLs). Both write an index,
// <base>/models/index.json, listing every folder that contains a config.json, with file sizes and the
// parsed config. No symlinks: a production build must be self-contained.
//
// ENVACE_EXTRA_MODELS (a path list, ':'-separated) adds folders of model folders, served and copied the same
// way but never shipped in the repo: e2e fixtures (see playwright.config.ts) and local experiments. A
// model name present in several roots is taken from the first, and models/ always comes first.
//
// Runs in Node only (imported by vite.config.ts).

import fs from 'node:fs';
import path from 'node:path';
import type { Plugin, ResolvedConfig } from 'vite';

export interface ModelsPluginOptions {
  /** Folder with the model folders, relative to the Vite root. */
  dir?: string;
  /** Further folders of model folders (default: from ENVACE_EXTRA_MODELS). */
  extraDirs?: string[];
  /** URL segment under base. */
  route?: string;
}

interface Entry { name: string; url: string; totalBytes: number; files: { path: string; bytes: number }[]; config: unknown }

function walk(dir: string, rel = ''): { path: string; bytes: number }[] {
  if (!fs.existsSync(dir)) return [];
  const out: { path: string; bytes: number }[] = [];
  for (const d of fs.readdirSync(dir, { withFileTypes: true })) {
    if (d.name.startsWith('.')) continue;
    const abs = path.join(dir, d.name);
    const r = rel ? `${rel}/${d.name}` : d.name;
    if (d.isDirectory()) out.push(...walk(abs, r));
    else if (d.isFile()) out.push({ path: r, bytes: fs.statSync(abs).size });
  }
  return out;
}

/** Index of several roots; a name found in an earlier root hides later ones. */
export function buildIndex(roots: string[], baseUrl: string): { models: Entry[]; rootOf: Map<string, string> } {
  const seen = new Map<string, Entry>();
  const rootOf = new Map<string, string>();
  for (const r of roots) {
    for (const m of indexRoot(r, baseUrl)) {
      if (seen.has(m.name)) continue;
      seen.set(m.name, m);
      rootOf.set(m.name, r);
    }
  }
  return { models: [...seen.values()].sort((a, b) => a.name.localeCompare(b.name)), rootOf };
}

function indexRoot(modelsDir: string, baseUrl: string): Entry[] {
  const files = walk(modelsDir);
  // A model folder is any folder holding a config.json; nested model folders are separate models.
  const roots = files.filter((f) => f.path === 'config.json' || f.path.endsWith('/config.json'))
    .map((f) => f.path.slice(0, -'config.json'.length).replace(/\/$/, ''))
    .sort((a, b) => b.length - a.length);
  const models: Entry[] = [];
  for (const root of roots) {
    const prefix = root ? `${root}/` : '';
    const mine = files.filter((f) => f.path.startsWith(prefix)
      // exclude files that belong to a deeper model folder
      && !roots.some((o) => o !== root && o.startsWith(prefix) && f.path.startsWith(`${o}/`)))
      .map((f) => ({ path: f.path.slice(prefix.length), bytes: f.bytes }));
    let config: unknown = null;
    try { config = JSON.parse(fs.readFileSync(path.join(modelsDir, prefix, 'config.json'), 'utf8')); } catch { config = null; }
    models.push({
      name: root || '.',
      url: `${baseUrl}${prefix}`,
      totalBytes: mine.reduce((a, f) => a + f.bytes, 0),
      files: mine.sort((a, b) => a.path.localeCompare(b.path)),
      config,
    });
  }
  return models;
}

/** The file a URL-relative path names: the first root that has it, never outside a root. */
function resolveIn(roots: string[], rel: string): string | null {
  for (const r of roots) {
    const abs = path.resolve(r, rel);
    if (abs.startsWith(r + path.sep) && fs.existsSync(abs) && fs.statSync(abs).isFile()) return abs;
  }
  return null;
}

const TYPES: Record<string, string> = { '.json': 'application/json', '.onnx': 'application/octet-stream', '.bin': 'application/octet-stream', '.txt': 'text/plain', '.jinja': 'text/plain' };

export function modelsPlugin(opts: ModelsPluginOptions = {}): Plugin {
  const route = (opts.route ?? 'models').replace(/^\/|\/$/g, '');
  let cfg: ResolvedConfig;
  let roots: string[] = [];
  const baseUrl = () => `${cfg.base.replace(/\/?$/, '/')}${route}/`;

  return {
    name: 'envace-models',
    configResolved(c) {
      cfg = c;
      const extra = opts.extraDirs ?? (process.env.ENVACE_EXTRA_MODELS ?? '').split(path.delimiter).filter(Boolean);
      roots = [opts.dir ?? 'models', ...extra].map((d) => path.resolve(c.root, d));
    },
    configureServer(server) {
      server.middlewares.use((req, res, next) => {
        const url = decodeURIComponent((req.url ?? '').split('?')[0]!);
        const base = baseUrl();
        if (!url.startsWith(base)) return next();
        const rel = url.slice(base.length);
        if (rel === 'index.json') {
          res.setHeader('Content-Type', 'application/json');
          res.setHeader('Cache-Control', 'no-store');
          res.end(JSON.stringify({ models: buildIndex(roots, base).models }));
          return;
        }
        // Refuses anything that escapes the roots (../ tricks) or is not a plain file.
        const abs = resolveIn(roots, rel);
        if (!abs) {
          res.statusCode = 404;
          res.end('not found');
          return;
        }
        res.setHeader('Content-Type', TYPES[path.extname(abs)] ?? 'application/octet-stream');
        res.setHeader('Content-Length', String(fs.statSync(abs).size));
        fs.createReadStream(abs).pipe(res);
      });
    },
    writeBundle() {
      // Copy after Vite has emitted everything, so emptyOutDir cannot remove it.
      const out = path.resolve(cfg.root, cfg.build.outDir, route);
      fs.rmSync(out, { recursive: true, force: true });
      fs.mkdirSync(out, { recursive: true });
      const index = buildIndex(roots, baseUrl());
      // Copy exactly the indexed models, each from the root it was indexed in.
      for (const m of index.models) {
        for (const f of m.files) {
          const rel = m.name === '.' ? f.path : `${m.name}/${f.path}`;
          const src = path.join(index.rootOf.get(m.name)!, rel);
          const dst = path.join(out, rel);
          fs.mkdirSync(path.dirname(dst), { recursive: true });
          // FICLONE: a reflink where the filesystem supports it (instant for large .onnx files), else a copy.
          fs.copyFileSync(src, dst, fs.constants.COPYFILE_FICLONE);
        }
      }
      fs.writeFileSync(path.join(out, 'index.json'), JSON.stringify({ models: index.models }));
    },
  };
}
