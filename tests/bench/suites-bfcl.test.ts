// BFCL-v4 multi-turn as a suite (src/bench/suites/bfcl.ts): the ground-truth replay policy scores 100% on the
// whole BFCL_v4_multi_turn_base file (the harness's conformance check: it fails loudly when the data is
// missing), through the library and through `npm run eval -- --suite bfcl`; a policy that does less or
// something else fails the entries BFCL's checker fails; miss_func withholds functions until their turn and
// opens that turn with BFCL's fixed message; floats stay floats from the Act output to the executed call.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeAct, SuiteInputError, type AgentRequest, type SuiteAgent } from '../../src/bench/suites/agent';
import { ADDITIONAL_FUNCTION_PROMPT, bfclReport, groundTruthAgent, groundTruthBlock, runBfclSuite, type BfclSuiteData } from '../../src/bench/suites/bfcl';
import { formatPythonCall } from '../../src/envs/bfcl/parser';
import { loadCategory, loadFuncDocs } from '../../src/envs/bfcl/loader';
import { modelAgent } from '../../src/bench/suites/agent';
import { ScriptedGenerator } from '../../src/agent/expert';
import { compactFormat } from '../../src/agent/chatTemplate';

const DATA = resolve(process.cwd(), '../shared/data/bfcl');
const Q = `${DATA}/BFCL_v4_multi_turn_base.json`;
const A = `${DATA}/possible_answer/BFCL_v4_multi_turn_base.json`;
const DOCS = `${DATA}/multi_turn_func_doc`;
const BOOT = { resamples: 500, seed: 1 };
let data: BfclSuiteData;

beforeAll(() => {
  for (const f of [Q, A, DOCS]) if (!existsSync(f)) throw new Error(`BFCL conformance data missing: ${f} (expected ../shared/data/bfcl next to the repository)`);
  data = { items: loadCategory(Q, A), funcDocs: loadFuncDocs(DOCS) };
});

/** An agent from a function of each request (one output per request). */
const scripted = (f: (r: AgentRequest) => string, seen?: AgentRequest[]): SuiteAgent => ({
  name: 'test', act: async (reqs) => reqs.map((r) => { seen?.push(structuredClone(r)); return { text: f(r), finishReason: 'scripted' as const }; }),
});

