// The fuzz checks that once could not fail (issue 21): a validator that accepts NaN, or a model folder that
// loads with a lossy tokenizer, must come out as violations, not as one more outcome code. The code under
// test is replaced here by a broken version; the surfaces are the real ones.
import { describe, expect, it, vi } from 'vitest';

vi.mock('../../src/rl/trainer', async (importOriginal) => {
  const m = await importOriginal<typeof import('../../src/rl/trainer')>();
  // a validator that lets a non-finite learning rate through
  return { ...m, validateTrainConfig: () => ({ ok: true, config: { ...m.DEFAULT_TRAIN_CONFIG, lr: Number.NaN } }) };
});
vi.mock('../../src/engine/modelFolder', async (importOriginal) => {
  const m = await importOriginal<typeof import('../../src/engine/modelFolder')>();
  // a loader that accepts any folder and hands back a tokenizer that drops text
  return { ...m, loadModelFolder: async () => ({ tokenizer: { encode: () => [1], decode: () => 'x' } }) };
});

const { runSurface } = await import('../../src/bench/fuzz/harness');
const { trainConfigSurface } = await import('../../src/bench/fuzz/config');
const { modelFolderSurface } = await import('../../src/bench/fuzz/model-folder');

describe('semantic violations fail the fuzz run', () => {
  it('a training config accepted with lr = NaN is a violation accepted-bad:lr on every case', async () => {
    const r = await runSurface(trainConfigSurface, { cases: 50, seed: 1 });
    expect(r.violations).toBe(50);
    expect(r.violationCodes).toEqual({ 'accepted-bad:lr': 50 });
    expect(r.codes).toEqual({});
    expect(r.examples.filter((x) => x.kind === 'violation')).toHaveLength(5);
    expect(r.examples[0].error).toMatch(/validateTrainConfig accepted lr = null/);
  });

  it('a model folder that loads with a lossy tokenizer is a violation tokenizer-lossy', async () => {
    const r = await runSurface(modelFolderSurface, { cases: 20, seed: 1 });
    expect(r.violations).toBe(20);
    expect(r.violationCodes).toEqual({ 'tokenizer-lossy': 20 });
  });
});
