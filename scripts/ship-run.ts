// tsx scripts/ship-run.ts RUN_DIR models/NAME COMPARE_JSON [COMPARE_JSON ...] [--cpu-minutes=N]
// Ships a training run's model as a folder of models/: the run's model/ files, and an eval.json holding the recipe
// (the run's resolved config), its CPU-minutes and the paired comparisons against its starting model (the JSON
// objects `npm run compare -- --out` wrote). The Models page shows the first comparison's B side as the folder's
// held-out evaluation.

import { cp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

// --cpu-minutes=N: for runs from before `npm run train` recorded them (measured outside, e.g. ps cputime).
const argv = process.argv.slice(2);
const cpuFlag = argv.find((a) => a.startsWith('--cpu-minutes='));
const [run, dest, ...compares] = argv.filter((a) => a !== cpuFlag);
if (!run || !dest || compares.length === 0) { console.error('usage: tsx scripts/ship-run.ts RUN_DIR models/NAME COMPARE_JSON...'); process.exit(2); }
const config = JSON.parse(await readFile(join(run, 'config.json'), 'utf8'));
const modelCfg = JSON.parse(await readFile(join(run, 'model', 'config.json'), 'utf8'));
const rl = { ...modelCfg.envace?.rl, ...(cpuFlag ? { cpuMinutes: Number(cpuFlag.split('=')[1]) } : {}) };
const screenFile = await readFile(join(run, 'screen.json'), 'utf8').then((t) => JSON.parse(t), () => null);
const screen = screenFile && { candidates: screenFile.candidates, k: screenFile.k, temperature: screenFile.temperature, kept: screenFile.keptSeeds.length, seconds: screenFile.seconds };
const comparisons = await Promise.all(compares.map(async (f) => ({ file: f, ...JSON.parse(await readFile(f, 'utf8')) })));
const first = comparisons[0];
const est = (side: 'b') => ({
  mode: 'real', tasks: first.n_tasks, k: first.protocol.k,
  success: first[side].success.mean, outcome: first[side].outcome.mean, checklist: first[side].checklist.mean, passAtK: first[side].success.mean,
});
await cp(join(run, 'model'), dest, { recursive: true });
await writeFile(join(dest, 'eval.json'), JSON.stringify({
  heldOutTasks: first.n_tasks,
  note: `${rl.variant ?? config.resolved?.variant} from ${rl.from ?? config.model}, seed ${rl.seed ?? config.resolved?.seed}, ${rl.steps ?? config.resolved?.steps} steps, ${rl.cpuMinutes ?? 'unrecorded'} CPU-min; held-out: ${first.protocol.name} on test tasks ${first.protocol.offset}–${first.protocol.offset + first.n_tasks - 1} (see comparisons)`,
  evals: { [first.protocol.world]: { real: est('b') } },
  recipe: config.resolved ?? config, screen, cpuMinutes: rl.cpuMinutes ?? null,
  comparisons: comparisons.map(({ file, protocol, a, b, diff, wins, losses, ties }) => ({ file, protocol, a, b, diff, wins, losses, ties })),
}, null, 1) + '\n');
console.log(`shipped ${run} as ${dest}`);
