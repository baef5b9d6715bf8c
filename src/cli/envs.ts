// npm run envs -- <command>
//   list [--n 10000] [--sample 200]         worlds, tools, task counts per split/difficulty over seeds [0, n),
//                                           and (with --sample) generation speed and reference sizes
//   show --world retail --seed 3 [--json]   one task: user turns, reference conversation, checklist, split…
//   call --world files --seed 3 --tool ls --args '{}'
//                                           run one call on the task's initial env, print the observation
//   call --world files --seed 3 --calls '[{"name":"cd","arguments":{"folder":"docs"}},{"name":"ls"}]'
//                                           run a sequence on one env (observations printed in order)
// Everything printed comes from the same code the trainer uses (src/envs/worlds, src/envs/judges).

import { getWorld, listWorlds, replayReference, taskData, worldNames } from '../envs/worlds/index';
import { explainVerdict, judgeEpisode } from '../envs/judges';
import type { ChecklistItem, Message, PassCondition } from '../envs/types';
import { parseCliArgs, usage, type CliDef, type CliValues, type OptSpec } from './args';
import { ENVS_CALL_CLI, ENVS_LIST_CLI, ENVS_SHOW_CLI, exitOnArgsError, pickSubcommand } from './defs';
import { callsOf, runCalls, type CallArgs } from './envs-call';

type ListArgs = CliValues<typeof ENVS_LIST_CLI.options>;
type ShowArgs = CliValues<typeof ENVS_SHOW_CLI.options>;


function condText(c: PassCondition): string {
  switch (c.kind) {
    case 'called': return `called ${c.tool}${c.args ? ' ' + JSON.stringify(c.args) : ''}${c.ok ? ' (ok)' : ''}`;
    case 'not_called': return `not_called ${c.tool}${c.args ? ' ' + JSON.stringify(c.args) : ''}`;
    case 'reply_contains': return `reply_contains ${JSON.stringify(c.text)}`;
    case 'result_contains': return `result_contains ${c.tool} ${JSON.stringify(c.text)}`;
  }
}

function messageText(m: Message): string {
  switch (m.role) {
    case 'system': return `[system] ${m.content}`;
    case 'user': return `[user] ${m.content}`;
    case 'assistant': return m.toolCalls?.length
      ? m.toolCalls.map((c) => `[call] ${c.name}(${JSON.stringify(c.arguments)})`).join('\n')
      : `[assistant] ${m.content}`;
    case 'tool': return `[${m.error ? 'tool ERROR' : 'tool'}] ${m.content}`;
  }
}

function itemText(it: ChecklistItem): string {
  return `  ${it.id} w=${it.weight.toFixed(3)}${it.required_for_next_turn ? ' REQUIRED' : ''} ${it.question}\n      -> ${condText(it.pass_condition)}`;
}

function cmdList(opts: ListArgs): void {
  const { n, sample } = opts;
  for (const w of listWorlds()) {
    console.log(`${w.name}: ${w.description}`);
    console.log(`  tools (${w.tools().length}): ${w.tools().map((t) => t.name).join(', ')}`);
    const counts: Record<string, number> = Object.create(null);
    for (let s = 0; s < n; s++) {
      const k = `${w.splitOf(s)}/d${w.difficultyOf(s)}`;
      counts[k] = (counts[k] ?? 0) + 1;
    }
    console.log(`  seeds 0..${n - 1}: ` + Object.keys(counts).sort().map((k) => `${k}=${counts[k]}`).join('  '));
    if (sample > 0) {
      const t0 = performance.now();
      let chars = 0; let turns = 0; let calls = 0;
      const tags: Record<string, number> = Object.create(null);
      for (let s = 0; s < sample; s++) {
        const t = w.task(s);
        chars += t.reference.reduce((a, m) => a + (m.role === 'assistant' && m.toolCalls ? JSON.stringify(m.toolCalls).length : m.content.length), 0);
        turns += t.userTurns.length;
        calls += t.reference.filter((m) => m.role === 'tool').length;
        for (const g of t.tags) tags[g] = (tags[g] ?? 0) + 1;
      }
      const sec = (performance.now() - t0) / 1000;
      console.log(`  sample of ${sample}: ${(sample / sec).toFixed(0)} tasks/s, reference ${(chars / sample).toFixed(0)} chars, `
        + `${(turns / sample).toFixed(2)} user turns, ${(calls / sample).toFixed(2)} calls per task`);
      console.log(`  tags: ${Object.entries(tags).map(([k, v]) => `${k}=${v}`).join('  ') || '(none)'}`);
    }
  }
}

