// BFCL v4 multi-turn checker (eval_checker/multi_turn_eval/multi_turn_checker.py plus the turn-count
// guard of eval_runner._evaluate_single_multi_turn_entry). Per turn, the model's decoded calls and the
// ground truth run in two separate environments; after every turn with a non-empty ground truth:
//   1. the model must have produced at least one non-empty step,
//   2. every involved instance's public attributes must equal the ground truth's (Python ==, so a
//      Directory compares by name + contents only),
//   3. the ground truth's result strings for this turn must be a sub-multiset of all the model's
//      result strings so far (order ignored, duplicates counted).
// Turns whose ground truth is empty are executed (so later states line up) but not checked, exactly
// as BFCL v4 does; the separate irrelevance check is available as an option.

import { BfclEnvironment, isLongContext, type BfclEntry, type BfclEnvOptions } from './env';
import { pyEquals } from '../python';

export type ModelTurns = string[][][]; // turn -> step -> decoded python call strings

export interface CheckResult {
  valid: boolean;
  reason?: string;
  error_type?: string;
  /** Turn where the check failed. */
  turn?: number;
  details?: unknown;
}

export interface CheckOptions extends Omit<BfclEnvOptions, 'turn'> {
  /** Also apply multi_turn_irrelevance_checker (BFCL v4's runner does not call it). Default false. */
  checkIrrelevance?: boolean;
}

/** BFCL's is_empty_execute_response. */
export function isEmptyExecuteResponse(steps: unknown[]): boolean {
  if (steps.length === 0) return true;
  return steps.length === 1 && Array.isArray(steps[0]) && steps[0].length === 0;
}

/** list1 ⊆ list2 as multisets; returns the items of list1 left unmatched. */
export function missingUnordered(list1: string[], list2: string[]): string[] {
  const pool = [...list2];
  const missing: string[] = [];
  for (const item of list1) {
    const i = pool.indexOf(item);
    if (i < 0) missing.push(item);
    else pool.splice(i, 1);
  }
  return missing;
}

/** The attributes the checker compares: a backend's Python-equality view when it has one. */
function comparableState(env: BfclEnvironment, cls: string): Map<string, unknown> {
  const b = env.backend(cls) as unknown as { compareState?: () => unknown; state: () => unknown };
  const st = typeof b.compareState === 'function' ? b.compareState() : b.state();
  if (st instanceof Map) return st as Map<string, unknown>;
  return new Map(Object.entries((st ?? {}) as Record<string, unknown>));
}

export function stateCheck(model: BfclEnvironment, truth: BfclEnvironment, classes: string[]): CheckResult {
  for (const cls of classes) {
    const gt = comparableState(truth, cls);
    const md = comparableState(model, cls);
    const differences: Record<string, { model: unknown; ground_truth: unknown }> = Object.create(null);
    for (const [attr, v] of gt) {
      if (attr.startsWith('_')) continue;
      if (!pyEquals(md.get(attr), v)) differences[attr] = { model: md.get(attr), ground_truth: v };
    }
    if (Object.keys(differences).length) {
      return {
        valid: false,
        reason: `Model instance for ${cls} does not match the state with ground truth instance.`,
        error_type: 'multi_turn:instance_state_mismatch',
        details: { differences: Object.keys(differences) },
      };
    }
  }
  return { valid: true };
}

/** multi_turn_irrelevance_checker: a turn with empty ground truth must get no calls. */
export function irrelevanceCheck(modelTurns: ModelTurns, groundTruth: string[][]): CheckResult {
  for (let t = 0; t < groundTruth.length; t++) {
    if (groundTruth[t].length === 0 && !isEmptyExecuteResponse(modelTurns[t] ?? [])) {
      return {
        valid: false,
        turn: t,
        reason: `Model outputs valid function calls when it should not for turn ${t}.`,
        error_type: 'multi_turn:irrelevance_error:decoder_success',
      };
    }
  }
  return { valid: true };
}

