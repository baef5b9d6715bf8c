// Test-time private rehearsal must not read the test task's gold: by default the imagined attempts' Rehearse role is
// shown only the calls and real results of the episode so far; the test task's reference reaches a Rehearse prompt
// only under the labelled 'oracle' hint source.
import { describe, expect, it } from 'vitest';
import { compactFormat } from '../../src/agent/chatTemplate';
import { expertGenerator } from '../../src/agent/expert';
import { REFERENCE_REHEARSE_PROMPT } from '../../src/agent/profile';
import { referenceHints, REHEARSE_MARKER } from '../../src/agent/prompts';
import type { GenerateRequest, Generation, TextGenerator } from '../../src/engine/generator';
import type { Task } from '../../src/envs/types';
import { getWorld } from '../../src/envs/worlds/index';
import { runTts, type TtsHintSource, type TtsRun } from '../../src/tts/rehearse';

/** The expert, with every prompt it was asked to continue kept. */
function recording(tasks: Task[]): { policy: TextGenerator; prompts: string[] } {
  const inner = expertGenerator(tasks);
  const prompts: string[] = [];
  const policy: TextGenerator = {
    name: 'recording-expert', maxContext: inner.maxContext,
    countTokens: (t) => inner.countTokens(t),
    generate: (reqs: GenerateRequest[]): Promise<Generation[]> => { prompts.push(...reqs.map((r) => r.prompt)); return inner.generate(reqs); },
  };
  return { policy, prompts };
}

async function run(tasks: Task[], hintSource?: TtsHintSource): Promise<{ runs: TtsRun[]; rehearsePrompts: string[] }> {
  const { policy, prompts } = recording(tasks);
  const runs = await runTts(tasks.map((task) => ({ task, sample: 0 })), {
    policy, format: compactFormat,
    cfg: { policy, seed: 0, rehearsePrompt: REFERENCE_REHEARSE_PROMPT },
    opts: { n: 2, strategy: 'parallel', ...(hintSource ? { hintSource } : {}) },
  });
  return { runs, rehearsePrompts: prompts.filter((p) => p.includes(REHEARSE_MARKER)) };
}

/** "name {args}\n=> result" as a Rehearse prompt's Examples block writes a hint. */
const hintLine = (h: { name: string; arguments: Record<string, unknown>; result: string }) => `${h.name} ${JSON.stringify(h.arguments)}\n=> ${h.result}`;

describe('test-time rehearsal reads no gold by default', () => {
  it('single-turn tasks: no reference pair reaches any Rehearse prompt; with oracle hints every prompt has them', async () => {
    const tasks = getWorld('files').tasks({ split: 'test', count: 4, difficulty: 1 });
    const episode = await run(tasks);
    expect(episode.rehearsePrompts.length).toBeGreaterThan(0);
    for (const p of episode.rehearsePrompts) {
      expect(p).toContain('Examples: (none)');
      for (const t of tasks) for (const h of referenceHints(t.reference)) expect(p).not.toContain(hintLine(h));
    }
    // Not vacuous: the same run with the oracle variant does show the reference.
    const oracle = await run(tasks, 'oracle');
    expect(oracle.rehearsePrompts.length).toBeGreaterThan(0);
    const leaked = oracle.rehearsePrompts.filter((p) => tasks.some((t) => referenceHints(t.reference).some((h) => p.includes(hintLine(h)))));
    expect(leaked.length).toBe(oracle.rehearsePrompts.length);
  });

  it('multi-turn tasks: every example shown is a call and real result of the committed episode itself', async () => {
    const tasks = getWorld('files').tasks({ split: 'test', count: 6, difficulty: 3 });
    const { runs, rehearsePrompts } = await run(tasks);
    const real = new Set(runs.flatMap((r) => referenceHints(r.trajectory.messages).map(hintLine)));
    let shown = 0;
    for (const p of rehearsePrompts) {
      const block = /Examples:\n([\s\S]*?)\n\n/.exec(p)?.[1];
      if (!block) continue;
      const lines = block.split('\n');
      for (let i = 0; i + 1 < lines.length; i += 2) { expect(real.has(`${lines[i]}\n${lines[i + 1]}`)).toBe(true); shown++; }
    }
    // Later turns do show the episode's own earlier calls (the multi-turn tasks have some).
    expect(shown).toBeGreaterThan(0);
  });
});
