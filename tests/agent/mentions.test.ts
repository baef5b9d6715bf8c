import { describe, expect, it } from 'vitest';
import { lineDrill } from '../../src/agent/line-drill';
import { MAX_MENTIONS, mentionsBlock, rehearseUser } from '../../src/agent/prompts';
import { Rng } from '../../src/engine/rng';
import type { Message } from '../../src/envs/types';

const conversation: Message[] = [
  { role: 'user', content: 'My folders:\n~: docs/, work/, todo.txt\n~/docs: notes.txt, plan.md\n~/work: data.txt, old/\n~/work/old: a.txt\nRead plan.md in work.' },
  { role: 'assistant', content: '', toolCalls: [{ name: 'cd', arguments: { folder: 'work' } }] },
  { role: 'tool', name: 'cd', content: '{"current_working_directory":"work"}' },
];

describe('the Rehearse prompt\'s mentions block', () => {
  it('lists the lines naming each string argument as a whole name, or says nowhere', () => {
    expect(mentionsBlock(conversation, { name: 'cat', arguments: { file_name: 'plan.md' } }))
      .toBe('Where "plan.md" appears:\n~/docs: notes.txt, plan.md\nRead plan.md in work.');
    // a.txt is inside data.txt as text, not as a name
    expect(mentionsBlock(conversation, { name: 'cat', arguments: { file_name: 'a.txt' } })).toBe('Where "a.txt" appears:\n~/work/old: a.txt');
    expect(mentionsBlock(conversation, { name: 'cd', arguments: { folder: 'old' } })).toBe('Where "old" appears:\n~/work: data.txt, old/\n~/work/old: a.txt');
    expect(mentionsBlock(conversation, { name: 'cat', arguments: { file_name: 'zzz.txt' } })).toBe('Where "zzz.txt" appears: nowhere');
    expect(mentionsBlock(conversation, { name: 'mv', arguments: { source: 'a.txt', destination: 'a.txt' } })).toBe('Where "a.txt" appears:\n~/work/old: a.txt');
    expect(mentionsBlock(conversation, { name: 'ls', arguments: {} })).toBeNull();
    expect(mentionsBlock(conversation, { name: 'wc', arguments: { file_name: 'a.txt', mode: 'w' } })).toBe('Where "a.txt" appears:\n~/work/old: a.txt');
    expect(mentionsBlock(conversation, { name: 'cd', arguments: { folder: '..' } })).toBeNull();
  });

  it('keeps the first and the latest lines, and cuts a long line around the name', () => {
    const many: Message[] = Array.from({ length: 8 }, (_, i) => ({ role: 'tool', name: 'cat', content: `x${i} b.txt` }));
    const block = mentionsBlock(many, { name: 'cat', arguments: { file_name: 'b.txt' } })!.split('\n');
    expect(block).toHaveLength(1 + MAX_MENTIONS);
    expect(block.slice(1)).toEqual(['x0', 'x1', 'x6', 'x7'].map((x) => `Tool[cat]: ${x} b.txt`));
    const long: Message[] = [{ role: 'tool', name: 'cat', content: `${'word '.repeat(80)}c.txt ${'tail '.repeat(80)}` }];
    const cut = mentionsBlock(long, { name: 'cat', arguments: { file_name: 'c.txt' } })!.split('\n')[1];
    expect(cut).toContain('c.txt');
    expect(cut.startsWith('…') && cut.endsWith('…')).toBe(true);
  });

  it('appears under the call only when asked for, and reads the whole conversation even where history is shed', () => {
    const input = { tools: [], hints: [], conversation, rawAct: '', call: { name: 'cat', arguments: { file_name: 'a.txt' } } };
    expect(rehearseUser(input)).not.toContain('appears');
    const shed = rehearseUser(input, { mentions: true, history: false });
    expect(shed.endsWith('arguments: {"file_name":"a.txt"}\n\nWhere "a.txt" appears:\n~/work/old: a.txt')).toBe(true);
    expect(shed).not.toContain('My folders');
  });

  it('the line drill, asked for it, shows the called name\'s lines, the true folder line among them when the name is there', () => {
    const rows = lineDrill(new Rng(5), 120, 'line', 0, 0.5, true);
    let present = 0;
    for (const r of rows) {
      const [, line, name, fact] = /^<think>(.*); (.*): (file|folder|absent)<\/think>$/.exec(r.target)!;
      const block = r.prompt.slice(r.prompt.indexOf(`Where ${JSON.stringify(name)} appears`)).split('<|end|>')[0];
      expect(block.length).toBeLessThan(r.prompt.length);
      if (fact !== 'absent') { present++; expect(block.split('\n')).toContain(line); }
    }
    expect(present).toBeGreaterThan(30);
    expect(lineDrill(new Rng(5), 5, 'line', 0, 0.5)[0].prompt).not.toContain('appears');
  });
});
