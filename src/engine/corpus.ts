// Synthetic text for tests and benchmarks when no real corpus is given: structured enough that BPE
// finds real merges and a small LM can learn something, fully determined by the seed.

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SUBJECTS = ['the cat', 'a robot', 'the agent', 'my friend', 'the model', 'a user', 'the tool', 'our team'];
const VERBS = ['reads', 'writes', 'finds', 'calls', 'checks', 'books', 'sends', 'opens', 'counts', 'moves'];
const OBJECTS = ['the file', 'a flight', 'the order', 'an email', 'the weather', 'a number', 'the door', 'the list'];
const ENDINGS = ['.', '!', '?', ' today.', ' again.', ' quickly.', ' at noon.', ' for 3 days.'];
const EXTRA = ['café', 'naïve', 'Straße', '日本語', 'Привет', 'ελληνικά', '🙂', 'x = y + 1;', '{"a": 1}', 'e.g.'];

/** About `bytes` characters of sentence-like text, one short paragraph per line. */
export function syntheticCorpus(bytes: number, seed = 1): string {
  const r = mulberry32(seed);
  const pick = <T>(a: readonly T[]): T => a[Math.floor(r() * a.length)];
  const lines: string[] = [];
  let n = 0;
  while (n < bytes) {
    const k = 1 + Math.floor(r() * 4);
    const sents: string[] = [];
    for (let i = 0; i < k; i++) {
      let s = `${pick(SUBJECTS)} ${pick(VERBS)} ${pick(OBJECTS)}`;
      if (r() < 0.15) s += ` ${pick(EXTRA)}`;
      if (r() < 0.2) s += ` ${Math.floor(r() * 1000)}`;
      s += pick(ENDINGS);
      sents.push(s[0].toUpperCase() + s.slice(1));
    }
    const line = sents.join(' ');
    lines.push(line);
    n += line.length + 1;
  }
  return lines.join('\n') + '\n';
}
