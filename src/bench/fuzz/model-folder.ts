// Fuzz surface of model folders: a small valid folder, then per case one or more damages — a file
// missing, truncated or with flipped bytes, config/tokenizer JSON with fields dropped or retyped, a
// tokenizer whose ids do not fit the config's vocabulary, weights with wrong shapes or dtypes. The
// documented error is ModelFolderError (with its code); anything else escaping loadModelFolder is a crash.

import { initParams, makeConfig } from '../../engine/decoder';
import { loadModelFolder, memoryFileSource, modelFolderFiles, ModelFolderError } from '../../engine/modelFolder';
import { trainBPE } from '../../engine/tokenizer';
import { syntheticCorpus } from '../../engine/corpus';
import { FuzzRng, mutateValue, randomValue } from './gen';
import { FuzzViolation, type Surface } from './harness';

type Files = Record<string, Uint8Array>;
const enc = new TextEncoder();
const dec = new TextDecoder();
const FILES = ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'model.safetensors', 'generation_config.json'];

let base: Files | null = null;
function baseFolder(): Files {
  if (base) return base;
  const tokenizer = trainBPE(syntheticCorpus(20_000, 4), { vocabSize: 300 });
  const config = makeConfig('tiny', { vocab_size: 300, hidden_size: 16, num_attention_heads: 2, num_key_value_heads: 2, intermediate_size: 32, num_hidden_layers: 1, max_position_embeddings: 32 });
  base = modelFolderFiles({ config, params: initParams(config, 1), tokenizer, withOnnx: false });
  return base;
}

function splitSafetensors(b: Uint8Array): { header: Record<string, unknown>; data: Uint8Array } {
  const n = Number(new DataView(b.buffer, b.byteOffset, b.byteLength).getBigUint64(0, true));
  return { header: JSON.parse(dec.decode(b.subarray(8, 8 + n))), data: b.subarray(8 + n) };
}

function joinSafetensors(header: unknown, data: Uint8Array): Uint8Array {
  const h = enc.encode(JSON.stringify(header));
  const out = new Uint8Array(8 + h.length + data.length);
  new DataView(out.buffer).setBigUint64(0, BigInt(h.length), true);
  out.set(h, 8); out.set(data, 8 + h.length);
  return out;
}

/** The parsed JSON file, or undefined when an earlier damage already broke it. */
function jsonOf(f: Files, name: string): any {
  try { return f[name] ? JSON.parse(dec.decode(f[name])) : undefined; } catch { return undefined; }
}

function damage(r: FuzzRng, f: Files): string {
  const name = r.pick(FILES);
  switch (r.int(9)) {
    case 0: delete f[name]; return `${name} missing`;
    case 1: if (f[name]) f[name] = f[name].slice(0, r.int(f[name].length)); return `${name} truncated`;
    case 2: {
      if (!f[name]) return 'none';
      const b = f[name].slice();
      for (let i = r.range(1, 8); i > 0; i--) b[r.int(b.length)] = r.int(256);
      f[name] = b; return `${name} bytes flipped`;
    }
    case 3: case 4: { // a JSON file with a field dropped, retyped or added
      const j = r.pick(['config.json', 'tokenizer.json', 'tokenizer_config.json', 'generation_config.json']);
      const v = jsonOf(f, j);
      if (v === undefined) return 'none';
      f[j] = enc.encode(JSON.stringify(mutateValue(r, v)) ?? 'null');
      return `${j} field changed`;
    }
    case 5: { // tokenizer / config vocabulary disagreement
      const c = jsonOf(f, 'config.json');
      if (typeof c !== 'object' || c === null) return 'none';
      c.vocab_size = r.pick([1, 100, 299, 301, 0, -5, 1e6, 2.5]);
      f['config.json'] = enc.encode(JSON.stringify(c));
      return 'config vocab_size changed';
    }
    case 6: { // a token id past the embedding table, or negative, or not an integer
      const t = jsonOf(f, 'tokenizer.json');
      if (!Array.isArray(t?.added_tokens)) return 'none';
      t.added_tokens.push({ id: r.pick([300, 5000, -1, 1.5, 2 ** 40]), content: '<|x|>', special: true });
      f['tokenizer.json'] = enc.encode(JSON.stringify(t));
      return 'tokenizer id out of range';
    }
    case 7: { // weights: a tensor with a wrong shape, dtype or offsets
      let parts: ReturnType<typeof splitSafetensors>;
      try { parts = splitSafetensors(f['model.safetensors']); } catch { return 'none'; }
      const { header, data } = parts;
      const keys = Object.keys(header).filter((k) => k !== '__metadata__');
      const k = r.pick(keys);
      const t = { ...(header[k] as Record<string, unknown>) };
      const field = r.pick(['shape', 'dtype', 'data_offsets', 'entry']);
      if (field === 'shape') t.shape = r.pick([[1], [16, 16, 1], [], [-1, 2], ['a'], null, [2 ** 53, 2]]);
      else if (field === 'dtype') t.dtype = r.pick(['F16', 'BF16', 'I64', 'F64', 7, null]);
      else if (field === 'data_offsets') t.data_offsets = r.pick([[0, 1], [8, 4], [0, 1e12], [-4, 0], null, [0]]);
      header[k] = field === 'entry' ? randomValue(r, 2) : t;
      f['model.safetensors'] = joinSafetensors(header, data);
      return `weights ${field} changed`;
    }
    default: { // a header length field that lies
      if (!f['model.safetensors']) return 'none';
      const b = f['model.safetensors'].slice();
      new DataView(b.buffer).setBigUint64(0, BigInt(r.pick([0, 1, 7, 2 ** 31, 2 ** 52])), true);
      f['model.safetensors'] = b;
      return 'weights header length changed';
    }
  }
}

export const modelFolderSurface: Surface<{ files: Files; what: string[] }> = {
  name: 'model-folder',
  about: 'model folders (each file missing, truncated, bytes flipped, JSON fields changed, tokenizer/config vocabulary mismatch, wrong weight shapes/dtypes/offsets) through loadModelFolder; documented error: ModelFolderError; a folder that loads with a tokenizer that does not round-trip text is a violation (tokenizer-lossy)',
  setup: () => { baseFolder(); },
  generate(r) {
    const files: Files = { ...baseFolder() };
    const what: string[] = [];
    for (let i = r.bool(0.8) ? 1 : r.range(2, 3); i > 0; i--) what.push(damage(r, files));
    return { files, what };
  },
  async run({ files }) {
    const f = await loadModelFolder(memoryFileSource(files));
    // A folder that loads must be usable: its tokenizer round-trips text.
    const text = 'The cat reads the file.';
    const back = f.tokenizer.decode(f.tokenizer.encode(text));
    if (back !== text) throw new FuzzViolation('tokenizer-lossy', `a folder loaded whose tokenizer does not round-trip: ${JSON.stringify(back)}`);
    return 'ok';
  },
  documented: (e) => (e instanceof ModelFolderError ? e.code : null),
  show: ({ what }) => what.join('; '),
};
