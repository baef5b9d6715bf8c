import { describe, expect, it } from 'vitest';
import { runSurface, type Surface } from '../../src/bench/fuzz/harness';
import { allSurfaces } from '../../src/cli/fuzz';

// A fixed-seed slice of `npm run fuzz`: every surface, 150 cases each. The full run is 10,000 per surface.
const CASES = 150;
const SEED = 20261201;

describe('fuzz harness', () => {
  it('sorts outcomes into codes, documented errors, crashes and hangs', async () => {
    const s: Surface<number> = {
      name: 'toy', about: 'toy',
      generate: (_r, i) => i,
      run(i) {
        if (i % 5 === 1) throw new RangeError('documented');
        if (i % 5 === 2) throw new TypeError('not documented');
        if (i % 5 === 3) return new Promise<string>((res) => setTimeout(() => res('late'), 200));
        return i % 2 ? 'odd' : 'even';
      },
      documented: (e) => (e instanceof RangeError ? 'RANGE' : null),
    };
    const r = await runSurface(s, { cases: 10, seed: 1, caseTimeoutMs: 50 });
    expect(r.cases).toBe(10);
    expect(r.crashes).toBe(2);
    expect(r.hangs).toBe(2);
    expect(r.codes).toEqual({ even: 2, RANGE: 2, odd: 2 });
    expect(r.examples.find((x) => x.case === 2)?.error).toMatch(/TypeError: not documented/);
    expect(r.examples.find((x) => x.case === 3)?.error).toMatch(/hang/);
  });

  it('is deterministic in the seed', async () => {
    const url = allSurfaces().find((s) => s.name === 'url-params')!;
    const a = await runSurface(url, { cases: 200, seed: 3 });
    const b = await runSurface(url, { cases: 200, seed: 3 });
    const c = await runSurface(url, { cases: 200, seed: 4 });
    expect(b.codes).toEqual(a.codes);
    expect(c.codes).not.toEqual(a.codes);
  });
});

describe(`every surface, ${CASES} fixed-seed cases`, () => {
  const names = allSurfaces().map((s) => s.name);
  it('covers the surfaces the issue names', () => {
    expect(names).toEqual(['act-output', 'rehearse-output', 'trace-file', 'reference-dump', 'model-folder', 'url-params', 'train-config',
      'cli-args', 'tools-bfcl', 'tools-tau2', 'tools-builtin']);
  });

  for (const s of allSurfaces()) {
    it(`${s.name}: no crash, no hang, and more than one outcome`, async () => {
      const r = await runSurface(s, { cases: CASES, seed: SEED, caseTimeoutMs: 5000 });
      expect(r.examples).toEqual([]);
      expect(r.crashes).toBe(0);
      expect(r.hangs).toBe(0);
      expect(r.cases).toBe(CASES);
      // the generator reaches both accepted and rejected inputs, not one error path over and over
      expect(Object.keys(r.codes).length).toBeGreaterThan(2);
    });
  }
});
