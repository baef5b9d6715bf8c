// Task → row mapping for the reference trainer (Within-yao/EnvACE on verl). One row per task, shaped the way its
// ChecklistDataset and checklist environment read it:
//   messages                      the prompt (system policy + first user message); `data.prompt_key=messages`
//   data_source                   passed through to the reward manager's logs
//   extra_info.index              row index; extra_info.original_index the task id (the tool cache key, uuid)
//   extra_info.tools              OpenAI function schemas as a JSON string (the dataset and the tool cache both
//                                 json.loads a string; a row whose schemas fail verl's OpenAIFunctionToolSchema is
//                                 silently dropped there, so validateOpenAITool checks the same constraints here)
//   extra_info.messages           the whole reference conversation, OpenAI shape (assistant tool_calls with JSON
//                                 string arguments, each followed by its tool message): next user turns are replayed
//                                 from it and the simulator's few-shot (tool, arguments, result) hints come from it
//   extra_info.interaction_kwargs.checklist_list
//                                 [checklist][user turn][item]; one checklist (the reference trains with
//                                 max_num_checklist=1); items carry question, focus_on, pass_condition,
//                                 failure_examples, evidence[{snippet}], weight, required_for_next_turn
// and the columns stock verl reads (RLHFDataset with its default data.prompt_key=prompt, the default reward
// manager, the transfer-queue trainer's field list), so the same file loads without the reference's dataset class:
//   prompt                        the same two messages as `messages`
//   ability                       'agent'
//   reward_model.style            'rule'
//   reward_model.ground_truth     the checklist's exact rules as JSON ([user turn][item] {id, weight,
//                                 required_for_next_turn, pass_rule}): what a rule-based compute_score grades with
// Fields the reference ignores keep what our rule-based judge and the round trip need: the structured pass rule
// (pass_rule), our focus text (focus_detail), item ids, world/seed/split/difficulty/tags/policy.
// check.ts reads a written export back and lists the rows either reader would drop, and why.

import type { ChecklistItem, Message, PassCondition, ToolCall, ToolSchema } from '../types';
import { evaluateCondition, isErrorObservation, stepsFromMessages, type AssistantStep } from '../judges';

export interface OpenAIToolCall { id: string; type: 'function'; function: { name: string; arguments: string } }
/** One message in the reference's (OpenAI) shape; absent fields are null so every row has one Arrow struct type. */
export interface EnvaceMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
  name: string | null;
  tool_calls: OpenAIToolCall[] | null;
}
export interface EnvaceChecklistItem {
  id: string;
  question: string;
  /** The reference's vocabulary: which part of a step the judge looks at (assistant.tool_calls, assistant.content, tool.content). */
  focus_on: string;
  focus_detail: string;
  /** For an LLM judge (the reference's). */
  pass_condition: string;
  /** JSON of our PassCondition (exact, for a rule-based judge). */
  pass_rule: string;
  failure_examples: string[];
  evidence: { snippet: string }[];
  weight: number;
  required_for_next_turn: boolean;
}
export interface EnvaceRow {
  data_source: string;
  prompt: EnvaceMessage[];
  messages: EnvaceMessage[];
  ability: string;
  reward_model: { style: string; ground_truth: string };
  extra_info: {
    index: number;
    original_index: string;
    split: string;
    world: string;
    seed: number;
    difficulty: number;
    tags: string[];
    policy: string;
    tools: string;
    messages: EnvaceMessage[];
    interaction_kwargs: { checklist_list: EnvaceChecklistItem[][][] };
  };
}

/** What a row describes: the serialisable part of a world task (the same fields as worlds' taskData()). */
export interface ExportableTask {
  id: string; world: string; seed: number; split: 'train' | 'test'; difficulty: number; tags: string[];
  policy: string; tools: ToolSchema[]; userTurns: string[]; reference: Message[]; checklist: ChecklistItem[][];
}

export const DATA_SOURCE_PREFIX = 'envace-playground';
/** verl's task-family column (its examples write 'math' for GSM8K): these are multi-turn tool-using agent tasks. */
export const ABILITY = 'agent';

export function openAITool(t: ToolSchema) {
  return { type: 'function' as const, function: { name: t.name, description: t.description, parameters: t.parameters } };
}

/**
 * The constraints of verl's OpenAIFunctionToolSchema (pydantic): type str; function.name/description str;
 * parameters.type str, properties a dict of {type: str, description?: str, enum?: list[str]}, required list[str].
 * Returns the problems ([] = the reference keeps the row).
 */
