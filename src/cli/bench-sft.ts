// npm run bench:sft -- --json [--model models/envace-small] [--steps 12] [--batch 16] [--worlds files,retail]
// SFT steps of `npm run sft` on its own data: the same rows per step trained by the packed path
// (what pretrain runs) and by the padded-bucket reference (pretrain before packing), interleaved (which
// goes first alternates), on two copies of the same model. A third path is pretrain's `--draw
// conversations` on the same row pool: every row of whole conversations per step (Act rows of one
// conversation extend each other, so the packed tree computes their prefix once); its trained tokens/s
// against the reference's is `sft_speedup_vs_reference` (same rows, same loss and gradients per step: only
// which rows share a step changes). Prints one JSON object on stdout.

import { rolloutSettings } from '../agent/profile';
import { sftExamples } from '../agent/sft';
import { countParams } from '../engine/decoder';
import { loadModelFolder } from '../engine/modelFolder';
import { Rng } from '../engine/rng';
import { nodeRuntime } from '../engine/runtime-node';
import { Model } from '../engine/trainer-core';
import { modelDims } from '../engine/packing';
import { getWorld } from '../envs/worlds/index';
import { packedSftBatches, pickSftRows, referenceSftBatch, SFT_PROFILE, sftBuckets, sftConversationRows, sftTokenRows, trainedTokens } from '../bench/sft-reference';
import { cliArgs, defineCli } from './args';
import { progress } from './util';

const cli = defineCli({
  name: 'bench:sft',
  summary: 'SFT trained tokens/s: packed rows vs the padded-bucket reference on the same rows (one JSON object on stdout).',
  options: {
    json: { type: 'boolean', help: 'print JSON (the only output format)' },
    model: { type: 'string', help: 'model folder (weights, tokenizer, context size)', default: 'models/envace-small' },
    worlds: { type: 'list', help: 'worlds whose train split gives the rows', default: ['files', 'retail'] },
    tasks: { type: 'int', help: 'train tasks per world', default: 150, min: 1 },
    steps: { type: 'int', help: 'timed steps per path', default: 12, min: 1 },
    batch: { type: 'int', help: 'rows per step (pretrain --batch)', default: 16, min: 1 },
    capacity: { type: 'int', help: 'positions per packed graph row (default: chosen per step by packAuto)', min: 16 },
    seed: { type: 'int', help: 'row sampling seed', default: 0 },
    conversations: { type: 'int', help: 'conversations per step of the conversation-drawn path (default: as many as give --batch rows on average)', min: 1 },
  },
});

function relDiff(a: Record<string, Float32Array>, b: Record<string, Float32Array>): number {
  let worst = 0;
  for (const k of Object.keys(b)) {
    let d = 0, m = 0;
    for (let i = 0; i < b[k].length; i++) { d = Math.max(d, Math.abs(a[k][i] - b[k][i])); m = Math.max(m, Math.abs(b[k][i])); }
    worst = Math.max(worst, m === 0 ? d : d / m);
  }
  return worst;
}

