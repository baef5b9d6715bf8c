// The paper's suites on the Benchmarks page, in the worker: BFCL-v4 multi-turn base from files picked with the
// page's file inputs (shared/data/bfcl: questions, possible answers, multi_turn_func_doc) with the ground-truth
// replay policy scores 100% on all 200 entries, and the browser's per-entry results equal Node's (the same module,
// src/bench/suites/bfcl.ts, run here); the run is drawn beside the paper's main table with the paper's rows
// marked; τ² mock with the scripted user gives Node's per-task rewards; Cancel stops a model's run in the worker.

import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { groundTruthAgent, runBfclSuite } from '../src/bench/suites/bfcl';
import { runTau2Suite, tau2GroundTruthAgent } from '../src/bench/suites/tau2';
import { loadCategory, loadFuncDocs } from '../src/envs/bfcl/loader';
import { loadTau2Domain } from '../src/envs/tau2/fs';
import { shot } from './helpers';

const DATA = resolve(process.cwd(), '../shared/data');
const Q = `${DATA}/bfcl/BFCL_v4_multi_turn_base.json`;
const A = `${DATA}/bfcl/possible_answer/BFCL_v4_multi_turn_base.json`;
const DOCS = `${DATA}/bfcl/multi_turn_func_doc`;
const MOCK = `${DATA}/tau2/mock`;

test.use({ viewport: { width: 1440, height: 900 } });

/** The Benchmarks page with its suites panel (the panel's RPCs queue until the worker is up). */
async function open(page: Page) {
  await page.goto('/?backend=wasm#/benchmarks');
  await expect(page.getByTestId('bench-suites')).toBeVisible({ timeout: 60_000 });
}

async function pickBfcl(page: Page) {
  const panel = page.getByTestId('bench-suites');
  await panel.getByTestId('suite-bfcl-questions').setInputFiles(Q);
  await panel.getByTestId('suite-bfcl-answers').setInputFiles(A);
  await panel.getByTestId('suite-bfcl-docs').setInputFiles(readdirSync(DOCS).map((f) => join(DOCS, f)));
}

const json = async (page: Page, id: string) => JSON.parse((await page.getByTestId(id).getAttribute('data-json'))!);

test('BFCL base: the ground-truth replay scores 100% in the worker and its per-entry results equal Node\'s', async ({ page }) => {
  test.setTimeout(300_000);
  await open(page);
  const panel = page.getByTestId('bench-suites');
  await expect(panel.getByTestId('suite-model')).toHaveValue('ground-truth');
  await pickBfcl(page);
  await panel.getByTestId('suite-run').click();
  await expect(panel.getByTestId('suite-report')).toBeVisible({ timeout: 240_000 });
  await expect(panel.getByTestId('suite-progress')).toHaveAttribute('data-done', '200');
  await expect(panel.getByTestId('suite-accuracy')).toHaveText('1 [1, 1]');
  const summary = await json(page, 'suite-summary');
  expect(summary.accuracy).toEqual({ mean: 1, ci95: [1, 1] });
  expect(summary.n_entries).toBe(200);
  expect(summary.verdicts).toEqual({ valid: 200 });
  const browser = await json(page, 'suite-entries');
  const data = { items: loadCategory(Q, A), funcDocs: loadFuncDocs(DOCS) };
  const node = await runBfclSuite(data, groundTruthAgent(data), { k: 1, seed: 0, yieldToEventLoop: false });
  expect(browser).toEqual(JSON.parse(JSON.stringify(node.entries.map(({ decoded: _d, ...rest }) => rest))));
  // Beside the paper's table, on one axis: the paper's nine rows marked as the paper's, then this run.
  const rows = JSON.parse((await panel.getByTestId('suite-vs-paper').getAttribute('data-rows'))!) as { label: string; value: number; source: string }[];
  expect(rows.filter((r) => r.source === 'paper')).toHaveLength(9);
  expect(rows.find((r) => r.label === 'EnvACE-8B (paper)')?.value).toBe(46.04);
  // Issue 42: the replay is listed as the harness check it is, not drawn as a model beside the paper's.
  expect(rows.at(-1)).toMatchObject({ source: 'check', value: 100, label: 'harness check: ground-truth replay (not a model)' });
  await expect(panel.getByTestId('suite-vs-paper').locator('.recharts-bar-rectangle')).toHaveCount(9);
  await expect(panel.getByTestId('suite-verdicts').locator('[data-code="valid"]')).toHaveText('passed');
  await expect(panel.getByTestId('suite-vs-paper').locator('tr[data-source="paper"]').first()).toContainText("the paper's");
  // The curves' suite table no longer says "not yet evaluated".
  await expect(page.getByTestId('bench-curves')).not.toContainText('not yet evaluated');
  await page.screenshot({ path: shot('bench-suites-bfcl'), fullPage: true });
});

