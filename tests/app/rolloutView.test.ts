// Pure parts of the Rollout page: field diff, trace-file sniffing, and the property Step relies on (a
// rollout cut at k generations is a prefix of the same rollout cut at k+1, and of the full one).
import { describe, expect, it } from 'vitest';
import { diffCounts, fieldDiff } from '../../src/app/components/rollout/fieldDiff';
import { looksLikeReferenceDump, parseTraceText } from '../../src/app/components/rollout/traceFiles';
import { compareResults } from '../../src/agent/fidelity';
import { rolloutGroups } from '../../src/agent/rollout';
import { byRole, expertAct, FakeGenerator, kvTask, noisy, oracleRehearse } from '../../src/agent/testing';
import { exportTraces } from '../../src/agent/traces';

describe('fieldDiff', () => {
  it('marks same, differing, missing and extra fields', () => {
    const lines = fieldDiff('{"a":1,"b":{"c":"x"},"e":true}', '{"a":1,"b":{"c":"y"},"d":[1]}');
    const by = Object.fromEntries(lines.map((l) => [l.path, l.status]));
    expect(by).toEqual({ '$.a': 'same', '$.b.c': 'differ', '$.d[0]': 'missing', '$.e': 'extra' });
    expect(diffCounts(lines)).toEqual({ same: 1, differ: 1, missing: 1, extra: 1 });
  });
  it('agrees with the fidelity metric on what matches', () => {
    const a = '{"ok":true,"items":[{"id":1},{"id":2}]}', b = '{"ok":true,"items":[{"id":1},{"id":3}]}';
    const same = diffCounts(fieldDiff(a, b)).same;
    const f = compareResults(a, { text: b, error: false });
    expect(same / fieldDiff(a, b).length).toBeCloseTo(f.precision);
  });
  it('treats non-JSON text as one opaque leaf, and keys containing =', () => {
    expect(fieldDiff('oops', '{"x":1}').map((l) => l.status).sort()).toEqual(['extra', 'missing']);
    expect(fieldDiff('{"a=b":1}', '{"a=b":1}')).toEqual([{ path: '$.a=b', imagined: '1', real: '1', status: 'same' }]);
  });
});

describe('trace files', () => {
  it('reports bad lines with their numbers and keeps the good ones', async () => {
    const task = kvTask();
    const [t] = await rolloutGroups([task], 1, { mode: 'rehearsal', policy: new FakeGenerator(byRole(expertAct([task]), oracleRehearse([task]))) });
    const text = `not json\n${exportTraces([t!])}{"v":1,"taskId":3}\n`;
    const r = parseTraceText('x.jsonl', text);
    expect(r.kind).toBe('traces');
    expect(r.trajectories).toHaveLength(1);
    expect(r.errors.map((e) => e.line)).toContain(1);
    expect(r.errors.some((e) => e.line === 3 && e.path === '$.taskId')).toBe(true);
  });
  it('recognises a reference-code dump', () => {
    const dump = '{"input":"system\\nhi","output":"<think>x</think>ok","score":0.5,"step":1}\n';
    expect(looksLikeReferenceDump(dump)).toBe(true);
    expect(looksLikeReferenceDump('{"v":1,"rows":[]}')).toBe(false);
    expect(parseTraceText('d.jsonl', dump).kind).toBe('reference-dump');
    expect(() => parseTraceText('e.jsonl', '\u0000\n{')).not.toThrow();
  });
});

describe('stepping = the rollout cut at k generations', () => {
  it('each cut is a prefix of the next and of the full rollout', async () => {
    const tasks = [kvTask('kv-a', 'color', 'blue')];
    const gen = () => new FakeGenerator(byRole(noisy(expertAct(tasks), 0.3), noisy(oracleRehearse(tasks), 0.3)));
    const cfg = { mode: 'rehearsal' as const, seed: 3, keepPrompts: false };
    const full = await rolloutGroups(tasks, 2, { ...cfg, policy: gen() });
    const texts = (ts: typeof full) => ts.map((t) => t.rows.map((r) => r.text));
    let prev = await rolloutGroups(tasks, 2, { ...cfg, policy: gen(), limits: { maxGenerations: 1 } });
    for (let k = 2; k <= 8; k++) {
      const cur = await rolloutGroups(tasks, 2, { ...cfg, policy: gen(), limits: { maxGenerations: k } });
      texts(prev).forEach((rows, i) => expect(texts(cur)[i]!.slice(0, rows.length)).toEqual(rows));
      texts(cur).forEach((rows, i) => expect(texts(full)[i]!.slice(0, rows.length)).toEqual(rows));
      prev = cur;
    }
  });
});
