// The one runtime interface the engine runs graphs through. It knows nothing about Node or
// about a particular ORT package: `createOrtRuntime` adapts any module shaped like
// onnxruntime-node / onnxruntime-web, so the browser worker and Node share this code.

export type BackendKind = 'webgpu' | 'wasm' | 'cpu';
export interface Backend { kind: BackendKind; detail: string }

export type TensorType = 'float32' | 'int64' | 'int32';
export interface HostTensor {
  type: TensorType;
  data: Float32Array | BigInt64Array | Int32Array;
  dims: number[];
}

export type Feeds = Record<string, HostTensor | NativeTensor>;

export interface RunOptions {
  /** Output names to fetch (default: all). Fetching fewer avoids device→host copies. */
  fetches?: string[];
  /** Output names to return as backend-native tensors (not copied to the host). */
  keepNative?: string[];
}

export interface NativeTensor {
  readonly native: unknown;
  readonly dims: readonly number[];
  /** Frees device memory (GPU-resident outputs are not garbage collected). */
  dispose?(): void;
  /** Copies the data to the host. */
  download?(): Promise<HostTensor>;
}

export interface Session {
  readonly inputNames: readonly string[];
  readonly outputNames: readonly string[];
  run(feeds: Feeds, opts?: RunOptions): Promise<Record<string, HostTensor>>;
  /** Like run, but outputs listed in keepNative come back as NativeTensor. */
  runMixed(feeds: Feeds, opts?: RunOptions): Promise<Record<string, HostTensor | NativeTensor>>;
  release(): Promise<void>;
}

export interface SessionOptions {
  /** Passed through to the ORT session options (e.g. preferredOutputLocation, graphOptimizationLevel). */
  extra?: Record<string, unknown>;
}

export interface Runtime {
  readonly backend: Backend;
  createSession(model: Uint8Array, opts?: SessionOptions): Promise<Session>;
}

// ---- helpers for building feeds ----
export const f32 = (data: Float32Array | number[], dims: number[]): HostTensor =>
  ({ type: 'float32', data: data instanceof Float32Array ? data : Float32Array.from(data), dims });
export const i64 = (data: ArrayLike<number> | BigInt64Array, dims: number[]): HostTensor => ({
  type: 'int64',
  data: data instanceof BigInt64Array ? data : BigInt64Array.from(Array.from(data as ArrayLike<number>, (x) => BigInt(x))),
  dims,
});
export const i32 = (data: ArrayLike<number>, dims: number[]): HostTensor =>
  ({ type: 'int32', data: data instanceof Int32Array ? data : Int32Array.from(data), dims });
export const scalar = (x: number): HostTensor => f32([x], [1]);

export function isNative(t: HostTensor | NativeTensor): t is NativeTensor {
  return (t as NativeTensor).native !== undefined;
}

// ---- ORT adapter ----
/** The slice of an onnxruntime module (node or web) this adapter uses. */
export interface OrtLike {
  Tensor: new (type: TensorType, data: Float32Array | BigInt64Array | Int32Array, dims: readonly number[]) => unknown;
  InferenceSession: { create(model: Uint8Array, options?: Record<string, unknown>): Promise<OrtSessionLike> };
}
interface OrtTensorLike { type: string; data: unknown; dims: readonly number[]; location?: string; dispose?(): void; getData?(): Promise<unknown> }
interface OrtSessionLike {
  inputNames: readonly string[];
  outputNames: readonly string[];
  run(feeds: Record<string, unknown>, fetches?: readonly string[]): Promise<Record<string, OrtTensorLike>>;
  release(): Promise<void>;
}

/**
 * One ORT call at a time for every runtime that shares the queue. onnxruntime-web's JSEP build keeps a single
 * "run in flight" per wasm module, whatever EP a session uses: a second run started before the first settles
 * fails ("Session already started") and makes the first fail too ("Session mismatch"). Runtimes built on one
 * module therefore share one queue; `exclusive` holds it for a block of calls made on runtimes outside it.
 */
export class OrtCallQueue {
  private tail: Promise<unknown> = Promise.resolve();
  private waiting = 0;

  /** `f` starts once every call queued before it has settled. */
  run<T>(f: () => Promise<T>): Promise<T> {
    this.waiting++;
    const r = this.tail.then(f, f).finally(() => { this.waiting--; });
    this.tail = r.catch(() => undefined);
    return r;
  }

  /** Calls queued or running. */
  get pending(): number { return this.waiting; }

  /**
   * Background work: waits until nothing is queued, then holds the queue for `f` (whose own ORT calls must go
   * through runtimes without this queue, or they would wait on themselves).
   */
  async exclusive<T>(f: () => Promise<T>): Promise<T> {
    for (;;) {
      await this.tail;
      // One macrotask: a caller that was between two of its calls gets to queue the next one first.
      await new Promise<void>((r) => setTimeout(r, 0));
      if (this.waiting === 0) return this.run(f);
    }
  }
}

