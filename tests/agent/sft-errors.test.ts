// Error examples for the Rehearse role: a broken reference call and the real environment's answer to it.
import { describe, expect, it } from 'vitest';
import { LEAN_PROFILE, rolloutSettings } from '../../src/agent/profile';
import { CALL_CORRUPTIONS, corruptCall, sftErrorExamples, sftRepeatErrorExamples, sftSwapErrorExamples, VALIDATION_CORRUPTIONS } from '../../src/agent/sft';
import { parseRehearse, validateCall } from '../../src/agent/protocol';
import { REHEARSE_MARKER } from '../../src/agent/prompts';
import { Rng } from '../../src/engine/rng';
import { getWorld } from '../../src/envs/worlds/index';
import { KV_TOOLS } from '../../src/agent/testing';

describe('broken calls', () => {
  it('each corruption breaks the call the way it says', () => {
    const call = { name: 'set', arguments: { key: 'color', value: 'blue' } };
    const pick = (n: number) => n - 1;
    expect(validateCall(corruptCall(call, KV_TOOLS, 'unknown-tool', pick)!, KV_TOOLS)?.code).toBe('TOOL_NOT_AVAILABLE');
    expect(validateCall(corruptCall(call, KV_TOOLS, 'missing-argument', pick)!, KV_TOOLS)?.code).toBe('INVALID_PARAMETERS');
    expect(validateCall(corruptCall(call, KV_TOOLS, 'wrong-type', pick)!, KV_TOOLS)?.code).toBe('INVALID_PARAMETERS');
    const v = corruptCall(call, KV_TOOLS, 'unknown-value', pick)!;
    expect(validateCall(v, KV_TOOLS)).toBeNull();
    expect(v.arguments.value).not.toBe('blue');
    expect(corruptCall({ name: 'list', arguments: {} }, KV_TOOLS, 'missing-argument', pick)).toBeNull();
    expect(call.arguments).toEqual({ key: 'color', value: 'blue' }); // never mutated
    // The policy's kinds: a tool the world has that this task does not offer; an argument under a wrong name.
    const offered = KV_TOOLS.filter((t) => t.name !== 'list');
    const hidden = corruptCall(call, offered, 'hidden-tool', pick, KV_TOOLS.map((t) => t.name))!;
    expect(hidden.name).toBe('list');
    expect(validateCall(hidden, offered)?.code).toBe('TOOL_NOT_AVAILABLE');
    expect(corruptCall(call, KV_TOOLS, 'hidden-tool', pick, KV_TOOLS.map((t) => t.name))).toBeNull(); // nothing hidden
    const renamed = corruptCall(call, KV_TOOLS, 'renamed-argument', pick)!;
    expect(Object.values(renamed.arguments).sort()).toEqual(['blue', 'color']);
    expect(Object.keys(renamed.arguments)).not.toEqual(Object.keys(call.arguments));
    expect(validateCall(renamed, KV_TOOLS)?.code).toBe('INVALID_PARAMETERS');
  });

  it('files, validation kinds: rows answer TOOL_NOT_AVAILABLE for offered-elsewhere tools and INVALID_PARAMETERS for renamed arguments', async () => {
    const tasks = getWorld('files').tasks({ split: 'train', count: 48 });
    const rng = new Rng(5);
    const ex = await sftErrorExamples(tasks, (n) => rng.int(n), { rollout: rolloutSettings(LEAN_PROFILE), maxContext: 1024, countTokens: (s) => Math.ceil(s.length / 4) }, VALIDATION_CORRUPTIONS);
    const codes = ex.map((e) => (e.target.match(/"code":\s*"([A-Z_]+)"/) ?? [, 'domain'])[1]);
    expect(codes.filter((c) => c === 'TOOL_NOT_AVAILABLE').length).toBeGreaterThan(3);
    expect(codes.filter((c) => c === 'INVALID_PARAMETERS').length).toBeGreaterThan(3);
    // A hidden tool is a real tool name of the world (no made-up form gives it away), shown as unknown in the prompt.
    for (const e of ex.filter((_, i) => codes[i] === 'TOOL_NOT_AVAILABLE')) {
      const call = e.prompt.slice(e.prompt.lastIndexOf('Call to execute:'));
      expect(call).not.toMatch(/name: \w+_(ka|lo|mi|ne|ru|ti|vo|ze)/);
    }
    // The old list's draws are unchanged by the new kinds (earlier runs' rows stay as they were).
    const a = new Rng(5), b = new Rng(5);
    const opts = { rollout: rolloutSettings(LEAN_PROFILE), maxContext: 1024, countTokens: (s: string) => Math.ceil(s.length / 4) };
    expect(await sftErrorExamples(tasks, (n) => a.int(n), opts, CALL_CORRUPTIONS)).toEqual(await sftErrorExamples(tasks, (n) => b.int(n), opts));
  });

  for (const w of ['files', 'retail']) {
    it(`${w}: Rehearse rows whose target is the real environment's error, one per task at most`, async () => {
      const tasks = getWorld(w).tasks({ split: 'train', count: 24 });
      const rng = new Rng(5);
      const ex = await sftErrorExamples(tasks, (n) => rng.int(n), { rollout: rolloutSettings(LEAN_PROFILE), maxContext: 1024, countTokens: (s) => Math.ceil(s.length / 4) });
      expect(ex.length).toBeGreaterThan(6);
      expect(new Set(ex.map((e) => e.taskId)).size).toBe(ex.length);
      for (const e of ex) {
        expect(e.role).toBe('rehearse');
        expect(e.prompt).toContain(REHEARSE_MARKER);
        const p = parseRehearse(e.target.replace(/<\|end\|>$/, ''));
        expect(p.ok).toBe(true);
        expect(JSON.stringify(p.ok && p.value)).toMatch(/error/i);
      }
      // Several kinds of error, not one.
      expect(new Set(ex.map((e) => (e.target.match(/"code":\s*"([A-Z_]+)"/) ?? [, 'domain'])[1])).size).toBeGreaterThan(1);
      void CALL_CORRUPTIONS;
    });
  }
});

