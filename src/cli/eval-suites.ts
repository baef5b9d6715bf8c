// `npm run eval -- --suite bfcl|tau2 …`: the paper's benchmarks in the evaluation protocol (src/bench/suites/).
//   --suite bfcl --questions FILE --answers FILE [--func-docs DIR] --model DIR|HF|ground-truth [--k K --temperature T]
//   --suite tau2 --domain DIR [--split test] --model DIR|HF|ground-truth (--user scripted | --user-model DIR|HF)
//   --suite vita --domain delivery|instore --model DIR|HF --user-model DIR|HF [--judge-model DIR|HF] [--vita-data DIR]
// One JSON object each (--json) in the format of `npm run eval`: {mean, ci95} with bootstrap 95% intervals over
// entries / tasks, per-entry results with --per-task. Bad input exits 2 with every problem listed.

import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { compactFormat, formatForTokenizerConfig, type ChatFormat } from '../agent/chatTemplate';
import { profileFromConfig } from '../agent/profile';
import type { ActPromptOptions } from '../agent/prompts';
import { protocolName } from '../bench/evaluation';
import { GROUND_TRUTH, modelAgent, SuiteInputError, type SuiteAgent, type SuiteProgress } from '../bench/suites/agent';
import { BFCL_MAX_STEPS, bfclReport, groundTruthAgent, runBfclSuite, type BfclSuiteData } from '../bench/suites/bfcl';
import { runTau2Suite, TAU2_MAX_ERRORS, TAU2_MAX_STEPS, tau2GroundTruthAgent, tau2Report, type Tau2User } from '../bench/suites/tau2';
import type { TextGenerator } from '../engine/generator';
import { HfModelError } from '../engine/hf/source';
import { isHfModelRef } from '../engine/hf/ref-node';
import { loadModelFolder } from '../engine/modelFolder';
import { createNodeRuntime } from '../engine/runtime-node';
import { samplerFromFolder } from '../engine/sampler';
import { loadCategory, loadFuncDocs, loadLongContextData } from '../envs/bfcl/loader';
import { loadTau2Domain } from '../envs/tau2/fs';
import { defaultVitaRoot, loadVitaData } from '../envs/vitabench/fs';
import { runVitaSuite, VITA_MAX_STEPS, vitaReport, type VitaModelRole } from '../bench/suites/vita';
import { hashSeed } from '../agent/rollout-config';
import { progress } from './util';

export { GROUND_TRUTH };

/** The options of eval that only the suites read (merged into EVAL_CLI in eval.ts). */
export const SUITE_OPTIONS = {
  suite: { type: 'string', help: "a paper benchmark instead of a built-in world: bfcl (BFCL-v4 multi-turn), tau2 (τ²-bench) or vita (VitaBench delivery/in-store); --model ground-truth replays the answers (bfcl, tau2)", choices: ['bfcl', 'tau2', 'vita'] },
  questions: { type: 'string', help: 'bfcl: a BFCL multi-turn question file (JSON Lines, any category)' },
  answers: { type: 'string', help: 'bfcl: its possible_answer file' },
  'func-docs': { type: 'string', help: 'bfcl: the multi_turn_func_doc folder (default: next to the questions file)' },
  'long-context-data': { type: 'string', help: 'bfcl: JSON with BFCL long_context.py\'s padding, for long_context entries' },
  'skip-unsupported': { type: 'boolean', help: 'bfcl: leave out entries whose backends cannot be built (listed in "skipped") instead of refusing' },
  'max-steps': { type: 'int', help: `steps per turn before an entry is force-terminated (bfcl; default ${BFCL_MAX_STEPS}) / steps per conversation (tau2; default ${TAU2_MAX_STEPS}; vita: default ${VITA_MAX_STEPS})`, min: 1 },
  'max-errors': { type: 'int', help: `tau2: tool errors that end a conversation (default ${TAU2_MAX_ERRORS})`, min: 1 },
  limit: { type: 'int', help: 'suites: evaluate only this many entries / tasks (from --offset on)', min: 1 },
  domain: { type: 'string', help: 'tau2: a τ² domain folder (db.json, tasks.json, policy.md, split_tasks.json); vita: delivery or instore' },
  user: { type: 'string', help: 'tau2: scripted (the port\'s scripted user) or model (--user-model)', choices: ['scripted', 'model'] },
  'user-model': { type: 'string', help: 'tau2, vita: the user simulator: a model folder or a Hugging Face ONNX model' },
  'judge-model': { type: 'string', help: 'vita: the rubric judge: a model folder or a Hugging Face ONNX model (without one the report says "not judged")' },
  'vita-data': { type: 'string', help: 'vita: the VitaBench data root (default ../shared/data/vitabench)' },
  'user-temperature': { type: 'number', help: 'tau2: the user model\'s temperature (τ²: 0)', default: 0, min: 0 },
} as const;

