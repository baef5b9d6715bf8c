// The Train page's default run: its values are in src/shared/trainDefaults.ts (the URL schema, src/shared/urlState.ts,
// takes its defaults from them); re-exported here for the page, with the line that describes the run.

import { DEFAULT_TRAIN_STARTER, TINY_MODEL_ID } from '../../../shared/trainDefaults';

export { DEFAULT_TRAIN_STARTER, TINY_MODEL_ID, TRAIN_DEFAULTS } from '../../../shared/trainDefaults';

/** What the visitor is watching, in one line, for the run the settings describe. */
export function watchingLine(o: { variant: string; model: string; world: string; difficulty: number; pool: number; tasks: number; group: number; temperature: number; evalEvery: number; evalTasks: number; evalK: number; fallback: boolean }): string {
  const what = o.model === TINY_MODEL_ID
    ? 'the tiny model built in the worker (untrained: its reward stays near 0, so this shows the mechanics, not learning)'
    : `the starter policy ${o.model}`;
  const tasks = `${o.difficulty ? `difficulty-${o.difficulty} ` : ''}${o.world} tasks`;
  const how = o.evalK > 1 ? `${o.evalK} attempts each at temperature ${o.temperature}, as in training` : 'greedy';
  const evals = o.evalEvery > 0 ? `; held-out success is measured on ${o.evalTasks} unseen ${tasks} (${how}) in the real environment every ${o.evalEvery} steps` : '';
  return `${o.fallback ? `${DEFAULT_TRAIN_STARTER} is missing from models/, so: ` : ''}You are watching ${o.variant} fine-tune ${what} on a pool of ${o.pool} ${tasks}: each step samples ${o.group} attempts at temperature ${o.temperature} at each of ${o.tasks} tasks and pushes up the better-scoring ones (reward = checklist score)${evals}.`;
}

/**
 * Why the page opens on GRPO + real environment and not on EnvACE (the variant the playground is about): the
 * findings' "positive control" and "simulator gate" sections (docs/findings.md, served as WHY_DEFAULT_DOC) hold the
 * measurements behind it.
 */
export const WHY_DEFAULT = 'Why this default: GRPO against the real environment is the positive control that measurably improves the starter; EnvACE (one click away: rollout mode "rehearsal") trains on the policy\'s own imagined tool results, and has not yet been shown to raise held-out success within 5 minutes on WASM.';
/** The page of the site that holds the measurements behind WHY_DEFAULT (docs/findings.md; src/app/build/docsPlugin.ts). */
export const WHY_DEFAULT_DOC = 'docs/findings.html#the-positive-control';
