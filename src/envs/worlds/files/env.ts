// Adapter between the files world and the BFCL port: a BfclEnvironment over one GorillaFileSystem whose
// scenario is the generated tree. Function docs are built in (short, abridged from BFCL's) instead of
// read from the shared data folder, so the world also runs in the browser worker.

import type { Environment, JSONSchema, Observation, ToolSchema } from '../../types';
import { BfclEnvironment, type BfclFuncDoc, type BfclParamSchema } from '../../bfcl/env';
import { PyDirectory, PyFile, type GorillaFileSystem } from '../../bfcl/backends/gorilla_file_system';
import type { FsScenario } from './tree';
import { RestrictedEnv } from '../common';

const str = (description: string): JSONSchema => ({ type: 'string', description });

const obj = (properties: Record<string, JSONSchema>, required: string[] = []): JSONSchema => ({ type: 'object', properties, required });

/**
 * The GorillaFileSystem methods the world uses, with short descriptions written for 1–2k-token policies
 * (BFCL's own docs run to several hundred tokens). Names and parameters are BFCL's.
 */
export const FS_TOOL_SCHEMAS: ToolSchema[] = [
  { name: 'pwd', description: 'Current directory path.', parameters: obj({}) },
  { name: 'ls', description: 'List the current directory.', parameters: obj({ a: { type: 'boolean', description: 'also hidden entries' } }) },
  { name: 'cd', description: "Change directory by one level: a folder name, or '..'.", parameters: obj({ folder: str('folder name') }, ['folder']) },
  { name: 'find', description: 'Paths under path whose name contains name.', parameters: obj({ path: str("default '.'"), name: str('part of the name') }) },
  { name: 'cat', description: 'Show a file of the current directory.', parameters: obj({ file_name: str('name, no path') }, ['file_name']) },
  { name: 'grep', description: 'Lines of a file containing pattern.', parameters: obj({ file_name: str('name, no path'), pattern: str('text') }, ['file_name', 'pattern']) },
  { name: 'wc', description: 'Count lines (l), words (w) or characters (c) of a file.', parameters: obj({ file_name: str('name, no path'), mode: { type: 'string', enum: ['l', 'w', 'c'], description: "default 'l'" } }, ['file_name']) },
  { name: 'tail', description: 'Last lines of a file.', parameters: obj({ file_name: str('name, no path'), lines: { type: 'integer', description: 'default 10' } }, ['file_name']) },
  { name: 'mkdir', description: 'Create a folder in the current directory.', parameters: obj({ dir_name: str('name') }, ['dir_name']) },
  { name: 'touch', description: 'Create an empty file in the current directory.', parameters: obj({ file_name: str('name') }, ['file_name']) },
  { name: 'echo', description: 'Write content into an existing file (or print it).', parameters: obj({ content: str('text'), file_name: str('existing file') }, ['content']) },
  { name: 'mv', description: 'Rename, or move into an existing folder. Names only.', parameters: obj({ source: str('name'), destination: str('new name or folder') }, ['source', 'destination']) },
  { name: 'cp', description: 'Copy, or copy into an existing folder. Names only.', parameters: obj({ source: str('name'), destination: str('new name or folder') }, ['source', 'destination']) },
  { name: 'rm', description: 'Remove a file or folder.', parameters: obj({ file_name: str('name') }, ['file_name']) },
];

/** The schemas above as BFCL function docs, so BfclEnvironment validates calls exactly as for BFCL tasks. */
export const FS_FUNC_DOCS: BfclFuncDoc[] = FS_TOOL_SCHEMAS.map((t) => ({
  name: t.name, description: t.description,
  parameters: { ...(t.parameters as BfclParamSchema), type: 'dict' },
}));

const CLASS = 'GorillaFileSystem';
const DOCS = { [CLASS]: FS_FUNC_DOCS };

/**
 * {name: {type:'file', content} | {type:'directory', contents}} in insertion order; parents dropped. A
 * null-prototype object, so every name is an own key: a file named '__proto__' is an entry (with a plain
 * object, assigning it would set the prototype and drop the file from the state).
 */
export function plainTree(d: PyDirectory): Record<string, unknown> {
  const out: Record<string, unknown> = Object.create(null);
  for (const [k, v] of d.contents) {
    out[String(k)] = v instanceof PyFile ? { type: 'file', content: v.content } : { type: 'directory', contents: plainTree(v as PyDirectory) };
  }
  return out;
}