export interface SuiteArgs {
  suite?: string; model: string; split: string;
  questions?: string; answers?: string; 'func-docs'?: string; 'long-context-data'?: string; 'skip-unsupported': boolean;
  'max-steps'?: number; 'max-errors'?: number; limit?: number; offset: number;
  domain?: string; user?: string; 'user-model'?: string; 'user-temperature': number; 'judge-model'?: string; 'vita-data'?: string;
  k: number; temperature: number; 'top-p': number; seed: number; resamples: number; 'max-new-tokens'?: number; threads: number;
  'per-task': boolean; json: boolean;
}

/** Every problem with the suite options, before anything loads. */
export function suiteProblems(a: SuiteArgs): string[] {
  const p: string[] = [];
  const file = (k: keyof SuiteArgs, what: string) => {
    const v = a[k] as string | undefined;
    if (!v) p.push(`--${k} is required with --suite ${a.suite} (${what})`);
    else if (!existsSync(v)) p.push(`--${k} ${v}: no such file or folder`);
  };
  if (a.suite === 'bfcl') {
    file('questions', 'a BFCL multi-turn question file');
    file('answers', 'its possible_answer file');
    if (a['func-docs'] && !existsSync(a['func-docs'])) p.push(`--func-docs ${a['func-docs']}: no such folder`);
    if (!a['func-docs'] && a.questions && !existsSync(join(dirname(a.questions), 'multi_turn_func_doc'))) p.push(`no multi_turn_func_doc folder next to ${a.questions}: give --func-docs DIR`);
    if (a['long-context-data'] && !existsSync(a['long-context-data'])) p.push(`--long-context-data ${a['long-context-data']}: no such file`);
    for (const k of ['domain', 'user', 'user-model'] as const) if (a[k] !== undefined) p.push(`--${k} is for --suite tau2`);
  } else if (a.suite === 'tau2') {
    file('domain', 'a τ² domain folder');
    if (a.domain && existsSync(a.domain) && !existsSync(join(a.domain, 'db.json'))) p.push(`--domain ${a.domain}: no db.json in it`);
    const user = a.user ?? (a['user-model'] ? 'model' : undefined);
    if (!user) p.push('--suite tau2 needs a user: --user scripted, or --user-model DIR|HF');
    if (user === 'scripted' && a['user-model']) p.push('--user scripted and --user-model exclude each other');
    if (user === 'model' && !a['user-model']) p.push('--user model needs --user-model DIR|HF');
    for (const k of ['questions', 'answers', 'func-docs', 'long-context-data'] as const) if (a[k] !== undefined) p.push(`--${k} is for --suite bfcl`);
  } else if (a.suite === 'vita') {
    if (a.domain !== 'delivery' && a.domain !== 'instore') p.push('--suite vita needs --domain delivery or --domain instore (travel and cross-domain have no public data)');
    if (!a['user-model']) p.push('--suite vita needs --user-model DIR|HF (the user simulator)');
    if (a.user === 'scripted') p.push('--suite vita has no scripted user: give --user-model DIR|HF');
    if (a.model === GROUND_TRUTH) p.push('--suite vita has no ground truth to replay (its expected states are never compared): give --model DIR|HF');
    const root = a['vita-data'] ?? defaultVitaRoot();
    if (!existsSync(join(root, 'delivery', 'tasks_en.json'))) p.push(`${root}: not a VitaBench data root (no delivery/tasks_en.json): give --vita-data DIR`);
    for (const k of ['questions', 'answers', 'func-docs', 'long-context-data'] as const) if (a[k] !== undefined) p.push(`--${k} is for --suite bfcl`);
  }
  for (const k of ['judge-model', 'vita-data'] as const) if (a[k] !== undefined && a.suite !== 'vita') p.push(`--${k} is for --suite vita`);
  return p;
}

