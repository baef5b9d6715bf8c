// Puts a GrpoTrainer on the paths issue 9 replaced, for speed comparisons in the same environment (the browser
// benchmark, e2e/train-speed.spec.ts, through the worker's `referencePaths` train option): the row-by-row padded
// update (train-reference.ts) instead of the packed one, and the frozen pre-issue sampler without a prefix cache
// (sampler-reference.ts) for every rollout. Same loss, gradients within float rounding, same sampled tokens up to
// float rounding; only the time differs. Never used by a normal run.
import type { Params } from '../engine/decoder';
import type { Model } from '../engine/trainer-core';
import type { Runtime } from '../engine/runtime';
import type { GrpoTrainer } from '../rl/trainer';
import type { UpdateResult, UpdateRow } from '../rl/update';
import { referenceGrpoGradients } from './train-reference';
import * as ReferenceSampler from './sampler-reference';

/** The trainer's internals this patch replaces (private in GrpoTrainer; checked at run time). */
interface TrainerInternals {
  cfg: GrpoTrainer['cfg'];
  ref?: Model;
  deps: { runtime: Runtime; config: Parameters<typeof ReferenceSampler.createOrtKVModel>[1]; tokenizer: ConstructorParameters<typeof ReferenceSampler.Sampler>[1]; ids: { pad: number; eos: number } };
  update: (model: Model, rows: { row: { promptIds: number[]; outputIds: number[]; logprobs: number[] }; adv: number }[], lr?: number) => Promise<UpdateResult>;
  sampler: (params: Params, name: string) => Promise<unknown>;
}

export function useReferencePaths(trainer: GrpoTrainer, opts: { microBatch?: number } = {}): void {
  const t = trainer as unknown as TrainerInternals;
  if (typeof t.update !== 'function' || typeof t.sampler !== 'function' || !t.deps) throw new Error('GrpoTrainer internals changed: reference paths cannot be installed');
  // Every row, zero advantages included (the current update skips those; the gradient must come out the same), at
  // the step's learning rate (warmup).
  t.update = async (model, rowsIn, lr) => {
    const c = t.cfg;
    const stepLr = lr ?? c.lr;
    const rows: UpdateRow[] = rowsIn.map((r) => ({ promptIds: r.row.promptIds, outputIds: r.row.outputIds, logprobs: r.row.logprobs, adv: r.adv }));
    const { grads, stats } = await referenceGrpoGradients(model, rows, {
      lossAggMode: c.lossAggMode, klType: c.klType, clipRatioLow: c.clipRatioLow, clipRatioHigh: c.clipRatioHigh, clipRatioC: c.clipRatioC,
      klCoef: c.klCoef, lr: stepLr, pad: t.deps.ids.pad, maxContext: t.deps.config.max_position_embeddings, microBatch: opts.microBatch ?? 8,
    }, t.ref);
    const res: UpdateResult = { ...stats, gradNorm: 0, skipped: false };
    if (stats.rows === 0) return res;
    // As grpoUpdate: a non-finite update is skipped, not applied.
    if (!Number.isFinite(stats.loss) || Object.values(grads).some((g) => g.some((x) => !Number.isFinite(x)))) {
      res.skipped = true;
      res.note = 'non-finite loss or gradient: update skipped, weights unchanged';
      return res;
    }
    res.gradNorm = await model.applyGrads(grads, stepLr);
    return res;
  };
  t.sampler = async (params, name) => {
    const d = t.deps;
    const kv = await ReferenceSampler.createOrtKVModel(d.runtime, d.config, params);
    const s = new ReferenceSampler.Sampler(kv, d.tokenizer, { name, maxContext: d.config.max_position_embeddings, eosTokenIds: [d.ids.eos], padTokenId: d.ids.pad, prefixCache: false }) as ReferenceSampler.Sampler & { release(): Promise<void> };
    s.release = () => kv.release();
    return s;
  };
}