export function validateOpenAITool(tool: unknown): string[] {
  const p: string[] = [];
  const isObj = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);
  if (!isObj(tool)) return ['tool is not an object'];
  if (typeof tool.type !== 'string') p.push('type must be a string');
  const f = tool.function;
  if (!isObj(f)) return [...p, 'function must be an object'];
  const name = typeof f.name === 'string' ? f.name : '?';
  if (typeof f.name !== 'string') p.push('function.name must be a string');
  if (typeof f.description !== 'string') p.push(`${name}: function.description must be a string`);
  if (f.strict !== undefined && typeof f.strict !== 'boolean') p.push(`${name}: strict must be a boolean`);
  const params = f.parameters;
  if (!isObj(params)) return [...p, `${name}: parameters must be an object`];
  if (typeof params.type !== 'string') p.push(`${name}: parameters.type must be a string`);
  if (!Array.isArray(params.required) || !params.required.every((r) => typeof r === 'string')) p.push(`${name}: parameters.required must be a list of strings`);
  if (!isObj(params.properties)) p.push(`${name}: parameters.properties must be an object`);
  else for (const [k, prop] of Object.entries(params.properties)) {
    if (!isObj(prop)) { p.push(`${name}.${k}: property must be an object`); continue; }
    if (typeof prop.type !== 'string') p.push(`${name}.${k}: type must be a single string (got ${JSON.stringify(prop.type)})`);
    if (prop.description !== undefined && prop.description !== null && typeof prop.description !== 'string') p.push(`${name}.${k}: description must be a string`);
    if (prop.enum !== undefined && prop.enum !== null && (!Array.isArray(prop.enum) || !prop.enum.every((e) => typeof e === 'string'))) {
      p.push(`${name}.${k}: enum must be a list of strings`);
    }
  }
  return p;
}

function toEnvaceMessage(m: Message, taskId: string, callCounter: { n: number }): EnvaceMessage {
  switch (m.role) {
    case 'system': case 'user':
      return { role: m.role, content: m.content, name: null, tool_calls: null };
    case 'tool':
      return { role: 'tool', content: m.content, name: m.name, tool_calls: null };
    case 'assistant':
      return {
        role: 'assistant', content: m.content, name: null,
        tool_calls: m.toolCalls?.length
          ? m.toolCalls.map((c) => ({ id: `call_${taskId}_${callCounter.n++}`, type: 'function' as const, function: { name: c.name, arguments: JSON.stringify(c.arguments) } }))
          : null,
      };
  }
}

function fromEnvaceMessage(m: EnvaceMessage): Message {
  switch (m.role) {
    case 'system': case 'user': return { role: m.role, content: m.content };
    case 'tool': {
      const error = isErrorObservation({ text: m.content, error: false });
      return { role: 'tool', name: m.name ?? '', content: m.content, ...(error ? { error: true } : {}) };
    }
    case 'assistant': {
      if (!m.tool_calls?.length) return { role: 'assistant', content: m.content };
      const toolCalls: ToolCall[] = m.tool_calls.map((c) => ({ name: c.function.name, arguments: JSON.parse(c.function.arguments) as Record<string, unknown> }));
      return { role: 'assistant', content: m.content, toolCalls };
    }
    default: throw new Error(`unknown message role ${JSON.stringify((m as { role: unknown }).role)}`);
  }
}

const describeArgs = (args?: Record<string, unknown>) => (args && Object.keys(args).length ? ` with arguments including ${JSON.stringify(args)}` : '');

/** The pass rule in words, for an LLM judge that cannot run our rule. */
export function passConditionText(c: PassCondition): string {
  switch (c.kind) {
    case 'called': return `An assistant step in this turn calls \`${c.tool}\`${describeArgs(c.args)}${c.ok ? ', and that call returns a result that is not an error' : ''}.`;
    case 'not_called': return `No assistant step in this turn calls \`${c.tool}\`${describeArgs(c.args)}.`;
    case 'reply_contains': return `The assistant's reply to the user mentions ${c.text.map((t) => JSON.stringify(t)).join(' and ')} (case-insensitive).`;
    case 'result_contains': return `A result of a \`${c.tool}\` call in this turn contains ${JSON.stringify(c.text)}.`;
  }
}

/** The reference judge's focus vocabulary (a failed tool call fails items focused on tool calls or results). */
export function focusField(c: PassCondition): string {
  switch (c.kind) {
    case 'called': case 'not_called': return 'assistant.tool_calls';
    case 'reply_contains': return 'assistant.content';
    case 'result_contains': return 'tool.content';
  }
}

