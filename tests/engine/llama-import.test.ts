// Llama-architecture checkpoints with grouped-query attention and tied embeddings (the SmolLM2 shape): the one
// decoder definition computes them (vs an independent float64 reference), trains them (gradients vs finite
// differences; a tied embedding's gradient is the sum of its two uses), serves them through the HF-convention
// inference graphs with a [batch, kv_heads, …] cache, imports them from an HF folder (F32/F16/BF16
// safetensors without lm_head.weight), runs one Role-Wise GRPO step on them, and exports a folder that
// transformers.js loads and runs to the same logits and greedy tokens.
import { describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { AutoModelForCausalLM, AutoTokenizer, Tensor, env } from '@huggingface/transformers';
import { countParams, headDim, initParams, makeConfig, paramSpecs, type LlamaConfig, type Params } from '../../src/engine/decoder';
import { buildForwardGraph, buildTrainGraph, exportDecodeStep, exportInference } from '../../src/engine/graphs';
import { fromHfConfig, loadModelFolder, memoryFileSource, ModelFolderError } from '../../src/engine/modelFolder';
import { exportLlamaFolder, llamaFixtureConfig, llamaFixtureFiles, SMOLLM2_135M } from '../../src/engine/llama-import';
import { readSafetensors } from '../../src/engine/safetensors';
import { samplerFromFolder } from '../../src/engine/sampler';
import { f32, i32, i64, type HostTensor } from '../../src/engine/runtime';
import { Rng } from '../../src/engine/rng';
import type { TokenizerJSON } from '../../src/engine/tokenizer';
import { DEFAULT_TRAIN_CONFIG, GrpoTrainer } from '../../src/rl/trainer';
import { profileFromConfig } from '../../src/agent/profile';
import type { RolloutJudge } from '../../src/agent/rollout';
import { getWorld } from '../../src/envs/worlds/index';
import { rt } from './helpers';
import { refLogits, refMaskedMean, refTokenLogp, to64, type P64 } from './reference';

const SLOW = 240_000;

/** Weights far from the init's near-linear regime, so attention, the MLP and every parameter matter. */
function sharpParams(cfg: LlamaConfig, seed: number): Params {
  const p = initParams(cfg, seed);
  for (const [k, v] of Object.entries(p)) {
    if (!k.endsWith('norm.weight')) v.forEach((x, i) => { v[i] = x * 4; });
    else v.forEach((_, i) => { v[i] = 1 + 0.3 * Math.sin(i + k.length); });
  }
  return p;
}

const gqa = makeConfig('tiny', { vocab_size: 48, hidden_size: 32, intermediate_size: 48, num_hidden_layers: 2, num_attention_heads: 4, num_key_value_heads: 2, tie_word_embeddings: true, max_position_embeddings: 64 });

describe('grouped-query attention and tied embeddings in the decoder', () => {
  it('parameter shapes: k/v narrowed to kv heads, no lm_head when tied; SmolLM2-135M has 134,515,008 parameters', () => {
    const specs = Object.fromEntries(paramSpecs(gqa).map((s) => [s.name, s.shape]));
    expect(specs['model.layers.0.self_attn.k_proj.weight']).toEqual([2 * headDim(gqa), 32]);
    expect(specs['model.layers.0.self_attn.v_proj.weight']).toEqual([2 * headDim(gqa), 32]);
    expect(specs['model.layers.0.self_attn.q_proj.weight']).toEqual([32, 32]);
    expect(specs['lm_head.weight']).toBeUndefined();
    expect(countParams(SMOLLM2_135M)).toBe(134_515_008);
    expect(() => makeConfig('tiny', { num_attention_heads: 4, num_key_value_heads: 3 })).toThrow(/multiple of num_key_value_heads/);
  });

  it('training forward equals the float64 reference; every parameter gradient equals finite differences', async () => {
    const cfg = gqa, params = sharpParams(cfg, 5), B = 2, T = 6, V = cfg.vocab_size;
    const rng = new Rng(21);
    const ids = Array.from({ length: B * T }, () => rng.int(V));
    const targets = Array.from({ length: B * T }, () => rng.int(V));
    const mask = Array.from({ length: B * T }, (_, i) => (i % T < (i < T ? 6 : 4) ? 1 : 0));
    const refLoss = (W: P64) => -refMaskedMean(refTokenLogp(refLogits(cfg, W, ids, B, T), V, targets).logp, mask);

    const s = await rt.createSession(buildTrainGraph(cfg, B, T, { kind: 'ce' }).bytes);
    const feeds: Record<string, HostTensor> = { input_ids: i32(ids, [B, T]), target_ids: i32(targets, [B, T]), loss_mask: f32(mask, [B, T]) };
    for (const p of paramSpecs(cfg)) feeds[p.name] = f32(params[p.name], p.shape);
    const out = await s.run(feeds);
    await s.release();
    const W = to64(params);
    const ref = refTokenLogp(refLogits(cfg, W, ids, B, T), V, targets);
    const lp = out.logprobs.data as Float32Array;
    for (let i = 0; i < B * T; i++) expect(Math.abs(lp[i] - ref.logp[i])).toBeLessThan(1e-4);
    expect(Math.abs((out.loss.data as Float32Array)[0] - refLoss(W))).toBeLessThan(1e-4);

    const eps = 1e-4;
    let checked = 0;
    for (const p of paramSpecs(cfg)) {
      const g = out[`grad.${p.name}`].data as Float32Array;
      expect(g.length).toBe(params[p.name].length);
      let arg = 0, gmax = 0;
      g.forEach((x, i) => { if (Math.abs(x) > gmax) { gmax = Math.abs(x); arg = i; } });
      expect(gmax).toBeGreaterThan(0);
      // The embedding rows of tokens that occur in ids (input use) and of every token (head use).
      const extra = p.name === 'model.embed_tokens.weight' ? [ids[0] * cfg.hidden_size + 3, targets[1] * cfg.hidden_size + 7] : [];
      for (const j of [arg, rng.int(g.length), rng.int(g.length), ...extra]) {
        const w = W[p.name], keep = w[j];
        w[j] = keep + eps; const up = refLoss(W);
        w[j] = keep - eps; const dn = refLoss(W);
        w[j] = keep;
        const fd = (up - dn) / (2 * eps);
        expect(Math.abs(g[j] - fd), `${p.name}[${j}] ort ${g[j]} fd ${fd}`).toBeLessThan(2e-3 * gmax + 1e-2 * Math.abs(fd) + 1e-7);
        checked++;
      }
    }
    expect(checked).toBe(3 * paramSpecs(cfg).length + 2);
  });

  it("a tied embedding's gradient is the sum of its input and head gradients (the untied model with lm_head = embed)", async () => {
    const untied = { ...gqa, tie_word_embeddings: false };
    const tiedParams = sharpParams(gqa, 9);
    const untiedParams = { ...tiedParams, 'lm_head.weight': tiedParams['model.embed_tokens.weight'].slice() };
    const B = 2, T = 5, rng = new Rng(4);
    const ids = Array.from({ length: B * T }, () => rng.int(gqa.vocab_size));
    const targets = Array.from({ length: B * T }, () => rng.int(gqa.vocab_size));
    const run = async (cfg: LlamaConfig, params: Params) => {
      const s = await rt.createSession(buildTrainGraph(cfg, B, T, { kind: 'ce' }).bytes);
      const feeds: Record<string, HostTensor> = { input_ids: i32(ids, [B, T]), target_ids: i32(targets, [B, T]), loss_mask: f32(new Array(B * T).fill(1), [B, T]) };
      for (const p of paramSpecs(cfg)) feeds[p.name] = f32(params[p.name], p.shape);
      const out = await s.run(feeds);
      await s.release();
      return out;
    };
    const a = await run(gqa, tiedParams), b = await run(untied, untiedParams);
    expect((a.loss.data as Float32Array)[0]).toBeCloseTo((b.loss.data as Float32Array)[0], 6);
    const tied = a['grad.model.embed_tokens.weight'].data as Float32Array;
    const emb = b['grad.model.embed_tokens.weight'].data as Float32Array, head = b['grad.lm_head.weight'].data as Float32Array;
    let worst = 0, scale = 0, headOnly = 0;
    tied.forEach((x, i) => { worst = Math.max(worst, Math.abs(x - (emb[i] + head[i]))); scale = Math.max(scale, Math.abs(x)); headOnly = Math.max(headOnly, Math.abs(x - head[i])); });
    expect(worst).toBeLessThan(1e-5 * Math.max(1, scale));
    expect(headOnly).toBeGreaterThan(1e-4 * scale); // the input use really contributes
  });

  it('HF-convention inference (present.*, [batch, kv_heads, …]) and the decode step with a cache equal the training forward', async () => {
    const cfg = gqa, params = sharpParams(cfg, 2), B = 2, T = 7, V = cfg.vocab_size, KVH = cfg.num_key_value_heads, hd = headDim(cfg);
    const rng = new Rng(8);
    const ids = Array.from({ length: B * T }, () => rng.int(V));
    const fwd = await rt.createSession(buildForwardGraph(cfg, B, T).bytes);
    const feeds: Record<string, HostTensor> = { input_ids: i32(ids, [B, T]) };
    for (const p of paramSpecs(cfg)) feeds[p.name] = f32(params[p.name], p.shape);
    const want = (await fwd.run(feeds)).logits.data as Float32Array;
    await fwd.release();

    const empty = (n: number) => Object.fromEntries(Array.from({ length: cfg.num_hidden_layers }, (_, l) => [
      [`past_key_values.${l}.key`, f32(new Float32Array(0), [B, KVH, n, hd])], [`past_key_values.${l}.value`, f32(new Float32Array(0), [B, KVH, n, hd])],
    ]).flat());
    const pos = (from: number, n: number) => Array.from({ length: B * n }, (_, i) => from + (i % n));
    const rows = (from: number, n: number) => Array.from({ length: B * n }, (_, i) => ids[Math.floor(i / n) * T + from + (i % n)]);
    const hf = await rt.createSession(exportInference(cfg, params).bytes);
    const P = 4;
    const pre = await hf.run({ input_ids: i64(rows(0, P), [B, P]), attention_mask: i64(new Array(B * P).fill(1), [B, P]), position_ids: i64(pos(0, P), [B, P]), ...empty(0) });
    expect(pre['present.0.key'].dims).toEqual([B, KVH, P, hd]);
    const past: Record<string, HostTensor> = {};
    for (let l = 0; l < cfg.num_hidden_layers; l++) for (const k of ['key', 'value']) past[`past_key_values.${l}.${k}`] = pre[`present.${l}.${k}`] as HostTensor;
    const rest = await hf.run({ input_ids: i64(rows(P, T - P), [B, T - P]), attention_mask: i64(new Array(B * T).fill(1), [B, T]), position_ids: i64(pos(P, T - P), [B, T - P]), ...past });
    await hf.release();
    const got = (x: Float32Array, n: number, from: number) => Array.from({ length: B * n * V }, (_, i) => {
      const b = Math.floor(i / (n * V)), t = Math.floor(i / V) % n, v = i % V;
      return Math.abs(x[i] - want[(b * T + from + t) * V + v]);
    });
    expect(Math.max(...got(pre.logits.data as Float32Array, P, 0))).toBeLessThan(1e-4);
    expect(Math.max(...got(rest.logits.data as Float32Array, T - P, P))).toBeLessThan(1e-4);

    const step = await rt.createSession(exportDecodeStep(cfg, params).bytes);
    const s = await step.run({ input_ids: i64(rows(P, T - P), [B, T - P]), attention_mask: i64(new Array(B * T).fill(1), [B, T]), position_ids: i64(pos(P, T - P), [B, T - P]), ...past });
    await step.release();
    expect(s['new.1.value'].dims).toEqual([B, KVH, T - P, hd]);
    expect(Math.max(...got(s.logits.data as Float32Array, T - P, P))).toBeLessThan(1e-4);
  });
});

describe('importing a Llama-architecture HF folder', () => {
  it("reads SmolLM2-135M's config.json; refuses what the decoder cannot compute, by name", () => {
    const smol = {
      architectures: ['LlamaForCausalLM'], attention_bias: false, attention_dropout: 0, bos_token_id: 0, eos_token_id: 0, head_dim: 64, hidden_act: 'silu',
      hidden_size: 576, initializer_range: 0.041666666666666664, intermediate_size: 1536, is_llama_config: true, max_position_embeddings: 8192, mlp_bias: false,
      model_type: 'llama', num_attention_heads: 9, num_hidden_layers: 30, num_key_value_heads: 3, pretraining_tp: 1, rms_norm_eps: 1e-5, rope_interleaved: false,
      rope_scaling: null, rope_theta: 100000, tie_word_embeddings: true, torch_dtype: 'bfloat16', use_cache: true, vocab_size: 49152,
    };
    const c = fromHfConfig(smol);
    expect({ ...c, bos_token_id: undefined, eos_token_id: undefined, pad_token_id: undefined, architectures: undefined }).toEqual({ ...SMOLLM2_135M, architectures: undefined });
    const bad = (over: Record<string, unknown>) => { try { fromHfConfig({ ...smol, ...over }); return 'accepted'; } catch (e) { return (e as ModelFolderError).code + ': ' + (e as Error).message; } };
    expect(bad({ num_key_value_heads: 4 })).toMatch(/^bad_config: .*num_key_value_heads/);
    expect(bad({ head_dim: 32 })).toMatch(/^bad_config: .*head_dim/);
    expect(bad({ rope_scaling: { type: 'linear', factor: 2 } })).toMatch(/^bad_config: .*rope_scaling/);
    expect(bad({ tie_word_embeddings: 'yes' })).toMatch(/^bad_config: .*tie_word_embeddings/);
  });

  it('BF16 and F16 safetensors widen exactly to float32 (opt-in; the plain reader still refuses them)', () => {
    const vals = [1, -2.5, 0.0078125, 65280, -0, 3.140625]; // exact in bfloat16
    const bf16 = vals.map((x) => new Uint32Array(new Float32Array([x]).buffer)[0] >>> 16);
    const f16 = [0x3c00, 0xc100, 0x2000, 0x7bff, 0x8000, 0x4248]; // the same values as IEEE half
    const file = (dtype: string, bits: number[]) => {
      const header = new TextEncoder().encode(JSON.stringify({ w: { dtype, shape: [2, 3], data_offsets: [0, 12] } }));
      const out = new Uint8Array(8 + header.length + 12);
      new DataView(out.buffer).setBigUint64(0, BigInt(header.length), true);
      out.set(header, 8);
      bits.forEach((b, i) => new DataView(out.buffer).setUint16(8 + header.length + 2 * i, b, true));
      return out;
    };
    expect(Array.from(readSafetensors(file('BF16', bf16), { widen: true }).tensors.w.data as Float32Array)).toEqual(vals);
    expect(Array.from(readSafetensors(file('F16', f16), { widen: true }).tensors.w.data as Float32Array)).toEqual([1, -2.5, 0.0078125, 65504, -0, 3.140625]);
    expect(() => readSafetensors(file('BF16', bf16))).toThrow(/unsupported dtype BF16/);
  });
});

// ---------------------------------------------------------------------------------------------------------
// The fixture: SmolLM2's architecture at width 64 with a shipped model's tokenizer and prompting profile.
function fixture() {
  const tokenizer = JSON.parse(readFileSync('models/envace-tiny/tokenizer.json', 'utf8')) as TokenizerJSON;
  const tokCfg = JSON.parse(readFileSync('models/envace-tiny/tokenizer_config.json', 'utf8')) as { chat_template: string };
  const envace = (JSON.parse(readFileSync('models/envace-tiny/config.json', 'utf8')) as { envace: { profile: Record<string, any> } }).envace;
  // Short generations: this tests the plumbing, not the policy.
  const profile = { ...envace.profile, act: { maxNewTokens: 8 }, rehearse: { maxNewTokens: 8 }, limits: { maxAssistantTurns: 2, maxGenerations: 4, minNewTokens: 2 } };
  return llamaFixtureFiles({ tokenizer, chatTemplate: tokCfg.chat_template, meta: { profile }, options: { seed: 7 } });
}

describe('fine-tuning an imported GQA + tied fixture', () => {
  it('imports, trains one Role-Wise GRPO step (weights change, loss finite), exports a folder transformers.js runs to the same logits and greedy tokens', async () => {
    const fx = fixture();
    expect(fx.config).toMatchObject({ hidden_size: 64, num_hidden_layers: 2, num_attention_heads: 4, num_key_value_heads: 2, tie_word_embeddings: true });
    expect(Object.keys(fx.files).sort()).toEqual(['config.json', 'generation_config.json', 'model.safetensors', 'special_tokens_map.json', 'tokenizer.json', 'tokenizer_config.json']);
    const stored = readSafetensors(fx.files['model.safetensors']).tensors;
    expect(stored['lm_head.weight']).toBeUndefined();
    expect(stored['model.layers.1.self_attn.k_proj.weight'].shape).toEqual([32, 64]);

    const folder = await loadModelFolder(memoryFileSource(fx.files));
    expect(folder.config).toMatchObject({ num_key_value_heads: 2, tie_word_embeddings: true });
    const before = folder.params['model.embed_tokens.weight'].slice();
    const kBefore = folder.params['model.layers.0.self_attn.k_proj.weight'].slice();
    // An untrained model earns equal (zero) checklist rewards, hence zero advantages and a zero policy gradient;
    // a judge that scores the text itself gives the group different rewards, so the GRPO gradient is exercised.
    const world = getWorld('files');
    const judge: RolloutJudge = { judgeTurn: (_t, turn, steps) => ({ turn, score: (JSON.stringify(steps).length % 11) / 10, items: [], terminated: false }) };
    const tasks = world.tasks({ split: 'train', count: 2 });
    const trainer = new GrpoTrainer({ ...DEFAULT_TRAIN_CONFIG, seed: 3, tasksPerStep: 2, groupSize: 3, maxTurns: 2, microBatch: 4, lr: 1e-2, evalEvery: 0, checkpointEvery: 0 }, {
      runtime: rt, config: folder.config, params: folder.params, tokenizer: folder.tokenizer, ids: folder.ids, profile: profileFromConfig(folder.rawConfig),
      trainTasks: () => tasks, evalTasks: [], runId: 'llama-import', judge,
    });
    const m = await trainer.trainStep();
    expect(m.advActAbs + m.advRehearseAbs).toBeGreaterThan(0);
    expect(m.skipped).toBe(false);
    expect(m.rows).toBeGreaterThan(0);
    expect(Number.isFinite(m.loss) && Number.isFinite(m.gradNorm) && m.gradNorm > 0).toBe(true);
    const after = trainer.actParams();
    expect(after['lm_head.weight']).toBeUndefined();
    expect(after['model.embed_tokens.weight'].some((x, i) => x !== before[i])).toBe(true);
    expect(after['model.layers.0.self_attn.k_proj.weight'].some((x, i) => x !== kBefore[i])).toBe(true);
    expect(after['model.embed_tokens.weight'].every(Number.isFinite)).toBe(true);

    // Export the trained weights with the inference graph; transformers.js loads the folder from disk.
    const dir = join(mkdtempSync(join(tmpdir(), 'llama-export-')), 'llama-gqa-trained');
    const files = exportLlamaFolder({ config: folder.config, params: after, tokenizer: folder.tokenizerJson, chatTemplate: folder.tokenizerConfig.chat_template as string, meta: folder.rawConfig.envace as Record<string, unknown> });
    for (const [rel, bytes] of Object.entries(files)) { mkdirSync(dirname(join(dir, rel)), { recursive: true }); writeFileSync(join(dir, rel), bytes); }
    const exported = await loadModelFolder(dir);
    expect(Array.from(exported.params['model.embed_tokens.weight'])).toEqual(Array.from(after['model.embed_tokens.weight']));

    env.allowRemoteModels = false; env.allowLocalModels = true; env.localModelPath = `${dirname(dir)}/`;
    const tok = await AutoTokenizer.from_pretrained(basename(dir));
    const lm = await AutoModelForCausalLM.from_pretrained(basename(dir), { dtype: 'fp32', device: 'cpu' });
    const prompt = '<|user|>List the files in /docs please.<|end|>\n<|assistant|>';
    const ids = exported.tokenizer.encode(prompt);
    expect(Array.from(tok.encode(prompt) as number[])).toEqual(ids);
    const T = ids.length, V = exported.config.vocab_size;
    const theirs = await (lm as unknown as (x: Record<string, Tensor>) => Promise<{ logits: Tensor }>)({
      input_ids: new Tensor('int64', BigInt64Array.from(ids.map(BigInt)), [1, T]),
      attention_mask: new Tensor('int64', new BigInt64Array(T).fill(1n), [1, T]),
    });
    const fwd = await rt.createSession(buildForwardGraph(exported.config, 1, T).bytes);
    const feeds: Record<string, HostTensor> = { input_ids: i32(ids, [1, T]) };
    for (const p of paramSpecs(exported.config)) feeds[p.name] = f32(after[p.name], p.shape);
    const ours = (await fwd.run(feeds)).logits.data as Float32Array;
    await fwd.release();
    const tl = theirs.logits.data as Float32Array;
    expect(tl.length).toBe(T * V);
    let worst = 0;
    tl.forEach((x, i) => { worst = Math.max(worst, Math.abs(x - ours[i])); });
    expect(worst).toBeLessThan(1e-4);

    const N = 12;
    const gen = await lm.generate({ input_ids: new Tensor('int64', BigInt64Array.from(ids.map(BigInt)), [1, T]), attention_mask: new Tensor('int64', new BigInt64Array(T).fill(1n), [1, T]), max_new_tokens: N, do_sample: false }) as unknown as { tolist(): bigint[][] };
    const hfTokens = gen.tolist()[0].map(Number).slice(T);
    await lm.dispose();
    const sampler = await samplerFromFolder(exported, rt, { mode: 'fast' });
    const [g] = await sampler.generate([{ prompt, maxNewTokens: N, temperature: 0, topP: 1, topK: 0, stop: [], seed: 0 }]);
    await sampler.release();
    const eos = hfTokens.indexOf(exported.ids.eos);
    expect(g.outputIds).toEqual(eos < 0 ? hfTokens : hfTokens.slice(0, eos + 1));
    expect(g.outputIds.length).toBeGreaterThan(0);
  }, SLOW);
});
