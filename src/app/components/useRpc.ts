// One hook for "call a worker RPC, show busy / result / error / not-available". Keeps the pages honest:
// a missing capability surfaces as the worker's own "not available yet: <reason>" text.

import { useCallback, useRef, useState } from 'react';
import { errorText, isNotAvailable } from '../worker';

export interface RpcState<T> {
  busy: boolean;
  result: T | null;
  error: string | null;
  notAvailable: string | null;
  ms: number | null;
  run(fn: () => Promise<T>): Promise<T | null>;
  reset(): void;
}

export function useRpc<T>(): RpcState<T> {
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notAvailable, setNA] = useState<string | null>(null);
  const [ms, setMs] = useState<number | null>(null);
  const gen = useRef(0);
  const run = useCallback(async (fn: () => Promise<T>) => {
    const my = ++gen.current;
    setBusy(true); setError(null); setNA(null);
    const t0 = performance.now();
    try {
      const r = await fn();
      if (my === gen.current) { setResult(r); setMs(performance.now() - t0); }
      return r;
    } catch (e) {
      if (my === gen.current) {
        if (isNotAvailable(e)) setNA(errorText(e).replace(/^not available yet:\s*/, ''));
        else setError(errorText(e));
      }
      return null;
    } finally {
      if (my === gen.current) setBusy(false);
    }
  }, []);
  const reset = useCallback(() => { gen.current++; setBusy(false); setResult(null); setError(null); setNA(null); setMs(null); }, []);
  return { busy, result, error, notAvailable, ms, run, reset };
}
