// Node-only: read a τ² domain directory (db.json, tasks.json, policy.md, optional split_tasks.json).
// Data is always read by path at runtime, never bundled. The domain itself is built from the texts
// (domain.ts, browser-safe).

import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { tau2DomainFromTexts, type Tau2Domain } from './domain';

export type { Tau2Domain, Tau2DomainName } from './domain';

const cache = new Map<string, Tau2Domain>();

export function loadTau2Domain(dir: string): Tau2Domain {
  const abs = path.resolve(dir);
  const hit = cache.get(abs);
  if (hit) return hit;
  const read = (f: string) => readFileSync(path.join(abs, f), 'utf8');
  const opt = (f: string) => (existsSync(path.join(abs, f)) ? read(f) : undefined);
  const out = tau2DomainFromTexts({ db: read('db.json'), policy: opt('policy.md'), tasks: opt('tasks.json'), split: opt('split_tasks.json') }, abs);
  cache.set(abs, out);
  return out;
}
