// Supervised examples for both roles from a task's reference conversation.
//
// The examples are produced by the rollout engine itself, driven by a teacher that answers every Act
// request with the expert's next assistant message and every Rehearse request with the real result the
// expert got. So an SFT prompt is byte-identical to the prompt the policy will see at inference time
// (same prompt builders, same history trimming, same context-fitting ladder): nothing can drift.

import type { GenerateRequest, Generation, TextGenerator } from '../engine/generator';
import type { Message, Task } from '../envs/types';
import { compactFormat, stripStop } from './chatTemplate';
import { formatAct, formatRehearse } from './protocol';
import { REHEARSE_MARKER } from './prompts';
import { rollout, type RolloutConfig } from './rollout';
import type { Role, Trajectory } from './types';

export interface SftExample { taskId: string; role: Role; prompt: string; target: string }

interface Script { acts: string[]; results: string[]; act: number; result: number }

function scriptOf(task: Task): Script {
  const acts: string[] = [];
  const results: string[] = [];
  for (const m of task.reference as Message[]) {
    if (m.role === 'assistant') acts.push(m.toolCalls && m.toolCalls.length > 0 ? formatAct(undefined, m.toolCalls) : m.content);
    else if (m.role === 'tool') results.push(formatRehearse(undefined, m.content));
  }
  return { acts, results, act: 0, result: 0 };
}

/** Teacher-forcing generator for ONE trajectory: its requests arrive in conversation order. */
class Teacher implements TextGenerator {
  readonly name = 'teacher';
  private s: Script;
  constructor(task: Task, readonly maxContext: number, private count: (t: string) => number) { this.s = scriptOf(task); }
  countTokens(text: string): number { return this.count(text); }
  async generate(reqs: GenerateRequest[]): Promise<Generation[]> {
    return reqs.map((req) => {
      const s = this.s;
      const text = (req.prompt.includes(REHEARSE_MARKER) ? (s.results[s.result++] ?? '') : (s.acts[s.act++] ?? '')) + (req.stop[0] ?? '');
      return { text, promptIds: [], outputIds: [], logprobs: [], entropy: [], finishReason: 'stop' as const };
    });
  }
}

export interface SftOptions {
  /** Rollout settings (prompt options, limits, format); mode and policy are set here. */
  rollout?: Omit<RolloutConfig, 'mode' | 'policy' | 'simulator'>;
  maxContext?: number;
  countTokens?: (text: string) => number;
}

export interface SftResult {
  examples: SftExample[];
  trajectories: Trajectory[];
  /** Tasks whose teacher-forced episode did not reach its last turn (e.g. a prompt did not fit). */
  incomplete: string[];
}

/** Teacher-forced rehearsal-mode rollouts of the reference conversations, one task at a time. */
export async function sftExamples(tasks: Task[], opts: SftOptions = {}): Promise<SftResult> {
  const format = opts.rollout?.format ?? compactFormat;
  const examples: SftExample[] = [];
  const trajectories: Trajectory[] = [];
  const incomplete: string[] = [];
  for (const task of tasks) {
    const teacher = new Teacher(task, opts.maxContext ?? 1 << 20, opts.countTokens ?? ((s) => Math.ceil(s.length / 4)));
    const [tr] = await rollout([{ task, groupId: task.id }], {
      ...opts.rollout, mode: 'rehearsal', policy: teacher, keepPrompts: true, seed: 0,
      act: { ...opts.rollout?.act, temperature: 0 }, rehearse: { ...opts.rollout?.rehearse, temperature: 0 },
    });
    trajectories.push(tr);
    if (tr.terminatedBy !== 'final_turn') incomplete.push(tr.taskId);
    for (const r of tr.rows) {
      if (r.prompt === undefined) continue;
      examples.push({ taskId: tr.taskId, role: r.role, prompt: r.prompt, target: stripStop(r.text, format.stop) + (format.stop[0] ?? '') });
    }
  }
  return { examples, trajectories, incomplete };
}
