// Serialisable page state (TensorFlow-Playground style): every setting has a typed default, the URL hash
// carries only values that differ from it, and parsing validates so a hand-edited link cannot put the
// UI into a state the controls cannot show. `?backend=` and `?threads=` live in the query string because
// they pick how the worker starts (changing them reloads); everything else is in the hash.

import { DEMO_REQUEST, DEMO_TASK } from './demoRequest';
import { TRAIN_DEFAULTS } from './trainDefaults';

export const PAGES = ['rollout', 'train', 'benchmarks', 'models'] as const;
export type Page = (typeof PAGES)[number];

type EnumSpec = { kind: 'enum'; values: readonly string[]; def: string };
type IntSpec = { kind: 'int'; def: number; min: number; max: number };
type NumSpec = { kind: 'num'; def: number; min: number; max: number };
type StrSpec = { kind: 'str'; def: string };
type Spec = EnumSpec | IntSpec | NumSpec | StrSpec;

const en = (values: readonly string[], def: string): EnumSpec => ({ kind: 'enum', values, def });
const int = (def: number, min: number, max: number): IntSpec => ({ kind: 'int', def, min, max });
const num = (def: number, min: number, max: number): NumSpec => ({ kind: 'num', def, min, max });
const str = (def: string): StrSpec => ({ kind: 'str', def });

export const MODES = ['real', 'simulator', 'rehearsal'] as const;
export const ADVANTAGES = ['role-wise', 'pooled', 'per-role'] as const;
export const STD_NORMS = ['none', 'group', 'batch'] as const;
export const LOSS_AGGS = ['token-mean', 'seq-mean-token-mean', 'seq-mean-token-sum', 'seq-mean-token-sum-norm'] as const;
export const KL_TYPES = ['none', 'k1', 'k2', 'k3'] as const;
export const REWARDS = ['checklist', 'outcome', 'both', 'success'] as const;
/** src/agent/rollout.ts ERROR_REWARDS and JUDGE_ON (reference default first). */
export const ERROR_REWARD_RULES = ['keep-completed-turns', 'zero-episode'] as const;
export const JUDGE_ON_CHOICES = ['transcript', 'real'] as const;

