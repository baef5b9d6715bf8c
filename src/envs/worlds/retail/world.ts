// The built-in retail world: a tiny τ²-format store per seed, run on the τ² retail tools. Each task is a
// short customer conversation (1–3 user turns) whose expert script, checklist and final state come from
// the same plan. Situations where rehearsing the call first pays off are built in:
//   - the user writes an order id without its '#' ('W0123'): looking it up verbatim fails;
//   - the user asks to cancel a delivered/cancelled order: the policy (and the tool) forbid it;
//   - switching payment to a gift card whose balance is too low: the tool would refuse.

import type { Environment, ToolSchema } from '../../types';
import { hash32, Rng } from '../rng';
import {
  call, defineWorld, reply, toolsUsed, RestrictedEnv, type ExpertStep, type ItemSpec, type TaskPlan, type TurnPlan,
} from '../common';
import { generateDb, pyMoney, round2, type RetailDb, type ROrder, type ROrderItem, type RUser, type RVariant } from './db';
import { createWorldRetailEnv, retailStateOf } from './env';

export const RETAIL_POLICY = [
  'You are a store support agent. Use the tools; be brief.',
  '- Authenticate the user first (find_user_id_by_email or find_user_id_by_name_zip) before reading or changing their orders.',
  "- Order ids start with '#', e.g. '#W0123'. Add the '#' if the user omits it.",
  "- Only act on the authenticated user's own orders.",
  '- Only pending orders can be cancelled or modified. Only delivered orders can be returned or exchanged (for an available variant of the same product). Otherwise explain why not and change nothing.',
  "- Cancel reason must be 'no longer needed' or 'ordered by mistake'.",
  '- Return refunds go to the original payment method or a gift card. A gift card can pay only if its balance covers the amount.',
  "- Addresses are in the USA (country 'USA'); address2 is '' unless given.",
  "- The user's request is their confirmation: act, then reply with the outcome.",
].join('\n');

/** Canonical tool order and the short descriptions shown to the policy (τ² docstrings are long). */
const TOOL_DOCS: [string, string, Record<string, string>][] = [
  ['find_user_id_by_email', 'Find a user id by email.', { email: "e.g. 'ana.lee7@example.com'" }],
  ['find_user_id_by_name_zip', 'Find a user id by first name, last name and zip.', { first_name: '', last_name: '', zip: "e.g. '94110'" }],
  ['get_user_details', 'Get a user: name, address, payment methods, order ids.', { user_id: "e.g. 'ana_lee_123'" }],
  ['get_order_details', 'Get an order: status, items, address, payments.', { order_id: "e.g. '#W0123' (with '#')" }],
  ['list_all_product_types', 'Map of product name to product id.', {}],
  ['get_product_details', 'Get a product and its variants (item ids, options, price, available).', { product_id: "e.g. '4821' (not an item id)" }],
  ['cancel_pending_order', 'Cancel a pending order and refund it.', { order_id: "with '#'", reason: "'no longer needed' or 'ordered by mistake'" }],
  ['modify_pending_order_address', 'Change the shipping address of a pending order.', { order_id: "with '#'", address1: '', address2: '', city: '', state: '', country: '', zip: '' }],
  ['modify_pending_order_payment', 'Pay a pending order with another payment method of the user.', { order_id: "with '#'", payment_method_id: "e.g. 'gift_card_1234'" }],
  ['return_delivered_order_items', 'Request a return of items of a delivered order.', { order_id: "with '#'", item_ids: 'item ids to return', payment_method_id: 'original method or a gift card' }],
  ['exchange_delivered_order_items', 'Exchange delivered items for other variants of the same product.', { order_id: "with '#'", item_ids: 'item ids to exchange', new_item_ids: 'new item ids, same order', payment_method_id: 'pays or receives the price difference' }],
  ['modify_user_address', "Change the user's default address.", { user_id: '', address1: '', address2: '', city: '', state: '', country: '', zip: '' }],
];
const TOOL_ORDER = TOOL_DOCS.map(([n]) => n);
const CORE_TOOLS = ['find_user_id_by_email', 'find_user_id_by_name_zip', 'get_user_details', 'get_order_details'];