describe('BFCL suite: the ground-truth replay policy (conformance)', () => {
  it('scores 100% on the whole BFCL_v4_multi_turn_base file (200 entries, 8 backend classes)', async () => {
    expect(data.items).toHaveLength(200);
    const r = await runBfclSuite(data, groundTruthAgent(data), { k: 1, seed: 0, yieldToEventLoop: false });
    const failed = r.entries.filter((e) => !e.valid[0]).map((e) => `${e.id}: ${e.errors[0]} at turn ${e.failedTurn[0]}`);
    expect(failed).toEqual([]);
    const rep = bfclReport(r, { model: 'ground-truth', questions: Q, k: 1, temperature: 0, topP: 1, seed: 0, protocol: 'replay' }, BOOT);
    expect(rep.n_entries).toBe(200);
    expect(rep.accuracy).toEqual({ mean: 1, ci95: [1, 1] });
    expect(rep.verdicts).toEqual({ valid: 200 });
    expect(Object.keys(rep.per_class).sort()).toEqual(['GorillaFileSystem', 'MathAPI', 'MessageAPI', 'TicketAPI', 'TradingBot', 'TravelAPI', 'TwitterAPI', 'VehicleControlAPI']);
    // Every ground-truth call was executed live (1142 calls in the file).
    expect(r.entries.reduce((s, e) => s + e.calls[0], 0)).toBe(1142);
  });

  it('npm run eval -- --suite bfcl --model ground-truth prints the same per-entry results as the library', async () => {
    const out = execFileSync('npx', ['tsx', 'src/cli/eval.ts', '--suite', 'bfcl', '--questions', Q, '--answers', A, '--model', 'ground-truth',
      '--k', '1', '--temperature', '0', '--offset', '20', '--limit', '6', '--per-task', '--json'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    const printed = JSON.parse(out);
    const r = await runBfclSuite(data, groundTruthAgent(data), { k: 1, seed: 0, offset: 20, limit: 6, yieldToEventLoop: false });
    expect(printed.per_entry.map((e: { id: string }) => e.id)).toEqual(data.items.slice(20, 26).map((x) => x.question.id));
    expect(printed.per_entry).toEqual(r.entries.map(({ decoded: _d, ...rest }) => rest));
    expect(printed.accuracy.mean).toBe(1);
  }, 120_000);

  it('bad input is a structured error listing every problem', async () => {
    const broken: BfclSuiteData = { items: data.items.slice(0, 2).map((x, i) => (i === 0 ? { ...x, answer: { ...x.answer, ground_truth: x.answer.ground_truth.slice(1) } } : x)), funcDocs: { MathAPI: data.funcDocs.MathAPI } };
    const err = await runBfclSuite(broken, groundTruthAgent(broken), { k: 0, seed: 0 }).catch((e) => e);
    expect(err).toBeInstanceOf(SuiteInputError);
    const text = (err as SuiteInputError).problems.join('\n');
    expect(text).toMatch(/k must be a positive integer/);
    expect(text).toMatch(/no function docs for TwitterAPI, GorillaFileSystem/);
    expect(text).toMatch(/multi_turn_base_0: 4 question turns but 3 ground-truth turns/);
    const far = await runBfclSuite(data, groundTruthAgent(data), { k: 1, seed: 0, offset: 500 }).catch((e) => e);
    expect((far as SuiteInputError).problems).toEqual(['no entries from offset 500 (the file has 200)']);
  });
});

describe('BFCL suite: the loop and the scoring', () => {
  it('a policy that only replies fails every entry with an empty turn; one that skips a call fails the state or response check', async () => {
    const few = { ...data, items: data.items.slice(0, 8) };
    const silent = await runBfclSuite(few, scripted(() => 'I cannot do that.'), { k: 1, seed: 0, yieldToEventLoop: false });
    expect(silent.entries.every((e) => e.errors[0] === 'multi_turn:empty_turn_model_response' && e.failedTurn[0] === 0)).toBe(true);
    // The ground truth minus the last call of turn 0 (when it has two or more).
    const gt = groundTruthAgent(few);
    const lossy: SuiteAgent = { name: 'lossy', act: async (reqs) => (await gt.act(reqs)).map((o, i) => {
      const m = reqs[i].meta as { turn: number; step: number };
      if (m.turn !== 0 || m.step !== 0) return o;
      const blocks = o.text.split('\n<tool_call>\n').filter(Boolean);
      return blocks.length > 1 ? { ...o, text: blocks.slice(0, -1).map((b) => `\n<tool_call>\n${b}`).join('') } : o;
    }) };
    const r = await runBfclSuite(few, lossy, { k: 1, seed: 0, yieldToEventLoop: false });
    const multi = few.items.filter((x) => x.answer.ground_truth[0].length > 1).map((x) => x.question.id);
    expect(multi.length).toBeGreaterThan(0);
    for (const e of r.entries) {
      if (multi.includes(e.id)) {
        expect(e.valid[0]).toBe(false);
        expect(e.failedTurn[0]).toBe(0);
        expect(['multi_turn:instance_state_mismatch', 'multi_turn:execution_response_mismatch']).toContain(e.errors[0]);
      } else expect(e.valid[0]).toBe(true);
    }
  });

  it('more than maxSteps executed steps in a turn force-terminates the entry (BFCL: count > MAXIMUM_STEP_LIMIT)', async () => {
    const few = { ...data, items: data.items.slice(0, 2) };
    const looping = scripted(() => '\n<tool_call>\n{"name": "ls", "arguments": {}}\n</tool_call>');
    const r = await runBfclSuite(few, looping, { k: 1, seed: 0, maxSteps: 3, yieldToEventLoop: false });
    for (const e of r.entries) {
      expect(e.steps[0]).toBe(4);
      expect(e.errors[0]).toBe('multi_turn:force_terminated');
    }
  });

  it('miss_func: a function is withheld until its turn, which opens with BFCL\'s fixed message; the replay still scores 100%', async () => {
    // A miss_func-shaped entry from base_0: an empty question turn 1 at which the ground truth of turn 1 becomes callable.
    const base = data.items[0];
    const gt1 = base.answer.ground_truth[1];
    const fname = gt1[0].split('(')[0];
    const q = { ...base.question, id: 'multi_turn_miss_func_0', question: [base.question.question[0], [], ...base.question.question.slice(2)], missed_function: { 1: [fname] } };
    const item = { question: q, answer: { id: q.id, ground_truth: base.answer.ground_truth } };
    const d: BfclSuiteData = { items: [item], funcDocs: data.funcDocs };
    const seen: AgentRequest[] = [];
    const gt = groundTruthAgent(d);
    const spy: SuiteAgent = { name: 'spy', act: async (reqs) => { seen.push(...structuredClone(reqs)); return gt.act(reqs); } };
    const r = await runBfclSuite(d, spy, { k: 1, seed: 0, yieldToEventLoop: false });
    expect(r.entries[0].valid).toEqual([true]);
    const at = (turn: number) => seen.find((s) => (s.meta as { turn: number }).turn === turn && (s.meta as { step: number }).step === 0)!;
    expect(at(0).tools.map((t) => t.name)).not.toContain(fname);
    expect(at(1).tools.map((t) => t.name)).toContain(fname);
    expect(at(1).conversation.at(-1)).toEqual({ role: 'user', content: ADDITIONAL_FUNCTION_PROMPT });
    const rep = bfclReport(r, { model: 'gt', questions: 'x', k: 1, temperature: 0, topP: 1, seed: 0, protocol: 'replay' }, BOOT);
    expect(Object.keys(rep.per_category)).toEqual(['multi_turn_miss_func']);
  });

  it('k samples per entry: accuracy is the share of passing samples; per category and per class', async () => {
    const few = { ...data, items: data.items.slice(0, 4) };
    const gt = groundTruthAgent(few);
    // Sample 1 of every entry stays silent: each entry passes 1 of 2.
    const half: SuiteAgent = { name: 'half', act: async (reqs) => (await gt.act(reqs)).map((o, i) => ((reqs[i].meta as { sample: number }).sample === 1 ? { ...o, text: 'no' } : o)) };
    const r = await runBfclSuite(few, half, { k: 2, seed: 0, yieldToEventLoop: false });
    expect(r.entries.map((e) => e.valid)).toEqual(few.items.map(() => [true, false]));
    const rep = bfclReport(r, { model: 'half', questions: 'x', k: 2, temperature: 1, topP: 1, seed: 0, protocol: 'Avg@2' }, BOOT);
    expect(rep.accuracy.mean).toBe(0.5);
    expect(rep.pass_at_k.mean).toBe(1);
    const classes = new Set(few.items.flatMap((x) => x.question.involved_classes));
    expect(Object.keys(rep.per_class).sort()).toEqual([...classes].sort());
    for (const c of Object.values(rep.per_class)) expect(c.accuracy.mean).toBe(0.5);
  });

  it('a model agent: its Act prompt lists the turn\'s tools and conversation; its tool results come back as tool messages', async () => {
    // Replies after a tool result, else calls pwd (the last role tag before the generation prompt decides).
    const lastRole = (p: string) => [...p.matchAll(/<\|(user|tool|assistant|system)\|>/g)].at(-2)?.[1];
    const gen = new ScriptedGenerator((req) => (lastRole(req.prompt) === 'tool' ? 'All done.' : '\n<tool_call>\n{"name":"pwd","arguments":{}}\n</tool_call>'));
    const few = { ...data, items: data.items.slice(0, 1) };
    const agent = modelAgent(gen, { format: compactFormat, maxNewTokens: 64, temperature: 0, topP: 1 });
    const r = await runBfclSuite(few, agent, { k: 1, seed: 0, yieldToEventLoop: false });
    const first = gen.batches[0][0].prompt;
    expect(first).toContain('pwd(');
    expect(first).toContain(String((few.items[0].question.question[0][0] as { content: string }).content));
    // Per turn: a pwd call, then a reply after its result.
    expect(r.entries[0].decoded![0].map((t) => t.map((s) => s.join(';')))).toEqual(few.items[0].question.question.map(() => ['pwd()']));
    expect(gen.batches[1][0].prompt).toContain('<|tool|>{"current_working_directory": "/workspace"}');
  });
});

describe('decoding Act output into BFCL calls', () => {
  it('floats stay floats and positional ground-truth arguments get their names', () => {
    const d = decodeAct('\n<tool_call>\n{"name": "set_temp", "arguments": {"t": 5.0, "n": 5, "l": [1.5, 2]}}\n</tool_call>');
    expect(d.kind).toBe('calls');
    expect(d.kind === 'calls' && d.calls.map(formatPythonCall)).toEqual(['set_temp(t=5.0, n=5, l=[1.5, 2])']);
    const block = groundTruthBlock("sort('final_report.pdf')", data.funcDocs.GorillaFileSystem);
    const back = decodeAct(block);
    expect(back.kind === 'calls' && back.calls.map(formatPythonCall)).toEqual(["sort(file_name='final_report.pdf')"]);
    expect(decodeAct('\n<tool_call>\n{"name": "x", "arguments": {]\n</tool_call>').kind).toBe('error');
    expect(decodeAct('<think>hm</think>\nJust text.')).toEqual({ kind: 'reply', content: 'Just text.' });
  });
});
