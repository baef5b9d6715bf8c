import { describe, expect, it } from 'vitest';
import { runSurface, type Surface } from '../../src/bench/fuzz/harness';
import { FuzzRng, mutateValue, PROTO_KEYS, protoNamesAt, randomValue, renameKey, setOwn } from '../../src/bench/fuzz/gen';
import { fuzzArguments } from '../../src/bench/fuzz/tools';
import { allSurfaces } from '../../src/cli/fuzz';

// The CI-sized run of `npm run fuzz`: every surface, 300 cases each, on the committed seed (1, the seed of
// docs/results/reliability/fuzz.json, whose full run is 10,000 per surface): the first 300 cases of each surface
// of the full run, on this thread.
const CASES = 300;
const SEED = 1;

describe('fuzz harness', () => {
  it('sorts outcomes into codes, documented errors, crashes and hangs', async () => {
    const s: Surface<number> = {
      name: 'toy', about: 'toy',
      generate: (_r, i) => i,
      run(i) {
        if (i % 5 === 1) throw new RangeError('documented');
        if (i % 5 === 2) throw new TypeError('not documented');
        if (i % 5 === 3) return new Promise<string>((res) => setTimeout(() => res('late'), 200));
        return i % 2 ? 'odd' : 'even';
      },
      documented: (e) => (e instanceof RangeError ? 'RANGE' : null),
    };
    const r = await runSurface(s, { cases: 10, seed: 1, caseTimeoutMs: 50 });
    expect(r.cases).toBe(10);
    expect(r.crashes).toBe(2);
    expect(r.hangs).toBe(2);
    expect(r.codes).toEqual({ even: 2, RANGE: 2, odd: 2 });
    expect(r.examples.find((x) => x.case === 2)?.error).toMatch(/TypeError: not documented/);
    expect(r.examples.find((x) => x.case === 3)?.error).toMatch(/hang/);
  });

  it('is deterministic in the seed', async () => {
    const url = allSurfaces().find((s) => s.name === 'url-params')!;
    const a = await runSurface(url, { cases: 200, seed: 3 });
    const b = await runSurface(url, { cases: 200, seed: 3 });
    const c = await runSurface(url, { cases: 200, seed: 4 });
    expect(b.codes).toEqual(a.codes);
    expect(c.codes).not.toEqual(a.codes);
  });
});

describe('generator', () => {
  /** Objects anywhere inside v that hold an own key k. */
  const ownKeyCount = (v: unknown, k: string): number => {
    if (!v || typeof v !== 'object') return 0;
    return (Array.isArray(v) ? 0 : Number(Object.hasOwn(v, k))) + Object.values(v).reduce((n: number, x) => n + ownKeyCount(x, k), 0);
  };

  it("makes own '__proto__' keys (an assignment would set the prototype: 6 in 200,000 values before), and they survive JSON", () => {
    const r = new FuzzRng(7);
    let own = 0; let json = 0;
    for (let i = 0; i < 20_000; i++) {
      const v = randomValue(r, 3);
      own += ownKeyCount(v, '__proto__');
      json += ownKeyCount(JSON.parse(JSON.stringify(v) ?? 'null'), '__proto__');
    }
    expect(own).toBeGreaterThan(200);
    expect(json).toBeGreaterThan(200); // fewer than `own`: JSON drops keys whose value is undefined
    let mutated = 0;
    for (let i = 0; i < 5000; i++) mutated += ownKeyCount(mutateValue(r, { a: { b: 1 }, c: [1, { d: 2 }] }), '__proto__');
    expect(mutated).toBeGreaterThan(20);
    let args = 0;
    const schema = { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] };
    for (let i = 0; i < 5000; i++) args += ownKeyCount(fuzzArguments(r, schema), '__proto__');
    expect(args).toBeGreaterThan(20);
  });

  it('setOwn sets an own property for every key, __proto__ included, and leaves the prototype alone', () => {
    const o = setOwn({}, '__proto__', { polluted: true });
    expect(Object.getPrototypeOf(o)).toBe(Object.prototype);
    expect(Object.keys(o)).toEqual(['__proto__']);
    expect(JSON.stringify(o)).toBe('{"__proto__":{"polluted":true}}');
    const plain: Record<string, unknown> = {};
    plain['__proto__'] = { polluted: true };
    expect(Object.keys(plain)).toEqual([]); // what the generator used to do
  });
});

