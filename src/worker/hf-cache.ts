// The browser's download cache of Hugging Face model files (Cache API). Kept apart from hf-service.ts so the
// Models page can show and clear it without loading transformers.js into the worker.

import type { HfCacheInfo } from './protocol';

/** The Cache API cache transformers.js stores downloads in (hf-service.ts sets env.cacheKey to it). */
export const HF_CACHE_KEY = 'transformers-cache';

export async function cacheInfo(): Promise<HfCacheInfo> {
  if (typeof caches === 'undefined' || !(await caches.has(HF_CACHE_KEY))) return { entries: 0, bytes: 0, urls: [] };
  const c = await caches.open(HF_CACHE_KEY);
  const keys = await c.keys();
  let bytes = 0;
  for (const k of keys) {
    const r = await c.match(k);
    const n = Number(r?.headers.get('content-length'));
    bytes += Number.isFinite(n) && n > 0 ? n : (await r?.blob())?.size ?? 0;
  }
  return { entries: keys.length, bytes, urls: keys.map((k) => k.url) };
}

/** Deletes every cached download (a loaded model stays in memory). */
export async function clearCache(): Promise<HfCacheInfo> {
  if (typeof caches !== 'undefined') await caches.delete(HF_CACHE_KEY);
  return cacheInfo();
}
