// An imported Llama-architecture folder (grouped-query attention, tied embeddings: SmolLM2's architecture at
// width 64, random weights, a shipped model's tokenizer) trains one Role-Wise GRPO step in the browser's training
// worker (WASM), through the Train page's model field, and the exported folder loads in transformers.js (Node)
// and gives the same greedy tokens as our runtime.
//   E2E_PORT=4315 npx playwright test e2e/llama-import.spec.ts

import { expect, test } from '@playwright/test';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { AutoModelForCausalLM, Tensor, env } from '@huggingface/transformers';
import { llamaFixtureFiles } from '../src/engine/llama-import';
import { loadModelFolder, memoryFileSource } from '../src/engine/modelFolder';
import { samplerFromFolder } from '../src/engine/sampler';
import { nodeRuntime } from '../src/engine/runtime-node';
import type { TokenizerJSON } from '../src/engine/tokenizer';
import type { RunRecord } from '../src/app/components/train/runs';
import { openApp, shot } from './helpers';

const NAME = 'llama-gqa-fixture';
// The web server builds into this folder and `vite preview` serves it file by file at request time, so a
// folder written there now is served under /models/NAME/ (the Train page's URL for a model name outside
// the index) without a rebuild. Same rule as playwright.config.ts.
const OUT_DIR = process.env.E2E_PORT ? `tmp/dist-${Number(process.env.E2E_PORT)}` : 'dist';
const FOLDER = join(OUT_DIR, 'models', NAME);

/** The part of the e2e build's window.__envaceTrain this spec uses (train.spec.ts declares the whole of it). */
interface TrainHooks {
  runs(): { runs: RunRecord[]; activeId: string | null };
  api(): { trainExport(): Promise<{ name: string; files: Record<string, Uint8Array> }> };
}
type HookWindow = { __envaceTrain: TrainHooks };

function writeFixture() {
  const tokenizer = JSON.parse(readFileSync('models/envace-tiny/tokenizer.json', 'utf8')) as TokenizerJSON;
  const tokCfg = JSON.parse(readFileSync('models/envace-tiny/tokenizer_config.json', 'utf8')) as { chat_template: string };
  const envace = (JSON.parse(readFileSync('models/envace-tiny/config.json', 'utf8')) as { envace: { profile: Record<string, any> } }).envace;
  const profile = { ...envace.profile, act: { maxNewTokens: 8 }, rehearse: { maxNewTokens: 8 }, limits: { maxAssistantTurns: 1, maxGenerations: 2, minNewTokens: 2 } };
  const fx = llamaFixtureFiles({ tokenizer, chatTemplate: tokCfg.chat_template, meta: { profile }, options: { seed: 11 } });
  rmSync(FOLDER, { recursive: true, force: true });
  for (const [rel, bytes] of Object.entries(fx.files)) { mkdirSync(dirname(join(FOLDER, rel)), { recursive: true }); writeFileSync(join(FOLDER, rel), bytes); }
  return fx;
}

test('imported GQA + tied Llama folder: one GRPO step in the worker, exported folder runs in transformers.js', async ({ page }) => {
  const fx = writeFixture();
  expect(fx.config).toMatchObject({ num_attention_heads: 4, num_key_value_heads: 2, tie_word_embeddings: true });
  await openApp(page, '?backend=wasm', `#/train?t.model=${NAME}&t.world=files&t.steps=1&t.tasks=1&t.group=2&t.turns=1&t.max=8&t.mb=4&t.lr=0.01&t.seed=3&t.eval=0&t.ckpt=1`);
  await page.getByRole('button', { name: 'Start', exact: true }).click();
  await expect(page.getByTestId('train-state')).toHaveText('done', { timeout: 240_000 });
  const run = await page.evaluate(() => { const s = (window as unknown as HookWindow).__envaceTrain.runs(); return s.runs.find((r) => r.runId === s.activeId)!; });
  expect(run.status?.backend).toBe('wasm');
  expect(run.history).toHaveLength(1);
  const m = run.history[0];
  expect(m.skipped).toBe(false);
  expect(m.rows).toBeGreaterThan(0);
  expect(Number.isFinite(m.loss)).toBe(true);
  console.log(`[llama-import.spec] worker GRPO step: ${m.secondsPerStep.toFixed(2)} s, rows ${m.rows}, loss ${m.loss}, grad norm ${m.gradNorm}`);
  await page.screenshot({ path: shot('llama-import-trained'), fullPage: true });

  // The trained weights, exported by the worker as a folder (weights + onnx/model.onnx).
  const b64 = await page.evaluate(async () => {
    const enc = (b: Uint8Array) => { let s = ''; for (let i = 0; i < b.length; i += 0x8000) s += String.fromCharCode(...b.subarray(i, i + 0x8000)); return btoa(s); };
    const f = await (window as unknown as HookWindow).__envaceTrain.api().trainExport();
    return Object.fromEntries(Object.entries(f.files).map(([p, b]) => [p, enc(b)]));
  });
  const files = Object.fromEntries(Object.entries(b64).map(([p, s]) => [p, new Uint8Array(Buffer.from(s, 'base64'))]));
  expect(Object.keys(files)).toEqual(expect.arrayContaining(['config.json', 'tokenizer.json', 'tokenizer_config.json', 'model.safetensors', 'onnx/model.onnx']));
  const trained = await loadModelFolder(memoryFileSource(files));
  expect(trained.config).toMatchObject({ num_key_value_heads: 2, tie_word_embeddings: true });
  expect(trained.params['lm_head.weight']).toBeUndefined();
  const start = fx.params['model.embed_tokens.weight'], now = trained.params['model.embed_tokens.weight'];
  expect(now.some((x, i) => x !== start[i])).toBe(true);      // the step moved the (tied) embedding
  expect(now.every(Number.isFinite)).toBe(true);

  // transformers.js loads the exported folder and its greedy tokens are ours.
  const dir = join(mkdtempSync(join(tmpdir(), 'llama-e2e-')), 'llama-gqa-trained');
  for (const [rel, bytes] of Object.entries(files)) { mkdirSync(dirname(join(dir, rel)), { recursive: true }); writeFileSync(join(dir, rel), bytes); }
  env.allowRemoteModels = false; env.allowLocalModels = true; env.localModelPath = `${dirname(dir)}/`;
  const lm = await AutoModelForCausalLM.from_pretrained(basename(dir), { dtype: 'fp32', device: 'cpu' });
  const prompt = '<|user|>Show me what is in /notes.<|end|>\n<|assistant|>';
  const ids = trained.tokenizer.encode(prompt), T = ids.length, N = 10;
  const out = await lm.generate({ input_ids: new Tensor('int64', BigInt64Array.from(ids.map(BigInt)), [1, T]), attention_mask: new Tensor('int64', new BigInt64Array(T).fill(1n), [1, T]), max_new_tokens: N, do_sample: false }) as unknown as { tolist(): bigint[][] };
  await lm.dispose();
  const theirs = out.tolist()[0].map(Number).slice(T);
  const sampler = await samplerFromFolder(trained, nodeRuntime(), { mode: 'fast' });
  const [g] = await sampler.generate([{ prompt, maxNewTokens: N, temperature: 0, topP: 1, topK: 0, stop: [], seed: 0 }]);
  await sampler.release();
  const eos = theirs.indexOf(trained.ids.eos);
  expect(g.outputIds).toEqual(eos < 0 ? theirs : theirs.slice(0, eos + 1));
});
