// Fuzz surface of training configs: what a JSON config file (npm run train -- --config FILE) or the Train
// page hands validateTrainConfig. It returns every problem as a string and never throws.

import { DEFAULT_TRAIN_CONFIG, validateTrainConfig, type TrainConfig } from '../../rl/trainer';
import { FuzzRng, mutateValue, NASTY_STRINGS, randomString, randomValue } from './gen';
import { FuzzViolation, type Surface } from './harness';
import { messageKey } from './agent';

/** Values a config field must never be accepted with, whatever the field. */
function acceptedBad(c: TrainConfig): string | null {
  for (const [k, v] of Object.entries(c)) {
    if (typeof v === 'number' && !Number.isFinite(v)) return k;
    if (typeof v !== typeof (DEFAULT_TRAIN_CONFIG as unknown as Record<string, unknown>)[k]) return k;
  }
  return null;
}

export const trainConfigSurface: Surface<unknown> = {
  name: 'train-config',
  about: 'training configs (JSON) through validateTrainConfig (problems are returned as a list; any throw is a crash; an accepted config with a non-finite or mistyped field is a violation accepted-bad:<field>)',
  generate(r: FuzzRng) {
    switch (r.int(8)) {
      case 0: return randomValue(r, 3);
      case 1: return JSON.parse(JSON.stringify({ [r.pick(NASTY_STRINGS)]: randomValue(r, 2) }) ?? 'null');
      default: {
        let c: unknown = { ...DEFAULT_TRAIN_CONFIG };
        for (let i = r.range(1, 3); i > 0; i--) c = mutateValue(r, c);
        if (r.bool(0.2) && typeof c === 'object' && c !== null) (c as Record<string, unknown>)[r.pick(Object.keys(DEFAULT_TRAIN_CONFIG))] = r.bool() ? randomString(r, 8) : r.pick([NaN, -1, 0, 1e308, Infinity, 0.5, -0]);
        return c;
      }
    }
  },
  run(c) {
    const v = validateTrainConfig(c as Partial<TrainConfig>);
    if (!v.ok) return `invalid:${messageKey(v.errors[0])}`;
    const bad = acceptedBad(v.config);
    if (bad) throw new FuzzViolation(`accepted-bad:${bad}`, `validateTrainConfig accepted ${bad} = ${JSON.stringify((v.config as unknown as Record<string, unknown>)[bad]) ?? 'undefined'}`);
    return 'ok';
  },
};
