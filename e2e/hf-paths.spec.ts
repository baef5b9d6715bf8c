// A Hugging Face model on the two other paths of the playground, in Chromium on WASM: the Qwen3 fixture (npm run
// fixture:qwen3) is served by a local hub mirror and loaded on the Models page through the hub-model path, then
// (1) the Rollout page's "rehearse first" runs with the model in the Rehearse role (Act replays the task's
// reference turns): attempts, memory and the committed run are shown, the real environment received exactly the
// committed calls, and the worker's run equals the same request run in Node through src/engine/hf; (2) the
// Benchmarks page evaluates it on 3 held-out tasks in mode real (the model plays Act), in mode rehearsal with
// the model in the Rehearse role, and in mode simulator with a shipped policy (files-starter) for Act and the model as
// the Rehearse model: rows, summary, no error, and per-task scores equal to Node's protocol run.

import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { createServer, type Server } from 'node:http';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { formatForTokenizerConfig, type ChatFormat } from '../src/agent/chatTemplate';
import { profileFromConfig, rolloutSettings } from '../src/agent/profile';
import { loadModelFolder } from '../src/engine/modelFolder';
import { createNodeRuntime } from '../src/engine/runtime-node';
import { samplerFromFolder } from '../src/engine/sampler';
import { DEFAULT_MEMORY_BUDGET, runProtocol, type ModelShape } from '../src/bench/evaluation';
import { loadHfModelNode } from '../src/engine/hf/node';
import type { HfModel } from '../src/engine/hf/loader';
import { getWorld, taskById } from '../src/envs/worlds';
import { runTts } from '../src/tts/rehearse';
import { actAndRehearse, buildHfRolloutConfig, hfRolloutSettings, referenceAct } from '../src/worker/hf-rollout-config';
import type { BenchEvalResult, RehearseFirstRequest, RolloutMode } from '../src/worker/protocol';
import { openApp, shot } from './helpers';

const ROOT = mkdtempSync(join(tmpdir(), 'hf-paths-'));
const DIR = join(ROOT, 'qwen3-fixture');
const TASK = 'files-3';
const TASKS = 3, MAX = 12, TURNS = 2;

let server: Server;
let base = '';
let model: HfModel;
let format: ChatFormat;

