// Trace files (issue 21): a size cap checked before reading (TRACE_TOO_LARGE, nothing read), parsing in a worker of
// its own (never on the page's thread), and a clear error when that worker fails.

import { afterEach, describe, expect, it } from 'vitest';
import { readTraceFile, TRACE_FILE_MAX_BYTES, traceSizeProblem } from '../../src/app/components/rollout/traceFiles';
import { exportTraces } from '../../src/agent/traces';

const line = '{"taskId":"files-1","rows":[],"messages":[]}';

function fakeFile(name: string, size: number, text = ''): File & { reads: number } {
  const f = { name, size, reads: 0, text: async () => { f.reads++; return text; } };
  return f as unknown as File & { reads: number };
}

const realWorker = (globalThis as { Worker?: unknown }).Worker;
afterEach(() => { (globalThis as { Worker?: unknown }).Worker = realWorker; });

describe('readTraceFile', () => {
  it('refuses a file over the cap before reading it, naming its size and the limit', async () => {
    const f = fakeFile('big.jsonl', TRACE_FILE_MAX_BYTES + 1);
    const r = await readTraceFile(f);
    expect(f.reads).toBe(0);
    expect(r.trajectories).toEqual([]);
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]!.message).toMatch(/^TRACE_TOO_LARGE: big\.jsonl is 64\.0 MB; trace files up to 64\.0 MB are read/);
    expect(traceSizeProblem('a', TRACE_FILE_MAX_BYTES)).toBeNull();
    expect((await readTraceFile(fakeFile('s.jsonl', 11), { maxBytes: 10 })).errors[0]!.message).toContain('TRACE_TOO_LARGE');
  });

  it('parses in a worker of its own where Worker exists (the page thread never reads the text)', async () => {
    const made: { url: string; posted: unknown[] }[] = [];
    class FakeWorker {
      private listeners: Record<string, ((ev: unknown) => void)[]> = {};
      posted: unknown[] = [];
      terminated = false;
      constructor(url: URL) { made.push({ url: String(url), posted: this.posted }); }
      addEventListener(type: string, l: (ev: unknown) => void) { (this.listeners[type] ??= []).push(l); }
      postMessage(m: unknown) {
        this.posted.push(m);
        queueMicrotask(() => this.listeners.message?.forEach((l) => l({ data: { ok: true, loaded: { file: 'from-worker', kind: 'traces', trajectories: [], errors: [] } } })));
      }
      terminate() { this.terminated = true; }
    }
    (globalThis as { Worker?: unknown }).Worker = FakeWorker;
    const f = fakeFile('t.jsonl', 10, line);
    const r = await readTraceFile(f);
    expect(made).toHaveLength(1);
    expect(made[0]!.url).toMatch(/trace-parse\.worker\.ts$/);
    expect(made[0]!.posted).toEqual([f]);
    expect(f.reads).toBe(0);
    expect(r.file).toBe('from-worker');
  });

  it('a failing reader worker is a clear error, not a hang', async () => {
    class DyingWorker {
      private listeners: Record<string, ((ev: unknown) => void)[]> = {};
      addEventListener(type: string, l: (ev: unknown) => void) { (this.listeners[type] ??= []).push(l); }
      postMessage() { queueMicrotask(() => this.listeners.error?.forEach((l) => l({ message: 'boom', preventDefault() {} }))); }
      terminate() {}
    }
    (globalThis as { Worker?: unknown }).Worker = DyingWorker;
    const r = await readTraceFile(fakeFile('t.jsonl', 10, line));
    expect(r.errors[0]!.message).toBe('TRACE_PARSE_FAILED: the trace reader stopped: boom');
  });

  it('without Worker (Node) it parses in place', async () => {
    (globalThis as { Worker?: unknown }).Worker = undefined;
    const text = exportTraces([]);
    const r = await readTraceFile(fakeFile('e.jsonl', text.length, `${text}\nnot json`));
    expect(r.kind).toBe('traces');
    expect(r.errors.length).toBeGreaterThan(0);
  });
});
