// tsx scripts/baseline-bias.ts MODEL WORLD [TASKS] [K] [SEED]
// How the role-wise (row-weighted) baseline treats what every rollout of a task shares. For each group of K real
// rollouts at T 1: the row-weighted baseline (mean over Act rows, as 'task-role' computes it) against the
// trajectory mean, the net advantage on the first Act row (Σ over trajectories; identical text in most groups), and
// whether failed trajectories are shorter (fewer Act rows) than successful ones.
import { profileFromConfig, rolloutSettings } from '../src/agent/profile';
import { rolloutGroups } from '../src/agent/rollout';
import { succeeded } from '../src/agent/evaluate';
import { loadModelFolder } from '../src/engine/modelFolder';
import { createNodeRuntime } from '../src/engine/runtime-node';
import { samplerFromFolder } from '../src/engine/sampler';
import { getWorld } from '../src/envs/worlds/index';
import { computeAdvantages, type AdvRow } from '../src/rl/advantages';

const [model, world, nTasks = '16', kStr = '8', seedStr = '1'] = process.argv.slice(2);
const folder = await loadModelFolder(model!);
const tasks = getWorld(world!).tasks({ split: 'train', count: Number(nTasks), offset: 1000 });
const policy = await samplerFromFolder(folder, createNodeRuntime({ threads: 1 }), { mode: 'fast' });
const base = rolloutSettings(profileFromConfig(folder.rawConfig));
const k = Number(kStr);
const trajs = await rolloutGroups(tasks, k, { ...base, mode: 'real', seed: Number(seedStr), act: { ...base.act, temperature: 1 }, policy });
await policy.release();
const reward = (t: (typeof trajs)[number]) => (t.verdict?.outcome?.passed ? 1 : 0);
let informative = 0, firstNeg = 0, firstPos = 0, sameFirst = 0, failShorter = 0, failLonger = 0;
const gaps: number[] = [];
for (const task of tasks) {
  const g = trajs.filter((t) => t.groupId === task.id);
  const r = g.map(reward);
  if (r.every((x) => x === r[0])) continue;
  informative++;
  const rows: AdvRow[] = [];
  g.forEach((t, i) => { for (const row of t.rows) if (row.role === 'act') rows.push({ groupId: t.groupId, trajectoryId: String(i), role: 'act', reward: r[i]! }); });
  const { advantages, groups } = computeAdvantages(rows, { grouping: 'task-role', stdNorm: 'none' });
  const trajMean = r.reduce((a, b) => a + b, 0) / r.length;
  gaps.push(groups[0]!.mean - trajMean);
  // net advantage on each trajectory's first Act row
  let idx = 0, net = 0;
  const firsts = new Set<string>();
  g.forEach((t) => { const n = t.rows.filter((x) => x.role === 'act').length; net += advantages[idx]!; firsts.add(t.rows.find((x) => x.role === 'act')!.text); idx += n; });
  if (firsts.size === 1) sameFirst++;
  if (net < -1e-9) firstNeg++; else if (net > 1e-9) firstPos++;
  const len = (ok: number) => g.filter((_, i) => r[i] === ok).map((t) => t.rows.filter((x) => x.role === 'act').length);
  const m = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  if (m(len(0)) < m(len(1))) failShorter++; else if (m(len(0)) > m(len(1))) failLonger++;
}
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
console.log(JSON.stringify({ model, world, tasks: tasks.length, k, success: mean(trajs.map(succeeded)), informative, baselineMinusTrajMean: mean(gaps), firstRowNetNegative: firstNeg, firstRowNetPositive: firstPos, firstRowIdenticalInGroup: sameFirst, failuresShorter: failShorter, failuresLonger: failLonger }));
