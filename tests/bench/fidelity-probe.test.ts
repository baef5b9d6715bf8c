import { describe, expect, it } from 'vitest';
import { TINY_PROFILE, rolloutSettings } from '../../src/agent/profile';
import {
  buildProbes, labelProbe, RECALL_F1, scoreProbes, selectProbes, shownHints, summarizeProbes, type Probe,
} from '../../src/agent/probes';
import { hintsBlock, referenceHints, rehearsePrompt, type Hint } from '../../src/agent/prompts';
import { formatRehearse } from '../../src/agent/protocol';
import { rollout } from '../../src/agent/rollout';
import { compactFormat } from '../../src/agent/chatTemplate';
import { expertGenerator, FakeGenerator, fakeCount, KvEnv, kvTask, type Responder } from '../../src/agent/testing';
import { clusterBootstrap, runFidelityProbe, statsJson, worldProbeSet } from '../../src/bench/fidelity-probe';
import type { Message, Task, ToolCall } from '../../src/envs/types';
import { getWorld } from '../../src/envs/worlds/index';

const obs = (text: string, error = false) => ({ text, error });
const hint = (name: string, args: Record<string, unknown>, result: unknown): Hint =>
  ({ name, arguments: args, result: typeof result === 'string' ? result : JSON.stringify(result) });

/** Three reads of different keys: with same-tool hints capped at 2, the third read's result is in no hint. */
function threeReads(): Task {
  const state = { a: 'apple', b: 'banana', c: 'cherry' };
  const reference: Message[] = [{ role: 'user', content: 'Read a, b and c.' }];
  for (const key of ['a', 'b', 'c'] as const) {
    const call: ToolCall = { name: 'get', arguments: { key } };
    reference.push({ role: 'assistant', content: '', toolCalls: [call] });
    reference.push({ role: 'tool', name: 'get', content: JSON.stringify({ key, value: state[key] }) });
  }
  reference.push({ role: 'assistant', content: 'apple, banana, cherry' });
  return {
    id: 'kv-reads', world: 'kv', split: 'test', difficulty: 1, userTurns: ['Read a, b and c.'], policy: 'You read a key-value store.',
    reference,
    checklist: [[{ id: 't0.0', question: 'answer', focus_on: 'reply', pass_condition: { kind: 'reply_contains', text: ['cherry'] }, weight: 1, required_for_next_turn: false }]],
    makeEnv: () => new KvEnv({ ...state }),
    verify: () => ({ passed: true, reason: 'read-only' }),
  };
}

// Untrimmed Act history: expertAct (used to check prompt identity with a real rollout) counts assistant turns.
const kvSettings = { rehearsePrompt: { hints: 'same-tool' as const, maxHints: 2 }, rehearse: { maxNewTokens: 64 } };
const kvBuild = (seed = 0, count = 10) => buildProbes([kvTask(), threeReads()], { rollout: kvSettings, maxContext: 1 << 20, countTokens: fakeCount, seed, count });

/** A Rehearse role that copies the result of the first example its prompt shows ({} when it shows none). */
const copyFirstHint: Responder = (req) => {
  const m = /Examples:\n[^\n]*\n=> ([^\n]*)/.exec(req.prompt);
  return formatRehearse(undefined, m ? m[1] : {});
};

