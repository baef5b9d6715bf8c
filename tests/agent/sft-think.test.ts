// `npm run sft --think-state`: each Rehearse target opens with the state its call is made from.
import { describe, expect, it } from 'vitest';
import { LEAN_PROFILE, REFERENCE_REHEARSE_PROMPT, rolloutSettings } from '../../src/agent/profile';
import { sftExamples, sftExperienceExamples, sftSwapErrorExamples, type SftOptions } from '../../src/agent/sft';
import { formatAct, parseRehearse } from '../../src/agent/protocol';
import { rollout } from '../../src/agent/rollout';
import type { GenerateRequest, Generation, TextGenerator } from '../../src/engine/generator';
import { Rng } from '../../src/engine/rng';
import { getWorld, thinkStateLine } from '../../src/envs/worlds/index';
import type { Message } from '../../src/envs/types';

const settings = rolloutSettings({ ...LEAN_PROFILE, rehearsePrompt: REFERENCE_REHEARSE_PROMPT });
const base: SftOptions = { rollout: settings, maxContext: 4096, countTokens: (s) => Math.ceil(s.length / 4) };
const withState: SftOptions = { ...base, stateLine: thinkStateLine('folder') };
const thinkOf = (target: string) => target.match(/^<think>([^]*?)<\/think>\n<execution_result>/)?.[1];

