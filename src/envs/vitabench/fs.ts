// Node-only: read a VitaBench data root by path (default ../shared/data/vitabench). Never bundled.

import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { VitaDomain } from './data_model';
import { VITA_FILES, vitaDataFromTexts, type VitaData } from './data';

export const defaultVitaRoot = (): string => path.resolve(process.cwd(), '../shared/data/vitabench');

const cache = new Map<string, VitaData>();

export function loadVitaData(domain: VitaDomain, root = defaultVitaRoot()): VitaData {
  const key = `${path.resolve(root)}|${domain}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const files = VITA_FILES(domain);
  const read = (f: string) => readFileSync(path.join(root, f), 'utf8');
  const out = vitaDataFromTexts(domain, {
    tasks: read(files.tasks), tools: read(files.tools), agentPrompt: read(files.agentPrompt), userPrompt: read(files.userPrompt),
    judgePrompt: read(files.judgePrompt), holidays: read(files.holidays),
  });
  cache.set(key, out);
  return out;
}
