import { describe, expect, it } from 'vitest';
import { agreementReport, errorClass, onRealPath, type TaskAgreement } from '../../src/bench/agreement';

const ok = (text: string) => ({ text, error: false });
const bad = (text: string) => ({ text, error: true });

describe('onRealPath: which Rehearse rows see the state the real environment is in', () => {
  it('stays on the path while each imagined result equals the real one or both are errors', () => {
    const rows = [
      { imagined: '{"cwd": "src"}', real: ok('{"cwd": "src"}'), fidelity: { exact: true } },
      { imagined: '{"error": "no such folder"}', real: bad('{"error": "cd: no such file"}'), fidelity: { exact: false } },
      { imagined: '{"result": "moved"}', real: bad('{"error": "missing"}'), fidelity: { exact: false } },
      { imagined: '{"cwd": "docs"}', real: bad('{"error": "missing"}'), fidelity: { exact: false } },
    ];
    // The third row is the first divergence (still on the path: everything before it agreed); the fourth follows it.
    expect(onRealPath(rows)).toEqual([true, true, true, false]);
  });

  it('leaves the path after a wrong success and after a row without a real result', () => {
    expect(onRealPath([
      { imagined: '{"a": 1}', real: ok('{"a": 2}'), fidelity: { exact: false } },
      { imagined: '{"a": 1}', real: ok('{"a": 1}'), fidelity: { exact: true } },
    ])).toEqual([true, false]);
    expect(onRealPath([{ imagined: '{"a": 1}' }, { imagined: '{"a": 1}', real: ok('{"a": 1}'), fidelity: { exact: true } }])).toEqual([false, false]);
    expect(onRealPath([])).toEqual([]);
  });
});

describe('agreementReport: the on-path error figures', () => {
  const task = (o: Partial<TaskAgreement>): TaskAgreement => ({
    id: 't', real: 0, rehearsal: 0, rehearsalOnReal: 0, signAgree: 0, signRows: 0,
    errBoth: 0, errEither: 0, realErr: 0, realErrCaught: 0, imaginedErr: 0, imaginedErrReal: 0,
    rehearseRows: 0, rehearseTruncated: 0, rehearseParseErrors: 0, actTruncatedReal: 0, actTruncatedRehearsal: 0,
    episodes: 1, parseErrorEpisodes: 0, recallProbes: 0, recallExact: 0, ...o,
  });
  it('pools counts over tasks, separately from the all-calls figures', () => {
    const r = agreementReport([
      task({ id: 'a', errBoth: 1, errEither: 10, realErr: 10, realErrCaught: 1, pathErrBoth: 1, pathErrEither: 2, pathRealErr: 2, pathRealErrCaught: 1, pathRows: 5 }),
      task({ id: 'b', errBoth: 0, errEither: 6, realErr: 6, pathErrBoth: 1, pathErrEither: 2, pathRealErr: 1, pathRealErrCaught: 1, pathRows: 4 }),
    ], { tasks: 2, k: 1, temperature: 1, seed: 0, probes: 0, resamples: 200 });
    expect(r.error_agreement.mean).toBeCloseTo(1 / 16, 12);
    expect(r.error_agreement_on_path.mean).toBeCloseTo(2 / 4, 12);
    expect(r.error_recall_on_path.mean).toBeCloseTo(2 / 3, 12);
    expect(r.error_calls_on_path).toEqual({ real: 3, either: 4, rows: 9 });
  });
  it('a report built from older per-task numbers (no path fields) has no on-path estimate', () => {
    const r = agreementReport([task({ errEither: 2, errBoth: 1 })], { tasks: 1, k: 1, temperature: 1, seed: 0, probes: 0, resamples: 50 });
    expect(Number.isNaN(r.error_agreement_on_path.mean)).toBe(true);
    expect(r.error_calls_on_path).toEqual({ real: 0, either: 0, rows: 0 });
  });
});

describe('errorClass: what the Rehearse prompt could know about a rejected call', () => {
  const cd = (folder: string) => ({ name: 'cd', arguments: { folder } });
  it('repeat beats reference beats unseen; arguments must match exactly', () => {
    expect(errorClass(cd('src'), [cd('src')], [cd('src')])).toBe('repeat');
    expect(errorClass(cd('reports'), [cd('src')], [cd('docs'), cd('reports')])).toBe('reference');
    expect(errorClass(cd('notes'), [], [cd('docs')])).toBe('unseen');
    expect(errorClass(cd('src'), [{ name: 'ls', arguments: { folder: 'src' } }], [])).toBe('unseen');
  });
  it('the report sums each class over tasks', () => {
    const base = { id: 't', real: 0, rehearsal: 0, rehearsalOnReal: 0, signAgree: 0, signRows: 0, errBoth: 0, errEither: 0, realErr: 0, realErrCaught: 0, imaginedErr: 0, imaginedErrReal: 0, rehearseRows: 0, rehearseTruncated: 0, rehearseParseErrors: 0, actTruncatedReal: 0, actTruncatedRehearsal: 0, episodes: 1, parseErrorEpisodes: 0, recallProbes: 0, recallExact: 0 };
    const r = agreementReport([
      { ...base, pathErrClasses: { repeat: [2, 1], unseen: [3, 0] } },
      { ...base, id: 'u', pathErrClasses: { repeat: [1, 1], reference: [4, 0] } },
    ], { tasks: 2, k: 1, temperature: 1, seed: 0, probes: 0, resamples: 50 });
    expect(r.error_classes_on_path).toEqual({ repeat: { real: 3, caught: 2 }, reference: { real: 4, caught: 0 }, unseen: { real: 3, caught: 0 } });
  });
});