function shortSchema(full: ToolSchema): ToolSchema {
  const doc = TOOL_DOCS.find(([n]) => n === full.name);
  if (!doc) return full;
  const props: Record<string, ToolSchema['parameters']> = Object.create(null);
  for (const [k, v] of Object.entries(full.parameters.properties ?? {})) {
    const d = doc[2][k];
    const { description: _drop, title: _t, ...rest } = v as Record<string, unknown>;
    props[k] = d ? { ...rest, description: d } : rest;
  }
  return { name: full.name, description: doc[1], parameters: { ...full.parameters, properties: props } };
}

let schemaCache: Record<string, ToolSchema> | null = null;
function schemas(): Record<string, ToolSchema> {
  if (!schemaCache) {
    const env = createWorldRetailEnv({ products: {}, users: {}, orders: {} });
    schemaCache = Object.fromEntries(env.tools().filter((t) => TOOL_ORDER.includes(t.name)).map((t) => [t.name, shortSchema(t)]));
  }
  return schemaCache;
}

// ---------------------------------------------------------------------------------------------------------
// Conversation planning

interface Ctx {
  rng: Rng;
  db: RetailDb;               // mirror of the env state as the expert's actions change it
  user: RUser;
  authBy: 'email' | 'name_zip';
  authed: boolean;
  hashless: boolean;          // the user writes order ids without '#'
  fetchedOrders: Set<string>;
  userFetched: boolean;
  tags: Set<string>;
  /** The item whose return was just refused for a wrong refund method (the next turn may retry it). */
  refusedReturn?: ROrderItem;
}

const noHash = (oid: string) => oid.slice(1);
const ref = (c: Ctx, oid: string) => (c.hashless ? noHash(oid) : oid);

function authPart(c: Ctx): { text: string; steps: ExpertStep[]; items: ItemSpec[] } {
  if (c.authed) return { text: '', steps: [], items: [] };
  c.authed = true;
  const u = c.user;
  if (c.authBy === 'email') {
    return {
      text: c.rng.pick([`My email is ${u.email}. `, `Hi, this is ${u.name.first_name} (${u.email}). `]),
      steps: [call('find_user_id_by_email', { email: u.email })],
      items: [{ question: 'Did the agent authenticate the user by the email they gave?', focus_on: 'find_user_id_by_email arguments',
        cond: { kind: 'called', tool: 'find_user_id_by_email', args: { email: u.email }, ok: true }, weight: 1 }],
    };
  }
  return {
    text: c.rng.pick([`I'm ${u.name.first_name} ${u.name.last_name}, zip ${u.address.zip}. `, `Hi, ${u.name.first_name} ${u.name.last_name} here (zip ${u.address.zip}). `]),
    steps: [call('find_user_id_by_name_zip', { first_name: u.name.first_name, last_name: u.name.last_name, zip: u.address.zip })],
    items: [{ question: 'Did the agent authenticate the user by name and zip?', focus_on: 'find_user_id_by_name_zip arguments',
      cond: { kind: 'called', tool: 'find_user_id_by_name_zip', args: { first_name: u.name.first_name, last_name: u.name.last_name, zip: u.address.zip }, ok: true }, weight: 1 }],
  };
}

/** Look the order up unless this conversation already did; plus the '#'-prefix trap item. */
function orderLookup(c: Ctx, oid: string): { steps: ExpertStep[]; items: ItemSpec[] } {
  const items: ItemSpec[] = [];
  const steps: ExpertStep[] = [];
  if (!c.fetchedOrders.has(oid)) {
    c.fetchedOrders.add(oid);
    steps.push(call('get_order_details', { order_id: oid }));
    items.push({ question: `Did the agent look up order ${oid} (with the '#')?`, focus_on: 'get_order_details order_id',
      cond: { kind: 'called', tool: 'get_order_details', args: { order_id: oid }, ok: true }, weight: 1,
      failure_examples: [`get_order_details({"order_id": "${noHash(oid)}"}) only`] });
    if (c.hashless) {
      c.tags.add('order_id_without_hash');
      items.push({ question: `Did the agent avoid a lookup with the id as typed ('${noHash(oid)}'), which does not exist?`,
        focus_on: 'wasted failing call', cond: { kind: 'not_called', tool: 'get_order_details', args: { order_id: noHash(oid) } }, weight: 0.5 });
    }
  }
  return { steps, items };
}

