// Which loader a `--model REF` needs, decided without importing either (transformers.js is a heavy import).
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

/**
 * A Hugging Face model rather than one of our own folders (config.json + model.safetensors, written by
 * writeModelFolder): a URL, `hf:owner/name`, an owner/name hub id that is not a local path, or a folder
 * without our model.safetensors.
 */
export function isHfModelRef(ref: string): boolean {
  if (/^https?:\/\//i.test(ref) || ref.startsWith('hf:')) return true;
  if (!existsSync(ref)) return /^[A-Za-z0-9][\w.-]*\/[\w.-]+(@[\w.-]+)?$/.test(ref);
  return !existsSync(resolve(ref, 'model.safetensors'));
}
