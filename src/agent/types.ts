import type { Message, Observation, ToolCall, Verdict } from '../envs/types';

export type Role = 'act' | 'rehearse';
export type RolloutMode = 'real' | 'simulator' | 'rehearsal';

export interface Fidelity { exact: boolean; fieldF1: number; errorAgree: boolean }

/** One generation = one training row. */
export interface Row {
  role: Role; turn: number; step: number;
  promptIds: number[]; outputIds: number[]; logprobs: number[];
  text: string;
  call?: ToolCall;
  imagined?: string; real?: Observation; fidelity?: Fidelity;
  error?: { code: string; message: string };
}

export type Termination = 'final_turn' | 'required_item_failed' | 'parse_error' | 'tool_error' | 'turn_cap' | 'length';

export interface Trajectory {
  taskId: string; groupId: string; mode: RolloutMode; seed: number;
  messages: Message[]; rows: Row[];
  verdict?: Verdict; reward?: number;
  terminatedBy: Termination;
}
