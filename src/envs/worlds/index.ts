// Registry of the built-in procedural worlds. Usage:
//   getWorld('retail').task(3)                                   -> one verified Task (seed 3)
//   getWorld('files').tasks({ split: 'train', difficulty: 2, count: 100, offset: 0 })
// Seeds are the task identity: the same seed always yields the same task, split and difficulty.

import type { Environment, Task, ToolCall } from '../types';
import type { World, WorldTask } from './common';
import { retailWorld } from './retail/world';
import { filesAllWorld, filesFolderWorld, filesLinesWorld, filesLiveWorld, filesWorld } from './files/world';

export type { World, WorldTask, TaskQuery, Split, ItemSpec, TurnPlan, TaskPlan, ExpertStep } from './common';
export { splitOf, difficultyOf, selectSeeds, jsonDiff, replayReference, RestrictedEnv } from './common';
export { retailWorld, RETAIL_POLICY } from './retail/world';
export { filesWorld, filesFolderWorld, filesAllWorld, filesLiveWorld, filesLinesWorld, FILES_POLICY, VISIBILITIES, type Visibility } from './files/world';

// files-folder, files-all, files-live and files-lines are the files world's visibility levels (its tasks with the
// starting tree shown; live: every result ends with the working folder's entries; lines: every folder on its own line).
const WORLDS: Record<string, World> = { retail: retailWorld, files: filesWorld, 'files-folder': filesFolderWorld, 'files-all': filesAllWorld, 'files-live': filesLiveWorld, 'files-lines': filesLinesWorld };

export function listWorlds(): World[] { return Object.values(WORLDS); }
export function worldNames(): string[] { return Object.keys(WORLDS); }

export function getWorld(name: string): World {
  const w = WORLDS[name];
  if (!w) throw new Error(`unknown world '${name}' (known: ${Object.keys(WORLDS).join(', ')})`);
  return w;
}

/** Task ids are '<world>-<seed>'. */
export function taskById(id: string) {
  const m = /^(.+)-(\d+)$/.exec(id);
  if (!m) throw new Error(`bad task id '${id}' (expected <world>-<seed>)`);
  return getWorld(m[1]).task(Number(m[2]));
}

/** The serialisable part of a task (what crosses the worker boundary, or goes to a JSON file). */
export function taskData(t: WorldTask) {
  return {
    id: t.id, world: t.world, seed: t.seed, split: t.split, difficulty: t.difficulty, tags: t.tags,
    policy: t.policy, tools: t.makeEnv().tools(), userTurns: t.userTurns, reference: t.reference, checklist: t.checklist,
  };
}

/**
 * The state lines `npm run sft --think-state HOW` writes into Rehearse targets: each task's world's `stateLine`
 * ('folder': the state alone; 'check': also what it says of the call's names), undefined for worlds without one.
 */
export function thinkStateLine(how: 'folder' | 'check') {
  return (env: Environment, task: Task, call?: ToolCall): string | undefined => getWorld(task.world).stateLine?.(env, how === 'check' ? call : undefined);
}
