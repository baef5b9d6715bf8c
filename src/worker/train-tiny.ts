// A throwaway model built on the fly for training demos and e2e: the shipped models are too slow for a CI
// run on WASM/SwiftShader, and a fixture folder would have to be regenerated whenever the world texts
// change. Deterministic in (world, seed), so a resumed run rebuilds the exact starting weights that the
// KL reference and the frozen simulator need.

import { COMPACT_CHAT_TEMPLATE, PROTOCOL_TOKENS } from '../agent/chatTemplate';
import { TINY_PROFILE, type PromptProfile } from '../agent/profile';
import { initParams, makeConfig } from '../engine/decoder';
import { loadModelFolder, memoryFileSource, modelFolderFiles, type ModelFolder } from '../engine/modelFolder';
import { BPETokenizer, DEFAULT_SPECIAL_TOKENS, trainBPE } from '../engine/tokenizer';
import { getWorld } from '../envs/worlds/index';

export const TINY_MODEL = 'builtin:tiny';
// Measured in Node on 'files': 600 merges make steps ~3× cheaper than 300; 1000 buys nothing more.
const VOCAB = 600;

export interface TinyModelOptions { world: string; seed: number; maxNewTokens: number }

export async function buildTinyFolder(o: TinyModelOptions): Promise<ModelFolder> {
  const world = getWorld(o.world);
  const tasks = world.tasks({ split: 'train', count: 6 });
  // Prompts are mostly the policy and the tool schemas: merging those keeps a 'files' prompt inside the
  // 512-token bucket, which makes every training and sampling graph several times cheaper.
  const corpus = [
    ...tasks.flatMap((t) => t.reference.map((m) => m.content)),
    ...tasks.slice(0, 1).map((t) => t.policy),
    JSON.stringify(world.tools()),
  ].join('\n');
  const tok = trainBPE(corpus, { vocabSize: VOCAB, specialTokens: DEFAULT_SPECIAL_TOKENS, addedTokens: PROTOCOL_TOKENS });
  const vocab = new BPETokenizer(tok).vocabSize;
  const cfg = makeConfig('tiny', { vocab_size: vocab, max_position_embeddings: 1024, hidden_size: 32, intermediate_size: 64, num_hidden_layers: 1 });
  const n = o.maxNewTokens;
  const profile: PromptProfile = {
    ...TINY_PROFILE,
    act: { maxNewTokens: n }, rehearse: { maxNewTokens: n },
    limits: { ...TINY_PROFILE.limits, maxGenerations: 6, minNewTokens: Math.min(4, n) },
  };
  const files = modelFolderFiles({
    config: cfg, params: initParams(cfg, o.seed), tokenizer: tok, chatTemplate: COMPACT_CHAT_TEMPLATE,
    // The ONNX inference graph is not needed to train; the export path rebuilds it from the trained weights.
    withOnnx: false,
    meta: { builtin: 'tiny', world: o.world, seed: o.seed, profile },
  });
  return loadModelFolder(memoryFileSource(files));
}

/** A folder's prompting profile with the per-generation token budget replaced (shipped models keep theirs). */
export function withMaxNewTokens(folder: ModelFolder, maxNewTokens: number | undefined): ModelFolder {
  if (!maxNewTokens) return folder;
  const env = (folder.rawConfig.envace ?? {}) as { profile?: PromptProfile };
  const base = env.profile ?? TINY_PROFILE;
  const profile: PromptProfile = { ...base, act: { ...base.act, maxNewTokens }, rehearse: { ...base.rehearse, maxNewTokens } };
  return { ...folder, rawConfig: { ...folder.rawConfig, envace: { ...env, profile } } };
}
