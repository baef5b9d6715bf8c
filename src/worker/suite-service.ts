// The paper's suites (BFCL-v4 multi-turn, τ²-bench, VitaBench) in the worker: the code path of `npm run eval -- --suite`
// (src/bench/suites/) on files the page read, with progress through a Comlink.proxy callback and a cancel the
// suite loop checks before every batch of generations (it yields a macrotask there). One run at a time; a new
// one cancels the previous. The report is the CLI's JSON object with per-entry results.

import { compactFormat } from '../agent/chatTemplate';
import { hashSeed } from '../agent/rollout-config';
import { protocolName } from '../bench/evaluation';
import { GROUND_TRUTH, modelAgent, SuiteCancelled, SuiteInputError, type SuiteAgent } from '../bench/suites/agent';
import { bfclReport, groundTruthAgent, runBfclSuite, type BfclSuiteData } from '../bench/suites/bfcl';
import { runTau2Suite, tau2GroundTruthAgent, tau2Report, type Tau2User } from '../bench/suites/tau2';
import { runVitaSuite, vitaReport, vitaTranscript, type VitaModelRole } from '../bench/suites/vita';
import { FUNC_DOC_FILES, joinCategory, parseFuncDocs, parsePossibleAnswers, parseQuestions } from '../envs/bfcl/text';
import { tau2DomainFromTexts } from '../envs/tau2/domain';
import { vitaDataFromFiles } from '../envs/vitabench/data';
import { hfPolicy, policyFor, type Policy } from './bench-service';
import { EVAL_CANCELLED, HF_URL_PREFIX } from './protocol';
import type { SuiteListener, SuiteRunRequest, SuiteRunResult } from './suite-protocol';
import type { WebRuntime } from './runtime-web';

let controller: AbortController | null = null;
let running: Promise<unknown> | null = null;
const DEFAULT_RESAMPLES = 2000;

function check(req: SuiteRunRequest): string[] {
  const p: string[] = [];
  const int = (name: string, v: number | undefined, min: number, max: number, optional = false) => {
    if (optional && v === undefined) return;
    if (!Number.isInteger(v) || v! < min || v! > max) p.push(`${name} must be a whole number in ${min} … ${max} (got ${v})`);
  };
  if (req.suite !== 'bfcl' && req.suite !== 'tau2' && req.suite !== 'vita') p.push(`suite must be bfcl, tau2 or vita (got ${String((req as { suite: unknown }).suite)})`);
  if (!req.model) p.push('no model chosen');
  int('k', req.k, 1, 64); int('seed', req.seed, 0, 2 ** 31 - 1);
  int('maxSteps', req.maxSteps, 1, 1000, true); int('maxNewTokens', req.maxNewTokens, 1, 4096, true);
  int('offset', req.offset, 0, 1_000_000, true); int('limit', req.limit, 1, 1_000_000, true);
  if (!(req.temperature >= 0 && req.temperature <= 2)) p.push(`temperature must be in 0 … 2 (got ${req.temperature})`);
  if (!(req.topP > 0 && req.topP <= 1)) p.push(`topP must be in (0, 1] (got ${req.topP})`);
  if (req.suite === 'bfcl') {
    if (!req.questions?.text) p.push('no questions file');
    if (!req.answers?.text) p.push('no possible-answers file');
    if (!req.funcDocs?.length) p.push('no function-doc files (multi_turn_func_doc/*.json)');
  } else if (req.suite === 'tau2') {
    if (!req.domain?.some((f) => f.name === 'db.json')) p.push('no db.json among the domain files');
    if (!req.domain?.some((f) => f.name === 'tasks.json')) p.push('no tasks.json among the domain files');
    if (!req.user) p.push('no user chosen (scripted or a model)');
  } else if (req.suite === 'vita') {
    if (req.domain !== 'delivery' && req.domain !== 'instore') p.push(`domain must be delivery or instore (got ${String(req.domain)})`);
    if (req.model === GROUND_TRUTH) p.push('VitaBench has no ground truth to replay: choose a model');
    if (!req.files?.length) p.push('no VitaBench files');
    if (!req.user) p.push('no user simulator chosen');
  }
  return p;
}

