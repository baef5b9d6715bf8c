// Node entry to the Hugging Face model path: local folders through the file system (paths made absolute, since
// transformers.js resolves them against its own base), hub ids and URLs as in the browser.
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { loadHfModel, type HfLoadOptions, type HfModel, type HfProgress, type LocalFiles } from './loader';
import { parseHfSource } from './source';

export const nodeLocalFiles: LocalFiles = {
  exists: (p) => existsSync(p),
  read: (p) => new Uint8Array(readFileSync(p)),
};

/** As ../runtime-node.ts: idle ORT threads do not spin (on a small shared machine they steal the working cores). */
const NO_SPIN = { extra: { session: { 'intra_op.allow_spinning': '0', 'inter_op.allow_spinning': '0' } } };

/**
 * Downloads are cached here (transformers.js's default is inside node_modules, which `npm ci` wipes).
 * ENVACE_HF_CACHE overrides it; delete the folder to clear the cache.
 */
export const HF_CACHE_DIR = process.env.ENVACE_HF_CACHE ?? join(homedir(), '.cache', 'envace-playground', 'hf');

export function loadHfModelNode(ref: string, opts: Omit<HfLoadOptions, 'local'> = {}): Promise<HfModel> {
  const source = parseHfSource(ref, (p) => existsSync(p));
  return loadHfModel(source.kind === 'local' ? { kind: 'local', path: resolve(source.path) } : source,
    { sessionOptions: NO_SPIN, cacheDir: HF_CACHE_DIR, ...opts, local: nodeLocalFiles });
}

/** Download progress on a stream, one line per file per 10% (and when a file is done). */
export function progressPrinter(stream: NodeJS.WritableStream = process.stderr): (p: HfProgress) => void {
  const last = new Map<string, number>();
  const mb = (x?: number) => (x === undefined ? '?' : (x / 2 ** 20).toFixed(1));
  return (p) => {
    if (p.status === 'progress' && p.total) {
      const step = Math.floor((10 * (p.loaded ?? 0)) / p.total);
      if (step === last.get(p.file)) return;
      last.set(p.file, step);
      stream.write(`downloading ${p.file}: ${step * 10}% (${mb(p.loaded)} / ${mb(p.total)} MB)\n`);
    } else if (p.status === 'done' && p.file) stream.write(`loaded ${p.file}\n`);
  };
}

export { isHfModelRef } from './ref-node';
