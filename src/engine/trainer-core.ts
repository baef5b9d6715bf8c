// A trainable model: parameters as Float32Arrays (HF names), a train graph per (loss, B, T)
// bucket and an AdamW graph, run through any Runtime (Node CPU or the browser worker).
import { ADAMW_DEFAULTS, type AdamWOptions, buildAdamWGraph } from './adamw';
import { type LlamaConfig, type ParamSpec, type Params, initParams, paramSpecs } from './decoder';
import { type InferenceOptions, buildForwardGraph, buildTrainGraph, exportDecodeStep, exportInference } from './graphs';
import { type LossSpec, lossKey } from './losses';
import { type Feeds, type HostTensor, type Runtime, SessionCache, f32, i32, scalar } from './runtime';

/** Right-padded rows, flattened row-major [batch, seq]. target_ids[t] is the token after input_ids[t]. */
export interface LmBatch {
  batch: number;
  seq: number;
  inputIds: ArrayLike<number>;
  targetIds: ArrayLike<number>;
  lossMask: ArrayLike<number>;
}

export interface GrpoBatch extends LmBatch {
  advantages: ArrayLike<number>; // per token (broadcast a row's scalar advantage over its tokens)
  oldLogprobs: ArrayLike<number>;
  refLogprobs?: ArrayLike<number>;
}

export interface GrpoHyper { clipRatioLow: number; clipRatioHigh: number; clipRatioC: number; klCoef: number }
export const GRPO_DEFAULTS: GrpoHyper = { clipRatioLow: 0.2, clipRatioHigh: 0.2, clipRatioC: 3.0, klCoef: 0.001 };

/**
 * Next-token batch from token sequences: row r uses seqs[r][0..T-1] as input and seqs[r][1..T] as
 * target; the mask is 1 where the target is a real token (and, if given, weight[r][t+1] says so).
 */
export function makeLmBatch(seqs: number[][], T: number, opts: { pad?: number; weights?: number[][] } = {}): LmBatch {
  const B = seqs.length, pad = opts.pad ?? 0;
  const inputIds = new Int32Array(B * T).fill(pad), targetIds = new Int32Array(B * T).fill(pad), lossMask = new Float32Array(B * T);
  seqs.forEach((s, r) => {
    for (let t = 0; t < T && t < s.length; t++) inputIds[r * T + t] = s[t];
    for (let t = 0; t < T && t + 1 < s.length; t++) {
      targetIds[r * T + t] = s[t + 1];
      lossMask[r * T + t] = opts.weights ? opts.weights[r][t + 1] : 1;
    }
  });
  return { batch: B, seq: T, inputIds, targetIds, lossMask };
}

/** into += scale·from, per parameter (gradient accumulation over micro-batches). */
export function accumulateGrads(into: Params, from: Params, scale = 1): Params {
  for (const [k, g] of Object.entries(from)) {
    const acc = (into[k] ??= new Float32Array(g.length));
    for (let i = 0; i < g.length; i++) acc[i] += scale * g[i];
  }
  return into;
}

export interface StepResult {
  loss: number;
  logprobs: Float32Array; // [B, T]
  entropy: Float32Array; // [B, T]
  metrics: Record<string, number>; // pg_loss, kl_loss, clipfrac, clipfrac_lower, ppo_kl (GRPO)
  grads: Params;
}

export interface TrainStepOptions {
  lr: number;
  loss?: LossSpec; // default cross-entropy
  grpo?: Partial<GrpoHyper>;
}

export interface ModelOptions { seed?: number; adam?: AdamWOptions }

export class Model {
  readonly specs: ParamSpec[];
  params: Params;
  m: Params;
  v: Params;
  step = 0;
  readonly sessions: SessionCache;
  readonly adam: AdamWOptions;

  constructor(readonly cfg: LlamaConfig, readonly runtime: Runtime, params?: Params, opts: ModelOptions = {}) {
    this.specs = paramSpecs(cfg);
    this.params = params ?? initParams(cfg, opts.seed ?? 0);
    const zeros = () => Object.fromEntries(this.specs.map((p) => [p.name, new Float32Array(this.params[p.name].length)]));
    this.m = zeros();
    this.v = zeros();
    this.adam = { ...ADAMW_DEFAULTS, ...opts.adam };
    this.sessions = new SessionCache(runtime);
  }

  private paramFeeds(src: Params = this.params, prefix = ''): Feeds {
    const f: Feeds = {};
    for (const p of this.specs) f[prefix + p.name] = f32(src[p.name], p.shape);
    return f;
  }

