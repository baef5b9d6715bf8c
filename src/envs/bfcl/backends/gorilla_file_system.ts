// BFCL's GorillaFileSystem (func_source_code/gorilla_file_system.py) with its observable quirks:
// pwd includes the root's name, cp shares children with the original, mv of a directory leaves the
// children's parent pointing at the detached old directory, and _add_file/_add_directory raise.

import { BfclPyError, registerBackend, type BfclBackend } from '../backend';
import {
  bindMethod,
  pyCompareStr, pyContains, pyDeepCopy, pyEquals, pyFormatFixed, pySplitlines, pySplitWhitespace,
  pyStr, pyTruthy, pyTypeName, PyFloat, type PyParam,
} from '../../python';

const CLASS = 'GorillaFileSystem';

export class PyFile {
  readonly pyTypeName = 'File';
  constructor(public name: unknown, public content: unknown = '') {}
  pyEq(other: unknown): boolean {
    return other instanceof PyFile && pyEquals(this.name, other.name) && pyEquals(this.content, other.content);
  }
  pyDeepCopy(memo: Map<unknown, unknown>): PyFile {
    const f = new PyFile(this.name, this.content);
    memo.set(this, f);
    return f;
  }
}

export class PyDirectory {
  readonly pyTypeName = 'Directory';
  contents = new Map<unknown, PyFile | PyDirectory>();
  constructor(public name: unknown, public parent: PyDirectory | null = null) {}

  addFile(fileName: unknown, content: unknown = ''): void {
    if (pyContains(this.contents, fileName)) {
      throw new BfclPyError('ValueError', `File '${pyStrOf(fileName)}' already exists in directory '${pyStrOf(this.name)}'.`);
    }
    this.contents.set(fileName, new PyFile(fileName, content));
  }

  addDirectory(dirName: unknown): void {
    if (pyContains(this.contents, dirName)) {
      throw new BfclPyError('ValueError', `Directory '${pyStrOf(dirName)}' already exists in directory '${pyStrOf(this.name)}'.`);
    }
    this.contents.set(dirName, new PyDirectory(dirName, this));
  }

  getItem(name: unknown): PyFile | PyDirectory | null {
    if (name === '.') return this;
    return this.contents.get(name) ?? null;
  }

  pyEq(other: unknown): boolean {
    return other instanceof PyDirectory && pyEquals(this.name, other.name) && pyEquals(this.contents, other.contents);
  }

  pyDeepCopy(memo: Map<unknown, unknown>): PyDirectory {
    const d = new PyDirectory(this.name, null);
    memo.set(this, d);
    d.parent = pyDeepCopy(this.parent, memo);
    d.contents = pyDeepCopy(this.contents, memo);
    return d;
  }
}

/** f"{v}" */
function pyStrOf(v: unknown): string {
  return pyStr(v);
}

/** `name in s` where Python would raise for a non-string operand. */
function strIncludes(haystack: unknown, needle: string): boolean {
  if (typeof haystack === 'string') return haystack.includes(needle);
  return pyContains(haystack, needle);
}

function requireStrMethod(v: unknown, method: string): string {
  if (typeof v !== 'string') throw new BfclPyError('AttributeError', `'${pyTypeName(v)}' object has no attribute '${method}'`);
  return v;
}

function asDirConfig(v: unknown): Map<unknown, unknown> {
  if (v instanceof Map) return v;
  if (typeof v === 'object' && v !== null && !Array.isArray(v)) return new Map(Object.entries(v));
  throw new BfclPyError('TypeError', `'${pyTypeName(v)}' object is not subscriptable`);
}

function getKey(d: unknown, key: string): unknown {
  const m = asDirConfig(d);
  if (!m.has(key)) throw new BfclPyError('KeyError', `'${key}'`);
  return m.get(key);
}

/**
 * The long-context padding BFCL keeps in func_source_code/long_context.py (FILE_CONTENT_EXTENSION,
 * FILES_TAIL_USED, POPULATE_FILE_EXTENSION). It is not part of the shared data, so a long_context
 * run must supply it (loader.loadLongContextData); without it such a scenario refuses to load rather
 * than silently differ from BFCL.
 */
