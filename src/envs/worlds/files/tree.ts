// A small generated directory tree in BFCL's GorillaFileSystem scenario shape, plus a mirror model the
// expert plans with (insertion-ordered like Python dicts, so listings come out in the backend's order).

import { Rng } from '../rng';

export interface FsFile { type: 'file'; content: string }
export interface FsDir { type: 'directory'; contents: Record<string, FsNode> }
export type FsNode = FsFile | FsDir;

/** GorillaFileSystem._load_scenario config: {"root": {<root name>: {"type": "directory", "contents": …}}}. */
export interface FsScenario { root: Record<string, FsDir> }

const DIR_NAMES = ['docs', 'logs', 'notes', 'reports', 'data', 'archive', 'photos', 'music', 'projects', 'drafts', 'config', 'src'];
const ROOT_NAMES = ['workspace', 'home', 'alex', 'lab', 'office'];
const NOTE_LINES = ['buy milk and eggs', 'call Sam at 5pm', 'meeting moved to 3pm', 'renew passport', 'book dentist', 'pay rent on Friday',
  'send invoice 42', 'water the plants', 'draft the summary', 'review budget', 'fix the bike', 'plan trip to Oslo'];
const LOG_LINES = ['INFO service started', 'ERROR disk full', 'WARN high latency', 'ERROR timeout on db', 'INFO request ok', 'INFO user login',
  'WARN retry 2', 'ERROR cache miss storm'];
const FRUITS = ['apple', 'pear', 'plum', 'kiwi', 'mango', 'lime', 'fig', 'grape'];

export type FileKind = 'txt' | 'log' | 'csv' | 'md';
const FILE_STEMS: Record<FileKind, string[]> = {
  txt: ['notes', 'todo', 'ideas', 'draft', 'report', 'memo', 'plan', 'list'],
  log: ['app', 'server', 'build', 'sync'],
  csv: ['data', 'sales', 'stock', 'scores'],
  md: ['readme', 'summary', 'guide', 'changelog'],
};

/** Every word a files name is made of (folders, tops, file stems): what `npm run sft --scramble` replaces in files conversations. */
export const FILE_NAME_WORDS: readonly string[] = [...new Set([...DIR_NAMES, ...ROOT_NAMES, ...Object.values(FILE_STEMS).flat()])];

export function fileContent(rng: Rng, kind: FileKind): string {
  switch (kind) {
    case 'txt': return rng.sample(NOTE_LINES, rng.int(1, 3)).join('\n');
    case 'log': return rng.sample(LOG_LINES, rng.int(2, 4)).join('\n');
    case 'csv': return ['item,qty', ...rng.sample(FRUITS, rng.int(1, 3)).map((f) => `${f},${rng.int(1, 40)}`)].join('\n');
    case 'md': return `# ${rng.pick(['Setup', 'Notes', 'Plan', 'Status'])}\n${rng.pick(NOTE_LINES)}`;
  }
}

export function newFileName(rng: Rng, taken: (n: string) => boolean, kind?: FileKind): { name: string; kind: FileKind } {
  for (let i = 0; ; i++) {
    const k = kind ?? rng.pick(['txt', 'txt', 'log', 'csv', 'md'] as FileKind[]);
    const stem = rng.pick(FILE_STEMS[k]);
    const name = i < 20 ? `${stem}.${k}` : `${stem}${i}.${k}`;
    if (!taken(name)) return { name, kind: k };
  }
}

export function newDirName(rng: Rng, taken: (n: string) => boolean): string {
  for (let i = 0; ; i++) {
    const base = rng.pick(DIR_NAMES);
    const name = i < 20 ? base : `${base}${i}`;
    if (!taken(name)) return name;
  }
}

/** All dir names used anywhere in the tree (to pick a folder name that exists nowhere). */
export function allNames(d: FsDir, out = new Set<string>()): Set<string> {
  for (const [n, node] of Object.entries(d.contents)) { out.add(n); if (node.type === 'directory') allNames(node, out); }
  return out;
}

export interface TreeOptions { topDirs: [number, number]; subdirChance: number; rootFiles: [number, number] }

