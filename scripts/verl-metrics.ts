// npx tsx scripts/verl-metrics.ts to-verl RUN/metrics.jsonl > ours.verl.jsonl
// npx tsx scripts/verl-metrics.ts from-verl verl_logs/<project>/<experiment>.jsonl > theirs.metrics.jsonl
// A training run here and one of the reference trainer on verl on one chart: `to-verl` rewrites our metrics.jsonl
// as verl's file logger writes its runs (trainer.logger=['console','file']: {"step", "data": {"actor/pg_loss", …}}),
// `from-verl` reads such a file into metrics.jsonl records under our names (the metrics both log; src/rl/verl-metrics.ts
// has the mapping and what each name means on each side). Lines that are not records are counted on stderr.
import { readFileSync } from 'node:fs';
import { fromVerlLine, toVerlLine } from '../src/rl/verl-metrics';

const [direction, file] = process.argv.slice(2);
if ((direction !== 'to-verl' && direction !== 'from-verl') || !file) {
  process.stderr.write('usage: npx tsx scripts/verl-metrics.ts to-verl|from-verl FILE.jsonl\n');
  process.exit(2);
}
let skipped = 0;
for (const line of readFileSync(file, 'utf8').split('\n')) {
  if (!line.trim()) continue;
  let x: unknown;
  try { x = JSON.parse(line); } catch { skipped++; continue; }
  const isRecord = typeof x === 'object' && x !== null && typeof (x as { step?: unknown }).step === 'number';
  const out = direction === 'to-verl' ? (isRecord ? toVerlLine(x as { step: number }) : null) : fromVerlLine(x);
  if (out) process.stdout.write(`${JSON.stringify(out)}\n`); else skipped++;
}
if (skipped) process.stderr.write(`verl-metrics: ${skipped} lines were not metric records\n`);