interface LoadedModel { generator: TextGenerator & { release(): Promise<void> }; format: ChatFormat; actPrompt: ActPromptOptions; maxNewTokens: number; minNewTokens?: number }

/** A model folder (its profile's prompting) or a Hugging Face ONNX model (its chat template). */
export async function loadSuiteModel(ref: string, threads: number, maxNewTokens?: number, quiet = false): Promise<LoadedModel> {
  if (isHfModelRef(ref)) {
    const hf = await import('../engine/hf/node');
    let m;
    try { m = await hf.loadHfModelNode(ref, { name: `hf:${ref}`, progress: quiet ? undefined : hf.progressPrinter(process.stderr) }); } catch (e) {
      if (e instanceof HfModelError) throw new SuiteInputError([`cannot load Hugging Face model ${ref}: ${e.code}: ${e.message}`]);
      throw e;
    }
    const format = formatForTokenizerConfig(m.tokenizerConfig as { chat_template?: string; eos_token?: string });
    return { generator: m.generator, format, actPrompt: {}, maxNewTokens: maxNewTokens ?? 256 };
  }
  let folder;
  try { folder = await loadModelFolder(ref); } catch (e) { throw new SuiteInputError([`cannot load model folder ${ref}: ${(e as Error).message}`]); }
  const profile = profileFromConfig(folder.rawConfig);
  const generator = await samplerFromFolder(folder, createNodeRuntime({ threads }), { mode: 'fast' });
  return { generator, format: compactFormat, actPrompt: profile.actPrompt, maxNewTokens: maxNewTokens ?? profile.act.maxNewTokens ?? 96, minNewTokens: profile.limits.minNewTokens };
}

function bar(total: number, label: string, quiet: boolean) {
  const b = quiet ? null : progress(total, label);
  let shown = 0;
  return {
    onProgress: (p: SuiteProgress) => { while (b && shown < p.done) { shown++; b.tick(`${p.generations} generations`); } },
    done: () => b?.done(),
  };
}

