// The Train page's default run: GRPO on a shipped starter policy that solves some difficulty-1 files tasks
// and fails others, so the K rollouts of a task differ in reward and the group baseline has something to
// work with (the built-in tiny model scores ≈0 everywhere: zero advantages, flat curves). The URL defaults
// (src/app/urlState.ts) are these values, so a link without t.* keys opens this run.
//
// Settings piloted in Node first (`tsx src/cli/train.ts`, logs in /work/runs/learn/), then checked in
// headless Chromium on WASM by e2e/train-learns.spec.ts.

/** The one place the default starter folder is named (models/<name>); replace it here when a better one ships. */
export const DEFAULT_TRAIN_STARTER = 'files-starter-small';

/** The worker builds this model itself (src/worker/train-tiny.ts): the fallback when the starter is missing. */
export const TINY_MODEL_ID = 'builtin:tiny';

export const TRAIN_DEFAULTS = {
  model: DEFAULT_TRAIN_STARTER,
  /**
   * Rollout mode 'real' (the GRPO + real environment preset): its reward is the real checklist score, which rose
   * in the Node pilots; EnvACE's transcript-judged reward (imagined results) stayed flat or fell over the same
   * steps (pilot figures in the issue-10 report). The EnvACE preset is one click away.
   */
  mode: 'real',
  world: 'files',
  /** Difficulty-1 tasks: 2–4 assistant turns, where the starter succeeds on ≈25% greedy. */
  difficulty: 1,
  /** Training tasks come from this many train seeds (src/rl/session.ts taskPool): each is met several times in a short run. */
  taskPool: 8,
  steps: 12,
  tasksPerStep: 4,
  groupSize: 4,
  /** Every difficulty-1 expert needs ≤ 4 assistant turns; 6 leaves room without paying for long loops. */
  maxTurns: 6,
  /** 0 = the folder's own per-generation budgets (its prompting profile). */
  maxNewTokens: 0,
  temperature: 1,
  lr: 1e-3,
  evalEvery: 12,
  evalTasks: 16,
  checkpointEvery: 4,
} as const;

/** What the visitor is watching, in one line, for the run the settings describe. */
export function watchingLine(o: { variant: string; model: string; world: string; difficulty: number; pool: number; tasks: number; group: number; evalEvery: number; evalTasks: number; fallback: boolean }): string {
  const what = o.model === TINY_MODEL_ID
    ? 'the tiny model built in the worker (untrained: its reward stays near 0, so this shows the mechanics, not learning)'
    : `the starter policy ${o.model}`;
  const tasks = `${o.difficulty ? `difficulty-${o.difficulty} ` : ''}${o.world} tasks`;
  const evals = o.evalEvery > 0 ? `; held-out success is measured on ${o.evalTasks} unseen ${tasks} in the real environment every ${o.evalEvery} steps` : '';
  return `${o.fallback ? `${DEFAULT_TRAIN_STARTER} is missing from models/, so: ` : ''}You are watching ${o.variant} fine-tune ${what} on a pool of ${o.pool} ${tasks}: each step samples ${o.group} attempts at each of ${o.tasks} tasks and pushes up the better-scoring ones (reward = checklist score)${evals}.`;
}
