// Llama-architecture Hugging Face checkpoints (safetensors, grouped-query attention, tied embeddings: the
// SmolLM2 family) in and out of the engine. Import is loadModelFolder (config.json → LlamaConfig, F32/F16/BF16
// safetensors widened to float32, a tied checkpoint's missing lm_head.weight expected); the decoder and the
// training graph take GQA and tied heads directly, so an imported model trains with the GRPO trainer as is.
// Export is modelFolderFiles: the same weights plus the HF-convention ONNX graph that transformers.js runs.

import { countParams, initParams, makeConfig, type LlamaConfig, type Params } from './decoder';
import { modelFolderFiles, type ModelFolderParts } from './modelFolder';
import { BPETokenizer, type TokenizerJSON } from './tokenizer';

/**
 * SmolLM2-135M's shape (HuggingFaceTB/SmolLM2-135M config.json): 9 query heads over 3 key/value heads,
 * tied embeddings, 134,515,008 parameters. Used to size benchmarks; no weights come with it.
 */
export const SMOLLM2_135M: LlamaConfig = {
  model_type: 'llama',
  architectures: ['LlamaForCausalLM'],
  hidden_size: 576,
  intermediate_size: 1536,
  num_hidden_layers: 30,
  num_attention_heads: 9,
  num_key_value_heads: 3,
  vocab_size: 49152,
  max_position_embeddings: 8192,
  rms_norm_eps: 1e-5,
  rope_theta: 100000,
  tie_word_embeddings: true,
  hidden_act: 'silu',
  torch_dtype: 'float32',
};

export interface LlamaFixtureOptions {
  hiddenSize?: number;
  layers?: number;
  heads?: number;
  kvHeads?: number;
  intermediateSize?: number;
  maxPositions?: number;
  seed?: number;
}

/** SmolLM2's architecture at a small width (default hidden 64, 2 layers, 4 heads over 2 kv heads, tied). */
export function llamaFixtureConfig(vocabSize: number, o: LlamaFixtureOptions = {}): LlamaConfig {
  return makeConfig(SMOLLM2_135M, {
    vocab_size: vocabSize,
    hidden_size: o.hiddenSize ?? 64,
    num_hidden_layers: o.layers ?? 2,
    num_attention_heads: o.heads ?? 4,
    num_key_value_heads: o.kvHeads ?? 2,
    intermediate_size: o.intermediateSize ?? 192,
    max_position_embeddings: o.maxPositions ?? 1024,
  });
}

export interface LlamaFixtureParts {
  /** One of our tokenizers (e.g. a shipped model folder's tokenizer.json) with <|bos|>, <|eos|>, <|pad|>. */
  tokenizer: TokenizerJSON;
  chatTemplate?: string;
  /** Extra provenance for config.json's "envace" block (a prompting profile, for instance). */
  meta?: Record<string, unknown>;
  options?: LlamaFixtureOptions;
}

/**
 * A random Llama-architecture checkpoint folder in the HF layout (config.json, generation_config.json,
 * tokenizer files, model.safetensors without lm_head.weight, no ONNX graph: what a PyTorch hub repo holds).
 */
export function llamaFixtureFiles(p: LlamaFixtureParts): { config: LlamaConfig; params: Params; files: Record<string, Uint8Array> } {
  const vocab = new BPETokenizer(p.tokenizer).vocabSize;
  const config = llamaFixtureConfig(vocab, p.options);
  const params = initParams(config, p.options?.seed ?? 0);
  const files = modelFolderFiles({
    config, params, tokenizer: p.tokenizer, chatTemplate: p.chatTemplate, withOnnx: false,
    meta: { fixture: 'llama-gqa-tied', seed: p.options?.seed ?? 0, ...(p.meta ?? {}) },
  });
  return { config, params, files };
}

/** An imported (and perhaps trained) model as a folder transformers.js loads: weights plus onnx/model.onnx. */
export function exportLlamaFolder(p: Omit<ModelFolderParts, 'withOnnx' | 'onnx'>): Record<string, Uint8Array> {
  return modelFolderFiles({ ...p, withOnnx: true });
}

/**
 * Memory a GRPO step needs on top of activations, in bytes: float32 parameters, their gradients and the two
 * AdamW moments (4 copies), plus the KL reference or frozen copy when the variant keeps one.
 */
export function trainingStateBytes(cfg: LlamaConfig, copiesOfParams = 4): number {
  return countParams(cfg) * 4 * copiesOfParams;
}
