// A τ² domain from the texts of its files (db.json, tasks.json, policy.md, optional split_tasks.json):
// browser-safe; fs.ts reads the same files by path in Node.

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

export interface Tau2DomainTexts {
  db: string;
  tasks?: string;
  policy?: string;
  split?: string;
}

/** Builds a domain from its files' texts; `dir` names where they came from. Throws on invalid data. */
export function tau2DomainFromTexts(t: Tau2DomainTexts, dir = '(texts)'): Tau2Domain {
  const db = parseDbJson(t.db);
  const policy = t.policy ?? '';
  const tasks = t.tasks !== undefined ? parseTasks(t.tasks) : [];
  const split = t.split !== undefined ? parseSplit(t.split) : null;
  const isRetail = db instanceof Map ? db.has('products') : typeof db === 'object' && db !== null && 'products' in db;
  if (isRetail) {
    const base: RetailStore = retailStoreFromJson(db);
    return { domain: 'retail', dir, policy, tasks, split, makeEnv: () => createRetailEnv(base, { policy }) };
  }
  const base = MockStore.fromJson(db);
  return { domain: 'mock', dir, policy, tasks, split, makeEnv: () => createMockEnv(base, { policy }) };
}
