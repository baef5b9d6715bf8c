// Reads an export back the way its two consumers do and says, row by row, which of them would drop it or fail on
// it, and why (`npm run export -- --check`):
//   reference   Within-yao/EnvACE agent_system/dataset/checklist_dataset.py (ChecklistDataset, data.prompt_key=messages):
//               drops a row whose extra_info.tools fail verl's OpenAIFunctionToolSchema, drops a row whose prompt
//               rendered with the tools by the chat template is over max_prompt_length − 500 tokens, then in
//               __getitem__ reads extra_info.{index, original_index, tools (a JSON string or a list: anything else
//               raises), messages, interaction_kwargs.checklist_list} and data_source; its checklist env looks the
//               task up in the tool dataset by original_index (a missing entry has no tool cache and no few-shot hints).
//   verl        stock verl RLHFDataset (data.prompt_key=prompt): drops a row whose prompt rendered without tools is
//               over max_prompt_length tokens; reads extra_info.index; the default reward manager reads data_source
//               and reward_model.ground_truth (a KeyError without them); the transfer-queue trainer selects ability.
// Pure: the CLI reads the parquet and the tool dataset and passes a token counter (the stated tokenizer).

import { validateOpenAITool } from './envace';

/** Tokens of a prompt rendered by the chat template with add_generation_prompt, with or without tool schemas. */
export type TokenCounter = (messages: { role: string; content: string }[], tools: unknown[] | null) => number;

export interface CheckOptions {
  /** data.max_prompt_length of the launch (the reference's launcher: 4000). */
  maxPromptLength: number;
  /** Task ids of the tool dataset (env.checklist.dataset_path); null: not checked. */
  toolDatasetIds: Set<string> | null;
  countTokens: TokenCounter;
}

/** ChecklistDataset filters at max_prompt_length − 500: room it keeps for the first response and tool results. */
export const REFERENCE_PROMPT_MARGIN = 500;

