// parseHfSource (issue 21): the revision and the repository name go into a URL path, so '.'/'..' parts, '@'
// inside a revision, an empty revision and URLs without a host are refused with BAD_SOURCE.
import { describe, expect, it } from 'vitest';
import { HfModelError, parseHfSource } from '../../src/engine/hf/source';

const none = () => false;
const code = (ref: string): string => {
  try { parseHfSource(ref, none); return 'ok'; } catch (e) { expect(e).toBeInstanceOf(HfModelError); return (e as HfModelError).code; }
};

describe('parseHfSource', () => {
  it('hub ids with and without a revision, URLs and local folders', () => {
    expect(parseHfSource('onnx-community/Qwen3-0.6B-ONNX', none)).toEqual({ kind: 'hub', id: 'onnx-community/Qwen3-0.6B-ONNX', revision: 'main' });
    expect(parseHfSource('hf:a/b@v1.0', none)).toEqual({ kind: 'hub', id: 'a/b', revision: 'v1.0' });
    expect(parseHfSource('a/b@refs/pr/1', none)).toEqual({ kind: 'hub', id: 'a/b', revision: 'refs/pr/1' });
    expect(parseHfSource('a/b@0123456789abcdef0123456789abcdef01234567', none)).toMatchObject({ revision: '0123456789abcdef0123456789abcdef01234567' });
    expect(parseHfSource('https://example.org/models/x/', none)).toEqual({ kind: 'url', url: 'https://example.org/models/x' });
    expect(parseHfSource('models/x', (p) => p === 'models/x')).toEqual({ kind: 'local', path: 'models/x' });
  });

  it.each([
    'a/..', 'a/.', '../b', 'a/b..c', 'a/b@../../x', 'a/b@..', 'a/b@a/../b', 'a/b@', 'a/b@a@b', 'a/b@x.lock', 'a/b@%2e%2e',
    'a/b@/abs', 'a/b@trail/', 'a/b@a//b', 'a/b@a?b', 'a/b@a#b', 'hf:a/b@ main', 'https://', 'http:///', 'HTTPS:////',
  ])('refuses %j with BAD_SOURCE', (ref) => {
    expect(code(ref)).toBe('BAD_SOURCE');
  });

  it('a revision or id that passes stays inside the repository URL, raw or encoded', () => {
    for (const ref of ['a/b', 'a/b@refs/pr/1', 'x.y/m.v2@feature/one', 'A1/m@v1.0']) {
      const s = parseHfSource(ref, none);
      if (s.kind !== 'hub') throw new Error(ref);
      for (const rev of [s.revision, encodeURIComponent(s.revision)]) {
        expect(new URL(`/${s.id}/resolve/${rev}/config.json`, 'https://huggingface.co').pathname.startsWith(`/${s.id}/resolve/`)).toBe(true);
      }
    }
  });
});