/** The expert's steps that satisfy an item (what the reference calls evidence snippets). */
function evidenceFor(c: PassCondition, steps: AssistantStep[]): { snippet: string }[] {
  if (c.kind === 'not_called') return [];
  const out: { snippet: string }[] = [];
  for (const s of steps) {
    if (!evaluateCondition(c, [s]).passed) continue;
    out.push({ snippet: s.call ? JSON.stringify({ name: s.call.name, arguments: s.call.arguments }) + (c.kind === 'result_contains' && s.result ? ` -> ${s.result.text}` : '') : s.reply ?? '' });
    break;
  }
  return out;
}

export function taskToEnvaceRow(task: ExportableTask, index: number): EnvaceRow {
  const counter = { n: 0 };
  const system: Message = { role: 'system', content: task.policy };
  const conversation = [system, ...task.reference].map((m) => toEnvaceMessage(m, task.id, counter));
  const firstUser = conversation.find((m) => m.role === 'user');
  if (!firstUser) throw new Error(`task ${task.id}: the reference conversation has no user message`);
  const users = task.reference.filter((m) => m.role === 'user').map((m) => m.content);
  if (JSON.stringify(users) !== JSON.stringify(task.userTurns)) throw new Error(`task ${task.id}: userTurns differ from the user messages of the reference conversation`);
  if (task.checklist.length !== task.userTurns.length) throw new Error(`task ${task.id}: ${task.checklist.length} checklist turns for ${task.userTurns.length} user turns`);
  const tools = task.tools.map(openAITool);
  const bad = tools.flatMap(validateOpenAITool);
  if (bad.length) throw new Error(`task ${task.id}: tool schemas the reference would drop: ${bad.join('; ')}`);
  const turnSteps = stepsFromMessages(task.reference);
  const checklist: EnvaceChecklistItem[][] = task.checklist.map((items, t) => items.map((it) => ({
    id: it.id,
    question: it.question,
    focus_on: focusField(it.pass_condition),
    focus_detail: it.focus_on,
    pass_condition: passConditionText(it.pass_condition),
    pass_rule: JSON.stringify(it.pass_condition),
    failure_examples: it.failure_examples ?? [],
    evidence: evidenceFor(it.pass_condition, turnSteps[t] ?? []),
    weight: it.weight,
    required_for_next_turn: it.required_for_next_turn,
  })));
  const groundTruth = task.checklist.map((items) => items.map((it) => ({ id: it.id, weight: it.weight, required_for_next_turn: it.required_for_next_turn, pass_rule: it.pass_condition })));
  return {
    data_source: `${DATA_SOURCE_PREFIX}/${task.world}`,
    prompt: [conversation[0], firstUser],
    messages: [conversation[0], firstUser],
    ability: ABILITY,
    reward_model: { style: 'rule', ground_truth: JSON.stringify(groundTruth) },
    extra_info: {
      index, original_index: task.id, split: task.split, world: task.world, seed: task.seed, difficulty: task.difficulty,
      tags: task.tags, policy: task.policy, tools: JSON.stringify(tools), messages: conversation,
      interaction_kwargs: { checklist_list: [checklist] },
    },
  };
}

/** The inverse of taskToEnvaceRow: the task as it was exported (throws naming the field when a row is malformed). */
export function envaceRowToTask(row: EnvaceRow): ExportableTask {
  const x = row.extra_info;
  if (!x) throw new Error('row has no extra_info');
  const conv = x.messages.map(fromEnvaceMessage);
  if (conv[0]?.role !== 'system') throw new Error(`row ${x.original_index}: extra_info.messages must start with the system policy`);
  const reference = conv.slice(1);
  const tools = (JSON.parse(x.tools) as ReturnType<typeof openAITool>[]).map((t) => ({ name: t.function.name, description: t.function.description, parameters: t.function.parameters }));
  const lists = x.interaction_kwargs.checklist_list;
  if (lists.length !== 1) throw new Error(`row ${x.original_index}: expected one checklist, got ${lists.length}`);
  const checklist: ChecklistItem[][] = lists[0].map((items) => items.map((it) => {
    const item: ChecklistItem = {
      id: it.id, question: it.question, focus_on: it.focus_detail, pass_condition: JSON.parse(it.pass_rule) as PassCondition,
      weight: Number(it.weight), required_for_next_turn: it.required_for_next_turn,
    };
    if (it.failure_examples.length) item.failure_examples = it.failure_examples;
    return item;
  }));
  if (x.split !== 'train' && x.split !== 'test') throw new Error(`row ${x.original_index}: split must be train or test, got ${JSON.stringify(x.split)}`);
  return {
    id: x.original_index, world: x.world, seed: Number(x.seed), split: x.split, difficulty: Number(x.difficulty), tags: x.tags,
    policy: x.policy, tools, userTurns: reference.filter((m) => m.role === 'user').map((m) => m.content), reference, checklist,
  };
}
