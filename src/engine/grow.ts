// Block expansion (as in LLaMA Pro): a deeper model that computes exactly what the given one computes. After every
// `every`-th decoder layer a copy of that layer is inserted whose output projections (self_attn.o_proj,
// mlp.down_proj) are zero, so the new block adds nothing to the residual stream until training moves them; their
// inputs are the copied layer's, so gradients reach them from the first step.
import type { LlamaConfig, Params } from './decoder';

export function growLayers(cfg: LlamaConfig, params: Params, every = 1): { config: LlamaConfig; params: Params } {
  if (!Number.isInteger(every) || every < 1) throw new Error(`every must be a whole number ≥ 1, got ${every}`);
  const out: Params = {};
  for (const name of ['model.embed_tokens.weight', 'model.norm.weight', 'lm_head.weight']) if (params[name]) out[name] = params[name]!;
  let j = 0;
  const copy = (i: number, zeroOut: boolean) => {
    const from = `model.layers.${i}.`, to = `model.layers.${j++}.`;
    for (const [k, v] of Object.entries(params)) {
      if (!k.startsWith(from)) continue;
      const rest = k.slice(from.length);
      out[to + rest] = zeroOut && (rest === 'self_attn.o_proj.weight' || rest === 'mlp.down_proj.weight') ? new Float32Array(v.length) : v.slice();
    }
  };
  for (let i = 0; i < cfg.num_hidden_layers; i++) {
    copy(i, false);
    if ((i + 1) % every === 0) copy(i, true);
  }
  return { config: { ...cfg, num_hidden_layers: j }, params: out };
}
