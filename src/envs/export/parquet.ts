// The parquet file the reference trainer's ChecklistDataset loads (datasets.load_dataset("parquet")), written
// with hyparquet-writer under an explicit nested schema: the Arrow types a reader sees are the ones pyarrow
// would infer from the same Python rows (string, int64, double, bool, list<…>, struct<…>), so the trainer gets
// lists of dicts exactly where it calls .get() on them. Lists use the standard 3-level LIST layout
// (<name> LIST { repeated group list { element } }).

import { ByteWriter, parquetWrite } from 'hyparquet-writer';
import type { EnvaceRow } from './envace';

// hyparquet-writer's own copy of hyparquet's SchemaElement type.
type SchemaElement = NonNullable<Parameters<typeof parquetWrite>[0]['schema']>[number];

/** A small schema DSL → parquet's flattened, depth-first SchemaElement list. */
type Shape =
  | { kind: 'string' | 'int64' | 'double' | 'bool' }
  | { kind: 'list'; element: Shape }
  | { kind: 'struct'; fields: Field[] };
type Field = Shape & { name: string };

const str = (name: string): Field => ({ name, kind: 'string' });
const int64 = (name: string): Field => ({ name, kind: 'int64' });
const list = (name: string, element: Shape): Field => ({ name, kind: 'list', element });
const struct = (name: string, fields: Field[]): Field => ({ name, kind: 'struct', fields });

const messageStruct = (): Shape => ({
  kind: 'struct',
  fields: [
    str('role'), str('content'), str('name'),
    list('tool_calls', { kind: 'struct', fields: [str('id'), str('type'), struct('function', [str('name'), str('arguments')])] }),
  ],
});

const checklistItem = (): Shape => ({
  kind: 'struct',
  fields: [
    str('id'), str('question'), str('focus_on'), str('focus_detail'), str('pass_condition'), str('pass_rule'),
    list('failure_examples', { kind: 'string' }),
    list('evidence', { kind: 'struct', fields: [str('snippet')] }),
    { name: 'weight', kind: 'double' }, { name: 'required_for_next_turn', kind: 'bool' },
  ],
});

/** Column layout of one exported row (see envace.ts for what each field means to the reference code). */
export const ENVACE_FIELDS: Field[] = [
  str('data_source'),
  list('prompt', messageStruct()),
  list('messages', messageStruct()),
  str('ability'),
  struct('reward_model', [str('style'), str('ground_truth')]),
  struct('extra_info', [
    int64('index'), str('original_index'), str('split'), str('world'), int64('seed'), int64('difficulty'),
    list('tags', { kind: 'string' }), str('policy'), str('tools'),
    list('messages', messageStruct()),
    struct('interaction_kwargs', [
      list('checklist_list', { kind: 'list', element: { kind: 'list', element: checklistItem() } }),
    ]),
  ]),
];

function flatten(f: Field, out: SchemaElement[]): void {
  const optional = 'OPTIONAL' as const;
  switch (f.kind) {
    case 'string': out.push({ name: f.name, type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: optional }); return;
    case 'int64': out.push({ name: f.name, type: 'INT64', repetition_type: optional }); return;
    case 'double': out.push({ name: f.name, type: 'DOUBLE', repetition_type: optional }); return;
    case 'bool': out.push({ name: f.name, type: 'BOOLEAN', repetition_type: optional }); return;
    case 'struct':
      out.push({ name: f.name, repetition_type: optional, num_children: f.fields.length });
      for (const c of f.fields) flatten(c, out);
      return;
    case 'list':
      out.push({ name: f.name, repetition_type: optional, converted_type: 'LIST', num_children: 1 });
      out.push({ name: 'list', repetition_type: 'REPEATED', num_children: 1 });
      flatten({ ...f.element, name: 'element' }, out);
      return;
  }
}

export function envaceParquetSchema(): SchemaElement[] {
  const out: SchemaElement[] = [{ name: 'root', num_children: ENVACE_FIELDS.length }];
  for (const f of ENVACE_FIELDS) flatten(f, out);
  return out;
}

/** Parquet INT64 leaves take bigint; everything else is written as the row holds it. */
function toParquetValue(f: Field, v: unknown): unknown {
  if (v === null || v === undefined) return null;
  switch (f.kind) {
    case 'int64': return BigInt(v as number);
    case 'struct': {
      const o = v as Record<string, unknown>;
      return Object.fromEntries(f.fields.map((c) => [c.name, toParquetValue(c, o[c.name])]));
    }
    case 'list': return (v as unknown[]).map((e) => toParquetValue({ ...f.element, name: 'element' }, e));
    default: return v;
  }
}

export function writeEnvaceParquet(rows: EnvaceRow[]): Uint8Array {
  if (rows.length === 0) throw new Error('no rows to write (the parquet schema needs at least one task)');
  const writer = new ByteWriter();
  parquetWrite({
    writer,
    schema: envaceParquetSchema(),
    columnData: ENVACE_FIELDS.map((f) => ({ name: f.name, data: rows.map((r) => toParquetValue(f, (r as unknown as Record<string, unknown>)[f.name])) })),
    kvMetadata: [{ key: 'envace-playground.format', value: 'envace-checklist-v1' }],
    createdBy: 'envace-playground',
  });
  return new Uint8Array(writer.getBuffer());
}

/**
 * The reference's tool dataset (env.checklist.dataset_path, a JSON list): the same rows, read for each task's
 * candidate tools and the cached (tool, arguments) → result pairs of its reference conversation.
 */
export function envaceToolDatasetJson(rows: EnvaceRow[]): string {
  return JSON.stringify(rows);
}