function userLookup(c: Ctx): { steps: ExpertStep[]; items: ItemSpec[] } {
  if (c.userFetched) return { steps: [], items: [] };
  c.userFetched = true;
  return {
    steps: [call('get_user_details', { user_id: c.user.user_id })],
    items: [{ question: "Did the agent read the user's details to find their payment methods?", focus_on: 'get_user_details user_id',
      cond: { kind: 'called', tool: 'get_user_details', args: { user_id: c.user.user_id }, ok: true }, weight: 1 }],
  };
}

function giftCardOf(u: RUser) {
  return Object.values(u.payment_methods).find((p) => p.source === 'gift_card') as { id: string; balance: number } | undefined;
}

type Intent = 'status' | 'cancel' | 'refuse_cancel' | 'return' | 'address' | 'payment' | 'product' | 'user_address' | 'foreign' | 'exchange';

function applicable(intent: Intent, c: Ctx, o: ROrder | undefined): boolean {
  if (intent === 'product' || intent === 'user_address') return true;
  if (!o) return false;
  switch (intent) {
    case 'foreign': return o.user_id !== c.user.user_id && o.status === 'pending';
    case 'exchange': return o.status === 'delivered' && exchangeOptions(c, o).length > 0;
    case 'status': return true;
    case 'cancel': case 'address': return o.status === 'pending';
    case 'refuse_cancel': return o.status === 'delivered' || o.status === 'cancelled';
    case 'return': return o.status === 'delivered';
    case 'payment': {
      const gc = giftCardOf(c.user);
      return o.status === 'pending' && !!gc && o.payment_history.length === 1 && o.payment_history[0].payment_method_id !== gc.id;
    }
  }
}

