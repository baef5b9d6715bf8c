// The Train form's dynamic-sampling, refill and warmup settings (src/shared/urlState.ts t.dyn, t.refills,
// t.warmup): a link without them is still valid and opens the default preset's values, a link with them
// round-trips, bad values are refused and listed, and specFromSettings sends them to the worker explicitly.

import { describe, expect, it } from 'vitest';
import { defaults, parseHash, toHash, type Settings } from '../../src/app/urlState';
import { TRAIN_DEFAULTS } from '../../src/app/components/train/preset';
import { specFromSettings } from '../../src/app/components/train/spec';

describe('dynamic sampling and warmup in the URL', () => {
  it('a link without them opens the preset, and the run gets the preset explicitly', () => {
    const st = parseHash('#/train?t.lr=0.0003&t.steps=50');
    expect(st.ignored).toEqual([]);
    expect(st.settings['t.dyn']).toBe(TRAIN_DEFAULTS.dynamicSampling ? 'on' : 'off');
    expect(st.settings['t.refills']).toBe(TRAIN_DEFAULTS.maxRefills);
    expect(st.settings['t.warmup']).toBe(TRAIN_DEFAULTS.warmupSteps);
    const spec = specFromSettings(st.settings);
    expect({ dynamicSampling: spec.dynamicSampling, maxRefills: spec.maxRefills, warmupSteps: spec.warmupSteps })
      .toEqual({ dynamicSampling: TRAIN_DEFAULTS.dynamicSampling, maxRefills: TRAIN_DEFAULTS.maxRefills, warmupSteps: TRAIN_DEFAULTS.warmupSteps });
    // The default preset's URL carries none of them.
    expect(toHash({ page: 'train', settings: defaults() })).toBe('#/train');
  });

  it('the browser default stays the measured run: 8 tasks × 4 rollouts, dynamic sampling off, no warmup', () => {
    expect([TRAIN_DEFAULTS.tasksPerStep, TRAIN_DEFAULTS.groupSize]).toEqual([8, 4]);
    expect(TRAIN_DEFAULTS.dynamicSampling).toBe(false);
    expect(TRAIN_DEFAULTS.warmupSteps).toBe(0);
    const d = defaults();
    expect([d['t.tasks'], d['t.group']]).toEqual([8, 4]);
  });

  it('round-trips set values through the hash and into the RunSpec', () => {
    const settings: Settings = { ...defaults(), 't.dyn': 'on', 't.refills': 3, 't.warmup': 5 };
    const hash = toHash({ page: 'train', settings });
    expect(hash).toContain('t.dyn=on');
    expect(hash).toContain('t.refills=3');
    expect(hash).toContain('t.warmup=5');
    const back = parseHash(hash);
    expect(back.ignored).toEqual([]);
    expect(back.page).toBe('train');
    expect(back.settings).toEqual(settings);
    const spec = specFromSettings(back.settings);
    expect(spec).toMatchObject({ dynamicSampling: true, maxRefills: 3, warmupSteps: 5 });
    expect(specFromSettings({ ...settings, 't.dyn': 'off' }).dynamicSampling).toBe(false);
    // The other way round too: off (when the default is on) and 0 warmup are kept.
    for (const dyn of ['on', 'off']) {
      const s2: Settings = { ...defaults(), 't.dyn': dyn, 't.warmup': 0, 't.refills': 0 };
      expect(parseHash(toHash({ page: 'train', settings: s2 })).settings).toEqual(s2);
    }
  });

  it('refuses bad values, lists them, and keeps the defaults', () => {
    const st = parseHash('#/train?t.dyn=yes&t.refills=-1&t.warmup=2.5');
    expect(st.ignored.map((x) => x.key).sort()).toEqual(['t.dyn', 't.refills', 't.warmup']);
    expect(st.ignored.find((x) => x.key === 't.dyn')!.why).toMatch(/not one of on, off/);
    expect(st.ignored.find((x) => x.key === 't.warmup')!.why).toBe('not a whole number');
    expect(st.settings['t.dyn']).toBe(defaults()['t.dyn']);
    expect(st.settings['t.refills']).toBe(defaults()['t.refills']);
    expect(st.settings['t.warmup']).toBe(defaults()['t.warmup']);
  });
});
