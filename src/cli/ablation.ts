// npm run ablation -- --world files --seeds 3 --steps S --out runs/ablation [--model models/envace-small]
//                     [--variants envace,pooled,per-role,grpo-simulator,grpo-real] [--config base.json]
// Runs every variant for every seed, then writes summary.json and summary.md: mean ± std over seeds of
// held-out real-environment success, checklist score and rehearsal fidelity, before and after training.

import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { VARIANTS, type VariantName } from '../rl/advantages';
import type { RunSpec } from '../rl/session';
import type { EvalMetrics } from '../rl/trainer';
import { runTraining } from './train';
import { arg } from './util';

const world = arg('world') ?? 'files';
const seeds = Number(arg('seeds') ?? 3);
const steps = Number(arg('steps') ?? 10);
const out = arg('out') ?? 'runs/ablation';
const model = arg('model') ?? 'models/envace-small';
const variants = (arg('variants') ?? Object.keys(VARIANTS).join(',')).split(',') as VariantName[];

type Metric = 'success' | 'checklist' | 'fidelityF1';
const METRICS: Metric[] = ['success', 'checklist', 'fidelityF1'];

function meanStd(xs: number[]): { mean: number; std: number } {
  const m = xs.reduce((a, b) => a + b, 0) / xs.length;
  const v = xs.length > 1 ? xs.reduce((a, b) => a + (b - m) ** 2, 0) / (xs.length - 1) : 0;
  return { mean: m, std: Math.sqrt(v) };
}

async function main() {
  const base: RunSpec = arg('config') ? JSON.parse(await readFile(arg('config')!, 'utf8')) : {};
  await mkdir(out, { recursive: true });
  const runs: { variant: VariantName; seed: number; before: EvalMetrics; after: EvalMetrics; secondsPerStep: number; fidelityCurve: { step: number; f1: number }[] }[] = [];
  let before: EvalMetrics | undefined;
  for (const variant of variants) {
    for (let seed = 1; seed <= seeds; seed++) {
      const dir = join(out, `${variant}-seed${seed}`);
      const r = await runTraining({ spec: { ...base, model, world, variant, seed, steps }, out: dir, label: `${variant} seed ${seed}`, before });
      before ??= r.before;
      runs.push({ variant, seed, before: r.before, after: r.after, secondsPerStep: r.secondsPerStep, fidelityCurve: r.trainer.evals.map((e) => ({ step: e.step, f1: e.fidelityF1 })) });
      await writeFile(join(out, 'runs.json'), JSON.stringify(runs, null, 2) + '\n');
    }
  }
  const summary = variants.map((variant) => {
    const rs = runs.filter((r) => r.variant === variant);
    const row: Record<string, unknown> = { variant, label: VARIANTS[variant].label, seeds: rs.length, secondsPerStep: meanStd(rs.map((r) => r.secondsPerStep)).mean };
    for (const m of METRICS) {
      row[`${m}_before`] = meanStd(rs.map((r) => r.before[m]));
      row[`${m}_after`] = meanStd(rs.map((r) => r.after[m]));
    }
    return row;
  });
  const fmt = (x: { mean: number; std: number }, pct: boolean) => pct ? `${(100 * x.mean).toFixed(1)} ± ${(100 * x.std).toFixed(1)}` : `${x.mean.toFixed(3)} ± ${x.std.toFixed(3)}`;
  const lines = [
    `Ablation on the built-in **${world}** world: ${seeds} seeds × ${steps} steps from \`${model}\`; held-out tasks, greedy, real environment (fidelity: rehearsal mode on the same tasks).`,
    '',
    '| variant | success % before | success % after | checklist before | checklist after | fidelity F1 before | fidelity F1 after | s/step |',
    '|---|---|---|---|---|---|---|---|',
    ...summary.map((r) => `| ${r.label} | ${fmt(r.success_before as never, true)} | ${fmt(r.success_after as never, true)} | ${fmt(r.checklist_before as never, false)} | ${fmt(r.checklist_after as never, false)} | ${fmt(r.fidelityF1_before as never, false)} | ${fmt(r.fidelityF1_after as never, false)} | ${(r.secondsPerStep as number).toFixed(1)} |`),
  ];
  await writeFile(join(out, 'summary.json'), JSON.stringify({ world, seeds, steps, model, summary, runs }, null, 2) + '\n');
  await writeFile(join(out, 'summary.md'), lines.join('\n') + '\n');
  console.log(lines.join('\n'));
}

main().catch((e) => { console.error(e); process.exit(1); });
