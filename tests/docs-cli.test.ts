// docs/cli.md and the glossary of docs/app.md are generated (npm run docs:cli, scripts/docs-cli.ts) from the
// commands' own option schemas and src/app/glossary.ts; this fails when a committed copy is stale.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CATALOG, renderCliDocs, renderGlossary, withGlossary } from '../scripts/docs-cli';
import { EVAL_CLI } from '../src/cli/eval';
import { GLOSSARY } from '../src/app/glossary';

const STALE = 'stale: run `npm run docs:cli` and commit docs/cli.md and docs/app.md';

describe('npm run docs:cli', () => {
  it('docs/cli.md is what the schemas render now', async () => {
    const committed = readFileSync('docs/cli.md', 'utf8');
    expect(committed, STALE).toBe(`${await renderCliDocs()}\n`);
  });

  it('documents every npm script and every option of a schema', async () => {
    const scripts = Object.keys((JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }).scripts);
    expect(Object.keys(CATALOG).sort()).toEqual([...scripts].sort());
    const md = readFileSync('docs/cli.md', 'utf8');
    for (const s of scripts) expect(md, s).toContain(`\n## ${s}\n`);
    const evalSection = md.slice(md.indexOf('\n## eval\n'), md.indexOf('\n## compare\n'));
    for (const [k, o] of Object.entries(EVAL_CLI.options)) {
      expect(evalSection, k).toContain(`| \`--${k}\` |`);
      expect(evalSection, k).toContain(o.help.replace(/\|/g, '\\|'));
    }
  });

  it("docs/app.md's glossary is the page's hover texts, word for word", () => {
    const app = readFileSync('docs/app.md', 'utf8');
    expect(app, STALE).toBe(withGlossary(app));
    for (const text of Object.values(GLOSSARY)) expect(renderGlossary()).toContain(text.replace(/\|/g, '\\|'));
  });
});
