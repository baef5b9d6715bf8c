// Entry point for the τ² retail domain (also used by the generated "retail world").

import { Tau2Environment, type Tau2DomainKit } from '../toolkit';
import { RetailStore, retailStoreFromJson, type RetailDBJson } from './data_model';
import { RETAIL_FUNCTIONS, RETAIL_TOOLS } from './tools';

export const RETAIL_KIT: Tau2DomainKit<RetailStore> = {
  domain: 'retail',
  className: 'RetailTools',
  tools: RETAIL_TOOLS,
  functions: RETAIL_FUNCTIONS,
  fromDump: retailStoreFromJson,
};

export type RetailEnv = Tau2Environment<RetailStore>;

/**
 * A retail environment over `db` (db.json form: plain objects, or parsePyJson output to keep Python's key
 * order). The data is validated and copied; the caller's object is never mutated. Throws RetailDataError
 * on an invalid DB.
 */
export function createRetailEnv(db: RetailDBJson | RetailStore, opts: { policy?: string; errorStyle?: 'tau2' | 'envace' } = {}): RetailEnv {
  const store = db instanceof RetailStore ? db.clone() : retailStoreFromJson(db);
  return new Tau2Environment(RETAIL_KIT, store, opts.policy ?? '', { errorStyle: opts.errorStyle });
}
