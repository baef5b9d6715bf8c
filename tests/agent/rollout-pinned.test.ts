// Pinned trajectories: a fixed set of seeded rollouts in all three modes whose complete output is reduced to
// one sha256 per scenario and compared with literal digests computed from the rollout loop as it was before
// its refactor into a state machine (issue 23). Any change to what rollout() produces — a message, a row's
// text or token ids, a finish reason, a call, an imagined or real result, fidelity, an error, the
// termination, reward or verdict — or to how it batches (the requests each generate() call received, in
// order, and the onRound events) changes a digest.
//
// Scenarios: scripted generators (src/agent/testing.ts) on the kv world and on built-in 'files' and 'retail'
// train tasks — noisy experts (parse errors, tool errors ending episodes, errorsEndEpisode off, both
// errorReward rules, judgeOn 'real'), multi-call Act outputs (valid, duplicate and unknown tools), the
// real-environment budget (realFraction 0.5), resumed histories with lastTurn and memory, the onUserTurn
// hook, limits (generation cap, assistant- and user-turn caps, prompts that do not fit), judges (none, no
// judgeEpisode, a throwing one), environments that throw; and the shipped envace-tiny model (loadModelFolder +
// samplerFromFolder) sampling on files and retail tasks in every mode.
//
// A digest changed: run with PINNED_DUMP=/some/dir on the old and new code and diff the JSON files there.
// Model scenarios leave out log-probs (floating point of the ONNX runtime; token ids are kept).

import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GenerateRequest, TextGenerator } from '../../src/engine/generator';
import { loadModelFolder } from '../../src/engine/modelFolder';
import { createNodeRuntime } from '../../src/engine/runtime-node';
import { samplerFromFolder } from '../../src/engine/sampler';
import type { Environment, Message, Observation, Task, ToolCall } from '../../src/envs/types';
import { getWorld } from '../../src/envs/worlds';
import { profileFromConfig, rolloutSettings } from '../../src/agent/profile';
import { formatAct } from '../../src/agent/protocol';
import { rollout, rolloutGroups, type RolloutConfig, type RolloutJudge, type RolloutSpec, type UserTurnStart } from '../../src/agent/rollout';
import {
  FakeGenerator, KvEnv, byRole, expertAct, kvTask, noisy, oracleRehearse, type Responder,
} from '../../src/agent/testing';
import type { Trajectory } from '../../src/agent/types';
import { judgeEpisode, judgeTurn } from '../../src/envs/judges';

// ---------------------------------------------------------------------------------------------------------
// Canonical form and digest.

function canon(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canon);
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) {
      const x = (v as Record<string, unknown>)[k];
      if (x !== undefined) out[k] = canon(x);
    }
    return out;
  }
  return v;
}

const sha = (s: string) => createHash('sha256').update(s).digest('hex');

function trajectoryRecord(t: Trajectory, withLogprobs: boolean) {
  return {
    taskId: t.taskId, groupId: t.groupId, mode: t.mode, seed: t.seed,
    messages: t.messages,
    rows: t.rows.map((r) => ({
      role: r.role, turn: r.turn, step: r.step, text: r.text, prompt: r.prompt,
      promptIds: sha(JSON.stringify(r.promptIds)), outputIds: r.outputIds, logprobs: withLogprobs ? r.logprobs : undefined,
      finishReason: r.finishReason, call: r.call, calls: r.calls, imagined: r.imagined, real: r.real, fidelity: r.fidelity,
      error: r.error, parent: r.parent, callIndex: r.callIndex, frozen: r.frozen, outputTokens: r.outputTokens,
    })),
    terminatedBy: t.terminatedBy, reward: t.reward, verdict: t.verdict, error: t.error, realCalls: t.realCalls,
  };
}

interface Log { batches: { gen: string; reqs: unknown[] }[]; rounds: unknown[]; userTurns: unknown[] }
const newLog = (): Log => ({ batches: [], rounds: [], userTurns: [] });