export const SCHEMA = {
  // Rollout: the defaults are the shipped demo trace's request (demoRequest.ts), so Run recomputes it.
  'r.world': str(DEMO_REQUEST.world),
  // The demo's task in the demo's world; in any other world '' (its first test task): see defaultTask.
  'r.task': str(DEMO_TASK),
  'r.mode': en(MODES, DEMO_REQUEST.mode),
  'r.k': int(DEMO_REQUEST.k, 1, 64),
  'r.seed': int(DEMO_REQUEST.seed, 0, 2 ** 31 - 1),
  'r.temp': num(DEMO_REQUEST.temperature, 0, 2),
  'r.turns': int(DEMO_REQUEST.maxTurns, 1, 64),
  'r.max': int(DEMO_REQUEST.maxNewTokens, 1, 4096),
  'r.topp': num(DEMO_REQUEST.topP, 0, 1),
  'r.topk': int(DEMO_REQUEST.topK, 0, 100000),
  // Generations per trajectory shown (0 = the whole rollout): a stepped view is reproducible too.
  'r.gen': int(0, 0, 10000),
  // Rehearse first (src/tts/): imagined attempts per user turn before the committed run (0 = off), how.
  'r.tts': int(0, 0, 8),
  // The policy that rehearses and commits ('' = the default: one trained with memories; RehearseFirst.tsx).
  'r.ttsp': str(''),
  'r.ttss': en(['parallel', 'sequential'], 'parallel'),
  'r.ttsm': en(['full', 'best-calls'], 'full'),
  'r.ttsh': en(['episode', 'oracle'], 'episode'),
  // Rehearse first, stepped: events shown (attempt generations, self-evaluations, memory, committed
  // generations; RehearseFirst.tsx), 0 = the whole run.
  'r.ttsstep': int(0, 0, 100000),
  // 1 = run (or step to r.gen) as soon as the page opens, so a shared link shows the same view.
  'autorun': int(0, 0, 1),
  // Train: the defaults are the learning run of trainDefaults.ts (a shipped starter on difficulty-1 files tasks).
  't.world': str(TRAIN_DEFAULTS.world),
  't.mode': en(MODES, TRAIN_DEFAULTS.mode),
  't.steps': int(TRAIN_DEFAULTS.steps, 1, 100000),
  't.tasks': int(TRAIN_DEFAULTS.tasksPerStep, 1, 256),
  't.group': int(TRAIN_DEFAULTS.groupSize, 1, 64),
  't.lr': num(TRAIN_DEFAULTS.lr, 0, 1),
  't.kl': num(0, 0, 10),
  't.clip': num(0.2, 0, 10),
  't.adv': en(ADVANTAGES, 'role-wise'),
  't.seed': int(0, 0, 2 ** 31 - 1),
  't.model': str(TRAIN_DEFAULTS.model),
  't.diff': int(TRAIN_DEFAULTS.difficulty, 0, 3),
  't.pool': int(TRAIN_DEFAULTS.taskPool, 1, 100000),
  't.std': en(STD_NORMS, 'none'),
  't.agg': en(LOSS_AGGS, TRAIN_DEFAULTS.lossAggMode),
  't.cliph': num(0.2, 0, 10),
  't.clipc': num(3, 1.01, 100),
  't.kltype': en(KL_TYPES, 'none'),
  't.wd': num(0.01, 0, 1),
  't.gclip': num(1, 0, 1000),
  't.temp': num(TRAIN_DEFAULTS.temperature, 0, 2),
  't.turns': int(TRAIN_DEFAULTS.maxTurns, 1, 64),
  't.reward': en(REWARDS, 'checklist'),
  't.empty': num(-0.1, -1, 0),
  't.errrew': en(ERROR_REWARD_RULES, 'keep-completed-turns'),
  't.judgeon': en(JUDGE_ON_CHOICES, 'transcript'),
  't.mb': int(8, 1, 64),
  't.max': int(TRAIN_DEFAULTS.maxNewTokens, 0, 4096),
  't.eval': int(TRAIN_DEFAULTS.evalEvery, 0, 100000),
  't.evaltasks': int(TRAIN_DEFAULTS.evalTasks, 1, 256),
  // Samples per held-out task (Avg@k): 1 = greedy, more = at the training temperature (src/rl/trainer.ts evaluate).
  't.evalk': int(TRAIN_DEFAULTS.evalK, 1, 64),
  't.ckpt': int(TRAIN_DEFAULTS.checkpointEvery, 0, 100000),
  // Dynamic sampling (DAPO: refill groups whose K rewards are all equal, train on the informative ones), its
  // refill budget per step, and linear lr warmup steps (0 = none); src/rl/trainer.ts TrainConfig.
  't.dyn': en(['on', 'off'], TRAIN_DEFAULTS.dynamicSampling ? 'on' : 'off'),
  't.refills': int(TRAIN_DEFAULTS.maxRefills, 0, 256),
  't.warmup': int(TRAIN_DEFAULTS.warmupSteps, 0, 100000),
  // Benchmarks: files, so the default model (the world's starter, files-starter) is evaluated on its own world.
  'b.world': str('files'),
  'b.tasks': int(8, 1, 1000),
  'b.mode': en(MODES, 'real'),
  'b.k': int(1, 1, 64),
  'b.seed': int(0, 0, 2 ** 31 - 1),
  'b.temp': num(0, 0, 2),
  'b.topp': num(1, 0.01, 1),
  'b.turns': int(8, 1, 64),
  'b.max': int(128, 1, 4096),
  // Mode simulator: the frozen model that plays Rehearse ('' = the policy's own weights; else a loaded Hugging Face model's URL).
  'b.sim': str(''),
  // Benchmarks curves (src/app/components/bench/): each chart's selection. bc: training curves (summary file
  // under docs/results/, '' = the first; metric; variant or 'all'); bt: rehearsal sweep (file, metric, memory);
  // bb: real-environment budget sweep (file, metric, x axis); be: evaluation suites (metric); bp: the paper's
  // reference table.
  'bc.file': str(''),
  'bc.metric': en(['heldOut', 'success', 'checklist', 'recallF1', 'inferenceF1', 'fidelityF1', 'reward', 'trainSuccess'], 'heldOut'),
  'bc.variant': str('all'),
  // the mechanism scatter beside the training curves: which fidelity measure's change is plotted against success's
  'bc.fid': en(['fidelityF1', 'recallF1', 'inferenceF1', 'noHintsF1'], 'fidelityF1'),
  'bt.file': str(''),
  'bt.metric': en(['success', 'checklist'], 'success'),
  'bt.mem': en(['full', 'best-calls', 'both'], 'full'),
  'be.metric': en(['success', 'outcome', 'checklist', 'pass_at_k'], 'success'),
  'bb.file': str(''),
  'bb.metric': en(['success', 'checklist'], 'success'),
  'bb.x': en(['real_calls', 'p'], 'real_calls'),
  'bp.table': en(['main', 'ablation', 'rehearsal', 'sweep'], 'main'),
  // Models
  'm.model': str(''),
  'm.prompt': str('Hello'),
  'm.max': int(16, 1, 512),
  'm.temp': num(0, 0, 2),
  'm.seed': int(0, 0, 2 ** 31 - 1),
} satisfies Record<string, Spec>;

