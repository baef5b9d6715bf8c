// Teacher-forced Act accuracy: on held-out tasks, the policy sees each prompt of the expert's conversation
// (the exact prompt the rollout would build there) and answers greedily; an answer counts when it equals
// the expert's next message. Episode success needs every turn right, so it stays at 0 long after single
// turns start to come right; this measure shows that progress, turn by turn.

import { sftExamples } from '../agent/sft';
import type { RolloutConfig } from '../agent/rollout';
import type { TextGenerator } from '../engine/generator';
import type { Task } from '../envs/types';

export interface ActAccuracy {
  /** Share of the expert's Act turns reproduced exactly. */
  exact: number;
  turns: number;
  /** Exact share by turn index within the conversation (0 = the first assistant message). */
  byTurn: { turn: number; exact: number; n: number }[];
}

export async function teacherForcedActAccuracy(
  tasks: Task[], policy: TextGenerator, rollout: Omit<RolloutConfig, 'mode' | 'policy' | 'simulator'>, maxNewTokens = 96,
): Promise<ActAccuracy> {
  const { examples } = await sftExamples(tasks, { rollout, maxContext: policy.maxContext, countTokens: (s) => policy.countTokens(s) });
  const acts = examples.filter((e) => e.role === 'act');
  const gens = await policy.generate(acts.map((e, i) => ({ prompt: e.prompt, maxNewTokens, temperature: 0, topP: 1, topK: 0, stop: ['<|end|>'], seed: i })));
  const turnOf = new Map<string, number>();
  const tally = new Map<number, [number, number]>();
  let hits = 0;
  gens.forEach((g, i) => {
    const e = acts[i];
    const turn = turnOf.get(e.taskId) ?? 0;
    turnOf.set(e.taskId, turn + 1);
    const hit = g.text.trim() === e.target.trim();
    hits += hit ? 1 : 0;
    const t = tally.get(turn) ?? [0, 0];
    tally.set(turn, [t[0] + (hit ? 1 : 0), t[1] + 1]);
  });
  return {
    exact: acts.length ? hits / acts.length : 0,
    turns: acts.length,
    byTurn: [...tally].sort((a, b) => a[0] - b[0]).map(([turn, [h, n]]) => ({ turn, exact: h / n, n })),
  };
}
