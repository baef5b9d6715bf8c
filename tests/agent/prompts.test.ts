import { describe, expect, it } from 'vitest';
import { compactFormat } from '../../src/agent/chatTemplate';
import {
  actPrompt, buildActMessages, compactTool, flattenConversation, matchingHint, referenceHints, rehearsePrompt, rehearseUser, selectHints, trimHistory,
  type Hint,
} from '../../src/agent/prompts';
import { LEAN_PROFILE, TINY_PROFILE, withRehearsePrompt } from '../../src/agent/profile';
import { KV_TOOLS, callOfRehearsePrompt, kvTask } from '../../src/agent/testing';
import type { Message } from '../../src/envs/types';

const task = kvTask();

describe('prompts', () => {
  it('extracts reference hints in call order', () => {
    const hs = referenceHints(task.reference);
    expect(hs.map((h) => h.name)).toEqual(['set', 'get']);
    expect(hs[0].result).toBe('{"ok":true,"key":"color","value":"blue"}');
    expect(matchingHint(hs, { name: 'get', arguments: { key: 'color' } })).toBe(hs[1]);
    expect(matchingHint(hs, { name: 'get', arguments: { key: 'size' } })).toBeUndefined();
  });

  it('lists tools compactly', () => {
    expect(compactTool(KV_TOOLS[1])).toBe('set(key: string, value: string): Write a key.');
    expect(compactTool({ name: 'f', description: '', parameters: { type: 'object', properties: { a: { enum: ['x', 'y'] }, b: { type: 'array', items: { type: 'integer' } } }, required: ['a'] } }))
      .toBe('f(a: "x"|"y", b?: integer[])');
  });

  it('trims history without orphaning tool results and keeps the first user message', () => {
    const conv = task.reference;
    const t = trimHistory(conv, 3);
    expect(t[0]).toEqual(conv[0]);
    expect(t.slice(1).every((m, i, a) => i > 0 || m.role !== 'tool')).toBe(true);
    expect(trimHistory(conv, 100)).toBe(conv);
  });

  it('Act prompt: system with policy and tools, then the conversation, ending at the assistant turn', () => {
    const conv: Message[] = [{ role: 'user', content: task.userTurns[0] }];
    const msgs = buildActMessages(task.policy, KV_TOOLS, conv);
    expect(msgs[0].role).toBe('system');
    expect(msgs[0].content).toContain(task.policy);
    expect(msgs[0].content).toContain('get(key: string)');
    const p = actPrompt(compactFormat, task.policy, KV_TOOLS, conv, { formatHint: false, toolListing: 'none' });
    expect(p).toBe(`<|system|>${task.policy}<|end|>\n<|user|>${task.userTurns[0]}<|end|>\n<|assistant|>`);
  });

  it('Rehearse prompt: its own context with all sections, and options that shorten it', () => {
    const input = { tools: KV_TOOLS, hints: referenceHints(task.reference), conversation: task.reference.slice(0, 1), rawAct: 'RAW', call: { name: 'get', arguments: { key: 'color' } } };
    const full = rehearseUser(input);
    for (const s of ['Tools:', 'Examples:', 'Conversation:', 'User: Please set', 'Agent output:\nRAW', 'Call to execute:\nname: get']) expect(full).toContain(s);
    const short = rehearseUser(input, { toolListing: 'none', hints: 'same-tool', history: false, rawAct: false });
    expect(short).not.toContain('Conversation:');
    expect(short).not.toContain('set {"key"');
    expect(short).toContain('get {"key":"color"}');
    expect(short.length).toBeLessThan(full.length / 2);
    expect(rehearseUser(input, { hints: false })).not.toContain('Examples');
    const p = rehearsePrompt(compactFormat, input, { style: 'short' });
    expect(p.startsWith('<|system|>Execute the tool call')).toBe(true);
    expect(callOfRehearsePrompt(p)).toEqual(input.call);
  });

  it('lean prompts (LEAN_PROFILE): tool names only, no policy text, no schema; the call still parses back', () => {
    const conv: Message[] = [{ role: 'user', content: task.userTurns[0] }];
    const act = actPrompt(compactFormat, task.policy, KV_TOOLS, conv, LEAN_PROFILE.actPrompt);
    expect(act).toBe(`<|system|>Tools:\n${KV_TOOLS.map((t) => t.name).join(', ')}<|end|>\n<|user|>${task.userTurns[0]}<|end|>\n<|assistant|>`);
    expect(act).not.toContain(task.policy);
    const input = { tools: KV_TOOLS, hints: referenceHints(task.reference), conversation: conv, rawAct: 'RAW', call: { name: 'get', arguments: { key: 'color' } } };
    const lean = rehearseUser(input, LEAN_PROFILE.rehearsePrompt);
    expect(lean).not.toContain('schema:');
    expect(lean).not.toContain('RAW');
    expect(lean).toContain(`Tools:\n${KV_TOOLS.map((t) => t.name).join(', ')}`);
    expect(rehearseUser(input)).toContain('schema: {');
    expect(lean.length).toBeLessThan(rehearseUser(input, TINY_PROFILE.rehearsePrompt).length);
    expect(callOfRehearsePrompt(rehearsePrompt(compactFormat, input, LEAN_PROFILE.rehearsePrompt))).toEqual(input.call);
  });

  it('withRehearsePrompt (npm run sft --rehearse-history/--rehearse-hints/--rehearse-schema) changes only what it is given', () => {
    expect(withRehearsePrompt(LEAN_PROFILE, {})).toEqual(LEAN_PROFILE);
    const p = withRehearsePrompt(LEAN_PROFILE, { maxHistory: 6, hints: 'all', schema: 'compact' });
    expect(p.rehearsePrompt).toEqual({ ...LEAN_PROFILE.rehearsePrompt, maxHistory: 6, hints: true, schema: 'compact' });
    expect(p.actPrompt).toBe(LEAN_PROFILE.actPrompt);
    expect(withRehearsePrompt(p, { hints: 'same-tool', schema: 'none' }).rehearsePrompt).toMatchObject({ maxHistory: 6, hints: 'same-tool', schema: false });
    // What the longer history and every tool's hints are for: an earlier result of another tool reaches the prompt.
    const input = { tools: KV_TOOLS, hints: referenceHints(task.reference), conversation: task.reference.slice(0, 5), rawAct: '', call: { name: 'get', arguments: { key: 'color' } } };
    const lean = rehearseUser(input, LEAN_PROFILE.rehearsePrompt);
    const more = rehearseUser(input, p.rehearsePrompt);
    expect(lean).not.toContain('set {"key":"color","value":"blue"}');
    expect(more).toContain('set {"key":"color","value":"blue"}');
    expect(lean).not.toContain('Tool[set]: {"ok":true');
    expect(more).toContain('Tool[set]: {"ok":true');
  });

  it('flattens conversations with inline tool calls', () => {
    expect(flattenConversation(task.reference.slice(0, 4))).toBe(
      'User: Please set color to blue.\nAssistant: <tool_call>\n{"name":"set","arguments":{"key":"color","value":"blue"}}\n</tool_call>\n' +
      'Tool[set]: {"ok":true,"key":"color","value":"blue"}\nAssistant: Done, color is blue.');
    expect(flattenConversation([])).toBe('(empty)');
  });
});

