// A trainable model: parameters as Float32Arrays (HF names), a train graph per (loss, B, T)
// bucket and an AdamW graph, run through any Runtime (Node CPU or the browser worker).
import { ADAMW_AUTO_CHUNK_BYTES, ADAMW_AUTO_THRESHOLD_BYTES, ADAMW_DEFAULTS, type AdamWOptions, adamChunks, buildAdamWGraph, buildGradSquaresGraph } from './adamw';
import { type LlamaConfig, type ParamSpec, type Params, initParams, paramSpecs } from './decoder';
import { type InferenceOptions, buildForwardGraph, buildPackedTrainGraph, buildTrainGraph, exportDecodeStep, exportInference } from './graphs';
import { type LossSpec, type PackedLossSpec, lossKey, packedLossKey } from './losses';
import type { PackedBatch } from './packing';
import { Graph } from './graph';
import { type Feeds, type HostTensor, type NativeTensor, type Runtime, type SessionOptions, SessionCache, f32, i32, isNative, scalar } from './runtime';

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

type AnyBatch = LmBatch | GrpoBatch | PackedBatch;
const isPacked = (b: AnyBatch): b is PackedBatch => 'attentionBias' in b;

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
  loss?: LossSpec | PackedLossSpec; // default cross-entropy; a PackedLossSpec for a PackedBatch
  grpo?: Partial<GrpoHyper>;
}

export interface ModelOptions {
  seed?: number;
  adam?: AdamWOptions;
  /**
   * 'device': parameters, AdamW moments and (inside trainStep) gradients stay backend-native tensors
   * between graph runs, so on WebGPU nothing but the batch and the metrics crosses the bus. `params`,
   * `m` and `v` are then stale until `await syncToHost()`. Default 'host'.
   */
  residency?: 'host' | 'device';
  /** ORT preferredOutputLocation for the kept state outputs in device residency, e.g. 'gpu-buffer'. */
  outputLocation?: string;
  /**
   * AdamW in chunks of at most this many parameter bytes: a grad-norm pass over all gradients, then one
   * update graph per chunk fed that global norm, so the update equals the single graph's. 'auto' (default)
   * chunks at ADAMW_AUTO_CHUNK_BYTES only when the parameters exceed ADAMW_AUTO_THRESHOLD_BYTES; 'off' forces one graph.
   */
  adamChunkBytes?: number | 'auto' | 'off';
}

type Tensorish = HostTensor | NativeTensor;

export class Model {
  readonly specs: ParamSpec[];
  params: Params;
  m: Params;
  v: Params;
  step = 0;
  readonly sessions: SessionCache;
  readonly adam: AdamWOptions;
  /** Device-residency state (param name → tensor); null in host residency. */
  private dev: { p: Record<string, Tensorish>; m: Record<string, Tensorish>; v: Record<string, Tensorish> } | null = null;
  private stale = false;
  private readonly location?: string;
  /** Parameter runs of a chunked AdamW update; null when one graph updates everything. */
  readonly adamChunks: ParamSpec[][] | null;

  constructor(readonly cfg: LlamaConfig, readonly runtime: Runtime, params?: Params, opts: ModelOptions = {}) {
    this.specs = paramSpecs(cfg);
    this.params = params ?? initParams(cfg, opts.seed ?? 0);
    for (const p of this.specs) {
      const n = p.shape.reduce((x, y) => x * y, 1);
      if (this.params[p.name]?.length !== n) throw new Error(`parameter ${p.name}: expected ${n} values, got ${this.params[p.name]?.length}`);
    }
    const zeros = () => Object.fromEntries(this.specs.map((p) => [p.name, new Float32Array(this.params[p.name].length)]));
    this.m = zeros();
    this.v = zeros();
    this.adam = { ...ADAMW_DEFAULTS, ...opts.adam };
    this.sessions = new SessionCache(runtime);
    this.location = opts.outputLocation;
    const chunkOpt = opts.adamChunkBytes ?? 'auto';
    const totalBytes = this.specs.reduce((s, p) => s + 4 * p.shape.reduce((x, y) => x * y, 1), 0);
    const chunkBytes = chunkOpt === 'off' ? 0 : chunkOpt === 'auto' ? (totalBytes > ADAMW_AUTO_THRESHOLD_BYTES ? ADAMW_AUTO_CHUNK_BYTES : 0) : chunkOpt;
    this.adamChunks = chunkBytes ? adamChunks(this.specs, chunkBytes) : null;
    if (opts.residency === 'device') {
      const wrap = (src: Params) => Object.fromEntries(this.specs.map((p) => [p.name, f32(src[p.name], p.shape) as Tensorish]));
      this.dev = { p: wrap(this.params), m: wrap(this.m), v: wrap(this.v) };
    }
  }

