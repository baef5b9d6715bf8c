import { describe, expect, it } from 'vitest';
import { batchFidelity, compareResults, flattenJson, pairF1, summarizeFidelity } from '../../src/agent/fidelity';
import { errorObservation } from '../../src/envs/types';

const ok = (v: unknown) => ({ text: JSON.stringify(v), error: false });

describe('fidelity', () => {
  it('exact match is key-order independent', () => {
    expect(compareResults('{"b":2,"a":1}', ok({ a: 1, b: 2 }))).toMatchObject({ exact: true, fieldF1: 1, errorAgree: true });
  });

  it('flattens to path=value pairs', () => {
    expect(flattenJson({ a: [1, { b: null }], c: {}, d: [] })).toEqual(['$.a[0]=1', '$.a[1].b=null', '$.c={}', '$.d=[]']);
  });

  it('gives partial credit per field', () => {
    const f = compareResults('{"id":1,"name":"x","price":9}', ok({ id: 1, name: 'x', price: 10, stock: 3 }));
    expect(f.exact).toBe(false);
    expect(f.precision).toBeCloseTo(2 / 3);
    expect(f.recall).toBeCloseTo(2 / 4);
    expect(f.fieldF1).toBeCloseTo((2 * (2 / 3) * 0.5) / (2 / 3 + 0.5));
    expect(pairF1([], [])).toEqual({ precision: 1, recall: 1, f1: 1 });
    expect(pairF1(['a=1', 'a=1'], ['a=1']).precision).toBe(0.5);
  });

  it('error agreement: EnvACE shape, "error" key, or the observation flag', () => {
    const imaginedErr = '{"error_tool_call":{"code":"INVALID_PARAMETERS","message":"x"}}';
    expect(compareResults(imaginedErr, errorObservation('INVALID_PARAMETERS', 'y')).errorAgree).toBe(true);
    expect(compareResults(imaginedErr, ok({ a: 1 })).errorAgree).toBe(false);
    expect(compareResults('{"error":"no such key"}', { text: 'not found', error: true })).toMatchObject({ errorAgree: true, exact: false, fieldF1: 0 });
    expect(compareResults('{"a":1}', { text: 'plain text', error: false })).toMatchObject({ errorAgree: true, exact: false });
    expect(compareResults('plain text', { text: ' plain text ', error: false }).exact).toBe(true);
  });

  it('aggregates per tool and per trajectory', () => {
    const s = summarizeFidelity([
      { tool: 'get', fidelity: { exact: true, fieldF1: 1, errorAgree: true } },
      { tool: 'get', fidelity: { exact: false, fieldF1: 0.5, errorAgree: true } },
      { tool: 'set', fidelity: { exact: false, fieldF1: 0, errorAgree: false } },
    ]);
    expect(s).toMatchObject({ calls: 3, exactRate: 1 / 3, meanF1: 0.5, errorAgreeRate: 2 / 3 });
    expect(s.perTool.get).toEqual({ calls: 2, exactRate: 0.5, meanF1: 0.75, errorAgreeRate: 1 });
    const b = batchFidelity([
      { taskId: 't', rows: [{ role: 'act' }, { role: 'rehearse', call: { name: 'get' }, fidelity: { exact: true, fieldF1: 1, errorAgree: true } }] },
      { taskId: 'u', rows: [] },
    ]);
    expect(b.perTrajectory.map((x) => x.calls)).toEqual([1, 0]);
    expect(b.overall.exactRate).toBe(1);
  });
});

describe('plain-text tool outputs', () => {
  it('compare in the {"result": …} form Rehearse must use', () => {
    expect(compareResults('{"result":"jamal_berg_483"}', { text: 'jamal_berg_483', error: false })).toMatchObject({ exact: true, fieldF1: 1 });
    expect(compareResults('{"result":"x"}', { text: 'y', error: false })).toMatchObject({ exact: false, fieldF1: 0 });
    expect(compareResults('{"result":3}', { text: '3', error: false }).exact).toBe(true);
  });
});

describe('τ²-style error strings', () => {
  it('count as errors, also wrapped', () => {
    expect(compareResults('{"result":"Error: order not found"}', { text: 'Error: order not found', error: true })).toMatchObject({ exact: true, errorAgree: true });
    expect(compareResults('{"result":"Error: nope"}', { text: '{"ok":1}', error: false }).errorAgree).toBe(false);
    expect(compareResults('{"ok":1}', { text: 'Error: nope', error: false }).errorAgree).toBe(false);
  });
});
