// `npm run eval` and `npm run tts` with a Hugging Face model folder (the Qwen3 fixture of `npm run fixture:qwen3`):
// the CLIs accept it, load it through src/engine/hf (the hub-model path), prompt it with its own chat template, and
// print the same numbers as the same protocol run in this process (same seeds: same results across processes).
// Rehearse first with the model in the Rehearse role only (Act replays the references) gives parsed rollouts:
// the real environment receives exactly the reference calls, and the imagined attempts hold the model's Rehearse
// generations under its chat template; a second run reproduces them token for token.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatForTokenizerConfig, type ChatFormat } from '../../src/agent/chatTemplate';
import { REHEARSE_MARKER } from '../../src/agent/prompts';
import { canonicalJson } from '../../src/agent/protocol';
import { evalReport, scoreTask } from '../../src/bench/evaluation';
import { bootstrapSeed, evaluateHfModel } from '../../src/cli/eval';
import { loadHfModelNode } from '../../src/engine/hf/node';
import type { HfModel } from '../../src/engine/hf/loader';
import { getWorld } from '../../src/envs/worlds/index';
import type { Task } from '../../src/envs/types';
import { committedCalls, realMatchesCommitted, runTts, type TtsRun } from '../../src/tts/rehearse';
import { loggedCalls } from '../../src/tts/recording';
import { actAndRehearse, hfRolloutSettings, referenceAct } from '../../src/worker/hf-rollout-config';

const ROOT = mkdtempSync(join(tmpdir(), 'hf-cli-'));
const DIR = join(ROOT, 'qwen3-fixture');
const SLOW = 600_000;
let model: HfModel;
let format: ChatFormat;

const cli = (script: string, args: string[]) => JSON.parse(execFileSync('npx', ['tsx', `src/cli/${script}.ts`, '--model', DIR, ...args, '--json'], {
  encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 << 20,
}));

beforeAll(async () => {
  execFileSync('npx', ['tsx', 'src/cli/fixture-qwen3.ts', '--out', DIR, '--json'], { stdio: ['ignore', 'pipe', 'pipe'] });
  model = await loadHfModelNode(DIR, { cacheDir: null });
  format = formatForTokenizerConfig(model.tokenizerConfig as { chat_template?: string; eos_token?: string });
}, SLOW);
afterAll(async () => {
  await model?.generator.release();
  rmSync(ROOT, { recursive: true, force: true });
});

/** The committed runs' settings the tts CLI builds for a Hugging Face model. */
function ttsCfg(temperature: number, topP: number, maxNewTokens: number) {
  const s = hfRolloutSettings();
  return {
    ...s, policy: model.generator, format, seed: 0,
    act: { ...s.act, temperature, topP, maxNewTokens },
    rehearse: { ...s.rehearse, temperature, topP, maxNewTokens },
  };
}
const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
const outputs = (runs: TtsRun[]) => runs.map((r) => ({
  committed: r.trajectory.rows.map((x) => x.outputIds),
  attempts: r.rehearsals.map((h) => h.attempts.map((a) => a.trajectory.rows.map((x) => [x.role, x.outputIds]))),
  memory: r.rehearsals.map((h) => h.memory),
}));

