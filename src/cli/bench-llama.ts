// npm run bench:llama -- --json [--steps 2] [--rollouts 2] [--new 16] [--shapes smollm2-135m,fixture] [--threads N] [--backend cpu|wasm]
// Seconds per Role-Wise GRPO step and the memory it needs for a Llama-architecture model with grouped-query
// attention and tied embeddings at SmolLM2-135M's full shape (random weights of that shape: no hub here),
// on onnxruntime-node CPU, with a tiny batch: one 'files' task, --rollouts rollouts of one Act generation
// of at most --new tokens. The step is GrpoTrainer.trainStep itself (the Node and worker training path):
// it re-exports the policy's inference graph for sampling, generates, judges, then runs the packed GRPO
// forward/backward and AdamW over every parameter. The prompt is the real Act prompt (the shipped tiny
// model's tokenizer and profile; sampled ids past that tokenizer decode to nothing, which only makes the
// outputs blank rows with the reference's blank penalty: still trained rows).
// --backend wasm runs the same step on onnxruntime-web's WASM EP in Node (the browser worker's engine without
// WebGPU, one thread): its wasm32 heap is at most 4 GiB, so Model's chunked AdamW ('auto' above 256 MiB of
// parameters) is what lets the 135M step fit; the heap's size is read from the instantiated wasm memory.
// Each shape runs in its own child process so its peak RSS is its own; the small fixture shape is the peer
// measured in the same run. Prints one JSON object on stdout.

import { spawnSync } from 'node:child_process';
import { TINY_PROFILE, type PromptProfile } from '../agent/profile';
import { countParams, initParams, makeConfig, type LlamaConfig } from '../engine/decoder';
import { llamaFixtureConfig, SMOLLM2_135M } from '../engine/llama-import';
import { loadModelFolder } from '../engine/modelFolder';
import { createNodeRuntime } from '../engine/runtime-node';
import { createOrtRuntime, type OrtLike, type Runtime } from '../engine/runtime';
import { getWorld } from '../envs/worlds/index';
import { DEFAULT_TRAIN_CONFIG, GrpoTrainer, type StepMetrics } from '../rl/trainer';
import { cliArgs, defineCli, type CliValues } from './args';

const SHAPES = ['smollm2-135m', 'fixture'] as const;
type Shape = typeof SHAPES[number];

const cli = defineCli({
  name: 'bench:llama',
  summary: 'Seconds per GRPO step and memory of a GQA + tied Llama at SmolLM2-135M shape on onnxruntime-node CPU or onnxruntime-web WASM (one JSON object on stdout).',
  options: {
    json: { type: 'boolean', help: 'print JSON (the only output format)' },
    shapes: { type: 'list', help: 'shapes to measure, each in its own process', default: [...SHAPES], choices: SHAPES },
    steps: { type: 'int', help: 'GRPO steps per shape (the first includes session creation)', default: 2, min: 1 },
    rollouts: { type: 'int', help: 'rollouts of the one task per step (GRPO group size)', default: 2, min: 1 },
    new: { type: 'int', help: 'max new tokens per generation', default: 16, min: 1 },
    layers: { type: 'int', help: 'override num_hidden_layers of smollm2-135m (what fits when 30 does not)', min: 1 },
    threads: { type: 'int', help: 'ORT intra-op threads (default: ORT decides; wasm: 1)', min: 1 },
    backend: { type: 'string', help: 'onnxruntime-node CPU, or onnxruntime-web WASM EP in Node', default: 'cpu', choices: ['cpu', 'wasm'] },
    seed: { type: 'int', help: 'weights and rollout seed', default: 0 },
    tokenizer: { type: 'string', help: 'model folder whose tokenizer and profile build the prompts', default: 'models/envace-tiny' },
    only: { type: 'string', help: '(internal) measure one shape in this process', choices: SHAPES },
  },
});

const MB = 2 ** 20;

function configFor(shape: Shape, layers?: number): LlamaConfig {
  if (shape === 'fixture') return llamaFixtureConfig(1024);
  return layers ? makeConfig(SMOLLM2_135M, { num_hidden_layers: layers }) : SMOLLM2_135M;
}

