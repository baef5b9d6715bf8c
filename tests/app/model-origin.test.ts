import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { modelOrigin } from '../../src/app/modelOrigin';

const cfg = (name: string) => JSON.parse(readFileSync(`models/${name}/config.json`, 'utf8')) as Record<string, unknown>;

describe('the Models table says how each shipped model was made (issue 42, point 8)', () => {
  it('reads the config\'s training record: RL variant and start, memory SFT, or the starter SFT', () => {
    expect(modelOrigin(cfg('files-starter-envace'))).toMatch(/^files-starter after 300 steps of EnvACE/);
    expect(modelOrigin(cfg('files-starter-grpo-real'))).toMatch(/^files-starter after 300 steps of GRPO against the real environment/);
    expect(modelOrigin(cfg('files-starter-envace-mem'))).toBe('files-starter-envace trained further with rehearsal memories in its Act prompt (for "Rehearse first")');
    expect(modelOrigin(cfg('files-starter'))).toMatch(/^supervised training on the reference expert's conversations \(1951 steps/);
    expect(modelOrigin(null)).toBe('no training record in its config.json');
  });
});
