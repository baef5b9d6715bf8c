import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FIELD_HELP } from '../../src/app/fieldHelp';

describe('every Train setting is explained on hover (issue 42, point 8)', () => {
  it('each <Field k="t.…"> of the Train page has its own title or a FIELD_HELP entry', () => {
    const src = readFileSync('src/app/pages/Train.tsx', 'utf8');
    const fields = [...src.matchAll(/<Field k="(t\.[a-z]+)"([^>]*)\/>/g)];
    expect(fields.length).toBeGreaterThanOrEqual(30);
    const bare = fields.filter(([, k, rest]) => !/\btitle=/.test(rest!) && !(FIELD_HELP as Record<string, string>)[k!]).map(([, k]) => k);
    expect(bare).toEqual([]);
    for (const text of Object.values(FIELD_HELP)) expect(text!.length).toBeGreaterThan(20);
  });
});