describe('fidelity probe labels (hand-made cases)', () => {
  const real = obs(JSON.stringify({ order_id: '#W1', status: 'cancelled', total: 10, items: ['mug', 'pen'] }));
  it('an identical result in a shown hint is recall, also when only the text form differs', () => {
    expect(labelProbe(real, [hint('get_order', { id: '#W1' }, { items: ['mug', 'pen'], order_id: '#W1', status: 'cancelled', total: 10 })]).label).toBe('recall');
    expect(labelProbe(obs('ok'), [hint('touch', {}, { result: 'ok' })]).label).toBe('recall');
  });
  it('a hint holding most key fields (field F1 >= 0.5) is recall; fewer is inference', () => {
    // 4 of 5 pairs agree (status differs): F1 0.8.
    const l = labelProbe(real, [hint('get_order', { id: '#W1' }, { order_id: '#W1', status: 'pending', total: 10, items: ['mug', 'pen'] })]);
    expect(l.label).toBe('recall');
    expect(l.bestHintF1).toBeCloseTo(0.8, 6);
    // 1 of 5 agree: F1 0.2.
    const far = labelProbe(real, [hint('get_order', { id: '#W2' }, { order_id: '#W2', status: 'pending', total: 10, items: ['cup'] })]);
    expect(far.label).toBe('inference');
    expect(far.bestHintF1).toBeLessThan(RECALL_F1);
  });
  it('the boundary: exactly RECALL_F1 is recall', () => {
    // real {a,b}, hint {a,c}: precision 1/2, recall 1/2, F1 0.5.
    expect(labelProbe(obs('{"a":1,"b":2}'), [hint('t', {}, { a: 1, c: 3 })]).label).toBe('recall');
    expect(labelProbe(obs('{"a":1,"b":2}'), [hint('t', {}, { a: 1, c: 3, d: 4 })]).label).toBe('inference');
  });
  it('no shown hint is inference; the best of several hints decides', () => {
    expect(labelProbe(real, [])).toEqual({ label: 'inference', bestHintF1: 0, bestHint: -1 });
    const l = labelProbe(obs('{"x":1}'), [hint('t', {}, { y: 2 }), hint('t', {}, { x: 1 })]);
    expect(l).toEqual({ label: 'recall', bestHintF1: 1, bestHint: 1 });
  });
  it('shownHints reads the hints a prompt really shows, including the ladder\'s same-tool fallback', () => {
    const hs = [hint('ls', {}, { files: ['a'] }), hint('cd', { folder: 'x' }, { cwd: 'x' }), hint('ls', { a: true }, { files: ['a', 'b'] })];
    const call = { name: 'ls', arguments: {} };
    const input = { tools: [], hints: hs, conversation: [], rawAct: '', call };
    const all = rehearsePrompt(compactFormat, input, { maxHints: 2 });
    expect(shownHints(all, hs, call, { maxHints: 2 })).toEqual(hs.slice(0, 2));
    const same = rehearsePrompt(compactFormat, input, { hints: 'same-tool', maxHints: 2 });
    expect(shownHints(same, hs, call, { maxHints: 2 })).toEqual([hs[0], hs[2]]);
    expect(shownHints(rehearsePrompt(compactFormat, input, { hints: false }), hs, call, { hints: false })).toEqual([]);
    // No examples block at all: the ladder's last rung (hints dropped to fit the budget).
    expect(shownHints('no examples here', hs, call, {})).toEqual([]);
    expect(() => shownHints('Examples:\nsomething else\n\n', hs, call, {})).toThrow(/Examples/);
  });
  it('hand-made tasks: the third read under a two-hint cap is recall (its matching hint is shown first, whatever the cap)', async () => {
    const set = await kvBuild();
    const byId = Object.fromEntries(set.probes.map((p) => [p.id, p.label]));
    expect(byId).toEqual({ 'kv-1#0': 'recall', 'kv-1#1': 'recall', 'kv-reads#0': 'recall', 'kv-reads#1': 'recall', 'kv-reads#2': 'recall' });
    expect(set.pool).toEqual({ calls: 5, tasks: 2, recall: 5, inference: 0 });
    // The capped prompt of the third read shows its own hint first.
    const third = set.probes.find((p) => p.id === 'kv-reads#2')!;
    expect(third.hints[0]).toEqual(expect.objectContaining({ name: third.call.name, arguments: third.call.arguments }));
  });
});

