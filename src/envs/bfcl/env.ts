// A BFCL multi-turn entry as an Environment.
//
// Two ways in, two error conventions:
// - `call(name, args)` is the agent-facing JSON tool call. Input that BFCL's model could never have
//   produced as a valid call against the advertised schema (unknown or withheld tool, missing, extra
//   or mistyped arguments, undecodable JSON) is refused with the shared structured error
//   (`errorObservation`), and nothing executes. A Python exception raised while executing is
//   reported as TOOL_EXECUTION_ERROR whose message is BFCL's exact "Error during execution: …" text.
// - `execPython(callString)` / `execParsed(...)` is BFCL-compat mode, used by the checker and the
//   conformance replay: it behaves like BFCL's execute_multi_turn_func_call, so `text` is always the
//   exact string BFCL would produce (Python exceptions, banned names and unparseable calls included)
//   and `error` is true only for "Error during execution: …" results.
// Backend-level failures that BFCL returns as values ({"error": …} dicts) are ordinary results in both.

import { BACKENDS, type BfclBackend } from './backend';
import { normaliseJsonArgs, parsePythonCall, type ParsedCall } from './parser';
import { errorObservation, type Environment, type JSONSchema, type Observation, type ToolSchema } from '../types';
import { PyException, PyFloat, PyTuple, parsePyJson, pyJsonDumps, pyRepr, pyStr, toPlain } from '../python';
// Every backend registers itself in BACKENDS on import.
import './backends/gorilla_file_system';
import './backends/math_api';
import './backends/message_api';
import './backends/posting_api';
import './backends/ticket_api';
import './backends/trading_bot';
import './backends/travel_booking';
import './backends/vehicle_control';

/** One function document line of BFCL's multi_turn_func_doc/*.json. */
export interface BfclFuncDoc {
  name: string;
  description: string;
  parameters: BfclParamSchema;
  response?: unknown;
}
export interface BfclParamSchema {
  type: string;
  description?: string;
  properties?: Record<string, BfclParamSchema>;
  required?: string[];
  items?: BfclParamSchema;
  enum?: unknown[];
  default?: unknown;
  [k: string]: unknown;
}

/** The fields of a question entry the environment needs. */
export interface BfclEntry {
  id: string;
  involved_classes: string[];
  initial_config?: unknown;
  /** turn index (as a string key) -> function names withheld until that turn */
  missed_function?: Record<string, string[]>;
  excluded_function?: string[];
}

export interface BfclEnvOptions {
  /** className -> that class's function docs (see loader.loadFuncDocs). Without it tools() is empty. */
  funcDocs?: Record<string, BfclFuncDoc[]>;
  longContext?: boolean;
  /** Turn whose tool list `tools()` shows (missed functions appear from their turn on). Default 0. */
  turn?: number;
}

/** "multi_turn_miss_func_12" -> "multi_turn_miss_func" (BFCL: id.rsplit("_", 1)[0]). */
export function categoryOf(id: string): string {
  const i = id.lastIndexOf('_');
  return i < 0 ? id : id.slice(0, i);
}

/** BFCL runs long_context (and composite) entries with long_context=True. */
export function isLongContext(id: string): boolean {
  const c = categoryOf(id);
  return c.includes('long_context') || c.includes('composite');
}

import { bfclResultString } from './stringify';
export { bfclResultString };

export const BANNED_CALLS = ['kill', 'exit', 'quit', 'remove', 'unlink', 'popen', 'Popen', 'run'];

const ERR_PREFIX = 'Error during execution: ';

function pyErrorMessage(e: unknown): string {
  if (e instanceof PyException) return e.message;
  if (e instanceof RangeError) return 'maximum recursion depth exceeded';
  if (e instanceof Error) return e.message;
  return String(e);
}

