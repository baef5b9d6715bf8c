// Node-only: read a τ² domain directory (db.json, tasks.json, policy.md, optional split_tasks.json).
// Data is always read by path at runtime, never bundled.

import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { createMockEnv, MockStore } from './mock/env';
import { createRetailEnv } from './retail/env';
import { RetailStore, retailStoreFromJson } from './retail/data_model';
import { parseDbJson, parseSplit, parseTasks, type Tau2Split, type Tau2Task } from './tasks';
import type { Tau2Environment, Tau2Store } from './toolkit';

export type Tau2DomainName = 'retail' | 'mock';

export interface Tau2Domain {
  domain: Tau2DomainName;
  dir: string;
  policy: string;
  tasks: Tau2Task[];
  split: Tau2Split | null;
  /** A fresh environment on the untouched db.json (cheap: copy-on-write of one parsed DB). */
  makeEnv(): Tau2Environment<Tau2Store<any>>;
}

const cache = new Map<string, Tau2Domain>();

export function loadTau2Domain(dir: string): Tau2Domain {
  const abs = path.resolve(dir);
  const hit = cache.get(abs);
  if (hit) return hit;
  const read = (f: string) => readFileSync(path.join(abs, f), 'utf8');
  const db = parseDbJson(read('db.json'));
  const policy = existsSync(path.join(abs, 'policy.md')) ? read('policy.md') : '';
  const tasks = existsSync(path.join(abs, 'tasks.json')) ? parseTasks(read('tasks.json')) : [];
  const split = existsSync(path.join(abs, 'split_tasks.json')) ? parseSplit(read('split_tasks.json')) : null;
  const isRetail = db instanceof Map ? db.has('products') : typeof db === 'object' && db !== null && 'products' in db;
  let out: Tau2Domain;
  if (isRetail) {
    const base: RetailStore = retailStoreFromJson(db);
    out = { domain: 'retail', dir: abs, policy, tasks, split, makeEnv: () => createRetailEnv(base, { policy }) };
  } else {
    const base = MockStore.fromJson(db);
    out = { domain: 'mock', dir: abs, policy, tasks, split, makeEnv: () => createMockEnv(base, { policy }) };
  }
  cache.set(abs, out);
  return out;
}