/** A generator that records every batch it receives (prompt digest, seed, budget, sampling, stop). */
function recording(inner: TextGenerator, log: Log, label: string): TextGenerator {
  return {
    name: inner.name,
    get maxContext() { return inner.maxContext; },
    countTokens: (text: string) => inner.countTokens(text),
    generate: (reqs: GenerateRequest[]) => {
      log.batches.push({ gen: label, reqs: reqs.map((r) => ({ ...r, prompt: sha(r.prompt) })) });
      return inner.generate(reqs);
    },
  };
}

function withLog(cfg: RolloutConfig, log: Log): RolloutConfig {
  const hook = cfg.onUserTurn;
  return {
    ...cfg,
    policy: recording(cfg.policy, log, 'policy'),
    simulator: cfg.simulator && recording(cfg.simulator, log, 'simulator'),
    onRound: (info) => { log.rounds.push(info); cfg.onRound?.(info); },
    onUserTurn: hook && (async (starts: UserTurnStart[]) => {
      log.userTurns.push(starts.map((s) => ({
        taskId: s.task.id, sample: s.sample, trajectorySeed: s.trajectorySeed, userTurn: s.userTurn, conversation: s.conversation,
        env: s.env?.snapshot(),
      })));
      return hook(starts);
    }),
  };
}

const dumpDir = process.env.PINNED_DUMP;

/** Runs each case and returns the digest of everything they produced (and dumps it when asked). */
async function digest(name: string, cases: { label: string; run: (log: Log) => Promise<Trajectory[]> }[], withLogprobs = true): Promise<string> {
  const out: unknown[] = [];
  for (const c of cases) {
    const log = newLog();
    const ts = await c.run(log);
    out.push({ label: c.label, trajectories: ts.map((t) => trajectoryRecord(t, withLogprobs)), log });
  }
  const json = JSON.stringify(canon(out));
  if (dumpDir) {
    fs.mkdirSync(dumpDir, { recursive: true });
    fs.writeFileSync(path.join(dumpDir, `${name}.json`), JSON.stringify(canon(out), null, 1));
  }
  return sha(json);
}

const run = (specs: RolloutSpec[], cfg: RolloutConfig) => (log: Log) => rollout(specs, withLog(cfg, log));
const groups = (tasks: Task[], k: number, cfg: RolloutConfig) => (log: Log) => rolloutGroups(tasks, k, withLog(cfg, log));

// ---------------------------------------------------------------------------------------------------------
// Tasks and scripted roles.

const kvTasks = [kvTask('kv-a', 'color', 'blue'), kvTask('kv-b', 'size', 'large'), kvTask('kv-c', 'shape', 'round')];
const filesTasks = getWorld('files').tasks({ split: 'train', count: 3 });
const retailTasks = getWorld('retail').tasks({ split: 'train', count: 3 });
const worldTasks: Task[] = [...filesTasks, ...retailTasks];

const scripted = (tasks: Task[], noise: number) => new FakeGenerator(byRole(noisy(expertAct(tasks), noise), noisy(oracleRehearse(tasks), noise)));
const actOnly = (tasks: Task[], noise: number) => new FakeGenerator(noisy(expertAct(tasks), noise), { name: 'policy' });
const rehOnly = (tasks: Task[], noise: number) => new FakeGenerator(noisy(oracleRehearse(tasks), noise), { name: 'sim' });

/** Per mode: the generators of a noisy expert (the simulator mode's Rehearse role is a separate model). */
function roles(mode: 'real' | 'simulator' | 'rehearsal', tasks: Task[], noise: number): Pick<RolloutConfig, 'mode' | 'policy' | 'simulator'> {
  return mode === 'simulator' ? { mode, policy: actOnly(tasks, noise), simulator: rehOnly(tasks, noise) } : { mode, policy: scripted(tasks, noise) };
}
const MODES = ['real', 'simulator', 'rehearsal'] as const;

