// tsx scripts/greedy-vs-sampled.ts MODEL WORLD [TASKS] [K] [TEMPERATURE] [SEED]
// Which training groups can move *greedy* success? For each train task: greedy success (one rollout at T 0) and
// the share of K rollouts at the training temperature that succeed. A group is informative when its K successes
// differ; among those, the ones whose greedy rollout already succeeds only teach the policy to make fewer sampling
// slips (greedy cannot gain there), and the ones whose greedy rollout fails are where a sharper policy could
// change the greedy outcome. Prints one JSON object.
import { profileFromConfig, rolloutSettings } from '../src/agent/profile';
import { rolloutGroups } from '../src/agent/rollout';
import { succeeded } from '../src/agent/evaluate';
import { loadModelFolder } from '../src/engine/modelFolder';
import { createNodeRuntime } from '../src/engine/runtime-node';
import { samplerFromFolder } from '../src/engine/sampler';
import { getWorld } from '../src/envs/worlds/index';

const [model, world, nTasks = '48', kStr = '8', tStr = '1', seedStr = '1'] = process.argv.slice(2);
const folder = await loadModelFolder(model!);
const tasks = getWorld(world!).tasks({ split: 'train', count: Number(nTasks), offset: 1000 });
const policy = await samplerFromFolder(folder, createNodeRuntime({ threads: 1 }), { mode: 'fast' });
const base = rolloutSettings(profileFromConfig(folder.rawConfig));
const k = Number(kStr), temperature = Number(tStr), seed = Number(seedStr);
const greedy = await rolloutGroups(tasks, 1, { ...base, mode: 'real', seed, act: { ...base.act, temperature: 0 }, policy });
const sampled = await rolloutGroups(tasks, k, { ...base, mode: 'real', seed, act: { ...base.act, temperature }, policy });
await policy.release();
const counts = { informativeGreedyPasses: 0, informativeGreedyFails: 0, allPassGreedyPasses: 0, allPassGreedyFails: 0, noneGreedyPasses: 0, noneGreedyFails: 0 };
tasks.forEach((task, i) => {
  const g = succeeded(greedy[i]!) === 1;
  const s = sampled.filter((t) => t.groupId === task.id).map(succeeded).reduce((a: number, b) => a + b, 0);
  const kind = s === k ? 'allPass' : s === 0 ? 'none' : 'informative';
  counts[`${kind}Greedy${g ? 'Passes' : 'Fails'}` as keyof typeof counts]++;
});
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
console.log(JSON.stringify({ model, world, tasks: tasks.length, k, temperature, greedySuccess: mean(greedy.map(succeeded)), sampledSuccess: mean(sampled.map(succeeded)), ...counts }));
