// τ²-bench as a suite (src/bench/suites/tau2.ts): the mock domain end to end with the scripted user (the gold
// actions score every task whose reward they can earn; a policy that does nothing earns only what needs no
// action), τ²'s stop signals and limits (user stop, agent stop, agent error, too many errors, max steps; the
// last two score 0), and a model user prompted with τ²'s user-simulator layout (guidelines + scenario, roles
// flipped, tool traffic hidden). Retail's test split replayed with the gold actions scores 1 on all 40 tasks.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { compactFormat } from '../../src/agent/chatTemplate';
import { ScriptedGenerator } from '../../src/agent/expert';
import { SuiteInputError, type AgentRequest, type SuiteAgent } from '../../src/bench/suites/agent';
import { FIRST_AGENT_MESSAGE, runTau2Suite, tau2GroundTruthAgent, tau2Report, USER_GUIDELINES, type Tau2User } from '../../src/bench/suites/tau2';
import { loadTau2Domain } from '../../src/envs/tau2/fs';
import type { Tau2Domain } from '../../src/envs/tau2/domain';

const DATA = resolve(process.cwd(), '../shared/data/tau2');
let mock: Tau2Domain;
const BOOT = { resamples: 500, seed: 1 };
const scriptedUser: Tau2User = { kind: 'scripted' };
const say = (f: (r: AgentRequest) => string): SuiteAgent => ({ name: 'test', act: async (reqs) => reqs.map((r) => ({ text: f(r), finishReason: 'scripted' as const })) });

beforeAll(() => {
  for (const d of ['mock', 'retail']) if (!existsSync(`${DATA}/${d}/db.json`)) throw new Error(`τ² data missing: ${DATA}/${d} (expected ../shared/data/tau2 next to the repository)`);
  mock = loadTau2Domain(`${DATA}/mock`);
});

describe('τ² suite on the mock domain with the scripted user', () => {
  it('the gold actions earn reward 1 on every task they can solve; the env-assertion task without actions stays at 0', async () => {
    const r = await runTau2Suite(mock, tau2GroundTruthAgent(mock), scriptedUser, { k: 1, seed: 0, split: 'test', yieldToEventLoop: false });
    expect(r.splitSource).toBe('all tasks (the domain has no split file)');
    const rewards = Object.fromEntries(r.tasks.map((t) => [t.task, t.reward]));
    expect(rewards).toEqual({
      create_task_1: 1, create_task_1_with_env_assertions: 1, create_task_1_nl_eval: 1, update_task_1: 1, update_task_with_message_history: 1,
      update_task_with_initialization_data: 1, update_task_with_initialization_actions: 1, update_task_with_history_and_env_assertions: 0, impossible_task_1: 1,
    });
    expect(r.tasks.every((t) => t.terminations[0] === 'user_stop')).toBe(true);
    // Without a history the conversation opens with τ²'s greeting, then the user's request.
    const m = r.tasks[0].messages![0];
    expect(m[0]).toEqual({ role: 'assistant', content: FIRST_AGENT_MESSAGE });
    expect(m[1].role).toBe('user');
    expect(m[2]).toMatchObject({ role: 'assistant', content: null, tool_calls: [{ name: 'create_task' }] });
    const rep = tau2Report(r, { model: 'gt', user: 'scripted', domain: 'mock', split: 'test', k: 1, temperature: 0, topP: 1, seed: 0, protocol: 'replay' }, BOOT, true);
    expect(rep.reward.mean).toBeCloseTo(8 / 9, 12);
    expect(rep.pass_hat_k).toEqual({ 1: 8 / 9 });
    expect(rep.per_task).toHaveLength(9);
  });

  it('a policy that only talks earns nothing where actions are required', async () => {
    const r = await runTau2Suite(mock, say(() => 'I see. Let me think about that.'), scriptedUser, { k: 2, seed: 0, split: 'test', yieldToEventLoop: false });
    const byTask = Object.fromEntries(r.tasks.map((t) => [t.task, t.rewards]));
    expect(byTask.create_task_1).toEqual([0, 0]);
    expect(byTask.update_task_1).toEqual([0, 0]);
    // No actions, no env assertions, nothing to communicate: τ² gives 1 (its NL assertions need an LLM judge).
    expect(byTask.create_task_1_nl_eval).toEqual([1, 1]);
  });

  it('stop signals and limits: agent stop, agent error, too many errors and max steps (the last two score 0)', async () => {
    const one = { ...mock, tasks: mock.tasks.filter((t) => t.id === 'create_task_1') };
    const run = (agent: SuiteAgent, extra = {}) => runTau2Suite(one, agent, scriptedUser, { k: 1, seed: 0, split: 'test', yieldToEventLoop: false, ...extra });
    expect((await run(say(() => 'Goodbye ###STOP###'))).tasks[0].terminations).toEqual(['agent_stop']);
    expect((await run(say(() => '\n<tool_call>\n{"name": oops}\n</tool_call>'))).tasks[0].terminations).toEqual(['agent_error']);
    const gt = tau2GroundTruthAgent(one);
    // The right call first (the DB would match), then failing calls until the error limit.
    const failing: SuiteAgent = { name: 'f', act: async (reqs) => (await gt.act(reqs)).map((o, i) => ((reqs[i].meta as { step: number }).step === 0 ? o : { ...o, text: '\n<tool_call>\n{"name": "no_such_tool", "arguments": {}}\n</tool_call>' })) };
    const errs = await run(failing, { maxErrors: 3 });
    expect(errs.tasks[0].terminations).toEqual(['too_many_errors']);
    expect(errs.tasks[0].rewards).toEqual([0]);
    const steps = await run(gt, { maxSteps: 3 });
    expect(steps.tasks[0].terminations).toEqual(['max_steps']);
    expect(steps.tasks[0].rewards).toEqual([0]);
  });

  it('bad input: an unknown split or an offset past the end is a structured error', async () => {
    const retail = loadTau2Domain(`${DATA}/retail`);
    const e1 = await runTau2Suite(retail, tau2GroundTruthAgent(retail), scriptedUser, { k: 1, seed: 0, split: 'dev' }).catch((e) => e);
    expect(e1).toBeInstanceOf(SuiteInputError);
    expect((e1 as SuiteInputError).problems[0]).toMatch(/split 'dev' is not in split_tasks.json \(it has train, test, base\)/);
    const e2 = await runTau2Suite(mock, tau2GroundTruthAgent(mock), scriptedUser, { k: 1, seed: 0, split: 'test', offset: 9 }).catch((e) => e);
    expect((e2 as SuiteInputError).problems).toEqual(["no tasks from offset 9 (split 'test' has 9)"]);
  });
});

