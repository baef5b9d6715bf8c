// `npm run envs -- call` (src/cli/envs-call.ts): the JSON a user types is checked before any work, and the
// calls run in order on one environment of the task.
import { describe, expect, it } from 'vitest';
import { callsOf, runCalls } from '../../src/cli/envs-call';
import { CliArgsError } from '../../src/cli/args';

const problems = (o: Parameters<typeof callsOf>[0]): string[] => {
  try { callsOf(o); return []; } catch (e) { expect(e).toBeInstanceOf(CliArgsError); return (e as CliArgsError).problems; }
};

describe('envs call', () => {
  it('lists every problem with --tool/--args/--calls', () => {
    expect(problems({})).toEqual(['need --tool NAME (or --calls)']);
    expect(problems({ tool: 'ls', args: '{' })[0]).toMatch(/^--args is not JSON/);
    expect(problems({ calls: '[]', tool: 'ls' })).toEqual(['--calls excludes --tool and --args']);
    for (const calls of ['{}', '[1]', '[null]', '[[]]', '[{"arguments":{}}]', '[{"name":5}]']) {
      expect(problems({ calls }), calls).toEqual(['--calls must be a JSON list of {"name": …, "arguments": {…}}']);
    }
    expect(callsOf({ calls: '[{"name":"ls"},{"name":"cd","arguments":{"folder":"x"}}]' })).toHaveLength(2);
    expect(callsOf({ tool: 'ls' })).toEqual([{ name: 'ls', arguments: {} }]);
  });

  it('runs the calls in order on one environment; bad arguments are error observations', () => {
    const out = runCalls({ world: 'files', seed: 3, calls: '[{"name":"ls"},{"name":"cd","arguments":{"folder":"nope"}},{"name":"ls","arguments":{"constructor":1}}]' });
    expect(out.map((o) => o.call.name)).toEqual(['ls', 'cd', 'ls']);
    expect(out[0].observation.text).toMatch(/current_directory_content/);
    expect(out[1].observation.text).toMatch(/cd: 'nope': No such file or directory/);
    expect(out[2].observation).toMatchObject({ error: true, text: expect.stringMatching(/INVALID_PARAMETERS.*unexpected argument\(s\) constructor/) });
  });
});