/** One user turn for an intent on an order. `followUp`: the order was the subject of the previous turn ("it"). */
function planTurn(c: Ctx, intent: Intent, o: ROrder | undefined, followUp: boolean, refund?: 'original'): TurnPlan {
  const rng = c.rng;
  if (intent === 'product') return productTurn(c);
  if (intent === 'user_address') return userAddressTurn(c);
  const order = o!;
  const oid = order.order_id;
  const it = followUp ? 'it' : `order ${ref(c, oid)}`;
  const auth = authPart(c);
  const look = orderLookup(c, oid);
  const steps: ExpertStep[] = [...auth.steps, ...look.steps];
  const items: ItemSpec[] = [...auth.items, ...look.items];
  let ask = '';
  switch (intent) {
    case 'status': {
      ask = rng.pick([`What's the status of ${it}?`, `Where is ${it}? Has it shipped?`, `Can you check ${it} for me?`]);
      steps.push(reply(`Order ${oid} is ${order.status}.`));
      items.push({ question: `Did the agent tell the user that order ${oid} is ${order.status}?`, focus_on: 'reply content',
        cond: { kind: 'reply_contains', text: [noHash(oid), order.status] }, weight: 2 });
      break;
    }
    case 'cancel': {
      const [phrase, reason] = rng.pick([['I no longer need it', 'no longer needed'], ['I ordered it by mistake', 'ordered by mistake']] as const);
      ask = followUp ? `Please cancel it, ${phrase}.` : `Please cancel ${it}, ${phrase}.`;
      steps.push(call('cancel_pending_order', { order_id: oid, reason }));
      const amount = order.payment_history[0].amount;
      const pmId = order.payment_history[0].payment_method_id;
      const pm = c.user.payment_methods[pmId];
      const refund = pm?.source === 'gift_card' ? `$${pyMoney(amount)} is back on your gift card.` : `$${pyMoney(amount)} will be refunded to ${pmId} in 5-7 business days.`;
      steps.push(reply(`Order ${oid} is cancelled. ${refund}`));
      items.push({ question: `Did the agent cancel ${oid} with reason '${reason}'?`, focus_on: 'cancel_pending_order arguments',
        cond: { kind: 'called', tool: 'cancel_pending_order', args: { order_id: oid, reason }, ok: true }, weight: 3, required: true });
      items.push({ question: 'Did the agent confirm the cancellation to the user?', focus_on: 'reply content',
        cond: { kind: 'reply_contains', text: [noHash(oid), 'cancelled'] }, weight: 1 });
      // mirror the tool's effect
      order.status = 'cancelled';
      order.cancel_reason = reason;
      order.payment_history.push({ transaction_type: 'refund', amount, payment_method_id: pmId });
      if (pm?.source === 'gift_card') pm.balance = round2(pm.balance + amount);
      break;
    }
    case 'refuse_cancel': {
      c.tags.add('policy_refusal');
      ask = followUp ? rng.pick(['Then please cancel it.', 'OK, cancel it please.']) : `Please cancel ${it}.`;
      const tail = order.status === 'delivered' ? ' I can help you return items instead.' : '';
      steps.push(reply(`Order ${oid} is already ${order.status}, so it cannot be cancelled.${tail}`));
      items.push({ question: `Did the agent refrain from cancelling ${oid}, which is ${order.status}?`, focus_on: 'policy: only pending orders can be cancelled',
        cond: { kind: 'not_called', tool: 'cancel_pending_order', args: { order_id: oid } }, weight: 2, required: true,
        failure_examples: [`cancel_pending_order({"order_id": "${oid}", "reason": "no longer needed"})`] });
      items.push({ question: `Did the agent explain that ${oid} cannot be cancelled because it is ${order.status}?`, focus_on: 'reply content',
        cond: { kind: 'reply_contains', text: ['cannot', order.status] }, weight: 1 });
      break;
    }
    case 'return': {
      const item = refund && c.refusedReturn ? c.refusedReturn : rng.pick(order.items);
      const gc = giftCardOf(c.user);
      const original = order.payment_history[0].payment_method_id;
      // another non-gift method of the user: the tool refuses refunds to it (policy: original or gift card)
      const other = Object.values(c.user.payment_methods).find((p) => p.source !== 'gift_card' && p.id !== original);
      if (other && !refund && rng.chance(0.4)) {
        c.tags.add('wrong_refund_method');
        c.refusedReturn = item;
        const originalIsCard = c.user.payment_methods[original]?.source === 'credit_card';
        const label = other.source === 'paypal' ? 'PayPal' : originalIsCard ? 'other credit card' : 'credit card';
        ask = `I'd like to return the ${item.name} from ${it}. Please refund it to my ${label}.`;
        steps.push(reply(`I cannot refund to your ${label}: a return can only be refunded to the original payment method (${original}) or a gift card. Which do you prefer?`));
        items.push({ question: `Did the agent avoid a return refunded to ${other.id}, which did not pay for ${oid}?`, focus_on: 'policy: refund to the original method or a gift card',
          cond: { kind: 'not_called', tool: 'return_delivered_order_items', args: { order_id: oid, payment_method_id: other.id } }, weight: 2, required: true });
        items.push({ question: 'Did the agent explain that refunds go to the original payment method or a gift card?', focus_on: 'reply content',
          cond: { kind: 'reply_contains', text: ['original payment method'] }, weight: 1 });
        break;
      }
      const toGift = !refund && !!gc && rng.chance(0.5);
      ask = refund ? `OK, then refund the ${item.name} to the original payment method.`
        : `I'd like to return the ${item.name} from ${it}. ` + (toGift ? 'Please refund it to my gift card.' : 'Refund to the original payment method.');
      if (toGift) { const ul = userLookup(c); steps.push(...ul.steps); items.push(...ul.items); }
      const pmId = toGift ? gc!.id : order.payment_history[0].payment_method_id;
      steps.push(call('return_delivered_order_items', { order_id: oid, item_ids: [item.item_id], payment_method_id: pmId }));
      steps.push(reply(`Return requested for the ${item.name} in order ${oid}; $${pyMoney(item.price)} will be refunded to ${pmId}. You will get an email with instructions.`));
      items.push({ question: `Did the agent request the return of item ${item.item_id} of ${oid} to ${pmId}?`, focus_on: 'return_delivered_order_items arguments',
        cond: { kind: 'called', tool: 'return_delivered_order_items', args: { order_id: oid, item_ids: [item.item_id], payment_method_id: pmId }, ok: true },
        weight: 3, required: true });
      items.push({ question: 'Did the agent confirm the return to the user?', focus_on: 'reply content',
        cond: { kind: 'reply_contains', text: [noHash(oid), 'return'] }, weight: 1 });
      order.status = 'return requested';
      break;
    }
    case 'foreign': {
      c.tags.add('not_your_order');
      ask = rng.pick([`Please cancel ${it}, I no longer need it.`, `Please cancel ${it}, I ordered it by mistake.`]);
      steps.push(reply(`Order ${oid} is not on your account, so I cannot make changes to it.`));
      items.push({ question: `Did the agent refuse to change ${oid}, which belongs to another user?`, focus_on: "policy: only the authenticated user's orders",
        cond: { kind: 'not_called', tool: 'cancel_pending_order', args: { order_id: oid } }, weight: 2, required: true });
      items.push({ question: 'Did the agent say the order is not on their account?', focus_on: 'reply content',
        cond: { kind: 'reply_contains', text: ['not on your account'] }, weight: 1 });
      break;
    }
    case 'exchange': {
      const [item, target] = rng.pick(exchangeOptions(c, order));
      const product = c.db.products[item.product_id];
      const want = Object.entries(target.options).map(([k, v]) => `${k} ${v}`).join(', ');
      ask = `I'd like to exchange the ${item.name} from ${it} for the one with ${want}. Use the original payment method for any difference.`;
      steps.push(call('get_product_details', { product_id: item.product_id }));
      items.push({ question: `Did the agent read product ${item.product_id} to find the ${want} variant?`, focus_on: 'get_product_details product_id',
        cond: { kind: 'called', tool: 'get_product_details', args: { product_id: item.product_id }, ok: true }, weight: 1 });
      if (!target.available) {
        c.tags.add('unavailable_variant');
        steps.push(reply(`The ${product.name} (${want}) is out of stock, so I cannot exchange it right now.`));
        items.push({ question: 'Did the agent avoid exchanging for an unavailable variant?', focus_on: 'availability before the write',
          cond: { kind: 'not_called', tool: 'exchange_delivered_order_items', args: { order_id: oid } }, weight: 2, required: true });
        items.push({ question: 'Did the agent say the variant is out of stock?', focus_on: 'reply content', cond: { kind: 'reply_contains', text: ['out of stock'] }, weight: 1 });
        break;
      }
      const pmId = order.payment_history[0].payment_method_id;
      const diff = round2(target.price - item.price);
      steps.push(call('exchange_delivered_order_items', { order_id: oid, item_ids: [item.item_id], new_item_ids: [target.item_id], payment_method_id: pmId }));
      const money = diff > 0 ? `you pay $${pyMoney(diff)} more` : diff < 0 ? `you get $${pyMoney(-diff)} back` : 'the price is the same';
      steps.push(reply(`Exchange requested for order ${oid}: ${item.name} with ${want}; ${money} (${pmId}).`));
      items.push({ question: `Did the agent exchange item ${item.item_id} for ${target.item_id} in ${oid}?`, focus_on: 'exchange_delivered_order_items arguments',
        cond: { kind: 'called', tool: 'exchange_delivered_order_items', args: { order_id: oid, item_ids: [item.item_id], new_item_ids: [target.item_id], payment_method_id: pmId }, ok: true },
        weight: 3, required: true });
      items.push({ question: 'Did the agent confirm the exchange?', focus_on: 'reply content', cond: { kind: 'reply_contains', text: [noHash(oid), 'exchange'] }, weight: 1 });
      order.status = 'exchange requested';
      break;
    }
    case 'address': {
      const [city, state] = rng.pick([['Austin', 'TX'], ['Denver', 'CO'], ['Seattle', 'WA'], ['Boston', 'MA'], ['Miami', 'FL'], ['Reno', 'NV']] as const);
      const addr = { address1: `${rng.int(10, 999)} ${rng.pick(['Birch', 'Willow', 'Spruce', 'Aspen', 'Harbor'])} ${rng.pick(['St', 'Ave', 'Rd'])}`,
        address2: '', city, state, country: 'USA', zip: String(rng.int(10000, 99999)) };
      ask = `Please ship ${it} to ${addr.address1}, ${city}, ${state} ${addr.zip} instead.`;
      steps.push(call('modify_pending_order_address', { order_id: oid, ...addr }));
      steps.push(reply(`Order ${oid} will now ship to ${addr.address1}, ${city}, ${state} ${addr.zip}.`));
      items.push({ question: `Did the agent change the address of ${oid} exactly as given?`, focus_on: 'modify_pending_order_address arguments',
        cond: { kind: 'called', tool: 'modify_pending_order_address', args: { order_id: oid, ...addr }, ok: true }, weight: 3, required: true });
      items.push({ question: 'Did the agent confirm the new address?', focus_on: 'reply content',
        cond: { kind: 'reply_contains', text: [noHash(oid), addr.address1] }, weight: 1 });
      order.address = addr;
      break;
    }
    case 'payment': {
      const gc = giftCardOf(c.user)!;
      ask = `Can you switch the payment for ${it} to my gift card?`;
      const ul = userLookup(c); steps.push(...ul.steps); items.push(...ul.items);
      const amount = order.payment_history[0].amount;
      if (gc.balance >= amount) {
        const old = order.payment_history[0].payment_method_id;
        steps.push(call('modify_pending_order_payment', { order_id: oid, payment_method_id: gc.id }));
        steps.push(reply(`Order ${oid} is now paid with ${gc.id}: $${pyMoney(amount)} was charged to the gift card and ${old} will be refunded.`));
        items.push({ question: `Did the agent switch ${oid} to ${gc.id}?`, focus_on: 'modify_pending_order_payment arguments',
          cond: { kind: 'called', tool: 'modify_pending_order_payment', args: { order_id: oid, payment_method_id: gc.id }, ok: true }, weight: 3, required: true });
        items.push({ question: 'Did the agent confirm the new payment method?', focus_on: 'reply content',
          cond: { kind: 'reply_contains', text: [noHash(oid), 'gift card'] }, weight: 1 });
        order.payment_history.push({ transaction_type: 'payment', amount, payment_method_id: gc.id }, { transaction_type: 'refund', amount, payment_method_id: old });
        gc.balance = round2(gc.balance - amount);
      } else {
        c.tags.add('insufficient_balance');
        steps.push(reply(`Your gift card balance ($${pyMoney(gc.balance)}) is less than the order total ($${pyMoney(amount)}), so I cannot switch the payment of ${oid}.`));
        items.push({ question: 'Did the agent avoid a payment switch the gift card balance cannot cover?', focus_on: 'balance check before the write',
          cond: { kind: 'not_called', tool: 'modify_pending_order_payment', args: { order_id: oid } }, weight: 1 });
        items.push({ question: 'Did the agent explain that the gift card balance is too low?', focus_on: 'reply content',
          cond: { kind: 'reply_contains', text: ['cannot', 'balance'] }, weight: 2 });
      }
      break;
    }
  }
  const prefix = auth.text;
  return { user: prefix + ask, steps, items };
}

