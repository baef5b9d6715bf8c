// τ² v0.2.0 retail tools. Checks run in upstream order with upstream messages, including its quirks
// (see the fixture README): the last-variant price/options bug in modify_pending_order_items, the
// unrounded refund amount there, sorted item ids, and the two different "pending" checks.

import { PyFloat, pyJsonDumps, pyStr } from '../../python';
import { calculate } from '../calc';
import {
  PyException, checkStr, dictGet, isPyDict, pyEquals, inStrSet, pyCount, pyIter, pyRound, pySortedStrings, pyTypeName, typeError, validationError,
  valueError, type FieldError,
} from '../py';
import { ModelDump, strListParam, strParam, type FunctionSpec, type ToolParam, type ToolSpec } from '../toolkit';
import {
  dumpOrder, dumpProduct, dumpUser, type Order, type PaymentMethod, type Product, type RetailStore, type User,
  type UserAddress, type Variant,
} from './data_model';

type S = RetailStore;

function getOrder(db: S, orderId: unknown): Order {
  if (!dictGet(db.orders, orderId)) throw valueError('Order not found');
  return db.orders.get(orderId as string)!;
}

function getUser(db: S, userId: unknown): User {
  if (!dictGet(db.users, userId)) throw valueError('User not found');
  return db.users.get(userId as string)!;
}

function getProduct(db: S, productId: unknown): Product {
  if (!dictGet(db.products, productId)) throw valueError('Product not found');
  return db.products.get(productId as string)!;
}

function getVariant(db: S, productId: unknown, variantId: unknown): Variant {
  const product = getProduct(db, productId);
  const v = dictGet(product.variants, variantId);
  if (!v) throw valueError('Variant not found');
  return v;
}

/** _get_payment_method, on a user record the caller may then mutate. */
function getPaymentMethod(user: User, paymentMethodId: unknown): PaymentMethod {
  const pm = dictGet(user.payment_methods, paymentMethodId);
  if (!pm) throw valueError('Payment method not found');
  return pm;
}

/** Looks the user up read-only first (so errors match), then takes a writable copy. */
function writableUser(db: S, userId: unknown): User {
  getUser(db, userId);
  return db.userForWrite(userId as string);
}

function newAddress(a: Record<string, unknown>): UserAddress {
  const errors: FieldError[] = [];
  for (const k of ['address1', 'address2', 'city', 'country', 'state', 'zip']) checkStr(errors, k, a[k]);
  if (errors.length) throw validationError('UserAddress', errors);
  return {
    address1: a.address1 as string, address2: a.address2 as string, city: a.city as string,
    country: a.country as string, state: a.state as string, zip: a.zip as string,
  };
}

/** `list.count(x) > order_item_ids.count(x)` over the requested ids, raising `message(x)` on the first excess. */
function checkItemCounts(itemIds: unknown, order: Order, message: (id: unknown) => string): unknown[] {
  const ids = pyIter(itemIds);
  if (isPyDict(itemIds) && ids.length) throw new PyException('AttributeError', "'dict' object has no attribute 'count'");
  const have = order.items.map((i) => i.item_id);
  for (const id of ids) if (pyCount(ids, id) > pyCount(have, id)) throw valueError(message(id));
  return ids;
}

function pyLen(v: unknown): number {
  if (Array.isArray(v) || typeof v === 'string') return [...(v as string)].length;
  if (v instanceof Map) return v.size;
  if (v !== null && typeof v === 'object' && !(v instanceof PyFloat)) return Object.keys(v).length;
  throw typeError(`object of type '${pyTypeName(v)}' has no len()`);
}

const firstItem = (order: Order, itemId: unknown) => order.items.find((i) => i.item_id === itemId);

const isGiftCard = (pm: PaymentMethod): pm is Extract<PaymentMethod, { source: 'gift_card' }> => pm.source === 'gift_card';

const ORDER_ID = 'The order id, such as \'#W0000000\'; it starts with a \'#\'.';
const ITEM_IDS = 'Item ids from the order, such as \'1008292230\'; an id may repeat.';
const NEW_ITEM_IDS = 'Replacement item ids, position by position, each a variant of the same product; an id may repeat.';
const PAYMENT_ID = 'A payment method id of the user, such as \'gift_card_0000000\' or \'credit_card_0000000\'.';
const addressParams = (): ToolParam[] => [
  strParam('address1', 'First address line, such as \'123 Main St\'.'),
  strParam('address2', 'Second address line, such as \'Apt 1\', or an empty string.'),
  strParam('city', 'City, such as \'San Francisco\'.'),
  strParam('state', 'State, such as \'CA\'.'),
  strParam('country', 'Country, such as \'USA\'.'),
  strParam('zip', 'Zip code, such as \'12345\'.'),
];

