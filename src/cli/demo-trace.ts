// npx tsx src/cli/demo-trace.ts [--model models/files-starter] [--world files] [--scan 20] [--out src/app/demo]
//
// Writes the trace the Rollout page opens on (drawn before the worker is ready): the page's default request
// (src/shared/demoRequest.ts) with the best shipped policy, on the first test task of the world where a
// policy does well (mean reward of its K samples ≥ 0.6), rehearsal mostly agrees with reality (more exact imagined
// results than differing ones), one rehearsed result
// differs from the real one AND the checklist judge ticked an item on an imagined result that the real result
// would have failed (else: the first such task without the imagined tick). Same
// config builder as the worker (src/worker/rollout-config.ts), so the page's Run recomputes this trace.
//
// Output: <out>/demo-trace.jsonl (one trajectory per line, src/agent/TRACES.md; prompts and prompt ids
// dropped to keep the bundle small) and <out>/demo-meta.json (request, model, task info for the checklist
// questions, and why this task was chosen).

import { mkdirSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { rolloutGroups } from '../agent/rollout';
import { exportTraces } from '../agent/traces';
import type { Trajectory } from '../agent/types';
import { loadModelFolder } from '../engine/modelFolder';
import { createNodeRuntime } from '../engine/runtime-node';
import { samplerFromFolder } from '../engine/sampler';
import { getWorld } from '../envs/worlds';
import { DEMO_MODEL, DEMO_REQUEST } from '../shared/demoRequest';
import type { RolloutRequest, ShownTrajectory } from '../worker/protocol';
import { buildRolloutConfig, realVerdictOf } from '../worker/rollout-config';
import { taskInfo, tokenStrings } from '../worker/engine-bridge';
import { cliArgs, defineCli } from './args';
import { progress } from './util';

const def = defineCli({
  name: 'demo-trace',
  summary: "write the Rollout page's shipped demo trace (the page's default request, run in Node)",
  options: {
    model: { type: 'string', help: 'model folder', default: `models/${DEMO_MODEL}` },
    world: { type: 'string', help: 'world', choices: ['files', 'retail'], default: 'files' },
    scan: { type: 'int', help: 'test tasks to try, in split order', default: 20, min: 1, max: 200 },
    task: { type: 'string', help: 'use this task id (no scan)' },
    out: { type: 'string', help: 'output folder', default: 'src/app/demo' },
  },
});

/** Items ticked on imagined results that the real results fail, and rehearse rows whose result differs. */
export function demoScore(ts: ShownTrajectory[]): { differingRows: number; agreeingRows: number; imaginedTicks: number } {
  let differingRows = 0, agreeingRows = 0, imaginedTicks = 0;
  for (const t of ts) {
    differingRows += t.rows.filter((r) => r.role === 'rehearse' && r.fidelity && !r.fidelity.exact).length;
    agreeingRows += t.rows.filter((r) => r.role === 'rehearse' && r.fidelity?.exact).length;
    for (const turn of t.verdict?.turns ?? []) {
      const real = t.realVerdict?.turns.find((x) => x.turn === turn.turn);
      for (const it of turn.items) if (it.passed && real && !real.items.find((x) => x.id === it.id)?.passed) imaginedTicks++;
    }
  }
  return { differingRows, agreeingRows, imaginedTicks };
}

async function main(): Promise<void> {
  const a = cliArgs(def);
  const folder = await loadModelFolder(resolve(a.model));
  const sampler = await samplerFromFolder(folder, createNodeRuntime({ threads: 1 }), { mode: 'fast' });
  const world = getWorld(a.world);
  const candidates = a.task ? [a.task] : world.tasks({ split: 'test', count: a.scan }).map((t) => t.id);
  const bar = progress(candidates.length, 'demo-trace');
  type Pick = { id: string; ts: ShownTrajectory[]; score: ReturnType<typeof demoScore> };
  let chosen: Pick | null = null;
  let fallback: Pick | null = null;
  try {
    for (const id of candidates) {
      const req: RolloutRequest = { ...DEMO_REQUEST, world: a.world, taskId: id };
      const task = world.tasks({ split: 'test', count: a.scan }).find((t) => t.id === id) ?? (await import('../envs/worlds')).taskById(id);
      const { cfg } = buildRolloutConfig(folder.rawConfig, req, sampler);
      const ts = (await rolloutGroups([task], req.k, cfg)) as ShownTrajectory[];
      for (const t of ts) {
        for (const r of t.rows) { r.outputTokens = tokenStrings(sampler.tokenizer, r.outputIds); r.promptIds = []; delete r.prompt; }
        const rv = realVerdictOf(task, t);
        if (rv) t.realVerdict = rv;
      }
      const score = demoScore(ts);
      bar.tick(`${id}: ${score.differingRows} differing results, ${score.imaginedTicks} imagined ticks`);
      // Rehearsal that mostly agrees with reality (more exact imagined results than differing ones) and at
      // least one instructive disagreement: a differing result, ideally one the judge ticked on imagination.
      // A competent policy on show: the K samples' mean reward at least 0.6.
      const meanReward = ts.reduce((a, t) => a + (t.reward ?? 0), 0) / Math.max(1, ts.length);
      const mostly = score.agreeingRows > score.differingRows && meanReward >= 0.6;
      if (score.differingRows > 0 && mostly && !fallback) fallback = { id, ts, score };
      if (score.differingRows > 0 && mostly && score.imaginedTicks > 0) { chosen = { id, ts, score }; break; }
    }
  } finally {
    bar.done();
    await sampler.release();
  }
  const pick: Pick | null = chosen ?? fallback;
  if (!pick) throw new Error(`no task among ${candidates.length} has mean reward ≥ 0.6, rehearsal that mostly agrees with the real results and one result that differs`);
  mkdirSync(a.out, { recursive: true });
  writeFileSync(join(a.out, 'demo-trace.jsonl'), exportTraces(pick.ts as Trajectory[], { prompts: false }));
  const meta = {
    request: { ...DEMO_REQUEST, world: a.world, taskId: pick.id },
    model: basename(resolve(a.model)),
    task: taskInfo(a.world, pick.id),
    why: chosen ? 'first test task with mean reward ≥ 0.6 where most rehearsed results equal the real ones, one differs, and a checklist tick rests on an imagined result'
      : 'first test task with mean reward ≥ 0.6 where most rehearsed results equal the real ones and at least one differs',
    ...pick.score,
    command: `npx tsx src/cli/demo-trace.ts --model ${a.model} --world ${a.world} --scan ${a.scan}${a.task ? ` --task ${a.task}` : ''} --out ${a.out}`,
  };
  writeFileSync(join(a.out, 'demo-meta.json'), `${JSON.stringify(meta, null, 1)}\n`);
  console.log(JSON.stringify({ task: pick.id, ...pick.score, trajectories: pick.ts.map((t) => ({ terminatedBy: t.terminatedBy, reward: t.reward, rows: t.rows.length })) }));
}

// Imported by tests for demoScore: run only as the entry point.
if (/(^|[/])demo-trace\.ts$/.test(process.argv[1] ?? '')) main().catch((e) => { console.error(e instanceof Error ? e.message : e); process.exit(1); });
