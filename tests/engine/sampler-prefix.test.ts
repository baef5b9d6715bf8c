// The rollout speed-ups of the sampler (issue 9): prompts of a call prefilled over their prefix tree, the decode
// cache grown by doubling, one graph with last-position logits. Each must give the tokens of the sampler before
// them (src/bench/sampler-reference.ts, bench:train's rollout reference) on the same weights and requests.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { trainBPE, BPETokenizer } from '../../src/engine/tokenizer';
import { syntheticCorpus } from '../../src/engine/corpus';
import { makeConfig, initParams, type Params } from '../../src/engine/decoder';
import { nodeRuntime } from '../../src/engine/runtime-node';
import { createOrtKVModel, Sampler, prefixTree, type PrefixNode } from '../../src/engine/sampler';
import * as Ref from '../../src/bench/sampler-reference';
import type { GenerateRequest, Generation } from '../../src/engine/generator';

const config = makeConfig('tiny', { max_position_embeddings: 128 });
const tok = new BPETokenizer(trainBPE(syntheticCorpus(100_000, 1), { vocabSize: config.vocab_size }));
// A sharper head than the random init, so that 1e-6 float differences cannot flip a greedy choice (see sampler.test.ts).
const params: Params = initParams(config, 11);
params['lm_head.weight'] = params['lm_head.weight'].map((x) => x * 40);

const req = (prompt: string, o: Partial<GenerateRequest> = {}): GenerateRequest => ({
  prompt, maxNewTokens: 10, temperature: 0, topP: 1, topK: 0, stop: [], seed: 0, ...o,
});
const opts = { maxContext: 128, eosTokenIds: [2], padTokenId: 0 };
let model: Awaited<ReturnType<typeof createOrtKVModel>>, refModel: Awaited<ReturnType<typeof Ref.createOrtKVModel>>;
let reference: Ref.Sampler;
beforeAll(async () => {
  model = await createOrtKVModel(nodeRuntime(), config, params);
  refModel = await Ref.createOrtKVModel(nodeRuntime(), config, params);
  reference = new Ref.Sampler(refModel, tok, { ...opts, prefixCache: false });
});
afterAll(async () => { await model.release(); await refModel.release(); });

// Prompts shaped like a rollout round: one long system stem, two tasks with K samples each, one unrelated prompt.
const stem = 'The agent calls a tool today and a user books the file. The robot opens the door; x = y + 1; ';
const prompts = [
  `${stem}Task one: read the file.`, `${stem}Task one: read the file.`,
  `${stem}Task two: open the door now and then close it.`, `${stem}Task two: open the door now and then list it.`,
  'Hi there',
  `${stem}Task one: read the file. Result: ok`,
];

function expectSame(a: Generation[], b: Generation[], tol = 1e-4): void {
  expect(a.map((g) => g.outputIds)).toEqual(b.map((g) => g.outputIds));
  expect(a.map((g) => g.promptIds)).toEqual(b.map((g) => g.promptIds));
  a.forEach((g, i) => g.logprobs.forEach((lp, j) => expect(Math.abs(lp - b[i].logprobs[j])).toBeLessThan(tol)));
}

