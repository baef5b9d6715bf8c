// Node-side checks of what the browser training path adds around the trainer: the worker's built-in tiny
// model (deterministic, prompts fit its context) and the page's metric/model exports.
import { describe, expect, it } from 'vitest';
import { loadModelFolder, memoryFileSource, modelFolderFiles } from '../../src/engine/modelFolder';
import { nodeRuntime } from '../../src/engine/runtime-node';
import { makeTrainer } from '../../src/rl/session';
import { buildTinyFolder, withMaxNewTokens } from '../../src/worker/train-tiny';
import { folderBundle, metricsCsv, metricsJson } from '../../src/app/components/train/exports';
import type { RunRecord } from '../../src/app/components/train/runs';

describe('built-in tiny model', () => {
  it('is deterministic in (world, seed) and trains on files prompts', async () => {
    const a = await buildTinyFolder({ world: 'files', seed: 3, maxNewTokens: 6 });
    const b = await buildTinyFolder({ world: 'files', seed: 3, maxNewTokens: 6 });
    expect(Array.from(a.params['lm_head.weight']!)).toEqual(Array.from(b.params['lm_head.weight']!));
    expect(a.tokenizerJson).toEqual(b.tokenizerJson);
    const t = makeTrainer(a, nodeRuntime(), { world: 'files', steps: 1, tasksPerStep: 1, groupSize: 2, maxTurns: 2, microBatch: 4, evalTasks: 1, dynamicSampling: false }, { runId: 't' });
    const m = await t.trainStep();
    // Rows exist only when prompt + output fit the 1024-token context.
    expect(m.rows).toBeGreaterThan(0);
    expect(m.tokens).toBeLessThanOrEqual(m.rows * 6);
  });

  it('maxNewTokens overrides a folder profile without touching other settings', async () => {
    const f = await buildTinyFolder({ world: 'files', seed: 1, maxNewTokens: 8 });
    const g = withMaxNewTokens(f, 24);
    const p = (g.rawConfig.envace as { profile: { act: { maxNewTokens: number }; rehearse: { maxNewTokens: number }; limits: unknown } }).profile;
    expect([p.act.maxNewTokens, p.rehearse.maxNewTokens]).toEqual([24, 24]);
    expect(p.limits).toEqual((f.rawConfig.envace as { profile: { limits: unknown } }).profile.limits);
    expect(withMaxNewTokens(f, 0)).toBe(f);
  });
});

describe('train page exports', () => {
  const run = {
    runId: 'r1', label: 'EnvACE', request: { runId: 'r1', spec: { variant: 'envace', steps: 2 }, model: 'builtin:tiny', maxNewTokens: 8 },
    history: [{ step: 1, reward: 0.5, note: 'a, "quoted" note' }, { step: 2, reward: 0.25 }],
    evals: [{ step: 0, success: 0 }], switches: [],
  } as unknown as RunRecord;

  it('CSV has one row per step and eval, quoted where needed', () => {
    const lines = metricsCsv([run]).trim().split('\n');
    expect(lines[0]).toBe('run,variant,kind,step,reward,note,success');
    expect(lines).toHaveLength(4);
    expect(lines[1]).toBe('r1,envace,step,1,0.5,"a, ""quoted"" note",');
    expect(lines[3]).toBe('r1,envace,eval,0,,,0');
    expect(JSON.parse(metricsJson([run])).runs[0].history).toHaveLength(2);
  });

  it('JSON bundle decodes back to a loadable model folder', async () => {
    const f = await buildTinyFolder({ world: 'files', seed: 2, maxNewTokens: 4 });
    const files = modelFolderFiles({ config: f.config, params: f.params, tokenizer: f.tokenizerJson, withOnnx: false });
    const bundle = JSON.parse(folderBundle({ name: 'x', files })) as { files: Record<string, string> };
    const back = Object.fromEntries(Object.entries(bundle.files).map(([p, s]) => [p, new Uint8Array(Buffer.from(s, 'base64'))]));
    const g = await loadModelFolder(memoryFileSource(back));
    expect(Array.from(g.params['model.embed_tokens.weight']!)).toEqual(Array.from(f.params['model.embed_tokens.weight']!));
  });
});