/** BFCL "dict"/"float"/"tuple"/"any" types as JSON Schema. */
export function toJsonSchema(s: BfclParamSchema | undefined): JSONSchema {
  if (!s || typeof s !== 'object') return {};
  const out: JSONSchema = {};
  const t = s.type;
  const map: Record<string, string | undefined> = {
    dict: 'object', object: 'object', float: 'number', number: 'number', integer: 'integer', int: 'integer',
    string: 'string', str: 'string', boolean: 'boolean', bool: 'boolean', array: 'array', list: 'array', tuple: 'array', any: undefined,
  };
  if (typeof t === 'string' && map[t] !== undefined) out.type = map[t];
  if (s.description !== undefined) out.description = s.description;
  if (s.enum !== undefined) out.enum = s.enum;
  if (s.default !== undefined) out.default = s.default;
  if (s.properties) out.properties = Object.fromEntries(Object.entries(s.properties).map(([k, v]) => [k, toJsonSchema(v)]));
  if (s.required) out.required = [...s.required];
  if (s.items) out.items = toJsonSchema(s.items);
  return out;
}

export function funcDocToToolSchema(doc: BfclFuncDoc): ToolSchema {
  const params = toJsonSchema(doc.parameters);
  if (!params.type) params.type = 'object';
  if (!params.properties) params.properties = {};
  return { name: doc.name, description: doc.description, parameters: params };
}

/** Why `value` does not fit `schema`, or null. Integers are numbers; floats accept ints (Python does). */
function schemaMismatch(value: unknown, schema: JSONSchema, path: string): string | null {
  const t = schema.type;
  if (value === undefined) return `${path} is undefined`;
  const isObj = (v: unknown) => v instanceof Map || (typeof v === 'object' && v !== null && !Array.isArray(v)
    && !(v instanceof PyFloat) && !(v instanceof PyTuple) && [Object.prototype, null].includes(Object.getPrototypeOf(v)));
  switch (t) {
    case 'string': if (typeof value !== 'string') return `${path} must be a string`; break;
    case 'boolean': if (typeof value !== 'boolean') return `${path} must be a boolean`; break;
    case 'integer': if (typeof value !== 'bigint' && (typeof value !== 'number' || !Number.isInteger(value))) return `${path} must be an integer`; break;
    case 'number': if (!(value instanceof PyFloat) && typeof value !== 'bigint' && (typeof value !== 'number' || !Number.isFinite(value))) return `${path} must be a number`; break;
    case 'array': {
      if (!Array.isArray(value)) return `${path} must be an array`;
      if (schema.items) for (let i = 0; i < value.length; i++) { const m = schemaMismatch(value[i], schema.items, `${path}[${i}]`); if (m) return m; }
      break;
    }
    case 'object': if (!isObj(value)) return `${path} must be an object`; break;
    default: break;
  }
  if (schema.enum && !schema.enum.some((e) => e === value)) return `${path} must be one of ${JSON.stringify(schema.enum)}`;
  return null;
}

export class BfclEnvironment implements Environment {
  readonly name = 'bfcl';
  readonly entry: BfclEntry;
  private readonly docs: Record<string, BfclFuncDoc[]>;
  private readonly longContext: boolean;
  private readonly instances = new Map<string, BfclBackend>();
  /** method name -> owning class, first involved class wins (BFCL's dict is overwritten in class order; names never clash). */
  private readonly owner = new Map<string, string>();
  private turnIndex: number;

  constructor(entry: BfclEntry, opts: BfclEnvOptions = {}, instances?: Map<string, BfclBackend>) {
    this.entry = entry;
    this.docs = opts.funcDocs ?? {};
    this.longContext = opts.longContext ?? false;
    this.turnIndex = opts.turn ?? 0;
    const config = entry.initial_config instanceof Map ? entry.initial_config : (entry.initial_config ?? {}) as Record<string, unknown>;
    const cfgGet = (k: string): unknown => (config instanceof Map ? config.get(k) : (config as Record<string, unknown>)[k]);
    for (const cls of entry.involved_classes) {
      let inst = instances?.get(cls);
      if (!inst) {
        const make = BACKENDS[cls];
        if (!make) throw new Error(`BFCL backend ${cls} is not available`);
        inst = make();
        // MathAPI is BFCL's one stateless class: it is never given a scenario.
        if (cls !== 'MathAPI') inst.loadScenario(deepCopyConfig(cfgGet(cls) ?? {}), this.longContext);
      }
      this.instances.set(cls, inst);
      for (const m of inst.methods()) if (!m.startsWith('_')) this.owner.set(m, cls);
    }
  }