/** Every wasm memory instantiated from here on, so the WASM backend's heap size can be reported. */
const wasmMemories: WebAssembly.Memory[] = [];
function watchWasmMemory(): void {
  const wa = WebAssembly as unknown as Record<string, (...x: unknown[]) => Promise<unknown>>;
  for (const fn of ['instantiate', 'instantiateStreaming']) {
    const orig = wa[fn];
    if (!orig) continue;
    wa[fn] = async (...args: unknown[]) => {
      const r = await orig.apply(WebAssembly, args) as { instance?: WebAssembly.Instance; exports?: WebAssembly.Exports };
      // The threaded build imports its (shared) memory from JS; others export it.
      const imports = Object.values((args[1] ?? {}) as Record<string, Record<string, unknown>>).flatMap((m) => Object.values(m ?? {}));
      for (const v of [...Object.values((r.instance ?? r).exports ?? {}), ...imports]) if (v instanceof WebAssembly.Memory && !wasmMemories.includes(v)) wasmMemories.push(v);
      return r;
    };
  }
}
const wasmHeapMB = () => (wasmMemories.length ? Math.max(...wasmMemories.map((m) => m.buffer.byteLength)) / MB : null);

async function makeRuntime(a: CliValues<typeof cli.options>): Promise<Runtime> {
  if (a.backend === 'cpu') return createNodeRuntime({ threads: a.threads });
  watchWasmMemory();
  const ortWeb = await import('onnxruntime-web');
  ortWeb.env.wasm.numThreads = a.threads ?? 1;
  return createOrtRuntime(ortWeb as unknown as OrtLike, { kind: 'wasm', detail: 'onnxruntime-web wasm (node)' }, { executionProviders: ['wasm'] });
}

async function measure(a: CliValues<typeof cli.options>, shape: Shape) {
  const t0 = performance.now();
  const folder = await loadModelFolder(a.tokenizer);
  const cfg = configFor(shape, a.layers);
  if (shape === 'fixture' && folder.tokenizer.vocabSize !== cfg.vocab_size) throw new Error(`fixture peer expects a ${cfg.vocab_size}-id tokenizer`);
  const params = initParams(cfg, a.seed);
  const initSeconds = (performance.now() - t0) / 1000;
  process.stderr.write(`[bench:llama ${shape}] ${countParams(cfg)} parameters initialised in ${initSeconds.toFixed(1)} s, rss ${Math.round(process.memoryUsage().rss / MB)} MB\n`);
  const base = (folder.rawConfig.envace as { profile?: PromptProfile } | undefined)?.profile ?? TINY_PROFILE;
  const profile: PromptProfile = { ...base, act: { ...base.act, maxNewTokens: a.new }, rehearse: { ...base.rehearse, maxNewTokens: a.new }, limits: { ...base.limits, maxAssistantTurns: 1, maxGenerations: 1, minNewTokens: 1 } };
  const tasks = getWorld('files').tasks({ split: 'train', count: 1 });
  const trainer = new GrpoTrainer({ ...DEFAULT_TRAIN_CONFIG, seed: a.seed, tasksPerStep: 1, groupSize: a.rollouts, maxTurns: 1, microBatch: a.rollouts, evalEvery: 0, checkpointEvery: 0, steps: a.steps }, {
    runtime: await makeRuntime(a), config: cfg, params, tokenizer: folder.tokenizer, ids: folder.ids, profile,
    trainTasks: () => tasks, evalTasks: [], runId: `bench-llama-${shape}`,
  });
  const steps: (Pick<StepMetrics, 'secondsPerStep' | 'rolloutSeconds' | 'judgeSeconds' | 'updateSeconds' | 'rows' | 'tokens' | 'loss' | 'gradNorm' | 'skipped'> & { rssMB: number; cpuSeconds: number; wasmHeapMB: number | null })[] = [];
  for (let s = 0; s < a.steps; s++) {
    // CPU time of this process (ORT's threads included) over the step: the figure that does not depend on what
    // else the machine runs (wall time on a shared box does).
    const c0 = process.cpuUsage();
    const m = await trainer.trainStep();
    const c = process.cpuUsage(c0);
    steps.push({
      cpuSeconds: (c.user + c.system) / 1e6,
      secondsPerStep: m.secondsPerStep, rolloutSeconds: m.rolloutSeconds, judgeSeconds: m.judgeSeconds, updateSeconds: m.updateSeconds,
      rows: m.rows, tokens: m.tokens, loss: m.loss, gradNorm: m.gradNorm, skipped: m.skipped, rssMB: Math.round(process.memoryUsage().rss / MB),
      wasmHeapMB: wasmHeapMB(),
    });
    process.stderr.write(`[bench:llama ${shape}] step ${s + 1}/${a.steps}: ${m.secondsPerStep.toFixed(1)} s, cpu ${steps[s].cpuSeconds.toFixed(1)} s (rollout ${m.rolloutSeconds.toFixed(1)}, update ${m.updateSeconds.toFixed(1)}), rss ${steps[s].rssMB} MB${a.backend === 'wasm' ? `, wasm heap ${wasmHeapMB()} MB` : ''}\n`);
  }
  const n = countParams(cfg), f32 = n * 4;
  const later = steps.length > 1 ? steps.slice(1) : steps;
  return {
    shape, config: { hidden_size: cfg.hidden_size, num_hidden_layers: cfg.num_hidden_layers, num_attention_heads: cfg.num_attention_heads, num_key_value_heads: cfg.num_key_value_heads, intermediate_size: cfg.intermediate_size, vocab_size: cfg.vocab_size, tie_word_embeddings: cfg.tie_word_embeddings },
    params: n, initSeconds,
    steps,
    // Steady state: steps after the first (the first also creates the train/AdamW sessions).
    secondsPerStep: later.reduce((s, x) => s + x.secondsPerStep, 0) / later.length,
    cpuSecondsPerStep: later.reduce((s, x) => s + x.cpuSeconds, 0) / later.length,
    memory: {
      // What the training state holds in float32, before activations: policy weights, gradients, AdamW m and v,
      // the trainer's frozen starting copy (simulator/KL reference), and the baked weights of the sampling graph.
      paramsMB: f32 / MB, gradsMB: f32 / MB, adamMomentsMB: (2 * f32) / MB, frozenCopyMB: f32 / MB, samplingGraphWeightsMB: f32 / MB,
      peakRssMB: Math.round(process.resourceUsage().maxRSS / 1024),
      // wasm32 linear memory only grows: its size at the end is the step's peak heap (null on the CPU backend).
      wasmHeapMB: wasmHeapMB(),
    },
  };
}

