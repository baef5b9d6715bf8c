// npm run compare -- --a DIR --b DIR --world files|retail [--tasks 100] [--offset 0] [--difficulty D] [--k 4]
//                    [--temperature 0.6] [--top-p 0.95] [--seed S] [--json] [--out FILE] [--per-task]
// Two models on the same held-out tasks with the same sampling seeds (the evaluation protocol of `npm run
// eval`, src/bench/evaluation.ts, run for A and then for B), and the comparison of src/bench/compare.ts: each
// model's success / state check (outcome) / checklist with its bootstrap 95% interval over tasks (what `npm run
// eval` prints for it with the same flags), the difference B − A from a paired bootstrap over tasks, and per-task
// wins / losses / ties on success. Prints one JSON object (--json) or a short table; --out also writes the
// JSON to a file. A model folder that does not load exits 2 before either model is evaluated (a Hugging Face
// model, or a path that does not exist and reads as a hub id, loads when its turn comes).

import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { compareScores, COMPARE_METRICS, type Comparison } from '../bench/compare';
import { protocolName, type ProtocolResult } from '../bench/evaluation';
import type { Estimate } from '../bench/stats';
import { cliArgs, defineCli } from './args';
import { bootstrapSeed, evaluateModel, HELD_OUT_OPTIONS, ModelLoadError, openModel } from './eval';

export const COMPARE_CLI = defineCli({
  name: 'compare',
  summary: 'Two models on the same held-out tasks and seeds: each one\'s Avg@k and the paired bootstrap difference B − A.',
  options: {
    a: { type: 'string', help: 'model A: folder, or a Hugging Face ONNX model (as npm run eval --model)', required: true },
    b: { type: 'string', help: 'model B (the difference is B − A)', required: true },
    ...HELD_OUT_OPTIONS,
    'per-task': { type: 'boolean', help: 'include both models\' per-task scores in the JSON' },
    out: { type: 'string', help: 'also write the JSON object to this file (parent folders created)' },
    json: { type: 'boolean', help: 'print the JSON object only' },
  },
});

/** The JSON object `npm run compare` prints. */
export interface CompareReport extends Comparison {
  protocol: {
    name: string;
    world: string; split: 'test'; tasks: number; offset: number; difficulty: number | 'all';
    k: number; temperature: number; top_p: number; seed: number; mode: 'real';
    resamples: number; bootstrap_seed: number;
    model_a: string; model_b: string;
  };
  seconds: { a: number; b: number; total: number };
  generations: { a: number; b: number };
  terminations: { a: Record<string, number>; b: Record<string, number> };
}

async function main() {
  const a = cliArgs(COMPARE_CLI);
  const t0 = performance.now();
  const sampling = { k: a.k, temperature: a.temperature, topP: a['top-p'], seed: a.seed };
  const run = { world: a.world, tasks: a.tasks, offset: a.offset, difficulty: a.difficulty, sampling, chunkTasks: a['chunk-tasks'], maxNewTokens: a['max-new-tokens'], threads: a.threads };
  const results: ProtocolResult[] = [];
  try {
    // Both folders load before either is evaluated: a broken --b folder must not cost A's evaluation.
    const folders = [await openModel(a.a), await openModel(a.b)];
    for (const [i, model] of [a.a, a.b].entries()) {
      results.push(await evaluateModel({ ...run, model, folder: folders[i], label: `compare ${'ab'[i]} ${a.world}` }));
    }
  } catch (e) {
    if (!(e instanceof ModelLoadError)) throw e;
    process.stderr.write(`compare: ${e.message}\n`);
    process.exit(2);
  }
  const [ra, rb] = results as [ProtocolResult, ProtocolResult];
  const boot = { resamples: a.resamples, seed: bootstrapSeed(a.seed) };
  const cmp = compareScores(ra.perTask, rb.perTask, { ...boot, perTask: a['per-task'] });
  const { per_task, ...rest } = cmp;
  const rep: CompareReport = {
    protocol: {
      name: protocolName(sampling),
      world: a.world, split: 'test', tasks: cmp.n_tasks, offset: a.offset, difficulty: a.difficulty ?? 'all',
      k: a.k, temperature: a.temperature, top_p: a['top-p'], seed: a.seed, mode: 'real',
      resamples: a.resamples, bootstrap_seed: boot.seed,
      model_a: a.a, model_b: a.b,
    },
    ...rest,
    seconds: { a: round2(ra.seconds), b: round2(rb.seconds), total: round2((performance.now() - t0) / 1000) },
    generations: { a: ra.summary.generations, b: rb.summary.generations },
    terminations: { a: ra.summary.terminations, b: rb.summary.terminations },
    ...(per_task ? { per_task } : {}),
  };
  const json = JSON.stringify(rep);
  if (a.out) {
    mkdirSync(dirname(a.out), { recursive: true });
    writeFileSync(a.out, json + '\n');
  }
  if (a.json) { process.stdout.write(json + '\n'); return; }
  const f = (e: Estimate, sign = false) => `${sign && e.mean >= 0 ? '+' : ''}${e.mean.toFixed(3)} [${e.ci95[0].toFixed(3)}, ${e.ci95[1].toFixed(3)}]`;
  const p = rep.protocol;
  console.log(`${p.world} test · ${p.tasks} tasks${p.offset ? ` from #${p.offset}` : ''} · ${p.name} · seed ${p.seed} · ${rep.seconds.total} s`);
  console.log(`  A ${p.model_a}\n  B ${p.model_b}`);
  console.log(`  ${'metric'.padEnd(10)} ${'A'.padEnd(24)} ${'B'.padEnd(24)} B − A (paired)`);
  for (const m of COMPARE_METRICS) console.log(`  ${m.padEnd(10)} ${f(rep.a[m]).padEnd(24)} ${f(rep.b[m]).padEnd(24)} ${f(rep.diff[m], true)}`);
  console.log(`  success per task: B wins ${rep.wins}, loses ${rep.losses}, ties ${rep.ties}`);
  if (a.out) console.log(`  written to ${a.out}`);
}

const round2 = (x: number) => Number(x.toFixed(2));

const isMain = /(^|[\/])compare.ts$/.test(process.argv[1] ?? '');
if (isMain) main().catch((e) => { console.error(e); process.exit(1); });
