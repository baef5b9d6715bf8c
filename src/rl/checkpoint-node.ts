import { mkdir, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CheckpointStore } from './checkpoint';

/**
 * A checkpoint file that exists but cannot be read (permissions, a directory in its place, an I/O error), or a
 * checkpoint folder that cannot be listed. Only "no such file" means "no checkpoint" (issue 21: load used to swallow
 * every error, so an unreadable checkpoint looked like a fresh run and was then overwritten).
 */
export class CheckpointStoreError extends Error {
  constructor(readonly code: 'CHECKPOINT_UNREADABLE' | 'CHECKPOINT_DIR_UNREADABLE', readonly path: string, cause: unknown) {
    super(`${code}: ${path}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'CheckpointStoreError';
  }
}

const notFound = (e: unknown) => (e as { code?: unknown } | null)?.code === 'ENOENT';

/** One file per run; written to a temp name then renamed so a crash mid-write keeps the previous checkpoint. */
export class FileCheckpointStore implements CheckpointStore {
  constructor(private dir: string) {}
  private file(runId: string) { return join(this.dir, `${runId.replace(/[^\w.-]/g, '_')}.ckpt`); }
  async save(runId: string, bytes: Uint8Array) {
    await mkdir(this.dir, { recursive: true });
    const f = this.file(runId);
    await writeFile(f + '.tmp', bytes);
    await rename(f + '.tmp', f);
  }
  /** The bytes, or null when there is no checkpoint; any other failure is a CheckpointStoreError. */
  async load(runId: string) {
    const f = this.file(runId);
    try { return new Uint8Array(await readFile(f)); } catch (e) {
      if (notFound(e)) return null;
      throw new CheckpointStoreError('CHECKPOINT_UNREADABLE', f, e);
    }
  }
  /** Run ids with a checkpoint; [] when the folder does not exist yet. */
  async list() {
    try { return (await readdir(this.dir)).filter((f) => f.endsWith('.ckpt')).map((f) => f.slice(0, -5)); } catch (e) {
      if (notFound(e)) return [];
      throw new CheckpointStoreError('CHECKPOINT_DIR_UNREADABLE', this.dir, e);
    }
  }
  async remove(runId: string) { await rm(this.file(runId), { force: true }); }
}