  /** Replaces parameters and/or optimizer state (checkpoint resume); works in both residencies. */
  setState(st: { params?: Params; m?: Params; v?: Params; step?: number }): void {
    if (this.stale && !(st.params && st.m && st.v)) throw new Error('device state is newer than the host copy: syncToHost() before a partial setState');
    if (st.params) this.params = st.params;
    if (st.m) this.m = st.m;
    if (st.v) this.v = st.v;
    if (st.step !== undefined) this.step = st.step;
    if (this.dev) {
      for (const t of [...Object.values(this.dev.p), ...Object.values(this.dev.m), ...Object.values(this.dev.v)]) if (isNative(t)) t.dispose?.();
      const wrap = (src: Params) => Object.fromEntries(this.specs.map((p) => [p.name, f32(src[p.name], p.shape) as Tensorish]));
      this.dev = { p: wrap(this.params), m: wrap(this.m), v: wrap(this.v) };
    }
    this.stale = false;
  }

  /** True when `params`/`m`/`v` lag behind device-resident state (call syncToHost). */
  get hostStale(): boolean { return this.stale; }

  private paramFeeds(src: Params = this.params, prefix = '', specs: ParamSpec[] = this.specs): Feeds {
    const f: Feeds = {};
    const dev = this.dev && (src === this.params ? this.dev.p : src === this.m ? this.dev.m : src === this.v ? this.dev.v : null);
    for (const p of specs) f[prefix + p.name] = dev ? dev[p.name] : f32(src[p.name], p.shape);
    return f;
  }

  /** Session options placing the named outputs at the device location (device residency only). */
  private placed(names: string[]): SessionOptions | undefined {
    if (!this.dev || !this.location) return undefined;
    return { extra: { preferredOutputLocation: Object.fromEntries(names.map((n) => [n, this.location])) } };
  }

  /**
   * Copies device-resident params and moments into `params`, `m`, `v`. Done by running a copy graph
   * whose outputs land on the host, which works on every backend (onnxruntime-node cannot read a
   * gpu-buffer tensor directly).
   */
  async syncToHost(): Promise<void> {
    const dev = this.dev;
    if (!dev || !this.stale) return;
    const s = await this.sessions.get('state-copy', 'all', () => {
      const g = new Graph();
      for (const pre of ['', 'm.', 'v.']) for (const p of this.specs) g.output(g.input(pre + p.name, 'float32', p.shape), `out.${pre}${p.name}`);
      return g.serialize();
    });
    const out = await s.run({ ...this.paramFeeds(), ...this.paramFeeds(this.m, 'm.'), ...this.paramFeeds(this.v, 'v.') });
    for (const p of this.specs) {
      this.params[p.name] = out[`out.${p.name}`].data as Float32Array;
      this.m[p.name] = out[`out.m.${p.name}`].data as Float32Array;
      this.v[p.name] = out[`out.v.${p.name}`].data as Float32Array;
    }
    this.stale = false;
  }

