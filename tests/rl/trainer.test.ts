import { describe, expect, it } from 'vitest';
import { TINY_PROFILE, type PromptProfile } from '../../src/agent/profile';
import { PROTOCOL_TOKENS } from '../../src/agent/chatTemplate';
import { makeConfig, initParams } from '../../src/engine/decoder';
import { nodeRuntime } from '../../src/engine/runtime-node';
import { BPETokenizer, DEFAULT_SPECIAL_TOKENS, trainBPE } from '../../src/engine/tokenizer';
import { getWorld } from '../../src/envs/worlds/index';
import { MemoryCheckpointStore } from '../../src/rl/checkpoint';
import { DEFAULT_TRAIN_CONFIG, GrpoTrainer, validateTrainConfig, type TrainConfig } from '../../src/rl/trainer';
import { readdirSync, readFileSync } from 'node:fs';
import { ERROR_REWARDS, JUDGE_ON } from '../../src/agent/rollout';
import { CliArgsError, parseCliArgs } from '../../src/cli/args';
import { specFromArgs, TRAIN_CLI } from '../../src/cli/train';
import { ERROR_REWARD_RULES, JUDGE_ON_CHOICES, parseHash } from '../../src/app/urlState';

const world = getWorld('files');
const tasks = world.tasks({ split: 'train', count: 6 });
const corpus = tasks.flatMap((t) => t.reference.map((m) => m.content)).join('\n');
const tokJson = trainBPE(corpus, { vocabSize: 300, specialTokens: DEFAULT_SPECIAL_TOKENS, addedTokens: PROTOCOL_TOKENS });
const tokenizer = new BPETokenizer(tokJson);
const cfg = makeConfig('tiny', { vocab_size: tokenizer.vocabSize, max_position_embeddings: 1024, hidden_size: 32, intermediate_size: 64, num_hidden_layers: 1 });
const profile: PromptProfile = { ...TINY_PROFILE, act: { maxNewTokens: 12 }, rehearse: { maxNewTokens: 12 }, limits: { maxAssistantTurns: 2, maxGenerations: 6, minNewTokens: 4 } };
const ids = { eos: tokenizer.json.added_tokens.find((t) => t.content === '<|end|>')!.id, pad: 0 };

function trainer(over: Partial<TrainConfig>, store = new MemoryCheckpointStore(), params = initParams(cfg, 3)) {
  // Update mechanics on every group (dynamic sampling has its own tests: random tiny models earn equal rewards).
  const c = { ...DEFAULT_TRAIN_CONFIG, tasksPerStep: 2, groupSize: 2, maxTurns: 2, microBatch: 4, evalTasks: 1, checkpointEvery: 0, lr: 1e-2, dynamicSampling: false, warmupSteps: 0, ...over };
  return new GrpoTrainer(c, {
    runtime: nodeRuntime(), config: cfg, params, tokenizer, ids, profile,
    trainTasks: ({ step, count }) => Array.from({ length: count }, (_, i) => tasks[(step * count + i) % tasks.length]),
    evalTasks: tasks.slice(0, 1), store, runId: 'test',
  });
}

