import { resolve } from 'node:path';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadAllBackends } from '../../src/envs/bfcl/index';
import { BfclEnvironment } from '../../src/envs/bfcl/env';
import { loadCategory, loadFuncDocs } from '../../src/envs/bfcl/loader';
import { runBfclConformance } from '../../src/envs/bfcl/conformance';
import { parsePyJson, pyJsonDumps } from '../../src/envs/python';

const DATA = resolve(process.cwd(), '../shared/data/bfcl');
const Q = `${DATA}/BFCL_v4_multi_turn_base.json`;
const A = `${DATA}/possible_answer/BFCL_v4_multi_turn_base.json`;
const F = `${DATA}/fixtures/multi_turn_base.fixture.json`;
const MINE = ['GorillaFileSystem', 'MathAPI', 'MessageAPI', 'TwitterAPI'];

type Fx = { id: string; involved_classes: string[]; initial_state: Record<string, unknown>; turns: { calls: { call: string; result: string; class: string }[] }[] };

describe('BFCL multi_turn_base ground-truth replay matches the Python fixture', () => {
  let registered: string[];
  beforeAll(async () => { registered = await loadAllBackends(); });

  it('all 8 backends register', () => {
    expect([...registered].sort()).toEqual(['GorillaFileSystem', 'MathAPI', 'MessageAPI', 'TicketAPI', 'TradingBot', 'TravelAPI',
      'TwitterAPI', 'VehicleControlAPI']);
  });

  it('every result string and per-turn state: 1142 results, 734 states', () => {
    const r = runBfclConformance({ questions: Q, answers: A, fixture: F, maxMismatches: 5 });
    expect(r.mismatches).toEqual([]);
    expect(r.all_mismatches).toBe(0);
    expect(r.total_calls).toBe(1142);
    expect(r.matched_results).toBe(1142);
    expect(r.total_states).toBe(734);
    expect(r.matched_states).toBe(734);
  });

  it('entries missing from the fixture, or from the questions, are failures rather than skipped', () => {
    const dir = mkdtempSync(`${tmpdir()}/bfcl-conf-`);
    const firstLines = (file: string, n: number) => readFileSync(file, 'utf8').split('\n').filter((l) => l.trim()).slice(0, n).join('\n');
    writeFileSync(`${dir}/q.json`, firstLines(Q, 3));
    writeFileSync(`${dir}/a.json`, firstLines(A, 3));
    writeFileSync(`${dir}/empty.fixture.json`, '{"entries": []}');
    const noFixture = runBfclConformance({ questions: `${dir}/q.json`, answers: `${dir}/a.json`, fixture: `${dir}/empty.fixture.json` });
    expect(noFixture.total_calls).toBeGreaterThan(0);
    expect(noFixture.matched_results).toBe(0);
    expect(noFixture.total_states).toBeGreaterThanOrEqual(3);
    expect(noFixture.matched_states).toBe(0);
    expect(noFixture.mismatches.map((m) => [m.kind, m.actual])).toEqual([['entry', 'missing'], ['entry', 'missing'], ['entry', 'missing']]);
    // the full fixture against 3 questions: those 3 match, the other 197 fixture entries are reported
    const fewQuestions = runBfclConformance({ questions: `${dir}/q.json`, answers: `${dir}/a.json`, fixture: F, maxMismatches: 1000 });
    expect(fewQuestions.matched_states).toBe(fewQuestions.total_states);
    expect(fewQuestions.all_mismatches).toBe(197);
    expect(fewQuestions.mismatches.every((m) => m.kind === 'entry')).toBe(true);
  });

  it('results of GorillaFileSystem, MathAPI, MessageAPI and TwitterAPI calls, by class', () => {
    const fx = JSON.parse(readFileSync(F, 'utf8')) as { entries: Fx[] };
    const items = new Map(loadCategory(Q, A).map((x) => [x.question.id, x]));
    const perClass: Record<string, { total: number; ok: number }> = {};
    for (const e of fx.entries) {
      const env = new BfclEnvironment(items.get(e.id)!.question);
      for (const t of e.turns) for (const c of t.calls) {
        const got = env.execPython(c.call).text;
        const s = (perClass[c.class] ??= { total: 0, ok: 0 });
        s.total++;
        if (got === c.result) s.ok++;
        else if (MINE.includes(c.class)) expect(got, `${e.id}: ${c.call}`).toBe(c.result);
      }
    }
    for (const cls of MINE) expect(perClass[cls].ok).toBe(perClass[cls].total);
    expect(perClass.GorillaFileSystem.total).toBe(231);
    expect(perClass.MathAPI.total).toBe(14);
  });

  it('initial state after _load_scenario equals the fixture', () => {
    const fx = parsePyJson(readFileSync(F, 'utf8'), { objects: 'map' }) as Map<string, unknown>;
    const items = new Map(loadCategory(Q, A).map((x) => [x.question.id, x]));
    let n = 0;
    for (const e of fx.get('entries') as Map<string, unknown>[]) {
      const q = items.get(e.get('id') as string)!.question;
      const env = new BfclEnvironment(q);
      const mine = env.stateRaw();
      for (const [cls, st] of e.get('initial_state') as Map<string, unknown>) {
        expect(pyJsonDumps(mine.get(cls)), `${q.id} ${cls}`).toBe(pyJsonDumps(st));
        n++;
      }
    }
    expect(n).toBe(335);   // every class of every entry, none skipped
  });

  it('tools() converts BFCL docs to JSON Schema and withholds missed functions until their turn', () => {
    const docs = loadFuncDocs(`${DATA}/multi_turn_func_doc`);
    const env = new BfclEnvironment(
      { id: 'multi_turn_miss_func_0', involved_classes: ['GorillaFileSystem', 'MathAPI'], initial_config: {}, missed_function: { 1: ['mkdir'] } },
      { funcDocs: docs },
    );
    const names = env.tools().map((t) => t.name);
    expect(names).not.toContain('mkdir');
    expect(env.call('mkdir', { dir_name: 'x' }).error).toBe(true);
    expect(JSON.parse(env.call('mkdir', { dir_name: 'x' }).text).error_tool_call.code).toBe('TOOL_NOT_AVAILABLE');
    env.setTurn(1);
    const tools = env.tools();
    expect(tools[tools.length - 1].name).toBe('mkdir');
    const log = tools.find((t) => t.name === 'logarithm')!;
    expect(log.parameters.type).toBe('object');
    expect(log.parameters.properties!.value.type).toBe('number');
    expect(log.parameters.properties!.precision.type).toBe('integer');
    expect(log.parameters.required).toEqual(['value', 'base', 'precision']);
    expect(env.call('mkdir', { dir_name: 'x' })).toEqual({ text: 'None', error: false });
  });

  it('clone() is independent and replays the same random ids', () => {
    const items = loadCategory(Q, A);
    const msg = items.find((x) => x.question.involved_classes.includes('MessageAPI') && x.answer.ground_truth.flat().some((c) => c.startsWith('send_message')))!;
    const env = new BfclEnvironment(msg.question);
    const calls = msg.answer.ground_truth.flat();
    const firstSend = calls.findIndex((c) => c.startsWith('send_message'));
    for (const c of calls.slice(0, firstSend)) env.execPython(c);
    const before = env.stateJson();
    const copy = env.clone();
    const a = copy.execPython(calls[firstSend]).text;
    expect(env.stateJson()).toBe(before);
    expect(env.execPython(calls[firstSend]).text).toBe(a);
    expect(copy.stateJson()).toBe(env.stateJson());
  });
});
