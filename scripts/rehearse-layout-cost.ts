// npx tsx scripts/rehearse-layout-cost.ts MODEL_DIR [WORLD]
// Packed tokens per SFT step: the reference's separate Rehearse prompt vs a continuation of the Act context
// (Act prompt + a_t + the hints + the call, so the Rehearse row shares the Act row's whole prefix). Measured on the
// expert conversations of 64 files train tasks, 8 conversations per step, with a model folder's tokenizer.
import { loadModelFolder } from '../src/engine/modelFolder';
import { BPETokenizer } from '../src/engine/tokenizer';
import { sftExamples } from '../src/agent/sft';
import { profileFromConfig, rolloutSettings } from '../src/agent/profile';
import { getWorld } from '../src/envs/worlds/index';
import { packedSftBatches, sftConversationRows, type SftRow } from '../src/bench/sft-reference';
import { modelDims } from '../src/engine/packing';
import { hintsBlock, selectHints, referenceHints } from '../src/agent/prompts';
const f = await loadModelFolder(process.argv[2]);
const tok = new BPETokenizer(f.tokenizerJson);
const prof = profileFromConfig(f.rawConfig);
const dims = modelDims(f.config);
const tasks = getWorld(process.argv[3] ?? 'files').tasks({ split: 'train', count: 64, offset: 5000 });
const { examples } = await sftExamples(tasks, { rollout: rolloutSettings(prof), maxContext: 1024, countTokens: (s) => tok.encode(s).length });
const convs = sftConversationRows(examples, tok, 1024);
// Continuation: each Rehearse row = the preceding Act row's ids (prompt + output) + hints + call + target.
const contConvs: SftRow[][] = convs.map((rows, ci) => {
  const hints = referenceHints(tasks[ci]?.reference ?? []);
  const out: SftRow[] = [];
  let lastAct: SftRow | null = null;
  for (const r of rows) {
    if (r.role === 'act') { out.push(r); lastAct = r; continue; }
    if (!lastAct) { out.push(r); continue; }
    const target = r.ids.slice(r.weights.findIndex((w) => w > 0));
    const extra = tok.encode(`\n${hintsBlock(hints)}\nCall to execute\n`);
    out.push({ role: 'rehearse', ids: [...lastAct.ids, ...extra, ...target], weights: [...lastAct.ids.map(() => 0), ...extra.map(() => 0), ...target.map(() => 1)] });
  }
  return out;
});
const cost = (cs: SftRow[][]) => { let processed = 0; for (let i = 0; i + 8 <= cs.length; i += 8) processed += packedSftBatches(cs.slice(i, i + 8).flat(), dims).reduce((a, b) => a + b.batch * b.seq, 0); return processed; };
const sep = cost(convs), cont = cost(contConvs);
console.log(JSON.stringify({ model: process.argv[2], world: process.argv[3] ?? 'files', conversations: convs.length, processedTokensSeparate: sep, processedTokensContinuation: cont, ratio: Number((cont / sep).toFixed(3)) }));
