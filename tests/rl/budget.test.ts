// The real-environment budget (issue 11 §2): a share p of tool calls is executed in the real environment
// instead of rehearsed. p = 0 must be today's EnvACE rollout, p = 1 must be the real-mode rollout, and which
// calls are real must be a deterministic draw per (seed, task, sample, step, call).
import { beforeAll, describe, expect, it } from 'vitest';
import { rollout, rolloutGroups, type RolloutConfig } from '../../src/agent/rollout';
import { formatAct, formatRehearse } from '../../src/agent/protocol';
import { FakeGenerator, byRole, expertAct, expertGenerator, kvTask, type Responder } from '../../src/agent/testing';
import type { Trajectory } from '../../src/agent/types';
import { profileFromConfig } from '../../src/agent/profile';
import { loadModelFolder, type ModelFolder } from '../../src/engine/modelFolder';
import { nodeRuntime } from '../../src/engine/runtime-node';
import { getWorld } from '../../src/envs/worlds/index';
import { DEFAULT_TRAIN_CONFIG, GrpoTrainer, validateTrainConfig, type TrainConfig } from '../../src/rl/trainer';
import { BASE, BUDGET_FORMAT, budgetMarkdown, cumulativeRealCalls, summarizeBudget, type RunResult } from '../../src/cli/ablation';
import type { EvalReport, TaskScore } from '../../src/bench/evaluation';
import { parseCliArgs, CliArgsError } from '../../src/cli/args';
import { specFromArgs, TRAIN_CLI } from '../../src/cli/train';
import { ABLATION_CLI } from '../../src/cli/ablation';

const tasks = Array.from({ length: 30 }, (_, i) => kvTask(`kv-${i}`, `key${i}`, `value${i}`));
const task = tasks[0];
/** A Rehearse role that always imagines the same recognisable result, so a shown result tells who produced it. */
const IMAGINED = { imagined: true };
const liar: Responder = () => formatRehearse(undefined, IMAGINED);
const gen = () => new FakeGenerator(byRole(expertAct(tasks), liar));
const cfg = (over: Partial<RolloutConfig> = {}): RolloutConfig => ({ mode: 'rehearsal', policy: gen(), seed: 7, ...over });
const toolTexts = (t: Trajectory) => t.messages.filter((m) => m.role === 'tool').map((m) => m.content);
const calls = (t: Trajectory) => t.rows.filter((r) => r.role === 'act').reduce((s, r) => s + (r.calls?.length ?? 0), 0);
const rehearseRows = (t: Trajectory) => t.rows.filter((r) => r.role === 'rehearse').length;

