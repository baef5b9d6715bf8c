// Node entry to the Hugging Face model path: local folders through the file system (paths made absolute, since
// transformers.js resolves them against its own base), hub ids and URLs as in the browser.
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { loadHfModel, type HfLoadOptions, type HfModel, type LocalFiles } from './loader';
import { parseHfSource } from './source';

export const nodeLocalFiles: LocalFiles = {
  exists: (p) => existsSync(p),
  read: (p) => new Uint8Array(readFileSync(p)),
};

/** As ../runtime-node.ts: idle ORT threads do not spin (on a small shared machine they steal the working cores). */
const NO_SPIN = { extra: { session: { 'intra_op.allow_spinning': '0', 'inter_op.allow_spinning': '0' } } };

export function loadHfModelNode(ref: string, opts: Omit<HfLoadOptions, 'local'> = {}): Promise<HfModel> {
  const source = parseHfSource(ref, (p) => existsSync(p));
  return loadHfModel(source.kind === 'local' ? { kind: 'local', path: resolve(source.path) } : source,
    { sessionOptions: NO_SPIN, ...opts, local: nodeLocalFiles });
}

export { isHfModelRef } from './ref-node';
