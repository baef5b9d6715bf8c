// VitaBench's shipped data, built from file texts (browser-safe): the English tasks of a domain, the
// tool list an agent receives, the prompt templates, and the holiday table get_date_holiday_info reads.
// Node reads these by path from ../shared/data/vitabench (./fs); nothing is bundled.

import { parsePyJson, toPlain } from '../python';
import type { VitaDomain } from './data_model';

export interface VitaExpectedState { required_orders: unknown[] | null; optional_orders: unknown[] | null; state_rubrics: string[] | null }

export interface VitaTask {
  id: string;
  domain: string;
  /** The raw `environment` (parsePyJson: floats kept as PyFloat, key order kept). */
  environment: unknown;
  user_profile: unknown;
  instructions: string;
  evaluation_criteria: { expected_states: VitaExpectedState[] | null; overall_rubrics: string[] | null } | null;
}

export class VitaTaskError extends Error {}

const get = (o: unknown, k: string): unknown => (o instanceof Map ? o.get(k) : (o as Record<string, unknown> | null)?.[k]);

export function parseVitaTasks(text: string): VitaTask[] {
  const raw = parsePyJson(text);
  if (!Array.isArray(raw)) throw new VitaTaskError('tasks file: expected a JSON list of tasks');
  return raw.map((t, i) => {
    const id = get(t, 'id');
    const instructions = get(t, 'instructions');
    if (typeof id !== 'string') throw new VitaTaskError(`task ${i}: id must be a string`);
    if (typeof instructions !== 'string') throw new VitaTaskError(`task ${id}: instructions must be a string`);
    const scenario = get(t, 'user_scenario');
    const ec = get(t, 'evaluation_criteria');
    const strs = (v: unknown, what: string): string[] | null => {
      if (v === null || v === undefined) return null;
      if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) throw new VitaTaskError(`task ${id}: ${what} must be a list of strings`);
      return v as string[];
    };
    const list = (v: unknown): unknown[] | null => (Array.isArray(v) ? v : null);
    return {
      id, domain: String(get(t, 'domain') ?? ''), environment: get(t, 'environment') ?? {}, user_profile: get(scenario, 'user_profile') ?? {},
      instructions,
      evaluation_criteria: ec === null || ec === undefined ? null : {
        expected_states: list(get(ec, 'expected_states'))?.map((s) => ({
          required_orders: list(get(s, 'required_orders')), optional_orders: list(get(s, 'optional_orders')), state_rubrics: strs(get(s, 'state_rubrics'), 'state_rubrics'),
        })) ?? null,
        overall_rubrics: strs(get(ec, 'overall_rubrics'), 'overall_rubrics'),
      },
    };
  });
}

export interface VitaToolSchema { type: 'function'; function: { name: string; description: string; parameters: Record<string, unknown> } }

export function parseToolSchemas(text: string): VitaToolSchema[] {
  const raw = toPlain(JSON.parse(text)) as unknown;
  const tools = Array.isArray(raw) ? raw : get(raw, 'tools');
  if (!Array.isArray(tools)) throw new VitaTaskError('tools file: expected a list or {tools: [...]}');
  return tools as VitaToolSchema[];
}

/** The `english:` block scalar (`|-`) of one of the reference's prompt YAML files. */
export function promptFromYaml(text: string, language = 'english'): string {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => l === `${language}: |-`);
  if (start < 0) throw new VitaTaskError(`prompt file has no "${language}: |-" block`);
  const body: string[] = [];
  let indent = -1;
  for (let i = start + 1; i < lines.length; i++) {
    const l = lines[i];
    if (l.trim() === '') { body.push(''); continue; }
    const lead = l.length - l.trimStart().length;
    if (indent < 0) indent = lead;
    if (lead < indent) break;
    body.push(l.slice(indent));
  }
  // A whitespace-only line keeps the spaces beyond the indentation; `|-` strips the trailing newlines.
  for (let i = 0, j = start + 1; i < body.length; i++, j++) {
    const l = lines[j];
    if (body[i] === '' && l.length > indent && indent >= 0) body[i] = l.slice(indent);
  }
  while (body.length && body[body.length - 1].trim() === '') body.pop();
  return body.join('\n');
}

export function parseHolidays(text: string): Map<string, string> {
  const raw = JSON.parse(text) as { holidays?: Record<string, string> };
  if (!raw.holidays || typeof raw.holidays !== 'object') throw new VitaTaskError('holiday table: expected {holidays: {date: name}}');
  return new Map(Object.entries(raw.holidays));
}

export interface VitaData {
  domain: VitaDomain;
  tasks: VitaTask[];
  tools: VitaToolSchema[];
  prompts: { agent: string; user: string; judge: string };
  holidays: ReadonlyMap<string, string>;
}

export interface VitaDataTexts { tasks: string; tools: string; agentPrompt: string; userPrompt: string; judgePrompt: string; holidays: string }

export function vitaDataFromTexts(domain: VitaDomain, t: VitaDataTexts): VitaData {
  return {
    domain, tasks: parseVitaTasks(t.tasks), tools: parseToolSchemas(t.tools),
    prompts: { agent: promptFromYaml(t.agentPrompt), user: promptFromYaml(t.userPrompt), judge: promptFromYaml(t.judgePrompt) },
    holidays: parseHolidays(t.holidays),
  };
}

/** The files of a domain relative to the data root (the layout of ../shared/data/vitabench). */
export const VITA_FILES = (domain: VitaDomain) => ({
  tasks: `${domain}/tasks_en.json`, tools: `tools/${domain}.tools.en.json`,
  agentPrompt: 'prompts/agent_system_prompt.yaml', userPrompt: 'prompts/user_system_prompt.yaml',
  judgePrompt: 'prompts/sliding_window_eval_template.yaml', holidays: 'reference/holidays_china.C.json',
});

/** The `domain` field the tasks of each domain carry. */
export const VITA_TASK_DOMAIN: Record<VitaDomain, string> = { delivery: 'delivery', instore: 'in-store consumption' };

/** The names of the files a domain needs, as a browser gives picked files (no folders): the last part of VITA_FILES. */
export const vitaFileNames = (domain: VitaDomain): VitaDataTexts =>
  Object.fromEntries(Object.entries(VITA_FILES(domain)).map(([k, p]) => [k, p.split('/').pop()!])) as unknown as VitaDataTexts;

/**
 * A domain's data from picked files matched by name. Both domains' tasks files are named tasks_en.json, so the
 * tasks' own `domain` field decides whether the right one was picked.
 */
export function vitaDataFromFiles(domain: VitaDomain, files: readonly { name: string; text: string }[]): VitaData {
  const names = vitaFileNames(domain);
  const texts: Partial<VitaDataTexts> = {};
  const missing: string[] = [];
  for (const [key, name] of Object.entries(names) as [keyof VitaDataTexts, string][]) {
    const f = files.find((x) => x.name.split('/').pop() === name);
    if (f) texts[key] = f.text; else missing.push(name);
  }
  if (missing.length) throw new VitaTaskError(`missing ${missing.join(', ')} (see ${Object.values(VITA_FILES(domain)).join(', ')} under the data root)`);
  const data = vitaDataFromTexts(domain, texts as VitaDataTexts);
  const other = data.tasks.find((t) => t.domain !== VITA_TASK_DOMAIN[domain]);
  if (other) throw new VitaTaskError(`${names.tasks} holds ${other.domain} tasks, not ${VITA_TASK_DOMAIN[domain]} ones: pick ${VITA_FILES(domain).tasks}`);
  return data;
}
