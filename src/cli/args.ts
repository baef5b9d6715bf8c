// Command-line arguments for every Node entry point: Node's own util.parseArgs (strict, so an unknown or
// misspelt flag is an error) plus a typed schema per command. Every problem is collected first; then the
// command prints them all with its usage and exits 2, before doing any work.

import { parseArgs } from 'node:util';

type Kind = 'string' | 'number' | 'int' | 'boolean' | 'list' | 'numbers';

interface Base<K extends Kind, V> {
  type: K;
  help: string;
  default?: V;
  /** A value is required (no default): missing → an error. */
  required?: boolean;
}
export type OptSpec =
  | (Base<'string', string> & { choices?: readonly string[] })
  | (Base<'number', number> & { min?: number; max?: number })
  | (Base<'int', number> & { min?: number; max?: number })
  | Base<'boolean', boolean>
  | (Base<'list', string[]> & { choices?: readonly string[] })
  | (Base<'numbers', number[]> & { min?: number; max?: number; integer?: boolean });

type ValueOf<S extends OptSpec> =
  S extends { type: 'string' } ? string
  : S extends { type: 'number' | 'int' } ? number
  : S extends { type: 'boolean' } ? boolean
  : S extends { type: 'list' } ? string[]
  : number[];

/** Options with a default or `required: true` are always present; booleans default to false. */
export type CliValues<S extends Record<string, OptSpec>> = {
  [K in keyof S]: S[K] extends { default: unknown } | { required: true } | { type: 'boolean' } ? ValueOf<S[K]> : ValueOf<S[K]> | undefined;
} & { _: string[] };

export interface CliDef<S extends Record<string, OptSpec>> {
  /** `npm run NAME --` */
  name: string;
  summary: string;
  options: S;
  /** Positional arguments allowed (e.g. a subcommand); default none. */
  positionals?: { min?: number; max?: number; usage: string };
}

export class CliArgsError extends Error {
  constructor(readonly problems: string[], readonly usage: string) {
    super(problems.join('\n'));
    this.name = 'CliArgsError';
  }
}

export function usage<S extends Record<string, OptSpec>>(def: CliDef<S>): string {
  const lines = [`usage: npm run ${def.name} -- ${def.positionals ? def.positionals.usage + ' ' : ''}[options]`, def.summary, '', 'options:'];
  for (const [k, o] of Object.entries(def.options)) {
    const v = o.type === 'boolean' ? '' : ` <${o.type === 'list' ? 'a,b,…' : o.type === 'numbers' ? 'n,n,…' : o.type}>`;
    const extra = [
      'choices' in o && o.choices ? `one of ${o.choices.join('|')}` : '',
      o.required ? 'required' : o.default !== undefined ? `default ${JSON.stringify(o.default)}` : '',
    ].filter(Boolean).join('; ');
    lines.push(`  --${k}${v}`.padEnd(30) + ` ${o.help}${extra ? ` (${extra})` : ''}`);
  }
  lines.push('  --help'.padEnd(30) + ' this text');
  return lines.join('\n');
}

