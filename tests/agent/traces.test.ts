import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { rolloutGroups } from '../../src/agent/rollout';
import { expertGenerator, kvTask } from '../../src/agent/testing';
import {
  dumpRole, exportTraces, importReferenceDump, importTraces, messagesFromFlatPrompt, quotedCall, traceLine,
} from '../../src/agent/traces';

const tasks = [kvTask('kv-a'), kvTask('kv-b', 'size', 'large')];
const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');

describe('JSONL traces', () => {
  it('round-trips rollouts exactly', async () => {
    const ts = await rolloutGroups(tasks, 2, { mode: 'rehearsal', policy: expertGenerator(tasks, { noise: 0.2 }), seed: 3 });
    ts[0].rows[0].logprobs[0] = -Infinity; // impossible tokens must survive (as null on the wire)
    const text = exportTraces(ts);
    expect(text.split('\n').filter(Boolean).length).toBe(4);
    const back = importTraces(text);
    expect(back.errors).toEqual([]);
    expect(back.trajectories).toEqual(ts);
  });

  it('can drop prompts and tokens to save space', async () => {
    const ts = await rolloutGroups(tasks.slice(0, 1), 1, { mode: 'real', policy: expertGenerator(tasks) });
    const small = importTraces(exportTraces(ts, { prompts: false, tokens: false }));
    expect(small.errors).toEqual([]);
    expect(small.trajectories[0].rows.every((r) => r.prompt === undefined && r.outputIds.length === 0)).toBe(true);
  });

  it('reports bad lines with numbers and paths, never throws, keeps good lines', async () => {
    const [t] = await rolloutGroups(tasks.slice(0, 1), 1, { mode: 'real', policy: expertGenerator(tasks) });
    const good = traceLine(t);
    const broken = JSON.parse(good);
    broken.rows[1].role = 'critic';
    broken.rows[2].promptIds = [1, 'x'];
    delete broken.taskId;
    const lines = [good, '{not json', '', JSON.stringify(broken), '[1,2]', JSON.stringify({ ...JSON.parse(good), v: 99 }), good];
    const r = importTraces(lines.join('\n'));
    expect(r.trajectories.length).toBe(2);
    expect(r.errors.map((e) => e.line)).toEqual([2, 4, 4, 4, 5, 6]);
    expect(r.errors.find((e) => e.line === 4 && e.path === '$.rows[1].role')).toBeTruthy();
    expect(r.errors.find((e) => e.line === 4 && e.path === '$.rows[2].promptIds[1]')).toBeTruthy();
    expect(r.errors.find((e) => e.line === 4 && e.path === '$.taskId')?.message).toBe('missing');
    expect(r.errors.find((e) => e.line === 6)?.path).toBe('$.v');
    expect(importTraces(undefined as unknown as string)).toEqual({ trajectories: [], errors: [] });
  });
});

describe('reference dump import', () => {
  it('classifies rows by prompt content', () => {
    expect(dumpRole('system\n.\nuser\n.\nassistant\n')).toBe('dummy');
    expect(dumpRole('system\nYou are a precise tool simulator.\nuser\nx\nassistant\n')).toBe('rehearse');
    expect(dumpRole('system\nYou help.\nuser\nhi\nassistant\n')).toBe('act');
  });

  it('rebuilds roles and trajectories from a per-step dump', () => {
    const r = importReferenceDump(fixture('reference_dump.jsonl'));
    expect(r).toMatchObject({ records: 9, errors: [], unlinked: 0, dummies: 1 });
    expect(r.trajectories.length).toBe(2);
    const [a, b] = r.trajectories;
    expect(a.rows.map((x) => `${x.role}:${x.turn}:${x.call?.name ?? '-'}`)).toEqual(
      ['act:0:set', 'rehearse:0:set', 'act:0:-', 'act:1:get', 'rehearse:1:get', 'act:1:-']);
    expect(a).toMatchObject({ reward: 0.85, terminatedBy: 'final_turn', mode: 'rehearsal' });
    expect(a.rows[1]).toMatchObject({ parent: 0, callIndex: 0, imagined: '{"ok":true}' });
    expect(a.rows[0].text.startsWith('<think>')).toBe(true);
    expect(b).toMatchObject({ reward: 0, terminatedBy: 'tool_error' });
    expect(b.rows[1].error?.code).toBe('INVALID_PARAMETERS');
    // Same first prompt: same task and group.
    expect(a.taskId).toBe(b.taskId);
    expect(a.groupId).toBe(`${a.taskId}@3`);
    expect(a.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant', 'user', 'assistant', 'tool', 'assistant']);
    expect(a.messages[3]).toMatchObject({ role: 'tool', name: 'set' });
    // The rebuilt trajectories are valid traces.
    expect(importTraces(exportTraces(r.trajectories)).errors).toEqual([]);
  });

  it('links by content, not by file order, and reports bad lines', () => {
    const lines = fixture('reference_dump.jsonl').split('\n').filter(Boolean);
    const shuffled = [lines[4], lines[0], lines[2], lines[1], lines[3], '{"input": 3}', 'oops', ...lines.slice(5)];
    const r = importReferenceDump(shuffled.join('\n'));
    expect(r.errors.map((e) => [e.line, e.path])).toEqual([[6, '$.input'], [6, '$.output'], [7, '$']]);
    const a = r.trajectories.find((t) => t.reward === 0.85)!;
    expect(a.rows.map((x) => x.role).join(' ')).toBe('act rehearse act act rehearse act');
  });

  it('reads the reference simulator prompt sections', () => {
    const input = 'x\nCurrent tool to simulate:\n- name: set\n- input schema (JSON Schema):\n{}\n- arguments (JSON, parsed from caller\'s tool_call):\n{\n"key": "a"\n}\n\n/think\nassistant\n';
    expect(quotedCall(input)).toEqual({ name: 'set', arguments: { key: 'a' } });
    expect(messagesFromFlatPrompt('system\nS\nuser\nhello\nassistant\nhi\nuser\nagain\nassistant\n').map((m) => m.content)).toEqual(['S', 'hello', 'hi', 'again']);
  });
});

describe('importers never throw', () => {
  it('on random and mutated input', async () => {
    const [t] = await rolloutGroups(tasks.slice(0, 1), 1, { mode: 'rehearsal', policy: expertGenerator(tasks) });
    const good = traceLine(t);
    const dump = fixture('reference_dump.jsonl');
    const mutate = (s: string, at: number, del: number, ins: string) => { const i = at % (s.length + 1); return s.slice(0, i) + ins + s.slice(i + del); };
    fc.assert(fc.property(fc.nat(), fc.nat({ max: 40 }), fc.string({ maxLength: 8 }), fc.string({ maxLength: 100 }), (at, del, ins, junk) => {
      const a = importTraces([mutate(good, at, del, ins), junk].join('\n'));
      expect(a.trajectories.length + (a.errors.length > 0 ? 1 : 0)).toBeGreaterThan(0);
      const b = importReferenceDump(mutate(dump, at, del, ins) + '\n' + junk);
      expect(b.records + b.errors.length).toBeGreaterThan(0);
    }), { numRuns: 300, seed: 11 });
  });
});
