// The Train page's default run (src/app/components/train/preset.ts): the URL defaults are the preset's values,
// the starter folder named by DEFAULT_TRAIN_STARTER exists in models/, and the one-line description says what
// runs (and says so when the starter is missing and the tiny model stands in).

import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DEFAULT_TRAIN_STARTER, TINY_MODEL_ID, TRAIN_DEFAULTS, watchingLine } from '../../src/app/components/train/preset';
import { defaults } from '../../src/app/urlState';
import { DEFAULT_TRAIN_CONFIG } from '../../src/rl/trainer';
import { TRAINER_LOSS_AGG_DEFAULT } from '../../src/shared/trainDefaults';

describe('default Train preset', () => {
  it('is what a link without t.* keys opens', () => {
    const d = defaults();
    expect({
      model: d['t.model'], mode: d['t.mode'], world: d['t.world'], difficulty: d['t.diff'], taskPool: d['t.pool'], steps: d['t.steps'], tasksPerStep: d['t.tasks'],
      groupSize: d['t.group'], maxTurns: d['t.turns'], maxNewTokens: d['t.max'], temperature: d['t.temp'], lr: d['t.lr'],
      evalEvery: d['t.eval'], evalTasks: d['t.evaltasks'], evalK: d['t.evalk'], checkpointEvery: d['t.ckpt'],
      dynamicSampling: d['t.dyn'] === 'on', maxRefills: d['t.refills'], warmupSteps: d['t.warmup'], lossAggMode: d['t.agg'],
    }).toEqual({ ...TRAIN_DEFAULTS });
    expect(d['t.model']).toBe(DEFAULT_TRAIN_STARTER);
  });

  it('names the trainer\'s own loss_agg_mode default truthfully (the Train page shows both)', () => {
    expect(TRAINER_LOSS_AGG_DEFAULT).toBe(DEFAULT_TRAIN_CONFIG.lossAggMode);
  });

  it('names a starter folder that ships', () => {
    expect(fs.existsSync(`models/${DEFAULT_TRAIN_STARTER}/config.json`)).toBe(true);
  });

  it('says in one line what is watched, and when the tiny model stands in for a missing starter', () => {
    const base = { variant: 'GRPO + real environment', world: 'files', difficulty: 1, pool: 8, tasks: 4, group: 4, temperature: 1, evalEvery: 12, evalTasks: 16, evalK: 2 };
    const s = watchingLine({ ...base, model: DEFAULT_TRAIN_STARTER, fallback: false });
    expect(s).toContain(`the starter policy ${DEFAULT_TRAIN_STARTER} on a pool of 8 difficulty-1 files tasks`);
    // The held-out figure is only comparable with the training reward when the line says how it was sampled.
    expect(s).toContain('16 unseen difficulty-1 files tasks (2 attempts each at temperature 1, as in training) in the real environment every 12 steps');
    expect(watchingLine({ ...base, model: DEFAULT_TRAIN_STARTER, fallback: false, evalK: 1 })).toContain('16 unseen difficulty-1 files tasks (greedy)');
    expect(s.includes('\n')).toBe(false);
    const f = watchingLine({ ...base, model: TINY_MODEL_ID, fallback: true });
    expect(f.startsWith(`${DEFAULT_TRAIN_STARTER} is missing from models/`)).toBe(true);
    expect(f).toContain('untrained');
    expect(watchingLine({ ...base, model: 'x', fallback: false, evalEvery: 0 })).not.toContain('held-out');
  });
});
