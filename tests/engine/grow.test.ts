import { describe, expect, it } from 'vitest';
import { initParams, makeConfig, paramSpecs } from '../../src/engine/decoder';
import { growLayers } from '../../src/engine/grow';
import { refLogits, to64 } from './reference';

describe('growLayers (block expansion)', () => {
  const cfg = makeConfig('tiny', { vocab_size: 64, max_position_embeddings: 32, num_hidden_layers: 2 });
  const params = initParams(cfg, 5);
  const ids = [1, 7, 9, 3, 30, 2, 5, 11];

  it('doubles the depth and computes the same logits as the model it grew from', () => {
    const g = growLayers(cfg, params);
    expect(g.config.num_hidden_layers).toBe(4);
    expect(Object.keys(g.params).sort()).toEqual(paramSpecs(g.config).map((p) => p.name).sort());
    const a = refLogits(cfg, to64(params), ids, 1, ids.length);
    const b = refLogits(g.config, to64(g.params), ids, 1, ids.length);
    let maxDiff = 0;
    for (let i = 0; i < a.length; i++) maxDiff = Math.max(maxDiff, Math.abs(a[i]! - b[i]!));
    expect(maxDiff).toBeLessThan(1e-9);
  });

  it('zeroes only the inserted blocks\' output projections and copies the rest (so the new blocks can learn)', () => {
    const g = growLayers(cfg, params);
    const zero = (x: Float32Array) => x.every((v) => v === 0);
    expect(zero(g.params['model.layers.1.self_attn.o_proj.weight']!)).toBe(true);
    expect(zero(g.params['model.layers.1.mlp.down_proj.weight']!)).toBe(true);
    expect(g.params['model.layers.1.self_attn.q_proj.weight']).toEqual(params['model.layers.0.self_attn.q_proj.weight']);
    expect(g.params['model.layers.2.self_attn.o_proj.weight']).toEqual(params['model.layers.1.self_attn.o_proj.weight']);
    expect(zero(g.params['model.layers.2.mlp.down_proj.weight']!)).toBe(false);
    // A copy, not an alias: training one block must not move its twin.
    expect(g.params['model.layers.1.self_attn.q_proj.weight']).not.toBe(params['model.layers.0.self_attn.q_proj.weight']);
  });

  it('inserts after every k-th layer only, and refuses a bad k', () => {
    expect(growLayers(cfg, params, 2).config.num_hidden_layers).toBe(3);
    expect(() => growLayers(cfg, params, 0)).toThrow(/every/);
  });
});
