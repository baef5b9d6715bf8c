// One VitaBench task environment: the DB built from the task's `environment` with fresh registries,
// its tools, the pinned order-id clock, the canonical hash, and get_states' old/new split.

import { pyJsonDumps } from '../python';
import {
  buildDb, canonicalJson, dbHash, dumpBook, dumpOrder, dumpReservation, newRegistries, type Registries, type VitaDB, type VitaDomain,
} from './data_model';
import { DATETIME_FMT, strptime, timegm } from './pytime';
import { callTool, pinnedClock, toolkit, type CallOutcome, type VitaToolContext, type VitaToolMessage } from './tools';

export interface VitaToolCall { id: string; name: string; arguments: unknown; requestor?: 'assistant' | 'user' }

export interface VitaStepResult { message: VitaToolMessage; outcome: CallOutcome; exceptionType: string | null }

export class VitaEnv {
  readonly db: VitaDB;
  readonly reg: Registries;
  private readonly ctx: VitaToolContext;
  private readonly tools: ReturnType<typeof toolkit>;

  /** environment: the task's `environment` value as parsed by parsePyJson (floats kept). */
  constructor(readonly domain: VitaDomain, environment: unknown, holidays: ReadonlyMap<string, string>) {
    this.reg = newRegistries();
    this.db = buildDb(domain, environment, this.reg);
    const clock = pinnedClock(this.db.time);
    this.ctx = { db: this.db, reg: this.reg, holidays, nextTimestamp: clock, timestamps: [] };
    this.tools = toolkit(domain);
  }

  call(call: VitaToolCall): VitaStepResult {
    return callTool(this.tools, this.ctx, call);
  }

  hasTool(name: string): boolean {
    return this.tools.has(name);
  }

  get orderIdTimestamps(): readonly number[] {
    return this.ctx.timestamps;
  }

  canonicalJson(): string {
    return canonicalJson(this.db);
  }

  hash(): string {
    return dbHash(this.db);
  }

  /** Orchestrator.get_states: orders, then books, then reservations, split on update_time < db.time. */
  statesSplit(): { old_states: unknown[]; new_states: unknown[] } {
    const now = timegm(strptime(this.db.time, DATETIME_FMT));
    const out = { old_states: [] as unknown[], new_states: [] as unknown[] };
    const put = (updateTime: string, dump: unknown) => (timegm(strptime(updateTime, DATETIME_FMT)) < now ? out.old_states : out.new_states).push(dump);
    for (const o of this.db.orders?.values() ?? []) put(o.update_time, dumpOrder(o));
    if (this.domain === 'instore') {
      for (const b of this.db.books.values()) put(b.update_time, dumpBook(b));
      for (const r of this.db.reservations.values()) put(r.update_time, dumpReservation(r));
    }
    return out;
  }

  statesSplitJson(): string {
    return pyJsonDumps(this.statesSplit(), { sortKeys: true, ensureAscii: false });
  }
}
