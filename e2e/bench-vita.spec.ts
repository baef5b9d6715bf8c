// VitaBench in the Benchmarks page's paper suites panel, in the worker: the delivery domain's files picked in the
// page (in several goes: they live in four folders of shared/data/vitabench; the in-store tasks file is refused
// with a clear error and the other picks stay), a shipped model as agent, user and judge,
// greedy, seed 7, 2 tasks cut at 20 steps. The browser's per-task results equal the CLI's
// (`npm run eval -- --suite vita …`, run here through its module), and each task's conversation equals Node's
// message for message; the run is drawn beside the paper's Vita Avg. Without a judge the page says "not judged" and
// draws nothing; Cancel stops a full-domain run.

import { join, resolve } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { modelAgent } from '../src/bench/suites/agent';
import { runVitaSuite, vitaTranscript } from '../src/bench/suites/vita';
import { loadSuiteModel, runSuiteCommand, type SuiteArgs } from '../src/cli/eval-suites';
import { VITA_FILES } from '../src/envs/vitabench/data';
import { loadVitaData } from '../src/envs/vitabench/fs';
import { shot } from './helpers';

const ROOT = resolve(process.cwd(), '../shared/data/vitabench');
const DOMAIN = 'delivery';
const MODEL = 'files-starter-small';
const SEED = 7, LIMIT = 2, MAX_STEPS = 20;
const FILES = Object.values(VITA_FILES(DOMAIN)).map((f) => join(ROOT, f));

test.use({ viewport: { width: 1440, height: 900 } });

const json = async (page: Page, id: string) => JSON.parse((await page.getByTestId(id).getAttribute('data-json'))!);
const fill = async (page: Page, values: Record<string, string>) => {
  for (const [k, v] of Object.entries(values)) await page.getByTestId(`suite-${k}`).fill(v);
};

/** The same run in Node: the CLI's report, and each task's first conversation from the suite module. */
async function nodeRun() {
  const args: SuiteArgs = {
    suite: 'vita', model: `models/${MODEL}`, 'user-model': `models/${MODEL}`, 'judge-model': `models/${MODEL}`, domain: DOMAIN, 'vita-data': ROOT,
    split: 'test', 'skip-unsupported': false, 'max-steps': MAX_STEPS, limit: LIMIT, offset: 0, 'user-temperature': 0,
    k: 1, temperature: 0, 'top-p': 1, seed: SEED, resamples: 2000, threads: 1, 'per-task': true, json: true,
  };
  const report = await runSuiteCommand(args, true) as { per_task: unknown[] } & Record<string, unknown>;
  const m = await loadSuiteModel(`models/${MODEL}`, 1, undefined, true);
  try {
    const role = { name: MODEL, generator: m.generator, format: m.format, maxNewTokens: m.maxNewTokens, temperature: 0, topP: 1 };
    const agent = modelAgent(m.generator, { format: m.format, actPrompt: m.actPrompt, maxNewTokens: m.maxNewTokens, minNewTokens: m.minNewTokens, temperature: 0, topP: 1 });
    const r = await runVitaSuite(loadVitaData(DOMAIN, ROOT), agent, role, role, { k: 1, seed: SEED, limit: LIMIT, maxSteps: MAX_STEPS, yieldToEventLoop: false });
    return { report, conversations: r.tasks.map((t) => ({ task: t.task, lines: vitaTranscript(t.messages![0]) })) };
  } finally { await m.generator.release(); }
}