export type Key = keyof typeof SCHEMA;
type ValueOf<S extends Spec> = S extends { kind: 'str' | 'enum' } ? string : number;
export type Settings = { [K in Key]: ValueOf<(typeof SCHEMA)[K]> };

export interface UrlState { page: Page; settings: Settings }

export function defaults(): Settings {
  const out = Object.create(null) as Record<string, unknown>;
  for (const [k, s] of Object.entries(SCHEMA)) out[k] = s.def;
  return out as Settings;
}

/**
 * r.task's default depends on r.world: a task id names its world ('<world>-<seed>'), so the demo's task
 * (files-136) is the default only in the demo's world; elsewhere it is '' (the world's first test task). Without
 * this, a link that sets only r.world=retail asked the worker for "task files-136 in world retail" and Run failed.
 */
export function defaultTask(world: string): string {
  return world === DEMO_REQUEST.world ? DEMO_TASK : '';
}

/** Whether a task id ('<world>-<seed>') names a task of another world than `world` ('' names none). */
function taskOfOtherWorld(task: string, world: string): boolean {
  return task !== '' && !task.startsWith(`${world}-`);
}

/**
 * The settings with k set to v. A world change drops a task of the old world (back to the new world's default
 * task), so the task control never names a task the chosen world does not have.
 */
export function withSetting<K extends Key>(settings: Settings, k: K, v: Settings[K]): Settings {
  const next = { ...settings, [k]: v };
  if (k === 'r.world' && v !== settings['r.world'] && taskOfOtherWorld(next['r.task'], next['r.world'])) next['r.task'] = defaultTask(next['r.world']);
  return next;
}

/** Parse one raw string against its spec: the value, or why it is refused. Never clamps. */
export function check(spec: Spec, raw: string): { ok: true; value: string | number } | { ok: false; why: string } {
  switch (spec.kind) {
    case 'str': return { ok: true, value: raw };
    case 'enum': return spec.values.includes(raw) ? { ok: true, value: raw } : { ok: false, why: `not one of ${spec.values.join(', ')}` };
    case 'int': case 'num': {
      const t = raw.trim();
      const v = Number(t);
      if (t === '') return { ok: false, why: 'empty' };
      // A long string of digits is a number, only too large for JavaScript (Infinity): say so, not "not a number".
      if (Number.isNaN(v)) return { ok: false, why: 'not a number' };
      if (v > spec.max) return { ok: false, why: `too large: at most ${boundText(spec.max)} (${rangeText(spec)})` };
      if (v < spec.min) return { ok: false, why: `too small: at least ${boundText(spec.min)} (${rangeText(spec)})` };
      if (spec.kind === 'int' && !Number.isInteger(v)) return { ok: false, why: 'not a whole number' };
      return { ok: true, value: v };
    }
  }
}