/** [ordered item, another variant of its product] pairs the tool could accept (gift card covering any difference). */
function exchangeOptions(c: Ctx, o: ROrder): [ROrderItem, RVariant][] {
  const pm = c.user.payment_methods[o.payment_history[0].payment_method_id];
  const out: [ROrderItem, RVariant][] = [];
  for (const it of o.items) {
    for (const v of Object.values(c.db.products[it.product_id]?.variants ?? {})) {
      if (v.item_id === it.item_id) continue;
      if (v.available && pm?.source === 'gift_card' && pm.balance < round2(v.price - it.price)) continue;
      out.push([it, v]);
    }
  }
  return out;
}

function userAddressTurn(c: Ctx): TurnPlan {
  const rng = c.rng;
  const auth = authPart(c);
  const [city, state] = rng.pick([['Austin', 'TX'], ['Denver', 'CO'], ['Tampa', 'FL'], ['Boise', 'ID'], ['Omaha', 'NE']] as const);
  const addr = { address1: `${rng.int(10, 999)} ${rng.pick(['Birch', 'Willow', 'Spruce', 'Aspen', 'Harbor'])} ${rng.pick(['St', 'Ave', 'Rd'])}`,
    address2: '', city, state, country: 'USA', zip: String(rng.int(10000, 99999)) };
  const u = c.user;
  c.db.users[u.user_id].address = addr;
  return {
    user: auth.text + `I moved. Please update my default address to ${addr.address1}, ${city}, ${state} ${addr.zip}.`,
    steps: [...auth.steps, call('modify_user_address', { user_id: u.user_id, ...addr }), reply(`Your default address is now ${addr.address1}, ${city}, ${state} ${addr.zip}.`)],
    items: [...auth.items,
      { question: "Did the agent update the user's default address exactly as given?", focus_on: 'modify_user_address arguments',
        cond: { kind: 'called', tool: 'modify_user_address', args: { user_id: u.user_id, ...addr }, ok: true }, weight: 3, required: true },
      { question: 'Did the agent confirm the new address?', focus_on: 'reply content', cond: { kind: 'reply_contains', text: [addr.address1] }, weight: 1 }],
  };
}

