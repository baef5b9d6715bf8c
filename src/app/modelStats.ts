// What the Models page says about a folder without loading it: the parameter count from config.json (the
// page bundle does not carry the engine; tests/app/model-stats.test.ts holds this equal to the engine's
// countParams) and the held-out evaluation the folder ships in eval.json.

import { useEffect, useState } from 'react';
import type { ModelEntry } from '../worker/protocol';
import { readEvalFile, type EvalFile } from './components/bench/readers';

/** Parameters of a Llama-style decoder as described by an HF config.json; null when fields are missing. */
export function llamaParams(c: Record<string, unknown> | null | undefined): number | null {
  if (!c) return null;
  const n = (k: string) => (typeof c[k] === 'number' ? (c[k] as number) : NaN);
  const d = n('hidden_size'), v = n('vocab_size'), layers = n('num_hidden_layers'), inter = n('intermediate_size');
  const heads = n('num_attention_heads');
  const kv = Number.isFinite(n('num_key_value_heads')) ? n('num_key_value_heads') : heads;
  const hd = Number.isFinite(n('head_dim')) ? n('head_dim') : d / heads;
  if (![d, v, layers, inter, heads, kv, hd].every(Number.isFinite)) return null;
  const bias = c.attention_bias === true;
  const attn = d * heads * hd + 2 * d * kv * hd + heads * hd * d + (bias ? heads * hd + 2 * kv * hd + d : 0);
  const mlp = 3 * d * inter + (c.mlp_bias === true ? 2 * inter + d : 0);
  const perLayer = attn + mlp + 2 * d;
  const head = c.tie_word_embeddings === true ? 0 : v * d;
  return v * d + layers * perLayer + d + head;
}

export function fmtParams(p: number | null): string {
  if (p === null) return '–';
  if (p >= 1e9) return `${(p / 1e9).toFixed(2)}B`;
  if (p >= 1e6) return `${(p / 1e6).toFixed(2)}M`;
  if (p >= 1e3) return `${(p / 1e3).toFixed(1)}k`;
  return String(p);
}

// eval.json's types and reader live with the other results readers (src/app/components/bench/readers.ts).
export type { EvalFile, HeldOutEval } from './components/bench/readers';

const cache = new Map<string, Promise<{ file: EvalFile | null; problems: string[] }>>();

/**
 * eval.json of a folder that ships one (null: none, or unreadable), read by readEvalFile: evaluations with a
 * wrong field are left out and named in `error` next to the ones that are shown.
 */
export function useEvalFile(m: ModelEntry | null | undefined): { data: EvalFile | null; error: string | null } {
  const [state, setState] = useState<{ data: EvalFile | null; error: string | null }>({ data: null, error: null });
  useEffect(() => {
    setState({ data: null, error: null });
    if (!m || !m.files.some((f) => f.path === 'eval.json')) return;
    let live = true;
    const url = `${m.url}eval.json`;
    if (!cache.has(url)) {
      const p = fetch(url).then((r) => (r.ok ? r.json() as Promise<unknown> : Promise.reject(new Error(`${url}: HTTP ${r.status}`)))).then(readEvalFile);
      cache.set(url, p);
      p.catch(() => cache.delete(url));
    }
    cache.get(url)!.then(({ file, problems }) => live && setState({ data: file, error: problems.length ? `eval.json: ${problems.slice(0, 3).join('; ')}${problems.length > 3 ? ` (+${problems.length - 3} more)` : ''}` : null }),
      (e: Error) => live && setState({ data: null, error: e.message }));
    return () => { live = false; };
  }, [m?.url]);
  return state;
}
