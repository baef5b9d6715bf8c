// A prompting profile: how prompts are built and sampled for one model. A model folder stores the profile
// it was trained with (config.json → envace.profile) so rollouts, RL and evaluation prompt it identically.

import type { ActPromptOptions, RehearsePromptOptions } from './prompts';
import type { RolloutConfig, RolloutLimits, SamplingConfig } from './rollout';

export interface PromptProfile {
  actPrompt: ActPromptOptions;
  rehearsePrompt: RehearsePromptOptions;
  act: Partial<SamplingConfig>;
  rehearse: Partial<SamplingConfig>;
  limits: Partial<RolloutLimits>;
}

/** For our tiny models: compact tool lists, short history, hints of the same tool only, short outputs. */
export const TINY_PROFILE: PromptProfile = {
  actPrompt: { toolListing: 'compact', maxHistory: 6, formatHint: false },
  rehearsePrompt: { toolListing: 'compact', hints: 'same-tool', maxHints: 2, maxHistory: 2, style: 'short' },
  act: { maxNewTokens: 96 },
  rehearse: { maxNewTokens: 192 },
  limits: { maxAssistantTurns: 12, maxGenerations: 40, minNewTokens: 24 },
};

/**
 * For starter policies trained from scratch: tool names only, no domain policy text (the rules are learned
 * from the reference conversations), Rehearse without the schema or Act's raw output. Prompts are 4–6× shorter
 * than TINY_PROFILE's, so the same CPU time trains on several times more conversations; the turn cap leaves
 * room for every expert of the held-out pools.
 */
export const LEAN_PROFILE: PromptProfile = {
  actPrompt: { toolListing: 'names', policy: false, maxHistory: 8, formatHint: false },
  rehearsePrompt: { toolListing: 'names', hints: 'same-tool', maxHints: 2, maxHistory: 2, style: 'short', rawAct: false, schema: false },
  act: { maxNewTokens: 96 },
  rehearse: { maxNewTokens: 192 },
  limits: { maxAssistantTurns: 16, maxGenerations: 48, minNewTokens: 24 },
};

/**
 * The Rehearse prompt of the reference's simulator, as far as a 1,024-token context allows: the whole conversation,
 * every reference (call, result) pair of the task with the matching one first, the Act output, the called tool's
 * compact signature, and a validate-then-generate instruction. Tools are listed by name (the reference lists full
 * schemas); the rollout's ladder sheds history and hints only when a prompt would not leave the Rehearse budget.
 */
export const REFERENCE_REHEARSE_PROMPT: RehearsePromptOptions = {
  toolListing: 'names', hints: true, history: true, rawAct: true, schema: 'compact', style: 'validate',
};

export function profileFromConfig(rawConfig: Record<string, unknown> | undefined): PromptProfile {
  const p = (rawConfig?.envace as { profile?: PromptProfile } | undefined)?.profile;
  return p ?? TINY_PROFILE;
}

/** The rollout settings a profile implies (mode, policy and seed are the caller's). */
export function rolloutSettings(p: PromptProfile): Omit<RolloutConfig, 'mode' | 'policy'> {
  return { actPrompt: p.actPrompt, rehearsePrompt: p.rehearsePrompt, act: p.act, rehearse: p.rehearse, limits: p.limits };
}

/** What `npm run sft` may change of a folder's Rehearse prompt (stored in the new folder's profile). */
export interface RehearsePromptChange {
  schema?: 'json' | 'compact' | 'none'; maxHistory?: number; hints?: 'same-tool' | 'all';
  /** Replace the whole Rehearse prompt by the reference simulator's (REFERENCE_REHEARSE_PROMPT) before the fields above. */
  layout?: 'reference';
  /** The Rehearse role's token budget (npm run rehearse-budget says what a world needs). */
  budget?: number;
  /** Show the conversation's lines that mention the call's names under the call (RehearsePromptOptions.mentions). */
  mentions?: boolean;
}

/** The profile with those Rehearse-prompt settings changed; everything else, and every unset field, as it was. */
export function withRehearsePrompt(p: PromptProfile, c: RehearsePromptChange): PromptProfile {
  return {
    ...p,
    ...(c.budget !== undefined ? { rehearse: { ...p.rehearse, maxNewTokens: c.budget } } : {}),
    rehearsePrompt: {
      ...(c.layout === 'reference' ? REFERENCE_REHEARSE_PROMPT : p.rehearsePrompt),
      ...(c.schema !== undefined ? { schema: c.schema === 'json' ? true : c.schema === 'compact' ? 'compact' as const : false } : {}),
      ...(c.maxHistory !== undefined ? { maxHistory: c.maxHistory } : {}),
      ...(c.hints !== undefined ? { hints: c.hints === 'all' ? true : 'same-tool' as const } : {}),
      ...(c.mentions ? { mentions: true } : {}),
    },
  };
}