async function main() {
  const a = cliArgs(cli);
  const folder = await loadModelFolder(a.model);
  const cfg = folder.config, maxContext = cfg.max_position_embeddings;
  const tasks = a.worlds.flatMap((w) => getWorld(w).tasks({ split: 'train', count: a.tasks }));
  const { examples } = await sftExamples(tasks, { rollout: rolloutSettings(SFT_PROFILE), maxContext, countTokens: (s) => folder.tokenizer.encode(s).length });
  const rows = sftTokenRows(examples, folder.tokenizer, maxContext);
  const conversations = sftConversationRows(examples, folder.tokenizer, maxContext);
  const perStep = a.conversations ?? Math.max(1, Math.round(a.batch / (rows.length / conversations.length)));
  const buckets = sftBuckets(maxContext), capacity = a.capacity, dims = modelDims(cfg);
  const rt = nodeRuntime();
  const packedModel = new Model(cfg, rt, Object.fromEntries(Object.entries(folder.params).map(([k, v]) => [k, v.slice()])), { seed: 0, adam: { weightDecay: 0.01, maxGradNorm: 1 } });
  const convModel = new Model(cfg, rt, Object.fromEntries(Object.entries(folder.params).map(([k, v]) => [k, v.slice()])), { seed: 0, adam: { weightDecay: 0.01, maxGradNorm: 1 } });
  const refModel = new Model(cfg, rt, Object.fromEntries(Object.entries(folder.params).map(([k, v]) => [k, v.slice()])), { seed: 0, adam: { weightDecay: 0.01, maxGradNorm: 1 } });

  // Gradient agreement on a few batches at the starting weights (graph builds also happen here, untimed).
  const check = new Rng(a.seed + 1000);
  let gradDiff = 0, lossDiff = 0;
  for (let i = 0; i < 4; i++) {
    // The last check is a conversation-drawn step (rows of mixed lengths, prefixes shared across turns).
    const pick = i < 3 ? pickSftRows(rows, check, a.batch, buckets) : Array.from({ length: perStep }, () => conversations[check.int(conversations.length)]).flat();
    const ref = await refModel.computeGrads(referenceSftBatch(pick, buckets));
    const acc: Record<string, Float32Array> = Object.create(null);
    let loss = 0;
    for (const b of packedSftBatches(pick, dims, capacity)) {
      const r = await packedModel.computeGrads(b);
      loss += r.loss;
      for (const [k, g] of Object.entries(r.grads)) { const x = (acc[k] ??= new Float32Array(g.length)); for (let j = 0; j < g.length; j++) x[j] += g[j]; }
    }
    gradDiff = Math.max(gradDiff, relDiff(acc, ref.grads));
    lossDiff = Math.max(lossDiff, Math.abs(loss - ref.loss) / Math.abs(ref.loss));
  }

  // Every step's rows up front, so that each graph shape either path needs is built before the timing.
  const rng = new Rng(a.seed);
  const picks = Array.from({ length: a.steps }, () => pickSftRows(rows, rng, a.batch, buckets));
  const convPicks = Array.from({ length: a.steps }, () => Array.from({ length: perStep }, () => conversations[rng.int(conversations.length)]).flat());
  const warmed = new Set<string>();
  for (const pick of convPicks) {
    for (const b of packedSftBatches(pick, dims, capacity)) {
      if (!warmed.has(`c${b.batch}x${b.seq}`)) { warmed.add(`c${b.batch}x${b.seq}`); await convModel.computeGrads(b); }
    }
  }
  for (const pick of picks) {
    const rb = referenceSftBatch(pick, buckets);
    if (!warmed.has(`r${rb.batch}x${rb.seq}`)) { warmed.add(`r${rb.batch}x${rb.seq}`); await refModel.computeGrads(rb); }
    for (const b of packedSftBatches(pick, dims, capacity)) {
      if (!warmed.has(`p${b.batch}x${b.seq}`)) { warmed.add(`p${b.batch}x${b.seq}`); await packedModel.computeGrads(b); }
    }
  }
  let refMs = 0, newMs = 0, trained = 0, refPositions = 0, newPositions = 0;
  let refLoss = 0, newLoss = 0, convMs = 0, convTrained = 0, convPositions = 0;
  const bar = progress(a.steps, 'bench:sft');
  for (let s = 0; s < a.steps; s++) {
    const pick = picks[s];
    trained += trainedTokens(pick);
    const lr = 1e-4;
    const runRef = async () => {
      const t0 = performance.now();
      const batch = referenceSftBatch(pick, buckets);
      const r = await refModel.trainStep(batch, { lr });
      refMs += performance.now() - t0; refPositions += batch.batch * batch.seq; refLoss = r.loss;
    };
    const runNew = async () => {
      const t0 = performance.now();
      const batches = packedSftBatches(pick, dims, capacity);
      const r = await packedModel.trainStepPacked(batches, { lr });
      newMs += performance.now() - t0; newPositions += r.positions; newLoss = r.loss;
    };
    const runConv = async () => {
      const t0 = performance.now();
      const batches = packedSftBatches(convPicks[s], dims, capacity);
      const r = await convModel.trainStepPacked(batches, { lr });
      convMs += performance.now() - t0; convPositions += r.positions; convTrained += trainedTokens(convPicks[s]);
    };
    if (s % 2 === 0) { await runNew(); await runRef(); await runConv(); } else { await runConv(); await runRef(); await runNew(); }
    bar.tick(`ref ${(refMs / (s + 1)).toFixed(0)} ms packed ${(newMs / (s + 1)).toFixed(0)} ms`);
  }
  bar.done();
  const r3 = (x: number) => Math.round(x * 1000) / 1000;
  console.log(JSON.stringify({
    model: a.model, params: countParams(cfg), rows: rows.length, worlds: a.worlds, steps: a.steps, batch: a.batch, capacity: capacity ?? 'auto', seed: a.seed,
    sft_speedup_vs_reference: Math.round((convTrained / convMs) / (trained / refMs) * 100) / 100,
    packed_rows_speedup_vs_reference: Math.round((refMs / newMs) * 100) / 100,
    conversations_per_step: perStep,
    trained_tokens_per_s_conversations: Math.round(convTrained / (convMs / 1000)),
    trained_tokens_per_step_conversations: convTrained / a.steps, processed_tokens_per_step_conversations: convPositions / a.steps,
    trained_tokens_per_s: Math.round(trained / (newMs / 1000)),
    trained_tokens_per_s_reference: Math.round(trained / (refMs / 1000)),
    seconds_per_step: r3(newMs / a.steps / 1000), seconds_per_step_reference: r3(refMs / a.steps / 1000),
    trained_tokens_per_step: trained / a.steps,
    processed_tokens_per_step: newPositions / a.steps, processed_tokens_per_step_reference: refPositions / a.steps,
    grad_max_rel_diff: Number(gradDiff.toExponential(2)), loss_max_rel_diff: Number(lossDiff.toExponential(2)),
    last_loss: r3(newLoss), last_loss_reference: r3(refLoss),
  }, null, 2));
}

main().catch((e) => { console.error(e); process.exit(1); });
