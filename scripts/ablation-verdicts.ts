// tsx scripts/ablation-verdicts.ts SUMMARY.json [SUMMARY.json ...]
// What the Benchmarks page shows beside the training curves, printed for the README: the paper's chain links on
// held-out success with their minimum detectable effect (orderingRows), and per fidelity measure the mean change per
// variant and the correlation of fidelity change with success change across trained runs (mechanismPoints,
// mechanismCorrelation). The same readers as the page, so the figures cannot differ from what it draws.
import { readFileSync } from 'node:fs';
import { VARIANTS } from '../src/rl/advantages';
import { MECHANISM_FIDELITY, mechanismCorrelation, mechanismPoints, orderingRows, readAblationSummary } from '../src/app/components/bench/readers';

const f3 = (x: number) => x.toFixed(3);
for (const file of process.argv.slice(2)) {
  const s = readAblationSummary(JSON.parse(readFileSync(file, 'utf8')));
  if (!s) { console.error(`${file}: not an ablation summary`); process.exitCode = 1; continue; }
  console.log(file);
  for (const o of orderingRows(s, 'success')) if (o.chainLink) console.log(`  ${o.a} > ${o.b}: ${f3(o.diff.mean)} [${o.diff.ci95.map(f3).join(', ')}] ${o.verdict}, MDE ${f3(o.mde)}`);
  for (const m of MECHANISM_FIDELITY) {
    const pts = mechanismPoints(s, m.key);
    const c = mechanismCorrelation(pts);
    const byVariant = new Map<string, number[]>();
    for (const p of pts) byVariant.set(p.variant, [...(byVariant.get(p.variant) ?? []), p.dFidelity]);
    const means = [...byVariant].map(([v, xs]) => `${v} ${f3(xs.reduce((a, b) => a + b, 0) / xs.length)}`).join(' / ');
    // Arms trained in the real environment differ from the rest in kind; whether the link survives without them is
    // the question the scatter alone cannot answer by eye.
    const rehearsal = mechanismCorrelation(pts.filter((p) => (VARIANTS as Record<string, { rolloutMode?: string }>)[p.variant]?.rolloutMode !== 'real'));
    const rs = (x: typeof c) => (x ? `${x.r.toFixed(2)} [${x.ci95.map((v) => v.toFixed(2)).join(', ')}]` : 'n/a');
    console.log(`  ${m.key}: ${pts.length} runs; mean Δ ${means || '–'}; r ${rs(c)}; without real-environment arms r ${rs(rehearsal)}`);
  }
}
