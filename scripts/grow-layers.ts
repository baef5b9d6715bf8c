// tsx scripts/grow-layers.ts FROM_DIR TO_DIR [--every 1]
// Deepens a model folder without changing what it computes (src/engine/grow.ts: zero-output copies of its layers).
// Why: the retail starter has 2 layers where the files starter has 4, and its failures are ids copied wrong from
// long results; growing it tests whether depth helps without paying again for the 50 CPU-minutes it took to train.
// The new folder keeps the tokenizer and provenance (envace.grownFrom) and gets a fresh ONNX export.

import { loadModelFolder, writeModelFolder } from '../src/engine/modelFolder';
import { growLayers } from '../src/engine/grow';

const argv = process.argv.slice(2);
const everyFlag = argv.indexOf('--every');
const every = everyFlag >= 0 ? Number(argv[everyFlag + 1]) : 1;
const [from, to] = everyFlag < 0 ? argv : argv.filter((_, i) => i !== everyFlag && i !== everyFlag + 1);
if (!from || !to) { console.error('usage: tsx scripts/grow-layers.ts FROM_DIR TO_DIR [--every 1]'); process.exit(2); }
const f = await loadModelFolder(from);
const g = growLayers(f.config, f.params, every);
const meta = { ...(f.rawConfig.envace ?? {}), grownFrom: from, grownLayers: `${f.config.num_hidden_layers} → ${g.config.num_hidden_layers} (zero-output copies after every ${every})` };
await writeModelFolder(to, {
  config: g.config, params: g.params, tokenizer: f.tokenizerJson, meta,
  generation: f.generationConfig, chatTemplate: f.tokenizerConfig.chat_template,
});
console.log(`${from} (${f.config.num_hidden_layers} layers) → ${to} (${g.config.num_hidden_layers} layers)`);
