// The built-in files world: a small generated directory tree per seed, run on BFCL's GorillaFileSystem
// tools. Tasks are 1–3 user turns of everyday file chores. Situations where rehearsing first pays off:
//   - a nested path ('docs/old/notes.txt'): cd takes one level at a time and cat takes no paths;
//   - a folder that does not exist: cd into it fails;
//   - moving into a "new folder": mv onto a missing name renames the file instead, so mkdir first;
//   - writing a new file: echo into a missing file fails, so touch first;
//   - renaming onto an existing name: mv fails ("Not a directory"), so say so and wait.

import type { Environment, ToolSchema } from '../../types';
import { Rng } from '../rng';
import { call, defineWorld, reply, toolsUsed, RestrictedEnv, type ExpertStep, type ItemSpec, type TaskPlan, type TurnPlan } from '../common';
import { allNames, FsModel, generateTree, newDirName, newFileName, toScenario, type FsDir, type FsFile } from './tree';
import { createWorldFsEnv, folderCheckLine, fsStateOf, FS_TOOL_SCHEMAS, LiveFolderEnv } from './env';

export const FILES_POLICY = [
  'You manage a small file system with the tools; you start in the top folder. Be brief.',
  "- cd moves one folder at a time (a name, or '..' to go up); file names never contain paths.",
  '- echo writes only to an existing file: touch it first.',
  '- mv onto a name that does not exist renames; to move into a new folder, mkdir it first.',
  '- Never overwrite or delete anything the user did not ask for; if a name is taken, say so and change nothing.',
  '- Reply with what you found or did.',
].join('\n');

const TOOL_ORDER = FS_TOOL_SCHEMAS.map((t) => t.name);
const CORE_TOOLS = ['ls', 'cd', 'cat', 'find'];

/** The schemas as the BFCL environment advertises them (it validates calls against the same docs). */
let schemaCache: Record<string, ToolSchema> | null = null;
function schemas(): Record<string, ToolSchema> {
  if (!schemaCache) {
    const env = createWorldFsEnv(toScenario('root', { type: 'directory', contents: {} }));
    schemaCache = Object.fromEntries(env.tools().map((t) => [t.name, t]));
  }
  return schemaCache;
}

// ---------------------------------------------------------------------------------------------------------

interface Ctx { rng: Rng; d: number; fs: FsModel; tags: Set<string>; turn: number }

const slash = (p: string[], name?: string) => [...p, ...(name ? [name] : [])].join('/');
const firstLine = (s: string) => s.split('\n')[0];
/** 'Also, ' + 'Rename …' -> 'Also, rename …' */
const lead = (prefix: string, ask: string) => (prefix ? prefix + ask[0].toLowerCase() + ask.slice(1) : ask);
/** Python str.splitlines / str.split on our generated contents (no \r, no trailing newline). */
const lineCount = (s: string) => (s === '' ? 0 : s.split('\n').length);
const wordCount = (s: string) => s.split(/\s+/).filter(Boolean).length;

/** How the user names a location: "notes.txt in docs" for shallow ones, a path once difficulty allows. */
function where(c: Ctx, dir: string[], name: string, usePath: boolean): string {
  if (usePath) return slash(dir, name);
  if (dir.length === 0) return `${name} in the top folder`;
  return `${name} in the ${dir[dir.length - 1]} folder`;
}

function goto(c: Ctx, dir: string[]): { steps: ExpertStep[]; items: ItemSpec[] } {
  const folders = c.fs.navigate(dir);
  const steps = folders.map((f) => call('cd', { folder: f }));
  const items: ItemSpec[] = [];
  // Only when the expert's own route ends by entering the folder (going up to a parent needs no cd into it).
  if (dir.length > 0 && folders[folders.length - 1] === dir[dir.length - 1]) {
    const last = dir[dir.length - 1];
    items.push({ question: `Did the agent cd into ${last}?`, focus_on: 'cd folder, one level at a time',
      cond: { kind: 'called', tool: 'cd', args: { folder: last }, ok: true }, weight: 1 });
  }
  return { steps, items };
}

