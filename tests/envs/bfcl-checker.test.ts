import { resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadAllBackends } from '../../src/envs/bfcl/index';
import { loadCategory } from '../../src/envs/bfcl/loader';
import { checkCategory, groundTruthAsModelOutput, missingUnordered, multiTurnCheck } from '../../src/envs/bfcl/checker';

const DATA = resolve(process.cwd(), '../shared/data/bfcl');
const items = () => loadCategory(`${DATA}/BFCL_v4_multi_turn_base.json`, `${DATA}/possible_answer/BFCL_v4_multi_turn_base.json`);

describe('BFCL multi-turn checker', () => {
  let registered: string[];
  beforeAll(async () => { registered = await loadAllBackends(); });

  it('accepts the ground truth as model output for all 200 entries', () => {
    expect(registered).toHaveLength(8);
    const all = items();
    const outputs = Object.fromEntries(all.map(({ question, answer }) => [question.id, groundTruthAsModelOutput(answer.ground_truth)]));
    const report = checkCategory(all.map(({ question, answer }) => ({ entry: question, groundTruth: answer.ground_truth })), outputs);
    expect(report.results.filter((r) => !r.valid)).toEqual([]);
    expect(report.accuracy).toBe(1);
    expect(report.total).toBe(200);
  });

  it('accepts the ground truth split into one step per call', () => {
    const { question, answer } = items()[0];
    const steps = answer.ground_truth.map((turn) => turn.map((c) => [c]));
    expect(multiTurnCheck(question, steps, answer.ground_truth).valid).toBe(true);
  });

  it('rejects perturbed answers with BFCL reasons', () => {
    const { question, answer } = items()[0]; // GorillaFileSystem + TwitterAPI
    const gt = answer.ground_truth;
    // a different argument changes the state after turn 0
    const wrongArg = groundTruthAsModelOutput(gt);
    wrongArg[0] = [[gt[0][0], "mkdir(dir_name='tmp')", gt[0][2]]];
    const r1 = multiTurnCheck(question, wrongArg, gt);
    expect(r1).toMatchObject({ valid: false, turn: 0, error_type: 'multi_turn:instance_state_mismatch' });
    // a missing read-only call leaves the state intact but loses its result
    const missingRead = groundTruthAsModelOutput(gt);
    missingRead[1] = [[gt[1][0]]];
    const r2 = multiTurnCheck(question, missingRead, gt);
    expect(r2).toMatchObject({ valid: false, turn: 1, error_type: 'multi_turn:execution_response_mismatch' });
    expect((r2.details as { missing_items: string[] }).missing_items.length).toBe(1);
    // nothing at all for a turn that needs calls
    const empty = groundTruthAsModelOutput(gt);
    empty[2] = [];
    expect(multiTurnCheck(question, empty, gt)).toMatchObject({ valid: false, turn: 2, error_type: 'multi_turn:empty_turn_model_response' });
    expect(multiTurnCheck(question, [[[]], ...empty.slice(1)], gt)).toMatchObject({ valid: false, turn: 0, error_type: 'multi_turn:empty_turn_model_response' });
    // wrong number of turns
    expect(multiTurnCheck(question, groundTruthAsModelOutput(gt).slice(1), gt)).toMatchObject({ valid: false, error_type: 'multi_turn:force_terminated' });
  });

  it('results from earlier turns count for later ones (all_turn_model_execution_results)', () => {
    const { question, answer } = items()[0];
    const gt = answer.ground_truth;
    // turn 1 = [cd temp, grep]: done early in turn 0, turn 1 only needs some call of its own
    const model = groundTruthAsModelOutput(gt);
    model[0] = [[...gt[0], ...gt[1]]];
    model[1] = [['pwd()']];
    expect(multiTurnCheck(question, model, gt).valid).toBe(true);
    model[0] = [gt[0]];
    expect(multiTurnCheck(question, model, gt)).toMatchObject({ valid: false, turn: 1 });
  });

  it('empty ground-truth turns are not checked unless irrelevance checking is on', () => {
    const READ = /^(get_flight_cost|ls|pwd|list_users|get_user_stats|display_car_status|get_stock_info|posting_get_login_status)\(/;
    const withEmpty = items().find(({ answer }) => answer.ground_truth.some((t) => t.length === 0)
      && answer.ground_truth.flat().some((c) => READ.test(c)));
    expect(withEmpty, 'the category has an entry with an empty ground-truth turn and a read-only call').toBeDefined();
    const { question, answer } = withEmpty!;
    const gt = answer.ground_truth;
    const t = gt.findIndex((x) => x.length === 0);
    const model = groundTruthAsModelOutput(gt);
    const someRead = gt.flat().find((c) => READ.test(c))!;
    model[t] = [[someRead]];
    expect(multiTurnCheck(question, model, gt).valid).toBe(true);
    expect(multiTurnCheck(question, model, gt, { checkIrrelevance: true })).toMatchObject({ valid: false, turn: t });
    expect(multiTurnCheck(question, groundTruthAsModelOutput(gt), gt, { checkIrrelevance: true }).valid).toBe(true);
  });

  it('sub-multiset rule counts duplicates', () => {
    expect(missingUnordered(['a', 'a'], ['a', 'b'])).toEqual(['a']);
    expect(missingUnordered(['b', 'a'], ['a', 'x', 'b'])).toEqual([]);
  });
});
