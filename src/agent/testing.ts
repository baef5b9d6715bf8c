// Test doubles for the agent layer, shared with the RL and TTS tests: the scripted expert (src/agent/expert.ts,
// re-exported under the names the tests use) and a tiny key-value world with a two-turn task.

import type { ChecklistItem, Environment, Observation, Task, ToolCall, ToolSchema } from '../envs/types';
import { errorObservation } from '../envs/types';
import { validateCall } from './protocol';

export {
  byRole, callOfRehearsePrompt, expertAct, expertGenerator, scriptedTokenCount as fakeCount, isRehearsePrompt, noisy, oracleRehearse, taskOfPrompt,
  ScriptedGenerator as FakeGenerator, type Responder, type ScriptedGeneratorOptions as FakeGeneratorOptions,
} from './expert';

// ---------------------------------------------------------------------------------------------------------
// A tiny world: a key-value store with get/set/list, and a two-turn task on it.

export const KV_TOOLS: ToolSchema[] = [
  { name: 'get', description: 'Read a key.', parameters: { type: 'object', properties: { key: { type: 'string' } }, required: ['key'] } },
  { name: 'set', description: 'Write a key.', parameters: { type: 'object', properties: { key: { type: 'string' }, value: { type: 'string' } }, required: ['key', 'value'] } },
  { name: 'list', description: 'List keys.', parameters: { type: 'object', properties: {} } },
];

export class KvEnv implements Environment {
  readonly name = 'kv';
  calls = 0;
  constructor(public state: Record<string, string> = {}) {}
  tools(): ToolSchema[] { return KV_TOOLS; }
  call(name: string, args: unknown): Observation {
    this.calls++;
    const bad = validateCall({ name, arguments: args }, KV_TOOLS);
    if (bad) return errorObservation(bad.code, bad.message, bad.details);
    const a = args as Record<string, string>;
    if (name === 'get') {
      return a.key in this.state ? { text: JSON.stringify({ key: a.key, value: this.state[a.key] }), error: false }
        : { text: JSON.stringify({ error: `no such key: ${a.key}` }), error: true };
    }
    if (name === 'set') { this.state[a.key] = a.value; return { text: JSON.stringify({ ok: true, key: a.key, value: a.value }), error: false }; }
    return { text: JSON.stringify({ keys: Object.keys(this.state).sort() }), error: false };
  }
  snapshot(): unknown { return { ...this.state }; }
  clone(): Environment { return new KvEnv({ ...this.state }); }
}

function item(id: string, weight: number, required: boolean, pass: ChecklistItem['pass_condition']): ChecklistItem {
  return { id, question: id, focus_on: id, pass_condition: pass, weight, required_for_next_turn: required };
}

/** Two user turns: set a value, then read it back. Reference results are what KvEnv really returns. */
export function kvTask(id = 'kv-1', key = 'color', value = 'blue'): Task {
  const setCall: ToolCall = { name: 'set', arguments: { key, value } };
  const getCall: ToolCall = { name: 'get', arguments: { key } };
  return {
    id, world: 'kv', split: 'train', difficulty: 1,
    userTurns: [`Please set ${key} to ${value}.`, `What is ${key} now?`],
    policy: 'You manage a key-value store for the user.',
    reference: [
      { role: 'user', content: `Please set ${key} to ${value}.` },
      { role: 'assistant', content: '', toolCalls: [setCall] },
      { role: 'tool', name: 'set', content: JSON.stringify({ ok: true, key, value }) },
      { role: 'assistant', content: `Done, ${key} is ${value}.` },
      { role: 'user', content: `What is ${key} now?` },
      { role: 'assistant', content: '', toolCalls: [getCall] },
      { role: 'tool', name: 'get', content: JSON.stringify({ key, value }) },
      { role: 'assistant', content: `${key} is ${value}.` },
    ],
    checklist: [
      [item('set', 0.7, true, { kind: 'called', tool: 'set', args: { key, value } }), item('confirm', 0.3, false, { kind: 'reply_contains', text: [value] })],
      [item('get', 0.5, false, { kind: 'called', tool: 'get', args: { key } }), item('answer', 0.5, false, { kind: 'reply_contains', text: [value] })],
    ],
    makeEnv: () => new KvEnv(),
    verify: (env) => {
      const s = env.snapshot() as Record<string, string>;
      return s[key] === value ? { passed: true, reason: 'value set' } : { passed: false, reason: `${key} is ${s[key] ?? 'unset'}` };
    },
  };
}
