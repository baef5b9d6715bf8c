// How a shipped model was made, read from its config.json's "envace" record (issue 42: the Models table did not say
// what -envace, -mem or -grpo-real mean). Pure, unit-tested in tests/app/model-origin.test.ts.

const VARIANT_WORDS: Record<string, string> = {
  envace: 'EnvACE (Role-Wise GRPO on Act and Rehearse, rehearsal rollouts)',
  'grpo-real': 'GRPO against the real environment (Act only)',
  'grpo-simulator': 'GRPO with a frozen simulator (Act only)',
  'per-role': 'EnvACE with one policy per role',
  'standard-grpo': 'standard GRPO (one baseline per trajectory)',
};

const base = (p: unknown) => String(p ?? '').replace(/\/+$/, '').split('/').pop() ?? '';

export function modelOrigin(config: Record<string, unknown> | null): string {
  const e = (config?.envace ?? {}) as { rl?: { variant?: string; steps?: number; from?: string }; memoryPool?: number; init?: string; steps?: number; size?: string };
  if (Number(e.memoryPool ?? 0) > 0) return `${base(e.init) || 'a policy'} trained further with rehearsal memories in its Act prompt (for "Rehearse first")`;
  if (e.rl?.variant) return `${base(e.rl.from) || 'a starter'} after ${e.rl.steps ?? '?'} steps of ${VARIANT_WORDS[e.rl.variant] ?? e.rl.variant}`;
  if (e.steps !== undefined) return `supervised training on the reference expert's conversations (${e.steps} steps${e.size ? `, ${e.size} size` : ''})`;
  return 'no training record in its config.json';
}

/** The name suffixes, in words (shown under the table). */
export const NAME_SUFFIXES = '-starter: trained on the reference expert\'s conversations (the starting policy) · -envace: then EnvACE training · -grpo-real: then GRPO against the real environment · -mem: then trained to read a rehearsal memory';
