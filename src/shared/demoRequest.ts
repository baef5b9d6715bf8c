// The Rollout page's default request, shared by the page's URL defaults (src/shared/urlState.ts) and the Node
// script that writes the shipped demo trace (src/cli/demo-trace.ts): the trace the page opens on is what its Run
// button recomputes. A competent shipped policy (files-starter: 47% of held-out files tasks, 88% of difficulty 1)
// in rehearsal mode, where the policy imagines every tool result and the shadow environment records the real one
// beside it. maxNewTokens 192 is the starter's own Rehearse budget (its profile), so no imagined result is cut.

import type { RolloutRequest } from '../worker/protocol';

export const DEMO_MODEL = 'files-starter';

/** The task is chosen by the script (demo-meta.json) and becomes the page's default task (DEMO_TASK). */
export const DEMO_REQUEST: Omit<RolloutRequest, 'taskId'> & { topP: number; topK: number } = {
  modelUrl: `/models/${DEMO_MODEL}/`,
  world: 'files',
  mode: 'rehearsal',
  k: 4,
  seed: 0,
  temperature: 1,
  maxTurns: 8,
  maxNewTokens: 192,
  topP: 1,
  topK: 0,
};

/** Written by `npx tsx src/cli/demo-trace.ts` into src/app/demo/demo-meta.json; tests/app/ux.test.ts holds them equal. */
export const DEMO_TASK = 'files-136';