/** A model's generation budget as the CLI gives it: the request's, else its profile's, else 256 (Hugging Face) or 96. */
const budgetOf = (p: Policy, req: SuiteRunRequest) => req.maxNewTokens ?? p.settings.act?.maxNewTokens ?? (p.settings.format ? 256 : 96);

function agentOf(p: Policy, req: SuiteRunRequest): SuiteAgent {
  return modelAgent(p.sampler, {
    format: p.settings.format ?? compactFormat, actPrompt: p.settings.actPrompt ?? {},
    maxNewTokens: budgetOf(p, req), minNewTokens: p.settings.limits?.minNewTokens,
    temperature: req.temperature, topP: req.topP,
  });
}

const load = (rt: WebRuntime, url: string) => (url.startsWith(HF_URL_PREFIX) ? hfPolicy(url, []) : policyFor(rt, url));

function bfclData(req: Extract<SuiteRunRequest, { suite: 'bfcl' }>): BfclSuiteData {
  const byFile = new Map(Object.entries(FUNC_DOC_FILES).map(([cls, f]) => [f, cls]));
  const funcDocs: BfclSuiteData['funcDocs'] = {};
  for (const f of req.funcDocs) {
    const cls = byFile.get(f.name.split('/').pop()!);
    if (cls) funcDocs[cls] = parseFuncDocs(f.text);
  }
  return { items: joinCategory(parseQuestions(req.questions.text), parsePossibleAnswers(req.answers.text)), funcDocs };
}

/** Runs one suite. Rejects with EVAL_CANCELLED after cancel(), or with a clear error. */
export async function run(rt: WebRuntime, req: SuiteRunRequest, onProgress?: SuiteListener): Promise<SuiteRunResult> {
  if (controller) { controller.abort(); await running?.catch(() => {}); }
  const problems = check(req);
  if (problems.length) throw new Error(`bad suite request: ${problems.join('; ')}`);
  const ac = new AbortController();
  controller = ac;
  const t0 = performance.now();
  const emit: SuiteListener = (p) => { try { Promise.resolve(onProgress?.(p)).catch(() => {}); } catch { /* the page went away */ } };
  const sampling = { k: req.k, temperature: req.temperature, topP: req.topP, seed: req.seed };
  const boot = { resamples: DEFAULT_RESAMPLES, seed: hashSeed('bootstrap', req.seed) };
  const gt = req.model === GROUND_TRUTH;
  const protocol = gt ? `ground-truth replay${req.k > 1 ? ` ×${req.k}` : ''}` : protocolName(sampling);
  const common = { signal: ac.signal, yieldToEventLoop: true, onProgress: emit, offset: req.offset, limit: req.limit, maxSteps: req.maxSteps };
  const work = (async (): Promise<SuiteRunResult> => {
    if (req.suite === 'bfcl') {
      let data: BfclSuiteData;
      try { data = bfclData(req); } catch (e) { throw new SuiteInputError([`cannot read the BFCL files: ${(e as Error).message}`]); }
      const agent = gt ? groundTruthAgent(data) : agentOf(await load(rt, req.model), req);
      const r = await runBfclSuite(data, agent, { ...sampling, ...common, skipUnsupported: req.skipUnsupported });
      const report = bfclReport(r, { ...sampling, model: req.model, questions: req.questions.name, offset: req.offset, maxSteps: req.maxSteps, protocol }, boot, true);
      const { questions, answers, funcDocs, ...rest } = req;
      return { request: { ...rest, files: [questions.name, answers.name, ...funcDocs.map((f) => f.name)] }, report, ms: performance.now() - t0 };
    }
    if (req.suite === 'vita') return runVita(rt, req, sampling, common, boot, protocol, t0);
    const text = (n: string) => req.domain.find((f) => f.name === n)?.text;
    let domain;
    try { domain = tau2DomainFromTexts({ db: text('db.json')!, tasks: text('tasks.json'), policy: text('policy.md'), split: text('split_tasks.json') }, req.domain.map((f) => f.name).join(', ')); } catch (e) {
      throw new SuiteInputError([`cannot read the τ² domain files: ${(e as Error).message}`]);
    }
    const agent = gt ? tau2GroundTruthAgent(domain) : agentOf(await load(rt, req.model), req);
    let user: Tau2User = { kind: 'scripted' };
    if (req.user !== 'scripted') {
      if (!req.user.startsWith(HF_URL_PREFIX) && req.user !== req.model) {
        throw new SuiteInputError([`user ${req.user}: in the browser the user is scripted, the policy's own model, or the Hugging Face model loaded on the Models page`]);
      }
      const u = await load(rt, req.user);
      user = { kind: 'model', name: req.user, generator: u.sampler, format: u.settings.format ?? compactFormat, maxNewTokens: req.maxNewTokens ?? u.settings.act?.maxNewTokens ?? 256, temperature: req.userTemperature ?? 0, topP: 1 };
    }
    const r = await runTau2Suite(domain, agent, user, { ...sampling, ...common, split: req.split });
    const report = tau2Report(r, { ...sampling, model: req.model, user: req.user, domain: domain.domain, split: req.split, offset: req.offset, maxSteps: req.maxSteps, protocol }, boot, true);
    const { domain: files, ...rest } = req;
    return { request: { ...rest, files: files.map((f) => f.name) }, report, ms: performance.now() - t0 };
  })();
  running = work;
  try {
    return await work;
  } catch (e) {
    if (e instanceof SuiteCancelled || ac.signal.aborted) throw new Error(EVAL_CANCELLED);
    throw e instanceof SuiteInputError ? new Error(`bad suite input: ${e.problems.join('; ')}`) : e;
  } finally {
    if (controller === ac) controller = null;
    running = null;
  }
}

