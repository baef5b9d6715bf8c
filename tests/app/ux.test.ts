// The first-five-minutes rules that need no browser: URL values are refused with a reason (never clamped),
// the shipped demo trace is the page's default request and shows rehearsal going wrong, the verdict on
// real results is recomputable, parameter counts match the engine, and chart ticks keep their digits.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { importTraces } from '../../src/agent/traces';
import { tickLabel } from '../../src/app/components/charts';
import { DEMO_REQUEST, DEMO_TASK } from '../../src/app/demo/request';
import { llamaParams } from '../../src/app/modelStats';
import { check, defaults, parseHash, parseQuery, rangeText, SCHEMA, toHash, withSetting } from '../../src/app/urlState';
import { countParams } from '../../src/engine/decoder';
import { loadModelFolder } from '../../src/engine/modelFolder';
import { getWorld, taskById } from '../../src/envs/worlds';
import type { ShownTrajectory } from '../../src/worker/protocol';
import { realVerdictOf } from '../../src/worker/rollout-config';
import { demoScore } from '../../src/cli/demo-trace';

describe('URL values and numeric fields', () => {
  it('accepts exponents, refuses empty, fractional ints and out-of-range values with a reason', () => {
    expect(check(SCHEMA['t.lr'], '3e-4')).toEqual({ ok: true, value: 3e-4 });
    expect(check(SCHEMA['t.group'], '16')).toEqual({ ok: true, value: 16 });
    expect(check(SCHEMA['r.temp'], '0.7')).toEqual({ ok: true, value: 0.7 });
    expect(check(SCHEMA['r.temp'], '')).toEqual({ ok: false, why: 'empty' });
    expect(check(SCHEMA['r.temp'], '-')).toEqual({ ok: false, why: 'not a number' });
    expect(check(SCHEMA['t.group'], '2.5')).toEqual({ ok: false, why: 'not a whole number' });
    expect(check(SCHEMA['r.temp'], '7')).toEqual({ ok: false, why: 'too large: at most 2 (0 … 2)' });
    expect(check(SCHEMA['r.temp'], '-1')).toEqual({ ok: false, why: 'too small: at least 0 (0 … 2)' });
    // Issue 42: a 5,000-digit seed is a number (Infinity to JavaScript), refused as too large, not as "not a number".
    expect(check(SCHEMA['r.seed'], '9'.repeat(5000))).toEqual({ ok: false, why: 'too large: at most 2³¹−1 (0 … 2³¹−1 (whole))' });
    expect(rangeText(SCHEMA['r.k'])).toBe('1 … 64 (whole)');
  });

  it('parseHash lists what it ignored and keeps the defaults for those keys', () => {
    const st = parseHash('#/train?t.lr=0.0003&t.steps=999999999&bogus=1&t.group=notanumber&r.temp=3');
    expect(st.page).toBe('train');
    expect(st.settings['t.lr']).toBe(0.0003);
    expect(st.settings['t.steps']).toBe(defaults()['t.steps']);
    expect(st.settings['r.temp']).toBe(defaults()['r.temp']);
    expect(st.ignored.map((x) => x.key).sort()).toEqual(['bogus', 'r.temp', 't.group', 't.steps']);
    expect(st.ignored.find((x) => x.key === 't.steps')!.why).toMatch(/too large: at most 100000/);
    expect(parseHash('#/nowhere').ignored).toEqual([{ key: 'page', raw: 'nowhere', why: expect.stringMatching(/not one of/) }]);
    expect(parseQuery('?backend=cuda&threads=0').ignored.map((x) => x.key)).toEqual(['backend', 'threads']);
    expect(parseQuery('?backend=wasm&threads=2')).toEqual({ backend: 'wasm', threads: 2, ignored: [] });
  });

  it("the demo's task is the default only in the demo's world (a link with only r.world=retail asks for retail's first test task)", () => {
    expect(defaults()['r.world']).toBe(DEMO_REQUEST.world);
    expect(defaults()['r.task']).toBe(DEMO_TASK);
    const other = DEMO_REQUEST.world === 'files' ? 'retail' : 'files';
    const st = parseHash(`#/rollout?r.world=${other}&r.k=2`);
    expect(st.settings['r.task']).toBe('');
    expect(st.ignored).toEqual([]);
    // Round trips: the default task of each world is left out of the link, any other choice is kept.
    for (const h of [`#/rollout?r.world=${other}`, `#/rollout?r.world=${other}&r.task=${other}-7`, '#/rollout?r.task=', `#/rollout?r.task=${DEMO_REQUEST.world}-3`, '#/rollout']) {
      const a = parseHash(h);
      expect(toHash(a)).toBe(h);
      expect(parseHash(toHash(a)).settings).toEqual(a.settings);
    }
    expect(parseHash('#/rollout').settings['r.task']).toBe(DEMO_TASK);
    // Switching the world control drops the old world's task; '' (first test task) and a task of the new world stay.
    const d = defaults();
    expect(withSetting(d, 'r.world', other)['r.task']).toBe('');
    expect(withSetting(withSetting(d, 'r.world', other), 'r.world', DEMO_REQUEST.world)['r.task']).toBe('');
    expect(withSetting({ ...d, 'r.world': other, 'r.task': `${other}-4` }, 'r.world', DEMO_REQUEST.world)['r.task']).toBe(DEMO_TASK);
    expect(withSetting({ ...d, 'r.task': `${other}-4` }, 'r.world', other)['r.task']).toBe(`${other}-4`);
    expect(withSetting(d, 'r.k', 3)).toEqual({ ...d, 'r.k': 3 });
  });
});

