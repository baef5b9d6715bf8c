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

export function loadHfModelNode(ref: string, opts: Omit<HfLoadOptions, 'local'> = {}): Promise<HfModel> {
  const source = parseHfSource(ref, (p) => existsSync(p));
  return loadHfModel(source.kind === 'local' ? { kind: 'local', path: resolve(source.path) } : source, { ...opts, local: nodeLocalFiles });
}

/**
 * Whether `npm run rollout -- --model REF` means a Hugging Face model rather than one of our own folders
 * (config.json + model.safetensors, written by writeModelFolder): a URL, a hub id that is not a local path,
 * or a folder without our model.safetensors.
 */
export function isHfModelRef(ref: string): boolean {
  if (/^https?:\/\//i.test(ref) || ref.startsWith('hf:')) return true;
  if (!existsSync(ref)) return /^[A-Za-z0-9][\w.-]*\/[\w.-]+(@[\w.-]+)?$/.test(ref);
  return !existsSync(resolve(ref, 'model.safetensors'));
}
