// VitaBench as a suite (src/bench/suites/vita.ts): the orchestration (fixed opening, routing, stop signals,
// step limit, invalid agent messages), the user simulator's prompt (persona + instructions, roles flipped, no
// tool traffic), the judge fed byte-exact window prompts, and the report ("not judged" without a judge); the
// Benchmarks page's picked files (matched by name, bad picks refused) and the transcripts it shows.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compactFormat } from '../../src/agent/chatTemplate';
import { ScriptedGenerator } from '../../src/agent/expert';
import { SuiteInputError, toolCallBlock, type AgentRequest, type SuiteAgent } from '../../src/bench/suites/agent';
import { NOT_JUDGED, runVitaSuite, VITA_FIRST_AGENT_MESSAGE, vitaReport, vitaTranscript, type VitaModelRole } from '../../src/bench/suites/vita';
import { VITA_FILES, vitaDataFromFiles } from '../../src/envs/vitabench/data';
import { initialRubricStates } from '../../src/envs/vitabench/evaluator';
import { loadVitaData } from '../../src/envs/vitabench/fs';

const DATA = resolve(process.cwd(), '../shared/data/vitabench');
const data = loadVitaData('delivery', DATA);
const BOOT = { resamples: 200, seed: 1 };
const say = (f: (r: AgentRequest) => string): SuiteAgent => ({ name: 'test', act: async (reqs) => reqs.map((r) => ({ text: f(r), finishReason: 'scripted' as const })) });
const role = (gen: ScriptedGenerator): VitaModelRole => ({ name: gen.name, generator: gen, format: compactFormat, maxNewTokens: 4096, temperature: 0, topP: 1 });
// One tool call, then a reply; the user states a need, then stops once the agent replies.
const agent = say((r) => (r.meta.step === 0 ? toolCallBlock('get_user_historical_behaviors', {}) : 'Your order is placed.'));
const user = () => new ScriptedGenerator((req) => (req.prompt.includes('Your order is placed.') ? 'Thanks! ###STOP###' : 'I would like some food.'));
const meta = { domain: 'delivery', model: 'test', userModel: 'u', judgeModel: 'j', k: 1, temperature: 0, topP: 1, seed: 0, protocol: 'greedy' };

