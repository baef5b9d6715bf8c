// The proof that private rehearsal never touches the real environment.
//
// RecordingEnv wraps the environment a committed execution runs on and logs every call it receives.
// Its clone() hands out plain, unrecorded copies of the inner environment: everything that merely
// imagines (rehearsal attempts and their shadow executions) works on such copies, so after a run the
// log must hold exactly the committed trajectory's calls, and nothing else.

import type { Environment, Observation, ToolCall, ToolSchema } from '../envs/types';
import { sha256Hex } from '../envs/sha256';
import { canonicalJson } from '../agent/protocol';

export interface RecordedCall { name: string; arguments: unknown; error: boolean }

export class RecordingEnv implements Environment {
  readonly log: RecordedCall[] = [];
  constructor(readonly inner: Environment) {}
  get name(): string { return this.inner.name; }
  tools(): ToolSchema[] { return this.inner.tools(); }
  call(name: string, args: unknown): Observation {
    const obs = this.inner.call(name, args);
    // Arguments are copied: a caller mutating its object afterwards must not rewrite history.
    this.log.push({ name, arguments: args === undefined ? undefined : JSON.parse(JSON.stringify(args)), error: obs.error });
    return obs;
  }
  snapshot(): unknown { return this.inner.snapshot(); }
  clone(): Environment { return this.inner.clone(); }
}

/** A hash of an environment's state (canonical JSON of its snapshot). */
export function stateHash(env: Environment): string {
  return sha256Hex(canonicalJson(env.snapshot()));
}

/** The calls a recorded log holds, in the ToolCall shape trajectories use (for equality checks). */
export function loggedCalls(log: RecordedCall[]): ToolCall[] {
  return log.map((c) => ({ name: c.name, arguments: (c.arguments ?? {}) as Record<string, unknown> }));
}