async function main() {
  const a = cliArgs(cli);
  if (a.only) {
    process.stdout.write(JSON.stringify(await measure(a, a.only as Shape)) + '\n');
    return;
  }
  const results: Record<string, unknown> = Object.create(null);
  for (const shape of a.shapes as Shape[]) {
    const args = process.argv.slice(2).filter((x, i, all) => !(x === '--shapes' || all[i - 1] === '--shapes' || x.startsWith('--shapes=')));
    const t0 = performance.now();
    const r = spawnSync(process.execPath, [...process.execArgv, process.argv[1], ...args, '--only', shape], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 64 * MB });
    const wall = (performance.now() - t0) / 1000;
    const line = r.stdout.trim().split('\n').pop() ?? '';
    results[shape] = r.status === 0 && line.startsWith('{') ? { ...JSON.parse(line), processSeconds: wall }
      : { shape, failed: true, status: r.status, signal: r.signal, processSeconds: wall, note: r.signal === 'SIGKILL' ? 'killed (out of memory?)' : 'see stderr' };
  }
  const big = results['smollm2-135m'] as { secondsPerStep?: number; cpuSecondsPerStep?: number } | undefined, peer = results.fixture as { secondsPerStep?: number; cpuSecondsPerStep?: number } | undefined;
  const cpus = (await import('node:os')).cpus().length;
  console.log(JSON.stringify({
    bench: 'llama-grpo-step', backend: a.backend === 'wasm' ? `onnxruntime-web wasm EP in Node (${a.threads ?? 1} thread)` : 'onnxruntime-node cpu', cpus, loadavg: (await import('node:os')).loadavg(),
    protocol: { task: 'files train #0', tasksPerStep: 1, rollouts: a.rollouts, maxNewTokens: a.new, maxTurns: 1, variant: 'envace', seed: a.seed, temperature: DEFAULT_TRAIN_CONFIG.temperature, steps: a.steps },
    results,
    ratio_135m_vs_fixture: big?.secondsPerStep && peer?.secondsPerStep ? big.secondsPerStep / peer.secondsPerStep : null,
    cpu_ratio_135m_vs_fixture: big?.cpuSecondsPerStep && peer?.cpuSecondsPerStep ? big.cpuSecondsPerStep / peer.cpuSecondsPerStep : null,
  }, null, 2));
}

main().catch((e) => { console.error(e instanceof Error ? e.stack : e); process.exit(1); });