describe(`every surface, ${CASES} fixed-seed cases`, () => {
  const names = allSurfaces().map((s) => s.name);
  it('covers the surfaces the issue names', () => {
    expect(names).toEqual(['act-output', 'rehearse-output', 'trace-file', 'reference-dump', 'model-folder', 'url-params', 'train-config',
      'cli-args', 'tools-bfcl', 'tools-tau2', 'tools-builtin', 'checkpoint-bytes', 'hf-source', 'envs-call', 'results-json', 'onnx-bytes', 'hf-folder']);
  });

  for (const s of allSurfaces()) {
    const cases = CASES;
    it(`${s.name}: no crash, no hang, no violation, and more than two outcomes`, async () => {
      const r = await runSurface(s, { cases, seed: SEED, caseTimeoutMs: 20_000 });
      expect(r.examples).toEqual([]);
      expect(r.crashes).toBe(0);
      expect(r.hangs).toBe(0);
      expect(r.violations).toBe(0);
      expect(r.cases).toBe(cases);
      // the generator reaches both accepted and rejected inputs, not one error path over and over
      // (onnx-bytes once ended BAD_ONNX for every case: its damages wrote into the shared graph — tests/bench/fuzz-hf.test.ts)
      expect(Object.keys(r.codes).length).toBeGreaterThan(2);
      if (s.name === 'onnx-bytes') expect(r.codes.ok).toBeGreaterThan(0);
    });
  }
});

describe('prototype names', () => {
  it('renameKey and protoNamesAt put prototype names where a reader files entries, as own keys', () => {
    const o = renameKey({ a: 1, b: { c: 2 } }, 'b', '__proto__');
    expect(Object.keys(o)).toEqual(['a', '__proto__']);
    expect(JSON.parse(JSON.stringify(o))).toEqual(JSON.parse('{"a":1,"__proto__":{"c":2}}'));
    const r = new FuzzRng(3);
    const v = protoNamesAt(r, { evals: { files: { act: 1 }, retail: { act: 2 } } }, 1) as { evals: Record<string, unknown> };
    expect(Object.keys(v.evals).filter((k) => PROTO_KEYS.includes(k))).toHaveLength(1);
    expect(Object.keys(v.evals)).toHaveLength(2);
  });

  it('a case that writes into a built-in is a violation, and the write is undone', async () => {
    const s: Surface<number> = {
      name: 'polluter', about: 'toy',
      generate: (_r, i) => i,
      run(i) {
        const d: Record<string, Record<string, number>> = {}; // plain: the hazard under test
        if (i === 1) (d['constructor'] ??= {})['act'] = 1; // Object.act = 1
        if (i === 2) (d['toString'] ??= {})['act'] = 1; // a property on Object.prototype.toString
        return 'ok';
      },
    };
    const r = await runSurface(s, { cases: 4, seed: 1 });
    expect(r.violations).toBe(2);
    expect(r.violationCodes).toEqual({ 'builtin-polluted': 2 });
    expect(r.examples.map((x) => x.error)).toEqual([expect.stringMatching(/Object\.act added/), expect.stringMatching(/toString\.act added/)]);
    expect(Object.hasOwn(Object, 'act')).toBe(false);
    expect(Object.hasOwn(Object.prototype.toString, 'act')).toBe(false);
    expect(r.codes).toEqual({ ok: 2 });
  });
});