  private batchFeeds(b: LmBatch | GrpoBatch, loss: LossSpec, hyper: GrpoHyper): Feeds {
    const dims = [b.batch, b.seq];
    const f: Feeds = {
      input_ids: i32(b.inputIds, dims),
      target_ids: i32(b.targetIds, dims),
      loss_mask: f32(Float32Array.from(b.lossMask), dims),
    };
    if (loss.kind === 'grpo') {
      const gb = b as GrpoBatch;
      f.advantages = f32(Float32Array.from(gb.advantages), dims);
      f.old_logprobs = f32(Float32Array.from(gb.oldLogprobs), dims);
      f.clip_ratio_low = scalar(hyper.clipRatioLow);
      f.clip_ratio_high = scalar(hyper.clipRatioHigh);
      f.clip_ratio_c = scalar(hyper.clipRatioC);
      if (loss.kl !== 'none') {
        if (!gb.refLogprobs) throw new Error('KL loss needs refLogprobs');
        f.ref_logprobs = f32(Float32Array.from(gb.refLogprobs), dims);
        f.kl_coef = scalar(hyper.klCoef);
      }
    }
    return f;
  }

  /** Forward + loss + gradients, no update. Use with applyGrads for gradient accumulation. */
  async computeGrads(batch: LmBatch | GrpoBatch, loss: LossSpec = { kind: 'ce' }, grpo: Partial<GrpoHyper> = {}): Promise<StepResult> {
    const { batch: B, seq: T } = batch;
    const s = await this.sessions.get(`train-${lossKey(loss)}`, `${B}x${T}`, () => buildTrainGraph(this.cfg, B, T, loss).bytes);
    const out = await s.run({ ...this.paramFeeds(), ...this.batchFeeds(batch, loss, { ...GRPO_DEFAULTS, ...grpo }) });
    const grads: Params = {};
    const metrics: Record<string, number> = {};
    for (const [k, t] of Object.entries(out)) {
      if (k.startsWith('grad.')) grads[k.slice(5)] = t.data as Float32Array;
      else if (t.data.length === 1) metrics[k] = Number(t.data[0]);
    }
    return { loss: metrics.loss, logprobs: out.logprobs.data as Float32Array, entropy: out.entropy.data as Float32Array, metrics, grads };
  }

  /** log p(target) and entropy per token without gradients (old/ref log-probs for GRPO). */
  async score(batch: LmBatch): Promise<{ logprobs: Float32Array; entropy: Float32Array; loss: number }> {
    const { batch: B, seq: T } = batch;
    const loss: LossSpec = { kind: 'ce' };
    const s = await this.sessions.get('score', `${B}x${T}`, () => buildTrainGraph(this.cfg, B, T, loss, { grads: false }).bytes);
    const out = await s.run({ ...this.paramFeeds(), ...this.batchFeeds(batch, loss, GRPO_DEFAULTS) }, { fetches: ['loss', 'logprobs', 'entropy'] });
    return { logprobs: out.logprobs.data as Float32Array, entropy: out.entropy.data as Float32Array, loss: Number(out.loss.data[0]) };
  }

  /** One AdamW update with the given gradients; returns the pre-clip global grad norm. */
  async applyGrads(grads: Params, lr: number): Promise<number> {
    const s = await this.sessions.get('adamw', 'all', () => buildAdamWGraph(this.specs, this.adam).bytes);
    this.step += 1;
    const feeds: Feeds = { ...this.paramFeeds(), ...this.paramFeeds(grads, 'grad.'), ...this.paramFeeds(this.m, 'm.'), ...this.paramFeeds(this.v, 'v.'), step: scalar(this.step), lr: scalar(lr) };
    const out = await s.run(feeds);
    for (const p of this.specs) {
      this.params[p.name] = out[`next.${p.name}`].data as Float32Array;
      this.m[p.name] = out[`next.m.${p.name}`].data as Float32Array;
      this.v[p.name] = out[`next.v.${p.name}`].data as Float32Array;
    }
    return Number(out.grad_norm.data[0]);
  }

  /** computeGrads then applyGrads. */
  async trainStep(batch: LmBatch | GrpoBatch, opts: TrainStepOptions): Promise<StepResult & { gradNorm: number }> {
    const r = await this.computeGrads(batch, opts.loss ?? { kind: 'ce' }, opts.grpo);
    const gradNorm = await this.applyGrads(r.grads, opts.lr);
    return { ...r, gradNorm };
  }

  /** Logits [B, T, vocab] for equal-length rows (causal, positions from 0). */
  async forwardLogits(ids: number[][]): Promise<HostTensor> {
    const B = ids.length, T = ids[0].length;
    const s = await this.sessions.get('forward', `${B}x${T}`, () => buildForwardGraph(this.cfg, B, T).bytes);
    return (await s.run({ ...this.paramFeeds(), input_ids: i32(ids.flat(), [B, T]) })).logits;
  }

  exportInference(opts?: InferenceOptions) { return exportInference(this.cfg, this.params, opts); }
  exportDecodeStep(opts?: InferenceOptions) { return exportDecodeStep(this.cfg, this.params, opts); }

  async dispose(): Promise<void> { await this.sessions.clear(); }
}
