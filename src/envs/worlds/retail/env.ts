// Adapter between the retail world and the τ² retail port: the world generates plain db.json-shaped data
// and judges outcomes on the DB dump, so nothing here depends on the port's in-memory records.

import type { Environment } from '../../types';
import { createRetailEnv } from '../../tau2/retail/env';
import type { RetailDBJson } from '../../tau2/retail/data_model';
import type { RetailDb } from './db';

export function createWorldRetailEnv(db: RetailDb): Environment {
  return createRetailEnv(db as unknown as RetailDBJson);
}

/** The outcome is the whole DB (τ² judges retail tasks by DB equality too). */
export function retailStateOf(env: Environment): unknown {
  return env.snapshot();
}