  /** The turn whose tool list tools() shows (missed functions are withheld until their turn). */
  setTurn(turn: number): void { this.turnIndex = turn; }
  get turn(): number { return this.turnIndex; }

  /** Function docs visible at the current turn, in BFCL's order (restored missed functions last). */
  funcDocs(): BfclFuncDoc[] {
    const all: BfclFuncDoc[] = [];
    for (const cls of this.entry.involved_classes) all.push(...(this.docs[cls] ?? []));
    const missed = this.entry.missed_function ?? {};
    const withheld = new Map<string, number>();
    for (const [t, names] of Object.entries(missed)) for (const n of names) withheld.set(n, Number(t));
    const visible = all.filter((d) => !withheld.has(d.name));
    const restored = Object.entries(missed)
      .map(([t, names]) => [Number(t), names] as const)
      .filter(([t]) => t <= this.turnIndex)
      .sort((a, b) => a[0] - b[0]);
    for (const [, names] of restored) for (const n of names) { const d = all.find((x) => x.name === n); if (d) visible.push(d); }
    return visible;
  }

  tools(): ToolSchema[] { return this.funcDocs().map(funcDocToToolSchema); }

  /** Agent-facing JSON tool call (see the header for the error convention). Never throws. */
  call(name: string, args: unknown): Observation {
    try {
      if (typeof name !== 'string' || name.trim() === '') return errorObservation('INVALID_TOOL_NAME', 'tool name must be a non-empty string', { name: String(name) });
      const doc = this.funcDocs().find((d) => d.name === name);
      if (!doc) {
        const withheld = this.owner.has(name) && Object.values(this.entry.missed_function ?? {}).some((ns) => ns.includes(name));
        return errorObservation('TOOL_NOT_AVAILABLE', withheld ? `tool '${name}' is not available at this turn` : `unknown tool '${name}'`,
          { name, available: this.funcDocs().map((d) => d.name) });
      }
      const parsed = normaliseJsonArgs(args);
      if (!parsed.ok) return errorObservation(parsed.error.code, parsed.error.message, parsed.error.details);
      const kwargs = parsed.kwargs;
      const schema = funcDocToToolSchema(doc).parameters;
      const props = schema.properties ?? {};
      const extra = Object.keys(kwargs).filter((k) => !Object.prototype.hasOwnProperty.call(props, k));
      if (extra.length) return errorObservation('INVALID_PARAMETERS', `unexpected argument(s) ${extra.join(', ')} for '${name}'`, { unexpected: extra, allowed: Object.keys(props) });
      const missing = (schema.required ?? []).filter((k) => !Object.prototype.hasOwnProperty.call(kwargs, k));
      if (missing.length) return errorObservation('INVALID_PARAMETERS', `missing required argument(s) ${missing.join(', ')} for '${name}'`, { missing });
      for (const [k, v] of Object.entries(kwargs)) {
        const m = schemaMismatch(v, props[k], k);
        if (m) return errorObservation('INVALID_PARAMETERS', m, { argument: k });
      }
      const r = this.execParsed({ function: name, args: [], kwargs });
      if (r.error) return errorObservation('TOOL_EXECUTION_ERROR', r.text, { name });
      return r;
    } catch (e) {
      return errorObservation('TOOL_EXECUTION_ERROR', ERR_PREFIX + pyErrorMessage(e), { name: String(name) });
    }
  }