/** Check one entry. `modelTurns` is the decoded model output (decode failures and empty steps already dropped). */
export function multiTurnCheck(entry: BfclEntry, modelTurns: ModelTurns, groundTruth: string[][], opts: CheckOptions = {}): CheckResult {
  try {
    if (!Array.isArray(modelTurns)) {
      return { valid: false, reason: 'Error during inference phase. Model did not output a list of model responses.', error_type: 'multi_turn:inference_error' };
    }
    if (modelTurns.length !== groundTruth.length) {
      return {
        valid: false,
        reason: `Model was force-terminated during inference phase. The length of the model result turns (${modelTurns.length}) does not match the length of the ground truth turns (${groundTruth.length}).`,
        error_type: 'multi_turn:force_terminated',
      };
    }
    const envOpts: BfclEnvOptions = { funcDocs: opts.funcDocs, longContext: opts.longContext ?? isLongContext(entry.id) };
    const model = new BfclEnvironment(entry, envOpts);
    const truth = new BfclEnvironment(entry, envOpts);
    const allModelResults: string[] = [];
    const execution: { model: string[][]; ground_truth: string[] }[] = [];
    for (let t = 0; t < groundTruth.length; t++) {
      const steps = modelTurns[t] ?? [];
      const perStep: string[][] = [];
      for (const step of steps) {
        const rs = step.map((c) => model.execPython(c).text);
        perStep.push(rs);
        allModelResults.push(...rs);
      }
      const gtResults = groundTruth[t].map((c) => truth.execPython(c).text);
      execution.push({ model: perStep, ground_truth: gtResults });
      if (groundTruth[t].length > 0 && isEmptyExecuteResponse(steps)) {
        return {
          valid: false, turn: t, reason: `Model response list is empty for turn ${t}`,
          error_type: 'multi_turn:empty_turn_model_response', details: { execution_result: execution },
        };
      }
      if (groundTruth[t].length === 0) continue;
      const st = stateCheck(model, truth, entry.involved_classes);
      if (!st.valid) return { ...st, turn: t, details: { ...(st.details as object), execution_result: execution } };
      const missing = missingUnordered(gtResults, allModelResults);
      if (missing.length) {
        return {
          valid: false, turn: t,
          reason: `Model response execution results so far does not contain all the ground truth response execution results for turn ${t}.`,
          error_type: 'multi_turn:execution_response_mismatch',
          details: { missing_items: missing, model_response: [...allModelResults], ground_truth_response: gtResults },
        };
      }
    }
    if (opts.checkIrrelevance) return irrelevanceCheck(modelTurns, groundTruth);
    return { valid: true };
  } catch (e) {
    return { valid: false, reason: `checker failed: ${(e as Error)?.message ?? String(e)}`, error_type: 'multi_turn:checker_error' };
  }
}

export interface CategoryReport {
  total: number;
  correct: number;
  accuracy: number;
  results: ({ id: string } & CheckResult)[];
}

/** Run the checker over a category; entries without model output count as invalid. */
export function checkCategory(
  items: { entry: BfclEntry; groundTruth: string[][] }[],
  modelOutputs: Map<string, ModelTurns> | Record<string, ModelTurns>,
  opts: CheckOptions = {},
): CategoryReport {
  const get = (id: string) => (modelOutputs instanceof Map ? modelOutputs.get(id) : modelOutputs[id]);
  const results = items.map(({ entry, groundTruth }) => {
    const out = get(entry.id);
    const r: CheckResult = out === undefined
      ? { valid: false, reason: 'no model output for this entry', error_type: 'multi_turn:inference_error' }
      : multiTurnCheck(entry, out, groundTruth, opts);
    return { id: entry.id, ...r };
  });
  const correct = results.filter((r) => r.valid).length;
  return { total: results.length, correct, accuracy: results.length ? correct / results.length : 0, results };
}

/** The ground truth as a model output: one step per turn (the shape decode_execute gives a perfect model). */
export function groundTruthAsModelOutput(groundTruth: string[][]): ModelTurns {
  return groundTruth.map((turn) => (turn.length ? [turn] : []));
}
