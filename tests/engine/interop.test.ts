// A folder we write must load in transformers.js, offline, and its greedy generate must equal our
// sampler token for token. Both run the folder's own onnx/model.onnx through onnxruntime-node 1.30,
// and our 'exact' mode feeds it the way transformers.js does, so equality is exact, not approximate.
import { describe, it, expect, beforeAll } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, basename, dirname } from 'node:path';
import { AutoTokenizer, AutoModelForCausalLM, env } from '@huggingface/transformers';
import { trainBPE } from '../../src/engine/tokenizer';
import { syntheticCorpus } from '../../src/engine/corpus';
import { makeConfig, initParams } from '../../src/engine/decoder';
import { loadModelFolder, writeModelFolder } from '../../src/engine/modelFolder';
import { samplerFromFolder } from '../../src/engine/sampler';
import { nodeRuntime } from '../../src/engine/runtime-node';
import { COMPACT_CHAT_TEMPLATE } from '../../src/agent/chatTemplate';

let dir: string;
const config = makeConfig('tiny', { max_position_embeddings: 128 });

beforeAll(async () => {
  dir = join(mkdtempSync(join(tmpdir(), 'interop-')), 'tiny-model');
  const tokenizer = trainBPE(syntheticCorpus(150_000, 2), { vocabSize: config.vocab_size });
  const params = initParams(config, 5);
  // Sharper logits so the comparison covers varied tokens rather than one repeated near-tie.
  params['lm_head.weight'] = params['lm_head.weight'].map((x) => x * 30);
  await writeModelFolder(dir, { config, params, tokenizer, chatTemplate: COMPACT_CHAT_TEMPLATE });
  env.allowRemoteModels = false;
  env.allowLocalModels = true;
  env.localModelPath = dirname(dir);
});

const upToEos = (ids: number[], eos: number) => { const i = ids.indexOf(eos); return i < 0 ? ids : ids.slice(0, i + 1); };

describe('transformers.js interop', () => {
  it('AutoTokenizer encodes and decodes like our tokenizer', async () => {
    const hf = await AutoTokenizer.from_pretrained(basename(dir));
    const ours = (await loadModelFolder(dir)).tokenizer;
    for (const s of ['<|user|>The cat reads the file.<|end|>\n<|assistant|>', 'naïve 日本語 🙂  x', "it's 42!"]) {
      const ids = ours.encode(s);
      expect(Array.from(hf.encode(s))).toEqual(ids);
      expect(hf.decode(ids)).toBe(s);
    }
    const chat = hf.apply_chat_template([{ role: 'user', content: 'hi' }], { tokenize: false, add_generation_prompt: true });
    expect(chat).toBe('<|user|>hi<|end|>\n<|assistant|>');
  });

  it('AutoModelForCausalLM greedy generate equals our sampler token for token (batched, left padded)', async () => {
    const folder = await loadModelFolder(dir);
    const hfTok = await AutoTokenizer.from_pretrained(basename(dir));
    const model = await AutoModelForCausalLM.from_pretrained(basename(dir), { dtype: 'fp32', device: 'cpu' });
    const prompts = ['The agent calls a tool today. A user', 'Hi', '<|user|>x = y + 1;<|end|>\n<|assistant|>'];
    const N = 24;
    const inputs = hfTok(prompts, { padding: true });
    const out = await model.generate({ ...inputs, max_new_tokens: N, do_sample: false }) as { tolist(): bigint[][] };
    const rows = out.tolist().map((r) => r.map(Number));
    const T = (inputs.input_ids as { dims: number[] }).dims[1];

    const ours = await samplerFromFolder(folder, nodeRuntime(), { mode: 'exact' });
    const gens = await ours.generate(prompts.map((prompt) => ({ prompt, maxNewTokens: N, temperature: 0, topP: 1, topK: 0, stop: [], seed: 0 })));
    await ours.release();
    const eos = folder.ids.eos;
    let compared = 0;
    gens.forEach((g, i) => {
      const theirs = upToEos(rows[i].slice(T), eos);
      expect(g.outputIds).toEqual(theirs.slice(0, g.outputIds.length));
      expect(g.outputIds.length).toBe(theirs.length);
      compared += g.outputIds.length;
    });
    expect(compared).toBeGreaterThan(10);
    // The fast decode-step path agrees too, up to the rare near-tie (logits differ ~1e-6).
    const fast = await samplerFromFolder(folder, nodeRuntime(), { mode: 'fast' });
    const gf = await fast.generate(prompts.map((prompt) => ({ prompt, maxNewTokens: N, temperature: 0, topP: 1, topK: 0, stop: [], seed: 0 })));
    await fast.release();
    expect(gf.map((g) => g.outputIds)).toEqual(gens.map((g) => g.outputIds));
  });
});