describe('selectHints', () => {
  const h = (path: string, result: string): Hint => ({ name: 'cd', arguments: { path }, result });
  const hints = [h('a', '{"cwd":"/a"}'), h('b', '{"cwd":"/b"}'), { name: 'ls', arguments: {}, result: '[]' }, h('c', '{"cwd":"/c"}')];
  it('shows the matching hint first, whatever the cap (it used to be dropped behind earlier same-tool hints)', () => {
    const call = { name: 'cd', arguments: { path: 'c' } };
    expect(selectHints(hints, call, { hints: 'same-tool', maxHints: 2 })!.map((x) => x.arguments.path)).toEqual(['c', 'a']);
    expect(selectHints(hints, call, { hints: 'same-tool', maxHints: 0 })!.map((x) => x.arguments.path)).toEqual(['c']);
    expect(selectHints(hints, call, { hints: true, maxHints: 1 })!.map((x) => x.arguments.path)).toEqual(['c']);
  });
  it('keeps the old order and cap when no hint matches; null when hints are off', () => {
    const call = { name: 'cd', arguments: { path: 'zz' } };
    expect(selectHints(hints, call, { hints: 'same-tool', maxHints: 2 })!.map((x) => x.arguments.path)).toEqual(['a', 'b']);
    expect(selectHints(hints, call, { hints: 'same-tool', maxHints: 0 })).toEqual([]);
    expect(selectHints(hints, call, { hints: false })).toBeNull();
  });
});