export interface GorillaLongContextData {
  FILE_CONTENT_EXTENSION: string;
  FILES_TAIL_USED: string[];
  POPULATE_FILE_EXTENSION: string[];
}
let longContextData: GorillaLongContextData | null = null;
export function setGorillaLongContextData(d: GorillaLongContextData | null): void { longContextData = d; }

const METHODS: Record<string, PyParam[]> = {
  pwd: [],
  ls: [{ name: 'a', hasDefault: true, default: false }],
  cd: [{ name: 'folder' }],
  mkdir: [{ name: 'dir_name' }],
  touch: [{ name: 'file_name' }],
  echo: [{ name: 'content' }, { name: 'file_name', hasDefault: true, default: null }],
  cat: [{ name: 'file_name' }],
  find: [{ name: 'path', hasDefault: true, default: '.' }, { name: 'name', hasDefault: true, default: null }],
  wc: [{ name: 'file_name' }, { name: 'mode', hasDefault: true, default: 'l' }],
  sort: [{ name: 'file_name' }],
  grep: [{ name: 'file_name' }, { name: 'pattern' }],
  du: [{ name: 'human_readable', hasDefault: true, default: false }],
  tail: [{ name: 'file_name' }, { name: 'lines', hasDefault: true, default: 10 }],
  diff: [{ name: 'file_name1' }, { name: 'file_name2' }],
  mv: [{ name: 'source' }, { name: 'destination' }],
  rm: [{ name: 'file_name' }],
  rmdir: [{ name: 'dir_name' }],
  cp: [{ name: 'source' }, { name: 'destination' }],
};

const UTF8 = new TextEncoder();
const INVALID_NAME_CHARS = '|/\\?%*:"><';

export class GorillaFileSystem implements BfclBackend {
  readonly className = CLASS;
  longContext = false;
  root: PyDirectory = new PyDirectory('/', null);
  private currentDir: PyDirectory = this.root;
  /** Where `cd` has taken the session (read by the files world's `live` visibility level; BFCL has no such call). */
  get workingDirectory(): PyDirectory { return this.currentDir; }

  loadScenario(config: unknown, longContext: boolean): void {
    this.longContext = longContext;
    this.root = new PyDirectory('/', null);
    const scenario = asDirConfig(config ?? new Map());
    if (scenario.has('root')) {
      const rootCfg = asDirConfig(scenario.get('root'));
      const rootName = [...rootCfg.keys()][0];
      if (rootName === undefined) throw new BfclPyError('IndexError', 'list index out of range');
      const rootDir = new PyDirectory(rootName, null);
      this.root = this.loadDirectory(getKey(rootCfg.get(rootName), 'contents'), rootDir);
    }
    this.currentDir = this.root;
  }

  private loadDirectory(current: unknown, parent: PyDirectory): PyDirectory {
    const lc = this.longContext ? longContextData : null;
    if (this.longContext && !lc) throw new Error('GorillaFileSystem long_context data is not loaded (see setGorillaLongContextData)');
    let bottommost = true;
    for (const [name, data] of asDirConfig(current)) {
      const type = getKey(data, 'type');
      if (type === 'directory') {
        bottommost = false;
        const d = this.loadDirectory(getKey(data, 'contents'), new PyDirectory(name, parent));
        parent.contents.set(name, d);
      } else if (type === 'file') {
        let content = getKey(data, 'content');
        if (lc && !lc.FILES_TAIL_USED.some((f) => pyEquals(f, name))) content = pyConcat(content, lc.FILE_CONTENT_EXTENSION);
        parent.contents.set(name, new PyFile(name, content));
      }
    }
    if (bottommost && lc) for (const f of lc.POPULATE_FILE_EXTENSION) parent.addFile(f);
    return parent;
  }

  methods(): string[] { return Object.keys(METHODS); }

