// The layering rule (README "Architecture"): a layer imports only from the layers below it. Checked here for the
// two places where it was broken before: no file under src/cli/ imports from src/app/ (what both need lives in
// src/shared/), and src/shared/ imports from neither src/app/ nor src/cli/. Every import form counts: static
// `import … from`, `export … from`, side-effect `import '…'`, dynamic `import('…')` and `require('…')`.
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

const ROOT = resolve(__dirname, '..');

/** Module specifiers imported by a TypeScript source, in order of appearance. */
function importSpecifiers(source: string): string[] {
  const found: { at: number; spec: string }[] = [];
  const patterns = [
    // import x from '…', import { a, b } from '…' (over several lines), import type …, export { x } from '…', export * from '…'
    /(?:^|[\n;])[ \t]*(?:import|export)\s[^'"`;]*?\sfrom\s*(['"])([^'"\n]+)\1/g,
    // import '…' (side effects only)
    /(?:^|[\n;])[ \t]*import\s*(['"])([^'"\n]+)\1/g,
    // import('…'), await import("…"), require('…')
    /\b(?:import|require)\s*\(\s*(['"`])([^'"`\n]+)\1\s*\)/g,
  ];
  for (const re of patterns) for (const m of source.matchAll(re)) found.push({ at: m.index!, spec: m[2]! });
  return found.sort((a, b) => a.at - b.at).map((f) => f.spec);
}

/** Where a specifier points inside the repository ('src/app/urlState' etc.), or null for a package. */
function resolveSpecifier(fromFile: string, spec: string): string | null {
  const abs = spec.startsWith('.') ? resolve(dirname(fromFile), spec) : spec.startsWith('/') ? resolve(ROOT, `.${spec}`) : spec.startsWith('src/') ? resolve(ROOT, spec) : null;
  return abs === null ? null : relative(ROOT, abs).split(sep).join('/');
}

const inside = (path: string, folder: string) => path === folder || path.startsWith(`${folder}/`);

function sources(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.(ts|tsx|mts|cts)$/.test(e.name))
    .map((e) => join(e.parentPath, e.name));
}

/** `file: specifier` for every import under `folder` that resolves into one of `forbidden`. */
function violations(folder: string, forbidden: string[]): string[] {
  const out: string[] = [];
  for (const file of sources(folder)) {
    for (const spec of importSpecifiers(readFileSync(file, 'utf8'))) {
      const target = resolveSpecifier(file, spec);
      if (target !== null && forbidden.some((f) => inside(target, f))) out.push(`${relative(ROOT, file)}: ${spec}`);
    }
  }
  return out;
}

describe('layering', () => {
  it('the import scanner sees every import form and resolves paths', () => {
    const src = [
      "import { a } from '../app/one';",
      'import type { B } from "../app/two";',
      'import {\n  c,\n  d,\n} from \'../app/three\';',
      "export * from '../app/four';",
      "export { e } from '../app/five';",
      "import '../app/six.css';",
      "const m = await import('../app/seven');",
      'const n = require("../app/eight");',
      "// a comment that says import nothing from '../app/nine'",
      "const s = 'from here';",
      "import fs from 'node:fs';",
    ].join('\n');
    expect(importSpecifiers(src)).toEqual(['../app/one', '../app/two', '../app/three', '../app/four', '../app/five', '../app/six.css', '../app/seven', '../app/eight', 'node:fs']);
    const cli = join(ROOT, 'src/cli/x.ts');
    expect(resolveSpecifier(cli, '../app/urlState')).toBe('src/app/urlState');
    expect(resolveSpecifier(join(ROOT, 'src/cli/sub/y.ts'), '../../app')).toBe('src/app');
    expect(resolveSpecifier(cli, '../shared/urlState')).toBe('src/shared/urlState');
    expect(resolveSpecifier(cli, 'react')).toBeNull();
    expect(inside('src/app', 'src/app') && inside('src/app/x', 'src/app') && !inside('src/apps/x', 'src/app')).toBe(true);
  });

  it('the scan reaches every CLI and its imports', () => {
    const files = sources('src/cli').map((f) => relative(ROOT, f).split(sep).join('/'));
    expect(files).toContain('src/cli/eval.ts');
    expect(files).toContain('src/cli/demo-trace.ts');
    expect(files.length).toBeGreaterThan(15);
    const demo = importSpecifiers(readFileSync(join(ROOT, 'src/cli/demo-trace.ts'), 'utf8'));
    expect(demo).toContain('../shared/demoRequest');
    expect(demo).toContain('./args');
  });

  it('no file under src/cli/ imports from src/app/', () => {
    expect(violations('src/cli', ['src/app'])).toEqual([]);
  });

  it('src/shared/ imports nothing from src/app/ or src/cli/', () => {
    expect(sources('src/shared').length).toBeGreaterThan(0);
    expect(violations('src/shared', ['src/app', 'src/cli'])).toEqual([]);
  });
});