export function createWorldFsEnv(scenario: FsScenario): Environment {
  return new BfclEnvironment({ id: 'files-world', involved_classes: [CLASS], initial_config: { [CLASS]: scenario } }, { funcDocs: DOCS });
}

/** The outcome is the tree (names, kinds, contents), not the cwd: where the agent ends up is its business. */
export function fsStateOf(env: Environment): unknown {
  return plainTree(fileSystemOf(env).root);
}

function fileSystemOf(env: Environment): GorillaFileSystem {
  const inner = env instanceof RestrictedEnv || env instanceof LiveFolderEnv ? env.unwrap() : env;
  if (!(inner instanceof BfclEnvironment)) throw new Error(`files world: expected a BfclEnvironment, got ${inner.name}`);
  return inner.backend(CLASS) as GorillaFileSystem;
}

/** Where the session is and what that folder holds: `/alex/docs: notes.txt, old/` (folders with a slash). */
export function folderLine(env: Environment): string {
  const fs = fileSystemOf(env);
  const cwd = (fs.pwd() as Map<string, string>).get('current_working_directory');
  const entries = [...fs.workingDirectory.contents].map(([k, v]) => (v instanceof PyDirectory ? `${String(k)}/` : String(k)));
  return `${cwd}: ${entries.join(', ')}`;
}

/**
 * folderLine with the path from the top folder (`~/docs: notes.txt, old/`): the top folder's own name is in no
 * message until a `pwd`, so a line that a simulator writes must not start with it.
 */
export function relativeFolderLine(env: Environment): string {
  const top = `/${fileSystemOf(env).root.name}`;
  const line = folderLine(env);
  return line.startsWith(`${top}:`) || line.startsWith(`${top}/`) ? `~${line.slice(top.length)}` : line;
}

/** The arguments that name an entry of the working folder (a `find`'s path and name, a pattern, content do not). */
const ENTRY_ARGUMENTS = ['folder', 'file_name', 'source', 'destination', 'dir_name'];

/**
 * relativeFolderLine, then what each name the call uses is here: `~: notes.txt, old/; old: folder; plan.md: absent`.
 * Most of the files world's errors are one of these facts (a file elsewhere, a folder that is a file, a name taken),
 * and written next to the listing they are a lookup of a name just written in a list just written.
 */
export function folderCheckLine(env: Environment, call?: { name: string; arguments: Record<string, unknown> }): string {
  const line = relativeFolderLine(env);
  if (!call) return line;
  const here = fileSystemOf(env).workingDirectory.contents;
  const facts = ENTRY_ARGUMENTS.flatMap((k) => {
    const v = call.arguments?.[k];
    if (typeof v !== 'string' || v === '' || v === '..' || v.includes('/')) return [];
    const e = here.get(v);
    return [`${v}: ${e === undefined ? 'absent' : e instanceof PyDirectory ? 'folder' : 'file'}`];
  });
  return [line, ...facts].join('; ');
}

/**
 * The files world's `live` visibility level: every tool result, error or not, ends with where the session now is
 * and what that folder holds (`"now_in": "/alex/docs: notes.txt, old/"`, folders with a slash). The state a call
 * depends on is then in the conversation's last result instead of implied by every `cd` before it, so a simulator
 * that reads it can foresee the state errors the other levels leave to inference.
 */
export class LiveFolderEnv implements Environment {
  readonly name: string;
  constructor(private readonly inner: RestrictedEnv) { this.name = inner.name; }
  tools(): ToolSchema[] { return this.inner.tools(); }
  call(name: string, args: unknown): Observation {
    const obs = this.inner.call(name, args);
    return { ...obs, text: withFolderShown(obs.text, folderLine(this.inner)) };
  }
  snapshot(): unknown { return this.inner.snapshot(); }
  clone(): Environment { return new LiveFolderEnv(this.inner.clone() as RestrictedEnv); }
  unwrap(): Environment { return this.inner.unwrap(); }
}

/** A JSON object result gains a last key; anything else (`None` from a write) gets the key on a line of its own. */
export function withFolderShown(text: string, folder: string): string {
  const t = text.trimEnd();
  if (!t.startsWith('{') || !t.endsWith('}')) return `${text}\n{"now_in": ${JSON.stringify(folder)}}`;
  return `${t.slice(0, -1)}${t === '{}' ? '' : ', '}"now_in": ${JSON.stringify(folder)}}`;
}
