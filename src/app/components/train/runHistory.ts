// The Train page's run history in localStorage (issue 21): what a reload shows and can resume. Nothing here fails
// silently. A history that cannot be parsed is kept under its own key before a new one starts (never reset and
// then overwritten); if even that copy cannot be written, this page does not save over it. A save that fails
// (the site's storage is full, storage blocked) is reported, and the runs stay in the page's memory.

/** The stored shape (runs as the page keeps them; only what the reader checks is typed here). */
export interface StoredRuns<R> { runs: R[]; activeId: string | null }

export type StorageLike = Pick<Storage, 'getItem' | 'setItem'>;

export const RUN_HISTORY_KEY = 'envace-train-runs';
/** Where an unreadable history is kept, untouched, for the user to inspect or delete. */
export const UNREADABLE_KEY = `${RUN_HISTORY_KEY}.unreadable`;

export interface ReadResult<R> {
  stored: StoredRuns<R> | null;
  /** What the user should be told (a corrupt store kept aside, runs left out, storage unavailable); null when all is well. */
  problem: string | null;
  /** false: never write the history (it could not be read nor kept aside, or storage is unavailable). */
  writable: boolean;
}

/**
 * A label no other run has (issue 42: two runs with the same settings were told apart by colour only, and React
 * keyed their legend entries by it): the base, else the base with the first free number, "… · #2".
 */
export function uniqueLabel(base: string, taken: readonly string[]): string {
  if (!taken.includes(base)) return base;
  for (let n = 2; ; n++) if (!taken.includes(`${base} · #${n}`)) return `${base} · #${n}`;
}

/** Stored runs with unique ids (a duplicate is left out) and unique labels (a repeat is numbered), in order. */
export function distinctRuns<R extends { runId: string; label: string }>(runs: readonly R[]): R[] {
  const ids = new Set<string>();
  const labels: string[] = [];
  const out: R[] = [];
  for (const r of runs) {
    if (ids.has(r.runId)) continue;
    ids.add(r.runId);
    const label = uniqueLabel(String(r.label ?? r.runId), labels);
    labels.push(label);
    out.push(label === r.label ? r : { ...r, label });
  }
  return out;
}

const why = (e: unknown) => (e instanceof Error ? `${e.name}: ${e.message}` : String(e));

/** A run record the page can show: an id, a request with a spec, and metric arrays. */
function isRunRecord(r: unknown): boolean {
  if (!r || typeof r !== 'object' || Array.isArray(r)) return false;
  const o = r as Record<string, unknown>;
  const req = o.request as Record<string, unknown> | null | undefined;
  return typeof o.runId === 'string' && o.runId !== '' && !!req && typeof req === 'object' && !!req.spec && typeof req.spec === 'object'
    && Array.isArray(o.history) && Array.isArray(o.evals) && Array.isArray(o.logs);
}

export function readRunHistory<R>(storage: StorageLike | null): ReadResult<R> {
  if (!storage) return { stored: null, problem: 'RUN_HISTORY_UNAVAILABLE: this browser offers no localStorage here, so runs are not kept across reloads', writable: false };
  let raw: string | null;
  try { raw = storage.getItem(RUN_HISTORY_KEY); } catch (e) {
    return { stored: null, problem: `RUN_HISTORY_UNAVAILABLE: the saved run history could not be read (${why(e)}); runs are not kept across reloads`, writable: false };
  }
  if (raw === null) return { stored: null, problem: null, writable: true };
  let parsed: unknown;
  let bad: string | null = null;
  try { parsed = JSON.parse(raw); } catch (e) { bad = why(e); }
  const o = parsed as { runs?: unknown; activeId?: unknown } | null;
  if (!bad && (!o || typeof o !== 'object' || !Array.isArray(o.runs))) bad = 'not an object with a runs list';
  if (bad) {
    try { storage.setItem(UNREADABLE_KEY, raw); } catch (e) {
      return { stored: null, problem: `RUN_HISTORY_CORRUPT: the saved run history could not be read (${bad}) nor kept aside (${why(e)}); it is left as it is and this page will not save over it`, writable: false };
    }
    return { stored: null, problem: `RUN_HISTORY_CORRUPT: the saved run history could not be read (${bad}); it is kept under localStorage '${UNREADABLE_KEY}' and a new history starts`, writable: true };
  }
  const runs = (o!.runs as unknown[]).filter(isRunRecord) as R[];
  const dropped = (o!.runs as unknown[]).length - runs.length;
  const activeId = typeof o!.activeId === 'string' && runs.some((r) => (r as { runId: string }).runId === o!.activeId) ? o!.activeId : null;
  if (dropped === 0) return { stored: { runs, activeId }, problem: null, writable: true };
  // Some runs are unreadable: keep the whole text aside before the next save drops them.
  try { storage.setItem(UNREADABLE_KEY, raw); } catch (e) {
    return { stored: { runs, activeId }, problem: `RUN_HISTORY_CORRUPT: ${dropped} saved run(s) could not be read and the history could not be kept aside (${why(e)}); this page will not save over it`, writable: false };
  }
  return { stored: { runs, activeId }, problem: `RUN_HISTORY_CORRUPT: ${dropped} saved run(s) could not be read and are left out; the history as it was is kept under localStorage '${UNREADABLE_KEY}'`, writable: true };
}

/** Saves the history; returns what to tell the user when it could not be saved (quota, blocked storage), else null. */
export function writeRunHistory<R>(storage: StorageLike | null, value: StoredRuns<R>): string | null {
  if (!storage) return null; // said once by readRunHistory
  try {
    storage.setItem(RUN_HISTORY_KEY, JSON.stringify(value));
    return null;
  } catch (e) {
    const name = (e as { name?: unknown } | null)?.name;
    const full = name === 'QuotaExceededError' || name === 'NS_ERROR_DOM_QUOTA_REACHED';
    return full
      ? `RUN_HISTORY_NOT_SAVED: the browser's storage for this site is full, so the run history (curves, logs) could not be saved; it stays in this page until it is closed — remove old runs to free space (${why(e)})`
      : `RUN_HISTORY_NOT_SAVED: the run history could not be saved (${why(e)}); it stays in this page until it is closed`;
  }
}

/** The page's localStorage, or null where touching it throws (some privacy modes) or it does not exist. */
export function pageStorage(): StorageLike | null {
  try { return typeof localStorage !== 'undefined' ? localStorage : null; } catch { return null; }
}