  invoke(method: string, args: unknown[], kwargs: Record<string, unknown>): unknown {
    const a = bindMethod(CLASS, METHODS, method, args, kwargs);
    switch (method) {
      case 'pwd': return this.pwd();
      case 'ls': return this.ls(a[0]);
      case 'cd': return this.cd(a[0]);
      case 'mkdir': return this.mkdir(a[0]);
      case 'touch': return this.touch(a[0]);
      case 'echo': return this.echo(a[0], a[1]);
      case 'cat': return this.cat(a[0]);
      case 'find': return this.find(a[0], a[1]);
      case 'wc': return this.wc(a[0], a[1]);
      case 'sort': return this.sort(a[0]);
      case 'grep': return this.grep(a[0], a[1]);
      case 'du': return this.du(a[0]);
      case 'tail': return this.tail(a[0], a[1]);
      case 'diff': return this.diff(a[0], a[1]);
      case 'mv': return this.mv(a[0], a[1]);
      case 'rm': return this.rm(a[0]);
      case 'rmdir': return this.rmdir(a[0]);
      case 'cp': return this.cp(a[0], a[1]);
    }
    throw new BfclPyError('AttributeError', `'${CLASS}' object has no attribute '${method}'`);
  }

  private validName(name: unknown): boolean {
    for (const c of INVALID_NAME_CHARS) if (strIncludes(name, c)) return false;
    return true;
  }

  private has(name: unknown): boolean { return pyContains(this.currentDir.contents, name); }

  private item(name: unknown): PyFile | PyDirectory | null {
    if (name === '.') return this.currentDir;
    for (const [k, v] of this.currentDir.contents) if (pyEquals(k, name)) return v;
    return null;
  }

  pwd(): unknown {
    // BFCL compares a name with the root Directory object, so the walk always reaches the top.
    const path: unknown[] = [];
    let dir: PyDirectory | null = this.currentDir;
    while (dir !== null) { path.push(dir.name); dir = dir.parent; }
    return new Map([['current_working_directory', '/' + path.reverse().map(joinPart).join('/')]]);
  }

  ls(a: unknown): unknown {
    let contents = [...this.currentDir.contents.keys()];
    if (!pyTruthy(a)) contents = contents.filter((n) => !requireStrMethod(n, 'startswith').startsWith('.'));
    return new Map([['current_directory_content', contents]]);
  }

  cd(folderIn: unknown): unknown {
    let folder = requireStrMethod(folderIn, 'rstrip').replace(/\/+$/, '');
    if (folder === '') folder = '/';
    if (!['.', '..', '/'].includes(folder) && folder.includes('/')) {
      return new Map([['error', `cd: ${folder}: Unsupported path. Only one folder level at a time is supported.`]]);
    }
    if (folder === '..') {
      if (this.currentDir.parent) this.currentDir = this.currentDir.parent;
      else if (this.root.pyEq(this.currentDir)) return new Map([['error', 'Current directory is already the root. Cannot go back.']]);
      else return new Map([['error', 'cd: ..: No such directory']]);
      return new Map();
    }
    const target = this.navigate(folder);
    if (!(target instanceof PyDirectory)) return target;
    this.currentDir = target;
    return new Map([['current_working_directory', target.name]]);
  }

  mkdir(dirName: unknown): unknown {
    if (!this.validName(dirName)) return new Map([['error', `mkdir: cannot create directory '${pyStrOf(dirName)}': Invalid character`]]);
    if (this.has(dirName)) return new Map([['error', `mkdir: cannot create directory '${pyStrOf(dirName)}': File exists`]]);
    this.currentDir.addDirectory(dirName);
    return null;
  }

  touch(fileName: unknown): unknown {
    if (!this.validName(fileName)) return new Map([['error', `touch: cannot touch '${pyStrOf(fileName)}': Invalid character`]]);
    if (this.has(fileName)) return new Map([['error', `touch: cannot touch '${pyStrOf(fileName)}': File exists`]]);
    this.currentDir.addFile(fileName);
    return null;
  }

  echo(content: unknown, fileName: unknown): unknown {
    if (fileName === null || fileName === undefined) return new Map([['terminal_output', content]]);
    if (!this.validName(fileName)) return new Map([['error', `echo: cannot write to '${pyStrOf(fileName)}': Invalid character`]]);
    if (pyTruthy(fileName)) {
      if (this.has(fileName)) {
        const it = this.item(fileName);
        if (!(it instanceof PyFile)) throw new BfclPyError('AttributeError', `'${pyTypeName(it)}' object has no attribute '_write'`);
        it.content = content;
        return null;
      }
      return new Map([['error', `echo: cannot write to '${pyStrOf(fileName)}': No such file`]]);
    }
    return new Map([['terminal_output', content]]);
  }

