// A synthetic lookup drill for the Rehearse role's state line (`npm run sft --line-mix`): a starting tree shown
// as `~/path: entries` lines (the files-lines level's first message), a few `cd`s, then a call; the target is the
// think the role writes before it answers, `<think>~/path: entries; name: file|folder|absent</think>`. Names are
// random pseudo-words, so no prior over names helps: the line must be found by its path and copied, the name
// looked up in it. The think-state runs learned the decision from the line (AUC 0.99 given the true line) but
// wrote the entries from their prior; a row here is ~100 tokens where a conversation's Rehearse row is ~400, so
// the one skill gets many more updates per CPU-minute.

import type { Rng as EngineRng } from '../engine/rng';
import { Rng } from '../envs/worlds/rng';
import { FILE_NAME_WORDS, generateTree, type FsDir } from '../envs/worlds/files/tree';
import { folderLines } from '../envs/worlds/files/world';
import { END_TOKEN, ROLE_TOKENS } from './chatTemplate';
import { mentionsOfLines } from './prompts';
import { THINK_CLOSE, THINK_OPEN } from './protocol';
import { scrambleExamples } from './scramble';
import type { SftExample } from './sft';

const TOOLS: [string, string][] = [['cat', 'file_name'], ['cd', 'folder'], ['touch', 'file_name'], ['ls', 'a'], ['mkdir', 'dir_name'], ['wc', 'file_name']];

/** Folder paths of a tree, below the top (`[]` is the top). */
function folders(d: FsDir, path: string[] = []): string[][] {
  return [path, ...Object.entries(d.contents).flatMap(([n, node]) => (node.type === 'directory' ? folders(node, [...path, n]) : []))];
}

function at(root: FsDir, path: string[]): FsDir {
  return path.reduce((d, n) => d.contents[n] as FsDir, root);
}

/**
 * One drill row: the tree, the cds from the top to a folder, a call naming an entry there, one elsewhere, or a new
 * one (a third each). With thirds, "absent" is right for two rows in three whatever the line says. `present`, when
 * given, is the share naming an entry there; the rest name one elsewhere, and the kind (file or folder) is drawn
 * apart, so at 0.5 neither the answer's base rate nor the name's form beats chance: only the lookup does.
 */
function drillRow(seed: number, id: string, present?: number, mentions = false): SftExample {
  const rng = new Rng(seed);
  const { root } = generateTree(rng, { topDirs: [2, 3], subdirChance: 0.6, rootFiles: [0, 2] });
  const paths = folders(root);
  const path = rng.pick(paths);
  const here = at(root, path);
  const inHere = Object.keys(here.contents);
  const elsewhere = paths.filter((p) => p.join('/') !== path.join('/')).flatMap((p) => Object.keys(at(root, p).contents)).filter((n) => !inHere.includes(n));
  let name: string;
  if (present === undefined) {
    const which = rng.int(0, 2);
    name = which === 0 && inHere.length ? rng.pick(inHere) : which === 1 && elsewhere.length ? rng.pick(elsewhere) : `${rng.pick(FILE_NAME_WORDS)}_new.txt`;
  } else {
    // No answer readable from the name's form: absent names come from other folders (a new one only where there
    // is none), and on both sides a folder or a file is named about equally often where both exist.
    const isDir = (n: string) => paths.some((p) => at(root, p).contents[n]?.type === 'directory');
    const pool = rng.float() < present && inHere.length ? inHere : elsewhere;
    const wantDir = rng.float() < 0.5;
    const sameKind = pool.filter((n) => isDir(n) === wantDir);
    name = pool.length ? rng.pick(sameKind.length ? sameKind : pool) : `${rng.pick(FILE_NAME_WORDS)}_new.txt`;
  }
  const node = here.contents[name];
  const fact = node ? (node.type === 'directory' ? 'folder' : 'file') : 'absent';
  const [tool, param] = rng.pick(TOOLS);
  const history = path.map((n) => `Assistant: <tool_call>\n{"name":"cd","arguments":{"folder":"${n}"}}\n</tool_call>\nTool[cd]: {"current_working_directory":"${n}"}\n`).join('');
  const line = folderLines(here, `~${path.map((n) => `/${n}`).join('')}`)[0];
  const conversation = `User: My folders:\n${folderLines(root, '~').join('\n')}\n${history}`;
  // The Rehearse prompt's mentions block (RehearsePromptOptions.mentions), for models trained with it.
  const block = mentions ? mentionsOfLines(conversation.trimEnd().split('\n'), { name: tool, arguments: { [param]: name } }) : null;
  return {
    taskId: id, role: 'rehearse',
    prompt: `${ROLE_TOKENS.user}Conversation:\n${conversation}\nCall to execute:\nname: ${tool}\narguments: {"${param}":"${name}"}${block ? `\n\n${block}` : ''}${END_TOKEN}\n${ROLE_TOKENS.assistant}`,
    target: `${THINK_OPEN}${line}; ${name}: ${fact}${THINK_CLOSE}`,
  };
}

/**
 * `n` drill rows, each its own one-row conversation with its own random names; a share `realNames` keeps the
 * world's own names, so the lookup also runs where a name prior competes with it (the real tasks' case).
 */
export function lineDrill(rng: EngineRng, n: number, tag = 'line', realNames = 0, present?: number, mentions = false): SftExample[] {
  const rows = Array.from({ length: n }, (_, i) => drillRow(rng.int(1 << 30), `${tag}-${i}-${rng.int(1 << 30)}`, present, mentions));
  const real = rows.map(() => realNames > 0 && rng.uniform() < realNames); // no draw at 0: earlier runs' rows stay as they were
  const scrambled = scrambleExamples(rows.filter((_, i) => !real[i]), rng, { words: [...FILE_NAME_WORDS], minDigits: Infinity });
  let j = 0;
  return rows.map((r, i) => (real[i] ? r : scrambled[j++]));
}

/** A state think's parts: `<think>~/docs: a.txt, old/; plan.md: absent</think>` → its line, path, entries and facts. */
export function stateThinkParts(think: string): { line: string; path: string; entries: Set<string>; facts: string } {
  const [line = '', ...facts] = think.replace(THINK_OPEN, '').replace(THINK_CLOSE, '').split('; ');
  const colon = line.indexOf(':');
  const entries = colon < 0 ? [] : line.slice(colon + 1).split(',').map((x) => x.trim()).filter(Boolean);
  return { line, path: colon < 0 ? line : line.slice(0, colon), entries: new Set(entries), facts: facts.join('; ') };
}

/** How much of a written line's entries are the true line's: Jaccard of the two sets (1 when both are empty). */
export function entryOverlap(written: string, truth: string): number {
  const x = stateThinkParts(written).entries, y = stateThinkParts(truth).entries;
  const either = new Set([...x, ...y]).size;
  return either ? [...x].filter((e) => y.has(e)).length / either : 1;
}
