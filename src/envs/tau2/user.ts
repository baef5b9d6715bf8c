// The user side of a τ² conversation. `UserSimulator` is what an orchestrator talks to; an LLM user
// can implement it later from `renderUserScenario`. `ScriptedUser` is a deterministic stand-in that
// only uses what the task tells the user (reason for call, known info), so runs are reproducible.

import type { StructuredUserInstructions, Tau2Task } from './tasks';
import type { Tau2Message } from './toolkit';

export const STOP = '###STOP###';
export const TRANSFER = '###TRANSFER###';
export const OUT_OF_SCOPE = '###OUT-OF-SCOPE###';

/** A user message ends the conversation when it carries one of τ²'s stop tokens. */
export const isStopMessage = (text: string): boolean =>
  text.includes(STOP) || text.includes(TRANSFER) || text.includes(OUT_OF_SCOPE);

export interface UserTurn {
  content: string;
  /** True when `content` ends the conversation (it then contains a stop token). */
  stop: boolean;
}

export interface UserSimulator {
  /** The opening user message. */
  start(): UserTurn | Promise<UserTurn>;
  /** The reply to the agent's latest text message; `history` is the conversation so far. */
  respond(agentMessage: string, history: readonly Tau2Message[]): UserTurn | Promise<UserTurn>;
}

const indent = (s: string) => s.split('\n').map((l) => (l ? `\t${l}` : l)).join('\n');

/** The scenario text τ² gives its user simulator (UserScenario.__str__ layout). */
export function renderUserScenario(task: Tau2Task): string {
  const lines: string[] = [];
  const { persona, instructions } = task.user_scenario;
  if (persona != null) lines.push('Persona:', indent(persona));
  lines.push('Instructions:', indent(typeof instructions === 'string' ? instructions : renderInstructions(instructions)));
  return lines.join('\n');
}

function renderInstructions(i: StructuredUserInstructions): string {
  const lines = [`Domain: ${i.domain}`, `Reason for call:\n${indent(i.reason_for_call)}`];
  if (i.known_info != null) lines.push(`Known info:\n${indent(i.known_info)}`);
  if (i.unknown_info != null) lines.push(`Unknown info:\n${indent(i.unknown_info)}`);
  lines.push(`Task instructions:\n${indent(i.task_instructions)}`);
  return lines.join('\n');
}

// Task texts address the user as "you"; the scripted user speaks them in the first person.
function firstPerson(text: string): string {
  return text
    .replace(/\b([Yy])ou're\b/g, "I'm").replace(/\b([Yy])ou've\b/g, "I've")
    .replace(/\b([Yy])ou'd\b/g, "I'd").replace(/\b([Yy])ou'll\b/g, "I'll")
    .replace(/\b([Yy])ou are\b/g, 'I am').replace(/\b([Yy])ou were\b/g, 'I was')
    .replace(/\byourself\b/gi, 'myself').replace(/\bYour\b/g, 'My').replace(/\byour\b/g, 'my')
    .replace(/(^|[.,;:!?]\s+|\b(?:and|but|if|when|then|that|because|so|or)\s+)you\b/gi, '$1I')
    .replace(/\bYou\b/g, 'I').replace(/\byou\b/g, 'me');
}

const ASKS_IDENTITY = /\b(e-?mail|name|zip|user ?id|identif|verify|authenticat|account)\b/i;
const ASKS_CONFIRM = /\b(confirm|proceed|yes\/no|would you like me to|shall i|should i|do you want)\b/i;

/**
 * Scripted user: opens with the reason for the call, answers identity questions with the known info,
 * says yes to explicit confirmation requests, says it does not know anything else, and stops once it has
 * nothing new to say or after `maxTurns` replies.
 */
export class ScriptedUser implements UserSimulator {
  private turns = 0;
  private gaveKnownInfo = false;
  private confirmations = 0;

  constructor(private readonly task: Tau2Task, private readonly opts: { maxTurns?: number; maxConfirmations?: number } = {}) {}

  private get instructions(): StructuredUserInstructions | null {
    const i = this.task.user_scenario.instructions;
    return typeof i === 'string' ? null : i;
  }

  start(): UserTurn {
    const i = this.instructions;
    const text = i ? firstPerson(i.reason_for_call) : (this.task.ticket ?? this.task.user_scenario.instructions as string);
    return { content: text, stop: false };
  }

  respond(agentMessage: string): UserTurn {
    this.turns++;
    const stop = (): UserTurn => ({ content: STOP, stop: true });
    if (this.turns > (this.opts.maxTurns ?? 20)) return stop();
    const i = this.instructions;
    if (i?.known_info && !this.gaveKnownInfo && ASKS_IDENTITY.test(agentMessage)) {
      this.gaveKnownInfo = true;
      return { content: firstPerson(i.known_info), stop: false };
    }
    if (ASKS_CONFIRM.test(agentMessage) && this.confirmations < (this.opts.maxConfirmations ?? 5)) {
      this.confirmations++;
      return { content: 'Yes, please go ahead.', stop: false };
    }
    if (agentMessage.includes('?')) {
      if (i?.unknown_info) return { content: `Sorry, I can't help with that: ${firstPerson(i.unknown_info)}`, stop: false };
      return { content: "I don't know. Is there anything else you need from me?", stop: false };
    }
    return stop();
  }
}