  cat(fileName: unknown): unknown {
    if (!this.validName(fileName)) return new Map([['error', `cat: '${pyStrOf(fileName)}': Invalid character`]]);
    if (this.has(fileName)) {
      const it = this.item(fileName);
      if (it instanceof PyFile) return new Map([['file_content', it.content]]);
      return new Map([['error', `cat: '${pyStrOf(fileName)}': Is a directory`]]);
    }
    return new Map([['error', `cat: '${pyStrOf(fileName)}': No such file or directory`]]);
  }

  find(path: unknown, name: unknown): unknown {
    const target = this.navigate(path);
    if (!(target instanceof PyDirectory)) {
      const msg = target.get('error');
      if (typeof msg === 'string' && msg.startsWith('cd:')) return new Map([['error', msg.replace('cd:', 'find:')]]);
      return target;
    }
    const matches: string[] = [];
    const walk = (dir: PyDirectory, base: string): void => {
      for (const [itemName, it] of dir.contents) {
        const itemPath = `${base}/${pyStrOf(itemName)}`;
        if (name === null || name === undefined || pyContains(itemName, name)) matches.push(itemPath);
        if (it instanceof PyDirectory) walk(it, itemPath);
      }
    };
    walk(target, requireStrMethod(path, 'rstrip').replace(/\/+$/, ''));
    return new Map([['matches', matches]]);
  }

  wc(fileName: unknown, mode: unknown): unknown {
    if (!['l', 'w', 'c'].includes(mode as string)) return new Map([['error', `wc: invalid mode '${pyStrOf(mode)}'`]]);
    if (this.has(fileName)) {
      const f = this.item(fileName);
      if (f instanceof PyFile) {
        const content = f.content;
        if (mode === 'l') return new Map<string, unknown>([['count', pySplitlines(requireStrMethod(content, 'splitlines')).length], ['type', 'lines']]);
        if (mode === 'w') return new Map<string, unknown>([['count', pySplitWhitespace(requireStrMethod(content, 'split')).length], ['type', 'words']]);
        return new Map<string, unknown>([['count', pyLen(content)], ['type', 'characters']]);
      }
    }
    return new Map([['error', `wc: ${pyStrOf(fileName)}: No such file or directory`]]);
  }

  sort(fileName: unknown): unknown {
    if (this.has(fileName)) {
      const f = this.item(fileName);
      if (f instanceof PyFile) {
        const lines = pySplitlines(requireStrMethod(f.content, 'splitlines')).sort(pyCompareStr);
        return new Map([['sorted_content', lines.join('\n')]]);
      }
    }
    return new Map([['error', `sort: ${pyStrOf(fileName)}: No such file or directory`]]);
  }

  grep(fileName: unknown, pattern: unknown): unknown {
    if (this.has(fileName)) {
      const f = this.item(fileName);
      if (f instanceof PyFile) {
        const lines = pySplitlines(requireStrMethod(f.content, 'splitlines'));
        return new Map([['matching_lines', lines.filter((l) => pyContains(l, pattern))]]);
      }
    }
    return new Map([['error', `grep: ${pyStrOf(fileName)}: No such file or directory`]]);
  }

  du(humanReadable: unknown): unknown {
    const size = (it: PyFile | PyDirectory): number => {
      if (it instanceof PyFile) return UTF8.encode(requireStrMethod(it.content, 'encode')).length;
      let s = 0;
      for (const c of it.contents.values()) s += size(c);
      return s;
    };
    let total = size(this.currentDir);
    let out: string | undefined;
    if (pyTruthy(humanReadable)) {
      for (const unit of ['B', 'KB', 'MB', 'GB', 'TB']) {
        if (total < 1024) { out = `${pyFormatFixed(total, 2)} ${unit}`; break; }
        total /= 1024;
      }
      if (out === undefined) out = `${pyFormatFixed(total, 2)} PB`;
    } else {
      out = `${total} bytes`;
    }
    return new Map([['disk_usage', out]]);
  }