  private batchFeeds(b: AnyBatch, loss: LossSpec | PackedLossSpec, hyper: GrpoHyper): Feeds {
    // Per-token fields: [B, T], or [B, N] for a packed batch that scores N selected positions per row.
    const dims = [b.batch, isPacked(b) ? b.scored : b.seq];
    const f: Feeds = {
      input_ids: i32(b.inputIds, [b.batch, b.seq]),
      target_ids: i32(b.targetIds, dims),
    };
    if (isPacked(b)) {
      f.position_ids = i32(b.positionIds, [b.batch, b.seq]);
      f.attention_bias = f32(b.attentionBias, [b.batch, b.seq, b.seq]);
      f.loss_weight = f32(b.lossWeight, dims);
      if (b.select) f.select = f32(b.select, [b.batch, b.scored, b.seq]);
    } else f.loss_mask = f32(Float32Array.from(b.lossMask), dims);
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
  async computeGrads(batch: LmBatch | GrpoBatch, loss?: LossSpec, grpo?: Partial<GrpoHyper>): Promise<StepResult>;
  /** A packed batch (packing.ts): the loss is Σ lossWeight·token loss, its spec has no aggregation mode. */
  async computeGrads(batch: PackedBatch, loss?: PackedLossSpec, grpo?: Partial<GrpoHyper>): Promise<StepResult>;
  async computeGrads(batch: AnyBatch, loss: LossSpec | PackedLossSpec = { kind: 'ce' }, grpo: Partial<GrpoHyper> = {}): Promise<StepResult> {
    return (await this.runTrain(batch, loss, grpo, false)).result;
  }

  private async runTrain(batch: AnyBatch, loss: LossSpec | PackedLossSpec, grpo: Partial<GrpoHyper>, nativeGrads: boolean) {
    const { batch: B, seq: T } = batch;
    const gradNames = this.specs.map((p) => `grad.${p.name}`);
    const packed = isPacked(batch);
    const key = `train-${packed ? packedLossKey(loss as PackedLossSpec) : lossKey(loss as LossSpec)}${nativeGrads ? '-dev' : ''}`;
    const select = packed && batch.select ? batch.scored : undefined;
    const build = () => (packed ? buildPackedTrainGraph(this.cfg, B, T, loss as PackedLossSpec, { select }) : buildTrainGraph(this.cfg, B, T, loss as LossSpec)).bytes;
    const s = await this.sessions.get(key, `${B}x${T}${select ? `s${select}` : ''}`, build, nativeGrads ? this.placed(gradNames) : undefined);
    const out = await s.runMixed({ ...this.paramFeeds(), ...this.batchFeeds(batch, loss, { ...GRPO_DEFAULTS, ...grpo }) },
      { keepNative: nativeGrads ? gradNames : [] });
    const grads: Params = {};
    const gradFeeds: Feeds = {};
    const metrics: Record<string, number> = Object.create(null);
    for (const [k, t] of Object.entries(out)) {
      if (k.startsWith('grad.')) {
        gradFeeds[k] = t;
        if (!isNative(t)) grads[k.slice(5)] = t.data as Float32Array;
      } else if (!isNative(t) && t.data.length === 1) metrics[k] = Number(t.data[0]);
    }
    const host = (k: string) => (out[k] as HostTensor).data as Float32Array;
    const result: StepResult = { loss: metrics.loss, logprobs: host('logprobs'), entropy: host('entropy'), metrics, grads };
    return { result, gradFeeds };
  }

  /** log p(target) and entropy per token without gradients (old/ref log-probs for GRPO). */
  async score(batch: LmBatch | PackedBatch): Promise<{ logprobs: Float32Array; entropy: Float32Array; loss: number }> {
    const { batch: B, seq: T } = batch;
    const loss: LossSpec = { kind: 'ce' };
    const packed = isPacked(batch);
    const select = packed && batch.select ? batch.scored : undefined;
    const s = await this.sessions.get(packed ? 'score-packed' : 'score', `${B}x${T}${select ? `s${select}` : ''}`,
      () => (packed ? buildPackedTrainGraph(this.cfg, B, T, loss, { grads: false, select }) : buildTrainGraph(this.cfg, B, T, loss, { grads: false })).bytes);
    const out = await s.run({ ...this.paramFeeds(), ...this.batchFeeds(batch, loss, GRPO_DEFAULTS) }, { fetches: ['loss', 'logprobs', 'entropy'] });
    return { logprobs: out.logprobs.data as Float32Array, entropy: out.entropy.data as Float32Array, loss: Number(out.loss.data[0]) };
  }

  /** One AdamW update with the given gradients; returns the pre-clip global grad norm. */
  async applyGrads(grads: Params, lr: number): Promise<number> {
    return this.runAdam(this.paramFeeds(grads, 'grad.'), lr);
  }

  private async runAdam(gradFeeds: Feeds, lr: number): Promise<number> {
    if (this.adamChunks) return this.runAdamChunked(gradFeeds, lr, this.adamChunks);
    const names = this.specs.flatMap((p) => [`next.${p.name}`, `next.m.${p.name}`, `next.v.${p.name}`]);
    const s = await this.sessions.get(this.dev ? 'adamw-dev' : 'adamw', 'all', () => buildAdamWGraph(this.specs, this.adam).bytes, this.placed(names));
    this.step += 1;
    const feeds: Feeds = { ...this.paramFeeds(), ...gradFeeds, ...this.paramFeeds(this.m, 'm.'), ...this.paramFeeds(this.v, 'v.'), step: scalar(this.step), lr: scalar(lr) };
    const out = await s.runMixed(feeds, { keepNative: this.dev ? names : [] });
    this.takeAdamOutputs(out, this.specs);
    return Number((out.grad_norm as HostTensor).data[0]);
  }

  /** The chunked update (ModelOptions.adamChunkBytes): global norm first, then each chunk's AdamW graph. */
  private async runAdamChunked(gradFeeds: Feeds, lr: number, chunks: ParamSpec[][]): Promise<number> {
    const pick = (c: ParamSpec[]) => Object.fromEntries(c.map((p) => [`grad.${p.name}`, gradFeeds[`grad.${p.name}`]]));
    // float32 running sum in parameter order: the single graph's own summation, so the norm matches it.
    let sq = 0;
    for (const [i, c] of chunks.entries()) {
      const s = await this.sessions.get('adamw-sq', `${i}/${chunks.length}`, () => buildGradSquaresGraph(c).bytes);
      const out = await s.run(pick(c));
      for (const p of c) sq = Math.fround(sq + Number(out[`sq.${p.name}`].data[0]));
    }
    const norm = Math.fround(Math.sqrt(sq));
    this.step += 1;
    for (const [i, c] of chunks.entries()) {
      const names = c.flatMap((p) => [`next.${p.name}`, `next.m.${p.name}`, `next.v.${p.name}`]);
      const s = await this.sessions.get(this.dev ? 'adamw-chunk-dev' : 'adamw-chunk', `${i}/${chunks.length}`,
        () => buildAdamWGraph(c, this.adam, { externalNorm: true }).bytes, this.placed(names));
      const feeds: Feeds = { ...this.paramFeeds(this.params, '', c), ...pick(c), ...this.paramFeeds(this.m, 'm.', c), ...this.paramFeeds(this.v, 'v.', c),
        step: scalar(this.step), lr: scalar(lr), grad_norm: scalar(norm) };
      this.takeAdamOutputs(await s.runMixed(feeds, { keepNative: this.dev ? names : [] }), c);
    }
    return norm;
  }

  private takeAdamOutputs(out: Record<string, HostTensor | NativeTensor>, specs: ParamSpec[]): void {
    const dev = this.dev;
    for (const p of specs) {
      if (dev) {
        for (const [which, prefix] of [['p', 'next.'], ['m', 'next.m.'], ['v', 'next.v.']] as const) {
          const old = dev[which][p.name];
          if (isNative(old)) old.dispose?.();
          dev[which][p.name] = out[prefix + p.name];
        }
      } else {
        this.params[p.name] = (out[`next.${p.name}`] as HostTensor).data as Float32Array;
        this.m[p.name] = (out[`next.m.${p.name}`] as HostTensor).data as Float32Array;
        this.v[p.name] = (out[`next.v.${p.name}`] as HostTensor).data as Float32Array;
      }
    }
    if (dev) this.stale = true;
  }

  /** computeGrads then applyGrads (in device residency the gradients never leave the device; `grads` is empty). */
  async trainStep(batch: AnyBatch, opts: TrainStepOptions): Promise<StepResult & { gradNorm: number }> {
    const { result, gradFeeds } = await this.runTrain(batch, opts.loss ?? { kind: 'ce' }, opts.grpo ?? {}, this.dev !== null);
    const gradNorm = await this.runAdam(gradFeeds, opts.lr);
    for (const t of Object.values(gradFeeds)) if (isNative(t)) t.dispose?.();
    return { ...result, gradNorm };
  }

  /**
   * One optimizer step over several packed batches (packLmRows): their gradients are summed (each
   * batch's loss weights are already shares of the whole step's loss), then one AdamW update.
   */
  async trainStepPacked(batches: PackedBatch[], opts: TrainStepOptions): Promise<{ loss: number; gradNorm: number; positions: number }> {
    const loss = (opts.loss ?? { kind: 'ce' }) as PackedLossSpec;
    if (batches.length === 1) {
      const r = await this.trainStep(batches[0], { ...opts, loss });
      return { loss: r.loss, gradNorm: r.gradNorm, positions: batches[0].batch * batches[0].seq };
    }
    const acc: Params = {};
    let total = 0, positions = 0;
    for (const b of batches) {
      const r = await this.computeGrads(b, loss, opts.grpo ?? {});
      accumulateGrads(acc, r.grads);
      total += r.loss;
      positions += b.batch * b.seq;
    }
    return { loss: total, gradNorm: await this.applyGrads(acc, opts.lr), positions };
  }

  /** Logits [B, T, vocab] for equal-length rows (causal, positions from 0). */
  async forwardLogits(ids: number[][]): Promise<HostTensor> {
    const B = ids.length, T = ids[0].length;
    const s = await this.sessions.get('forward', `${B}x${T}`, () => buildForwardGraph(this.cfg, B, T).bytes);
    return (await s.run({ ...this.paramFeeds(), input_ids: i32(ids.flat(), [B, T]) })).logits;
  }

  exportInference(opts?: InferenceOptions) { return exportInference(this.cfg, this.hostParams(), opts); }
  exportDecodeStep(opts?: InferenceOptions) { return exportDecodeStep(this.cfg, this.hostParams(), opts); }

  private hostParams(): Params {
    if (this.stale) throw new Error('parameters live on the device: await model.syncToHost() first');
    return this.params;
  }

  async dispose(): Promise<void> { await this.sessions.clear(); }
}
