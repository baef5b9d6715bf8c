import type { Message, Observation, ToolCall, ToolError, Verdict } from '../envs/types';

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
  // Optional extras (absent in rows from older producers):
  /** The prompt text as sent to the sampler (kept for traces and dump import; may be dropped to save space). */
  prompt?: string;
  finishReason?: 'stop' | 'eos' | 'length';
  /** Act rows: every call parsed from the output (call holds the first). Rehearse rows: step of the Act row. */
  calls?: ToolCall[];
  parent?: number;
  /** Rehearse rows: which call of the parent Act output this row answers. */
  callIndex?: number;
  /** Rehearse rows produced by a frozen external simulator (mode 'simulator'): not policy samples. */
  frozen?: boolean;
  /** The text of each output token (decoded by the producer's tokenizer; joined they give the raw output). */
  outputTokens?: string[];
}

export type Termination =
  | 'final_turn' | 'required_item_failed' | 'parse_error' | 'tool_error' | 'turn_cap' | 'length'
  | 'generation_cap';

export interface Trajectory {
  taskId: string; groupId: string; mode: RolloutMode; seed: number;
  messages: Message[]; rows: Row[];
  verdict?: Verdict; reward?: number;
  terminatedBy: Termination;
  /** The EnvACE error that ended the episode, if one did. */
  error?: ToolError;
  /** Tool calls executed in the real environment and shown to the policy: every call in mode 'real', the
   * budget's share (RolloutConfig.realFraction) in the imagined modes; shadow executions do not count. */
  realCalls?: number;
}
