import { describe, expect, it } from 'vitest';
import { copyDrill } from '../../src/agent/copy-drill';
import { parseAct } from '../../src/agent/protocol';
import { Rng } from '../../src/engine/rng';

describe('copying drill', () => {
  const ex = copyDrill(new Rng(7), 200);
  it('every argument value is copied from the user message, in the order it appears there', () => {
    for (const e of ex) {
      const parsed = parseAct(e.target.replace('<|end|>', ''));
      expect(parsed.ok).toBe(true);
      const user = e.prompt.slice(e.prompt.indexOf('<|user|>'));
      const values = Object.values(JSON.parse(e.target.slice(e.target.indexOf('{'), e.target.lastIndexOf('}') + 1)).arguments as Record<string, string>);
      expect(values.length).toBeGreaterThan(0);
      let at = 0;
      for (const v of values) { const i = user.indexOf(v, at); expect(i).toBeGreaterThanOrEqual(at); at = i + v.length; }
    }
  });
  it('draws fresh values (almost never repeated) and is deterministic for a seed', () => {
    const firsts = ex.map((e) => e.target);
    expect(new Set(firsts).size).toBe(firsts.length);
    expect(copyDrill(new Rng(7), 200)).toEqual(ex);
  });
});
