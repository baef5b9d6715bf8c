// τ² tasks as the playground's shared `Task` shape (one scripted user turn, the gold actions as the expert
// reference, a rule checklist, and τ²'s DB-hash check as the outcome verifier).

import type { ChecklistItem, Environment, Message, Task } from '../types';
import { pyJsonDumps } from '../python';
import type { Tau2Task } from './tasks';
import type { Tau2Environment, Tau2Store } from './toolkit';
import { ScriptedUser } from './user';

type AnyEnv = Tau2Environment<Tau2Store<any>>;

export interface Tau2DomainLike {
  domain: string;
  policy: string;
  split: Record<string, string[]> | null;
  makeEnv(): AnyEnv;
}

const hashOf = (env: Environment): string | null => {
  const e = env as Environment & { hash?: () => string; unwrap?: () => Environment };
  if (typeof e.hash === 'function') return e.hash();
  return typeof e.unwrap === 'function' ? hashOf(e.unwrap()) : null;
};

export function toPlaygroundTask(d: Tau2DomainLike, task: Tau2Task): Task {
  const world = `tau2-${d.domain}`;
  const fresh = (): AnyEnv => {
    const env = d.makeEnv();
    env.setState(task.initial_state);
    return env;
  };
  const actions = task.evaluation_criteria?.actions ?? [];
  const instr = task.user_scenario.instructions;
  const user = new ScriptedUser(task);
  // The playground replays fixed user turns, so the one turn carries everything the user may say.
  const opening = [user.start().content, typeof instr === 'string' ? '' : user.respond('Please give your email or name and zip.').content]
    .filter((s) => s && !s.includes('###')).join(' ');

  // Replaying the gold actions costs a DB hash, so it runs on first use only.
  let goldRun: { reference: Message[]; hash: string } | undefined;
  const gold = () => {
    if (goldRun) return goldRun;
    const env = fresh();
    const reference: Message[] = [{ role: 'user', content: opening }];
    for (const a of actions) {
      const r = env.getResponse({ id: a.action_id, name: a.name, arguments: a.arguments, requestor: a.requestor });
      reference.push({ role: 'assistant', content: '', toolCalls: [{ name: a.name, arguments: a.arguments }] });
      reference.push({ role: 'tool', name: a.name, content: r.content, error: r.error });
    }
    reference.push({ role: 'assistant', content: info.length ? `Done. ${info.join('; ')}` : 'Done.' });
    goldRun = { reference, hash: env.hash() };
    return goldRun;
  };
  const info = task.evaluation_criteria?.communicate_info ?? [];

  const items: Omit<ChecklistItem, 'weight'>[] = [
    ...actions.map((a, i) => ({
      id: `action_${i}`,
      question: `Did the agent call ${a.name}(${pyJsonDumps(a.arguments)})?`,
      focus_on: a.name,
      pass_condition: { kind: 'called' as const, tool: a.name, args: a.arguments },
      required_for_next_turn: false,
    })),
    ...info.map((text, i) => ({
      id: `inform_${i}`,
      question: `Did the agent tell the user "${text}"?`,
      focus_on: 'reply',
      pass_condition: { kind: 'reply_contains' as const, text: [text] },
      required_for_next_turn: false,
    })),
  ];
  const checklist = items.length ? [items.map((it) => ({ ...it, weight: 1 / items.length }))] : [[]];
  const split = d.split?.train?.includes(task.id) ? 'train' : 'test';

  return {
    id: `${world}-${task.id}`,
    world,
    split,
    difficulty: Math.min(5, Math.max(1, Math.ceil(actions.length / 2))),
    userTurns: [opening],
    get reference() { return gold().reference; },
    checklist,
    policy: d.policy,
    makeEnv: fresh,
    verify(final: Environment) {
      const h = hashOf(final);
      if (h === null) return { passed: false, reason: 'environment has no DB hash' };
      return h === gold().hash
        ? { passed: true, reason: 'final DB matches the gold replay' }
        : { passed: false, reason: 'final DB differs from the gold replay' };
    },
  };
}