export function generateTree(rng: Rng, o: TreeOptions): { rootName: string; root: FsDir } {
  const rootName = rng.pick(ROOT_NAMES);
  const root: FsDir = { type: 'directory', contents: {} };
  const globalNames = new Set<string>([rootName]);
  const addFiles = (d: FsDir, n: number) => {
    for (let i = 0; i < n; i++) {
      const f = newFileName(rng, (x) => x in d.contents);
      d.contents[f.name] = { type: 'file', content: fileContent(rng, f.kind) };
    }
  };
  const nTop = rng.int(o.topDirs[0], o.topDirs[1]);
  for (let i = 0; i < nTop; i++) {
    // dir names unique across the whole tree, so "the reports folder" is unambiguous
    const name = newDirName(rng, (x) => globalNames.has(x));
    globalNames.add(name);
    const d: FsDir = { type: 'directory', contents: {} };
    root.contents[name] = d;
    addFiles(d, rng.int(1, 3));
    if (rng.chance(o.subdirChance)) {
      const sub = newDirName(rng, (x) => globalNames.has(x));
      globalNames.add(sub);
      const s: FsDir = { type: 'directory', contents: {} };
      d.contents[sub] = s;
      addFiles(s, rng.int(1, 2));
    }
  }
  addFiles(root, rng.int(o.rootFiles[0], o.rootFiles[1]));
  return { rootName, root };
}

export function toScenario(rootName: string, root: FsDir): FsScenario {
  return { root: { [rootName]: structuredClone(root) } };
}

/** The expert's mirror of the file system: cwd as a list of names below the root. */
export class FsModel {
  cwd: string[] = [];
  constructor(public readonly rootName: string, public readonly root: FsDir) {}

  dirAt(path: string[]): FsDir {
    let d = this.root;
    for (const p of path) {
      const n = d.contents[p];
      if (!n || n.type !== 'directory') throw new Error(`FsModel: no directory ${path.join('/')}`);
      d = n;
    }
    return d;
  }
  get here(): FsDir { return this.dirAt(this.cwd); }

  /** cd calls from cwd to `target` (one level at a time, '..' to go up), applied to the model. */
  navigate(target: string[]): string[] {
    let k = 0;
    while (k < this.cwd.length && k < target.length && this.cwd[k] === target[k]) k++;
    const folders: string[] = [];
    for (let i = this.cwd.length; i > k; i--) folders.push('..');
    for (let i = k; i < target.length; i++) folders.push(target[i]);
    this.cwd = target.slice();
    return folders;
  }

  /** Every file as [dirPath, name], depth-first in insertion order. */
  files(d: FsDir = this.root, path: string[] = []): [string[], string][] {
    const out: [string[], string][] = [];
    for (const [n, node] of Object.entries(d.contents)) {
      if (node.type === 'file') out.push([path, n]);
      else out.push(...this.files(node, [...path, n]));
    }
    return out;
  }
  dirs(d: FsDir = this.root, path: string[] = []): string[][] {
    const out: string[][] = [];
    for (const [n, node] of Object.entries(d.contents)) if (node.type === 'directory') out.push([...path, n], ...this.dirs(node, [...path, n]));
    return out;
  }

  // Mirrors of the backend's writes (Python dict semantics: pop + insert appends at the end).
  mkdir(name: string): void { this.here.contents[name] = { type: 'directory', contents: {} }; }
  touch(name: string): void { this.here.contents[name] = { type: 'file', content: '' }; }
  write(name: string, content: string): void { (this.here.contents[name] as FsFile).content = content; }
  rm(name: string): void { delete this.here.contents[name]; }
  mv(src: string, dst: string): void {
    const here = this.here;
    const node = here.contents[src];
    delete here.contents[src];
    const target = here.contents[dst];
    if (target && target.type === 'directory') target.contents[src] = node;
    else here.contents[dst] = node;
  }
  cp(src: string, dst: string): void {
    const here = this.here;
    const node = structuredClone(here.contents[src]);
    const target = here.contents[dst];
    if (target && target.type === 'directory') target.contents[src] = node;
    else here.contents[dst] = node;
  }
}