  tail(fileName: unknown, linesIn: unknown): unknown {
    if (this.has(fileName)) {
      const f = this.item(fileName);
      if (f instanceof PyFile) {
        const content = pySplitlines(requireStrMethod(f.content, 'splitlines'));
        const lines = linesIn;
        const isNumber = typeof lines === 'number' || typeof lines === 'boolean' || typeof lines === 'bigint' || lines instanceof PyFloat;
        if (!isNumber) throw new BfclPyError('TypeError', `'>' not supported between instances of '${pyTypeName(lines)}' and 'int'`);
        let n = lines instanceof PyFloat ? lines.value : Number(lines);
        // `lines > len(content)` replaces any value (even a float) by the int length first.
        if (n > content.length) n = content.length;
        else if (lines instanceof PyFloat || !Number.isInteger(n)) throw new BfclPyError('TypeError', 'slice indices must be integers or None or have an __index__ method');
        // Python's content[-n:]: -0 is 0, so `lines=0` returns every line.
        let start = -n;
        if (start < 0) start = Math.max(0, start + content.length);
        return new Map([['last_lines', content.slice(start).join('\n')]]);
      }
    }
    return new Map([['error', `tail: ${pyStrOf(fileName)}: No such file or directory`]]);
  }

  diff(a: unknown, b: unknown): unknown {
    if (this.has(a) && this.has(b)) {
      const f1 = this.item(a);
      const f2 = this.item(b);
      if (f1 instanceof PyFile && f2 instanceof PyFile) {
        const c1 = pySplitlines(requireStrMethod(f1.content, 'splitlines'));
        const c2 = pySplitlines(requireStrMethod(f2.content, 'splitlines'));
        const out: string[] = [];
        for (let i = 0; i < Math.min(c1.length, c2.length); i++) if (c1[i] !== c2[i]) out.push(`- ${c1[i]}\n+ ${c2[i]}`);
        return new Map([['diff_lines', out.join('\n')]]);
      }
    }
    return new Map([['error', `diff: ${pyStrOf(a)} or ${pyStrOf(b)}: No such file or directory`]]);
  }

  mv(source: unknown, destination: unknown): unknown {
    if (!this.has(source)) return new Map([['error', `mv: cannot move '${pyStrOf(source)}': No such file or directory`]]);
    const it = this.item(source)!;
    if (strIncludes(destination, '/')) {
      return new Map([['error', 'mv: path not allowed in destination. Provide only a file or directory name.']]);
    }
    if (this.has(destination)) {
      const dest = this.item(destination);
      if (dest instanceof PyDirectory) {
        if (pyContains(dest.contents, source)) {
          return new Map([['error', `mv: cannot move '${pyStrOf(source)}' to '${pyStrOf(destination)}/${pyStrOf(source)}': File exists`]]);
        }
        this.pop(source);
        if (it instanceof PyFile) dest.addFile(source, it.content);
        else {
          dest.addDirectory(source);
          (dest.contents.get(source) as PyDirectory).contents = it.contents;
        }
        return new Map([['result', `'${pyStrOf(source)}' moved to '${pyStrOf(destination)}/${pyStrOf(source)}'`]]);
      }
      return new Map([['error', `mv: cannot move '${pyStrOf(source)}' to '${pyStrOf(destination)}': Not a directory`]]);
    }
    this.pop(source);
    if (it instanceof PyFile) this.currentDir.addFile(destination, it.content);
    else {
      this.currentDir.addDirectory(destination);
      (this.currentDir.contents.get(destination) as PyDirectory).contents = it.contents;
    }
    return new Map([['result', `'${pyStrOf(source)}' moved to '${pyStrOf(destination)}'`]]);
  }

  private pop(name: unknown): void {
    for (const k of this.currentDir.contents.keys()) if (pyEquals(k, name)) { this.currentDir.contents.delete(k); return; }
  }

  rm(fileName: unknown): unknown {
    if (this.has(fileName)) {
      this.pop(fileName);
      return new Map([['result', `'${pyStrOf(fileName)}' removed`]]);
    }
    return new Map([['error', `rm: cannot remove '${pyStrOf(fileName)}': No such file or directory`]]);
  }