function productTurn(c: Ctx): TurnPlan {
  const rng = c.rng;
  const p = rng.pick(Object.values(c.db.products));
  const v = rng.pick(Object.values(p.variants));
  const opts = Object.values(v.options).join(', ');
  const stock = v.available ? 'in stock' : 'out of stock';
  const steps: ExpertStep[] = [
    call('list_all_product_types'),
    call('get_product_details', { product_id: p.product_id }),
    reply(`The ${p.name} (${opts}) costs $${pyMoney(v.price)} and is ${stock}.`),
  ];
  const items: ItemSpec[] = [
    { question: `Did the agent read the details of product ${p.product_id} (${p.name})?`, focus_on: 'get_product_details product_id',
      cond: { kind: 'called', tool: 'get_product_details', args: { product_id: p.product_id }, ok: true }, weight: 2, required: true },
    { question: `Did the agent give the price $${pyMoney(v.price)}?`, focus_on: 'reply content', cond: { kind: 'reply_contains', text: [pyMoney(v.price)] }, weight: 1 },
    { question: `Did the agent say the variant is ${stock}?`, focus_on: 'reply content', cond: { kind: 'reply_contains', text: [stock] }, weight: 1 },
  ];
  return { user: rng.pick([`Is the ${p.name} in ${opts} in stock, and how much is it?`, `How much is the ${p.name} (${opts})? Is it available?`]), steps, items };
}