/** Items for a user-given path: the tempting one-shot calls fail, rehearsing them first avoids the error. */
function pathTraps(c: Ctx, dir: string[], name: string, usePath: boolean, fileTool: string): ItemSpec[] {
  if (!usePath || dir.length === 0) return [];
  c.tags.add('path_given');
  const items: ItemSpec[] = [{ question: `Did the agent avoid passing the path '${slash(dir, name)}' as a file name?`, focus_on: 'no paths in file names',
    cond: { kind: 'not_called', tool: fileTool, args: { file_name: slash(dir, name) } }, weight: 0.5 }];
  if (dir.length > 1) {
    c.tags.add('nested_cd');
    items.push({ question: `Did the agent avoid cd '${slash(dir)}' (one level at a time only)?`, focus_on: 'cd precondition',
      cond: { kind: 'not_called', tool: 'cd', args: { folder: slash(dir) } }, weight: 0.5 });
  }
  return items;
}

type Intent = 'read' | 'grep' | 'count' | 'tail' | 'create' | 'move_new' | 'rename' | 'rename_conflict' | 'missing_dir' | 'find' | 'backup';

function pickFile(c: Ctx, pred: (dir: string[], name: string, f: FsFile) => boolean = () => true): [string[], string] | undefined {
  const cands = c.fs.files().filter(([d, n]) => pred(d, n, c.fs.dirAt(d).contents[n] as FsFile));
  return cands.length ? c.rng.pick(cands) : undefined;
}

