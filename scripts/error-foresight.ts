// npx tsx scripts/error-foresight.ts MODEL_DIR [WORLD] [TASKS] [--think folder|check [--sampled [--given-line]]] [--policy DIR] [--out FILE]
// Does the Rehearse role foresee the calls the real environment rejects? The policy plays the first TASKS train tasks
// × 4 in the real environment (T 1, seed 0: the gate's real-mode protocol); every call becomes a Rehearse prompt
// (the exact prompt the rollout builds there, real results in the history) and the model's teacher-forced
// p("error" | prompt, `<execution_result>\n{"`) is read at the decision token. Errors split into the episode's first
// (foreseeing it needs the state: where the agent is, what exists) and later ones (an earlier error is in the history).
// Sampled at T 1 this probability is the chance the Rehearse role imagines the error; 95% bootstrap over tasks.
// --think HOW (a model trained with `npm run sft --think-state HOW`): the true state line is teacher-forced in the
// `<think>` before the decision, so the figure is the lookup given the right state, an upper bound of what sampling
// the line gets; the gate measures the sampled whole. --sampled (with --think): the model writes its own think
// (greedy, up to `</think>`) and p(error) is read after it: the foresight the Rehearse role has when nothing is
// forced; the report adds how often the written line equals the true one, its folder part (its path; the share of its
// entries that are right, Jaccard), and its facts part. `first_errors_by_hint`: first errors whose exact call is among
// the prompt's examples (made by the expert from another state) apart from the rest, p(error) and facts for each.
import { writeFile } from 'node:fs/promises';
import { profileFromConfig, rolloutSettings } from '../src/agent/profile';
import { entryOverlap, stateThinkParts } from '../src/agent/line-drill';
import { sftExperienceExamples } from '../src/agent/sft';
import { rollout } from '../src/agent/rollout';
import { bootstrapStatistic } from '../src/bench/stats';
import { loadModelFolder } from '../src/engine/modelFolder';
import { nodeRuntime } from '../src/engine/runtime-node';
import { samplerFromFolder } from '../src/engine/sampler';
import { BPETokenizer } from '../src/engine/tokenizer';
import { Model, makeLmBatch } from '../src/engine/trainer-core';
import { getWorld, thinkStateLine } from '../src/envs/worlds/index';

const argv = process.argv.slice(2);
const outAt = argv.indexOf('--out');
const out = outAt >= 0 ? argv.splice(outAt, 2)[1] : undefined;
// --dump FILE: every call's kind, true think, written think and p(error), one JSON per line (for reading failures).
const dumpAt = argv.indexOf('--dump');
const dump = dumpAt >= 0 ? argv.splice(dumpAt, 2)[1] : undefined;
const thinkAt = argv.indexOf('--think');
const think = thinkAt >= 0 ? (argv.splice(thinkAt, 2)[1] as 'folder' | 'check') : undefined;
if (think !== undefined && think !== 'folder' && think !== 'check') throw new Error("--think takes 'folder' or 'check' (the model's --think-state)");
const sampledAt = argv.indexOf('--sampled');
const sampled = sampledAt >= 0 && argv.splice(sampledAt, 1).length > 0;
if (sampled && !think) throw new Error('--sampled needs --think HOW');
// --given-line (with --sampled): the true state line is forced and the model writes only the facts after it, so the
// lookup of the called names in a right line is measured apart from finding and copying the line.
const givenAt = argv.indexOf('--given-line');
const givenLine = givenAt >= 0 && argv.splice(givenAt, 1).length > 0;
if (givenLine && (!sampled || think !== 'check')) throw new Error('--given-line needs --think check --sampled');
// --policy DIR: the episodes are played by another folder's policy (same prompt profile), so Rehearse roles are
// compared on the same calls, and a role whose Act was never trained (a drill-only run) can still be read.
const policyAt = argv.indexOf('--policy');
const policyDir = policyAt >= 0 ? argv.splice(policyAt, 2)[1] : undefined;
const [dir, world = 'files', nTasks = '32'] = argv;
if (!dir) throw new Error('usage: npx tsx scripts/error-foresight.ts MODEL_DIR [WORLD] [TASKS] [--out FILE]');
const K = 4, SEED = 0;
const folder = await loadModelFolder(dir);
const profile = profileFromConfig(folder.rawConfig);
const tok = new BPETokenizer(folder.tokenizerJson);
const rt = nodeRuntime();
const policy = await samplerFromFolder(policyDir ? await loadModelFolder(policyDir) : folder, rt, { name: 'policy', mode: 'fast' });
const tasks = getWorld(world).tasks({ split: 'train', count: Number(nTasks), offset: 0 });
const specs = tasks.flatMap((task, ti) => Array.from({ length: K }, (_, sample) => ({ task, ti, sample, groupId: task.id })));
const trajs = await rollout(specs, { ...rolloutSettings(profile), mode: 'real', policy, seed: SEED, keepPrompts: false, act: { ...profile.act, temperature: 1 } });
await policy.release();
const T = folder.config.max_position_embeddings;
const { examples } = await sftExperienceExamples(trajs.map((trajectory, j) => ({ task: specs[j].task, trajectory })), { rollout: rolloutSettings(profile), maxContext: T, countTokens: (s) => tok.encode(s).length,
  stateLine: think && thinkStateLine(think) });

