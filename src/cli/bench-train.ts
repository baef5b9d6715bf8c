// npm run bench:train -- --json [--model models/envace-small] [--steps 3] [--config configs/envace-files.json]
// Steps per second, rollout tokens per second, and the share of time in rollout, judging and update,
// for the default config in Node. Prints one JSON object on stdout.

import { readFile } from 'node:fs/promises';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunSpec } from '../rl/session';
import { runTraining } from './train';
import { arg } from './util';

async function main() {
  const steps = Number(arg('steps') ?? 3);
  const base: RunSpec & { model?: string } = JSON.parse(await readFile(arg('config') ?? 'configs/envace-files.json', 'utf8'));
  if (arg('model')) base.model = arg('model');
  const out = mkdtempSync(join(tmpdir(), 'bench-train-'));
  // Evaluation is not part of a training step: run it only at the ends.
  const r = await runTraining({ spec: { ...base, steps, evalEvery: 0, evalTasks: 1, checkpointEvery: 0 }, out, quiet: true });
  const h = r.trainer.history;
  const sum = (f: (m: (typeof h)[number]) => number) => h.reduce((s, m) => s + f(m), 0);
  const total = sum((m) => m.secondsPerStep);
  console.log(JSON.stringify({
    config: base, steps: h.length,
    steps_per_s: h.length / total,
    seconds_per_step: total / h.length,
    rollout_tokens_per_s: sum((m) => m.rolloutTokensPerS) / h.length,
    share: { rollout: sum((m) => m.rolloutSeconds) / total, judge: sum((m) => m.judgeSeconds) / total, update: sum((m) => m.updateSeconds) / total },
    rows_per_step: sum((m) => m.rows) / h.length,
    train_tokens_per_step: sum((m) => m.tokens) / h.length,
  }, null, 2));
}

main().catch((e) => { console.error(e); process.exit(1); });
