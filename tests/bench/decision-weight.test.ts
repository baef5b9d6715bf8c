import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { decisionWeighted, factWeighted, sftTokenRows } from '../../src/bench/sft-reference';
import { BPETokenizer } from '../../src/engine/tokenizer';

const tok = new BPETokenizer(JSON.parse(readFileSync('models/files-starter-sim/tokenizer.json', 'utf8')));
const rows = sftTokenRows([
  { taskId: 't', role: 'rehearse', prompt: 'call cd docs', target: '\n<execution_result>\n{"error":"cd: \'docs\': No such file or directory"}\n</execution_result><|end|>' },
  { taskId: 't', role: 'rehearse', prompt: 'call cd docs', target: '\n<execution_result>\n{"current_working_directory":"docs"}\n</execution_result><|end|>' },
  { taskId: 't', role: 'act', prompt: 'user: go', target: '{"name":"cd","arguments":{"folder":"docs"}}<|end|>' },
  { taskId: 't', role: 'rehearse', prompt: 'call pwd', target: 'plain text, no object<|end|>' },
  // --think-state: the state line comes first, and may be longer than any fixed window.
  { taskId: 't', role: 'rehearse', prompt: 'call cat x', target: '<think>/home/alex/reports/2024: summary.md, draft_notes.txt, archive/, figures/, budget.csv, plan.md</think>\n<execution_result>\n{"error":"cat: x: No such file"}\n</execution_result><|end|>' },
], tok, 1024);
const weighted = (r: { ids: number[]; weights: number[] }) => r.ids.filter((_, i) => r.weights[i] > 1).map((id) => tok.decode([id])).join('');

describe('decision weight (npm run sft --decision-weight)', () => {
  it("multiplies the weight of the Rehearse target's first key, where an error is told from a success, and nothing else", () => {
    const out = decisionWeighted(rows, tok, 10);
    expect(weighted(out[0])).toBe('{"error');
    expect(weighted(out[1])).toBe('{"current');
    for (const r of out.slice(0, 2)) {
      expect(r.weights.filter((w) => w === 10)).toHaveLength(2);
      expect(r.weights.filter((w) => w !== 10)).toEqual(rows[out.indexOf(r)].weights.filter((w, i) => r.weights[i] !== 10));
    }
  });
  it('finds the decision after a <think> state line of any length', () => {
    const out = decisionWeighted(rows, tok, 10);
    expect(weighted(out[4])).toBe('{"error');
    expect(out[4].weights.filter((w) => w === 10)).toHaveLength(2);
  });
  it('leaves Act rows, targets without an object and weight 1 untouched', () => {
    const out = decisionWeighted(rows, tok, 10);
    expect(out[2]).toEqual(rows[2]);
    expect(out[3]).toEqual(rows[3]);
    expect(decisionWeighted(rows, tok, 1)).toBe(rows);
  });
});

describe('fact weight (npm run sft --fact-weight)', () => {
  const think = sftTokenRows([
    { taskId: 't', role: 'rehearse', prompt: 'call cat plan.md', target: '<think>~/docs: notes.txt, old/; plan.md: absent</think>\n<execution_result>\n{"error":"cat: plan.md: No such file"}\n</execution_result><|end|>' },
    { taskId: 't', role: 'rehearse', prompt: 'call ls', target: '<think>~/docs: notes.txt, old/</think>\n<execution_result>\n{"current_directory_content":["notes.txt","old"]}\n</execution_result><|end|>' },
  ], tok, 1024);
  it("multiplies the weight of a state think's facts only: not the line, not `</think>`, not the result", () => {
    const out = factWeighted(think, tok, 5);
    expect(weighted(out[0])).toBe(' plan.md: absent');
    expect(out[0].weights.filter((w) => w === 5).length).toBe(out[0].weights.filter((w) => w > 1).length);
  });
  it('leaves thinks without facts, rows without a think, Act rows and weight 1 untouched', () => {
    expect(factWeighted(think, tok, 5)[1]).toEqual(think[1]);
    const out = factWeighted(rows, tok, 5);
    out.forEach((r, i) => expect(r).toEqual(rows[i]));
    expect(factWeighted(think, tok, 1)).toBe(think);
  });
});