describe('crashes the fuzzer found stay fixed', () => {
  it("a trace whose version is an object with an own 'toString' is a listed problem, not a TypeError (issue 39's full run)", async () => {
    const { validateTrajectory } = await import('../../src/agent/traces');
    const problems = validateTrajectory(JSON.parse('{"v":{"toString":"Infinity"},"taskId":"t","groupId":"t","mode":"real","seed":1,"messages":[],"rows":[],"terminatedBy":"done"}'));
    expect(problems.filter((p) => p.path === '$.v').map((p) => p.message)).toEqual(['expected finite number', 'unsupported version {"toString":"Infinity"}']);
  });

  it("an eval.json whose world or mode is named 'constructor', 'prototype' or '__proto__' is read, not written into Object (issue 39)", async () => {
    const { readEvalFile, heldOutRows } = await import('../../src/app/components/bench/readers');
    const ok = { tasks: 10, k: 1, success: 0.5, outcome: 0.5, checklist: 0.5 };
    const names = ['constructor', 'prototype', '__proto__', 'toString'];
    for (const world of names) for (const mode of names) {
      const { file, problems } = readEvalFile(JSON.parse(JSON.stringify({ evals: { files: { act: ok } } }).replace('"files"', JSON.stringify(world)).replace('"act"', JSON.stringify(mode))));
      expect(problems).toEqual([]);
      expect(heldOutRows(file!).map((row) => row.key)).toEqual([`${world}/${mode}`]);
    }
    expect(Object.getOwnPropertyNames(Object)).not.toContain('act');
  });

  it('URL keys that name Object.prototype members are unknown settings, not a TypeError', async () => {
    const { parseHash } = await import('../../src/app/urlState');
    const h = parseHash('#/train?constructor=1&__proto__=2&toString=3&hasOwnProperty=4');
    expect(h.page).toBe('train');
    expect(h.ignored.map((i) => [i.key, i.why])).toEqual([
      ['constructor', 'unknown setting'], ['__proto__', 'unknown setting'], ['toString', 'unknown setting'], ['hasOwnProperty', 'unknown setting'],
    ]);
  });

  it('a training config that is not an object, or has unchecked fields wrong, is refused with reasons', async () => {
    const { validateTrainConfig } = await import('../../src/rl/trainer');
    for (const c of [null, undefined, 7, 'x', [1]]) {
      const v = validateTrainConfig(c as never);
      expect(v.ok).toBe(false);
      if (!v.ok) expect(v.errors[0]).toMatch(/must be a JSON object/);
    }
    const v = validateTrainConfig({ seed: -1, topK: 1.5, topP: 2, evalEvery: 'x', checkpointEvery: null, clipRatioC: 'big' } as never);
    expect(v.ok).toBe(false);
    if (!v.ok) for (const k of ['seed', 'topK', 'topP', 'evalEvery', 'checkpointEvery', 'clipRatioC']) expect(v.errors.join('\n')).toMatch(new RegExp(k));
  });

  describe('model folders', async () => {
    const { initParams, makeConfig } = await import('../../src/engine/decoder');
    const { fetchFileSource, loadModelFolder, memoryFileSource, modelFolderFiles, ModelFolderError } = await import('../../src/engine/modelFolder');
    const { trainBPE } = await import('../../src/engine/tokenizer');
    const { syntheticCorpus } = await import('../../src/engine/corpus');
    const tokenizer = trainBPE(syntheticCorpus(20_000, 4), { vocabSize: 300 });
    const config = makeConfig('tiny', { vocab_size: 300, hidden_size: 16, num_attention_heads: 2, intermediate_size: 32, num_hidden_layers: 1, max_position_embeddings: 32 });
    const files = modelFolderFiles({ config, params: initParams(config, 1), tokenizer, withOnnx: false });
    const enc = new TextEncoder();
    const dec = new TextDecoder();
    const edit = (name: string, f: (j: any) => void) => { const j = JSON.parse(dec.decode(files[name])); f(j); return { ...files, [name]: enc.encode(JSON.stringify(j)) }; };
    const code = async (fs: Record<string, Uint8Array>) => {
      try { await loadModelFolder(memoryFileSource(fs)); return 'ok'; } catch (e) { expect(e).toBeInstanceOf(ModelFolderError); return (e as InstanceType<typeof ModelFolderError>).code; }
    };

    it('each failure has its code', async () => {
      expect(await code(files)).toBe('ok');
      const { ['tokenizer.json']: _t, ...noTokenizer } = files;
      expect(await code(noTokenizer)).toBe('missing_file');
      expect(await code({ ...files, 'config.json': files['config.json'].slice(0, 20) })).toBe('bad_json');
      expect(await code(edit('config.json', (c) => { c.hidden_size = '16'; }))).toBe('bad_config');
      expect(await code(edit('config.json', (c) => { c.vocab_size = 100; }))).toBe('tokenizer_mismatch');
      expect(await code(edit('tokenizer.json', (t) => { t.model.merges.push(['nope', 'zz']); }))).toBe('bad_tokenizer');
      expect(await code(edit('tokenizer.json', (t) => { t.added_tokens.push({ id: 2 ** 40, content: '<x>' }); }))).toBe('tokenizer_mismatch');
      expect(await code({ ...files, 'model.safetensors': files['model.safetensors'].slice(0, 100) })).toBe('bad_weights');
    });

    it('a folder from an untrusted URL makes the loader fetch only its own files under that prefix', async () => {
      // config and tokenizer texts full of other URLs must not lead anywhere
      const hostile = edit('config.json', (c) => { c.envace = { homepage: 'https://evil.example/x', _name_or_path: 'https://evil.example/model' }; });
      const seen: string[] = [];
      const fakeFetch = (async (url: string, init?: { method?: string }) => {
        seen.push(url);
        const f = hostile[url.replace('https://models.example/m/', '')];
        return new Response(init?.method === 'HEAD' || !f ? null : (f as BodyInit), { status: f ? 200 : 404 });
      }) as unknown as typeof fetch;
      const folder = await loadModelFolder(fetchFileSource('https://models.example/m/', fakeFetch));
      await folder.readOnnx();
      expect(seen.length).toBeGreaterThan(0);
      for (const u of seen) expect(u).toMatch(/^https:\/\/models\.example\/m\/(config\.json|tokenizer\.json|tokenizer_config\.json|model\.safetensors|generation_config\.json|onnx\/model\.onnx)$/);
    });
  });
});
