import { describe, expect, it } from 'vitest';
import { defaultRehearsePolicy, memoryTrained, policyWhy, unparsableText } from '../../src/app/components/rollout/rehearsePolicy';
import type { ModelEntry } from '../../src/worker/protocol';
import type { Row } from '../../src/agent/types';

const entry = (name: string, envace: Record<string, unknown> = {}): ModelEntry => ({ name, url: `/models/${name}/`, totalBytes: 0, files: [], config: { envace } });
const mem = (name: string, init: string) => entry(name, { memoryPool: 200, init: `models/${init}` });

describe('rehearse-first policy (issue 42, point 1)', () => {
  const starter = entry('files-starter');
  const models = [entry('envace-tiny'), starter, mem('files-starter-mem', 'files-starter'), mem('files-starter-envace-mem', 'files-starter-envace'), mem('retail-starter-mem', 'retail-starter')];

  it('defaults to a policy trained with memories in its prompt: the EnvACE one, else the base one, of the same world', () => {
    expect(defaultRehearsePolicy(models, 'files', starter)?.name).toBe('files-starter-envace-mem');
    expect(defaultRehearsePolicy(models.filter((m) => !m.name.includes('envace-mem')), 'files', starter)?.name).toBe('files-starter-mem');
    expect(defaultRehearsePolicy(models, 'retail', undefined)?.name).toBe('retail-starter-mem');
    // None shipped for the world: the Rollout policy, which then says it was not trained with memories.
    expect(defaultRehearsePolicy([starter], 'files', starter)).toBe(starter);
    expect(memoryTrained(starter)).toBe(false);
  });

  it('says which policy and why, naming the Rollout policy that never saw a memory', () => {
    const why = policyWhy(models[3]!, starter);
    expect(why).toMatch(/^files-starter-envace-mem was trained from files-starter-envace with rehearsal memories in its Act prompt/);
    expect(why).toContain('the Rollout policy above (files-starter) never saw one');
    expect(policyWhy(starter, starter)).toMatch(/not trained with a memory .* a measured result/);
  });

  it('a committed run that could not be parsed is said in words, with the code', () => {
    const row = (error?: string) => ({ role: 'act', text: '{"name":"cd","sales.csv"}', ...(error ? { error: { code: error, message: 'x' } } : {}) }) as unknown as Row;
    expect(unparsableText({ terminatedBy: 'parse_error', rows: [row(), row('JSON_DECODE_ERROR')] }))
      .toBe('the committed run ended on an output the environment could not read: the tool call it wrote is not valid JSON (JSON_DECODE_ERROR)');
    expect(unparsableText({ terminatedBy: 'final_turn', rows: [row('JSON_DECODE_ERROR'), row()] })).toBeNull();
  });
});
