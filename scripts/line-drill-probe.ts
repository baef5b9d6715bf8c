// npx tsx scripts/line-drill-probe.ts MODEL_DIR [ROWS] [--out FILE]
// Has a model learned the state-line lookup (`npm run sft --line-warmup/--line-mix`, src/agent/line-drill.ts)?
// ROWS held-out drill rows (their own seed, never a training draw) are answered greedily up to `</think>`;
// the report gives the share whose folder line is exactly right, the overlap of its entries with the true ones
// (Jaccard), and the share whose fact about the called name is right, with three rows as examples.
import { writeFile } from 'node:fs/promises';
import { entryOverlap, lineDrill, stateThinkParts } from '../src/agent/line-drill';
import { Rng } from '../src/engine/rng';
import { loadModelFolder } from '../src/engine/modelFolder';
import { nodeRuntime } from '../src/engine/runtime-node';
import { samplerFromFolder } from '../src/engine/sampler';

const argv = process.argv.slice(2);
const outAt = argv.indexOf('--out');
const out = outAt >= 0 ? argv.splice(outAt, 2)[1] : undefined;
const [dir, nRows = '48'] = argv;
if (!dir) throw new Error('usage: line-drill-probe.ts MODEL_DIR [ROWS] [--out FILE]');
const SEED = 777;
const folder = await loadModelFolder(dir);
const rows = lineDrill(new Rng(SEED), Number(nRows));
const writer = await samplerFromFolder(folder, nodeRuntime(), { name: 'think', mode: 'fast' });
const gens = await writer.generate(rows.map((e) => ({ prompt: e.prompt, maxNewTokens: 96, temperature: 0, topP: 1, topK: 0, stop: ['</think>'], seed: 0 })));
await writer.release();
// The drill's think has one fact; a written think may add more, and only its first is read.
const parts = (t: string) => { const p = stateThinkParts(t); return { line: p.line, fact: p.facts.split('; ')[0] }; };
let line = 0, fact = 0, overlap = 0;
const examples: { want: string; wrote: string }[] = [];
rows.forEach((r, i) => {
  const want = parts(r.target), got = parts(gens[i].text);
  if (want.line === got.line) line++;
  if (want.fact === got.fact) fact++;
  overlap += entryOverlap(gens[i].text, r.target);
  if (i < 3) examples.push({ want: r.target, wrote: gens[i].text });
});
const cfg = folder.rawConfig.envace as { steps?: number; cpuMinutes?: number } | undefined;
const report = {
  model: dir, steps: cfg?.steps, cpuMinutes: cfg?.cpuMinutes,
  protocol: { command: `npx tsx scripts/line-drill-probe.ts ${dir} ${nRows}`, rows: rows.length, drillSeed: SEED, decoding: 'greedy, up to </think>' },
  line_exact: +(line / rows.length).toFixed(4), entries_overlap: +(overlap / rows.length).toFixed(4), fact_right: +(fact / rows.length).toFixed(4), examples,
};
const text = JSON.stringify(report, null, 2) + '\n';
if (out) await writeFile(out, text);
process.stdout.write(text);
