// Domain-independent half of a τ² environment: tool specs, argument binding, result stringification
// (Environment.to_json_str), get_response / make_tool_call, update_db, set_state and env assertions.

import { errorObservation, type Environment, type JSONSchema, type Observation, type ToolErrorCode, type ToolSchema } from '../types';
import { parsePyJson, pyJsonDumps, pyStr, toPlain, type PyDict } from '../python';
import { PyException, bindKwargs, dictEntries, isPyDict, pyEquals, pyTypeName, valueError, type ParamSpec } from './py';

export interface ToolParam extends ParamSpec {
  schema: JSONSchema;
}

/** A model_dump() value to be passed through json.dumps (field order kept, floats as PyFloat). */
export class ModelDump {
  constructor(public readonly value: unknown) {}
}

/** What a tool returns: a str (passed through) or a model dump; bool/number only from assertion helpers. */
export type ToolReturn = string | ModelDump | boolean | number | null;

export interface FunctionSpec<S> {
  name: string;
  params: ToolParam[];
  run(store: S, args: Record<string, unknown>): ToolReturn;
}

export type ToolKind = 'read' | 'write' | 'generic' | 'think';

export interface ToolSpec<S> extends FunctionSpec<S> {
  kind: ToolKind;
  description: string;
}

export interface Tau2Store<S> {
  /** model_dump() of the whole DB. */
  dump(): PyDict;
  /** sha256 of json.dumps(model_dump(), sort_keys=True). */
  hash(): string;
  /** Independent copy; may share untouched records copy-on-write. */
  clone(): S;
}

export interface Tau2DomainKit<S extends Tau2Store<S>> {
  domain: string;
  /** Python class name of the toolkit, used in TypeError texts. */
  className: string;
  tools: ToolSpec<S>[];
  /** Non-tool toolkit methods reachable from initialization_actions / env_assertions. */
  functions: FunctionSpec<S>[];
  /** model_validate() of a dump-shaped value (Maps or plain objects). Throws on invalid data. */
  fromDump(data: unknown): S;
}

export type Requestor = 'assistant' | 'user';

export interface Tau2ToolCall {
  id?: string;
  name: string;
  arguments: unknown;
  requestor?: Requestor;
}

export type Tau2Message =
  | { role: 'system'; content: string }
  | { role: 'user' | 'assistant'; content?: string | null; tool_calls?: Tau2ToolCall[] | null }
  | { role: 'tool'; id: string; content: string; requestor?: Requestor; error?: boolean };

export interface EnvFunctionCall {
  env_type: Requestor;
  func_name: string;
  arguments: Record<string, unknown>;
}

export interface EnvAssertion extends EnvFunctionCall {
  assert_value?: boolean;
  message?: string | null;
}

export interface InitialState {
  initialization_data?: { agent_data?: unknown; user_data?: unknown } | null;
  initialization_actions?: EnvFunctionCall[] | null;
  message_history?: Tau2Message[] | null;
}

/** Observation plus a structured code; `text` stays byte-identical to τ²'s ToolMessage content. */
export interface Tau2Observation extends Observation {
  code?: ToolErrorCode;
}

export interface ToolResponse {
  id?: string;
  content: string;
  error: boolean;
  requestor: Requestor;
  code?: ToolErrorCode;
}

/** Environment.to_json_str. */
export function toJsonStr(resp: ToolReturn): string {
  if (typeof resp === 'string') return resp;
  if (resp instanceof ModelDump) return pyJsonDumps(resp.value);
  if (resp === null || resp === undefined) return 'null';
  // int/float/bool become str(x) first, then json-encoded as a string.
  return pyJsonDumps(pyStr(resp));
}

/** addict's Dict.update: nested dicts merge, everything else (lists included) is replaced. */
export function addictMerge(base: unknown, update: unknown): unknown {
  if (!isPyDict(base) || !isPyDict(update)) return update;
  const out = new Map<unknown, unknown>(dictEntries(base));
  for (const [k, v] of dictEntries(update)) {
    const cur = out.get(k);
    out.set(k, out.has(k) && isPyDict(cur) && isPyDict(v) ? addictMerge(cur, v) : v);
  }
  return out;
}

class CodedError extends Error {
  constructor(public readonly code: ToolErrorCode, message: string) {
    super(message);
  }
}

export class Tau2Environment<S extends Tau2Store<S>> implements Environment {
  readonly name: string;
  private readonly toolMap: Map<string, ToolSpec<S>>;
  private readonly fnMap: Map<string, FunctionSpec<S>>;