/**
 * Act role that often answers with several calls at once: the expert's call plus, by the request's rng, a
 * repeat of it, a 'list'-like extra call of the first tool, or a call of a tool that does not exist.
 */
function multiCallAct(tasks: Task[]): Responder {
  const expert = expertAct(tasks);
  return (req, rng) => {
    const text = expert(req, rng);
    const m = /<tool_call>\s*([\s\S]*?)\s*<\/tool_call>/.exec(text);
    if (!m) return text;
    let call: ToolCall;
    try { call = JSON.parse(m[1]) as ToolCall; } catch { return text; }
    switch (rng.int(4)) {
      case 0: return text;
      case 1: return formatAct('twice', [call, call]);
      case 2: return formatAct('and a missing tool', [call, { name: 'no_such_tool', arguments: {} }]);
      default: return formatAct('three', [call, { name: call.name, arguments: {} }, call]);
    }
  };
}

// ---------------------------------------------------------------------------------------------------------
// The pinned digests (computed from the rollout loop of b4f2e74, before the state-machine refactor).

const PINNED: Record<string, string> = {
  'kv-noisy': '9fd9efa78f7e051a1aab0b161c7c1dcbd7dd7658135020bd3f5d86bf0eeff4d2',
  'worlds-noisy': '40b0e028fa5c5c8c7950c9fa208477ea115e12b348afefade5020234cd189aa0',
  'error-rules': '91fa2c355eabb9999dadec4860c0a2808f3694874b63100002f235d716c350c5',
  'multi-call': 'c5e385d5dd1a98622295d223bbbba2f93a309529ee9d191f2a0b0fd944ba9fed',
  'real-budget': 'd0816129e181318e76c912666ab6b6e4b2b38bafa21692fc4fba06e083176a64',
  'resume-memory-hook': '991c9a3aab40540fd7ce75438a4def6d5e355a136bf9640aa5b3d51f0c8e4fb4',
  'limits-judges-envs': '43c70fe80d550df94ec8c3491df2fc3c661bba04025ee501a2d0e393908a822a',
  'model-envace-tiny': 'd094276dfabb16182fb55f37bc37a46c8b0d3d69eba935172ea87d584ab2c2aa',
};

