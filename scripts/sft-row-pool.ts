// npx tsx scripts/sft-row-pool.ts [--worlds files,retail] [--steps 8] [--conversations 6]
// bench:sft's row pool and its draws without any timing, as JSON: per world, the rows by role (count, mean
// length, mean trained tokens, a hash of every row) and, for the bench's seed-0 draws, trained tokens per
// processed position of each path. bench:sft's speed-up is a ratio of trained tokens/s over two different
// draws, so it moves when the rows change even if no graph got slower; this tells the two apart. It uses only
// what bench:sft used at e719a35 (where the 2.08× was measured), so it runs in a worktree of that commit too.

import { createHash } from 'node:crypto';
import { parseArgs } from 'node:util';
import { rolloutSettings } from '../src/agent/profile';
import { sftExamples, type SftExample } from '../src/agent/sft';
import { loadModelFolder } from '../src/engine/modelFolder';
import { modelDims } from '../src/engine/packing';
import { Rng } from '../src/engine/rng';
import { getWorld } from '../src/envs/worlds/index';
import { packedSftBatches, pickSftRows, referenceSftBatch, SFT_PROFILE, sftBuckets, sftTokenRows, trainedTokens, type SftRow } from '../src/bench/sft-reference';

const { values: a } = parseArgs({ options: {
  worlds: { type: 'string', default: 'files,retail' }, steps: { type: 'string', default: '12' },
  conversations: { type: 'string' }, batch: { type: 'string', default: '16' },
} });

async function main() {
  const folder = await loadModelFolder('models/envace-small');
  const cfg = folder.config, maxContext = cfg.max_position_embeddings, tok = folder.tokenizer;
  const r4 = (x: number) => Math.round(x * 10000) / 10000;
  const pool = async (worlds: string[]) => {
    const tasks = worlds.flatMap((w) => getWorld(w).tasks({ split: 'train', count: 150 }));
    const { examples } = await sftExamples(tasks, { rollout: rolloutSettings(SFT_PROFILE), maxContext, countTokens: (s) => tok.encode(s).length });
    const byTask = new Map<string, SftExample[]>();
    for (const e of examples) (byTask.get(e.taskId) ?? byTask.set(e.taskId, []).get(e.taskId)!).push(e);
    const conversations = [...byTask.values()].map((ex) => sftTokenRows(ex, tok, maxContext)).filter((c) => c.length > 0);
    return { examples, rows: sftTokenRows(examples, tok, maxContext), conversations };
  };
  const describe = (examples: SftExample[], rows: SftRow[]) => {
    const byRole: Record<string, { examples: number; rows: number; meanLength: number; meanTrained: number }> = Object.create(null);
    for (const e of examples) (byRole[e.role] ??= { examples: 0, rows: 0, meanLength: 0, meanTrained: 0 }).examples++;
    for (const r of rows) { const s = byRole[r.role]; s.rows++; s.meanLength += r.ids.length; s.meanTrained += r.weights.filter((w) => w > 0).length; }
    for (const s of Object.values(byRole)) { s.meanLength = Math.round(s.meanLength / s.rows); s.meanTrained = Math.round(s.meanTrained / s.rows); }
    const h = createHash('sha1');
    for (const r of rows) h.update(`${r.role}|${r.ids.join(',')}|${r.weights.join('')}\n`);
    return { examples: examples.length, rows: rows.length, byRole, rowsHash: h.digest('hex').slice(0, 12) };
  };

  const worlds = a.worlds.split(',');
  const perWorld = Object.fromEntries(await Promise.all(worlds.map(async (w) => { const p = await pool([w]); return [w, describe(p.examples, p.rows)]; })));
  // bench:sft's draws, in its order: seed 0, the row-bucket picks of every step, then the conversation picks.
  const { examples, rows, conversations } = await pool(worlds);
  const steps = Number(a.steps), batch = Number(a.batch);
  const perStep = a.conversations ? Number(a.conversations) : Math.max(1, Math.round(batch / (rows.length / conversations.length)));
  const buckets = sftBuckets(maxContext), dims = modelDims(cfg), rng = new Rng(0);
  const picks = Array.from({ length: steps }, () => pickSftRows(rows, rng, batch, buckets));
  const convPicks = Array.from({ length: steps }, () => Array.from({ length: perStep }, () => conversations[rng.int(conversations.length)]).flat());
  const positions = (pick: SftRow[]) => packedSftBatches(pick, dims).reduce((s, b) => s + b.batch * b.seq, 0);
  let refTrained = 0, refPositions = 0, packedPositions = 0, convTrained = 0, convPositions = 0;
  for (const p of picks) { const rb = referenceSftBatch(p, buckets); refTrained += trainedTokens(p); refPositions += rb.batch * rb.seq; packedPositions += positions(p); }
  for (const p of convPicks) { convTrained += trainedTokens(p); convPositions += positions(p); }
  console.log(JSON.stringify({
    worlds: perWorld, all: describe(examples, rows), conversations: conversations.length, steps, conversations_per_step: perStep,
    trained_per_position_reference: r4(refTrained / refPositions), trained_per_position_packed_rows: r4(refTrained / packedPositions),
    trained_per_position_conversations: r4(convTrained / convPositions),
    trained_tokens_per_step: refTrained / steps, trained_tokens_per_step_conversations: convTrained / steps,
    // What sft_speedup_vs_reference would be if a processed position cost the same on both paths.
    density_ratio_conversations_vs_reference: r4((convTrained / convPositions) / (refTrained / refPositions)),
  }, null, 1));
}

main().catch((e) => { console.error(e); process.exit(1); });