describe('fidelity probe set', () => {
  const files = () => getWorld('files').tasks({ split: 'test', count: 12 });
  const build = (seed: number, count = 16) => buildProbes(files(), { rollout: rolloutSettings(TINY_PROFILE), maxContext: 1024, countTokens: fakeCount, seed, count });

  it('is deterministic in the seed, balanced by label, and drawn from held-out tasks', async () => {
    const a = await build(3), b = await build(3), c = await build(4);
    expect(b.probes.map((p) => [p.id, p.label, p.prompt, p.promptNoHints])).toEqual(a.probes.map((p) => [p.id, p.label, p.prompt, p.promptNoHints]));
    expect(b.fingerprint).toBe(a.fingerprint);
    expect(c.fingerprint).not.toBe(a.fingerprint);
    expect(a.probes).toHaveLength(16);
    const inf = a.probes.filter((p) => p.label === 'inference').length;
    expect(inf).toBe(Math.min(8, a.pool.inference));
    expect(a.probes.every((p) => /^files-\d+#\d+$/.test(p.id) && getWorld('files').splitOf(Number(p.id.slice(6).split('#')[0])) === 'test')).toBe(true);
    // A smaller set from the same seed is part of the larger one (per label, hash order).
    const small = selectProbes(a.probes, 3, 6).map((p) => p.id);
    expect(small.every((id) => a.probes.some((p) => p.id === id))).toBe(true);
  });

  it('prompts are byte-identical to the Rehearse prompts of a rehearsal rollout', async () => {
    const tasks = [kvTask(), threeReads()];
    const set = await kvBuild();
    const trs = await rollout(tasks.map((task) => ({ task })), { ...kvSettings, mode: 'rehearsal', policy: expertGenerator(tasks), seed: 0, act: { temperature: 0 }, rehearse: { temperature: 0, maxNewTokens: 64 } });
    const rolled = new Set(trs.flatMap((t) => t.rows.filter((r) => r.role === 'rehearse').map((r) => r.prompt)));
    expect(set.probes.length).toBe(5);
    for (const p of set.probes) expect(rolled.has(p.prompt)).toBe(true);
  });

  it('hints-off prompts contain no hint text; hints-on prompts show exactly the labelled hints', async () => {
    const set = await build(0, 24);
    for (const p of set.probes) {
      expect(p.promptNoHints).not.toContain('Examples:');
      const task = getWorld('files').task(Number(p.taskId.slice(6)));
      for (const h of referenceHints(task.reference)) expect(p.promptNoHints).not.toContain(`${h.name} ${JSON.stringify(h.arguments)}\n=> `);
      expect(p.prompt).toContain(hintsBlock(p.hints));
      // Nothing else differs: the call to execute is the same.
      expect(p.promptNoHints.slice(p.promptNoHints.indexOf('Call to execute:'))).toBe(p.prompt.slice(p.prompt.indexOf('Call to execute:')));
    }
  });
});

describe('fidelity probe scoring', () => {
  const byPrompt = (probes: Probe[]) => new Map(probes.flatMap((p) => [[p.prompt, p], [p.promptNoHints, p]] as [string, Probe][]));

  it('a Rehearse role that echoes the real result scores exact 1 with hints on and off', async () => {
    const set = await kvBuild();
    const map = byPrompt(set.probes);
    const echo = new FakeGenerator((req) => formatRehearse('echo', map.get(req.prompt)!.real.text));
    for (const hints of [true, false]) {
      const s = summarizeProbes(await scoreProbes(echo, set.probes, { hints, maxNewTokens: 64 }));
      expect(s.overall.calls).toBe(5);
      expect([s.overall.exactRate, s.recall.exactRate, s.overall.meanF1, s.overall.errorAgreeRate]).toEqual([1, 1, 1, 1]);
      expect(s.inference.calls).toBe(0);
    }
  });

  it('copying the first hint scores high on recall and low on inference (files world)', async () => {
    const set = await worldProbeSet({ world: 'files', profile: TINY_PROFILE, maxContext: 1024, countTokens: fakeCount, seed: 1, count: 40, poolTasks: 30 });
    // The hints are the reference calls the probes come from, and the matching one is always shown first: every
    // probe is recall, and copying the first hint is exact.
    expect(set.probes.every((p) => p.label === 'recall')).toBe(true);
    const gen = new FakeGenerator(copyFirstHint);
    const report = await runFidelityProbe(gen, set, { hints: 'both', maxNewTokens: 320, batchSize: 16 });
    const on = report.hints_on!, off = report.hints_off!;
    expect(on.recall.exact).toBe(1);
    expect(report.truncated).toEqual({ hints_on: 0, hints_off: 0 });
    void RECALL_F1;
    // Without hints there is nothing to copy.
    expect(off.recall.field_f1!).toBeLessThan(on.recall.field_f1!);
    // (A blind {} is still right for tools that return nothing, so hints-off exact is small, not 0.)
    expect(off.overall.exact!).toBeLessThan(on.overall.exact!);
    // The model-free baseline agrees with the fake copier run through the generator.
    expect(report.copy_first_hint.recall.field_f1).toBeCloseTo(on.recall.field_f1!, 6);
    expect(report.probes.recall + report.probes.inference).toBe(set.probes.length);
    // What the hints add, paired per probe: all of the copier's recall score, and its interval excludes 0.
    expect(report.hints_effect!.recall!.mean).toBeCloseTo(on.recall.field_f1! - off.recall.field_f1!, 3);
    expect(report.hints_effect!.recall!.ci95[0]).toBeGreaterThan(0);
    const ci = report.ci95.hints_on!.recall.field_f1!;
    expect(ci.ci95[0]).toBeLessThanOrEqual(ci.mean);
    expect(ci.ci95[1]).toBeGreaterThanOrEqual(ci.mean);
  });

  it('cluster bootstrap: tasks are resampled whole; deterministic in the seed; null without values', () => {
    expect(clusterBootstrap([], [])).toBeNull();
    expect(clusterBootstrap([0.5, 0.5, 0.5], ['a', 'b', 'b'])).toEqual({ mean: 0.5, ci95: [0.5, 0.5] });
    // Task a: three probes at 1; task b: one at 0. Resampling tasks gives means of 0, 0.75 or 1 only.
    const e = clusterBootstrap([1, 1, 1, 0], ['a', 'a', 'a', 'b'], { seed: 3 })!;
    expect(e.mean).toBe(0.75);
    expect(e.ci95).toEqual([0, 1]);
    expect(clusterBootstrap([1, 1, 1, 0], ['a', 'a', 'a', 'b'], { seed: 3 })).toEqual(e);
    // With every probe its own cluster the interval is narrower than with one cluster per task.
    const xs = Array.from({ length: 40 }, (_, i) => (i < 20 ? 1 : 0));
    const own = clusterBootstrap(xs, xs.map((_, i) => `t${i}`))!;
    const two = clusterBootstrap(xs, xs.map((_, i) => (i < 20 ? 'a' : 'b')))!;
    expect(own.ci95[1] - own.ci95[0]).toBeLessThan(two.ci95[1] - two.ci95[0]);
  });

  it('a label without probes reports null rates, not zeros', () => {
    expect(statsJson({ calls: 0, exactRate: 0, meanF1: 0, errorAgreeRate: 0 })).toEqual({ n: 0, exact: null, field_f1: null, error_agree: null });
  });
});

describe("the trainer's scheduled evaluation", () => {
  it('records recall and inference fidelity from the probe subset, keeping the existing fields', async () => {
    const [{ PROTOCOL_TOKENS }, { makeConfig, initParams }, { nodeRuntime }, { BPETokenizer, DEFAULT_SPECIAL_TOKENS, trainBPE }, { DEFAULT_TRAIN_CONFIG, GrpoTrainer }] = await Promise.all([
      import('../../src/agent/chatTemplate'), import('../../src/engine/decoder'), import('../../src/engine/runtime-node'),
      import('../../src/engine/tokenizer'), import('../../src/rl/trainer'),
    ]);
    const evalTasks = getWorld('files').tasks({ split: 'test', count: 2 });
    const corpus = evalTasks.flatMap((t) => t.reference.map((m) => m.content)).join('\n');
    const tokenizer = new BPETokenizer(trainBPE(corpus, { vocabSize: 300, specialTokens: DEFAULT_SPECIAL_TOKENS, addedTokens: PROTOCOL_TOKENS }));
    const config = makeConfig('tiny', { vocab_size: tokenizer.vocabSize, max_position_embeddings: 1024, hidden_size: 32, intermediate_size: 64, num_hidden_layers: 1 });
    const ids = { eos: tokenizer.json.added_tokens.find((t) => t.content === '<|end|>')!.id, pad: 0 };
    const profile = { ...TINY_PROFILE, act: { maxNewTokens: 8 }, rehearse: { maxNewTokens: 8 }, limits: { maxAssistantTurns: 1, maxGenerations: 3, minNewTokens: 4 } };
    const make = (evalProbes: number) => new GrpoTrainer({ ...DEFAULT_TRAIN_CONFIG, evalTasks: 2, evalProbes, checkpointEvery: 0 }, {
      runtime: nodeRuntime(), config, params: initParams(config, 3), tokenizer, ids, profile,
      trainTasks: () => evalTasks, evalTasks, runId: 'probe-test',
    });
    const e = await make(2).evaluate();
    for (const k of ['success', 'checklist', 'passAtK', 'fidelityF1', 'fidelityExact', 'errorAgree'] as const) expect(Number.isFinite(e[k])).toBe(true);
    expect((e.recallProbes ?? 0) + (e.inferenceProbes ?? 0)).toBe(2);
    expect(e.recallProbes).toBeGreaterThan(0);
    for (const k of ['noHintsF1', 'noHintsExact'] as const) { expect(e[k]).toBeGreaterThanOrEqual(0); expect(e[k]).toBeLessThanOrEqual(1); }
    for (const k of ['recallF1', 'recallExact', 'inferenceF1', 'inferenceExact'] as const) {
      // A label without probes has no score (null), never a made-up 0.
      if ((k.startsWith('recall') ? e.recallProbes : e.inferenceProbes) === 0) { expect(e[k]).toBeNull(); continue; }
      expect(e[k]).toBeGreaterThanOrEqual(0);
      expect(e[k]).toBeLessThanOrEqual(1);
    }
    const { validateTrainConfig } = await import('../../src/rl/trainer');
    expect(validateTrainConfig({ evalProbes: 0 }).ok).toBe(true);
    expect(validateTrainConfig({ evalProbes: -1 }).ok).toBe(false);
  }, 60_000);
});
