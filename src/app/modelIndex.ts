// The shipped-model index (/models/index.json, written by src/app/build/modelsPlugin.ts), fetched once per
// page load and shared by every page that needs a model.

import { useEffect, useState } from 'react';
import type { ModelEntry } from '../worker/protocol';

export const INDEX_URL = `${import.meta.env.BASE_URL}models/index.json`;

let cached: Promise<ModelEntry[]> | null = null;

export function fetchModelIndex(): Promise<ModelEntry[]> {
  cached ??= fetch(INDEX_URL)
    .then((r) => (r.ok ? r.json() : Promise.reject(new Error(`${INDEX_URL}: HTTP ${r.status}`))))
    .then((j: { models: ModelEntry[] }) => j.models);
  cached.catch(() => { cached = null; });
  return cached;
}

export function useModelIndex(): { models: ModelEntry[] | null; error: string | null } {
  const [models, setModels] = useState<ModelEntry[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    fetchModelIndex().then((m) => live && setModels(m), (e: Error) => live && setError(e.message));
    return () => { live = false; };
  }, []);
  return { models, error };
}