describe('τ² suite: a model plays the user', () => {
  it('the user model sees the guidelines and the scenario, the agent\'s text as "user" and never the tool traffic; its stop token ends the run', async () => {
    const user = new ScriptedGenerator((req) => (req.prompt.includes('created') ? 'Thanks! ###STOP###' : 'Please create a task called Important Meeting for user_1.'));
    const one = { ...mock, tasks: mock.tasks.filter((t) => t.id === 'create_task_1') };
    const gt = tau2GroundTruthAgent(one);
    const agent: SuiteAgent = { name: 'gt', act: async (reqs) => (await gt.act(reqs)).map((o) => (o.text === 'Done. The agent confirmed the task was created successfully.' ? { ...o, text: 'Your task was created.' } : o)) };
    const r = await runTau2Suite(one, agent, { kind: 'model', name: 'scripted-user', generator: user, format: compactFormat, maxNewTokens: 64, temperature: 0, topP: 1 }, { k: 1, seed: 0, split: 'test', yieldToEventLoop: false });
    expect(r.tasks[0].terminations).toEqual(['user_stop']);
    expect(r.generations.user).toBe(2);
    const first = user.batches[0][0].prompt;
    expect(first.startsWith(`<|system|>${USER_GUIDELINES}\n\n<scenario>\nPersona:\n`)).toBe(true);
    expect(first).toContain(`<|user|>${FIRST_AGENT_MESSAGE}<|end|>`);
    const second = user.batches[1][0].prompt;
    expect(second).toContain('<|assistant|>Please create a task called Important Meeting for user_1.<|end|>');
    expect(second).toContain('<|user|>Your task was created.<|end|>');
    expect(second).not.toContain('create_task');
    expect(second).not.toContain('<|tool|>');
    // The DB matches, but "The agent confirmed…" was never said: COMMUNICATE fails, reward 0.
    expect(r.tasks[0].dbMatch).toEqual([true]);
    expect(r.tasks[0].rewards).toEqual([0]);
  });
});

describe('τ² retail with the gold actions and the scripted user', () => {
  it('all 40 test tasks score 1 (the loop, the DB replay and the evaluator agree)', async () => {
    const retail = loadTau2Domain(`${DATA}/retail`);
    const r = await runTau2Suite(retail, tau2GroundTruthAgent(retail), scriptedUser, { k: 1, seed: 0, split: 'test', yieldToEventLoop: false });
    expect(r.splitSource).toBe('split_tasks.json');
    expect(r.tasks).toHaveLength(40);
    expect(r.tasks.filter((t) => t.reward !== 1).map((t) => t.task)).toEqual([]);
  }, 60_000);
});