describe('rollout: realFraction', () => {
  it('p = 0 is the plain rehearsal rollout: no real call, one Rehearse row per call', async () => {
    const plain = await rolloutGroups(tasks.slice(0, 4), 2, cfg());
    const zero = await rolloutGroups(tasks.slice(0, 4), 2, cfg({ realFraction: 0 }));
    expect(zero).toEqual(plain);
    for (const t of zero) {
      expect(t.realCalls).toBe(0);
      expect(calls(t)).toBeGreaterThan(0);
      expect(rehearseRows(t)).toBe(calls(t));
      expect(toolTexts(t).every((c) => c === JSON.stringify(IMAGINED))).toBe(true);
    }
  });

  it('p = 1: no Rehearse row and the tool results, rows and verdict of mode real', async () => {
    const [one] = await rollout([{ task }], cfg({ realFraction: 1 }));
    const [real] = await rollout([{ task }], cfg({ mode: 'real' }));
    expect(rehearseRows(one)).toBe(0);
    expect(one.realCalls).toBe(2);
    expect(real.realCalls).toBe(2);
    expect(one.messages).toEqual(real.messages);
    expect(toolTexts(one)).toEqual(['{"ok":true,"key":"key0","value":"value0"}', '{"key":"key0","value":"value0"}']);
    expect(one.rows.map((r) => r.outputIds)).toEqual(real.rows.map((r) => r.outputIds));
    expect(one.verdict).toEqual(real.verdict);
    expect(one.reward).toBe(real.reward);
  });

  it('intermediate p: deterministic per seed, different across seeds, share of real calls near p', async () => {
    const p = 0.3;
    const run = (seed: number) => rolloutGroups(tasks, 4, cfg({ realFraction: p, seed }));
    const a = await run(1);
    const again = await run(1);
    const other = await run(2);
    expect(again).toEqual(a);
    const pattern = (ts: Trajectory[]) => ts.map((t) => t.rows.filter((r) => r.role === 'rehearse').map((r) => r.parent).join(',')).join('|');
    expect(pattern(other)).not.toBe(pattern(a));
    const total = a.reduce((s, t) => s + calls(t), 0);
    const real = a.reduce((s, t) => s + (t.realCalls ?? 0), 0);
    expect(total).toBe(240);
    // Every call is either real (its result shown as the environment's) or rehearsed (one Rehearse row, imagined result).
    for (const t of a) {
      expect((t.realCalls ?? 0) + rehearseRows(t)).toBe(calls(t));
      expect(toolTexts(t).filter((c) => c !== JSON.stringify(IMAGINED)).length).toBe(t.realCalls);
    }
    // Binomial(240, 0.3): sd ≈ 7.1 calls; ±4 sd.
    expect(Math.abs(real / total - p)).toBeLessThan(0.12);
  });

  it('several calls in one Act output: real and rehearsed calls reach the environment in their order', async () => {
    const three = formatAct('three', [
      { name: 'set', arguments: { key: 'a', value: '1' } },
      { name: 'set', arguments: { key: 'a', value: '2' } },
      { name: 'get', arguments: { key: 'a' } },
    ]);
    const act: Responder = (req) => (req.prompt.split('<|assistant|>').length === 2 ? three : 'a is 2.');
    const one = { ...task, userTurns: task.userTurns.slice(0, 1), checklist: task.checklist.slice(0, 1) };
    // Find seeds whose draw mixes real and rehearsed calls in the one output.
    let mixed = 0;
    for (let seed = 0; seed < 40 && mixed < 3; seed++) {
      const [t] = await rollout([{ task: one }], { mode: 'rehearsal', policy: new FakeGenerator(byRole(act, liar)), seed, realFraction: 0.5 });
      if (t.realCalls === 0 || t.realCalls === 3) continue;
      mixed++;
      const shown = toolTexts(t);
      // The get, if real, sees the second set whether that set was real or only shadow-executed.
      if (!t.rows.some((r) => r.role === 'rehearse' && r.callIndex === 2)) expect(shown[2]).toBe('{"key":"a","value":"2"}');
      else expect(t.rows.find((r) => r.callIndex === 2)?.real?.text).toBe('{"key":"a","value":"2"}');
      expect(rehearseRows(t) + t.realCalls!).toBe(3);
    }
    expect(mixed).toBe(3);
  });

  it('rejects p outside [0, 1] and a budget without an environment', async () => {
    await expect(rollout([{ task }], cfg({ realFraction: 1.5 }))).rejects.toThrow(/realFraction/);
    await expect(rollout([{ task }], cfg({ realFraction: -0.1 }))).rejects.toThrow(/realFraction/);
    await expect(rollout([{ task }], cfg({ realFraction: Number.NaN }))).rejects.toThrow(/realFraction/);
    await expect(rollout([{ task }], cfg({ realFraction: 0.5, shadow: false }))).rejects.toThrow(/shadow/);
  });

  it('fidelity of the rehearsed calls is still measured', async () => {
    const ts = await rolloutGroups(tasks.slice(0, 8), 2, { mode: 'rehearsal', policy: expertGenerator(tasks), seed: 3, realFraction: 0.5 });
    const reh = ts.flatMap((t) => t.rows.filter((r) => r.role === 'rehearse'));
    expect(reh.length).toBeGreaterThan(0);
    expect(reh.every((r) => r.fidelity?.exact === true && r.real !== undefined)).toBe(true);
  });
});

describe('TrainConfig.realFraction', () => {
  it('validation accepts [0, 1] and rejects anything else', () => {
    expect(validateTrainConfig({}).ok && DEFAULT_TRAIN_CONFIG.realFraction === 0).toBe(true);
    for (const p of [0, 0.25, 1]) expect(validateTrainConfig({ realFraction: p }).ok).toBe(true);
    for (const p of [-0.01, 1.01, Number.NaN, '0.5' as unknown as number, null as unknown as number]) {
      const v = validateTrainConfig({ realFraction: p });
      expect(v.ok).toBe(false);
      if (!v.ok) expect(v.errors.join('\n')).toMatch(/realFraction must be a number in \[0, 1\]/);
    }
  });
});

describe('command lines', () => {
  it('train --real-fraction reaches the spec; ablation --budget takes shares in [0, 1]', () => {
    const a = parseCliArgs(TRAIN_CLI, ['--real-fraction', '0.25']);
    if (a === 'help') throw new Error('unexpected help');
    expect(specFromArgs({ steps: 3 }, a)).toEqual({ steps: 3, realFraction: 0.25 });
    expect(() => parseCliArgs(TRAIN_CLI, ['--real-fraction', '2'])).toThrow(CliArgsError);
    const b = parseCliArgs(ABLATION_CLI, ['--budget', '0,0.1,0.25,0.5,1']);
    if (b === 'help') throw new Error('unexpected help');
    expect(b.budget).toEqual([0, 0.1, 0.25, 0.5, 1]);
    expect(b['budget-variant']).toBe('envace');
    expect(() => parseCliArgs(ABLATION_CLI, ['--budget', '0,1.5'])).toThrow(/budget/);
    expect(() => parseCliArgs(ABLATION_CLI, ['--budget', '0.5', '--budget-variant', 'grpo-real'])).toThrow(/budget-variant/);
  });
});