describe('GRPO trainer', () => {
  it('rejects bad configs with every problem listed', () => {
    const v = validateTrainConfig({ lr: -1, groupSize: 0, variant: 'nope' as never, bogus: 1 } as never);
    expect(v.ok).toBe(false);
    if (!v.ok) {
      expect(v.errors.join('\n')).toMatch(/lr/);
      expect(v.errors.join('\n')).toMatch(/groupSize/);
      expect(v.errors.join('\n')).toMatch(/variant/);
      expect(v.errors.join('\n')).toMatch(/bogus/);
    }
  });

  it('reference rules are the defaults; the old ones are named options', () => {
    expect(DEFAULT_TRAIN_CONFIG).toMatchObject({ errorReward: 'keep-completed-turns', judgeOn: 'transcript', singletonGroups: 'reward', emptyPenalty: -0.1, maxTurns: 30 });
    const old = validateTrainConfig({ errorReward: 'zero-episode', judgeOn: 'real', singletonGroups: 'zero', variant: 'standard-grpo' });
    expect(old.ok).toBe(true);
    const bad = validateTrainConfig({ errorReward: 'zero' as never, judgeOn: 'shown' as never, singletonGroups: 'none' as never, emptyPenalty: 0.1, variant: 'toString' as never });
    expect(bad.ok).toBe(false);
    if (!bad.ok) for (const k of ['errorReward', 'judgeOn', 'singletonGroups', 'emptyPenalty', 'variant']) expect(bad.errors.join('\n')).toMatch(new RegExp(k));
    expect(DEFAULT_TRAIN_CONFIG.negativeAdvantages).toBe('keep');
    expect(validateTrainConfig({ negativeAdvantages: 'drop' }).ok).toBe(true);
    const neg = validateTrainConfig({ negativeAdvantages: 'clip' as never });
    expect(neg.ok).toBe(false);
    if (!neg.ok) expect(neg.errors.join('\n')).toMatch(/negativeAdvantages must be keep \| drop/);
  });

  it('every shipped config validates', () => {
    const files = readdirSync('configs').filter((f) => f.endsWith('.json'));
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) {
      const { model: _m, world: _w, difficulty: _d, ...rest } = JSON.parse(readFileSync(`configs/${f}`, 'utf8'));
      const v = validateTrainConfig(rest);
      expect({ f, errors: v.ok ? [] : v.errors }).toEqual({ f, errors: [] });
      if (v.ok) expect(v.config.maxTurns).toBeGreaterThanOrEqual(DEFAULT_TRAIN_CONFIG.maxTurns);
    }
  });

  it('npm run train: errorReward and judgeOn from flags override the config; bad values exit 2 listing each', () => {
    const a = parseCliArgs(TRAIN_CLI, ['--error-reward', 'zero-episode', '--judge-on', 'real', '--variant', 'standard-grpo', '--seed', '3']);
    if (a === 'help') throw new Error('unexpected help');
    expect(specFromArgs({ errorReward: 'keep-completed-turns', steps: 7 }, a)).toEqual({ errorReward: 'zero-episode', judgeOn: 'real', variant: 'standard-grpo', seed: 3, steps: 7 });
    try { parseCliArgs(TRAIN_CLI, ['--error-reward', 'zero', '--judge-on', 'shown', '--variant', 'nope', '--stpes', '2']); throw new Error('accepted'); } catch (e) {
      expect(e).toBeInstanceOf(CliArgsError);
      expect((e as CliArgsError).problems.join('\n')).toMatch(/stpes/);
    }
    for (const argv of [['--error-reward', 'zero'], ['--judge-on', 'shown'], ['--variant', 'nope']]) {
      expect(() => parseCliArgs(TRAIN_CLI, argv)).toThrow(CliArgsError);
    }
  });

  it('the Train page offers the same two options, reference first', () => {
    expect([...ERROR_REWARD_RULES]).toEqual([...ERROR_REWARDS]);
    expect([...JUDGE_ON_CHOICES]).toEqual([...JUDGE_ON]);
    const st = parseHash('#/train?t.errrew=zero-episode&t.judgeon=real');
    expect(st.ignored).toEqual([]);
    expect([st.settings['t.errrew'], st.settings['t.judgeon']]).toEqual(['zero-episode', 'real']);
    expect(parseHash('#/train').settings['t.errrew']).toBe(DEFAULT_TRAIN_CONFIG.errorReward);
    expect(parseHash('#/train').settings['t.judgeon']).toBe(DEFAULT_TRAIN_CONFIG.judgeOn);
  });

  it('same seed gives the same step metrics; the update changes the weights', async () => {
    const a = trainer({ seed: 5, temperature: 1 });
    const b = trainer({ seed: 5, temperature: 1 });
    const before = a.actParams()['lm_head.weight'].slice();
    const ma = await a.trainStep();
    const mb = await b.trainStep();
    for (const k of ['reward', 'rows', 'tokens', 'loss', 'entropy', 'gradNorm'] as const) expect(ma[k]).toBe(mb[k]);
    expect(ma.rows).toBeGreaterThan(0);
    expect(Math.abs(ma.ppoKl)).toBeLessThan(1e-3); // sampler log-probs agree with the training graph (ratio ≈ 1)
    const after = a.actParams()['lm_head.weight'];
    // Advantages may all be zero on an untrained model (equal rewards); weight decay still moves weights.
    expect(after.some((x, i) => x !== before[i])).toBe(true);
  });

  it('checkpoint round trip: a resumed run continues exactly', async () => {
    const store = new MemoryCheckpointStore();
    const a = trainer({ seed: 7 }, store);
    await a.trainStep();
    await a.saveCheckpoint();
    const m2a = await a.trainStep();
    const b = trainer({ seed: 7 }, store);
    expect(await b.resume()).toBe(true);
    expect(b.step).toBe(1);
    const m2b = await b.trainStep();
    expect(m2b.loss).toBe(m2a.loss);
    expect(m2b.reward).toBe(m2a.reward);
    expect(Array.from(b.actParams()['lm_head.weight'])).toEqual(Array.from(a.actParams()['lm_head.weight']));
  });

  it('NaN guard skips a poisoned update and keeps the weights', async () => {
    const params = initParams(cfg, 3);
    params['model.norm.weight'] = params['model.norm.weight'].map(() => NaN);
    const t = trainer({ seed: 2 }, undefined, params);
    const before = t.actParams()['lm_head.weight'].slice();
    const m = await t.trainStep();
    expect(m.skipped).toBe(true);
    expect(m.note).toMatch(/non-finite/);
    expect(Array.from(t.actParams()['lm_head.weight'])).toEqual(Array.from(before));
  });

  it('per-role variant trains two models on their own rows', async () => {
    const t = trainer({ seed: 4, variant: 'per-role' });
    const actBefore = t.actParams()['lm_head.weight'].slice();
    const rehBefore = t.rehearseParams()['lm_head.weight'].slice();
    await t.trainStep();
    expect(t.actParams()).not.toBe(t.rehearseParams());
    expect(t.actParams()['lm_head.weight'].some((x, i) => x !== actBefore[i])).toBe(true);
    expect(rehBefore.length).toBe(t.rehearseParams()['lm_head.weight'].length);
  });
});