/** Plan one user turn; returns null when the tree has nothing this intent can work on. */
function planTurn(c: Ctx, intent: Intent): TurnPlan[] | null {
  const rng = c.rng;
  const usePath = c.d >= 2 && rng.chance(0.6);
  const also = c.turn > 0 ? rng.pick(['Also, ', 'Next: ', 'Now ']) : '';
  switch (intent) {
    case 'read': {
      const f = pickFile(c, (d, _n, file) => file.content.length > 0 && (c.d >= 2 || d.length <= 1));
      if (!f) return null;
      const [dir, name] = f;
      const content = (c.fs.dirAt(dir).contents[name] as FsFile).content;
      const g = goto(c, dir);
      return [{
        user: lead(also, `What does ${where(c, dir, name, usePath)} say?`),
        steps: [...g.steps, call('cat', { file_name: name }), reply(`${name} says: ${content.split('\n').join('; ')}`)],
        items: [...g.items, ...pathTraps(c, dir, name, usePath, 'cat'),
          { question: `Did the agent read ${name} from its folder?`, focus_on: 'cat from the right directory',
            cond: { kind: 'called', tool: 'cat', args: { file_name: name }, ok: true }, weight: 2, required: true },
          { question: 'Did the agent report the content?', focus_on: 'reply content', cond: { kind: 'reply_contains', text: [firstLine(content)] }, weight: 2 }],
      }];
    }
    case 'grep': {
      const f = pickFile(c, (_d, n) => n.endsWith('.log'));
      if (!f) return null;
      const [dir, name] = f;
      const content = (c.fs.dirAt(dir).contents[name] as FsFile).content;
      const pattern = rng.pick([...new Set(content.split('\n').map((l) => l.split(' ')[0]))]);
      const lines = content.split('\n').filter((l) => l.includes(pattern));
      const g = goto(c, dir);
      return [{
        user: lead(also, `Which lines of ${where(c, dir, name, usePath)} mention ${pattern}?`),
        steps: [...g.steps, call('grep', { file_name: name, pattern }), reply(`Lines with ${pattern} in ${name}: ${lines.join('; ')}`)],
        items: [...g.items, ...pathTraps(c, dir, name, usePath, 'grep'),
          { question: `Did the agent grep ${name} for ${pattern}?`, focus_on: 'grep arguments and directory',
            cond: { kind: 'called', tool: 'grep', args: { file_name: name, pattern }, ok: true }, weight: 2, required: true },
          { question: 'Did the agent list the matching lines?', focus_on: 'reply content', cond: { kind: 'reply_contains', text: [lines[0]] }, weight: 2 }],
      }];
    }
    case 'count': {
      const f = pickFile(c, (d) => c.d >= 2 || d.length <= 1);
      if (!f) return null;
      const [dir, name] = f;
      const content = (c.fs.dirAt(dir).contents[name] as FsFile).content;
      const words = rng.chance(0.4);
      const n = words ? wordCount(content) : lineCount(content);
      const unit = words ? 'words' : 'lines';
      // the check looks for '<n> line': it matches '1 line' and '3 lines' alike, so grammar is not graded
      const said = `${n} ${unit.slice(0, -1)}`;
      const answer = n === 1 ? said : `${n} ${unit}`;
      const g = goto(c, dir);
      const args = { file_name: name, mode: words ? 'w' : 'l' };
      return [{
        user: lead(also, `How many ${unit} are in ${where(c, dir, name, usePath)}?`),
        steps: [...g.steps, call('wc', args), reply(`${name} has ${answer}.`)],
        items: [...g.items, ...pathTraps(c, dir, name, usePath, 'wc'),
          { question: `Did the agent count the ${unit} of ${name}?`, focus_on: 'wc file and mode',
            cond: { kind: 'called', tool: 'wc', args: words ? args : { file_name: name }, ok: true }, weight: 2, required: true },
          { question: `Did the agent answer ${answer}?`, focus_on: 'reply content', cond: { kind: 'reply_contains', text: [said] }, weight: 2 }],
      }];
    }
    case 'tail': {
      const f = pickFile(c, (d, _n, file) => lineCount(file.content) >= 3 && (c.d >= 2 || d.length <= 1));
      if (!f) return null;
      const [dir, name] = f;
      const lines = (c.fs.dirAt(dir).contents[name] as FsFile).content.split('\n');
      const k = rng.int(1, 2);
      const last = lines.slice(-k);
      const g = goto(c, dir);
      return [{
        user: lead(also, `Show me the last ${k === 1 ? 'line' : `${k} lines`} of ${where(c, dir, name, usePath)}.`),
        steps: [...g.steps, call('tail', { file_name: name, lines: k }), reply(`Last ${k === 1 ? 'line' : `${k} lines`} of ${name}: ${last.join('; ')}`)],
        items: [...g.items, ...pathTraps(c, dir, name, usePath, 'tail'),
          { question: `Did the agent read the last ${k} line(s) of ${name}?`, focus_on: 'tail file and count',
            cond: { kind: 'called', tool: 'tail', args: { file_name: name, lines: k }, ok: true }, weight: 2, required: true },
          { question: 'Did the agent show those lines?', focus_on: 'reply content', cond: { kind: 'reply_contains', text: [last[last.length - 1]] }, weight: 2 }],
      }];
    }
    case 'create': {
      const dirs = c.fs.dirs().filter((d) => c.d >= 2 || d.length === 1);
      if (!dirs.length) return null;
      const dir = rng.pick(dirs);
      const here = c.fs.dirAt(dir);
      const { name } = newFileName(rng, (x) => x in here.contents, rng.pick(['txt', 'md'] as const));
      const text = rng.pick(['call the bank', 'remember the keys', 'ship on Monday', 'ask Lee about the report', 'backup done']);
      const g = goto(c, dir);
      c.fs.touch(name); c.fs.write(name, text);
      c.tags.add('touch_before_echo');
      return [{
        user: lead(also, `Create a file ${name} in ${usePath ? slash(dir) : `the ${dir[dir.length - 1]} folder`} containing '${text}'.`),
        steps: [...g.steps, call('touch', { file_name: name }), call('echo', { content: text, file_name: name }), reply(`Created ${name} in ${dir[dir.length - 1]} with '${text}'.`)],
        items: [...g.items,
          { question: `Did the agent create ${name}?`, focus_on: 'touch before echo', cond: { kind: 'called', tool: 'touch', args: { file_name: name }, ok: true }, weight: 1 },
          { question: `Did the agent write '${text}' into ${name}?`, focus_on: 'echo content and file',
            cond: { kind: 'called', tool: 'echo', args: { content: text, file_name: name }, ok: true }, weight: 2, required: true },
          { question: 'Did the agent confirm?', focus_on: 'reply content', cond: { kind: 'reply_contains', text: [name] }, weight: 1 }],
      }];
    }
    case 'move_new': {
      const f = pickFile(c, (d) => c.d >= 2 || d.length <= 1);
      if (!f) return null;
      const [dir, name] = f;
      const taken = allNames(c.fs.root);
      const newDir = newDirName(rng, (x) => taken.has(x));
      const g = goto(c, dir);
      c.fs.mkdir(newDir); c.fs.mv(name, newDir);
      c.tags.add('mkdir_before_mv');
      return [{
        user: lead(also, `Put ${where(c, dir, name, usePath)} into a new folder called ${newDir} next to it.`),
        steps: [...g.steps, call('mkdir', { dir_name: newDir }), call('mv', { source: name, destination: newDir }), reply(`Moved ${name} into the new folder ${newDir}.`)],
        items: [...g.items,
          { question: `Did the agent create the folder ${newDir} first?`, focus_on: 'mkdir before mv (else mv renames the file)',
            cond: { kind: 'called', tool: 'mkdir', args: { dir_name: newDir }, ok: true }, weight: 1 },
          { question: `Did the agent move ${name} into ${newDir}?`, focus_on: 'mv arguments',
            cond: { kind: 'called', tool: 'mv', args: { source: name, destination: newDir }, ok: true }, weight: 2, required: true },
          { question: 'Did the agent confirm?', focus_on: 'reply content', cond: { kind: 'reply_contains', text: [newDir] }, weight: 1 }],
      }];
    }
    case 'rename': {
      const f = pickFile(c, (d) => c.d >= 2 || d.length <= 1);
      if (!f) return null;
      const [dir, name] = f;
      const here = c.fs.dirAt(dir);
      const { name: to } = newFileName(rng, (x) => x in here.contents, name.split('.').pop() as 'txt');
      const g = goto(c, dir);
      c.fs.mv(name, to);
      return [{
        user: lead(also, `Rename ${where(c, dir, name, usePath)} to ${to}.`),
        steps: [...g.steps, call('mv', { source: name, destination: to }), reply(`Renamed ${name} to ${to}.`)],
        items: [...g.items,
          { question: `Did the agent rename ${name} to ${to}?`, focus_on: 'mv arguments and directory',
            cond: { kind: 'called', tool: 'mv', args: { source: name, destination: to }, ok: true }, weight: 2, required: true },
          { question: 'Did the agent confirm?', focus_on: 'reply content', cond: { kind: 'reply_contains', text: [to] }, weight: 1 }],
      }];
    }
    case 'rename_conflict': {
      const dirsWith2 = c.fs.dirs().filter((d) => Object.values(c.fs.dirAt(d).contents).filter((n) => n.type === 'file').length >= 2);
      if (!dirsWith2.length) return null;
      const dir = rng.pick(dirsWith2);
      const [a, b] = rng.sample(Object.entries(c.fs.dirAt(dir).contents).filter(([, n]) => n.type === 'file').map(([k]) => k), 2);
      const g = goto(c, dir);
      const folder = dir[dir.length - 1];
      c.tags.add('rename_conflict');
      const t1: TurnPlan = {
        user: lead(also, `In ${usePath ? slash(dir) : `the ${folder} folder`}, rename ${a} to ${b}.`),
        steps: [...g.steps, call('ls'), reply(`${b} already exists in ${folder}, so I did not rename ${a}. Should I delete the old ${b} first?`)],
        items: [...g.items,
          { question: `Did the agent check the folder contents before renaming?`, focus_on: 'look before writing', cond: { kind: 'called', tool: 'ls', ok: true }, weight: 0.5 },
          { question: `Did the agent avoid mv ${a} -> ${b} (the name is taken)?`, focus_on: 'mv precondition',
            cond: { kind: 'not_called', tool: 'mv', args: { source: a, destination: b } }, weight: 1 },
          { question: `Did the agent tell the user that ${b} already exists?`, focus_on: 'reply content', cond: { kind: 'reply_contains', text: [b, 'exists'] }, weight: 2 }],
      };
      c.fs.rm(b); c.fs.mv(a, b);
      const t2: TurnPlan = {
        user: `Yes, delete the old ${b}, then do the rename.`,
        steps: [call('rm', { file_name: b }), call('mv', { source: a, destination: b }), reply(`Deleted the old ${b} and renamed ${a} to ${b}.`)],
        items: [
          { question: `Did the agent delete the old ${b}?`, focus_on: 'rm argument', cond: { kind: 'called', tool: 'rm', args: { file_name: b }, ok: true }, weight: 1 },
          { question: `Did the agent rename ${a} to ${b}?`, focus_on: 'mv arguments', cond: { kind: 'called', tool: 'mv', args: { source: a, destination: b }, ok: true }, weight: 2, required: true },
          { question: 'Did the agent confirm?', focus_on: 'reply content', cond: { kind: 'reply_contains', text: [b] }, weight: 1 }],
      };
      return [t1, t2];
    }
    case 'missing_dir': {
      const taken = [...allNames(c.fs.root)];
      // not even a substring of an existing name, so find's substring match comes back empty
      const missing = newDirName(rng, (x) => taken.some((t) => t.includes(x)));
      const g = goto(c, []);
      c.tags.add('missing_dir');
      return [{
        user: lead(also, `List the files in the ${missing} folder.`),
        steps: [...g.steps, call('find', { name: missing }), reply(`There is no folder named ${missing}.`)],
        items: [
          { question: `Did the agent avoid cd into ${missing}, which does not exist?`, focus_on: 'cd precondition',
            cond: { kind: 'not_called', tool: 'cd', args: { folder: missing } }, weight: 1 },
          { question: `Did the agent tell the user there is no folder ${missing}?`, focus_on: 'reply content', cond: { kind: 'reply_contains', text: ['no folder', missing] }, weight: 2 }],
      }];
    }
    case 'find': {
      const names = c.fs.files().map(([, n]) => n);
      const dirNames = c.fs.dirs().map((d) => d[d.length - 1]);
      const f = pickFile(c, (_d, n) => [...names, ...dirNames].filter((x) => x.includes(n)).length === 1);
      if (!f) return null;
      const [dir, name] = f;
      const g = goto(c, []);
      const rel = slash(dir, name);
      return [{
        user: lead(also, `Where is ${name}? I can't find it.`),
        steps: [...g.steps, call('find', { name }), reply(`${name} is at ${rel}.`)],
        items: [
          { question: `Did the agent search for ${name}?`, focus_on: 'find name', cond: { kind: 'called', tool: 'find', args: { name }, ok: true }, weight: 1 },
          { question: `Did the agent give the location ${rel}?`, focus_on: 'reply content', cond: { kind: 'reply_contains', text: [rel] }, weight: 2, required: true }],
      }];
    }
    case 'backup': {
      const f = pickFile(c, (d) => c.d >= 2 || d.length <= 1);
      if (!f) return null;
      const [dir, name] = f;
      const dot = name.lastIndexOf('.');
      const to = `${name.slice(0, dot)}_backup${name.slice(dot)}`;
      if (to in c.fs.dirAt(dir).contents) return null;
      const g = goto(c, dir);
      c.fs.cp(name, to);
      return [{
        user: lead(also, `Make a copy of ${where(c, dir, name, usePath)} named ${to}.`),
        steps: [...g.steps, call('cp', { source: name, destination: to }), reply(`Copied ${name} to ${to}.`)],
        items: [...g.items,
          { question: `Did the agent copy ${name} to ${to}?`, focus_on: 'cp arguments and directory',
            cond: { kind: 'called', tool: 'cp', args: { source: name, destination: to }, ok: true }, weight: 2, required: true },
          { question: 'Did the agent confirm?', focus_on: 'reply content', cond: { kind: 'reply_contains', text: [to] }, weight: 1 }],
      }];
    }
  }
}

