import { describe, expect, it } from 'vitest';
import { getWorld, replayReference } from '../../src/envs/worlds/index';
import { judgeEpisode } from '../../src/envs/judges';
import { withFolderShown } from '../../src/envs/worlds/files/env';

const N = 40;
const calls = (t: { reference: { role: string; toolCalls?: unknown[] }[] }) => t.reference.flatMap((m) => (m.role === 'assistant' ? m.toolCalls ?? [] : []));
const LEVELS = ['files-folder', 'files-all', 'files-live', 'files-lines'];

describe('files visibility levels (the simulator gate\'s knob)', () => {
  it.each(LEVELS)('%s has the files world\'s seeds, splits and expert calls; only what is shown differs, and its experts verify', (name) => {
    const base = getWorld('files').tasks({ split: 'train', count: N });
    const level = getWorld(name).tasks({ split: 'train', count: N });
    expect(level.map((t) => t.id.replace(name, 'files'))).toEqual(base.map((t) => t.id));
    level.forEach((t, i) => {
      expect(calls(t)).toEqual(calls(base[i]));
      const first = (t.reference[0] as { content: string }).content;
      expect(first.startsWith(name === 'files-lines' ? 'My folders:\n~: ' : 'My top folder has: ')).toBe(true);
      expect(first.endsWith((base[i].reference[0] as { content: string }).content)).toBe(true);
      const r = replayReference(t);
      expect(r.mismatches).toEqual([]);
      expect(judgeEpisode(t, r.turnSteps, r.env).score).toBe(1);
    });
  });

  it('files-lines: the state line of every folder the expert enters is a line of the first message until it changes the tree', () => {
    const world = getWorld('files-lines');
    let checked = 0;
    for (const t of world.tasks({ split: 'train', count: N })) {
      const lines = new Set((t.reference[0] as { content: string }).content.split('\n'));
      const env = t.makeEnv();
      for (const c of calls(t) as { name: string; arguments: Record<string, unknown> }[]) {
        if (['mkdir', 'touch', 'echo', 'mv', 'cp', 'rm'].includes(c.name)) break;
        expect(lines.has(world.stateLine!(env))).toBe(true);
        checked++;
        env.call(c.name, c.arguments);
      }
    }
    expect(checked).toBeGreaterThan(N);
  });

  it('files-live: every result ends with the working folder and its entries, as they are after the call', () => {
    let checked = 0;
    for (const t of getWorld('files-live').tasks({ split: 'train', count: N })) {
      const env = t.makeEnv();
      for (const c of calls(t) as { name: string; arguments: Record<string, unknown> }[]) {
        const text = env.call(c.name, c.arguments).text;
        const now = (JSON.parse(text.split('\n').at(-1)!) as { now_in?: string }).now_in;
        expect(now, text).toMatch(/^\/[^:]*: /);
        const [path, entries] = now!.split(': ');
        // ls is offered in every files task (pwd is not); its own result carries the same folder
        const probe = JSON.parse(env.call('ls', { a: true }).text) as { current_directory_content: string[]; now_in: string };
        expect(probe.now_in).toBe(now);
        expect(entries ? entries.split(', ').map((e) => e.replace(/\/$/, '')) : []).toEqual(probe.current_directory_content);
        if (c.name === 'cd' && c.arguments.folder !== '..') expect(path.endsWith(`/${c.arguments.folder}`)).toBe(true);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(N);
  });

  it('files-live: a cd that fails leaves the folder where it was, and the error says so', () => {
    const t = getWorld('files-live').tasks({ split: 'train', count: 1 })[0];
    const env = t.makeEnv();
    const before = (JSON.parse(env.call('pwd', {}).text) as { now_in: string }).now_in;
    const bad = env.call('cd', { folder: 'no-such-folder' });
    expect(bad.error || /error/.test(bad.text)).toBe(true);
    expect((JSON.parse(bad.text) as { now_in: string }).now_in).toBe(before);
  });

  it('withFolderShown adds a last key to a JSON object and puts it on a line of its own after anything else', () => {
    expect(withFolderShown('{}', '/a: b')).toBe('{"now_in": "/a: b"}');
    expect(withFolderShown('{"x": 1}', '/a: b')).toBe('{"x": 1, "now_in": "/a: b"}');
    expect(withFolderShown('None', '/a: b')).toBe('None\n{"now_in": "/a: b"}');
  });
});