describe('the shipped demo trace', () => {
  const meta = JSON.parse(readFileSync('src/app/demo/demo-meta.json', 'utf8'));
  const parsed = importTraces(readFileSync('src/app/demo/demo-trace.jsonl', 'utf8'));
  const ts = parsed.trajectories as ShownTrajectory[];

  it('is the page default request (so Run recomputes it) with a competent starter policy in rehearsal mode', () => {
    expect(meta.model).toMatch(/-starter$/);
    expect(parsed.errors).toEqual([]);
    const { taskId, ...req } = meta.request;
    expect(req).toEqual(DEMO_REQUEST);
    // DEMO_TASK '' means "the world's first test task", which the page's worker resolves the same way.
    expect(taskId).toBe(DEMO_TASK || getWorld(DEMO_REQUEST.world).tasks({ split: 'test', count: 1 })[0]!.id);
    const s = defaults();
    expect([s['r.world'], s['r.mode'], s['r.k'], s['r.temp'], s['r.seed'], s['r.max'], s['r.turns']])
      .toEqual([DEMO_REQUEST.world, DEMO_REQUEST.mode, DEMO_REQUEST.k, DEMO_REQUEST.temperature, DEMO_REQUEST.seed, DEMO_REQUEST.maxNewTokens, DEMO_REQUEST.maxTurns]);
    expect(ts).toHaveLength(DEMO_REQUEST.k);
    expect(ts.every((t) => t.taskId === taskId && t.mode === 'rehearsal')).toBe(true);
    expect(meta.task.checklist.flat().length).toBeGreaterThan(0);
  });

  it('shows a rehearsed result that differs from the real one, and a tick only the imagination earned', () => {
    const score = demoScore(ts);
    expect(score.differingRows).toBeGreaterThan(0);
    expect(score.imaginedTicks).toBeGreaterThan(0);
    expect(score).toEqual({ differingRows: meta.differingRows, agreeingRows: meta.agreeingRows, imaginedTicks: meta.imaginedTicks });
    // Mostly agreeing rehearsal with one instructive disagreement, from a policy that does the task well.
    expect(score.agreeingRows).toBeGreaterThan(score.differingRows);
    expect(ts.reduce((a, t) => a + (t.reward ?? 0), 0) / ts.length).toBeGreaterThanOrEqual(0.6);
  });

  it('its real-result verdicts are what the judge gives on the shadow environment answers', () => {
    const task = taskById(meta.request.taskId);
    for (const t of ts) {
      const { realVerdict, ...rest } = t;
      expect(realVerdictOf(task, rest as ShownTrajectory)).toEqual(realVerdict);
    }
    // Real mode has nothing imagined: no second verdict.
    expect(realVerdictOf(task, { ...ts[0]!, mode: 'real' })).toBeUndefined();
  });
});

describe('models page and charts', () => {
  it('parameter counts from config.json equal the engine count for the shipped folders', async () => {
    for (const name of ['envace-tiny', 'envace-small']) {
      const f = await loadModelFolder(`models/${name}`);
      expect(llamaParams(f.rawConfig)).toBe(countParams(f.config));
    }
    expect(llamaParams({})).toBeNull();
  });

  it('tick labels keep sign and digits', () => {
    expect(tickLabel(-0.0125)).toBe('-0.0125');
    expect(tickLabel(0.5)).toBe('0.5');
    expect(tickLabel(12345.678)).toBe('12300');
    expect(tickLabel(3e-5)).toBe('3.0e-5');
    expect(tickLabel(0)).toBe('0');
  });
});
