// A picked (<input webkitdirectory>) or dropped folder as relative path → File, the shape the worker's Hugging
// Face loader reads ({ kind: 'files' }). Paths are relative to the folder itself ('onnx/model.onnx').

/** From an <input type="file" webkitdirectory> FileList: every path starts with the picked folder's name. */
export function filesFromPicked(list: FileList | File[]): { name: string; files: Map<string, Blob> } | null {
  const files = new Map<string, Blob>();
  let name = '';
  for (const f of Array.from(list)) {
    const rel = (f as File & { webkitRelativePath?: string }).webkitRelativePath || f.name;
    const i = rel.indexOf('/');
    if (i < 0) { files.set(rel, f); continue; }
    name ||= rel.slice(0, i);
    files.set(rel.slice(i + 1), f);
  }
  return files.size ? { name: name || 'folder', files } : null;
}

type Entry = FileSystemEntry;
type FileEntry = FileSystemFileEntry;
type DirEntry = FileSystemDirectoryEntry;

async function walk(dir: DirEntry, prefix: string, out: Map<string, Blob>): Promise<void> {
  const reader = dir.createReader();
  // readEntries returns the listing in batches (about 100 at a time) until an empty one.
  for (;;) {
    const batch = await new Promise<Entry[]>((ok, err) => reader.readEntries(ok, err));
    if (batch.length === 0) return;
    for (const e of batch) {
      if (e.isDirectory) await walk(e as DirEntry, `${prefix}${e.name}/`, out);
      else if (e.isFile) out.set(`${prefix}${e.name}`, await new Promise<File>((ok, err) => (e as FileEntry).file(ok, err)));
    }
  }
}

/** From a drop: one dropped folder (its entries walked), or loose files dropped together (taken as the folder's top level). */
export async function filesFromDrop(dt: DataTransfer): Promise<{ name: string; files: Map<string, Blob> } | null> {
  const entries = Array.from(dt.items ?? [])
    .map((it) => it.webkitGetAsEntry())
    .filter((e): e is Entry => !!e);
  const dir = entries.length === 1 && entries[0]!.isDirectory ? entries[0] as DirEntry : null;
  if (dir) {
    const files = new Map<string, Blob>();
    await walk(dir, '', files);
    return files.size ? { name: dir.name, files } : null;
  }
  const files = new Map<string, Blob>();
  for (const f of Array.from(dt.files)) files.set(f.name, f);
  return files.size ? { name: 'dropped files', files } : null;
}