describe('pinned rollouts (scripted)', () => {
  it('rejects bad configurations with the same messages', async () => {
    const task = kvTasks[0];
    const policy = scripted(kvTasks, 0);
    await expect(rollout([{ task }], { mode: 'simulator', policy })).rejects.toThrow("rollout: mode 'simulator' needs cfg.simulator");
    await expect(rollout([{ task }], { mode: 'rehearsal', policy, realFraction: 1.5 })).rejects.toThrow('rollout: realFraction must be a number in [0, 1] (got 1.5)');
    await expect(rollout([{ task }], { mode: 'rehearsal', policy, realFraction: 0.5, shadow: false })).rejects.toThrow('rollout: realFraction > 0 executes calls on the shadow environment; it needs shadow on');
    const short: TextGenerator = { name: 'short', maxContext: 1 << 20, countTokens: (t) => t.length, generate: async () => [] };
    await expect(rollout([{ task }], { mode: 'real', policy: short })).rejects.toThrow('rollout: generator returned a different number of generations than requests');
  });

  it('kv world, noisy expert, every mode, several seeds', async () => {
    const cases = MODES.flatMap((mode) => [1, 2, 3].map((seed) => ({
      label: `${mode}/${seed}`, run: groups(kvTasks, 3, { ...roles(mode, kvTasks, 0.3), seed, act: { temperature: 0.7 } }),
    })));
    expect(await digest('kv-noisy', cases)).toBe(PINNED['kv-noisy']);
  });

  it('files and retail train tasks, noisy expert, every mode', async () => {
    const cases = MODES.flatMap((mode) => [5, 6].map((seed) => ({
      label: `${mode}/${seed}`, run: groups(worldTasks, 2, { ...roles(mode, worldTasks, 0.15), seed }),
    })));
    expect(await digest('worlds-noisy', cases)).toBe(PINNED['worlds-noisy']);
  });

  it('error rules: errorsEndEpisode off, zero-episode reward, judgeOn real, custom fatal codes', async () => {
    const variants: [string, Partial<RolloutConfig>][] = [
      ['errors-continue', { errorsEndEpisode: false }],
      ['zero-episode', { errorReward: 'zero-episode' }],
      ['judge-real', { judgeOn: 'real' }],
      ['judge-shown', { judgeOn: 'shown' }],
      ['fatal-parse-only', { fatalCodes: ['NO_TOOL_CALL_FOUND', 'JSON_DECODE_ERROR'] }],
      ['no-shadow', { shadow: false }],
    ];
    const cases = MODES.flatMap((mode) => variants.map(([label, over]) => ({
      label: `${mode}/${label}`, run: groups(worldTasks.slice(0, 4), 2, { ...roles(mode, worldTasks, 0.35), seed: 11, ...over }),
    })));
    expect(await digest('error-rules', cases)).toBe(PINNED['error-rules']);
  });

  it('multi-call Act outputs', async () => {
    const tasks = [...kvTasks, ...worldTasks];
    const cases = MODES.flatMap((mode) => [21, 22].map((seed) => {
      const policy = new FakeGenerator(mode === 'simulator' ? multiCallAct(tasks) : byRole(multiCallAct(tasks), oracleRehearse(tasks)), { name: 'policy' });
      const simulator = mode === 'simulator' ? new FakeGenerator(noisy(oracleRehearse(tasks), 0.1), { name: 'sim' }) : undefined;
      return { label: `${mode}/${seed}`, run: groups(tasks, 2, { mode, policy, simulator, seed, errorsEndEpisode: seed === 22 }) };
    }));
    expect(await digest('multi-call', cases)).toBe(PINNED['multi-call']);
  });

  it('real-environment budget (realFraction 0.5 and 1) in the imagined modes', async () => {
    const tasks = [...kvTasks, ...worldTasks];
    const cases = (['simulator', 'rehearsal'] as const).flatMap((mode) => [0.5, 1].flatMap((realFraction) => [31, 32].map((seed) => {
      const policy = new FakeGenerator(mode === 'simulator' ? noisy(multiCallAct(tasks), 0.1) : byRole(noisy(multiCallAct(tasks), 0.1), noisy(oracleRehearse(tasks), 0.2)), { name: 'policy' });
      const simulator = mode === 'simulator' ? new FakeGenerator(noisy(oracleRehearse(tasks), 0.2), { name: 'sim' }) : undefined;
      return { label: `${mode}/${realFraction}/${seed}`, run: groups(tasks, 2, { mode, policy, simulator, seed, realFraction, judgeOn: seed === 32 ? 'real' : undefined }) };
    })));
    expect(await digest('real-budget', cases)).toBe(PINNED['real-budget']);
  });

  it('resumed histories, lastTurn, memory and the onUserTurn hook', async () => {
    const kv = kvTasks[0];
    const multi = worldTasks.filter((t) => t.userTurns.length >= 2);
    expect(multi.length).toBeGreaterThan(1);
    const resumeAt = (t: Task, turn: number): Message[] => {
      // The reference conversation up to and including the user message of `turn`.
      let seen = -1;
      const out: Message[] = [];
      for (const m of t.reference) {
        if (m.role === 'user') { seen++; if (seen > turn) break; }
        out.push(m);
      }
      return out;
    };
    const specs = (): RolloutSpec[] => [
      { task: kv, sample: 0, memory: 'The user likes blue.' },
      { task: kv, sample: 1, resume: { conversation: resumeAt(kv, 1), userTurn: 1 } },
      { task: kv, sample: 2, lastTurn: 0, groupId: 'first-turn' },
      { task: multi[0], sample: 0, resume: { conversation: resumeAt(multi[0], 1), userTurn: 1 }, lastTurn: 1, memory: 'Check before acting.' },
      { task: multi[1], sample: 3, lastTurn: 0 },
      { task: multi[1], sample: 4, env: multi[1].makeEnv() },
    ];
    const hook = async (starts: UserTurnStart[]) => starts.map((s) => (s.sample % 2 === 0 ? `memo for turn ${s.userTurn} of ${s.task.id}` : undefined));
    const tasks = [...kvTasks, ...worldTasks];
    const cases = MODES.flatMap((mode) => [
      { label: `${mode}/plain`, run: run(specs(), { ...roles(mode, tasks, 0.1), seed: 41 }) },
      { label: `${mode}/hook`, run: run(specs(), { ...roles(mode, tasks, 0.1), seed: 42, onUserTurn: hook }) },
    ]);
    expect(await digest('resume-memory-hook', cases)).toBe(PINNED['resume-memory-hook']);
  });

  it('limits, judges and environments', async () => {
    const tasks = [...kvTasks, ...worldTasks];
    const g = (mode: (typeof MODES)[number]) => roles(mode, tasks, 0.2);
    const sumOnly: RolloutJudge = { judgeTurn };
    const throwing: RolloutJudge = { judgeTurn, judgeEpisode: () => { throw new Error('episode judge broke'); } };
    const strictEnd: RolloutJudge = { judgeTurn: (task, turn, steps) => ({ ...judgeTurn(task, turn, steps), terminated: turn === 0 }), judgeEpisode };
    class Throwing extends KvEnv {
      override call(name: string, args: unknown): Observation { if (name === 'get') throw new Error('get broke'); return super.call(name, args); }
      override clone(): Environment { return new Throwing({ ...this.state }); }
    }
    const throwingTask: Task = { ...kvTasks[1], id: 'kv-throws', makeEnv: () => new Throwing() };
    const empty: Task = { ...kvTasks[2], id: 'kv-empty', userTurns: [] };
    const tight = (mode: (typeof MODES)[number], maxContext: number): Pick<RolloutConfig, 'mode' | 'policy' | 'simulator'> => {
      const r = byRole(expertAct(tasks), oracleRehearse(tasks));
      return mode === 'simulator'
        ? { mode, policy: new FakeGenerator(expertAct(tasks), { maxContext }), simulator: new FakeGenerator(oracleRehearse(tasks), { maxContext }) }
        : { mode, policy: new FakeGenerator(r, { maxContext }) };
    };
    const variants: [string, (mode: (typeof MODES)[number]) => { tasks: Task[]; k: number; cfg: RolloutConfig }][] = [
      ['gen-cap', (m) => ({ tasks, k: 1, cfg: { ...g(m), seed: 51, limits: { maxGenerations: 3 } } })],
      ['assistant-cap', (m) => ({ tasks, k: 1, cfg: { ...g(m), seed: 52, limits: { maxAssistantTurns: 2 } } })],
      ['user-cap', (m) => ({ tasks, k: 1, cfg: { ...g(m), seed: 53, limits: { maxUserTurns: 1 } } })],
      ['tight-context', (m) => ({ tasks, k: 1, cfg: { ...tight(m, 700), seed: 54, act: { maxNewTokens: 64 }, rehearse: { maxNewTokens: 96 } } })],
      ['tight-min-new', (m) => ({ tasks, k: 1, cfg: { ...tight(m, 520), seed: 55, act: { maxNewTokens: 128 }, rehearse: { maxNewTokens: 64 }, limits: { minNewTokens: 8 } } })],
      ['short-budget', (m) => ({ tasks, k: 1, cfg: { ...g(m), seed: 56, act: { maxNewTokens: 12 }, rehearse: { maxNewTokens: 20 } } })],
      ['no-judge-no-prompts', (m) => ({ tasks, k: 1, cfg: { ...g(m), seed: 57, judge: null, keepPrompts: false } })],
      ['sum-judge', (m) => ({ tasks, k: 1, cfg: { ...g(m), seed: 58, judge: sumOnly } })],
      ['throwing-judge', (m) => ({ tasks, k: 1, cfg: { ...g(m), seed: 59, judge: throwing } })],
      ['strict-judge', (m) => ({ tasks, k: 1, cfg: { ...roles(m, tasks, 0), seed: 60, judge: strictEnd } })],
      ['throwing-env', (m) => ({ tasks: [throwingTask, empty, kvTasks[0]], k: 2, cfg: { ...roles(m, [throwingTask, ...kvTasks], 0.1), seed: 61 } })],
    ];
    const cases = MODES.flatMap((mode) => variants.map(([label, make]) => {
      const { tasks: ts, k, cfg } = make(mode);
      return { label: `${mode}/${label}`, run: groups(ts, k, cfg) };
    }));
    expect(await digest('limits-judges-envs', cases)).toBe(PINNED['limits-judges-envs']);
  });
});