  /**
   * 'tau2' (default): error text is τ²'s "Error: …" verbatim. 'envace': the shared
   * {"error_tool_call": {code, message, details}} shape, for agents trained on that protocol.
   */
  readonly errorStyle: 'tau2' | 'envace';

  constructor(readonly kit: Tau2DomainKit<S>, public store: S, readonly policy = '', opts: { errorStyle?: 'tau2' | 'envace' } = {}) {
    this.errorStyle = opts.errorStyle ?? 'tau2';
    this.name = `tau2-${kit.domain}`;
    this.toolMap = new Map(kit.tools.map((t) => [t.name, t]));
    this.fnMap = new Map([...kit.tools, ...kit.functions].map((t) => [t.name, t]));
  }

  tools(): ToolSchema[] {
    let schemas = schemaCache.get(this.kit);
    if (!schemas) {
      schemas = buildSchemas(this.kit.tools);
      schemaCache.set(this.kit, schemas);
    }
    return structuredClone(schemas);
  }

  toolKinds(): Record<string, ToolKind> {
    return Object.fromEntries(this.kit.tools.map((t) => [t.name, t.kind]));
  }

  /** Never throws. With the default errorStyle, text and error flag are exactly τ²'s ToolMessage content/error. */
  call(name: string, args: unknown): Tau2Observation {
    const r = this.getResponse({ name, arguments: args });
    if (r.error && this.errorStyle === 'envace') {
      return { ...errorObservation(r.code ?? 'TOOL_EXECUTION_ERROR', r.content.replace(/^Error: /, '')), code: r.code };
    }
    return { text: r.content, error: r.error, ...(r.code ? { code: r.code } : {}) };
  }

  /** Environment.get_response. */
  getResponse(call: Tau2ToolCall): ToolResponse {
    const requestor = call.requestor ?? 'assistant';
    try {
      const resp = this.makeToolCall(call.name, call.arguments, requestor);
      return { id: call.id, content: toJsonStr(resp), error: false, requestor };
    } catch (e) {
      const code: ToolErrorCode = e instanceof CodedError ? e.code : 'TOOL_EXECUTION_ERROR';
      const msg = e instanceof Error ? e.message : String(e);
      return { id: call.id, content: `Error: ${msg}`, error: true, requestor, code };
    }
  }

  /** Environment.make_tool_call: runs the tool and returns its raw value; throws like τ². */
  makeToolCall(name: unknown, args: unknown, requestor: Requestor = 'assistant'): ToolReturn {
    if (args !== null && args !== undefined) {
      if (!isPyDict(args)) {
        throw new CodedError('INVALID_PARAMETERS', `Environment.make_tool_call() argument after ** must be a mapping, not ${pyTypeName(args)}`);
      }
      const keys = dictEntries(args).map(([k]) => k);
      // τ² forwards the arguments as **kwargs next to its own tool_name/requestor parameters; CPython names
      // the function with its module path in the duplicate-keyword error only.
      if (keys.includes('requestor')) throw new CodedError('INVALID_PARAMETERS', "tau2.environment.environment.Environment.make_tool_call() got multiple values for keyword argument 'requestor'");
      const clash = keys.find((k) => k === 'self' || k === 'tool_name');
      if (clash) throw new CodedError('INVALID_PARAMETERS', `Environment.make_tool_call() got multiple values for argument '${String(clash)}'`);
    }
    if (requestor === 'user') throw new CodedError('TOOL_NOT_AVAILABLE', 'User tools not available');
    if (requestor !== 'assistant') throw new CodedError('INVALID_TOOL_CALL_FORMAT', `Invalid requestor: ${pyStr(requestor)}`);
    if (typeof name !== 'string') throw new CodedError('INVALID_TOOL_NAME', `Tool '${pyStr(name)}' not found.`);
    const tool = this.toolMap.get(name);
    if (!tool) throw new CodedError(name ? 'TOOL_NOT_AVAILABLE' : 'INVALID_TOOL_NAME', `Tool '${name}' not found.`);
    return this.invoke(tool, args);
  }

  private invoke(fn: FunctionSpec<S>, args: unknown): ToolReturn {
    const bound = bindKwargs(`${this.kit.className}.${fn.name}`, fn.params, args);
    if (!bound.ok) throw new CodedError('INVALID_PARAMETERS', bound.message);
    try {
      return fn.run(this.store, bound.args);
    } catch (e) {
      if (e instanceof PyException) throw e;
      // A JavaScript fault inside a tool is still reported, never thrown out of call().
      throw new CodedError('TOOL_EXECUTION_ERROR', e instanceof Error ? e.message : String(e));
    }
  }

