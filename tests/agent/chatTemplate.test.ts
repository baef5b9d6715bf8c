import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  COMPACT_CHAT_TEMPLATE, SPECIAL_TOKENS, compactFormat, formatForTokenizerConfig, jinjaFormat, renderCompact, stripStop,
} from '../../src/agent/chatTemplate';
import { DEFAULT_SPECIAL_TOKENS } from '../../src/engine/tokenizer';
import type { Message } from '../../src/envs/types';
import { KV_TOOLS } from '../../src/agent/testing';

const text = fc.string({ maxLength: 30 });
const msgArb: fc.Arbitrary<Message> = fc.oneof(
  text.map((content) => ({ role: 'system' as const, content })),
  text.map((content) => ({ role: 'user' as const, content })),
  fc.record({
    content: text,
    toolCalls: fc.option(fc.array(fc.record({
      name: fc.string({ minLength: 1, maxLength: 6 }),
      arguments: fc.dictionary(fc.string({ maxLength: 4 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
    }), { maxLength: 2 }), { nil: undefined }),
  }).map(({ content, toolCalls }) => (toolCalls ? { role: 'assistant' as const, content, toolCalls } : { role: 'assistant' as const, content })),
  fc.record({ name: fc.string({ maxLength: 6 }), content: text }).map(({ name, content }) => ({ role: 'tool' as const, name, content })),
);

describe('compact chat template', () => {
  it('renders roles with one token each', () => {
    const s = renderCompact([{ role: 'user', content: 'hi' }, { role: 'assistant', content: '', toolCalls: [{ name: 'get', arguments: { key: 'a' } }] },
      { role: 'tool', name: 'get', content: '{"v":1}' }], { addGenerationPrompt: true });
    expect(s).toBe('<|user|>hi<|end|>\n<|assistant|>\n<tool_call>\n{"name":"get","arguments":{"key":"a"}}\n</tool_call><|end|>\n<|tool|>{"v":1}<|end|>\n<|assistant|>');
  });

  it('the Jinja string renders exactly like the TypeScript renderer', () => {
    const jinja = jinjaFormat(COMPACT_CHAT_TEMPLATE, { stop: ['<|end|>'] });
    fc.assert(fc.property(fc.array(msgArb, { maxLength: 6 }), fc.boolean(), (msgs, gen) => {
      expect(jinja.render(msgs, { addGenerationPrompt: gen })).toBe(renderCompact(msgs, { addGenerationPrompt: gen }));
    }), { numRuns: 300, seed: 3 });
  });

  it('the tokenizer declares every special token', () => {
    for (const t of SPECIAL_TOKENS) expect(DEFAULT_SPECIAL_TOKENS as readonly string[]).toContain(t);
  });

  it('strips the stop string the sampler keeps', () => {
    expect(stripStop('hello<|end|>', compactFormat.stop)).toBe('hello');
    expect(stripStop('hello', compactFormat.stop)).toBe('hello');
  });

  it('renders a model-shipped template with tools (ChatML-like)', () => {
    const chatml = "{% if tools %}<|im_start|>system\n# Tools\n{% for t in tools %}{{ t.function.name }}\n{% endfor %}<|im_end|>\n{% endif %}" +
      "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}";
    const f = formatForTokenizerConfig({ chat_template: chatml, eos_token: '<|im_end|>' });
    expect(f.nativeTools).toBe(true);
    expect(f.stop).toEqual(['<|im_end|>']);
    const s = f.render([{ role: 'user', content: 'hi' }], { addGenerationPrompt: true, tools: KV_TOOLS });
    expect(s).toBe('<|im_start|>system\n# Tools\nget\nset\nlist\n<|im_end|>\n<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n');
    expect(formatForTokenizerConfig({ chat_template: COMPACT_CHAT_TEMPLATE })).toBe(compactFormat);
    expect(formatForTokenizerConfig(undefined)).toBe(compactFormat);
  });
});