/**
 * VitaBench: the user and the judge are the policy's own model or the Hugging Face model loaded on the Models page
 * (the worker holds one shipped model at a time); each gets the budget the CLI gives it (the profile's, 256 for a
 * Hugging Face model), the user at userTemperature (0), the judge greedy.
 */
async function runVita(rt: WebRuntime, req: Extract<SuiteRunRequest, { suite: 'vita' }>, sampling: { k: number; temperature: number; topP: number; seed: number },
  common: { signal: AbortSignal; yieldToEventLoop: boolean; onProgress: SuiteListener; offset?: number; limit?: number; maxSteps?: number },
  boot: { resamples: number; seed: number }, protocol: string, t0: number): Promise<SuiteRunResult> {
  let data;
  try { data = vitaDataFromFiles(req.domain, req.files); } catch (e) { throw new SuiteInputError([`cannot read the VitaBench ${req.domain} files: ${(e as Error).message}`]); }
  for (const [what, url] of [['user', req.user], ['judge', req.judge]] as const) {
    if (url && url !== req.model && !url.startsWith(HF_URL_PREFIX)) {
      throw new SuiteInputError([`${what} ${url}: in the browser the ${what} is the policy's own model or the Hugging Face model loaded on the Models page`]);
    }
  }
  const agent = agentOf(await load(rt, req.model), req);
  const role = async (url: string, temperature: number): Promise<VitaModelRole> => {
    const m = await load(rt, url);
    return { name: url, generator: m.sampler, format: m.settings.format ?? compactFormat, maxNewTokens: budgetOf(m, req), temperature, topP: 1 };
  };
  const user = await role(req.user, req.userTemperature ?? 0);
  const judge = req.judge ? await role(req.judge, 0) : null;
  const r = await runVitaSuite(data, agent, user, judge, { ...sampling, ...common });
  const report = vitaReport(r, { ...sampling, domain: req.domain, model: req.model, userModel: req.user, judgeModel: req.judge, offset: req.offset, maxSteps: req.maxSteps, protocol }, boot, true);
  const conversations = r.tasks.map((t) => ({ task: t.task, lines: vitaTranscript(t.messages?.[0] ?? []) }));
  const { files, ...rest } = req;
  return { request: { ...rest, files: files.map((f) => f.name) }, report, conversations, ms: performance.now() - t0 };
}

/** Stops the running suite before its next batch of generations. */
export function cancel(): boolean {
  if (!controller) return false;
  controller.abort();
  return true;
}