  hash(): string {
    return this.store.hash();
  }

  /** model_dump() of the DB, with ordered Maps and PyFloat markers. */
  dump(): PyDict {
    return this.store.dump();
  }

  snapshot(): unknown {
    return toPlain(this.store.dump());
  }

  clone(): Tau2Environment<S> {
    return new Tau2Environment(this.kit, this.store.clone(), this.policy, { errorStyle: this.errorStyle });
  }

  /** ToolKitBase.update_db (addict deep merge, then re-validation). */
  updateDb(update: unknown): void {
    this.store = this.kit.fromDump(addictMerge(this.store.dump(), update ?? {}));
  }

  /** Environment.run_env_function_call. */
  runEnvFunctionCall(call: EnvFunctionCall): ToolReturn {
    if (call.env_type === 'user') throw new PyException('AttributeError', `'NoneType' object has no attribute '${call.func_name}'`);
    if (call.env_type !== 'assistant') throw valueError(`Invalid environment type: ${pyStr(call.env_type)}`);
    const fn = this.fnMap.get(call.func_name);
    if (!fn) throw new PyException('AttributeError', `'${this.kit.className}' object has no attribute '${call.func_name}'`);
    return this.invoke(fn, call.arguments);
  }

  /** Environment.run_env_assertion with raise_assertion_error=False. */
  runEnvAssertion(a: EnvAssertion): boolean {
    const res = this.runEnvFunctionCall(a);
    if (typeof res !== 'boolean') throw valueError(`Function ${a.func_name} returned <class '${pyTypeName(res)}'> instead of bool`);
    return res === (a.assert_value ?? true);
  }

  /** Environment.set_state: init data, then init actions, then re-executing the history's tool calls. */
  setState(init: InitialState | null | undefined, messageHistory?: Tau2Message[]): void {
    const data = init?.initialization_data;
    if (data?.agent_data !== undefined && data?.agent_data !== null) this.updateDb(data.agent_data);
    if (data?.user_data !== undefined && data?.user_data !== null) throw valueError("'NoneType' object has no attribute 'update_db'");
    for (const action of init?.initialization_actions ?? []) this.runEnvFunctionCall(action);
    const history = messageHistory ?? init?.message_history ?? [];
    for (const [tc, expected] of pairToolCalls(history)) {
      const got = this.getResponse(tc);
      if (!pyEquals(loadsOrRaw(got.content), loadsOrRaw(expected.content))) {
        throw valueError(`Tool call:\n${tc.name}(${pyJsonDumps(tc.arguments ?? {})})\n\nReturned:\n${got.content}\n\nExpected:\n${expected.content}`);
      }
    }
  }
}

const schemaCache = new WeakMap<object, ToolSchema[]>();

function buildSchemas<S>(tools: ToolSpec<S>[]): ToolSchema[] {
  return tools.map((t) => ({
    name: t.name,
    description: t.description,
    parameters: {
      type: 'object',
      properties: Object.fromEntries(t.params.map((p) => [p.name, p.schema])),
      required: t.params.filter((p) => p.required).map((p) => p.name),
    },
  }));
}

function loadsOrRaw(s: string): unknown {
  try {
    return parsePyJson(s);
  } catch {
    return s;
  }
}

/** The (tool call, tool message) pairs of a history, validated as set_state does. */
export function pairToolCalls(messages: Tau2Message[]): [Tau2ToolCall, { content: string }][] {
  const out: [Tau2ToolCall, { content: string }][] = [];
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    if (m.role === 'tool') throw valueError('Tool message not expected. Tool messages should always follow a tool call.');
    if ((m.role === 'assistant' || m.role === 'user') && m.tool_calls) {
      for (const tc of m.tool_calls) {
        const tm = messages[++i];
        if (!tm) throw valueError('Tool message expected. Got None.');
        if (tm.role !== 'tool') throw valueError(`Tool message expected. Got ${tm.role}`);
        if ((tc.id ?? '') !== tm.id) throw valueError(`Tool call id mismatch. Got ${tc.id} and ${tm.id}`);
        out.push([tc, tm]);
      }
    }
  }
  return out;
}

export const strParam = (name: string, description: string, required = true): ToolParam =>
  ({ name, required, default: null, schema: { type: 'string', description } });

export const strListParam = (name: string, description: string): ToolParam =>
  ({ name, required: true, schema: { type: 'array', items: { type: 'string' }, description } });