/** Runs `--suite` and returns the report object (printed by eval.ts). Throws SuiteInputError for bad input. */
export async function runSuiteCommand(a: SuiteArgs, quiet = a.json): Promise<object> {
  const problems = suiteProblems(a);
  if (problems.length) throw new SuiteInputError(problems);
  const gt = a.model === GROUND_TRUTH;
  const sampling = { k: a.k, temperature: a.temperature, topP: a['top-p'], seed: a.seed };
  const boot = { resamples: a.resamples, seed: hashSeed('bootstrap', a.seed) };
  const protocol = gt ? `ground-truth replay${a.k > 1 ? ` ×${a.k}` : ''}` : protocolName(sampling);
  const released: (() => Promise<void>)[] = [];
  try {
    const policy = async (): Promise<SuiteAgent> => {
      const m = await loadSuiteModel(a.model, a.threads, a['max-new-tokens'], quiet);
      released.push(() => m.generator.release());
      return modelAgent(m.generator, { format: m.format, actPrompt: m.actPrompt, maxNewTokens: m.maxNewTokens, minNewTokens: m.minNewTokens, temperature: a.temperature, topP: a['top-p'] });
    };
    if (a.suite === 'bfcl') {
      if (a['long-context-data']) loadLongContextData(a['long-context-data']);
      let data: BfclSuiteData;
      try {
        data = { items: loadCategory(a.questions!, a.answers!), funcDocs: loadFuncDocs(a['func-docs'] ?? join(dirname(a.questions!), 'multi_turn_func_doc')) };
      } catch (e) { throw new SuiteInputError([`cannot read the BFCL files: ${(e as Error).message}`]); }
      const agent = gt ? groundTruthAgent(data) : await policy();
      const n = Math.min(a.limit ?? Infinity, Math.max(0, data.items.length - a.offset));
      const b = bar(n * a.k, 'eval bfcl', quiet);
      try {
        const r = await runBfclSuite(data, agent, { ...sampling, maxSteps: a['max-steps'], offset: a.offset, limit: a.limit, skipUnsupported: a['skip-unsupported'], yieldToEventLoop: false, onProgress: b.onProgress });
        return bfclReport(r, { ...sampling, model: a.model, questions: a.questions!, offset: a.offset, maxSteps: a['max-steps'], protocol }, boot, a['per-task']);
      } finally { b.done(); }
    }
    if (a.suite === 'vita') {
      let data;
      try { data = loadVitaData(a.domain as 'delivery' | 'instore', a['vita-data'] ?? defaultVitaRoot()); } catch (e) {
        throw new SuiteInputError([`cannot read the VitaBench ${a.domain} data: ${(e as Error).message}`]);
      }
      const agent = await policy();
      const role = async (ref: string, temperature: number): Promise<VitaModelRole> => {
        const m = await loadSuiteModel(ref, a.threads, a['max-new-tokens'], quiet);
        released.push(() => m.generator.release());
        return { name: ref, generator: m.generator, format: m.format, maxNewTokens: m.maxNewTokens, temperature, topP: 1 };
      };
      const user = await role(a['user-model']!, a['user-temperature']);
      const judge = a['judge-model'] ? await role(a['judge-model'], 0) : null;
      const r = await runVitaSuite(data, agent, user, judge, { ...sampling, offset: a.offset, limit: a.limit, maxSteps: a['max-steps'], yieldToEventLoop: false });
      return vitaReport(r, { ...sampling, domain: a.domain!, model: a.model, userModel: a['user-model']!, judgeModel: a['judge-model'] ?? null, offset: a.offset, maxSteps: a['max-steps'], protocol }, boot, a['per-task']);
    }
    let domain;
    try { domain = loadTau2Domain(a.domain!); } catch (e) { throw new SuiteInputError([`cannot read the τ² domain ${a.domain}: ${(e as Error).message}`]); }
    const agent = gt ? tau2GroundTruthAgent(domain) : await policy();
    let user: Tau2User = { kind: 'scripted' };
    const userRef = a['user-model'];
    if (userRef) {
      const m = await loadSuiteModel(userRef, a.threads, a['max-new-tokens'], quiet);
      released.push(() => m.generator.release());
      user = { kind: 'model', name: userRef, generator: m.generator, format: m.format, maxNewTokens: m.maxNewTokens, temperature: a['user-temperature'], topP: 1 };
    }
    const b = bar(0, 'eval tau2', true);
    const r = await runTau2Suite(domain, agent, user, { ...sampling, split: a.split, offset: a.offset, limit: a.limit, maxSteps: a['max-steps'], maxErrors: a['max-errors'], yieldToEventLoop: false, onProgress: b.onProgress });
    return tau2Report(r, { ...sampling, model: a.model, user: userRef ?? 'scripted', domain: a.domain!, split: a.split, offset: a.offset, maxSteps: a['max-steps'], maxErrors: a['max-errors'], protocol }, boot, a['per-task']);
  } finally {
    for (const f of released) await f().catch(() => {});
  }
}