/** Parses and validates; throws CliArgsError listing every problem. Pure (no exit), for tests and the fuzzer. */
export function parseCliArgs<S extends Record<string, OptSpec>>(def: CliDef<S>, argv: string[]): CliValues<S> | 'help' {
  const problems: string[] = [];
  const options = Object.fromEntries(Object.entries(def.options).map(([k, o]) => [k, { type: o.type === 'boolean' ? 'boolean' as const : 'string' as const }]));
  type Parsed = { values: Record<string, string | boolean | undefined>; positionals: string[] };
  let parsed: Parsed | undefined;
  // util.parseArgs stops at its first problem; drop the offending argument and parse again, so every
  // unknown option and every option missing its value is listed, together with the schema's problems.
  let rest = [...argv];
  for (let tries = 0; !parsed && tries <= argv.length; tries++) {
    try {
      parsed = parseArgs({ args: rest, options: { ...options, help: { type: 'boolean' } }, strict: true, allowPositionals: true }) as unknown as Parsed;
    } catch (e) {
      const msg = (e as Error).message;
      problems.push(msg.replace(/\. To specify a positional argument.*$/s, '').replace(/\n/g, ' '));
      const raw = /'(-[^' =]+)/.exec(msg)?.[1];
      const at = raw === undefined ? -1 : rest.findIndex((x) => x === raw || x.startsWith(`${raw}=`));
      if (at < 0) break;
      // an ambiguous option (`--n -1`) takes its dash-led value with it, or the value becomes an unknown option
      rest = [...rest.slice(0, at), ...rest.slice(at + (/ambiguous/.test(msg) ? 2 : 1))];
    }
  }
  if (!parsed) throw new CliArgsError(problems, usage(def));
  if (parsed.values.help) return 'help';
  const out: Record<string, unknown> = { _: parsed.positionals };
  const pos = def.positionals;
  if (!pos && parsed.positionals.length) problems.push(`unexpected argument(s): ${parsed.positionals.join(' ')}`);
  if (pos && parsed.positionals.length < (pos.min ?? 0)) problems.push(`expected ${pos.usage}`);
  if (pos && pos.max !== undefined && parsed.positionals.length > pos.max) problems.push(`too many arguments: ${parsed.positionals.join(' ')}`);
  for (const [k, o] of Object.entries(def.options)) {
    const raw = parsed.values[k];
    if (raw === undefined) {
      if (o.required) problems.push(`--${k} is required (${o.help})`);
      out[k] = o.type === 'boolean' ? (o.default ?? false) : o.default;
      continue;
    }
    if (o.type === 'boolean') { out[k] = raw; continue; }
    const s = String(raw);
    const num = (x: string, integer: boolean, min?: number, max?: number): number | undefined => {
      const n = x.trim() === '' ? NaN : Number(x);
      if (!Number.isFinite(n) || (integer && !Number.isInteger(n))) { problems.push(`--${k} must be ${integer ? 'an integer' : 'a number'} (got ${JSON.stringify(x)})`); return undefined; }
      if (min !== undefined && n < min) { problems.push(`--${k} must be ≥ ${min} (got ${n})`); return undefined; }
      if (max !== undefined && n > max) { problems.push(`--${k} must be ≤ ${max} (got ${n})`); return undefined; }
      return n;
    };
    switch (o.type) {
      case 'string':
        if (o.choices && !o.choices.includes(s)) problems.push(`--${k} must be one of ${o.choices.join(', ')} (got ${JSON.stringify(s)})`);
        out[k] = s; break;
      case 'number': case 'int':
        out[k] = num(s, o.type === 'int', o.min, o.max); break;
      case 'list': {
        const items = s.split(',').map((x) => x.trim()).filter(Boolean);
        if (!items.length) problems.push(`--${k} needs at least one value`);
        for (const it of items) if (o.choices && !o.choices.includes(it)) problems.push(`--${k}: ${JSON.stringify(it)} is not one of ${o.choices.join(', ')}`);
        out[k] = items; break;
      }
      case 'numbers': {
        const items = s.split(',').map((x) => x.trim());
        out[k] = items.map((x) => num(x, !!o.integer, o.min, o.max));
        break;
      }
    }
  }
  if (problems.length) throw new CliArgsError(problems, usage(def));
  return out as CliValues<S>;
}

/** For entry points: parse process.argv; on --help print usage and exit 0; on any problem print all and exit 2. */
export function cliArgs<S extends Record<string, OptSpec>>(def: CliDef<S>, argv: string[] = process.argv.slice(2)): CliValues<S> {
  try {
    const r = parseCliArgs(def, argv);
    if (r === 'help') { process.stdout.write(usage(def) + '\n'); process.exit(0); }
    return r;
  } catch (e) {
    if (!(e instanceof CliArgsError)) throw e;
    process.stderr.write(`${def.name}: ${e.problems.length} problem(s) with the arguments:\n${e.problems.map((p) => `  - ${p}`).join('\n')}\n\n${e.usage}\n`);
    process.exit(2);
  }
}

/** Identity with inference: `const def = defineCli({ name, summary, options: { … } })` keeps each option's type. */
export function defineCli<S extends Record<string, OptSpec>>(def: CliDef<S>): CliDef<S> { return def; }
