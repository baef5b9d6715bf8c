// The Rehearse role's token budget for a world: room for the longest real result of the world's training pool,
// written the way an SFT target writes it, plus a margin. A smaller budget cuts imagined results short (a parse
// error that ends the episode); the rollout never shrinks a Rehearse budget to fit (it sheds context instead), so
// the budget alone decides whether a world's results fit. Stored in the model folder's profile
// (config.json → envace.profile.rehearse.maxNewTokens) by `npm run rehearse-budget -- --write`, so training,
// evaluation, probes and the browser use the same number.

import type { Task } from '../envs/types';
import { formatRehearse } from './protocol';

/** Margin over the longest real result: a share of it plus a few tokens for the stop string and a short think. */
export const BUDGET_MARGIN = { share: 0.1, tokens: 8 };

export interface LongestResult { tokens: number; taskId: string; tool: string; results: number }

/** The longest reference result of the tasks as a Rehearse target (`<execution_result>` block), in tokens. */
export function longestRealResult(tasks: Task[], countTokens: (text: string) => number): LongestResult {
  let best: LongestResult = { tokens: 0, taskId: '', tool: '', results: 0 };
  let results = 0;
  for (const task of tasks) for (const m of task.reference) {
    if (m.role !== 'tool') continue;
    results++;
    const n = countTokens(formatRehearse(undefined, m.content));
    if (n > best.tokens) best = { tokens: n, taskId: task.id, tool: m.name ?? '', results: 0 };
  }
  return { ...best, results };
}

export function rehearseBudget(longest: number): number {
  // Rounded before the ceiling so that 100 × 0.1 is 10, not 11.
  return longest + Math.ceil(Math.round(longest * BUDGET_MARGIN.share * 1e6) / 1e6) + BUDGET_MARGIN.tokens;
}
