import { describe, it, expect, beforeAll } from 'vitest';
import fc from 'fast-check';
import { Tokenizer } from '@huggingface/tokenizers';
import { BPETokenizer, trainBPE, tokenizerConfig, DEFAULT_SPECIAL_TOKENS, type TokenizerJSON } from '../../src/engine/tokenizer';
import { syntheticCorpus } from '../../src/engine/corpus';
import { SPECIAL_TOKENS, PROTOCOL_TOKENS } from '../../src/agent/chatTemplate';

let json: TokenizerJSON;
let ours: BPETokenizer;
let hf: Tokenizer;

beforeAll(() => {
  json = trainBPE(syntheticCorpus(200_000, 3) + '<tool_call>{"a": 1}</tool_call>\n'.repeat(50), { vocabSize: 600, addedTokens: PROTOCOL_TOKENS });
  ours = new BPETokenizer(json);
  const cfg = tokenizerConfig({ addedTokens: json.added_tokens, bos: '<|bos|>', eos: '<|eos|>', pad: '<|pad|>', maxLength: 512 });
  // Through JSON text, as a loader would see it.
  hf = new Tokenizer(JSON.parse(JSON.stringify(json)), cfg as never);
});

const samples = [
  '', 'hello world', '  leading and trailing  ', 'The cat reads the file.\n\nThe agent calls a tool!',
  "it's they're we've I'm you'll he'd", '日本語 Привет 🙂 café', '\uFEFFbom first', 'tabs\tand\r\nnewlines',
  '<|user|>hi<|end|><|assistant|>hello<|end|>', 'x<|pad|>y<|pad|', '12345 3.14159 -7', '\u0000\u0001\u007f',
];

