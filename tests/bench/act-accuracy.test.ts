import { describe, expect, it } from 'vitest';
import { LEAN_PROFILE, rolloutSettings } from '../../src/agent/profile';
import { sftExamples } from '../../src/agent/sft';
import { teacherForcedActAccuracy } from '../../src/bench/act-accuracy';
import type { GenerateRequest, TextGenerator } from '../../src/engine/generator';
import { getWorld } from '../../src/envs/worlds/index';

/** Answers each prompt from a table; `wrong(prompt)` answers something else instead. */
function tableGenerator(table: Map<string, string>, wrong: (p: string) => boolean): TextGenerator {
  return {
    name: 'table', maxContext: 4096, countTokens: (s: string) => Math.ceil(s.length / 4),
    async generate(reqs: GenerateRequest[]) {
      return reqs.map((r) => ({ text: wrong(r.prompt) ? 'I cannot help.<|end|>' : table.get(r.prompt) ?? '', promptIds: [], outputIds: [], logprobs: [], entropy: [], finishReason: 'stop' as const }));
    },
  } as unknown as TextGenerator;
}

describe('teacher-forced Act accuracy', () => {
  it('is 1 for the expert, and counts a wrong first turn against turn 0 only', async () => {
    const tasks = getWorld('retail').tasks({ split: 'test', count: 6 });
    const rollout = rolloutSettings(LEAN_PROFILE);
    const { examples } = await sftExamples(tasks, { rollout, maxContext: 4096, countTokens: (s) => Math.ceil(s.length / 4) });
    const table = new Map(examples.filter((e) => e.role === 'act').map((e) => [e.prompt, e.target]));
    const firstPrompts = new Set<string>();
    const seen = new Set<string>();
    for (const e of examples) if (e.role === 'act' && !seen.has(e.taskId)) { seen.add(e.taskId); firstPrompts.add(e.prompt); }

    const perfect = await teacherForcedActAccuracy(tasks, tableGenerator(table, () => false), rollout);
    expect(perfect.exact).toBe(1);
    expect(perfect.turns).toBe(table.size);

    const firstWrong = await teacherForcedActAccuracy(tasks, tableGenerator(table, (p) => firstPrompts.has(p)), rollout);
    expect(firstWrong.byTurn[0]).toEqual({ turn: 0, exact: 0, n: tasks.length });
    for (const t of firstWrong.byTurn.slice(1)) expect(t.exact).toBe(1);
    expect(firstWrong.exact).toBeCloseTo(1 - tasks.length / table.size);
  });
});