describe('trainer: realCalls per step (tiny model)', () => {
  const world = getWorld('files');
  const pool = world.tasks({ split: 'train', count: 8 });
  let folder: ModelFolder;
  beforeAll(async () => { folder = await loadModelFolder('models/envace-tiny'); });
  const trainer = (over: Partial<TrainConfig>) => new GrpoTrainer({
    ...DEFAULT_TRAIN_CONFIG, seed: 1, tasksPerStep: 2, groupSize: 2, maxTurns: 3, microBatch: 8, evalTasks: 1, checkpointEvery: 0, ...over,
  }, {
    runtime: nodeRuntime(), config: folder.config, params: folder.params, tokenizer: folder.tokenizer, ids: folder.ids,
    profile: profileFromConfig(folder.rawConfig),
    trainTasks: ({ step, count }) => Array.from({ length: count }, (_, i) => pool[(step * count + i) % pool.length]),
    evalTasks: pool.slice(0, 1), runId: 'budget',
  });

  it('p = 0 spends none; p = 1 spends as many as GRPO on the real environment, with no Rehearse rows', async () => {
    const zero = await trainer({ variant: 'envace', realFraction: 0 }).trainStep();
    expect(zero.realCalls).toBe(0);
    const one = await trainer({ variant: 'envace', realFraction: 1 }).trainStep();
    const real = await trainer({ variant: 'grpo-real' }).trainStep();
    // Same seeds, same generation indices: the p = 1 rollout is the real-mode rollout call for call.
    expect(real.realCalls).toBeGreaterThan(0);
    expect(one.realCalls).toBe(real.realCalls);
    expect(one.rows).toBe(real.rows);
    expect(one.rewardRehearse).toBe(0);
  }, 300_000);
});

describe('ablation: the budget sweep summary', () => {
  const seeds = [1, 2, 3];
  const T = 30;
  /** Per-task success rising with p; real calls per step 10·p + seed so every seed differs. */
  function run(p: number | undefined, seed: number): RunResult {
    const lift = p === undefined ? 0 : 0.1 + 0.3 * p; // never reaches 1: no clipping
    const perTask: TaskScore[] = Array.from({ length: T }, (_, t) => {
      const v = Math.min(1, ((t * 7) % 10) / 20 + lift + seed * 0.01);
      return { task: `files-${t}`, samples: 2, success: v, outcome: v, checklist: v, passAtK: v > 0 ? 1 : 0, fidelityF1: null, terminations: [] };
    });
    const curve = p === undefined ? [] : [1, 2, 3].map((step) => ({ step, realCalls: Math.round(10 * p) + seed }));
    return { variant: p === undefined ? BASE : 'envace', seed, steps: p === undefined ? 0 : 3, secondsPerStep: p === undefined ? null : 2, report: { n_tasks: T } as EvalReport, perTask, curve, evals: [], ...(p === undefined ? {} : { realFraction: p }) };
  }
  const opts = { variant: 'envace', fractions: [0, 0.5, 1], seeds, steps: 3, world: 'files', resamples: 300 };

  it('real calls per point, share of p = 1, paired differences to base and to p = 1', () => {
    expect(cumulativeRealCalls([{ realCalls: 2 }, {}, { realCalls: 3 }])).toEqual([2, 2, 5]);
    const runs = [...seeds.map((s) => run(undefined, s)), ...opts.fractions.flatMap((p) => seeds.map((s) => run(p, s)))];
    const b = summarizeBudget(runs, opts);
    expect(b.format).toBe(BUDGET_FORMAT);
    expect(b.points.map((pt) => pt.real_fraction)).toEqual([0, 0.5, 1]);
    const [zero, half, one] = b.points;
    // p = 0: seed s spends 3·s real calls (the fake curve), p = 1: 3·(10 + s).
    expect(zero!.real_calls).toEqual({ mean: 6, per_seed: [3, 6, 9] });
    expect(one!.real_calls.mean).toBe(36);
    expect(half!.real_calls_vs_full).toBeCloseTo(21 / 36, 10);
    expect(one!.real_calls_vs_full).toBe(1);
    expect(one!.vs_full).toBeNull();
    expect(zero!.vs_full!.success.mean).toBeCloseTo(-0.3, 6);
    expect(zero!.vs_full!.success.ci95[1]).toBeLessThan(0);
    expect(zero!.vs_base!.success.mean).toBeCloseTo(0.1, 6);
    expect(b.base!.real_calls).toBe(0);
    expect(b.runs).toHaveLength(9);
    expect(b.runs.find((r) => r.real_fraction === 1 && r.seed === 2)!.real_calls_cumulative).toEqual([12, 24, 36]);
    const md = budgetMarkdown(b);
    expect(md.split('\n').filter((l) => l.startsWith('| ')).length).toBe(1 + 1 + 3);
  });

  it('a share with an unfinished seed is left out; without p = 1 there is no share of full', () => {
    const runs = [...seeds.map((s) => run(undefined, s)), ...seeds.map((s) => run(0, s)), run(0.5, 1), run(0.5, 2)];
    const b = summarizeBudget(runs, { ...opts, fractions: [0, 0.5] });
    expect(b.points.map((pt) => pt.real_fraction)).toEqual([0]);
    expect(b.points[0]!.real_calls_vs_full).toBeNull();
    expect(b.points[0]!.vs_full).toBeNull();
  });
});