  /**
   * Agent-facing Python call string (`cd(folder='x')`): parsed, positional arguments mapped onto the
   * schema's parameter order, then handled exactly like call(). Never throws.
   */
  callPython(callString: string): Observation {
    const p = parsePythonCall(callString);
    if (!p.ok) return errorObservation(p.error.code, p.error.message, p.error.details);
    if (p.args.length === 0) return this.call(p.function, p.kwargs);
    const doc = this.funcDocs().find((d) => d.name === p.function);
    if (!doc) return this.call(p.function, p.kwargs);
    const names = Object.keys(doc.parameters?.properties ?? {});
    if (p.args.length > names.length) {
      return errorObservation('INVALID_PARAMETERS', `'${p.function}' takes ${names.length} argument(s) but ${p.args.length} positional were given`, { positional: p.args.length });
    }
    const kwargs: Record<string, unknown> = Object.create(null);
    for (let i = 0; i < p.args.length; i++) {
      if (Object.prototype.hasOwnProperty.call(p.kwargs, names[i])) {
        return errorObservation('INVALID_PARAMETERS', `'${p.function}' got multiple values for argument '${names[i]}'`, { argument: names[i] });
      }
      kwargs[names[i]] = p.args[i];
    }
    for (const [k, v] of Object.entries(p.kwargs)) Object.defineProperty(kwargs, k, { value: v, enumerable: true, writable: true, configurable: true });
    return this.call(p.function, kwargs);
  }

  /** BFCL-compat execution of one Python call string. `text` is BFCL's exact result string. Never throws. */
  execPython(callString: string): Observation {
    try {
      if (typeof callString !== 'string') return { text: ERR_PREFIX + `eval() arg 1 must be a string, bytes or code object`, error: true };
      // BFCL's pre-eval guard, applied to the instance-prefixed text before the first '('.
      let head = callString.split('(')[0];
      if (head.includes('.')) head = head.split('.')[1];
      else if (this.owner.has(head.trim())) head = head.trimStart();
      if (BANNED_CALLS.includes(head)) return { text: `${ERR_PREFIX}Function call ${head} is not allowed.`, error: true };
      const p = parsePythonCall(callString);
      if (!p.ok) {
        const msg = p.error.message;
        const unclosed = unclosedBracket(callString);
        const text = unclosed ? `'${unclosed}' was never closed (<string>, line 1)`
          : msg === 'unterminated string literal' ? 'unterminated string literal (detected at line 1) (<string>, line 1)'
          : /^name '.*' is not defined$/.test(msg) ? msg
          : /^(positional argument follows keyword argument|keyword argument repeated)/.test(msg) ? `${msg} (<string>, line 1)`
            : 'invalid syntax (<string>, line 1)';
        return { text: ERR_PREFIX + text, error: true };
      }
      return this.execParsed(p);
    } catch (e) {
      return { text: ERR_PREFIX + pyErrorMessage(e), error: true };
    }
  }

  /** BFCL-compat execution of an already parsed call. Never throws. */
  execParsed(call: ParsedCall): Observation {
    try {
      const fn = call.function;
      if (fn.includes('.')) return { text: `${ERR_PREFIX}name '${fn.split('.')[0]}' is not defined`, error: true };
      if (BANNED_CALLS.includes(fn)) return { text: `${ERR_PREFIX}Function call ${fn} is not allowed.`, error: true };
      const cls = this.owner.get(fn);
      if (!cls) return { text: `${ERR_PREFIX}name '${fn}' is not defined`, error: true };
      const value = this.instances.get(cls)!.invoke(fn, call.args, call.kwargs);
      return { text: bfclResultString(value), error: false };
    } catch (e) {
      return { text: ERR_PREFIX + pyErrorMessage(e), error: true };
    }
  }

  /** The class that owns a method, if involved. */
  ownerOf(method: string): string | undefined { return this.owner.get(method); }

  /** The live backend of an involved class. */
  backend(className: string): BfclBackend | undefined { return this.instances.get(className); }

  /** Per-class public state with Python types kept (Maps, PyFloat): the fixture's state_after, unrendered. */
  stateRaw(): Map<string, unknown> {
    return new Map([...this.instances].map(([cls, inst]) => [cls, inst.state()]));
  }

  /**
   * Canonical Python json.dumps text of the per-class state (key order and float '.0' kept). Values
   * json cannot encode (a set or mpf a model smuggled into state) are written as sorted lists / repr.
   */
  stateJson(): string { return pyJsonDumps(jsonable(this.stateRaw())); }

