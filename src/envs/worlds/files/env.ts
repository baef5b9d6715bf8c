// Adapter between the files world and the BFCL port: a BfclEnvironment over one GorillaFileSystem whose
// scenario is the generated tree. Function docs are built in (short, abridged from BFCL's) instead of
// read from the shared data folder, so the world also runs in the browser worker.

import type { Environment, ToolSchema } from '../../types';
import { BfclEnvironment, type BfclFuncDoc, type BfclParamSchema } from '../../bfcl/env';
import { PyDirectory, PyFile, type GorillaFileSystem } from '../../bfcl/backends/gorilla_file_system';
import type { FsScenario } from './tree';
import { RestrictedEnv } from '../common';

const str = (description: string) => ({ type: 'string', description });

/** JSON schemas of the GorillaFileSystem methods the world uses (BFCL's function docs, abridged). */
export const FS_TOOL_SCHEMAS: ToolSchema[] = [
  { name: 'pwd', description: 'Return the current working directory path.', parameters: { type: 'object', properties: {}, required: [] } },
  { name: 'ls', description: 'List the contents of the current directory.', parameters: { type: 'object', properties: { a: { type: 'boolean', description: 'Show hidden files and directories.' } }, required: [] } },
  { name: 'cd', description: 'Change the current working directory to the specified folder.', parameters: { type: 'object', properties: { folder: str('The folder to change to, one level at a time.') }, required: ['folder'] } },
  { name: 'find', description: 'Find files or directories under path whose name contains name.', parameters: { type: 'object', properties: { path: str("The directory to start from. Defaults to '.'."), name: str('Part of the name to look for.') }, required: [] } },
  { name: 'cat', description: 'Display the contents of a file in the current directory.', parameters: { type: 'object', properties: { file_name: str('The file name, no path.') }, required: ['file_name'] } },
  { name: 'grep', description: 'Lines of a file in the current directory that contain pattern.', parameters: { type: 'object', properties: { file_name: str('The file name, no path.'), pattern: str('The text to search for.') }, required: ['file_name', 'pattern'] } },
  { name: 'wc', description: 'Count lines, words or characters of a file.', parameters: { type: 'object', properties: { file_name: str('The file name, no path.'), mode: { type: 'string', enum: ['l', 'w', 'c'], description: "'l' lines, 'w' words, 'c' characters. Defaults to 'l'." } }, required: ['file_name'] } },
  { name: 'tail', description: 'Display the last lines of a file.', parameters: { type: 'object', properties: { file_name: str('The file name, no path.'), lines: { type: 'integer', description: 'Number of lines. Defaults to 10.' } }, required: ['file_name'] } },
  { name: 'mkdir', description: 'Create a new directory in the current directory.', parameters: { type: 'object', properties: { dir_name: str('The directory name.') }, required: ['dir_name'] } },
  { name: 'touch', description: 'Create a new empty file in the current directory.', parameters: { type: 'object', properties: { file_name: str('The file name.') }, required: ['file_name'] } },
  { name: 'echo', description: 'Write content to an existing file in the current directory, or display it.', parameters: { type: 'object', properties: { content: str('The content.'), file_name: str('The file to write to.') }, required: ['content'] } },
  { name: 'mv', description: 'Move or rename a file or directory within the current directory.', parameters: { type: 'object', properties: { source: str('The name to move.'), destination: str('The new name, or an existing directory.') }, required: ['source', 'destination'] } },
  { name: 'cp', description: 'Copy a file or directory within the current directory.', parameters: { type: 'object', properties: { source: str('The name to copy.'), destination: str('The new name, or an existing directory.') }, required: ['source', 'destination'] } },
  { name: 'rm', description: 'Remove a file or directory.', parameters: { type: 'object', properties: { file_name: str('The name to remove.') }, required: ['file_name'] } },
];

/** The schemas above as BFCL function docs, so BfclEnvironment validates calls exactly as for BFCL tasks. */
export const FS_FUNC_DOCS: BfclFuncDoc[] = FS_TOOL_SCHEMAS.map((t) => ({
  name: t.name, description: t.description,
  parameters: { ...(t.parameters as BfclParamSchema), type: 'dict' },
}));

const CLASS = 'GorillaFileSystem';
const DOCS = { [CLASS]: FS_FUNC_DOCS };

/** {name: {type:'file', content} | {type:'directory', contents}} in insertion order; parents dropped. */
export function plainTree(d: PyDirectory): Record<string, unknown> {
  const out: Record<string, unknown> = {};
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
  const inner = env instanceof RestrictedEnv ? env.unwrap() : env;
  if (!(inner instanceof BfclEnvironment)) throw new Error(`files world: expected a BfclEnvironment, got ${inner.name}`);
  const fs = inner.backend(CLASS) as GorillaFileSystem;
  return plainTree(fs.root);
}
