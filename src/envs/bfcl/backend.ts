// The contract every BFCL multi-turn backend port implements. Values follow src/envs/python.ts
// conventions (PyFloat for floats, Map for dicts whose key order or int keys matter), so that the
// result strings BFCL builds with json.dumps / str() come out byte-identical.

export interface BfclBackend {
  /** BFCL's Python class name, e.g. "GorillaFileSystem". */
  readonly className: string;
  /** Python `_load_scenario(deepcopy(config), long_context)`. Config comes from parsePyJson (floats wrapped). */
  loadScenario(config: unknown, longContext: boolean): void;
  /** Public method names callable by the model. */
  methods(): string[];
  /**
   * Call a method as Python would with these positional and keyword arguments. Returns the raw Python
   * value (str, dict/Map, list, number, PyFloat, null, ...). Throws BfclPyError for what Python raises
   * (the caller turns it into "Error during execution: " + message).
   */
  invoke(method: string, args: unknown[], kwargs: Record<string, unknown>): unknown;
  /** vars(self) minus '_'-prefixed names, in Python attribute order (fixture `state_after` format). */
  state(): unknown;
  /** Deep copy (with shared-structure quirks preserved where they are observable). */
  clone(): BfclBackend;
}

/** A Python exception; `message` is str(e) exactly (e.g. "'x'" for KeyError('x')). One class for every port. */
export { PyException as BfclPyError } from '../python';

/** Registry filled by each backend module: className -> factory. */
export const BACKENDS: Record<string, () => BfclBackend> = Object.create(null);
export function registerBackend(className: string, make: () => BfclBackend): void { BACKENDS[className] = make; }
