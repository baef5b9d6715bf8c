// The README a newcomer reads in ten minutes (issue 40): short, the two commands exact, every figure of "What we
// found" linked to its section in docs/findings.md and its JSON, and no link in the docs that leads nowhere.

import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { anchors, brokenLinks, links, section } from './docs-markdown';

const README = readFileSync('README.md', 'utf8');
const DOCS = ['README.md', ...readdirSync('docs').filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`),
  'docs/results/README.md', 'docs/results/index.md'];

describe('README', () => {
  it('is at most 250 lines and opens with what the playground is', () => {
    expect(README.trimEnd().split('\n').length).toBeLessThanOrEqual(250);
    expect(README.startsWith('# EnvACE Playground\n\nA browser research lab')).toBe(true);
  });

  it('keeps the two commands exactly', () => {
    expect(README).toContain('ONNXRUNTIME_NODE_INSTALL=skip npm ci && npm start');
    expect(README).toMatch(/^npm test$/m);
  });

  it('"What we found": at most 12 findings, each linking its section in docs/findings.md and its JSON', () => {
    const bullets = section(README, 'What we found').filter((l) => l.startsWith('- '));
    expect(bullets.length).toBeGreaterThan(0);
    expect(bullets.length).toBeLessThanOrEqual(12);
    const findingAnchors = anchors(readFileSync('docs/findings.md', 'utf8'));
    for (const b of bullets) {
      const targets = links(b);
      const doc = targets.find((t) => t.startsWith('docs/findings.md#'));
      expect(doc, b).toBeDefined();
      expect(findingAnchors.has(doc!.split('#')[1]!), doc).toBe(true);
      expect(targets.some((t) => t.startsWith('docs/results/')), b).toBe(true);
    }
    expect(README).toContain('<!-- NEW FINDINGS:');
  });

  it('links every doc in docs/', () => {
    for (const f of readdirSync('docs').filter((x) => x.endsWith('.md'))) expect(README, f).toContain(`](docs/${f})`);
  });
});

describe('docs', () => {
  it('every relative link and anchor in README.md and docs/ resolves', () => {
    expect(DOCS.flatMap((f) => brokenLinks(f))).toEqual([]);
  });

  it('findings.md: a marked place for new results first, superseded runs last, each saying what replaced it', () => {
    const md = readFileSync('docs/findings.md', 'utf8');
    const h2 = [...md.matchAll(/^## (.+)$/gm)].map((m) => m[1]);
    expect(h2[0]).toBe('New results');
    expect(h2.at(-1)).toBe('Earlier runs');
    expect(md).toContain('<!-- NEW RESULTS:');
    const earlier = section(md, 'Earlier runs').join('\n').split(/^### /m).slice(1);
    expect(earlier.length).toBeGreaterThan(0);
    for (const run of earlier) expect(run, run.split('\n')[0]).toMatch(/^\*Replaced by\* /m);
  });
});