/** The value, or undefined when it is refused (see check for the reason). */
export function coerce(spec: Spec, raw: string): string | number | undefined {
  const r = check(spec, raw);
  return r.ok ? r.value : undefined;
}

/** "0 … 2", "1 … 64 (whole)": what a numeric field accepts. */
export function rangeText(spec: Spec): string {
  if (spec.kind !== 'int' && spec.kind !== 'num') return '';
  return `${boundText(spec.min)} … ${boundText(spec.max)}${spec.kind === 'int' ? ' (whole)' : ''}`;
}

const boundText = (x: number) => (x === 2 ** 31 - 1 ? '2³¹−1' : String(x));

/** A URL value that was not applied, and why (shown in a notice: a link never changes silently). */
export interface Ignored { key: string; raw: string; why: string }

/** `#/train?t.lr=0.0003&t.steps=50` → state. Unknown keys and invalid values are ignored and listed. */
export function parseHash(hash: string): UrlState & { ignored: Ignored[] } {
  const h = hash.replace(/^#\/?/, '');
  const q = h.indexOf('?');
  const path = q < 0 ? h : h.slice(0, q);
  const ignored: Ignored[] = [];
  const page = (PAGES as readonly string[]).includes(path) ? (path as Page) : 'rollout';
  if (path && page !== path) ignored.push({ key: 'page', raw: path, why: `not one of ${PAGES.join(', ')}` });
  const settings = defaults() as Record<string, unknown>;
  const params = new URLSearchParams(q < 0 ? '' : h.slice(q + 1));
  for (const [k, raw] of params) {
    // Own keys only: "constructor" or "__proto__" in a link must not find Object.prototype members.
    const spec = Object.hasOwn(SCHEMA, k) ? (SCHEMA as Record<string, Spec>)[k] : undefined;
    if (!spec) { ignored.push({ key: k, raw, why: 'unknown setting' }); continue; }
    const r = check(spec, raw);
    if (r.ok) settings[k] = r.value;
    else ignored.push({ key: k, raw, why: r.why });
  }
  if (!params.has('r.task')) settings['r.task'] = defaultTask(settings['r.world'] as string);
  return { page, settings: settings as Settings, ignored };
}

export function toHash(state: UrlState): string {
  const d = { ...defaults(), 'r.task': defaultTask(state.settings['r.world']) } as Record<string, unknown>;
  const params = new URLSearchParams();
  for (const k of Object.keys(SCHEMA)) {
    const v = (state.settings as Record<string, unknown>)[k];
    if (v !== d[k]) params.set(k, String(v));
  }
  const qs = params.toString();
  return `#/${state.page}${qs ? `?${qs}` : ''}`;
}

export type BackendParam = 'auto' | 'webgpu' | 'wasm';

export function parseQuery(search: string): { backend: BackendParam; threads?: number; ignored: Ignored[] } {
  const p = new URLSearchParams(search);
  const ignored: Ignored[] = [];
  const b = p.get('backend');
  const backend: BackendParam = b === 'webgpu' || b === 'wasm' ? b : 'auto';
  if (b !== null && b !== backend) ignored.push({ key: 'backend', raw: b, why: 'not one of auto, webgpu, wasm' });
  const rt = p.get('threads');
  const t = Number(rt);
  const threads = rt !== null && Number.isInteger(t) && t >= 1 && t <= 64 ? t : undefined;
  if (rt !== null && threads === undefined) ignored.push({ key: 'threads', raw: rt, why: 'outside 1 … 64 (whole)' });
  return { backend, threads, ignored };
}

export function specOf(k: Key): Spec { return SCHEMA[k] as Spec; }