  /** {class: {dotted.path: [keys]}} for dict keys that are ints in Python (JSON shows them as strings). */
  nonStrDictKeys(): Record<string, Record<string, string[]>> {
    const out: Record<string, Record<string, string[]>> = Object.create(null);
    for (const [cls, st] of this.stateRaw()) {
      const found: Record<string, string[]> = Object.create(null);
      collectNonStrKeys(st, '', found, true);
      if (Object.keys(found).length) out[cls] = found;
    }
    return out;
  }

  /** JSON-serialisable per-class state in the fixture's format (int keys as strings, floats as numbers). */
  snapshot(): unknown {
    return toPlain(parsePyJson(this.stateJson(), { wrapFloats: false }));
  }

  clone(): BfclEnvironment {
    const copies = new Map([...this.instances].map(([cls, inst]) => [cls, inst.clone()]));
    return new BfclEnvironment(this.entry, { funcDocs: this.docs, longContext: this.longContext, turn: this.turnIndex }, copies);
  }
}

function jsonable(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(jsonable);
  if (v instanceof PyTuple) return v.items.map(jsonable);
  if (v instanceof Set) return [...v].map(jsonable).sort((a, b) => (pyRepr(a) < pyRepr(b) ? -1 : pyRepr(a) > pyRepr(b) ? 1 : 0));
  if (v instanceof Map) return new Map([...v].map(([k, x]) => [typeof k === 'object' && k !== null && !(k instanceof PyFloat) ? pyRepr(k) : k, jsonable(x)]));
  if (typeof v === 'object' && v !== null && !(v instanceof PyFloat)) {
    if ([Object.prototype, null].includes(Object.getPrototypeOf(v))) return new Map(Object.entries(v).map(([k, x]) => [k, jsonable(x)]));
    return pyRepr(v);
  }
  return v;
}

/** The innermost bracket still open at the end of the text, as Python's tokenizer reports it. */
function unclosedBracket(text: string): string | null {
  const stack: string[] = [];
  const pairs: Record<string, string> = { ')': '(', ']': '[', '}': '{' };
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"' || c === "'") {
      const triple = text.startsWith(c.repeat(3), i);
      const end = triple ? c.repeat(3) : c;
      i += end.length;
      while (i < text.length && !text.startsWith(end, i)) i += text[i] === '\\' ? 2 : 1;
      if (i >= text.length) return null;
      i += end.length - 1;
    } else if (c === '(' || c === '[' || c === '{') stack.push(c);
    else if (c in pairs) {
      if (stack.pop() !== pairs[c]) return null;
    }
  }
  return stack.length ? stack[stack.length - 1] : null;
}

function collectNonStrKeys(v: unknown, path: string, out: Record<string, string[]>, top: boolean): void {
  const isPlain = (x: unknown) => typeof x === 'object' && x !== null && [Object.prototype, null].includes(Object.getPrototypeOf(x));
  if (v instanceof Map) {
    const nonStr = [...v.keys()].filter((k) => typeof k !== 'string');
    if (nonStr.length && !top) out[path] = nonStr.map((k) => bfclKeyText(k));
    for (const [k, x] of v) collectNonStrKeys(x, top ? String(k) : `${path}.${bfclKeyText(k)}`, out, false);
  } else if (isPlain(v)) {
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) collectNonStrKeys(x, top ? k : `${path}.${k}`, out, false);
  }
}

/** The key as json.dumps writes it (1 -> "1", 1.0 -> "1.0", True -> "true"). */
function bfclKeyText(k: unknown): string {
  try { return Object.keys(JSON.parse(pyJsonDumps(new Map([[k as string, null]]))))[0]; } catch { return String(k); }
}

/** copy.deepcopy of a config value (objects from JSON: plain objects, Maps, arrays, PyFloat). */
function deepCopyConfig(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(deepCopyConfig);
  if (v instanceof Map) return new Map([...v].map(([k, x]) => [k, deepCopyConfig(x)]));
  if (typeof v === 'object' && v !== null && [Object.prototype, null].includes(Object.getPrototypeOf(v))) {
    const o: Record<string, unknown> = Object.create(null);
    for (const [k, x] of Object.entries(v)) Object.defineProperty(o, k, { value: deepCopyConfig(x), enumerable: true, writable: true, configurable: true });
    return o;
  }
  return v;
}
