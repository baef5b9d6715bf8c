// The Benchmarks page's paper suites in the worker (src/worker/suite-service.ts over src/bench/suites/): what the
// page sends and gets back. Files travel as their texts (the page reads what the user picked).

import type { SuiteProgress } from '../bench/suites/agent';
import type { BfclReport } from '../bench/suites/bfcl';
import type { Tau2Report } from '../bench/suites/tau2';
import type { VitaReport, VitaTranscriptLine } from '../bench/suites/vita';
import type { VitaDomain } from '../envs/vitabench/data_model';

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

export interface VitaSuiteRequest extends SuiteCommon {
  suite: 'vita';
  domain: VitaDomain;
  /** The domain's tasks_en.json, its <domain>.tools.en.json, the three prompt YAMLs and holidays_china.C.json, matched by name. */
  files: SuiteFile[];
  /** The user simulator: the policy's own URL or the loaded Hugging Face model's. */
  user: string;
  /** The judge, likewise; null: no judge, the report says "not judged". */
  judge: string | null;
  userTemperature?: number;
}

export type SuiteRunRequest = BfclSuiteRequest | Tau2SuiteRequest | VitaSuiteRequest;
export type SuiteReport = BfclReport | Tau2Report | VitaReport;

export interface SuiteRunResult {
  request: Omit<BfclSuiteRequest, 'questions' | 'answers' | 'funcDocs'> & { files: string[] } | Omit<Tau2SuiteRequest, 'domain'> & { files: string[] }
    | Omit<VitaSuiteRequest, 'files'> & { files: string[] };
  /** The same object `npm run eval -- --suite … --per-task --json` prints. */
  report: SuiteReport;
  /** VitaBench: each task's first sample's conversation, in task order. */
  conversations?: { task: string; lines: VitaTranscriptLine[] }[];
  ms: number;
}

export type SuiteListener = (p: SuiteProgress) => unknown;
export type { SuiteProgress };