const POOL: Record<number, Intent[]> = {
  1: ['read', 'count', 'create', 'rename', 'find', 'backup'],
  2: ['read', 'grep', 'count', 'tail', 'create', 'move_new', 'missing_dir', 'backup', 'rename'],
  3: ['read', 'grep', 'count', 'tail', 'create', 'move_new', 'missing_dir', 'backup', 'rename', 'rename_conflict', 'find'],
};

/**
 * How much of the starting tree the user's first message shows: nothing (the default world), the top folder's
 * entries, or the whole tree; `live` shows the top folder and then, after every call, the working folder
 * (LiveFolderEnv). The simulator can only foresee a state error (cd into a folder that is not there, cat
 * of a file in another folder) from what its prompt shows; the level where the simulator gate holds is where
 * world rehearsal can be tested fairly.
 */
export type Visibility = 'none' | 'folder' | 'all' | 'live' | 'lines';
export const VISIBILITIES: readonly Visibility[] = ['none', 'folder', 'all', 'live', 'lines'];

/** "docs/ (notes.txt, old/ (a.txt)), music/ (), todo.txt": folders first as the backend lists them, then files. */
export function describeTree(d: FsDir, depth: number): string {
  const entries = Object.entries(d.contents).map(([n, node]) => (node.type === 'file' ? n
    : depth > 1 ? `${n}/ (${describeTree(node, depth - 1)})` : `${n}/`));
  return entries.join(', ');
}