/** What another library (transformers.js) calls on an ORT module: sessions, tensors, the shared env. */
export interface OrtModuleLike {
  InferenceSession: { create(...args: unknown[]): Promise<object> };
  Tensor: unknown;
  env: unknown;
}

/**
 * The same ORT module for a library that creates and runs its own sessions: session creation, run and release go
 * through `queue`, so they never overlap a call of a runtime on that queue (or a block it holds). Everything else
 * (input names, metadata, properties the library sets on a session) is the session's own.
 */
export function queuedOrtModule<M extends OrtModuleLike>(ort: M, queue: OrtCallQueue): OrtModuleLike {
  const queued = new Set<PropertyKey>(['run', 'release']);
  const wrap = (s: object): object => new Proxy(s, {
    get(target, key) {
      const v = Reflect.get(target, key, target) as unknown;
      if (typeof v !== 'function') return v;
      const f = v as (...a: unknown[]) => unknown;
      return queued.has(key) ? (...a: unknown[]) => queue.run(async () => f.apply(target, a)) : f.bind(target);
    },
  });
  return {
    InferenceSession: { create: async (...args: unknown[]) => wrap(await queue.run(() => ort.InferenceSession.create(...args))) },
    Tensor: ort.Tensor,
    env: ort.env,
  };
}

export function createOrtRuntime(ort: OrtLike, backend: Backend, baseOptions: Record<string, unknown> = {}, queue?: OrtCallQueue): Runtime {
  const call = <T>(f: () => Promise<T>): Promise<T> => (queue ? queue.run(f) : f());
  return {
    backend,
    async createSession(model, opts = {}) {
      const s = await call(() => ort.InferenceSession.create(model, { ...baseOptions, ...(opts.extra ?? {}) }));
      const toOrt = (feeds: Feeds) => {
        const out: Record<string, unknown> = Object.create(null);
        for (const [k, t] of Object.entries(feeds)) out[k] = isNative(t) ? t.native : new ort.Tensor(t.type, t.data, t.dims);
        return out;
      };
      const runMixed = async (feeds: Feeds, ro: RunOptions = {}) => {
        const res = await call(() => s.run(toOrt(feeds), ro.fetches));
        const out: Record<string, HostTensor | NativeTensor> = Object.create(null);
        const host = async (t: OrtTensorLike): Promise<HostTensor> => ({
          type: t.type as TensorType,
          // device-located outputs (preferredOutputLocation) only expose their data through getData()
          data: (t.location && t.location !== 'cpu' && t.location !== 'cpu-pinned' && t.getData ? await t.getData() : t.data) as HostTensor['data'],
          dims: [...t.dims],
        });
        for (const [k, t] of Object.entries(res)) {
          if (ro.keepNative?.includes(k)) out[k] = { native: t, dims: t.dims, dispose: () => t.dispose?.(), download: () => host(t) };
          else out[k] = await host(t);
        }
        return out;
      };
      return {
        inputNames: s.inputNames,
        outputNames: s.outputNames,
        runMixed,
        run: (feeds, ro) => runMixed(feeds, { ...ro, keepNative: [] }) as Promise<Record<string, HostTensor>>,
        release: () => call(() => s.release()),
      };
    },
  };
}

// ---- shape buckets ----
/** Smallest bucket >= n (buckets ascending); throws when n exceeds the largest. */
export function bucketFor(n: number, buckets: readonly number[]): number {
  for (const b of buckets) if (b >= n) return b;
  throw new Error(`length ${n} exceeds largest bucket ${buckets[buckets.length - 1]}`);
}

/**
 * Sessions keyed by graph kind + shape bucket. Static-shape graphs need one session per bucket;
 * building the ONNX bytes is deferred until a bucket is first used.
 */
export class SessionCache {
  private sessions = new Map<string, Promise<Session>>();
  constructor(readonly runtime: Runtime, private readonly opts?: SessionOptions) {}

  /** `opts` (first call per key only) override the cache-wide session options. */
  get(graphKey: string, bucket: string | number, build: () => Uint8Array | Promise<Uint8Array>, opts?: SessionOptions): Promise<Session> {
    const key = `${graphKey}@${bucket}`;
    let s = this.sessions.get(key);
    if (!s) {
      const so = opts ? { extra: { ...(this.opts?.extra ?? {}), ...(opts.extra ?? {}) } } : this.opts;
      s = Promise.resolve(build()).then((bytes) => this.runtime.createSession(bytes, so));
      s.catch(() => this.sessions.delete(key));
      this.sessions.set(key, s);
    }
    return s;
  }

  has(graphKey: string, bucket: string | number): boolean { return this.sessions.has(`${graphKey}@${bucket}`); }

  async clear(): Promise<void> {
    const all = [...this.sessions.values()];
    this.sessions.clear();
    for (const s of all) await (await s.catch(() => null))?.release();
  }
}
