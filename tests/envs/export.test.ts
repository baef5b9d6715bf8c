// The parquet export for the reference trainer, read back by an independent reader: parquet-wasm (the Rust
// `parquet`/`arrow` crates, the same Arrow types pyarrow — and so HF datasets — would give the trainer).
// Column names and Arrow types are compared with what agent_system/dataset/checklist_dataset.py and the
// checklist env read; the values go through the Rust decoder and back (export → Rust read → Rust re-encode →
// hyparquet read → rebuild) and must give the same tasks.

import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { AutoTokenizer, env } from '@huggingface/transformers';
import { qwen3TokenizerFiles } from '../../src/engine/hf/fixture-node';
import * as pw from 'parquet-wasm/node';
import { parquetReadObjects } from 'hyparquet';
import { getWorld, taskData } from '../../src/envs/worlds/index';
import {
  checkExportRows, envaceRowToTask, taskToEnvaceRow, validateOpenAITool, writeEnvaceParquet, type EnvaceRow, type ExportableTask, type TokenCounter,
} from '../../src/envs/export/index';

/** Arrow C Data Interface ArrowSchema (wasm32: 4-byte pointers, int64 flags/n_children at 16/24) → a type string. */
function arrowType(mem: ArrayBuffer, addr: number): { name: string; type: string } {
  const dv = new DataView(mem);
  const cstr = (p: number) => { let e = p; const u8 = new Uint8Array(mem); while (u8[e] !== 0) e++; return new TextDecoder().decode(u8.subarray(p, e)); };
  const format = cstr(dv.getUint32(addr, true));
  const name = cstr(dv.getUint32(addr + 4, true));
  const n = Number(dv.getBigInt64(addr + 24, true));
  const childrenPtr = dv.getUint32(addr + 32, true);
  const children = Array.from({ length: n }, (_, i) => arrowType(mem, dv.getUint32(childrenPtr + 4 * i, true)));
  const prim: Record<string, string> = { u: 'string', U: 'large_string', l: 'int64', i: 'int32', g: 'double', f: 'float', b: 'bool' };
  let type: string;
  if (format === '+l' || format === '+L') type = `list<${children[0].type}>`;
  else if (format === '+s') type = `struct<${children.map((c) => `${c.name}: ${c.type}`).join(', ')}>`;
  else type = prim[format] ?? `?${format}`;
  return { name, type };
}

function readArrowSchema(file: Uint8Array): { name: string; type: string }[] {
  const table = pw.readParquet(file);
  const ffi = table.schema.toFFI();
  const root = arrowType(pw.wasmMemory().buffer, ffi.addr());
  ffi.free(); table.free();
  // The root is a struct of the columns.
  const m = /^struct<(.*)>$/.exec(root.type);
  expect(m).not.toBeNull();
  const top: { name: string; type: string }[] = [];
  let depth = 0, start = 0;
  const s = m![1];
  for (let i = 0; i <= s.length; i++) {
    const ch = s[i];
    if (ch === '<') depth++;
    else if (ch === '>') depth--;
    else if ((ch === ',' && depth === 0) || i === s.length) {
      const part = s.slice(start, i).trim();
      const k = part.indexOf(': ');
      top.push({ name: part.slice(0, k), type: part.slice(k + 2) });
      start = i + 1;
    }
  }
  return top;
}

const MESSAGE = 'struct<role: string, content: string, name: string, tool_calls: list<struct<id: string, type: string, function: struct<name: string, arguments: string>>>>';
const ITEM = 'struct<id: string, question: string, focus_on: string, focus_detail: string, pass_condition: string, pass_rule: string, '
  + 'failure_examples: list<string>, evidence: list<struct<snippet: string>>, weight: double, required_for_next_turn: bool>';
/** What the reference reads (checklist_dataset.py, envs.py, interaction.py, checklist_reward.py, mcp_tool.py) + our extras. */
const EXPECTED_COLUMNS = [
  { name: 'data_source', type: 'string' },
  { name: 'prompt', type: `list<${MESSAGE}>` },
  { name: 'messages', type: `list<${MESSAGE}>` },
  { name: 'ability', type: 'string' },
  { name: 'reward_model', type: 'struct<style: string, ground_truth: string>' },
  { name: 'extra_info', type: `struct<index: int64, original_index: string, split: string, world: string, seed: int64, difficulty: int64, tags: list<string>, policy: string, tools: string, messages: list<${MESSAGE}>, interaction_kwargs: struct<checklist_list: list<list<list<${ITEM}>>>>>` },
];

const plain = (v: unknown) => JSON.parse(JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? Number(x) : x))) as unknown;