describe('tokenizer', () => {
  it('has the configured vocab with special tokens first', () => {
    expect(ours.vocabSize).toBe(600);
    DEFAULT_SPECIAL_TOKENS.forEach((t, i) => expect(ours.tokenId(t)).toBe(i));
    PROTOCOL_TOKENS.forEach((t, i) => expect(ours.tokenId(t)).toBe(8 + i));
    expect(json.model.merges.length).toBe(600 - 8 - PROTOCOL_TOKENS.length - 256);
  });

  it('covers the chat role tokens of the agent', () => {
    for (const t of SPECIAL_TOKENS) expect(DEFAULT_SPECIAL_TOKENS).toContain(t);
  });

  it('keeps protocol tags atomic and visible, drops control tokens on request', () => {
    const s = '<|assistant|>ok<tool_call>{"x":1}</tool_call><|end|>';
    const ids = ours.encode(s);
    expect(ids).toContain(ours.tokenId('<tool_call>'));
    expect(ours.decode(ids, { skipSpecialTokens: true })).toBe('ok<tool_call>{"x":1}</tool_call>');
    expect(hf.decode(ids, { skip_special_tokens: true })).toBe('ok<tool_call>{"x":1}</tool_call>');
  });

  it('learns merges that compress text', () => {
    const text = syntheticCorpus(5000, 99);
    expect(ours.encode(text).length).toBeLessThan(new TextEncoder().encode(text).length / 2.5);
  });

  it('round trips and agrees with @huggingface/tokenizers on fixed samples', () => {
    for (const s of samples) {
      const ids = ours.encode(s);
      expect(ours.decode(ids)).toBe(s);
      expect(hf.encode(s, { add_special_tokens: true }).ids).toEqual(ids);
      if (ids.length) expect(hf.decode(ids)).toBe(s);
    }
    expect(ours.encode('<|user|>')).toEqual([4]);
    expect(ours.decode(ours.encode('a<|eos|>b'), { skipSpecialTokens: true })).toBe('ab');
  });

  it("'words' pre-tokenizer: a name has the same ids in prose and in JSON; agrees with @huggingface/tokenizers", () => {
    const corpus = syntheticCorpus(100_000, 5) + ' in the drafts folder {"folder":"drafts"} order #W2213 {"order_id":"#W2213"}\n'.repeat(40);
    const wj = trainBPE(corpus, { vocabSize: 600, addedTokens: PROTOCOL_TOKENS, pretokenizer: 'words' });
    const w = new BPETokenizer(wj);
    const prose = w.encode('How many lines are in the drafts folder?'), json = w.encode('{"folder":"drafts"}');
    const drafts = w.encode('drafts');
    const has = (xs: number[], sub: number[]) => xs.some((_, i) => sub.every((t, j) => xs[i + j] === t));
    expect(has(prose, drafts) && has(json, drafts)).toBe(true);
    // The default (GPT-2) pieces glue the space to the word, so the prose ids differ there.
    expect(has(ours.encode('in the drafts folder'), ours.encode('drafts'))).toBe(false);
    const cfg = tokenizerConfig({ addedTokens: wj.added_tokens, bos: '<|bos|>', eos: '<|eos|>', pad: '<|pad|>', maxLength: 512 });
    const whf = new Tokenizer(JSON.parse(JSON.stringify(wj)), cfg as never);
    for (const s of [...samples, 'My email is olga.diaz99@example.com. Order #W2213?', '{"name":"cd","arguments":{"folder":"drafts"}}']) {
      const ids = w.encode(s);
      expect(w.decode(ids)).toBe(s);
      expect(whf.encode(s, { add_special_tokens: true }).ids).toEqual(ids);
    }
    fc.assert(fc.property(fc.string({ unit: 'grapheme', maxLength: 40 }), (s) => {
      expect(whf.encode(s, { add_special_tokens: false }).ids).toEqual(w.encode(s, { allowSpecial: false }));
    }), { numRuns: 200, seed: 7 });
    expect(() => new BPETokenizer({ ...wj, pre_tokenizer: { type: 'Whitespace' } as never })).toThrow(/unsupported pre_tokenizer/);
  });

  it('round trips arbitrary unicode and agrees with HF (property)', () => {
    const piece = fc.oneof(
      fc.string({ unit: 'grapheme', maxLength: 40 }),
      fc.string({ unit: 'binary', maxLength: 40 }),
      fc.constantFrom(...DEFAULT_SPECIAL_TOKENS, ...PROTOCOL_TOKENS, '<tool_', ' the', "'s", '\n', '  ', '日本'),
    );
    const text = fc.array(piece, { maxLength: 6 }).map((a) => a.join(''))
      // Lone surrogates cannot be UTF-8 encoded; every tokenizer replaces them, so exclude them.
      .filter((s) => !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(s));
    fc.assert(fc.property(text, (s) => {
      const ids = ours.encode(s);
      expect(ours.decode(ids)).toBe(s);
      expect(hf.encode(s).ids).toEqual(ids);
      if (ids.length) expect(hf.decode(ids)).toBe(s);
    }), { numRuns: 400 });
  });

  it('trains on a 3 MB corpus: over 1000 merges, each a token, compressing held-out text better than 600 entries', () => {
    const j = trainBPE(syntheticCorpus(3_000_000, 7), { vocabSize: 4096 });
    const big = new BPETokenizer(j);
    // the synthetic corpus runs out of pairs above the frequency floor before 4096: every merge it found is a token
    expect(j.model.merges.length).toBeGreaterThan(1000);
    expect(big.vocabSize).toBe(DEFAULT_SPECIAL_TOKENS.length + 256 + new Set(j.model.merges.map(([a, b]) => a + b)).size);
    const heldOut = syntheticCorpus(20_000, 8);
    // a larger vocabulary learned from more text compresses further than the 600-entry one
    expect(big.encode(heldOut).length).toBeLessThan(ours.encode(heldOut).length);
    expect(big.decode(big.encode(heldOut))).toBe(heldOut);
  });

  it('is deterministic', () => {
    const a = trainBPE(syntheticCorpus(20_000, 5), { vocabSize: 400 });
    const b = trainBPE(syntheticCorpus(20_000, 5), { vocabSize: 400 });
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
  });
});
