// npx tsx scripts/line-drill-probe.ts MODEL_DIR [ROWS] [--real S] [--present P] [--given-line] [--out FILE]
// Has a model learned the state-line lookup (`npm run sft --line-warmup/--line-mix`, src/agent/line-drill.ts)?
// ROWS held-out drill rows (their own seed, never a training draw) are answered greedily up to `</think>`;
// the report gives the share whose folder line is exactly right, the overlap of its entries with the true ones
// (Jaccard), and the share whose fact about the called name is right (also apart for rows whose name is in the
// folder and rows where it is absent), with three rows as examples. --real S: that share of rows keeps the world's
// own names (one token each, where random names are several); --present P: that share names an entry of the folder
// (default a third, so "absent" alone scores 0.67); --given-line: the true line is forced and only the fact is
// written, so the lookup in a right line is measured apart from finding the line.
import { writeFile } from 'node:fs/promises';
import { entryOverlap, lineDrill, stateThinkParts } from '../src/agent/line-drill';
import { profileFromConfig } from '../src/agent/profile';
import { Rng } from '../src/engine/rng';
import { loadModelFolder } from '../src/engine/modelFolder';
import { nodeRuntime } from '../src/engine/runtime-node';
import { samplerFromFolder } from '../src/engine/sampler';

const argv = process.argv.slice(2);
const outAt = argv.indexOf('--out');
const out = outAt >= 0 ? argv.splice(outAt, 2)[1] : undefined;
const flag = (name: string) => { const at = argv.indexOf(name); return at >= 0 ? argv.splice(at, 2)[1] : undefined; };
const real = Number(flag('--real') ?? 0), present = flag('--present');
const givenAt = argv.indexOf('--given-line');
const givenLine = givenAt >= 0 && argv.splice(givenAt, 1).length > 0;
const [dir, nRows = '48'] = argv;
if (!dir) throw new Error('usage: line-drill-probe.ts MODEL_DIR [ROWS] [--out FILE]');
const SEED = 777;
const folder = await loadModelFolder(dir);
// A model trained with the mentions block (`npm run sft --rehearse-mentions`) is probed with it.
const mentions = profileFromConfig(folder.rawConfig).rehearsePrompt.mentions ?? false;
const rows = lineDrill(new Rng(SEED), Number(nRows), 'line', real, present === undefined ? undefined : Number(present), mentions);
const forced = rows.map((r) => (givenLine ? `<think>${stateThinkParts(r.target).line}; ` : ''));
const writer = await samplerFromFolder(folder, nodeRuntime(), { name: 'think', mode: 'fast' });
const gens = await writer.generate(rows.map((e, i) => ({ prompt: e.prompt + forced[i], maxNewTokens: 96, temperature: 0, topP: 1, topK: 0, stop: ['</think>'], seed: 0 })));
await writer.release();
// The drill's think has one fact; a written think may add more, and only its first is read.
const parts = (t: string) => { const p = stateThinkParts(t); return { line: p.line, fact: p.facts.split('; ')[0] }; };
let line = 0, fact = 0, overlap = 0;
const byFact = { present: [0, 0], absent: [0, 0] };
// By what the name looks like and what it is: a model that answers from the form (an extension → file, none →
// folder) scores on two of these four and fails the other two.
const byKind: Record<string, [number, number]> = { 'file': [0, 0], 'folder': [0, 0], 'absent, file-like name': [0, 0], 'absent, folder-like name': [0, 0] };
const examples: { want: string; wrote: string }[] = [];
rows.forEach((r, i) => {
  const text = forced[i] + gens[i].text;
  const want = parts(r.target), got = parts(text);
  const right = want.fact === got.fact ? 1 : 0;
  const [name, what] = want.fact.split(': ');
  const tallies = [byFact[what === 'absent' ? 'absent' : 'present'], byKind[what === 'absent' ? `absent, ${name.includes('.') ? 'file' : 'folder'}-like name` : what]];
  for (const t of tallies) if (t) { t[1]++; t[0] += right; }
  if (want.line === got.line) line++;
  fact += right;
  overlap += entryOverlap(text, r.target);
  if (i < 3) examples.push({ want: r.target, wrote: text });
});
const cfg = folder.rawConfig.envace as { steps?: number; cpuMinutes?: number } | undefined;
const report = {
  model: dir, steps: cfg?.steps, cpuMinutes: cfg?.cpuMinutes,
  protocol: { command: `npx tsx scripts/line-drill-probe.ts ${dir} ${nRows}${real ? ` --real ${real}` : ''}${present !== undefined ? ` --present ${present}` : ''}${givenLine ? ' --given-line' : ''}`, rows: rows.length, drillSeed: SEED, realNames: real, present: present === undefined ? 'a third' : Number(present), givenLine, mentions, decoding: 'greedy, up to </think>' },
  line_exact: +(line / rows.length).toFixed(4), entries_overlap: +(overlap / rows.length).toFixed(4), fact_right: +(fact / rows.length).toFixed(4),
  fact_right_present: +(byFact.present[0] / Math.max(1, byFact.present[1])).toFixed(4), fact_right_absent: +(byFact.absent[0] / Math.max(1, byFact.absent[1])).toFixed(4), rows_present: byFact.present[1],
  fact_right_by_kind: Object.fromEntries(Object.entries(byKind).map(([k, [right, n]]) => [k, { rows: n, right: +(right / Math.max(1, n)).toFixed(4) }])), examples,
};
const text = JSON.stringify(report, null, 2) + '\n';
if (out) await writeFile(out, text);
process.stdout.write(text);