describe('VitaBench suite', () => {
  it('runs the conversation, hides tool traffic from the user, and a judge meeting every rubric gives reward 1', async () => {
    const u = user();
    const judge = new ScriptedGenerator((req) => JSON.stringify([...req.prompt.matchAll(/"rubric_idx": "(rubric_\d+)"/g)].map((m) => ({ rubric_idx: m[1], justification: 'ok', meetExpectation: true }))));
    const r = await runVitaSuite(data, agent, role(u), role(judge), { k: 1, seed: 0, limit: 1, yieldToEventLoop: false });
    const t = r.tasks[0];
    expect(t.terminations).toEqual(['user_stop']);
    expect(t.tool_calls).toEqual([1]);
    expect(t.rewards).toEqual([1]);
    expect(t.rubric_fraction).toEqual([1]);
    // opening, user, agent call, tool, agent reply, user stop
    expect(t.steps).toEqual([5]);
    expect(t.messages![0].map((m) => m.role)).toEqual(['assistant', 'user', 'assistant', 'tool', 'assistant', 'user']);
    const first = u.batches[0][0].prompt;
    expect(first).toContain('<persona>\n{');
    expect(first).toContain(data.tasks[0].instructions);
    expect(first).toContain(`<|user|>${VITA_FIRST_AGENT_MESSAGE}<|end|>`);
    const second = u.batches[1][0].prompt;
    expect(second).toContain('<|assistant|>I would like some food.<|end|>');
    expect(second).not.toContain('get_user_historical_behaviors');
    const jp = judge.batches[0][0].prompt;
    expect(jp).toContain('You are evaluating window 1 (out of 1 windows total)');
    expect(jp).toContain('[3] assistant: get_user_historical_behaviors()');
    const rep = vitaReport(r, meta, BOOT, true);
    expect(rep.success).toEqual({ mean: 1, ci95: [1, 1] });
    expect(rep.pass_hat_k).toEqual({ 1: 1 });
  });

  it('without a judge the report says "not judged"; an unparsable judge reply keeps every rubric unmet', async () => {
    const r = await runVitaSuite(data, agent, role(user()), null, { k: 1, seed: 0, limit: 2, yieldToEventLoop: false });
    expect(r.tasks.map((t) => t.rewards)).toEqual([[null], [null]]);
    const rep = vitaReport(r, { ...meta, judgeModel: null }, BOOT);
    expect(rep.success).toBe(NOT_JUDGED);
    expect(rep.rubric_fraction).toBe(NOT_JUDGED);
    expect(rep.pass_hat_k).toBe(NOT_JUDGED);
    const garbage = new ScriptedGenerator(() => 'I cannot decide.');
    const g = await runVitaSuite(data, agent, role(user()), role(garbage), { k: 1, seed: 0, limit: 1, yieldToEventLoop: false });
    expect(g.tasks[0].rewards).toEqual([0]);
    expect(g.tasks[0].unparsed_windows).toEqual([1]);
    expect(initialRubricStates(data.tasks[0]).size).toBeGreaterThan(0);
  });

  it('the step limit and three unusable agent messages end the run and score 0 with no judge called', async () => {
    const chatty = new ScriptedGenerator(() => 'Tell me more.');
    const loop = await runVitaSuite(data, say(() => 'What else?'), role(chatty), null, { k: 1, seed: 0, limit: 1, maxSteps: 6, yieldToEventLoop: false });
    expect(loop.tasks[0].terminations).toEqual(['max_steps']);
    expect(loop.tasks[0].rewards).toEqual([0]);
    const empty = await runVitaSuite(data, say(() => ''), role(user()), null, { k: 1, seed: 0, limit: 1, yieldToEventLoop: false });
    expect(empty.tasks[0].terminations).toEqual(['invalid_agent_message']);
    expect(empty.tasks[0].rewards).toEqual([0]);
    const stop = await runVitaSuite(data, say(() => 'Bye ###STOP###'), role(user()), null, { k: 1, seed: 0, limit: 1, yieldToEventLoop: false });
    expect(stop.tasks[0].terminations).toEqual(['agent_stop']);
    expect(await runVitaSuite(data, agent, role(user()), null, { k: 1, seed: 0, offset: 100 }).catch((e) => e)).toBeInstanceOf(SuiteInputError);
  });

  it('the page\'s files: matched by name, the missing ones listed, the other domain\'s tasks refused; transcripts as text', async () => {
    const picked = (domain: 'delivery' | 'instore') => Object.values(VITA_FILES(domain)).map((f) => ({ name: f.split('/').pop()!, text: readFileSync(join(DATA, f), 'utf8') }));
    const files = picked('delivery');
    const got = vitaDataFromFiles('delivery', files);
    expect(got.tasks.map((t) => t.id)).toEqual(data.tasks.map((t) => t.id));
    expect(got.prompts).toEqual(data.prompts);
    expect(got.tools).toEqual(data.tools);
    expect(() => vitaDataFromFiles('delivery', files.slice(1))).toThrow(/missing tasks_en\.json/);
    const swapped = [picked('instore')[0], ...files.slice(1)];
    expect(() => vitaDataFromFiles('delivery', swapped)).toThrow(/holds in-store consumption tasks, not delivery ones/);
    expect(() => vitaDataFromFiles('instore', files)).toThrow(/missing instore\.tools\.en\.json/);
    const r = await runVitaSuite(data, agent, role(user()), null, { k: 1, seed: 0, limit: 1, yieldToEventLoop: false });
    const lines = vitaTranscript(r.tasks[0].messages![0]);
    expect(lines.map((l) => l.role)).toEqual(['assistant', 'user', 'assistant', 'tool', 'assistant', 'user']);
    expect(lines[2].text).toBe('get_user_historical_behaviors({})');
    expect(JSON.parse(JSON.stringify(lines))).toEqual(lines);
  });
});
