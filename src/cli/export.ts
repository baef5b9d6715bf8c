// npm run export -- --world files|retail --split train|test --tasks N --format envace --out DIR
// Writes the built-in world's tasks in the form the reference trainer (Within-yao/EnvACE on verl) reads:
//   DIR/<world>_<split>.parquet   data.train_files / data.val_files (agent_system/dataset/checklist_dataset.py)
//   DIR/<world>_<split>.json      the same rows as a JSON list
//   DIR/tool_dataset.json         every DIR/<world>_<split>.json merged: env.checklist.dataset_path, which must
//                                 hold the train and the validation tasks (the tool cache is keyed by task id)
// docs/scale-out.md has the trainer's command lines for these files.

import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cliArgs, defineCli } from './args';
import { progress } from './util';
import { getWorld, taskData, worldNames } from '../envs/worlds/index';
import { taskToEnvaceRow, writeEnvaceParquet, type EnvaceRow } from '../envs/export/index';

const def = defineCli({
  name: 'export',
  summary: 'Write built-in world tasks as parquet for the reference trainer (EnvACE on verl).',
  options: {
    world: { type: 'string', help: 'world', choices: worldNames(), required: true },
    split: { type: 'string', help: 'split', choices: ['train', 'test'], required: true },
    tasks: { type: 'int', help: 'number of tasks (the first N seeds of the split)', required: true, min: 1 },
    offset: { type: 'int', help: 'skip the first K tasks of the split', default: 0, min: 0 },
    format: { type: 'string', help: 'output format', choices: ['envace'], default: 'envace' },
    out: { type: 'string', help: 'output folder', required: true },
    json: { type: 'boolean', help: 'print the summary as JSON' },
  },
});

const a = cliArgs(def);
const world = getWorld(a.world);
const seeds = world.seeds({ split: a.split as 'train' | 'test', count: a.tasks, offset: a.offset });
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