// Each example's task index: examples come in episode order, tagged `${taskId}#${seed}`.
const taskIndex = new Map(tasks.map((t, i) => [t.id, i]));
const probe = tok.encode('\n<execution_result>\n{"error');
type Row = { ids: number[]; at: number; task: number; kind: 'success' | 'first' | 'later'; p: number; i: number };
const erred = new Set<string>();
const trueThinks = examples.map((e) => (think ? e.target.slice(0, e.target.indexOf('</think>') + '</think>'.length) : ''));
// --sampled: the think each prompt gets from the model itself, greedy.
let thinks = trueThinks;
if (sampled) {
  const writer = await samplerFromFolder(folder, rt, { name: 'think', mode: 'fast' });
  thinks = [];
  for (let i = 0; i < examples.length; i += 16) {
    const forced = trueThinks.slice(i, i + 16).map((t) => { if (!givenLine) return ''; const { line, facts } = stateThinkParts(t); return `<think>${line}${facts ? '; ' : ''}`; });
    const gens = await writer.generate(examples.slice(i, i + 16).map((e, j) => ({ prompt: e.prompt + forced[j], maxNewTokens: 96, temperature: 0, topP: 1, topK: 0, stop: ['</think>'], seed: SEED })));
    thinks.push(...gens.map((g, j) => { const text = forced[j] + g.text; return text.startsWith('<think>') && text.endsWith('</think>') ? text : `<think>${text.replace(/^<think>/, '').replace(/<\/think>$/, '')}</think>`; }));
    process.stderr.write(`\rthought ${thinks.length} / ${examples.length}`);
  }
  process.stderr.write('\n');
  await writer.release();
}
// The written line against the true one, part by part (src/agent/line-drill.ts parses both).
const part = stateThinkParts;
const factsRight = (i: number) => part(thinks[i]).facts === part(trueThinks[i]).facts;
const rows: Row[] = examples.map((e, i) => {
  const thought = thinks[i];
  const p = [...tok.encode(e.prompt), ...(thought ? tok.encode(thought) : [])];
  const err = /^(<think>[^]*?<\/think>)?\s*<execution_result>\s*\{"error/.test(e.target);
  const kind = !err ? 'success' : erred.has(e.taskId) ? 'later' : 'first';
  if (err) erred.add(e.taskId);
  return { ids: [...p, ...probe], at: p.length + probe.length - 2, task: taskIndex.get(e.taskId.split('#')[0]) ?? -1, kind, p: NaN, i };
});
const model = new Model(folder.config, rt, folder.params, { seed: SEED });
const B = 4;
const fits = rows.filter((r) => r.ids.length <= T);
for (let i = 0; i < fits.length; i += B) {
  const chunk = fits.slice(i, i + B);
  const ids = chunk.map((r) => r.ids);
  while (ids.length < B) ids.push(ids[0]);
  const lp = (await model.score(makeLmBatch(ids, T, { pad: 0 }))).logprobs;
  chunk.forEach((r, j) => { r.p = Math.exp(lp[j * T + r.at]); });
  if (i % 64 === 0) process.stderr.write(`\rscored ${i + chunk.length} / ${fits.length}`);
}
process.stderr.write('\n');
await model.dispose();

const byTask = Array.from({ length: tasks.length }, () => ({ first: [] as number[], later: [] as number[], success: [] as number[] }));
for (const r of fits) byTask[r.task][r.kind].push(r.p);
const pooled = (kind: 'first' | 'later' | 'success', f: (p: number) => number = (p) => p) => (idx: Int32Array) => {
  let s = 0, n = 0;
  for (const i of idx) for (const p of byTask[i][kind]) { s += f(p); n++; }
  return n ? s / n : NaN;
};
const auc = (kind: 'first' | 'later') => (idx: Int32Array) => {
  const pos = [...idx].flatMap((i) => byTask[i][kind]), neg = [...idx].flatMap((i) => byTask[i].success);
  if (!pos.length || !neg.length) return NaN;
  neg.sort((a, b) => a - b);
  let wins = 0;
  for (const x of pos) { let lo = 0, hi = neg.length; while (lo < hi) { const m = (lo + hi) >> 1; if (neg[m] < x) lo = m + 1; else hi = m; } wins += lo; }
  return wins / (pos.length * neg.length);
};
const est = (stat: (idx: Int32Array) => number) => { const e = bootstrapStatistic(tasks.length, stat, { seed: SEED, resamples: 1000 }); return { mean: +e.mean.toFixed(4), ci95: e.ci95.map((x) => +x.toFixed(4)) }; };
const count = (kind: Row['kind']) => fits.filter((r) => r.kind === kind).length;
const report = {
  model: dir, world,
  protocol: { command: `npx tsx scripts/error-foresight.ts ${dir} ${world} ${nTasks}${think ? ` --think ${think}` : ''}${sampled ? ' --sampled' : ''}${givenLine ? ' --given-line' : ''}${policyDir ? ` --policy ${policyDir}` : ''}`, policy: policyDir ?? dir, think: think ?? null, sampled, given_line: givenLine, tasks: tasks.length, split: 'train', offset: 0, k: K, temperature: 1, seed: SEED, resamples: 1000, interval: '95% bootstrap over tasks' },
  calls: fits.length, over_context: rows.length - fits.length,
  counts: { success: count('success'), first_error: count('first'), later_error: count('later') },
  p_error_on_first_errors: est(pooled('first')),
  p_error_on_later_errors: est(pooled('later')),
  p_error_on_successes: est(pooled('success')),
  first_errors_above_half: fits.filter((r) => r.kind === 'first' && r.p > 0.5).length,
  successes_above_half: fits.filter((r) => r.kind === 'success' && r.p > 0.5).length,
  auc_first_vs_success: est(auc('first')),
  auc_later_vs_success: est(auc('later')),
  ...(sampled ? { written_think: Object.fromEntries((['first', 'later', 'success'] as const).map((kind) => {
    const rs = fits.filter((r) => r.kind === kind);
    const share = (f: (r: Row) => boolean) => +(rs.filter(f).length / Math.max(1, rs.length)).toFixed(4);
    return [kind, { rows: rs.length, exact: share((r) => thinks[r.i] === trueThinks[r.i]), folder: share((r) => part(thinks[r.i]).line === part(trueThinks[r.i]).line), path: share((r) => part(thinks[r.i]).path === part(trueThinks[r.i]).path), entries: +(rs.reduce((a, r) => a + entryOverlap(thinks[r.i], trueThinks[r.i]), 0) / Math.max(1, rs.length)).toFixed(4), facts: share((r) => factsRight(r.i)) }];
  })) } : {}),
};
// A first error whose exact call stands among the prompt's examples (the expert made it, from another state) must
// override the example by the state; one whose call is not there has no example to copy. Reported apart.
const hinted = examples.map(({ prompt }) => {
  const call = prompt.slice(prompt.lastIndexOf('Call to execute:'));
  const name = /\nname: (\S+)/.exec(call)?.[1], args = /\narguments: (\{.*\})/.exec(call)?.[1];
  const shown = prompt.slice(0, Math.max(0, prompt.indexOf('\nConversation:')));
  return Boolean(name && args && shown.includes(`${name} ${args}\n`));
});
const firstByHint = Object.fromEntries(([['hinted', true], ['unhinted', false]] as const).map(([label, want]) => {
  const rs = fits.filter((r) => r.kind === 'first' && hinted[r.i] === want);
  const mean = (xs: number[]) => +(xs.reduce((a, x) => a + x, 0) / Math.max(1, xs.length)).toFixed(4);
  return [label, { rows: rs.length, p_error: mean(rs.map((r) => r.p)), ...(sampled ? { facts: mean(rs.map((r) => Number(factsRight(r.i)))) } : {}) }];
}));
const text = JSON.stringify({ ...report, first_errors_by_hint: firstByHint }, null, 2) + '\n';
if (dump) await writeFile(dump, fits.map((r) => JSON.stringify({ kind: r.kind, task: r.task, p: +r.p.toFixed(4), truth: trueThinks[r.i], written: thinks[r.i], hinted: hinted[r.i], call: examples[r.i].prompt.slice(examples[r.i].prompt.lastIndexOf('Call to execute')).slice(0, 160) })).join('\n') + '\n');
if (out) await writeFile(out, text);
process.stdout.write(text);