test.beforeAll(async () => {
  execFileSync('npx', ['tsx', 'src/cli/fixture-qwen3.ts', '--out', DIR, '--json'], { stdio: ['ignore', 'pipe', 'pipe'] });
  // A hub mirror on another origin (the page is cross-origin isolated: CORS + CORP, as the hub's CDN sends).
  server = createServer((req, res) => {
    const cors = { 'access-control-allow-origin': '*', 'access-control-allow-headers': '*', 'access-control-expose-headers': '*', 'cross-origin-resource-policy': 'cross-origin' };
    if (req.method === 'OPTIONS') { res.writeHead(204, cors).end(); return; }
    const m = /^\/mirror\/qwen3-fixture\/(.+)$/.exec(req.url ?? '');
    const file = m && join(DIR, decodeURIComponent(m[1]!));
    if (!file || !existsSync(file) || !statSync(file).isFile()) { res.writeHead(404, cors).end('not found'); return; }
    const body = readFileSync(file);
    res.writeHead(200, { ...cors, 'content-type': 'application/octet-stream', 'content-length': body.length }).end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}/mirror/qwen3-fixture`;
  model = await loadHfModelNode(DIR, { cacheDir: null });
  format = formatForTokenizerConfig(model.tokenizerConfig as { chat_template?: string; eos_token?: string });
});

test.afterAll(async () => {
  await model?.generator.release();
  server?.closeAllConnections();
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  rmSync(ROOT, { recursive: true, force: true });
});

/** The Benchmarks page's evaluation, as bench-service runs it, in Node. */
async function nodeBench(url: string, mode: RolloutMode) {
  const tasks = getWorld('files').tasks({ split: 'test', count: TASKS });
  const gen = url.endsWith('|rehearse-only') ? actAndRehearse(referenceAct(tasks, format), model.generator) : model.generator;
  const s = hfRolloutSettings();
  const r = await runProtocol(tasks, gen, {
    mode, k: 1, temperature: 0, topP: 1, seed: 4,
    rollout: {
      ...s, format, simulatorFormat: format,
      act: { ...s.act, maxNewTokens: MAX }, rehearse: { ...s.rehearse, maxNewTokens: MAX }, limits: { ...s.limits, maxAssistantTurns: TURNS },
    },
    model: model.config as unknown as ModelShape, memoryBudgetBytes: DEFAULT_MEMORY_BUDGET,
  });
  return r.perTask;
}

async function runBench(page: Page, modelName: string, mode: RolloutMode, extra: Record<string, string> = {}): Promise<BenchEvalResult> {
  const q = new URLSearchParams({ 'm.model': modelName, 'b.world': 'files', 'b.tasks': String(TASKS), 'b.mode': mode, 'b.k': '1', 'b.temp': '0', 'b.topp': '1', 'b.seed': '4', 'b.turns': String(TURNS), 'b.max': String(MAX), ...extra });
  await page.evaluate((h) => { location.hash = h; }, `#/benchmarks?${q}`);
  await expect(page.locator('#f-m\\.model')).toHaveValue(modelName);
  await expect(page.locator('#f-b\\.mode')).toHaveValue(mode);
  if (extra['b.sim']) await expect(page.locator('#f-b\\.sim')).toHaveValue(extra['b.sim']);
  await page.getByRole('button', { name: 'Run evaluation' }).click();
  const rows = page.getByTestId('bench-rows').locator('tbody tr');
  const suite = `files test · ${TASKS} tasks · ${mode}${extra['b.sim'] ? ` (Rehearse: ${extra['b.sim']})` : ''} · k=1`;
  await expect(page.getByTestId('bench-summary')).toContainText(suite, { timeout: 400_000 });
  await expect(page.getByTestId('bench-stale')).toHaveCount(0);
  await expect(rows).toHaveCount(TASKS);
  await expect(page.locator('.page-bench [role=alert]')).toHaveCount(0);
  const [json] = await Promise.all([page.waitForEvent('download'), page.getByTestId('bench-export-json').click()]);
  return JSON.parse(readFileSync((await json.path())!, 'utf8')) as BenchEvalResult;
}

test('a hub model runs rehearse first on the Rollout page and evaluations on the Benchmarks page, as in Node', async ({ page }) => {
  test.setTimeout(1_500_000);
  await openApp(page, '?backend=wasm', '#/models');
  await page.getByTestId('hf-ref').fill(base);
  await page.getByTestId('hf-add').click();
  await expect(page.getByTestId('hf-loaded-url')).toContainText(base, { timeout: 300_000 });
  const url = (await page.getByTestId('hf-loaded-url').textContent())!.trim();
  expect(url.startsWith(`hf:${base}`)).toBe(true);
  const rehearseOnly = `${url}|rehearse-only`;

  // (1) Rehearse first, the model in the Rehearse role, from the Rollout page's controls.
  const q = new URLSearchParams({ 'm.model': rehearseOnly, 'r.world': 'files', 'r.task': TASK, 'r.k': '1', 'r.temp': '0', 'r.max': '16', 'r.turns': String(TURNS), 'r.tts': '2', 'r.ttss': 'sequential' });
  await page.evaluate((h) => { location.hash = h; }, `#/rollout?${q}`);
  await expect(page.locator('#f-m\\.model')).toHaveValue(rehearseOnly);
  const panel = page.getByTestId('rehearse-first');
  await panel.getByTestId('rehearse-run').click();
  await expect(panel.getByTestId('rehearse-result')).toBeVisible({ timeout: 400_000 });
  await expect(panel.getByRole('alert')).toHaveCount(0);
  await expect(panel.getByTestId('rehearse-status')).toContainText('exactly the committed ones');
  const turns = panel.getByTestId('tts-turn');
  expect(await turns.count()).toBeGreaterThanOrEqual(1);
  await expect(turns.first().getByTestId('tts-attempt')).toHaveCount(2);
  await expect(turns.first().getByTestId('tts-state-ok')).toHaveText('yes');
  await expect(panel.getByTestId('tts-memory').first()).not.toBeEmpty();
  // The attempts' generations: the reference's calls (Act) and the model's imagined results (Rehearse).
  await turns.first().getByTestId('tts-attempt').first().locator('summary').click();
  await expect(turns.first().getByTestId('tts-attempt').first().getByTestId('tts-gen').first()).toContainText('act → ');
  await expect(turns.first().getByTestId('tts-attempt').first().getByTestId('tts-gen').nth(1)).toContainText('imagined result of ');
  await expect(panel.getByTestId('trajectory')).toBeVisible();
  await page.screenshot({ path: shot('hf-rehearse-first'), fullPage: true });

  // The same request through the worker's RPC and in Node: same attempts, memory and committed run.
  const req: RehearseFirstRequest = { modelUrl: rehearseOnly, world: 'files', taskId: TASK, k: 1, seed: 0, temperature: 0, maxTurns: TURNS, maxNewTokens: 16, n: 2, strategy: 'sequential', memory: 'full' };
  const got = await page.evaluate((r) => window.__envace!.api.rehearseFirst(r), req);
  const task = taskById(TASK);
  const policy = actAndRehearse(referenceAct(task, format), model.generator);
  const { mode: _m, ...cfg } = buildHfRolloutConfig(format, { ...req, mode: 'real' }, policy).cfg;
  const [ref] = await runTts([{ task, sample: 0, groupId: TASK }], { policy, format, cfg, opts: { n: 2, strategy: 'sequential', memory: 'full' } });
  const web = got.runs[0]!;
  expect(web.realMatchesCommitted).toBe(true);
  expect(web.realCalls).toBe(ref!.realCalls.length);
  expect(web.rehearsals.map((h) => h.attempts.map((a) => a.trajectory.rows.map((r) => [r.role, r.outputIds])))).toEqual(
    ref!.rehearsals.map((h) => h.attempts.map((a) => a.trajectory.rows.map((r) => [r.role, r.outputIds]))));
  expect(web.rehearsals.map((h) => h.memory)).toEqual(ref!.rehearsals.map((h) => h.memory));
  expect(web.trajectory.rows.map((r) => r.text)).toEqual(ref!.trajectory.rows.map((r) => r.text));
  expect(web.rehearsals[0]!.attempts.flatMap((a) => a.trajectory.rows).some((r) => r.role === 'rehearse' && r.outputIds.length > 0)).toBe(true);

  // (2) Benchmarks: the model as the policy (mode real), then in the Rehearse role (mode rehearsal).
  for (const [name, mode] of [[url, 'real'], [rehearseOnly, 'rehearsal']] as const) {
    const res = await runBench(page, name, mode);
    expect(res.model).toBe(name);
    expect(res.rows).toHaveLength(TASKS);
    expect(res.generations).toBeGreaterThanOrEqual(TASKS);
    const node = await nodeBench(name, mode);
    expect(res.rows.map((r) => [r.task, r.success, r.outcome, r.checklist, r.fidelityF1, r.terminations])).toEqual(
      node.map((r) => [r.task, r.success, r.outcome, r.checklist, r.fidelityF1, r.terminations]));
    // In the Rehearse role the model's imagined results were scored against the real environment's.
    if (mode === 'rehearsal') expect(res.rows.some((r) => r.fidelityF1 !== null)).toBe(true);
    await page.screenshot({ path: shot(`hf-benchmarks-${mode}`), fullPage: true });
  }
  // A task links back to the Rollout page with the Hugging Face model selected.
  await page.getByTestId('bench-rows').locator('tbody tr').first().getByTestId('open-in-rollout').click();
  await expect(page.locator('#f-m\\.model')).toHaveValue(rehearseOnly);
  // It runs there on arrival (autorun=1), through the Rollout page's Hugging Face path.
  await expect(page.getByTestId('run-status')).toContainText('full run', { timeout: 300_000 });

  // Our shipped policy for Act, the Hugging Face model for Rehearse (mode simulator, "Rehearse model" select).
  const SIM_MAX = 96, POLICY = 'files-starter';
  const res = await runBench(page, POLICY, 'simulator', { 'b.sim': url, 'b.max': String(SIM_MAX) });
  expect(res.request.simulatorUrl).toBe(url);
  expect(res.rows).toHaveLength(TASKS);
  const folder = await loadModelFolder(path.resolve('models', POLICY));
  const tiny = await samplerFromFolder(folder, createNodeRuntime({ threads: 1 }), { mode: 'fast' });
  let node;
  try {
    const s = rolloutSettings(profileFromConfig(folder.rawConfig));
    node = (await runProtocol(getWorld('files').tasks({ split: 'test', count: TASKS }), tiny, {
      mode: 'simulator', k: 1, temperature: 0, topP: 1, seed: 4, simulator: model.generator,
      rollout: {
        ...s, simulatorFormat: format, rehearsePrompt: {},
        act: { ...s.act, maxNewTokens: SIM_MAX }, rehearse: { ...s.rehearse, maxNewTokens: SIM_MAX }, limits: { ...s.limits, maxAssistantTurns: TURNS },
      },
      model: folder.config, memoryBudgetBytes: DEFAULT_MEMORY_BUDGET,
    })).perTask;
  } finally { await tiny.release(); }
  expect(res.rows.map((r) => [r.task, r.success, r.outcome, r.checklist, r.fidelityF1, r.terminations])).toEqual(
    node.map((r) => [r.task, r.success, r.outcome, r.checklist, r.fidelityF1, r.terminations]));
  // The policy's calls were answered by the Hugging Face model, scored against the real environment's answers.
  expect(res.rows.some((r) => r.fidelityF1 !== null)).toBe(true);
  await page.screenshot({ path: shot('hf-benchmarks-simulator'), fullPage: true });
});