function exportTasks(world: string, split: 'train' | 'test', n: number): ExportableTask[] {
  const w = getWorld(world);
  return w.seeds({ split, count: n }).map((s) => taskData(w.task(s)));
}

describe('export to the reference trainer (envace parquet)', () => {
  for (const world of ['files', 'retail']) {
    it(`${world}: an independent reader sees the reference's columns and types; a round trip gives the same tasks`, async () => {
      const tasks = [...exportTasks(world, 'train', 12), ...exportTasks(world, 'test', 4)];
      const rows = tasks.map((t, i) => taskToEnvaceRow(t, i));
      const file = writeEnvaceParquet(rows);

      // Columns and Arrow types, from the Rust reader.
      expect(readArrowSchema(file)).toEqual(EXPECTED_COLUMNS);

      // Values through the Rust decoder: read, re-encode with the Rust writer, read that with hyparquet.
      const rustTable = pw.readParquet(file);
      expect(rustTable.recordBatches().reduce((s, b) => s + b.numRows, 0)).toBe(tasks.length);
      const reencoded = pw.writeParquet(rustTable);
      const back = plain(await parquetReadObjects({ file: reencoded.buffer.slice(reencoded.byteOffset, reencoded.byteOffset + reencoded.byteLength) as ArrayBuffer })) as EnvaceRow[];
      expect(back).toHaveLength(tasks.length);
      const rebuilt = back.map(envaceRowToTask);
      expect(rebuilt).toEqual(plain(tasks));
      // The rows read back are the rows written (nothing the reference reads is lost or reordered).
      expect(back).toEqual(plain(rows));
    });
  }

  it('rows hold what the reference code reads, in the shapes it reads them', () => {
    const [t] = exportTasks('retail', 'train', 1).filter((x) => x.userTurns.length >= 1);
    const row = taskToEnvaceRow(t, 7);
    const x = row.extra_info;
    expect(x.index).toBe(7);
    expect(x.original_index).toBe(t.id);
    // prompt (data.prompt_key=messages): system policy + the first user message
    expect(row.messages.map((m) => m.role)).toEqual(['system', 'user']);
    expect(row.messages[1].content).toBe(t.userTurns[0]);
    // stock verl: the same prompt under its default prompt_key, ability, and the rules a compute_score grades with
    expect(row.prompt).toEqual(row.messages);
    expect(row.ability).toBe('agent');
    expect(row.reward_model.style).toBe('rule');
    const truth = JSON.parse(row.reward_model.ground_truth) as { id: string; weight: number; pass_rule: unknown }[][];
    expect(truth.map((items) => items.map((it) => [it.id, it.weight, it.pass_rule]))).toEqual(t.checklist.map((items) => items.map((it) => [it.id, it.weight, it.pass_condition])));
    // tools: a JSON string of OpenAI function schemas that verl's OpenAIFunctionToolSchema accepts
    const tools = JSON.parse(x.tools) as unknown[];
    expect(tools.map((tool) => (tool as { function: { name: string } }).function.name)).toEqual(t.tools.map((s) => s.name));
    for (const tool of tools) expect(validateOpenAITool(tool)).toEqual([]);
    // all_messages: every assistant tool call is followed by exactly its tool messages (mcp_tool's few-shot cache
    // asserts this) and arguments are JSON strings; user messages are the replayed user turns
    const msgs = x.messages;
    for (let i = 0; i < msgs.length; i++) {
      const calls = msgs[i].tool_calls;
      if (!calls) continue;
      for (let j = 0; j < calls.length; j++) {
        expect(msgs[i + 1 + j].role).toBe('tool');
        expect(typeof JSON.parse(calls[j].function.arguments)).toBe('object');
      }
    }
    expect(msgs.filter((m) => m.role === 'user').map((m) => m.content)).toEqual(t.userTurns);
    // checklist_list[0][turn]: one list per user turn (max_num_turns = len(checklist_list[0])), weights sum to 1,
    // required flags kept, evidence snippets present for positive items
    const cl = x.interaction_kwargs.checklist_list;
    expect(cl).toHaveLength(1);
    expect(cl[0]).toHaveLength(t.userTurns.length);
    for (const [turn, items] of cl[0].entries()) {
      expect(items.reduce((s, it) => s + it.weight, 0)).toBeCloseTo(1, 6);
      expect(items.map((it) => it.required_for_next_turn)).toEqual(t.checklist[turn].map((it) => it.required_for_next_turn));
      for (const it of items) {
        expect(['assistant.tool_calls', 'assistant.content', 'tool.content']).toContain(it.focus_on);
        expect(it.pass_condition.length).toBeGreaterThan(10);
        if (!it.pass_condition.startsWith('No assistant step')) expect(it.evidence.length).toBe(1);
      }
    }
  });

  it("prompts fit the reference's length filter under Qwen3's own chat template with the tools", async () => {
    // ChecklistDataset drops rows whose templated prompt (with tools) exceeds max_prompt_length - 500 = 3,500
    // tokens in run_checklist_share.sh; measured here with the real Qwen3 tokenizer and template.
    const dir = join(mkdtempSync(join(tmpdir(), 'qwen3-tok-')), 'qwen3-tokenizer');
    mkdirSync(dir);
    const tok = qwen3TokenizerFiles();
    writeFileSync(join(dir, 'tokenizer.json'), tok.tokenizerJson);
    writeFileSync(join(dir, 'tokenizer_config.json'), tok.tokenizerConfigJson);
    env.allowLocalModels = true; env.allowRemoteModels = false; env.localModelPath = `${dirname(dir)}/`;
    const qwen = await AutoTokenizer.from_pretrained('qwen3-tokenizer');
    let longest = 0;
    for (const world of ['files', 'retail']) {
      for (const t of [...exportTasks(world, 'train', 40), ...exportTasks(world, 'test', 10)]) {
        const row = taskToEnvaceRow(t, 0);
        const enc = qwen.apply_chat_template(row.messages as never, { tools: JSON.parse(row.extra_info.tools), add_generation_prompt: true, tokenize: true } as never) as unknown as { input_ids: { dims: number[] } };
        longest = Math.max(longest, enc.input_ids.dims.at(-1)!);
      }
    }
    expect(longest).toBeGreaterThan(300);   // the tools block is really rendered
    expect(longest).toBeLessThanOrEqual(3500);
  }, 120_000);

  it('the verl tool-schema check rejects what the reference would silently drop', () => {
    const ok = { type: 'function', function: { name: 'f', description: 'd', parameters: { type: 'object', properties: { a: { type: 'string', enum: ['x'] } }, required: [] } } };
    expect(validateOpenAITool(ok)).toEqual([]);
    const noRequired = { type: 'function', function: { name: 'f', description: 'd', parameters: { type: 'object', properties: {} } } };
    expect(validateOpenAITool(noRequired)).toEqual(['f: parameters.required must be a list of strings']);
    const unionType = { type: 'function', function: { name: 'f', description: 'd', parameters: { type: 'object', properties: { a: { type: ['string', 'null'] } }, required: [] } } };
    expect(validateOpenAITool(unionType)[0]).toMatch(/f\.a: type must be a single string/);
    const numEnum = { type: 'function', function: { name: 'f', description: 'd', parameters: { type: 'object', properties: { a: { type: 'integer', enum: [1, 2] } }, required: [] } } };
    expect(validateOpenAITool(numEnum)).toEqual(['f.a: enum must be a list of strings']);
  });

  it('npm run export writes the parquet, the JSON rows and the merged tool dataset', () => {
    const out = mkdtempSync(join(tmpdir(), 'envace-export-'));
    const run = (args: string[]) => execFileSync('npx', ['tsx', 'src/cli/export.ts', ...args, '--out', out, '--json'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    const a = JSON.parse(run(['--world', 'files', '--split', 'train', '--tasks', '5', '--format', 'envace'])) as { tasks: number; toolDatasetTasks: number };
    const b = JSON.parse(run(['--world', 'files', '--split', 'test', '--tasks', '3'])) as { tasks: number; toolDatasetTasks: number };
    expect([a.tasks, a.toolDatasetTasks, b.tasks, b.toolDatasetTasks]).toEqual([5, 5, 3, 8]);
    const file = new Uint8Array(readFileSync(join(out, 'files_test.parquet')));
    expect(readArrowSchema(file)).toEqual(EXPECTED_COLUMNS);
    const tool = JSON.parse(readFileSync(join(out, 'tool_dataset.json'), 'utf8')) as EnvaceRow[];
    // the tool cache json.loads extra_info.tools and keys by original_index
    expect(new Set(tool.map((r) => r.extra_info.original_index)).size).toBe(8);
    expect(tool.every((r) => Array.isArray(JSON.parse(r.extra_info.tools)))).toBe(true);
    expect(() => execFileSync('npx', ['tsx', 'src/cli/export.ts', '--world', 'mars', '--split', 'train', '--tasks', '1', '--out', out], { stdio: 'pipe' })).toThrow(/world must be one of/);
    expect(() => execFileSync('npx', ['tsx', 'src/cli/export.ts', '--world', 'files', '--out', out], { stdio: 'pipe' })).toThrow(/--split is required \(unless --check\)/);

    // --check reads both files back: every row kept by both readers, under the Qwen3 tokenizer
    const check = () => {
      try { return { rc: 0, report: JSON.parse(execFileSync('npx', ['tsx', 'src/cli/export.ts', '--check', '--out', out, '--json'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })) }; }
      catch (e) { return { rc: (e as { status: number }).status, report: JSON.parse((e as { stdout: string }).stdout) }; }
    };
    type Report = { ok: boolean; tokenizer: string; files: { file: string; rows: number; keptByReference: number; keptByVerl: number; longestPrompt: { withTools: number }; problems: { reason: string }[] }[] };
    const good = check() as { rc: number; report: Report };
    expect(good.rc).toBe(0);
    expect(good.report.ok).toBe(true);
    expect(good.report.tokenizer).toMatch(/Qwen3/);
    expect(good.report.files.map((f) => [f.file.split('/').pop(), f.rows, f.keptByReference, f.keptByVerl])).toEqual([['files_test.parquet', 3, 3, 3], ['files_train.parquet', 5, 5, 5]]);
    expect(good.report.files[0].longestPrompt.withTools).toBeGreaterThan(300); // the tools block is rendered
    // without the tool dataset every row misses its tool cache entry, and the check fails
    writeFileSync(join(out, 'tool_dataset.json'), '[]');
    const bad = check() as { rc: number; report: Report };
    expect(bad.rc).toBe(1);
    expect(bad.report.ok).toBe(false);
    expect(bad.report.files.map((f) => f.keptByReference)).toEqual([0, 0]);
    expect(bad.report.files.map((f) => f.keptByVerl)).toEqual([3, 5]);
    expect(bad.report.files[0].problems[0].reason).toMatch(/missing tool cache entry/);
  }, 180_000);

  it('the check names why each reader would drop or fail on a row', () => {
    const rows = exportTasks('files', 'train', 2).map((t, i) => taskToEnvaceRow(t, i));
    const ids = new Set(rows.map((r) => r.extra_info.original_index));
    const count: TokenCounter = (messages, tools) => messages.reduce((n, m) => n + m.content.length, 0) + (tools ? 1000 : 0);
    const run = (edit: (r: any) => void, o: Partial<{ maxPromptLength: number; toolDatasetIds: Set<string> | null }> = {}) => {
      const r = structuredClone(rows[0]) as any;
      edit(r);
      return checkExportRows([r, rows[1]], { maxPromptLength: 4000, toolDatasetIds: ids, countTokens: count, ...o });
    };
    const fine = run(() => {});
    expect([fine.keptByReference, fine.keptByVerl, fine.problems]).toEqual([2, 2, []]);
    const reasons = (rep: ReturnType<typeof run>) => rep.problems.map((p) => `${p.row} ${p.reader}: ${p.reason}`);
    expect(reasons(run((r) => { delete r.reward_model; }))).toEqual(['0 verl: reward_model.ground_truth is missing: the default reward manager raises KeyError']);
    expect(reasons(run((r) => { r.extra_info.tools = '{"a":1}'; }))[0]).toMatch(/^0 reference: extra_info.tools must be a JSON list or a list .*Unknown tools format/);
    expect(reasons(run((r) => { const t = JSON.parse(r.extra_info.tools); delete t[0].function.parameters.required; r.extra_info.tools = JSON.stringify(t); }))[0])
      .toMatch(/^0 reference: invalid tool schema \(dropped by _filter_invalid_tool_schemas\): .*parameters.required/);
    expect(reasons(run(() => {}, { toolDatasetIds: new Set([rows[1].extra_info.original_index]) }))).toEqual(['0 reference: missing tool cache entry: original_index is not in the tool dataset']);
    const len = rows[0].messages.reduce((n, m) => n + m.content.length, 0);
    const long = run(() => {}, { maxPromptLength: len + 500 + 999 });
    expect(reasons(long).filter((x) => x.startsWith('0 '))).toEqual([`0 reference: prompt too long: ${len + 1000} tokens with the tools > max_prompt_length − 500 = ${len + 999}`]);
    expect(long.keptByVerl).toBe(2);
    expect(reasons(run((r) => { r.prompt = []; }))).toEqual(['0 verl: prompt must be a non-empty list of messages']);
    expect(reasons(run((r) => { r.extra_info.interaction_kwargs.checklist_list[0].pop(); }))[0]).toMatch(/^0 reference: checklist_list\[0\] has \d+ turns for \d+ user messages/);
    expect(reasons(run((r) => { r.extra_info.index = '0'; }))).toEqual(['0 reference: extra_info.index must be an integer', '0 verl: extra_info.index must be an integer']);
    expect(checkExportRows([null], { maxPromptLength: 4000, toolDatasetIds: null, countTokens: count }).keptByVerl).toBe(0);
  });
});
