// The one source of the page's definitions: every hover text for a term (Act, Rehearse, fidelity and its three
// measures, checklist, state check, success, reward, …) comes from here, through <Term> / <Metric> (ui.tsx) or
// GLOSSARY[...] directly in a title. tests/app and e2e/ux-round2.spec.ts check that each shown term carries it.

export const GLOSSARY = {
  Act: 'Act: the policy\'s first role: given the conversation so far, emit the next tool call (or the reply to the user)',
  Rehearse: 'Rehearse: the policy\'s second role, same weights: imagine the result a tool call would return, instead of (or before) running it',
  fidelity: 'rehearsal fidelity: how close an imagined tool result is to the real one, measured three ways: exact, field F1 and error agreement',
  exact: 'rehearsal fidelity: the imagined result equals the real one after canonical JSON formatting',
  'field F1': 'rehearsal fidelity: F1 over the (path, value) fields of the imagined result vs the real one (1 = every field matches)',
  'error agreement': 'rehearsal fidelity: imagined and real results agree on whether the call failed',
  checklist: 'weighted share of the task\'s checklist items the rule-based judge passed, over all user turns (0…1)',
  'state check': 'outcome: the final environment state equals the expert\'s; read-only tasks pass it by doing nothing, so it is not success',
  success: 'state check passed AND every checklist item passed (what the Benchmarks page calls success)',
  reward: 'the scalar GRPO trains on: the checklist score, or 0 when an EnvACE error (parse or tool-call format) ended the episode',
  'pass@k': 'share of tasks where at least one of the k samples succeeded',
  outcome: 'the state check: final environment state equals the expert\'s (read-only tasks pass by doing nothing)',
  termination: 'why the episode ended: final_turn, parse_error, tool_error, required_item_failed, turn_cap, length, generation_cap',
  seed: 'the trajectory\'s own sampling seed, derived from (seed field, task id, sample index), so each of the n samples differs',
  rehearsal: 'rehearsal mode: every tool call is answered by the policy\'s own Rehearse role (imagined); a shadow environment records the real result beside it',
  simulator: 'simulator mode: a frozen copy of the model (or a chosen Rehearse model) answers every tool call; the policy only acts',
  real: 'real mode: the environment executes every tool call; nothing is imagined',
  'n/a': 'not applicable: this role or measure does not exist in this variant or mode (it is not 0)',
} as const;

export type GlossaryTerm = keyof typeof GLOSSARY;
