// Which policy "Rehearse first" uses, and what it says about a committed run that could not be parsed (issue 42).
// Pure, so the choice is unit-tested (tests/app/rehearse-policy.test.ts).

import type { Row } from '../../../agent/types';
import type { ModelEntry } from '../../../worker/protocol';

/** Trained with rehearsal memories in its Act prompt (`npm run sft -- --memory-pool`): the memory is in distribution. */
export function memoryTrained(m: ModelEntry | undefined): boolean {
  return Number((m?.config?.envace as { memoryPool?: number } | undefined)?.memoryPool ?? 0) > 0;
}

/**
 * The policy rehearse-first uses unless the visitor picks another (issue 42): a policy that never saw a memory in
 * its prompt breaks its own outputs when given one (files-starter: every committed run of the default task ended
 * on unparsable JSON). So the world's EnvACE-trained starter with memory SFT, the page's method end to end, else
 * its base starter with memory SFT, else any memory-trained policy, else the Rollout page's policy.
 */
export function defaultRehearsePolicy(models: ModelEntry[], world: string, rollout: ModelEntry | undefined): ModelEntry | undefined {
  return models.find((m) => m.name === `${world}-starter-envace-mem`) ?? models.find((m) => m.name === `${world}-starter-mem`)
    ?? models.find((m) => memoryTrained(m) && m.name.startsWith(`${world}-`)) ?? rollout;
}

/** Why this policy rehearses, in a sentence (the panel shows it under the policy). */
export function policyWhy(p: ModelEntry, rollout: ModelEntry | undefined): string {
  const init = String((p.config?.envace as { init?: string } | undefined)?.init ?? '').replace(/^models\//, '');
  if (memoryTrained(p)) {
    return `${p.name} was trained${init ? ` from ${init}` : ''} with rehearsal memories in its Act prompt, so the memory written before each turn is something it has learned to read`
      + (rollout && !memoryTrained(rollout) && rollout.name !== p.name ? `; the Rollout policy above (${rollout.name}) never saw one in training, and with one its calls tend to come out unparsable` : '');
  }
  return `${p.name} was not trained with a memory in its prompt: with one, its committed calls may come out unparsable. That is a measured result (compared below with the same seeds without rehearsal), not a fault of the page; a policy marked "trained with memories" reads the memory`;
}

/** A committed run that ended on output the environment could not read as a call: said in words. */
const UNPARSABLE: Record<string, string> = {
  JSON_DECODE_ERROR: 'the tool call it wrote is not valid JSON',
  NO_TOOL_CALL_FOUND: 'it wrote no tool call where one was expected',
  NO_ARGUMENTS: 'its tool call has no arguments',
  INVALID_TOOL_NAME: 'it called a tool that does not exist',
  NON_SERIALIZABLE_ARGUMENTS: 'its tool call has arguments that cannot be read',
};

export function unparsableText(t: { terminatedBy?: string; rows: Row[] }): string | null {
  if (t.terminatedBy !== 'parse_error') return null;
  const bad = [...t.rows].reverse().find((r) => r.role === 'act' && r.error);
  const code = bad?.error?.code ?? 'parse_error';
  return `the committed run ended on an output the environment could not read: ${UNPARSABLE[code] ?? 'it could not be parsed as a tool call'} (${code})`;
}
