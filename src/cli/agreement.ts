// npm run agreement -- --model DIR --world W [--tasks 32] [--offset 0] [--k 4] [--temperature 1] [--seed S]
//                      [--probes 64] [--json] [--out FILE]
// The simulator gate (src/bench/agreement.ts): the same training tasks and seeds in the real environment and in
// rehearsal mode; rewards, their gap and correlation, advantage-sign agreement under transcript vs real results,
// truncated and unparsable Rehearse outputs, recall of matching hints, error agreement. One JSON object.

import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { profileFromConfig, rolloutSettings } from '../agent/profile';
import { loadModelFolder } from '../engine/modelFolder';
import { createNodeRuntime } from '../engine/runtime-node';
import { samplerFromFolder } from '../engine/sampler';
import { getWorld, worldNames } from '../envs/worlds/index';
import { agreementChecks, AGREEMENT_TARGETS, measureAgreement } from '../bench/agreement';
import { cliArgs, defineCli } from './args';
import { progress } from './util';

export const AGREEMENT_CLI = defineCli({
  name: 'agreement',
  summary: 'Simulator gate: the same training tasks and seeds in the real environment and in rehearsal mode, compared.',
  options: {
    model: { type: 'string', help: 'model folder', required: true },
    world: { type: 'string', help: 'built-in world', choices: worldNames(), default: 'files' },
    tasks: { type: 'int', help: 'training tasks (the first ones of the split, from --offset)', default: 32, min: 1 },
    offset: { type: 'int', help: 'index of the first training task', default: 0, min: 0 },
    k: { type: 'int', help: 'rollouts per task and mode', default: 4, min: 2 },
    temperature: { type: 'number', help: 'sampling temperature of both roles (training uses 1)', default: 1, min: 0 },
    seed: { type: 'int', help: 'sampling seed', default: 0, min: 0 },
    probes: { type: 'int', help: 'recall probes (a hint with the same call shown), greedy; 0 = none', default: 64, min: 0 },
    'per-task': { type: 'boolean', help: 'include the per-task numbers in the JSON' },
    out: { type: 'string', help: 'also write the JSON to this file' },
    json: { type: 'boolean', help: 'print the JSON object only' },
  },
});

async function main() {
  const a = cliArgs(AGREEMENT_CLI);
  const folder = await loadModelFolder(a.model);
  const tasks = getWorld(a.world).tasks({ split: 'train', count: a.tasks, offset: a.offset });
  const policy = await samplerFromFolder(folder, createNodeRuntime({ threads: 1 }), { mode: 'fast' });
  const bars = new Map<string, ReturnType<typeof progress>>();
  const shown = new Map<string, number>();
  const t0 = process.cpuUsage();
  try {
    const r = await measureAgreement(tasks, policy, {
      k: a.k, temperature: a.temperature, seed: a.seed, probes: a.probes,
      rollout: rolloutSettings(profileFromConfig(folder.rawConfig)),
      onProgress: (phase, done, total) => {
        if (a.json) return;
        const bar = bars.get(phase) ?? bars.set(phase, progress(total, phase)).get(phase)!;
        while ((shown.get(phase) ?? 0) < done) { shown.set(phase, (shown.get(phase) ?? 0) + 1); bar.tick(); }
        if (done >= total) bar.done();
      },
    });
    const cpu = process.cpuUsage(t0);
    const { tasks: perTask, ...rest } = r;
    const out = {
      model: a.model, world: a.world, split: 'train', offset: a.offset, ...rest,
      rehearse_budget: profileFromConfig(folder.rawConfig).rehearse.maxNewTokens ?? null,
      cpu_seconds: Math.round((cpu.user + cpu.system) / 1e4) / 100,
      targets: AGREEMENT_TARGETS, meets: agreementChecks(r),
      ...(a['per-task'] ? { per_task: perTask } : {}),
    };
    const text = JSON.stringify(out);
    if (a.out) { await mkdir(dirname(a.out), { recursive: true }); await writeFile(a.out, JSON.stringify(out, null, 1) + '\n'); }
    if (a.json) console.log(text);
    else {
      const f = (e: { mean: number; ci95: [number, number] }) => `${e.mean.toFixed(3)} [${e.ci95[0].toFixed(3)}, ${e.ci95[1].toFixed(3)}]`;
      console.log(`real reward ${f(r.real_reward)}  rehearsal ${f(r.rehearsal_reward)}  gap ${f(r.reward_gap)}  corr ${f(r.task_correlation)}`);
      console.log(`sign agreement ${f(r.sign_agreement)}  rehearsal judged on real results ${f(r.rehearsal_reward_on_real_results)}`);
      console.log(`truncated Rehearse rows ${r.truncated_rehearse_rows}/${r.rehearse_rows}  parse errors ${f(r.parse_error_rate)}  episodes ended by one ${f(r.parse_error_episodes)}`);
      console.log(`recall exact ${f(r.recall_exact)} (${r.recall_probes} probes)  error agreement ${f(r.error_agreement)} recall ${f(r.error_recall)} precision ${f(r.error_precision)} (${JSON.stringify(r.error_calls)})`);
      console.log(`on the real path: error agreement ${f(r.error_agreement_on_path)} recall ${f(r.error_recall_on_path)} (${JSON.stringify(r.error_calls_on_path)}); by class ${JSON.stringify(r.error_classes_on_path)}`);
      console.log(`meets: ${JSON.stringify(out.meets)}  (${r.seconds.toFixed(0)} s, ${out.cpu_seconds} CPU-s)`);
    }
  } finally {
    await policy.release();
  }
}

const isMain = /(^|[\/])agreement.ts$/.test(process.argv[1] ?? '');
if (isMain) main().catch((e) => { console.error(e instanceof Error ? e.message : e); process.exit(1); });