function cmdShow(opts: ShowArgs): void {
  const w = getWorld(opts.world);
  const t = w.task(opts.seed);
  if (opts.json) { console.log(JSON.stringify(taskData(t), null, 2)); return; }
  console.log(`${t.id}  split=${t.split}  difficulty=${t.difficulty}  tags=${t.tags.join(',') || '-'}`);
  console.log(`tools: ${t.makeEnv().tools().map((x) => x.name).join(', ')}`);
  console.log(`policy:\n${t.policy.split('\n').map((l) => '  ' + l).join('\n')}`);
  console.log('\nuser turns:');
  t.userTurns.forEach((u, i) => console.log(`  ${i}. ${u}`));
  console.log('\nreference conversation:');
  for (const m of t.reference) console.log('  ' + messageText(m).replace(/\n/g, '\n  '));
  console.log('\nchecklist:');
  t.checklist.forEach((items, i) => { console.log(` turn ${i}:`); for (const it of items) console.log(itemText(it)); });
  // Replay the expert on a fresh env: the judge must give 1 and the outcome must match.
  const r = replayReference(t);
  console.log('\njudge on the replayed reference:');
  console.log(explainVerdict(judgeEpisode(t, r.turnSteps, r.env)));
  if (r.mismatches.length) console.log(`replay mismatches:\n  ${r.mismatches.join('\n  ')}`);
}

function cmdCall(opts: CallArgs): void {
  for (const { call: c, observation: obs } of runCalls(opts)) {
    if (opts.json) console.log(JSON.stringify({ call: c, observation: obs }));
    else console.log(`${c.name}(${JSON.stringify(c.arguments ?? {})})\n${obs.error ? '[error] ' : ''}${obs.text}`);
  }
}

function help(): void {
  console.log(`usage: npm run envs -- <list|show|call> [options]
  list [--n 10000] [--sample 200]
  show --world <${worldNames().join('|')}> --seed N [--json]
  call --world <name> --seed N --tool NAME [--args JSON] | --calls '[{"name":…,"arguments":{…}},…]' [--json]`);
}

const SUBCOMMANDS = ['list', 'show', 'call'] as const;
type Sub = (typeof SUBCOMMANDS)[number];
const DEFS = { list: ENVS_LIST_CLI, show: ENVS_SHOW_CLI, call: ENVS_CALL_CLI } as unknown as Record<Sub, CliDef<Record<string, OptSpec>>>;

function main(): void {
  const argv = process.argv.slice(2);
  if (argv.length === 0 || argv[0] === 'help' || argv[0] === '--help') return help();
  let sub: Sub;
  let opts: Record<string, unknown>;
  try {
    const picked = pickSubcommand('envs', SUBCOMMANDS, argv);
    sub = picked.sub;
    const parsed = parseCliArgs(DEFS[sub], picked.rest);
    if (parsed === 'help') { console.log(usage(DEFS[sub])); return; }
    opts = parsed;
    if (sub === 'call') callsOf(opts as CallArgs);   // argument problems before any work
  } catch (e) { exitOnArgsError('envs', e); }
  switch (sub) {
    case 'list': return cmdList(opts as ListArgs);
    case 'show': return cmdShow(opts as ShowArgs);
    case 'call': return cmdCall(opts as CallArgs);
  }
}

try {
  main();
} catch (e) {
  console.error(`envs: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
}