describe('prefix tree of a call\'s prompts', () => {
  const chain = (n: PrefixNode) => { const out: PrefixNode[] = []; for (let x: PrefixNode | null = n; x; x = x.parent) out.unshift(x); return out; };
  it('shares stretches of at least minShare tokens, and every prompt ends at exactly one node whose chain covers it', () => {
    const stemT = Array.from({ length: 20 }, (_, i) => 100 + i);
    const ps = [
      [...stemT, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 50],
      [...stemT, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 51, 52],
      [...stemT, 9, 9],
      [...stemT],                       // ends where the stem ends: takes the stem node's logits
      [7, 7, 7],                        // shares nothing
      [...stemT.slice(0, 5), 3, 3, 3],  // shares 5 tokens only: computes them itself
    ];
    const nodes = prefixTree(ps, 16);
    const owners = ps.map((_, u) => nodes.filter((n) => n.prompts.includes(u)));
    owners.forEach((o) => expect(o.length).toBe(1));
    ps.forEach((p, u) => {
      const c = chain(owners[u][0]);
      expect(c[0].from).toBe(0);
      for (let i = 1; i < c.length; i++) { expect(c[i].from).toBe(c[i - 1].end); expect(c[i].level).toBe(c[i - 1].level + 1); }
      expect(c[c.length - 1].end).toBe(p.length);
      // Every node's tokens are a prefix of each prompt below it.
      for (const n of c) expect(ps[n.rep].slice(0, n.end)).toEqual(p.slice(0, n.end));
    });
    const stemNode = nodes.find((n) => n.from === 0 && n.end === 20)!;
    expect(stemNode.prompts).toEqual([3]);
    expect(nodes.find((n) => n.from === 20 && n.end === 36)).toBeDefined(); // prompts 0 and 1 share 16 more
    expect(owners[4][0]).toMatchObject({ from: 0, end: 3, level: 0, parent: null });
    expect(owners[5][0]).toMatchObject({ from: 0, end: 8, level: 0, parent: null });
    // Without sharing, every prompt is its own level-0 node.
    expect(prefixTree(ps, Infinity).every((n) => n.level === 0 && n.from === 0 && n.prompts.length === 1)).toBe(true);
  });
});

describe('sampler speed-ups give the reference sampler\'s tokens', () => {
  it('prefix-tree prefill, greedy and sampled, equals the reference (full prefill of every prompt)', async () => {
    const s = new Sampler(model, tok, opts);
    for (const o of [{ temperature: 0 }, { temperature: 1, seed: 3 }, { temperature: 0.8, topP: 0.9, topK: 20, seed: 7 }]) {
      const reqs = prompts.map((p, i) => req(p, { ...o, seed: (o.seed ?? 0) + i }));
      expectSame(await s.generate(reqs), await reference.generate(reqs));
    }
    // The stem was computed once: fewer prompt tokens computed than the prompts hold.
    const total = prompts.slice(1).reduce((a, p) => a + tok.encode(p).length, 0);
    expect(s.stats.shared).toBeGreaterThan(0);
    expect(s.stats.prefilled).toBeLessThan(3 * total);
    const off = new Sampler(model, tok, { ...opts, sharePrefixes: false });
    await off.generate(prompts.map((p) => req(p)));
    expect(off.stats.shared).toBe(0);
  });

  it('a decode cache grown slot by slot gives the tokens of one allocated for the whole budget', async () => {
    const reqs = prompts.map((p, i) => req(p, { temperature: 1, seed: 20 + i, maxNewTokens: 24 }));
    const grown = await new Sampler(model, tok, { ...opts, initialRoom: 1 }).generate(reqs);
    const whole = await new Sampler(model, tok, { ...opts, initialRoom: 0 }).generate(reqs);
    expect(grown.some((g) => g.outputIds.length > 4)).toBe(true);
    expectSame(grown, whole, 1e-5);
    expectSame(grown, await reference.generate(reqs));
  });

  it('multi-turn with the prefix cache (rows remembered as views of their decode buffers) equals the reference', async () => {
    const s = new Sampler(model, tok, { ...opts, prefixCache: { minReuse: 2 }, initialRoom: 4 });
    let ps = prompts.slice(0, 5);
    for (let turn = 0; turn < 3; turn++) {
      const reqs = ps.map((p, i) => req(p, { temperature: turn === 1 ? 0 : 1, seed: 10 * turn + i, maxNewTokens: 6 }));
      const a = await s.generate(reqs), b = await reference.generate(reqs);
      expectSame(a, b);
      ps = ps.map((p, i) => `${p}${a[i].text} then ${i}:`);
    }
    expect(s.stats.reused).toBeGreaterThan(100);
  });
});
