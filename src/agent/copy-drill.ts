// A synthetic copying drill for SFT warm-up: a user message carrying random identifiers (pseudo-words,
// digit strings, order ids, emails, user ids) and a tool call that copies them, in order, into its
// arguments. Every target value is a copy and none can be guessed, so the model must learn to copy
// multi-token spans (retail's zips and ids are 2–4 tokens each): an induction mechanism that the worlds'
// own conversations, where most target tokens are predictable, grow slowly. Same chat format and
// tool-call syntax as the Act prompts of the lean profile.

import type { Rng } from '../engine/rng';
import { capital, pseudoWord, randomDigits } from './scramble';
import type { SftExample } from './sft';

const pick = <T>(rng: Rng, xs: readonly T[]): T => xs[rng.int(xs.length)];

const VALUES: [string, (rng: Rng) => string][] = [
  ['first_name', (r) => capital(pseudoWord(r))],
  ['last_name', (r) => capital(pseudoWord(r))],
  ['zip', (r) => randomDigits(r, 5)],
  ['order_id', (r) => `#W${randomDigits(r, 4)}`],
  ['email', (r) => `${pseudoWord(r)}.${pseudoWord(r)}${randomDigits(r, 2)}@example.com`],
  ['user_id', (r) => `${pseudoWord(r)}_${pseudoWord(r)}_${randomDigits(r, 3)}`],
  ['item_id', (r) => randomDigits(r, 6)],
  ['product_id', (r) => randomDigits(r, 4)],
  ['payment_method_id', (r) => `${pick(r, ['credit_card', 'gift_card', 'paypal'])}_${randomDigits(r, 4)}`],
  ['folder', (r) => pseudoWord(r)],
];
const TOOLS = ['find_user_id_by_name_zip', 'get_order_details', 'get_user_details', 'get_product_details', 'cancel_pending_order', 'modify_pending_order_payment', 'lookup', 'record'];
function shuffled<T>(rng: Rng, xs: readonly T[]): T[] {
  const a = [...xs];
  for (let i = a.length - 1; i > 0; i--) { const j = rng.int(i + 1); [a[i], a[j]] = [a[j], a[i]]; }
  return a;
}
const LEADS = ['Hi,', 'Please check', 'Here:', 'My details are', 'Use', 'It is', 'Can you look up'];
const JOINS = [', ', ' and ', ' / ', ', then ', ' - '];

/** `n` drill examples (role act), each its own one-row "conversation". */
export function copyDrill(rng: Rng, n: number, tag = 'drill'): SftExample[] {
  const out: SftExample[] = [];
  for (let i = 0; i < n; i++) {
    const k = 1 + rng.int(4);
    const picked = shuffled(rng, VALUES).slice(0, k);
    const vals = picked.map(([, make]) => make(rng));
    const tool = pick(rng, TOOLS);
    let msg = `${pick(rng, LEADS)} ${vals[0]}`;
    for (let j = 1; j < k; j++) msg += pick(rng, JOINS) + vals[j];
    msg += pick(rng, ['.', '?', ' please.', '']);
    const args = picked.map(([key], j) => `"${key}":"${vals[j]}"`).join(',');
    out.push({
      taskId: `${tag}-${i}-${rng.int(1 << 30)}`,
      role: 'act',
      prompt: `<|system|>Tools:\n${[...new Set([tool, ...TOOLS.slice(0, 3)])].join(', ')}<|end|>\n<|user|>${msg}<|end|>\n<|assistant|>\n`,
      target: `\n<tool_call>\n{"name":"${tool}","arguments":{${args}}}\n</tool_call><|end|>`,
    });
  }
  return out;
}
