import { mkdir, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CheckpointStore } from './checkpoint';

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
  async load(runId: string) {
    try { return new Uint8Array(await readFile(this.file(runId))); } catch { return null; }
  }
  async list() {
    try { return (await readdir(this.dir)).filter((f) => f.endsWith('.ckpt')).map((f) => f.slice(0, -5)); } catch { return []; }
  }
  async remove(runId: string) { await rm(this.file(runId), { force: true }); }
}
