// Rehearsal memories in distribution: SFT conversations whose Act prompts carry a memory built from the
// policy's own imagined attempts (issue 20 §3).
//
// A policy that never saw a memory in its prompt reads one as noise (the first sweep: success collapsed at every
// N). Here the reference conversation is replayed by the teacher (src/agent/sft.ts), and before every user turn the
// rollout's onUserTurn hook runs the *policy's* N imagined attempts from the reference history, assesses them with
// the rules and condenses them exactly as runTts does. The Act targets stay the expert's, so the policy learns to
// read the memory: follow the plan where the expert does, and not where the plan was wrong.

import type { TextGenerator } from '../engine/generator';
import type { Task } from '../envs/types';
import { compactFormat, type ChatFormat } from '../agent/chatTemplate';
import type { RolloutConfig } from '../agent/rollout';
import { sftExamples, type SftExample } from '../agent/sft';
import { buildMemory, type MemoryKind } from './memory';
import { rehearseTurns, type Strategy } from './rehearse';

/** How one conversation rehearses (drawn per conversation, so every setting the sweep uses is seen). */
export interface MemoryDraw { n: number; strategy: Strategy; memory: MemoryKind }

export interface MemorySftOptions {
  /** The policy that rehearses (the one being trained, as it is now). */
  policy: TextGenerator;
  /** The profile's rollout settings (prompts, limits, budgets), as for sftExamples. */
  rollout: Omit<RolloutConfig, 'mode' | 'policy' | 'simulator'>;
  format?: ChatFormat;
  maxContext: number;
  countTokens: (text: string) => number;
  draw: (task: Task) => MemoryDraw;
  /** Memory bound in policy tokens (runTts's default: 192). */
  memoryTokens?: number;
  /** Seed of the attempts (each attempt's seed also derives from the turn and its index). */
  seed: number;
  attemptTemperature?: number;
}

export interface MemoryRecord { taskId: string; userTurn: number; draw: MemoryDraw; memory: string; memoryTokens: number }

/**
 * Act rows of the teacher-forced conversations, each user turn's prompts carrying the policy's rehearsal memory.
 * Tasks whose conversation does not reach its last turn are left out (as sftExamples reports them).
 */
export async function memorySftExamples(tasks: Task[], opts: MemorySftOptions, onTask?: (done: number) => void): Promise<{ examples: SftExample[]; memories: MemoryRecord[]; incomplete: string[] }> {
  const format = opts.format ?? compactFormat;
  const budget = opts.memoryTokens ?? 192;
  const examples: SftExample[] = [];
  const memories: MemoryRecord[] = [];
  const incomplete: string[] = [];
  let done = 0;
  for (const task of tasks) {
    const draw = opts.draw(task);
    const cfg: RolloutConfig = { ...opts.rollout, mode: 'rehearsal', policy: opts.policy, format, seed: opts.seed };
    const ctx = { policy: opts.policy, format, cfg, opts: { n: draw.n, strategy: draw.strategy, memory: draw.memory, memoryTokens: budget, attemptTemperature: opts.attemptTemperature ?? 1 } };
    const r = await sftExamples([task], {
      maxContext: opts.maxContext, countTokens: opts.countTokens,
      rollout: {
        ...opts.rollout, format,
        onUserTurn: async (starts) => {
          const attempts = await rehearseTurns(starts, ctx);
          return starts.map((s, i) => {
            const memory = buildMemory(attempts[i], { kind: draw.memory, budget, measure: opts.countTokens });
            memories.push({ taskId: task.id, userTurn: s.userTurn, draw, memory, memoryTokens: memory ? opts.countTokens(memory) : 0 });
            return memory || undefined;
          });
        },
      },
    });
    if (r.incomplete.length) incomplete.push(...r.incomplete);
    else examples.push(...r.examples.filter((e) => e.role === 'act'));
    onTask?.(++done);
  }
  return { examples, memories, incomplete };
}
