// The isolated fuzz runner (`npm run fuzz`): each misbehaviour of tests/bench/fixtures/fuzz-hazards.ts must be
// counted against the case that caused it, and the run must go on past it.
import { describe, expect, it } from 'vitest';
import { runSurfaceIsolated } from '../../src/bench/fuzz/isolate';
import { FuzzViolation, runSurface } from '../../src/bench/fuzz/harness';
import { hazardSurfaces } from './fixtures/fuzz-hazards';

const registry = new URL('./fixtures/fuzz-hazards.ts', import.meta.url).href;
const run = (name: string, cases = 10, caseTimeoutMs = 300) =>
  runSurfaceIsolated(name, name, { registry, exportName: 'hazardSurfaces', cases, seed: 1, caseTimeoutMs });

describe('isolated fuzz runner', () => {
  it('a synchronous infinite loop is a hang named by its case; the run resumes after it, the last case included', async () => {
    const r = await run('spin');
    expect(r.cases).toBe(10);
    expect(r.hangs).toBe(2);
    expect(r.crashes).toBe(0);
    expect(r.codes).toEqual({ ok: 8 });
    const hangs = r.examples.filter((x) => x.kind === 'hang');
    expect(hangs.map((x) => x.case)).toEqual([3, 9]);
    // the input is the one the seed names for that case (the generator ran again in the fresh worker)
    expect(hangs.map((x) => x.input)).toEqual(['"30"', '"90"']);
    expect(hangs[0].error).toMatch(/no progress for \d+ ms \(limit 300 ms\)/);
  }, 60_000);

  it('a promise that never settles is a hang, and the worker running it is stopped', async () => {
    const r = await run('never', 6);
    expect(r.cases).toBe(6);
    expect(r.hangs).toBe(1);
    expect(r.examples).toMatchObject([{ case: 2, kind: 'hang', input: '"2"' }]);
    expect(r.codes).toEqual({ even: 2, odd: 3 });
  }, 60_000);

  it('an unhandled rejection is a crash', async () => {
    const r = await run('reject', 4);
    expect(r.unhandledRejections).toBe(1);
    expect(r.crashes).toBe(1);
    expect(r.examples[0].error).toMatch(/unhandled rejection during or after case 1: Error: nobody listens/);
  }, 60_000);

  it('a worker killed by an exception in a callback is a crash of that case, and the run goes on', async () => {
    const r = await run('die', 5);
    expect(r.cases).toBe(5);
    expect(r.crashes).toBe(1);
    expect(r.examples).toMatchObject([{ case: 2, kind: 'crash', input: '"2"' }]);
    expect(r.examples[0].error).toMatch(/thrown in a callback/);
    expect(r.codes).toEqual({ ok: 4 });
  }, 60_000);

  it('violations are counted apart from codes, with their own codes and examples', async () => {
    const r = await run('violate', 9);
    expect(r.violations).toBe(3);
    expect(r.violationCodes).toEqual({ 'accepted-bad:x': 3 });
    expect(r.codes).toEqual({ ok: 6 });
    expect(r.examples.map((x) => [x.case, x.kind])).toEqual([[0, 'violation'], [3, 'violation'], [6, 'violation']]);
  }, 60_000);

  it('in-process runSurface counts violations the same way', async () => {
    const s = hazardSurfaces().find((x) => x.name === 'violate')!;
    const r = await runSurface(s, { cases: 9, seed: 1 });
    expect(r.violations).toBe(3);
    expect(r.crashes).toBe(0);
    expect(new FuzzViolation('c').message).toBe('c');
  });
});