export type Reader = 'reference' | 'verl';
export interface RowProblem { row: number; id: string; reader: Reader; reason: string }
export interface CheckReport {
  rows: number;
  keptByReference: number;
  keptByVerl: number;
  /** Longest prompt in tokens: with the tools (what the reference filters on) and without (stock verl). */
  longestPrompt: { withTools: number; withoutTools: number };
  problems: RowProblem[];
  /** reason (numbers stripped) → rows. */
  reasons: Record<string, number>;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isStr = (v: unknown): v is string => typeof v === 'string';
const MESSAGE_ROLES = ['system', 'user', 'assistant', 'tool'];

/** A chat prompt as both datasets hand it to the chat template, or what is wrong with it. */
function promptMessages(v: unknown, column: string): { messages: { role: string; content: string }[] } | { problem: string } {
  if (!Array.isArray(v) || v.length === 0) return { problem: `${column} must be a non-empty list of messages` };
  for (const [i, m] of v.entries()) {
    if (!isObj(m) || !isStr(m.role) || !MESSAGE_ROLES.includes(m.role) || !isStr(m.content)) return { problem: `${column}[${i}] must have a role (${MESSAGE_ROLES.join('/')}) and a string content` };
  }
  return { messages: v.map((m) => ({ role: m.role as string, content: m.content as string })) };
}

function parsedTools(v: unknown): { tools: unknown[] } | { problem: string } {
  let t = v;
  if (isStr(t)) { try { t = JSON.parse(t); } catch { return { problem: 'extra_info.tools is not valid JSON' }; } }
  if (!Array.isArray(t)) return { problem: `extra_info.tools must be a JSON list or a list (got ${t === null ? 'null' : typeof t}): __getitem__ raises "Unknown tools format"` };
  return { tools: t };
}

function checklistProblems(v: unknown, userTurns: number | null): string[] {
  if (!isObj(v) || !Array.isArray(v.checklist_list) || v.checklist_list.length === 0) return ['extra_info.interaction_kwargs.checklist_list must be a non-empty list of checklists'];
  const first = v.checklist_list[0];
  if (!Array.isArray(first) || first.length === 0) return ['checklist_list[0] must be a non-empty list of user turns'];
  const p: string[] = [];
  if (userTurns !== null && first.length !== userTurns) p.push(`checklist_list[0] has ${first.length} turns for ${userTurns} user messages in extra_info.messages`);
  for (const [t, items] of first.entries()) {
    if (!Array.isArray(items) || items.length === 0) { p.push(`checklist_list[0][${t}] must be a non-empty list of items`); continue; }
    for (const [i, it] of items.entries()) {
      const ok = isObj(it) && isStr(it.question) && isStr(it.focus_on) && isStr(it.pass_condition) && typeof it.weight === 'number' && Number.isFinite(it.weight)
        && typeof it.required_for_next_turn === 'boolean' && Array.isArray(it.failure_examples) && Array.isArray(it.evidence);
      if (!ok) p.push(`checklist_list[0][${t}][${i}] lacks question/focus_on/pass_condition/weight/required_for_next_turn/failure_examples/evidence`);
    }
  }
  return p;
}

/** Every row of one exported file through both readers. */
export function checkExportRows(rows: unknown[], o: CheckOptions): CheckReport {
  const problems: RowProblem[] = [];
  const longest = { withTools: 0, withoutTools: 0 };
  let keptByReference = 0, keptByVerl = 0;
  for (const [row, r] of rows.entries()) {
    const ref: string[] = [], verl: string[] = [];
    const both = (reason: string) => { ref.push(reason); verl.push(reason); };
    const x = isObj(r) && isObj(r.extra_info) ? r.extra_info : null;
    const id = x && isStr(x.original_index) ? x.original_index : `row ${row}`;
    if (!isObj(r)) both('the row is not an object');
    else {
      if (!isStr(r.data_source) || r.data_source === '') both('data_source must be a non-empty string (the reward manager\'s reward_fn_key)');
      if (!isStr(r.ability)) verl.push('ability must be a string');
      if (!isObj(r.reward_model) || !isStr(r.reward_model.ground_truth)) verl.push('reward_model.ground_truth is missing: the default reward manager raises KeyError');
      else if (!isStr(r.reward_model.style)) verl.push('reward_model.style must be a string');
      if (!x) both('extra_info must be a struct');
      else {
        if (!Number.isInteger(x.index)) both('extra_info.index must be an integer');
        if (!isStr(x.original_index) || x.original_index === '') ref.push('extra_info.original_index must be a non-empty string (the env uuid and tool cache key)');
        else if (o.toolDatasetIds && !o.toolDatasetIds.has(x.original_index)) ref.push('missing tool cache entry: original_index is not in the tool dataset');
        const msgs = Array.isArray(x.messages) ? x.messages : null;
        if (!msgs) ref.push('extra_info.messages must be the whole conversation (the interaction\'s all_messages)');
        ref.push(...checklistProblems(x.interaction_kwargs, msgs ? msgs.filter((m) => isObj(m) && m.role === 'user').length : null));
      }
      // The reference: tool schemas first, then the length with the tools rendered.
      const tools = x ? parsedTools(x.tools) : { problem: 'extra_info.tools is missing' };
      const bad = 'tools' in tools ? tools.tools.flatMap(validateOpenAITool) : [];
      if ('problem' in tools) ref.push(tools.problem);
      else if (bad.length) ref.push(`invalid tool schema (dropped by _filter_invalid_tool_schemas): ${bad[0]}`);
      const refPrompt = promptMessages(r.messages, 'messages');
      if ('problem' in refPrompt) ref.push(refPrompt.problem);
      else if ('tools' in tools && !bad.length) {
        const n = o.countTokens(refPrompt.messages, tools.tools.length ? tools.tools : null);
        longest.withTools = Math.max(longest.withTools, n);
        const limit = o.maxPromptLength - REFERENCE_PROMPT_MARGIN;
        if (n > limit) ref.push(`prompt too long: ${n} tokens with the tools > max_prompt_length − ${REFERENCE_PROMPT_MARGIN} = ${limit}`);
      }
      const verlPrompt = promptMessages(r.prompt, 'prompt');
      if ('problem' in verlPrompt) verl.push(verlPrompt.problem);
      else {
        const n = o.countTokens(verlPrompt.messages, null);
        longest.withoutTools = Math.max(longest.withoutTools, n);
        if (n > o.maxPromptLength) verl.push(`prompt too long: ${n} tokens > max_prompt_length = ${o.maxPromptLength}`);
      }
    }
    if (!ref.length) keptByReference++;
    if (!verl.length) keptByVerl++;
    for (const reason of ref) problems.push({ row, id, reader: 'reference', reason });
    for (const reason of verl) problems.push({ row, id, reader: 'verl', reason });
  }
  const reasons: Record<string, number> = Object.create(null);
  for (const p of problems) { const k = `${p.reader}: ${p.reason.replace(/\d+/g, 'N')}`; reasons[k] = (reasons[k] ?? 0) + 1; }
  return { rows: rows.length, keptByReference, keptByVerl, longestPrompt: longest, problems, reasons };
}