describe('repeated calls', () => {
  it("files: a call made twice gets the real environment's error as its Rehearse target, with the hint of the same call in the prompt", async () => {
    const tasks = getWorld('files').tasks({ split: 'train', count: 24 });
    const rng = new Rng(7);
    const ex = await sftRepeatErrorExamples(tasks, (n) => rng.int(n), { rollout: rolloutSettings(LEAN_PROFILE), maxContext: 1024, countTokens: (s) => Math.ceil(s.length / 4) });
    expect(ex.length).toBeGreaterThan(6);
    expect(new Set(ex.map((e) => e.taskId)).size).toBe(ex.length);
    for (const e of ex) {
      expect(e.role).toBe('rehearse');
      const p = parseRehearse(e.target.replace(/<\|end\|>$/, ''));
      expect(p.ok).toBe(true);
      expect(JSON.stringify(p.ok && p.value)).toMatch(/error/i);
      // The call to execute is one the history already shows succeeding.
      const call = e.prompt.slice(e.prompt.lastIndexOf('Call to execute:'));
      const name = /name: (\w+)/.exec(call)![1];
      const args = /arguments: (\{.*\})/.exec(call)![1];
      expect(e.prompt.slice(0, e.prompt.lastIndexOf('Call to execute:'))).toContain(`{"name":"${name}","arguments":${args}}`);
    }
    // Several tools, not only cd.
    expect(new Set(ex.map((e) => /name: (\w+)/.exec(e.prompt.slice(e.prompt.lastIndexOf('Call to execute:')))![1])).size).toBeGreaterThan(1);
  });

  it('files: a name the task uses elsewhere, swapped into a call where the state rejects it; the target is the real error', async () => {
    const tasks = getWorld('files').tasks({ split: 'train', count: 24 });
    const rng = new Rng(9);
    const ex = await sftSwapErrorExamples(tasks, (n) => rng.int(n), { rollout: rolloutSettings(LEAN_PROFILE), maxContext: 1024, countTokens: (s) => Math.ceil(s.length / 4) });
    expect(ex.length).toBeGreaterThan(6);
    expect(new Set(ex.map((e) => e.taskId)).size).toBe(ex.length);
    for (const e of ex) {
      const task = tasks.find((t) => t.id === e.taskId)!;
      const refCalls = (task.reference as { role: string; toolCalls?: { name: string; arguments: Record<string, unknown> }[] }[]).flatMap((m) => (m.role === 'assistant' ? m.toolCalls ?? [] : []));
      const p = parseRehearse(e.target.replace(/<\|end\|>$/, ''));
      expect(p.ok).toBe(true);
      expect(JSON.stringify(p.ok && p.value)).toMatch(/error/i);
      // Every string it passes is a name the expert's calls use (the call may even be one the expert makes from another
      // state: the 'reference' class of the gate's misses).
      const call = e.prompt.slice(e.prompt.lastIndexOf('Call to execute:'));
      const name = /name: (\w+)/.exec(call)![1];
      const args = JSON.parse(/arguments: (\{.*\})/.exec(call)![1]) as Record<string, unknown>;
      const used = new Set(refCalls.flatMap((c) => Object.values(c.arguments)));
      for (const v of Object.values(args)) if (typeof v === 'string') expect(used.has(v)).toBe(true);
    }
  });

  it('files, --swap-accepted: about that share of the swapped calls are ones the state accepts, with their real result', async () => {
    const tasks = getWorld('files').tasks({ split: 'train', count: 48 });
    const opts = { rollout: rolloutSettings(LEAN_PROFILE), maxContext: 1024, countTokens: (s: string) => Math.ceil(s.length / 4) };
    const rng = new Rng(9);
    const ex = await sftSwapErrorExamples(tasks, (n) => rng.int(n), opts, 0.5);
    const isError = (e: { target: string }) => { const p = parseRehearse(e.target.replace(/<\|end\|>$/, '')); return p.ok && /error/i.test(JSON.stringify(p.value)); };
    const ok = ex.filter((e) => !isError(e)), bad = ex.filter(isError);
    expect(ok.length).toBeGreaterThan(4);
    expect(bad.length).toBeGreaterThan(4);
    // An accepted row swaps in a name the task uses (the real environment's answer to it is the target).
    for (const e of ok) {
      const call = e.prompt.slice(e.prompt.lastIndexOf('Call to execute:'));
      const args = JSON.parse(/arguments: (\{.*\})/.exec(call)![1]) as Record<string, unknown>;
      const task = tasks.find((t) => t.id === e.taskId)!;
      const refCalls = (task.reference as { role: string; toolCalls?: { name: string; arguments: Record<string, unknown> }[] }[]).flatMap((m) => (m.role === 'assistant' ? m.toolCalls ?? [] : []));
      const used = new Set(refCalls.flatMap((c) => Object.values(c.arguments)));
      for (const v of Object.values(args)) if (typeof v === 'string') expect(used.has(v)).toBe(true);
    }
    // --swap-rows: several distinct swaps per task, each with the real result of its own call; at 1 the old rows.
    const r4 = new Rng(9);
    const many = await sftSwapErrorExamples(tasks, (n) => r4.int(n), opts, 0.5, 4);
    const perTask = new Map<string, string[]>();
    for (const e of many) (perTask.get(e.taskId) ?? perTask.set(e.taskId, []).get(e.taskId)!).push(e.prompt);
    expect(Math.max(...[...perTask.values()].map((p) => p.length))).toBe(4);
    expect(many.length).toBeGreaterThan(2 * ex.length);
    for (const prompts of perTask.values()) expect(new Set(prompts).size).toBe(prompts.length);
    expect(many.filter(isError).length).toBeGreaterThan(bad.length);
    expect(many.filter((e) => !isError(e)).length).toBeGreaterThan(ok.length);
    const r5 = new Rng(9), r6 = new Rng(9);
    expect(await sftSwapErrorExamples(tasks, (n) => r5.int(n), opts, 0.5, 1)).toEqual(await sftSwapErrorExamples(tasks, (n) => r6.int(n), opts, 0.5));
    // At 0 the draws are the old ones, row for row.
    const r0 = new Rng(9), r1 = new Rng(9);
    expect(await sftSwapErrorExamples(tasks, (n) => r0.int(n), opts, 0)).toEqual(await sftSwapErrorExamples(tasks, (n) => r1.int(n), opts));
  });
});