export const RETAIL_TOOLS: ToolSpec<S>[] = [
  {
    name: 'calculate',
    kind: 'generic',
    description: 'Evaluate an arithmetic expression made of numbers, + - * /, parentheses and spaces; the result is rounded to 2 decimals.',
    params: [strParam('expression', 'The expression, such as \'2 + 2\'.')],
    run: (_db, a) => calculate(a.expression),
  },
  {
    name: 'cancel_pending_order',
    kind: 'write',
    description: 'Cancel an order whose status is pending. Gift card payments are refunded immediately; other methods take 5-7 business days. Confirm the details with the user (yes) before calling. Returns the updated order.',
    params: [strParam('order_id', ORDER_ID), strParam('reason', 'Either \'no longer needed\' or \'ordered by mistake\'.')],
    run: (db, a) => {
      const order0 = getOrder(db, a.order_id);
      if (order0.status !== 'pending') throw valueError('Non-pending order cannot be cancelled');
      if (!inStrSet(new Set(['no longer needed', 'ordered by mistake']), a.reason)) throw valueError('Invalid reason');
      const order = db.orderForWrite(a.order_id as string);
      const refunds = [];
      for (const payment of order.payment_history) {
        refunds.push({ transaction_type: 'refund', amount: payment.amount, payment_method_id: payment.payment_method_id });
        const user = writableUser(db, order.user_id);
        const pm = getPaymentMethod(user, payment.payment_method_id);
        if (isGiftCard(pm)) pm.balance = pyRound(pm.balance + payment.amount, 2);
      }
      order.status = 'cancelled';
      order.cancel_reason = a.reason as string;
      order.payment_history.push(...refunds);
      return new ModelDump(dumpOrder(order));
    },
  },
  {
    name: 'exchange_delivered_order_items',
    kind: 'write',
    description: 'Request an exchange of delivered items for other variants of the same products. Only one return or exchange per delivered order. Confirm the details with the user (yes) before calling. Returns the updated order.',
    params: [
      strParam('order_id', ORDER_ID), strListParam('item_ids', ITEM_IDS), strListParam('new_item_ids', NEW_ITEM_IDS),
      strParam('payment_method_id', `${PAYMENT_ID} It pays or receives the price difference.`),
    ],
    run: (db, a) => {
      const order0 = getOrder(db, a.order_id);
      if (order0.status !== 'delivered') throw valueError('Non-delivered order cannot be exchanged');
      const ids = checkItemCounts(a.item_ids, order0, (id) => `Number of ${pyStr(id)} not found.`);
      if (pyLen(a.item_ids) !== pyLen(a.new_item_ids)) throw valueError('The number of items to be exchanged should match.');
      const newIds = pyIter(a.new_item_ids);
      let diff = 0;
      for (let i = 0; i < Math.min(ids.length, newIds.length); i++) {
        const item = firstItem(order0, ids[i]);
        if (!item) throw valueError(`Item ${pyStr(ids[i])} not found`);
        const variant = getVariant(db, item.product_id, newIds[i]);
        if (!variant.available) throw valueError(`New item ${pyStr(newIds[i])} not found or available`);
        diff += variant.price - item.price;
      }
      const pythonIntZero = ids.length === 0;
      diff = pyRound(diff, 2);
      const pm = getPaymentMethod(getUser(db, order0.user_id), a.payment_method_id);
      if (isGiftCard(pm) && pm.balance < diff) throw valueError('Insufficient gift card balance to pay for the price difference');
      const order = db.orderForWrite(a.order_id as string);
      order.status = 'exchange requested';
      order.exchange_items = pySortedStrings(ids);
      order.exchange_new_items = pySortedStrings(newIds);
      order.exchange_payment_method_id = a.payment_method_id as string;
      // With no items the sum never leaves Python's int 0, which dumps as `0`, not `0.0`.
      order.exchange_price_difference = pythonIntZero ? 0 : new PyFloat(diff);
      return new ModelDump(dumpOrder(order));
    },
  },
  {
    name: 'find_user_id_by_name_zip',
    kind: 'read',
    description: 'Look up a user id from first name, last name and zip code. Use it only when the user cannot be found by email.',
    params: [
      strParam('first_name', 'First name, such as \'John\'.'), strParam('last_name', 'Last name, such as \'Doe\'.'),
      strParam('zip', 'Zip code, such as \'12345\'.'),
    ],
    run: (db, a) => {
      for (const [userId, user] of db.users) {
        if (user.name.first_name.toLowerCase() === lower(a.first_name)
          && user.name.last_name.toLowerCase() === lower(a.last_name)
          && user.address.zip === a.zip) return userId;
      }
      throw valueError('User not found');
    },
  },
  {
    name: 'find_user_id_by_email',
    kind: 'read',
    description: 'Look up a user id from an email address.',
    params: [strParam('email', 'Email address, such as \'something@example.com\'.')],
    run: (db, a) => {
      for (const [userId, user] of db.users) if (user.email.toLowerCase() === lower(a.email)) return userId;
      throw valueError('User not found');
    },
  },
  {
    name: 'get_order_details',
    kind: 'read',
    description: 'Get the status and details of an order.',
    params: [strParam('order_id', ORDER_ID)],
    run: (db, a) => new ModelDump(dumpOrder(getOrder(db, a.order_id))),
  },
  {
    name: 'get_product_details',
    kind: 'read',
    description: 'Get a product\'s variants with their options, availability and price. A product id is not an item id.',
    params: [strParam('product_id', 'The product id, such as \'6086499569\'.')],
    run: (db, a) => new ModelDump(dumpProduct(getProduct(db, a.product_id))),
  },
  {
    name: 'get_user_details',
    kind: 'read',
    description: 'Get a user\'s profile, payment methods and order ids.',
    params: [strParam('user_id', 'The user id, such as \'sara_doe_496\'.')],
    run: (db, a) => new ModelDump(dumpUser(getUser(db, a.user_id))),
  },
  {
    name: 'list_all_product_types',
    kind: 'read',
    description: 'List every product type as a JSON object from product name to product id, sorted by name.',
    params: [],
    run: (db) => {
      const m = new Map<string, string>();
      for (const p of db.products.values()) m.set(p.name, p.product_id);
      return pyJsonDumps(m, { sortKeys: true });
    },
  },
  {
    name: 'modify_pending_order_address',
    kind: 'write',
    description: 'Change the shipping address of a pending order. Confirm the details with the user (yes) before calling. Returns the updated order.',
    params: [strParam('order_id', ORDER_ID), ...addressParams()],
    run: (db, a) => {
      const order0 = getOrder(db, a.order_id);
      if (!order0.status.includes('pending')) throw valueError('Non-pending order cannot be modified');
      const addr = newAddress(a);
      const order = db.orderForWrite(a.order_id as string);
      order.address = addr;
      return new ModelDump(dumpOrder(order));
    },
  },
  {
    name: 'modify_pending_order_items',
    kind: 'write',
    description: 'Swap items of a pending order for other variants of the same products. Possible only once per order. Confirm the details with the user (yes) before calling. Returns the updated order.',
    params: [
      strParam('order_id', ORDER_ID), strListParam('item_ids', ITEM_IDS), strListParam('new_item_ids', NEW_ITEM_IDS),
      strParam('payment_method_id', `${PAYMENT_ID} It pays or receives the price difference.`),
    ],
    run: (db, a) => {
      const order0 = getOrder(db, a.order_id);
      if (order0.status !== 'pending') throw valueError('Non-pending order cannot be modified');
      const ids = checkItemCounts(a.item_ids, order0, (id) => `${pyStr(id)} not found`);
      if (pyLen(a.item_ids) !== pyLen(a.new_item_ids)) throw valueError('The number of items to be exchanged should match');
      const newIds = pyIter(a.new_item_ids);
      const n = Math.min(ids.length, newIds.length);
      let diff = 0;
      let variant: Variant | undefined;
      for (let i = 0; i < n; i++) {
        if (pyEquals(ids[i], newIds[i])) throw valueError('The new item id should be different from the old item id');
        const item = firstItem(order0, ids[i]);
        if (!item) throw valueError(`Item ${pyStr(ids[i])} not found`);
        variant = getVariant(db, item.product_id, newIds[i]);
        if (!variant.available) throw valueError(`New item ${pyStr(newIds[i])} not found or available`);
        diff += variant.price - item.price;
      }
      const pm0 = getPaymentMethod(getUser(db, order0.user_id), a.payment_method_id);
      if (isGiftCard(pm0) && pm0.balance < diff) throw valueError('Insufficient gift card balance to pay for the new item');
      const order = db.orderForWrite(a.order_id as string);
      order.payment_history.push({
        transaction_type: diff > 0 ? 'payment' : 'refund', amount: Math.abs(diff), payment_method_id: a.payment_method_id as string,
      });
      if (isGiftCard(pm0)) {
        const pm = getPaymentMethod(db.userForWrite(order.user_id), a.payment_method_id) as typeof pm0;
        pm.balance = pyRound(pm.balance - diff, 2);
      }
      for (let i = 0; i < n; i++) {
        const item = firstItem(order, ids[i])!;
        item.item_id = newIds[i] as string;
        // Upstream reuses the loop's last variant for every item.
        item.price = variant!.price;
        item.options = variant!.options;
      }
      order.status = 'pending (item modified)';
      return new ModelDump(dumpOrder(order));
    },
  },
  {
    name: 'modify_pending_order_payment',
    kind: 'write',
    description: 'Move a pending order\'s payment to another payment method of the user. Confirm the details with the user (yes) before calling. Returns the updated order.',
    params: [strParam('order_id', ORDER_ID), strParam('payment_method_id', PAYMENT_ID)],
    run: (db, a) => {
      const order0 = getOrder(db, a.order_id);
      if (!order0.status.includes('pending')) throw valueError('Non-pending order cannot be modified');
      const pm0 = getPaymentMethod(getUser(db, order0.user_id), a.payment_method_id);
      const hist = order0.payment_history;
      if (hist.length !== 1 || hist[0].transaction_type !== 'payment') throw valueError('There should be exactly one payment for a pending order');
      if (hist[0].payment_method_id === a.payment_method_id) throw valueError('The new payment method should be different from the current one');
      const amount = hist[0].amount;
      if (isGiftCard(pm0) && pm0.balance < amount) throw valueError('Insufficient gift card balance to pay for the order');
      const order = db.orderForWrite(a.order_id as string);
      const oldId = order.payment_history[0].payment_method_id;
      order.payment_history.push(
        { transaction_type: 'payment', amount, payment_method_id: a.payment_method_id as string },
        { transaction_type: 'refund', amount, payment_method_id: oldId },
      );
      const user = db.userForWrite(order.user_id);
      const pm = getPaymentMethod(user, a.payment_method_id);
      if (isGiftCard(pm)) pm.balance = pyRound(pm.balance - amount, 2);
      const old = getPaymentMethod(user, oldId);
      if (isGiftCard(old)) old.balance = pyRound(old.balance + amount, 2);
      return new ModelDump(dumpOrder(order));
    },
  },
  {
    name: 'modify_user_address',
    kind: 'write',
    description: 'Change a user\'s default address. Confirm the details with the user (yes) before calling. Returns the updated user.',
    params: [strParam('user_id', 'The user id, such as \'sara_doe_496\'.'), ...addressParams()],
    run: (db, a) => {
      getUser(db, a.user_id);
      const addr = newAddress(a);
      const user = db.userForWrite(a.user_id as string);
      user.address = addr;
      return new ModelDump(dumpUser(user));
    },
  },
  {
    name: 'return_delivered_order_items',
    kind: 'write',
    description: 'Request a return of delivered items; the refund goes to the original payment method or a gift card. Only one return or exchange per delivered order. Confirm the details with the user (yes) before calling. Returns the updated order.',
    params: [strParam('order_id', ORDER_ID), strListParam('item_ids', ITEM_IDS), strParam('payment_method_id', `${PAYMENT_ID} It receives the refund.`)],
    run: (db, a) => {
      const order0 = getOrder(db, a.order_id);
      if (order0.status !== 'delivered') throw valueError('Non-delivered order cannot be returned');
      const pm = getPaymentMethod(getUser(db, order0.user_id), a.payment_method_id);
      if (!isGiftCard(pm)) {
        if (order0.payment_history.length === 0) throw new PyException('IndexError', 'list index out of range');
        if (a.payment_method_id !== order0.payment_history[0].payment_method_id) throw valueError('Payment method should be the original payment method');
      }
      const ids = checkItemCounts(a.item_ids, order0, () => 'Some item not found');
      const order = db.orderForWrite(a.order_id as string);
      order.status = 'return requested';
      order.return_items = pySortedStrings(ids);
      order.return_payment_method_id = a.payment_method_id as string;
      return new ModelDump(dumpOrder(order));
    },
  },
  {
    name: 'transfer_to_human_agents',
    kind: 'generic',
    description: 'Hand the conversation to a human agent with a summary of the issue. Use only when the user asks for a human or the request cannot be handled with the policy and tools.',
    params: [strParam('summary', 'A summary of the user\'s issue.')],
    run: () => 'Transfer successful',
  },
];

/** str.lower() on an agent-supplied value; non-strings fail like Python's attribute lookup. */
function lower(v: unknown): string {
  if (typeof v !== 'string') throw new PyException('AttributeError', `'${pyTypeName(v)}' object has no attribute 'lower'`);
  return v.toLowerCase();
}

export const RETAIL_FUNCTIONS: FunctionSpec<S>[] = [];

