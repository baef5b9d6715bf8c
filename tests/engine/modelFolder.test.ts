import { describe, it, expect } from 'vitest';
import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { trainBPE } from '../../src/engine/tokenizer';
import { syntheticCorpus } from '../../src/engine/corpus';
import { makeConfig, initParams, paramSpecs } from '../../src/engine/decoder';
import { loadModelFolder, memoryFileSource, fetchFileSource, modelFolderFiles, writeModelFolder, ONNX_PATH } from '../../src/engine/modelFolder';
import { COMPACT_CHAT_TEMPLATE } from '../../src/agent/chatTemplate';
import { trainLm } from '../../src/cli/engine';
import { samplerFromFolder } from '../../src/engine/sampler';
import { nodeRuntime } from '../../src/engine/runtime-node';

describe('model folder', () => {
  const tokenizer = trainBPE(syntheticCorpus(100_000, 1), { vocabSize: 512 });
  const config = makeConfig('tiny', { max_position_embeddings: 128 });
  const params = initParams(config, 3);

  it('writes an HF-layout folder and reads it back (disk)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mf-'));
    await writeModelFolder(dir, { config, params, tokenizer, chatTemplate: COMPACT_CHAT_TEMPLATE, meta: { size: 'tiny' } });
    for (const f of ['config.json', 'generation_config.json', 'tokenizer.json', 'tokenizer_config.json', 'model.safetensors', ONNX_PATH]) {
      expect(existsSync(join(dir, f))).toBe(true);
    }
    const cfg = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
    expect(cfg).toMatchObject({
      model_type: 'llama', architectures: ['LlamaForCausalLM'], num_hidden_layers: 2, vocab_size: 512,
      bos_token_id: 1, eos_token_id: 2, pad_token_id: 0, head_dim: 16, envace: { size: 'tiny' },
    });
    const tc = JSON.parse(readFileSync(join(dir, 'tokenizer_config.json'), 'utf8'));
    expect(tc).toMatchObject({ padding_side: 'left', chat_template: COMPACT_CHAT_TEMPLATE, eos_token: '<|eos|>', clean_up_tokenization_spaces: false });

    const f = await loadModelFolder(dir);
    expect(f.config).toEqual({ ...config, bos_token_id: 1, eos_token_id: 2, pad_token_id: 0 });
    expect(f.ids).toEqual({ bos: 1, eos: 2, pad: 0 });
    for (const { name } of paramSpecs(config)) expect(f.params[name]).toEqual(params[name]);
    expect(f.tokenizer.decode(f.tokenizer.encode('The cat <|end|> reads.'))).toBe('The cat <|end|> reads.');
    const onnx = await f.readOnnx();
    expect(onnx!.length).toBeGreaterThan(1000);
  });

  it('reads through an abstract file source (browser path) and can omit the graph', async () => {
    const files = modelFolderFiles({ config, params, tokenizer, withOnnx: false });
    expect(files[ONNX_PATH]).toBeUndefined();
    const f = await loadModelFolder(memoryFileSource(files));
    expect(await f.readOnnx()).toBeNull();
    expect(f.params['lm_head.weight']).toEqual(params['lm_head.weight']);
  });

  it('reads over fetch (URL prefix), as a browser worker would', async () => {
    const files = modelFolderFiles({ config, params, tokenizer });
    const seen: string[] = [];
    const fakeFetch = (async (url: string, init?: { method?: string }) => {
      seen.push(`${init?.method ?? 'GET'} ${url}`);
      const f = files[url.replace('https://host/models/tiny/', '')];
      return new Response(init?.method === 'HEAD' || !f ? null : (f as BodyInit), { status: f ? 200 : 404 });
    }) as unknown as typeof fetch;
    const f = await loadModelFolder(fetchFileSource('https://host/models/tiny/', fakeFetch));
    expect(f.params['model.norm.weight']).toEqual(params['model.norm.weight']);
    expect((await f.readOnnx())!.length).toBe(files[ONNX_PATH].length);
    expect(seen).toContain('GET https://host/models/tiny/config.json');
  });

  it('rejects a tokenizer that does not fit the model', () => {
    expect(() => modelFolderFiles({ config: makeConfig('base'), params, tokenizer })).toThrow(/tokenizer has 512/);
  });

  it('train-lm writes a folder that loads, samples, and continues training', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lm-'));
    const base = { corpus: 'synthetic:60000', size: 'tiny' as const, steps: 4, seed: 1, batch: 2, len: 32, lr: 3e-3, quiet: true };
    const a = await trainLm({ ...base, out: join(dir, 'a') });
    expect(Number.isFinite(a.loss)).toBe(true);
    const f = await loadModelFolder(join(dir, 'a'));
    expect(f.rawConfig.envace).toMatchObject({ size: 'tiny', steps: 4 });
    expect(f.tokenizer.tokenId('<tool_call>')).toBeDefined();
    const s = await samplerFromFolder(f, nodeRuntime());
    const [g] = await s.generate([{ prompt: 'The cat', maxNewTokens: 5, temperature: 0.8, topP: 0.9, topK: 0, stop: [], seed: 1 }]);
    await s.release();
    expect(g.outputIds.length).toBeGreaterThan(0);
    await trainLm({ ...base, out: join(dir, 'b'), init: join(dir, 'a') });
    const b = await loadModelFolder(join(dir, 'b'));
    expect(b.tokenizerJson).toEqual(f.tokenizerJson);
    expect(b.params['lm_head.weight']).not.toEqual(f.params['lm_head.weight']);
  });
});