// ---------------------------------------------------------------------------------------------------------
// The shipped tiny model, sampling.

describe('pinned rollouts (envace-tiny)', () => {
  let policy: TextGenerator & { release(): Promise<void> };
  let settings: Omit<RolloutConfig, 'mode' | 'policy'>;
  beforeAll(async () => {
    const folder = await loadModelFolder(path.resolve('models/envace-tiny'));
    policy = await samplerFromFolder(folder, createNodeRuntime({ threads: 1 }), { mode: 'fast' });
    settings = rolloutSettings(profileFromConfig(folder.rawConfig));
  });
  afterAll(async () => { await policy?.release(); });

  it('files and retail train tasks in every mode, a real budget, a resumed turn with a hook', async () => {
    const tasks = [filesTasks[0], filesTasks[1], retailTasks[0], retailTasks[1]];
    const base = (): Omit<RolloutConfig, 'mode' | 'policy'> => ({
      ...settings, seed: 3,
      act: { ...settings.act, maxNewTokens: 48, temperature: 1 }, rehearse: { ...settings.rehearse, maxNewTokens: 64, temperature: 1 },
      limits: { ...settings.limits, maxAssistantTurns: 4, maxGenerations: 10 },
    });
    const multi = tasks.find((t) => t.userTurns.length >= 2)!;
    const firstTurn = multi.reference.slice(0, multi.reference.findIndex((m, i) => i > 0 && m.role === 'user') + 1);
    const cases = [
      { label: 'real', run: groups(tasks, 2, { ...base(), mode: 'real', policy }) },
      { label: 'rehearsal', run: groups(tasks, 2, { ...base(), mode: 'rehearsal', policy }) },
      { label: 'rehearsal-budget', run: groups(tasks, 2, { ...base(), mode: 'rehearsal', policy, realFraction: 0.5, seed: 4 }) },
      { label: 'simulator', run: groups(tasks, 2, { ...base(), mode: 'simulator', policy, simulator: policy }) },
      { label: 'simulator-expert-act', run: groups(tasks, 1, { ...base(), mode: 'simulator', policy: actOnly(tasks, 0), simulator: policy, errorsEndEpisode: false }) },
      {
        label: 'resume-hook', run: run([{ task: multi, sample: 0, resume: { conversation: firstTurn, userTurn: 1 }, lastTurn: 1 }, { task: multi, sample: 1 }],
          { ...base(), mode: 'rehearsal', policy, onUserTurn: async (s) => s.map((x) => `turn ${x.userTurn}`) }),
      },
    ];
    expect(await digest('model-envace-tiny', cases, false)).toBe(PINNED['model-envace-tiny']);
  });
});