describe('Hugging Face model folders in the eval and tts CLIs', () => {
  it('npm run eval -- --model <fixture> prints what the protocol gives in-process (Avg@2, T 0.6, seed 3)', async () => {
    const args = ['--world', 'files', '--tasks', '2', '--k', '2', '--temperature', '0.6', '--top-p', '0.95', '--seed', '3', '--max-new-tokens', '12', '--per-task'];
    const printed = cli('eval', args);
    const sampling = { k: 2, temperature: 0.6, topP: 0.95, seed: 3 };
    const r = await evaluateHfModel({ model: DIR, world: 'files', tasks: 2, sampling, maxNewTokens: 12, quiet: true });
    const mine = { ...evalReport(r, { model: DIR, world: 'files', ...sampling }, { resamples: 2000, seed: bootstrapSeed(3) }, true), difficulty: 'all' };
    expect(printed.n_tasks).toBe(2);
    expect(printed.per_task).toHaveLength(2);
    expect(printed.per_task.every((t: { samples: number }) => t.samples === 2)).toBe(true);
    // Every Act generation was sampled and judged (an unparsable one ends its episode: one row, at least).
    expect(printed.generations).toBeGreaterThanOrEqual(4);
    const { seconds: _a, ...p } = printed;
    const { seconds: _b, ...m } = mine;
    expect(p).toEqual(JSON.parse(JSON.stringify(m)));
  }, SLOW);

  it('npm run tts -- --model <fixture> prints what runTts gives in-process, N = 0 and N = 1', async () => {
    const printed = cli('tts', ['--world', 'files', '--tasks', '2', '--k', '1', '--n', '0,1', '--strategy', 'parallel', '--temperature', '0', '--max-new-tokens', '12', '--chunk-tasks', '2']);
    expect(printed.tasksDone).toBe(2);
    expect(printed.protocol.maxNewTokens).toBe(12);
    const tasks = getWorld('files').tasks({ split: 'test', count: 2 });
    const specs = tasks.map((task) => ({ task, sample: 0 }));
    for (const [i, n] of [[0, 0], [1, 1]] as const) {
      const c = printed.configs[i];
      expect(c.n).toBe(n);
      expect(c.tasks).toBe(2);
      expect(c.realEnvCheck.violations).toBe(0);
      const runs = await runTts(specs, { policy: model.generator, format, cfg: ttsCfg(0, 0.95, 12), opts: { n, strategy: 'parallel', memory: 'full' } });
      expect(c.generationsPerTask).toBeCloseTo(mean(runs.map((r) => r.generations)), 9);
      expect(c.promptTokens.firstTurn).toBeCloseTo(mean(runs.map((r) => r.firstPromptTokens[0]!)), 9);
      expect(c.checklist.mean).toBeCloseTo(mean(runs.map((r, j) => scoreTask(tasks[j]!.id, [r.trajectory], 1).checklist)), 9);
      expect(c.memoryTokens).toBeCloseTo(mean(runs.map((r) => mean(r.rehearsals.map((h) => h.memoryTokens)))), 9);
      // The committed Act prompt is the model's own chat template with native tools.
      expect(runs[0]!.trajectory.rows[0]!.prompt).toContain('<|im_start|>system\n');
      expect(runs[0]!.trajectory.rows[0]!.prompt).toContain('<tools>');
      if (n === 1) {
        expect(c.memoryTokens).toBeGreaterThan(0);
        expect(runs.every((r) => r.rehearsals.length >= 1 && r.rehearsals[0]!.attempts.length === 1)).toBe(true);
        // The memory reaches the committed turn's Act prompt.
        expect(runs[0]!.trajectory.rows[0]!.prompt).toContain(runs[0]!.rehearsals[0]!.memory.slice(0, 40));
      }
    }
  }, SLOW);

  it('rehearse first with the model in the Rehearse role: parsed attempts, the real env gets the reference calls, reproducible', async () => {
    const task = getWorld('files').tasks({ split: 'test', count: 1 })[0]! as Task;
    const policy = actAndRehearse(referenceAct(task, format), model.generator);
    const go = () => runTts([{ task, sample: 0, groupId: task.id }], {
      policy, format, cfg: { ...ttsCfg(0, 1, 24), policy },
      // Attempts sample at temperature 1: reproducing them tests the per-request seeds.
      opts: { n: 2, strategy: 'sequential', memory: 'full' },
    });
    const [a] = await go();
    const run = a!;
    expect(run.trajectory.error).toBeUndefined();
    expect(realMatchesCommitted(run)).toBe(true);
    const refCalls = task.reference.flatMap((m) => (m.role === 'assistant' ? m.toolCalls ?? [] : []));
    expect(refCalls.length).toBeGreaterThan(0);
    expect(canonicalJson(loggedCalls(run.realCalls))).toBe(canonicalJson(committedCalls(run.trajectory)));
    // Act replayed the reference: the committed run made every reference call, in order.
    expect(canonicalJson(committedCalls(run.trajectory))).toBe(canonicalJson(refCalls));
    const first = run.rehearsals[0]!;
    expect(first.attempts).toHaveLength(2);
    expect(first.stateHashAfter).toBe(first.stateHashBefore);
    // Sequential: the second attempt saw the first one's memory.
    expect(first.attempts[0]!.shown).toBe('');
    expect(first.attempts[1]!.shown.length).toBeGreaterThan(0);
    for (const attempt of first.attempts) {
      const rehearsed = attempt.trajectory.rows.filter((r) => r.role === 'rehearse');
      expect(rehearsed.length).toBeGreaterThan(0);
      // The first imagined result answers the reference's first call, asked in the model's own template.
      expect(canonicalJson(rehearsed[0]!.call)).toBe(canonicalJson(refCalls[0]));
      for (const r of rehearsed) {
        expect(r.prompt).toContain(REHEARSE_MARKER);
        expect(r.prompt).toContain('<|im_start|>assistant\n');
        expect(r.outputIds.length).toBeGreaterThan(0);
      }
    }
    const [b] = await go();
    expect(outputs([b!])).toEqual(outputs([run]));
  }, SLOW);
});