test('VitaBench delivery, 2 tasks: the browser\'s per-task results and conversations equal Node\'s; no judge: "not judged"; Cancel', async ({ page }) => {
  test.setTimeout(240_000);
  const node = nodeRun();
  await page.goto('/?backend=wasm#/benchmarks');
  const panel = page.getByTestId('bench-suites');
  await expect(panel).toBeVisible({ timeout: 60_000 });
  await panel.getByTestId('suite-kind').selectOption('vita');
  await expect(panel.getByTestId('suite-model').locator(`option[value="${MODEL}"]`)).toHaveCount(1, { timeout: 30_000 });
  await panel.getByTestId('suite-model').selectOption(MODEL);
  await panel.getByTestId('suite-vita-domain').selectOption(DOMAIN);
  await panel.getByTestId('suite-vita-judge').selectOption('policy');
  // Picks add up (the files live in four folders) and the panel lists what is still missing.
  await panel.getByTestId('suite-vita-files-input').setInputFiles(FILES.slice(1));
  await expect(panel.getByTestId('suite-vita-files')).toHaveAttribute('data-missing', '["tasks_en.json"]');
  await expect(panel.getByTestId('suite-run')).toBeDisabled();
  await fill(page, { k: '1', temperature: '0', seed: String(SEED), maxSteps: String(MAX_STEPS), limit: String(LIMIT) });
  // The other domain's tasks_en.json: the worker refuses it by its tasks' domain, and the other picks stay.
  await panel.getByTestId('suite-vita-files-input').setInputFiles(join(ROOT, VITA_FILES('instore').tasks));
  await expect(panel.getByTestId('suite-vita-files')).toHaveAttribute('data-missing', '[]');
  await panel.getByTestId('suite-run').click();
  await expect(panel.getByRole('alert')).toContainText('holds in-store consumption tasks, not delivery ones', { timeout: 60_000 });
  await panel.getByTestId('suite-vita-files-input').setInputFiles(FILES[0]);
  await expect(panel.getByTestId('suite-vita-files')).toHaveAttribute('data-missing', '[]');
  await panel.getByTestId('suite-run').click();
  await expect(panel.getByTestId('suite-report')).toHaveAttribute('data-suite', 'vita', { timeout: 120_000 });

  const { report, conversations } = await node;
  expect(await json(page, 'suite-entries')).toEqual(report.per_task);
  const summary = await json(page, 'suite-summary');
  for (const k of ['n_tasks', 'k', 'seed', 'max_steps', 'protocol', 'success', 'rubric_fraction', 'pass_hat_k', 'terminations', 'tool_calls', 'unparsed_judge_windows', 'generations', 'overflows', 'bootstrap']) {
    expect(summary[k], k).toEqual(report[k]);
  }
  await panel.locator('[data-testid="suite-report"] details > summary').click();
  for (const [i, c] of conversations.entries()) {
    await panel.getByTestId('suite-vita-conversation-task').selectOption(String(i));
    await expect(panel.getByTestId('suite-vita-conversation')).toHaveAttribute('data-task', c.task);
    expect(await json(page, 'suite-vita-conversation')).toEqual(c.lines);
  }
  await expect(panel.getByTestId('suite-progress')).toHaveAttribute('data-done', String(LIMIT));
  await expect(panel.getByTestId('suite-progress')).toHaveAttribute('data-total', String(LIMIT));
  // Beside the paper's Vita Avg. column: its nine rows, then this run (judged: a number).
  const rows = async () => JSON.parse((await panel.getByTestId('suite-vs-paper').getAttribute('data-rows'))!) as { label: string; value: number | null; source: string }[];
  const first = await rows();
  expect(first.filter((r) => r.source === 'paper').map((r) => r.value)).toEqual([1.9, 11.4, 1.8, 2.8, 15.8, 10.2, 19.6, 3.2, 16.0]);
  expect(first.at(-1)).toMatchObject({ source: 'ours', value: 100 * (report.success as { mean: number }).mean });
  await expect(panel.getByTestId('suite-vs-paper')).toContainText('Vita Avg.');
  await page.screenshot({ path: shot('bench-suites-vita'), fullPage: true });

  // No judge: "not judged", never a number, and nothing drawn for it.
  await panel.getByTestId('suite-vita-judge').selectOption('none');
  await fill(page, { limit: '1', maxSteps: '6' });
  await panel.getByTestId('suite-run').click();
  await expect(panel.getByTestId('suite-accuracy')).toHaveText('not judged', { timeout: 60_000 });
  expect((await json(page, 'suite-summary')).success).toBe('not judged');
  // A conversation cut by the step limit still scores 0 without a judge, as in VitaBench; any other is unscored.
  const [t] = await json(page, 'suite-entries') as { rewards: (number | null)[]; terminations: string[] }[];
  expect(t.rewards).toEqual(t.terminations.map((x) => (x === 'max_steps' || x === 'invalid_agent_message' ? 0 : null)));
  const ours = (await rows()).filter((r) => r.source === 'ours');
  expect(ours).toHaveLength(2);
  expect(ours[0]).toMatchObject({ value: null });
  expect(ours[0].label).toContain('not judged');
  expect(ours[1].value).toBe(first.at(-1)!.value);
  await expect(panel.getByTestId('suite-vs-paper').locator('tr[data-source="ours"]', { hasText: 'not judged' })).toHaveCount(1);

  // Cancel: the whole domain at VitaBench's step limit stops in the worker.
  await fill(page, { limit: '', maxSteps: '' });
  await panel.getByTestId('suite-run').click();
  await expect.poll(async () => Number(await panel.getByTestId('suite-progress').getAttribute('data-total')), { timeout: 60_000 }).toBe(100);
  await panel.getByTestId('suite-cancel').click();
  await expect(panel.getByTestId('suite-cancelled')).toBeVisible({ timeout: 30_000 });
  expect(Number(await panel.getByTestId('suite-progress').getAttribute('data-done'))).toBeLessThan(100);
  await expect(panel.getByTestId('suite-run')).toBeEnabled();
});
