// Shared machinery of the built-in procedural worlds: the task builder that runs a scripted expert on the
// real environment (so every tool result in the reference conversation is genuine), checklist assembly,
// deterministic split / difficulty by seed, tool-subset wrapping, and the final-state verifier.

import type {
  ChecklistItem, Environment, Message, Observation, PassCondition, Task, ToolCall, ToolSchema,
} from '../types';
import { errorObservation } from '../types';
import { hash32 } from './rng';
import { isErrorObservation, type AssistantStep } from '../judges';

export type Split = 'train' | 'test';

/** One scripted expert action. `expectError` marks a call the expert makes knowing it fails (none today). */
export type ExpertStep = { call: ToolCall; expectError?: boolean } | { reply: string };

/** A rubric item before ids and weight normalisation. */
export interface ItemSpec {
  question: string;
  focus_on: string;
  cond: PassCondition;
  weight: number;
  required?: boolean;
  failure_examples?: string[];
}

export interface TurnPlan { user: string; steps: ExpertStep[]; items: ItemSpec[] }

/** What a world's generator produces for one seed; buildTask turns it into a verified Task. */
export interface TaskPlan {
  turns: TurnPlan[];
  /** Fresh initial environment (already restricted to the task's tools). */
  makeEnv(): Environment;
  /** Situations this task exercises, e.g. 'order_id_without_hash', 'policy_refusal' (for stats and filters). */
  tags: string[];
}

export interface WorldTask extends Task {
  seed: number;
  tags: string[];
  /** The comparable final state the expert reached (what verify compares against). */
  expertState: unknown;
}

export interface TaskQuery { split?: Split; difficulty?: number; count?: number; offset?: number }

export interface World {
  name: string;
  description: string;
  policy: string;
  /** Every tool the world can expose (each task exposes a subset: see Task.makeEnv().tools()). */
  tools(): ToolSchema[];
  splitOf(seed: number): Split;
  difficultyOf(seed: number): number;
  task(seed: number): WorldTask;
  /** Seeds in increasing order that match the query (cheap: no generation). */
  seeds(q?: TaskQuery): number[];
  tasks(q?: TaskQuery): WorldTask[];
  /**
   * One line of the state a call is made from, for the Rehearse role's `<think>` (`npm run sft --think-state`);
   * with the call, also what the state says of the names it uses. Absent where the world has no short description.
   */
  stateLine?(env: Environment, call?: ToolCall): string;
}

// ---------------------------------------------------------------------------------------------------------
// Split and difficulty: hash-based, so they are stable, cheap and independent of generator changes.

export const TEST_FRACTION_PERCENT = 10;

export function splitOf(world: string, seed: number): Split {
  return hash32(world, 'split', seed) % 100 < TEST_FRACTION_PERCENT ? 'test' : 'train';
}

export function difficultyOf(world: string, seed: number): number {
  return 1 + (hash32(world, 'difficulty', seed) % 3);
}

