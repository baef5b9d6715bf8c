// The Benchmarks page's paper suites in the worker (src/worker/suite-service.ts over src/bench/suites/): what the
// page sends and gets back. Files travel as their texts (the page reads what the user picked).

import type { SuiteProgress } from '../bench/suites/agent';
import type { BfclReport } from '../bench/suites/bfcl';
import type { Tau2Report } from '../bench/suites/tau2';

export interface SuiteFile { name: string; text: string }

interface SuiteCommon {
  /** A shipped model folder URL, an `hf:` URL of the model loaded on the Models page, or 'ground-truth'. */
  model: string;
  k: number; temperature: number; topP: number; seed: number;
  /** BFCL: steps per turn (20); τ²: steps per conversation (100). */
  maxSteps?: number;
  /** Default: the model's profile (96) or 256 for a Hugging Face model. */
  maxNewTokens?: number;
  offset?: number;
  limit?: number;
}

export interface BfclSuiteRequest extends SuiteCommon {
  suite: 'bfcl';
  questions: SuiteFile;
  answers: SuiteFile;
  /** multi_turn_func_doc/*.json, matched to classes by file name. */
  funcDocs: SuiteFile[];
  skipUnsupported?: boolean;
}

export interface Tau2SuiteRequest extends SuiteCommon {
  suite: 'tau2';
  /** db.json, tasks.json, policy.md and split_tasks.json (optional), matched by file name. */
  domain: SuiteFile[];
  split: string;
  /** 'scripted', or a model: the policy's own URL or the loaded Hugging Face model's. */
  user: string;
  userTemperature?: number;
}

export type SuiteRunRequest = BfclSuiteRequest | Tau2SuiteRequest;
export type SuiteReport = BfclReport | Tau2Report;

export interface SuiteRunResult {
  request: Omit<BfclSuiteRequest, 'questions' | 'answers' | 'funcDocs'> & { files: string[] } | Omit<Tau2SuiteRequest, 'domain'> & { files: string[] };
  /** The same object `npm run eval -- --suite … --per-task --json` prints. */
  report: SuiteReport;
  ms: number;
}

export type SuiteListener = (p: SuiteProgress) => unknown;
export type { SuiteProgress };
