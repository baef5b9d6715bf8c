// The rollout a Rollout-page request means for a Hugging Face model: the model's own chat template (Qwen3's
// is the reference's Act format with native tool calls) for Act and Rehearse, and the prompting of
// `npm run rollout -- --model HF` (full tool listings, no tiny-model profile: the folder carries none).
// Pure: the worker (hf-service.ts) and the Node side of e2e/hf-model.spec.ts build the same config.

import type { ChatFormat } from '../agent/chatTemplate';
import { isRehearsePrompt, ScriptedGenerator, taskOfPrompt } from '../agent/expert';
import { rolloutSettings, type PromptProfile } from '../agent/profile';
import type { RolloutConfig } from '../agent/rollout';
import { formatAct } from '../agent/protocol';
import type { GenerateRequest, Generation, TextGenerator } from '../engine/generator';
import type { Message, Task } from '../envs/types';
import type { RolloutRequest } from './protocol';
import { buildRolloutConfig, type BuiltRollout } from './rollout-config';

export const HF_PROFILE: PromptProfile = { actPrompt: {}, rehearsePrompt: {}, act: {}, rehearse: {}, limits: {} };

/** HF_PROFILE's rollout settings (the CLIs' `--model HF` runs; the format is the model's own chat template). */
export function hfRolloutSettings(): Omit<RolloutConfig, 'mode' | 'policy'> {
  return rolloutSettings(HF_PROFILE);
}

export function buildHfRolloutConfig(format: ChatFormat, req: RolloutRequest, policy: TextGenerator, cap: number | null = null): BuiltRollout {
  const built = buildRolloutConfig({ envace: { profile: HF_PROFILE } }, req, policy, cap);
  return { ...built, cfg: { ...built.cfg, format, simulatorFormat: format } };
}

/**
 * "Rehearse only": Act replays the task's reference assistant turns (its tool calls, then its reply), and the
 * model plays Rehearse on every call. An untrained model rarely writes a tool call, so this is how its
 * Rehearse role gets watched (and measured against the shadow environment) before any training.
 */
export { HF_REHEARSE_ONLY } from './protocol';

/** The text a template puts before an assistant turn (Qwen3: "<|im_start|>assistant\n"). */
function assistantHeader(format: ChatFormat): string {
  const user: Message[] = [{ role: 'user', content: 'x' }];
  const open = format.render(user, { addGenerationPrompt: true });
  const closed = format.render(user, { addGenerationPrompt: false });
  const header = open.startsWith(closed) ? open.slice(closed.length) : '';
  if (!header.trim()) throw new Error(`chat template ${format.name}: no assistant header to count turns by`);
  return header;
}

/**
 * Act by the task's reference conversation: the n-th Act prompt gets the n-th reference assistant turn, whole
 * (the page's token budget is the model's: a scripted call cut short would only test the budget). With several
 * tasks (an evaluation's batch) a prompt's task is the one whose first user message it contains.
 */
export function referenceAct(task: Task | readonly Task[], format: ChatFormat): TextGenerator {
  const header = assistantHeader(format);
  const tasks = Array.isArray(task) ? [...task] as Task[] : [task as Task];
  const turnsOf = new Map(tasks.map((t) => [t.id, t.reference.filter((m): m is Extract<Message, { role: 'assistant' }> => m.role === 'assistant')]));
  const script = new ScriptedGenerator((req) => {
    const t = tasks.length === 1 ? tasks[0] : taskOfPrompt(tasks, req.prompt);
    if (!t) return 'I cannot help with that.';
    const done = req.prompt.split(header).length - 2;
    const next = turnsOf.get(t.id)![done];
    if (!next) return 'Done.';
    return next.toolCalls?.length ? formatAct(undefined, next.toolCalls) : next.content;
  }, { name: 'reference-act' });
  return {
    name: script.name, maxContext: script.maxContext, countTokens: (t) => script.countTokens(t),
    generate: (reqs) => script.generate(reqs.map((r) => ({ ...r, maxNewTokens: Math.max(r.maxNewTokens, 1 << 16) }))),
  };
}

/** Act requests to `act`, Rehearse requests to `rehearse`, each batch split by role and answered in order. */
export function actAndRehearse(act: TextGenerator, rehearse: TextGenerator): TextGenerator {
  return {
    name: `${act.name}+${rehearse.name}`,
    maxContext: rehearse.maxContext,
    countTokens: (t) => rehearse.countTokens(t),
    async generate(reqs: GenerateRequest[]): Promise<Generation[]> {
      const out: Generation[] = new Array(reqs.length);
      for (const [gen, want] of [[act, false], [rehearse, true]] as const) {
        const idx = reqs.map((r, i) => [i, isRehearsePrompt(r.prompt)] as const).filter(([, r]) => r === want).map(([i]) => i);
        if (idx.length) (await gen.generate(idx.map((i) => reqs[i]!))).forEach((g, j) => { out[idx[j]!] = g; });
      }
      return out;
    },
  };
}
