// Fuzz surfaces of text a user types into the CLIs and the Models page: Hugging Face model references
// (parseHfSource: `--hf owner/name@revision`, `hf:…`, URLs, folders) and the JSON of `npm run envs -- call`
// (--tool/--args/--calls, run on a task's environment).

import { HfModelError, parseHfSource } from '../../engine/hf/source';
import { callsOf, runCalls } from '../../cli/envs-call';
import { CliArgsError } from '../../cli/args';
import { getWorld, worldNames } from '../../envs/worlds/index';
import type { ToolCall } from '../../envs/types';
import { FuzzRng, mutateN, mutateValue, NASTY_STRINGS, PROTO_KEYS, randomString, randomValue } from './gen';
import { FuzzViolation, type Surface } from './harness';
import { observationCode } from './tools';

const OWNERS = ['onnx-community', 'HuggingFaceTB', 'a', 'A1', 'x.y', 'under_score', '..', '.', '-lead', '', 'o w', 'owner%2F..', '日本'];
const NAMES = ['Qwen3-0.6B-ONNX', 'SmolLM2-135M', 'm', 'model.v2', '..', '.', 'a..b', '', 'n/extra', 'name?x=1', 'name#frag'];
const REVISIONS = ['main', 'v1.0', 'refs/pr/1', '0123456789abcdef0123456789abcdef01234567', '../../x', '..', '.', '', 'a@b', '%2e%2e',
  'a/../b', 'a//b', '/abs', 'trail/', 'x.lock', 'feature/one', 'a?b', 'a#b', ' main', 'main\n'];

function hfRef(r: FuzzRng): string {
  if (r.bool(0.1)) return randomString(r, 40);
  const prefix = r.pick(['', '', '', 'hf:', 'https://', 'http://', 'HTTPS://', ' ', 'file:']);
  const owner = r.bool(0.8) ? r.pick(OWNERS) : r.pick(NASTY_STRINGS).slice(0, 12);
  const name = r.bool(0.8) ? r.pick(NAMES) : r.pick([...PROTO_KEYS, ...NASTY_STRINGS]).slice(0, 12);
  const rev = r.bool(0.5) ? '' : `@${r.bool(0.85) ? r.pick(REVISIONS) : randomString(r, 10)}`;
  const text = `${prefix}${owner}${r.bool(0.95) ? '/' : ''}${name}${rev}${r.pick(['', '', '', '/', ' ', '//'])}`;
  return r.bool(0.2) ? mutateN(r, text, 2) : text;
}

export const hfSourceSurface: Surface<{ ref: string; local: boolean }> = {
  name: 'hf-source',
  about: "Hugging Face model references (owner/name[@revision], hf:…, URLs, local folders) through parseHfSource; documented error: HfModelError; violation: a hub id or revision that walks out of the repository's URL (hub-path-escapes) or a kind that contradicts the input",
  generate: (r) => ({ ref: hfRef(r), local: r.bool(0.1) }),
  run({ ref, local }) {
    const s = parseHfSource(ref, () => local);
    if (s.kind === 'local') { if (!local) throw new FuzzViolation('local-without-folder', `'${ref}' taken as a local folder that does not exist`); return 'local'; }
    if (s.kind === 'url') { if (!/^https?:\/\//i.test(s.url)) throw new FuzzViolation('url-not-http', `'${ref}' taken as URL ${s.url}`); return 'url'; }
    if (s.kind !== 'hub') throw new FuzzViolation('unexpected-kind', `'${ref}' gave kind ${s.kind}`);
    // Both ways a loader may build the file URL: the revision raw (a path template) or encoded.
    for (const rev of [s.revision, encodeURIComponent(s.revision)]) {
      const path = `/${s.id}/resolve/${rev}/config.json`;
      const u = new URL(path, 'https://huggingface.co');
      if (!u.pathname.startsWith(`/${s.id}/resolve/`) || !u.pathname.endsWith('/config.json') || u.search || u.hash) {
        throw new FuzzViolation('hub-path-escapes', `'${ref}' → ${s.id}@${s.revision} resolves to ${u.pathname}${u.search}${u.hash}`);
      }
    }
    return s.revision === 'main' ? 'hub' : 'hub:revision';
  },
  documented: (e) => (e instanceof HfModelError ? e.code : null),
  show: (x) => JSON.stringify(x),
};

// ---------------------------------------------------------------------------------------------------------

let callCorpus: { seeds: number[]; calls: ToolCall[] } | null = null;
function envsCallCorpus(): { seeds: number[]; calls: ToolCall[] } {
  if (callCorpus) return callCorpus;
  const calls: ToolCall[] = [];
  for (const w of worldNames()) for (const t of getWorld(w).tasks({ count: 3 })) {
    for (const m of t.reference) if (m.role === 'assistant' && m.toolCalls) calls.push(...m.toolCalls);
  }
  callCorpus = { seeds: [0, 1, 2], calls };
  return callCorpus;
}

interface EnvsCallInput { world: string; seed: number; tool?: string; args?: string; calls?: string }

function callsText(r: FuzzRng): string {
  const c = envsCallCorpus();
  switch (r.int(5)) {
    case 0: return randomString(r, 60);
    case 1: return JSON.stringify(randomValue(r, 3)) ?? 'undefined';
    default: {
      let v: unknown = Array.from({ length: r.range(0, 4) }, () => { const x = r.pick(c.calls); return { name: x.name, arguments: x.arguments }; });
      for (let i = r.int(3); i > 0; i--) v = mutateValue(r, v);
      const text = JSON.stringify(v) ?? 'null';
      return r.bool(0.2) ? mutateN(r, text, 2) : text;
    }
  }
}

export const envsCallSurface: Surface<EnvsCallInput> = {
  name: 'envs-call',
  about: '`npm run envs -- call` JSON (--tool/--args or --calls, mutated from real expert calls) through callsOf and runCalls on a task environment; documented error: CliArgsError; every observation must be well-formed',
  setup: () => { envsCallCorpus(); },
  generate(r) {
    const world = r.pick(worldNames());
    const seed = r.pick(envsCallCorpus().seeds);
    const form = r.int(6);
    if (form === 0) return { world, seed };
    if (form <= 2) {
      const x = r.pick(envsCallCorpus().calls);
      const args = r.bool(0.2) ? undefined : r.bool(0.5) ? JSON.stringify(mutateValue(r, x.arguments)) ?? 'null' : r.bool() ? randomString(r, 30) : JSON.stringify(randomValue(r, 2)) ?? '';
      return { world, seed, tool: r.bool(0.85) ? x.name : r.pick([...PROTO_KEYS, ...NASTY_STRINGS]), args };
    }
    return { world, seed, calls: callsText(r), ...(r.bool(0.05) ? { tool: 'ls' } : {}) };
  },
  run(input) {
    const parsed = callsOf(input);
    const out = runCalls(input);
    if (out.length !== parsed.length) throw new FuzzViolation('calls-dropped', `${parsed.length} calls parsed, ${out.length} run`);
    if (!out.length) return 'ok:no-calls';
    const codes = out.map((o) => observationCode(o.observation));
    return codes.find((c) => c !== 'ok') ?? 'ok';
  },
  documented: (e) => (e instanceof CliArgsError ? 'CliArgsError' : null),
  show: (x) => JSON.stringify(x).slice(0, 400),
};