/**
 * Every folder of the tree as `~/path: entries` (folders with a slash), the form of the files state line
 * (env.ts relativeFolderLine): at the `lines` level the state a call starts from is one of these lines, verbatim.
 */
export function folderLines(d: FsDir, path: string): string[] {
  const here = `${path}: ${describeTree(d, 1)}`;
  return [here, ...Object.entries(d.contents).flatMap(([n, node]) => (node.type === 'file' ? [] : folderLines(node, `${path}/${n}`)))];
}

/** The user's first message with the starting tree in front of the request. */
export function withTreeShown(request: string, root: FsDir, v: Visibility): string {
  if (v === 'none') return request;
  if (v === 'lines') return `My folders:\n${folderLines(root, '~').join('\n')}\n${request}`;
  // live shows the top folder too: the first call has no earlier result to read the folder from.
  const listing = describeTree(root, v === 'all' ? Infinity : 1);
  return `My top folder has: ${listing || 'nothing'}. ${request}`;
}

export function generateFiles(seed: number, difficulty: number, visibility: Visibility = 'none'): TaskPlan {
  const rng = new Rng(seed);
  const { rootName, root } = generateTree(rng, difficulty === 1
    ? { topDirs: [2, 3], subdirChance: 0, rootFiles: [0, 1] }
    : { topDirs: [2, 3], subdirChance: 0.6, rootFiles: [0, 2] });
  const scenario = toScenario(rootName, root);
  let proto: Environment | null = null;   // built on the first makeEnv(), cloned after that
  const fs = new FsModel(rootName, structuredClone(root) as FsDir);
  const c: Ctx = { rng, d: difficulty, fs, tags: new Set(), turn: 0 };
  const nTurns = difficulty === 1 ? 1 : difficulty === 2 ? rng.int(1, 2) : rng.int(2, 3);
  const turns: TurnPlan[] = [];
  let guard = 0;
  let last: Intent | null = null;
  const used = new Set<Intent>();
  while (turns.length < nTurns && guard++ < 50) {
    const pool = POOL[difficulty];
    // the two-turn conflict is the signature d3 task: prefer it first
    const intent: Intent = difficulty === 3 && turns.length === 0 && rng.chance(0.4) ? 'rename_conflict' : rng.pick(pool);
    // variety: no intent twice in a row, and at most one missing-folder question per task
    if (intent === last || (intent === 'missing_dir' && used.has(intent))) continue;
    if (intent === 'rename_conflict' && turns.length + 2 > 3) continue;   // at most 3 user turns
    const planned = planTurn(c, intent);
    if (!planned) continue;
    last = intent; used.add(intent);
    turns.push(...planned);
    c.turn = turns.length;
  }
  if (turns.length === 0) turns.push(...planTurn(c, 'missing_dir')!);
  turns[0] = { ...turns[0], user: withTreeShown(turns[0].user, root, visibility) };
  const names = new Set([...CORE_TOOLS, ...toolsUsed(turns)]);
  if (turns.some((t) => t.items.some((i) => i.cond.kind === 'called' && i.cond.tool === 'echo'))) names.add('touch');
  if (names.has('mv')) names.add('mkdir');
  const toolNames = TOOL_ORDER.filter((n) => names.has(n));
  return {
    turns,
    tags: [...c.tags],
    makeEnv: () => {
      const env = new RestrictedEnv((proto ??= createWorldFsEnv(scenario)).clone(), toolNames, schemas());
      return visibility === 'live' ? new LiveFolderEnv(env) : env;
    },
  };
}