  rmdir(dirName: unknown): unknown {
    if (this.has(dirName)) {
      const it = this.item(dirName);
      if (it instanceof PyDirectory) {
        if (it.contents.size > 0) return new Map([['error', `rmdir: cannot remove '${pyStrOf(dirName)}': Directory not empty`]]);
        this.pop(dirName);
        return new Map([['result', `'${pyStrOf(dirName)}' removed`]]);
      }
      return new Map([['error', `rmdir: cannot remove '${pyStrOf(dirName)}': Not a directory`]]);
    }
    return new Map([['error', `rmdir: cannot remove '${pyStrOf(dirName)}': No such file or directory`]]);
  }

  cp(source: unknown, destination: unknown): unknown {
    if (!this.has(source)) return new Map([['error', `cp: cannot copy '${pyStrOf(source)}': No such file or directory`]]);
    const it = this.item(source)!;
    if (strIncludes(destination, '/')) {
      return new Map([['error', 'cp: path not allowed in destination. Provide only a file or directory name.']]);
    }
    if (this.has(destination)) {
      const dest = this.item(destination);
      if (dest instanceof PyDirectory) {
        // BFCL checks for "dest/source" as a key, which never exists; a clash surfaces as _add_*'s ValueError.
        if (it instanceof PyFile) dest.addFile(source, it.content);
        else {
          dest.addDirectory(source);
          (dest.contents.get(source) as PyDirectory).contents = new Map(it.contents);
        }
        return new Map([['result', `'${pyStrOf(source)}' copied to '${pyStrOf(destination)}/${pyStrOf(source)}'`]]);
      }
      return new Map([['error', `cp: cannot copy '${pyStrOf(source)}' to '${pyStrOf(destination)}': Not a directory`]]);
    }
    if (it instanceof PyFile) this.currentDir.addFile(destination, it.content);
    else {
      this.currentDir.addDirectory(destination);
      (this.currentDir.contents.get(destination) as PyDirectory).contents = new Map(it.contents);
    }
    return new Map([['result', `'${pyStrOf(source)}' copied to '${pyStrOf(destination)}'`]]);
  }

  private navigate(path: unknown): PyDirectory | Map<string, string> {
    if (path === null || path === undefined || path === '.') return this.currentDir;
    if (path === '/') return this.root;
    const p = requireStrMethod(path, 'strip');
    const dirs = p.replace(/^\/+|\/+$/g, '').split('/');
    let tmp: PyDirectory = p.startsWith('/') ? this.root : this.currentDir;
    for (const name of dirs) {
      const next = tmp.getItem(name);
      if (next instanceof PyDirectory) tmp = next;
      else return new Map([['error', `cd: '${p}': No such file or directory`]]);
    }
    return tmp;
  }

  state(): unknown {
    return new Map<string, unknown>([['long_context', this.longContext], ['root', renderNode(this.root)]]);
  }

  /** Python-equality view for the checker: Directory/File objects compare by name and contents only. */
  compareState(): Map<string, unknown> {
    return new Map<string, unknown>([['long_context', this.longContext], ['root', this.root]]);
  }

  clone(): GorillaFileSystem {
    const memo = new Map<unknown, unknown>();
    const c = new GorillaFileSystem();
    c.longContext = this.longContext;
    c.root = pyDeepCopy(this.root, memo);
    c.currentDir = pyDeepCopy(this.currentDir, memo);
    return c;
  }
}

function pyConcat(a: unknown, b: string): string {
  if (typeof a !== 'string') throw new BfclPyError('TypeError', `unsupported operand type(s) for +=: '${pyTypeName(a)}' and 'str'`);
  return a + b;
}

function joinPart(v: unknown): string {
  return pyStr(v);
}

function pyLen(v: unknown): number {
  if (typeof v === 'string') return [...v].length;
  if (Array.isArray(v)) return v.length;
  throw new BfclPyError('TypeError', `object of type '${pyTypeName(v)}' has no len()`);
}

function renderNode(n: PyFile | PyDirectory): unknown {
  if (n instanceof PyFile) return new Map<string, unknown>([['type', 'file'], ['name', n.name], ['content', n.content]]);
  return new Map<string, unknown>([
    ['type', 'directory'],
    ['name', n.name],
    ['parent', n.parent ? n.parent.name : null],
    ['contents', new Map([...n.contents].map(([k, v]) => [k, renderNode(v)]))],
  ]);
}

registerBackend(CLASS, () => new GorillaFileSystem());