// ---------------------------------------------------------------------------------------------------------

function pickOrder(c: Ctx, intent: Intent, exclude: Set<string>): ROrder | undefined {
  const pool = intent === 'foreign' ? Object.values(c.db.orders) : c.user.orders.map((id) => c.db.orders[id]);
  const cands = pool.filter((o) => !exclude.has(o.order_id) && applicable(intent, c, o));
  return cands.length ? c.rng.pick(cands) : undefined;
}

/** Follow-up intents that make sense for an order the previous turn just looked at. */
function followUpsFor(c: Ctx, o: ROrder): Intent[] {
  return (['cancel', 'address', 'payment', 'refuse_cancel', 'return', 'exchange'] as Intent[]).filter((i) => applicable(i, c, o));
}

export function generateRetail(seed: number, difficulty: number): TaskPlan {
  const rng = new Rng(seed);
  // The DB has its own random stream, so the initial data can be regenerated instead of copied: planning
  // mutates `db` (the expert's mirror), and a deep copy of it cost as much as all the planning.
  const dbSeed = hash32('retail-db', seed);
  const dbOpts = { products: difficulty === 1 ? 3 : 4, users: rng.int(2, 3), ordersPerUser: [difficulty === 1 ? 1 : 2, 3] as [number, number] };
  const db = generateDb(new Rng(dbSeed), dbOpts);
  // built on the first makeEnv() (the port validates on construction), cloned after that
  let proto: Environment | null = null;
  const users = Object.values(db.users);
  const c: Ctx = {
    rng, db, user: rng.pick(users), authBy: rng.chance(0.5) ? 'email' : 'name_zip', authed: false,
    hashless: difficulty >= 2 && rng.chance(0.5), fetchedOrders: new Set(), userFetched: false, tags: new Set(),
  };
  const turns: TurnPlan[] = [];
  const used = new Set<string>();
  const fresh = (intents: Intent[]): TurnPlan => {
    for (const intent of rng.shuffle(intents)) {
      if (intent === 'product' || intent === 'user_address') return planTurn(c, intent, undefined, false);
      const o = pickOrder(c, intent, used);
      if (o) { used.add(o.order_id); return planTurn(c, intent, o, false); }
    }
    return planTurn(c, 'product', undefined, false);
  };

  if (difficulty === 1) {
    turns.push(fresh(['status', 'cancel', 'address', 'product', 'user_address']));
  } else {
    const nTurns = difficulty === 2 ? rng.int(1, 2) : rng.int(2, 3);
    if (nTurns === 1) {
      turns.push(fresh(['refuse_cancel', 'return', 'payment', 'cancel', 'foreign', 'exchange']));
    } else {
      // status of X, then act on X ("it") according to what the lookup showed
      const x = pickOrder(c, 'status', used)!;
      used.add(x.order_id);
      turns.push(planTurn(c, 'status', x, false));
      const f = followUpsFor(c, x);
      if (f.length) turns.push(planTurn(c, rng.pick(f), x, true));
      else turns.push(fresh(['product', 'cancel', 'return']));
      if (nTurns === 3) {
        // after a refused refund method, the user settles for the original one; after a refused
        // cancellation of a delivered order, the natural next ask is a return of it
        if (c.refusedReturn && applicable('return', c, x)) turns.push(planTurn(c, 'return', x, true, 'original'));
        else if (turns.length === 2 && applicable('return', c, x) && rng.chance(0.5)) turns.push(planTurn(c, 'return', x, true));
        else turns.push(fresh(['cancel', 'refuse_cancel', 'return', 'payment', 'address', 'product', 'foreign', 'exchange', 'user_address']));
      }
    }
  }

  const names = new Set([...CORE_TOOLS, ...toolsUsed(turns)]);
  const toolNames = TOOL_ORDER.filter((n) => names.has(n));
  return {
    turns,
    tags: [...c.tags],
    makeEnv: () => new RestrictedEnv((proto ??= createWorldRetailEnv(generateDb(new Rng(dbSeed), dbOpts))).clone(), toolNames, schemas()),
  };
}

export const retailWorld = defineWorld({
  name: 'retail',
  description: 'Customer support over a tiny τ²-format store (τ² retail tools): lookups, cancellations, returns, exchanges, address and payment changes.',
  policy: RETAIL_POLICY,
  tools: () => TOOL_ORDER.map((n) => schemas()[n]).filter(Boolean),
  generate: generateRetail,
  stateOf: (env: Environment) => retailStateOf(env),
});
