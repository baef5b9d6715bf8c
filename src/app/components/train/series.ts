// A run's chart series, kept while the records they come from are the same array: the page's store replaces a run's
// history (or evals) array only when a step (or an evaluation) arrives, so a chart whose runs brought nothing new
// gets the very same points and its memo (RunsChart sameChart) skips the redraw.

import type { ChartLine } from './RunsChart';

const cache = new WeakMap<readonly object[], Map<string, ChartLine['points']>>();

/** `make(rows)`, computed once per (rows array, key): `key` must name everything `make` reads besides `rows`. */
export function seriesOf<R extends object>(rows: readonly R[], key: string, make: (rows: readonly R[]) => ChartLine['points']): ChartLine['points'] {
  let byKey = cache.get(rows);
  if (!byKey) cache.set(rows, (byKey = new Map()));
  let points = byKey.get(key);
  if (!points) byKey.set(key, (points = make(rows)));
  return points;
}