describe('state lines in Rehearse targets (--think-state)', () => {
  it('files: the line is the working folder and its entries before each call, replayed in the task environment', async () => {
    const tasks = getWorld('files').tasks({ split: 'train', count: 6 });
    const plain = (await sftExamples(tasks, base)).examples;
    const thought = (await sftExamples(tasks, withState)).examples;
    expect(thought.map((e) => e.prompt)).toEqual(plain.map((e) => e.prompt));
    for (const task of tasks) {
      // The expert's calls in order, executed in a fresh environment: the line before call k is the state after k − 1.
      const calls = (task.reference as Message[]).flatMap((m) => (m.role === 'assistant' ? m.toolCalls ?? [] : []));
      const env = task.makeEnv();
      const expected = calls.map((c) => { const line = getWorld('files').stateLine!(env); env.call(c.name, c.arguments); return line; });
      // The path starts at the top folder (~): its own name is in no message a simulator reads.
      expect(expected[0]).toMatch(/^~: /);
      const rows = thought.filter((e) => e.taskId === task.id && e.role === 'rehearse');
      expect(rows.map((e) => thinkOf(e.target))).toEqual(expected);
      // Only the think is new: the rest of every target is as before, and it still parses as a result.
      const before = plain.filter((e) => e.taskId === task.id && e.role === 'rehearse');
      rows.forEach((e, i) => {
        expect(e.target.replace(/^<think>[^]*?<\/think>/, '')).toBe(before[i].target);
        expect(parseRehearse(e.target.replace(/<\|end\|>$/, '')).ok).toBe(true);
      });
    }
    // The state moves: some task's lines name more than one folder.
    expect(thought.some((e) => e.role === 'rehearse' && thinkOf(e.target) !== thinkOf(thought.find((x) => x.taskId === e.taskId && x.role === 'rehearse')!.target))).toBe(true);
    // Act targets are never touched.
    expect(thought.filter((e) => e.role === 'act').map((e) => e.target)).toEqual(plain.filter((e) => e.role === 'act').map((e) => e.target));
  });

  it("files, 'check': the line also says what the state makes of each name the call uses", async () => {
    const tasks = getWorld('files').tasks({ split: 'train', count: 12 });
    const check: SftOptions = { ...base, stateLine: thinkStateLine('check') };
    const folder = (await sftExamples(tasks, withState)).examples.filter((e) => e.role === 'rehearse');
    const thought = (await sftExamples(tasks, check)).examples.filter((e) => e.role === 'rehearse');
    expect(thought).toHaveLength(folder.length);
    let reads = 0, cds = 0;
    thought.forEach((e, i) => {
      const line = thinkOf(e.target)!;
      expect(line.startsWith(thinkOf(folder[i].target)!)).toBe(true);
      const call = e.prompt.slice(e.prompt.lastIndexOf('\nname: ')).match(/^\nname: (\w+)[^]*?arguments: (\{.*\})/);
      const [name, args] = [call![1], JSON.parse(call![2]) as Record<string, string>];
      // The expert's reads succeed: their file is here; its cd into a folder: that name is a folder here.
      if (['cat', 'grep', 'wc', 'tail'].includes(name)) { expect(line).toContain(`; ${args.file_name}: file`); reads++; }
      if (name === 'cd' && args.folder !== '..') { expect(line).toContain(`; ${args.folder}: folder`); cds++; }
      if (name === 'pwd' || name === 'ls') expect(line).toBe(thinkOf(folder[i].target));
    });
    expect(reads).toBeGreaterThan(3);
    expect(cds).toBeGreaterThan(3);
    // A name that is not here is said to be absent, and the environment rejects reading it.
    const env = tasks[0].makeEnv();
    expect(getWorld('files').stateLine!(env, { name: 'cat', arguments: { file_name: 'no_such_file.txt' } })).toMatch(/; no_such_file\.txt: absent$/);
  });

  it('a world without a state line (retail) gets no think', async () => {
    const tasks = getWorld('retail').tasks({ split: 'train', count: 3 });
    const ex = (await sftExamples(tasks, withState)).examples;
    expect(ex.some((e) => e.target.includes('<think>'))).toBe(false);
  });

  it('swapped-name rows: the line is the state the swapped call is made from', async () => {
    const tasks = getWorld('files').tasks({ split: 'train', count: 24 });
    const rng = new Rng(3);
    const ex = await sftSwapErrorExamples(tasks, (n) => rng.int(n), withState);
    expect(ex.length).toBeGreaterThan(3);
    const expert = (await sftExamples(tasks, withState)).examples.filter((e) => e.role === 'rehearse');
    for (const e of ex) {
      expect(e.target).toMatch(/\{"error/);
      // The swapped call replaces reference call k, made after k results (the whole conversation is in the prompt).
      const k = e.prompt.split('\nTool[').length - 1;
      expect(thinkOf(e.target)).toBe(thinkOf(expert.filter((x) => x.taskId === e.taskId)[k].target));
    }
  });

  it("experience rows: the line is the real episode's state, errors included", async () => {
    const world = getWorld('files');
    const task = world.tasks({ split: 'train', count: 1 })[0];
    // A policy that cats a file that is not there, then does the expert's first call.
    const first = (task.reference as Message[]).flatMap((m) => (m.role === 'assistant' ? m.toolCalls ?? [] : []))[0];
    const acts = [formatAct(undefined, [{ name: 'cat', arguments: { file_name: 'no_such_file.txt' } }]), formatAct(undefined, [first]), 'done'];
    let a = 0;
    const policy: TextGenerator = {
      name: 'scripted', maxContext: 1 << 20, countTokens: (s) => Math.ceil(s.length / 4),
      async generate(reqs: GenerateRequest[]): Promise<Generation[]> {
        return reqs.map((r) => ({ text: (acts[Math.min(a++, acts.length - 1)]) + (r.stop[0] ?? ''), promptIds: [], outputIds: [], logprobs: [], entropy: [], finishReason: 'stop' as const }));
      },
    };
    // Three turns, then the cap: the replay keeps the same limits, so it reproduces the conversation.
    const short = { ...settings, limits: { ...settings.limits, maxAssistantTurns: 3 } };
    const [trajectory] = await rollout([{ task, groupId: task.id }], { ...short, mode: 'real', policy, seed: 0, keepPrompts: false });
    const { examples, diverged } = await sftExperienceExamples([{ task, trajectory }], { ...withState, rollout: short });
    expect(diverged).toEqual([]);
    expect(trajectory.rows.filter((r) => r.role === 'act').length, JSON.stringify(trajectory.messages).slice(0, 600)).toBeGreaterThanOrEqual(2);
    expect(examples.length).toBeGreaterThanOrEqual(2);
    const env = task.makeEnv();
    expect(thinkOf(examples[0].target)).toBe(world.stateLine!(env));
    expect(examples[0].target).toMatch(/\{"error/);
    expect(thinkOf(examples[0].target)).not.toContain('no_such_file.txt');
    env.call('cat', { file_name: 'no_such_file.txt' });
    expect(thinkOf(examples[1].target)).toBe(world.stateLine!(env));
  });
});