const FILES_DESCRIPTION = 'File chores on a small generated directory tree (BFCL GorillaFileSystem tools): read, search, count, tail, create, move, rename, copy.';

export const filesWorld = defineWorld({
  name: 'files',
  description: FILES_DESCRIPTION,
  policy: FILES_POLICY,
  tools: () => TOOL_ORDER.map((n) => schemas()[n]).filter(Boolean),
  generate: (seed, d) => generateFiles(seed, d, 'none'),
  stateOf: (env: Environment) => fsStateOf(env),
  stateLine: folderCheckLine,
});

/** The files world at a visibility level: the same seeds, splits and tasks, the starting tree shown to the user's first turn. */
function filesAt(v: Exclude<Visibility, 'none'>, shown: string) {
  return defineWorld({
    name: `files-${v}`, seedsOf: 'files',
    description: `${FILES_DESCRIPTION} The user's first message shows ${shown}.`,
    policy: FILES_POLICY,
    tools: filesWorld.tools,
    generate: (seed, d) => generateFiles(seed, d, v),
    stateOf: (env: Environment) => fsStateOf(env),
  stateLine: folderCheckLine,
  });
}
export const filesFolderWorld = filesAt('folder', "the top folder's entries");
export const filesLiveWorld = filesAt('live', "the top folder's entries, and every tool result ends with the working folder and its entries");
export const filesAllWorld = filesAt('all', 'the whole starting tree');
export const filesLinesWorld = filesAt('lines', 'every folder of the starting tree on its own line, as `~/path: entries`');