test('τ² mock with the scripted user: the browser\'s per-task rewards equal Node\'s', async ({ page }) => {
  test.setTimeout(180_000);
  await open(page);
  const panel = page.getByTestId('bench-suites');
  await panel.getByTestId('suite-kind').selectOption('tau2');
  await panel.getByTestId('suite-tau2-files').setInputFiles(['db.json', 'tasks.json', 'policy.md'].map((f) => join(MOCK, f)));
  await panel.getByTestId('suite-run').click();
  await expect(panel.getByTestId('suite-report')).toHaveAttribute('data-suite', 'tau2', { timeout: 120_000 });
  const browser = await json(page, 'suite-entries');
  const d = loadTau2Domain(MOCK);
  const node = await runTau2Suite(d, tau2GroundTruthAgent(d), { kind: 'scripted' }, { k: 1, seed: 0, split: 'test', yieldToEventLoop: false });
  expect(browser).toEqual(JSON.parse(JSON.stringify(node.tasks.map(({ messages: _m, ...rest }) => rest))));
  expect(browser.map((t: { reward: number }) => t.reward).reduce((a: number, b: number) => a + b, 0)).toBe(8);
  // Issue 42: the 8 of 9 is explained where it is shown, and the progress line ends at its total.
  await expect(panel.getByTestId('suite-ground-truth-note')).toContainText('no gold actions to replay');
  await expect(panel.getByTestId('suite-progress')).toHaveAttribute('data-done', String(browser.length));
  await expect(panel.getByTestId('suite-progress')).toHaveAttribute('data-total', String(browser.length));
  const rows = JSON.parse((await panel.getByTestId('suite-vs-paper').getAttribute('data-rows'))!) as { label: string; value: number; source: string }[];
  expect(rows.find((r) => r.label === 'EnvACE-8B (paper)')?.value).toBe(36.7);
});

test('Cancel stops a model\'s BFCL run in the worker', async ({ page }) => {
  test.setTimeout(180_000);
  await open(page);
  const panel = page.getByTestId('bench-suites');
  await expect(panel.getByTestId('suite-model').locator('option[value="files-starter"]')).toHaveCount(1, { timeout: 30_000 });
  await panel.getByTestId('suite-model').selectOption('files-starter');
  await pickBfcl(page);
  await panel.getByTestId('suite-run').click();
  await expect(panel.getByTestId('suite-progress')).toBeVisible();
  await expect.poll(async () => Number(await panel.getByTestId('suite-progress').getAttribute('data-total')), { timeout: 60_000 }).toBe(200);
  await panel.getByTestId('suite-cancel').click();
  await expect(panel.getByTestId('suite-cancelled')).toBeVisible({ timeout: 30_000 });
  expect(Number(await panel.getByTestId('suite-progress').getAttribute('data-done'))).toBeLessThan(200);
  await expect(panel.getByTestId('suite-run')).toBeEnabled();
});
