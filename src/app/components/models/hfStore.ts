// The Hugging Face model the worker holds (one at a time), shared by the Models page (which loads it) and the
// Rollout page (which lists it next to the shipped folders). Lives as long as the page: the worker's copy does too.

import { create } from 'zustand';
import { HF_REHEARSE_ONLY, type HfModelInfo, type ModelEntry } from '../../../worker/protocol';

export const useHfModel = create<{ loaded: HfModelInfo | null }>(() => ({ loaded: null }));

/** The loaded model as model-list entries: names and URLs are the worker's `hf:…` URL (one string per source and dtype). */
export function hfModelEntries(info: HfModelInfo | null): ModelEntry[] {
  if (!info) return [];
  const entry = { name: info.url, url: info.url, totalBytes: info.files.reduce((s, f) => s + f.bytes, 0), files: info.files, config: info.config };
  // The same model in the Rehearse role only (Act replays the task's reference turns).
  return [entry, { ...entry, name: entry.name + HF_REHEARSE_ONLY, url: entry.url + HF_REHEARSE_ONLY }];
}