export function selectSeeds(world: string, q: TaskQuery = {}): number[] {
  const count = q.count ?? 100;
  const offset = q.offset ?? 0;
  // An impossible filter would loop forever: reject it up front.
  if (q.difficulty !== undefined && ![1, 2, 3].includes(q.difficulty)) throw new Error(`difficulty must be 1, 2 or 3, got ${q.difficulty}`);
  if (q.split !== undefined && q.split !== 'train' && q.split !== 'test') throw new Error(`split must be 'train' or 'test', got ${String(q.split)}`);
  if (!Number.isInteger(count) || count < 0 || !Number.isInteger(offset) || offset < 0) throw new Error('count and offset must be non-negative integers');
  const out: number[] = [];
  let skipped = 0;
  for (let seed = 0; out.length < count; seed++) {
    if (q.split && splitOf(world, seed) !== q.split) continue;
    if (q.difficulty && difficultyOf(world, seed) !== q.difficulty) continue;
    if (skipped < offset) { skipped++; continue; }
    out.push(seed);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// Checklists

/** Ids t{turn}.{i}, weights normalised to sum to 1 (the last weight absorbs rounding so the sum is exact). */
export function finalizeChecklist(turn: number, specs: ItemSpec[]): ChecklistItem[] {
  if (specs.length === 0) throw new Error(`turn ${turn} has no checklist items`);
  const total = specs.reduce((a, s) => a + s.weight, 0);
  let acc = 0;
  return specs.map((s, i) => {
    const w = i === specs.length - 1 ? Math.round((1 - acc) * 1e6) / 1e6 : Math.round((s.weight / total) * 1e6) / 1e6;
    acc += w;
    const item: ChecklistItem = {
      id: `t${turn}.${i}`, question: s.question, focus_on: s.focus_on, pass_condition: s.cond,
      weight: w, required_for_next_turn: !!s.required,
    };
    if (s.failure_examples) item.failure_examples = s.failure_examples;
    return item;
  });
}

// ---------------------------------------------------------------------------------------------------------
// Environments

/**
 * Expose only `names` (in that order) with world-specific short descriptions, so prompts for 1–2k-token
 * policies stay small; calls to hidden tools answer TOOL_NOT_AVAILABLE exactly like an unknown tool.
 */
export class RestrictedEnv implements Environment {
  readonly name: string;
  private readonly schemas: ToolSchema[];
  constructor(private readonly inner: Environment, names: string[], override: Record<string, ToolSchema> = {}) {
    this.name = inner.name;
    // Building the port's full tool list is not free; skip it when the world supplies every schema.
    let byName: Map<string, ToolSchema> | null = null;
    const full = () => (byName ??= new Map(inner.tools().map((t) => [t.name, t])));
    this.schemas = names.map((n) => {
      const t = override[n] ?? full().get(n);
      if (!t) throw new Error(`tool ${n} not offered by ${inner.name}`);
      return t;
    });
  }
  tools(): ToolSchema[] { return this.schemas; }
  call(name: string, args: unknown): Observation {
    if (!this.schemas.some((t) => t.name === name)) {
      return errorObservation('TOOL_NOT_AVAILABLE', `Tool '${name}' is not available.`, { available: this.schemas.map((t) => t.name) });
    }
    return this.inner.call(name, args);
  }
  snapshot(): unknown { return this.inner.snapshot(); }
  clone(): Environment {
    const c = Object.create(RestrictedEnv.prototype) as RestrictedEnv;
    Object.assign(c, { name: this.name, schemas: this.schemas, inner: this.inner.clone() });
    return c;
  }
  /** The wrapped environment (the full port). */
  unwrap(): Environment { return this.inner; }
}

// ---------------------------------------------------------------------------------------------------------
// State comparison for the outcome verifier

/** First difference between two JSON values as 'path: expected X, got Y', or null if equal. */
export function jsonDiff(expected: unknown, actual: unknown, path = '$'): string | null {
  if (expected === actual) return null;
  const show = (v: unknown) => { const s = JSON.stringify(v) ?? String(v); return s.length > 60 ? s.slice(0, 57) + '...' : s; };
  if (typeof expected === 'number' && typeof actual === 'number') return Math.abs(expected - actual) < 1e-9 ? null : `${path}: expected ${expected}, got ${actual}`;
  if (Array.isArray(expected) || Array.isArray(actual)) {
    if (!Array.isArray(expected) || !Array.isArray(actual)) return `${path}: expected ${show(expected)}, got ${show(actual)}`;
    if (expected.length !== actual.length) return `${path}: expected ${expected.length} entries, got ${actual.length}`;
    for (let i = 0; i < expected.length; i++) { const d = jsonDiff(expected[i], actual[i], `${path}[${i}]`); if (d) return d; }
    return null;
  }
  if (expected && actual && typeof expected === 'object' && typeof actual === 'object') {
    // Own properties only: keys come from data (file names, record ids), and a key such as 'constructor',
    // 'toString' or '__proto__' must not be found on Object.prototype.
    const e = expected as Record<string, unknown>; const a = actual as Record<string, unknown>;
    for (const k of Object.keys(e)) {
      if (!Object.hasOwn(a, k)) return `${path}.${k}: missing`;
      const d = jsonDiff(e[k], a[k], `${path}.${k}`); if (d) return d;
    }
    for (const k of Object.keys(a)) if (!Object.hasOwn(e, k)) return `${path}.${k}: unexpected (${show(a[k])})`;
    return null;
  }
  return `${path}: expected ${show(expected)}, got ${show(actual)}`;
}

// ---------------------------------------------------------------------------------------------------------
// Task builder

export interface BuildOptions {
  world: string;
  /** The world name whose split and difficulty hashes place this seed (default: world). */
  seedsOf?: string;
  seed: number;
  policy: string;
  plan: TaskPlan;
  /** The part of the state the outcome is judged on (e.g. the DB; the file tree without the cwd). */
  stateOf(env: Environment): unknown;
}

export class ExpertError extends Error {}

/**
 * Execute the expert's script on a fresh environment and assemble the task. The reference conversation
 * holds the real observations; an expert call that errors unexpectedly is a generator bug and throws.
 */
export function buildTask(o: BuildOptions): WorldTask {
  // The expert runs on first access of `reference` / `expertState` / `verify`, not at generation: env
  // construction and result rendering cost more than planning, and filtering or listing thousands of
  // tasks needs neither. The result is cached, and identical whenever it is computed (pure in the seed).
  let run: { reference: Message[]; state: unknown; json: string } | null = null;
  const expert = () => {
    if (run) return run;
    const env = o.plan.makeEnv();
    const reference: Message[] = [];
    for (const [t, turn] of o.plan.turns.entries()) {
      reference.push({ role: 'user', content: turn.user });
      for (const step of turn.steps) {
        if ('reply' in step) { reference.push({ role: 'assistant', content: step.reply }); continue; }
        const obs = env.call(step.call.name, step.call.arguments);
        if (isErrorObservation(obs) !== !!step.expectError) {
          throw new ExpertError(`${o.world} seed ${o.seed} turn ${t}: expert call ${step.call.name}(${JSON.stringify(step.call.arguments)}) -> ${obs.text}`);
        }
        reference.push({ role: 'assistant', content: '', toolCalls: [step.call] });
        reference.push({ role: 'tool', name: step.call.name, content: obs.text, ...(obs.error ? { error: true } : {}) });
      }
      const last = turn.steps[turn.steps.length - 1];
      if (!last || !('reply' in last)) throw new ExpertError(`${o.world} seed ${o.seed} turn ${t}: expert turn must end with a reply`);
    }
    const state = o.stateOf(env);
    run = { reference, state, json: JSON.stringify(state) };
    return run;
  };
  return {
    id: `${o.world}-${o.seed}`,
    world: o.world,
    seed: o.seed,
    split: splitOf(o.seedsOf ?? o.world, o.seed),
    difficulty: difficultyOf(o.seedsOf ?? o.world, o.seed),
    userTurns: o.plan.turns.map((t) => t.user),
    get reference() { return expert().reference; },
    checklist: o.plan.turns.map((t, i) => finalizeChecklist(i, t.items)),
    policy: o.policy,
    tags: o.plan.tags,
    get expertState() { return expert().state; },
    makeEnv: o.plan.makeEnv,
    verify(final: Environment) {
      const e = { state: expert().state, json: expert().json };
      const got = o.stateOf(final);
      if (JSON.stringify(got) === e.json) return { passed: true, reason: 'final state matches the expert final state' };
      const d = jsonDiff(e.state, got);
      return { passed: d === null, reason: d === null ? 'final state matches the expert final state' : `final state differs from the expert's: ${d}` };
    },
  };
}

/** Registry helper: a World from its generator. */
export function defineWorld(spec: {
  name: string; description: string; policy: string; tools: () => ToolSchema[];
  generate(seed: number, difficulty: number): TaskPlan;
  stateOf(env: Environment): unknown;
  stateLine?(env: Environment, call?: ToolCall): string;
  /**
   * The world whose split and difficulty hashes this one shares (default: its own name). A variant of a world
   * (the files world with its tree shown, say) keeps the same seeds in the same splits, so slices stay paired.
   */
  seedsOf?: string;
}): World {
  const key = spec.seedsOf ?? spec.name;
  const world: World = {
    name: spec.name,
    description: spec.description,
    policy: spec.policy,
    tools: spec.tools,
    splitOf: (seed) => splitOf(key, seed),
    difficultyOf: (seed) => difficultyOf(key, seed),
    task(seed: number) {
      if (!Number.isInteger(seed) || seed < 0) throw new Error(`seed must be a non-negative integer, got ${seed}`);
      const plan = spec.generate(seed, difficultyOf(key, seed));
      return buildTask({ world: spec.name, seedsOf: key, seed, policy: spec.policy, plan, stateOf: spec.stateOf });
    },
    seeds: (q) => selectSeeds(key, q),
    tasks: (q) => selectSeeds(key, q).map((s) => world.task(s)),
    ...(spec.stateLine ? { stateLine: spec.stateLine } : {}),
  };
  return world;
}

// ---------------------------------------------------------------------------------------------------------
// Small helpers for generators

export const call = (name: string, args: Record<string, unknown> = {}): ExpertStep => ({ call: { name, arguments: args } });
export const reply = (text: string): ExpertStep => ({ reply: text });

/** Tools named in pass conditions or used by the expert, so that forbidden writes stay callable. */
export function toolsUsed(turns: TurnPlan[]): Set<string> {
  const s = new Set<string>();
  for (const t of turns) {
    for (const st of t.steps) if ('call' in st) s.add(st.call.name);
    for (const it of t.items) if ('tool' in it.cond) s.add(it.cond.tool);
  }
  return s;
}

/**
 * Re-execute a task's reference conversation on a fresh env: the final env (for task.verify) and the
 * per-turn assistant steps with the observations this execution produced (for the judge). `mismatches`
 * lists calls whose fresh observation differs from the stored one (should be empty: generation is pure).
 */
export function replayReference(task: Task): { env: Environment; turnSteps: AssistantStep[][]; mismatches: string[] } {
  const env = task.makeEnv();
  const turnSteps: AssistantStep[][] = [];
  const mismatches: string[] = [];
  let pending: ToolCall | null = null;
  let obs: Observation | null = null;
  for (const m of task.reference) {
    if (m.role === 'user') { turnSteps.push([]); continue; }
    const cur = turnSteps[turnSteps.length - 1];
    if (m.role === 'assistant' && m.toolCalls?.length) {
      for (const c of m.toolCalls) { pending = c; obs = env.call(c.name, c.arguments); cur.push({ call: c, result: obs }); }
    } else if (m.role === 'assistant') {
      cur.push({ reply: m.content });
    } else if (m.role === 'tool' && pending && obs) {
      if (obs.text !== m.content) mismatches.push(`${pending.name}: stored ${m.content.slice(0, 60)} vs replay ${obs.text.slice(0, 60)}`);
      pending = null; obs = null;
    }
  }
  return { env, turnSteps, mismatches };
}
