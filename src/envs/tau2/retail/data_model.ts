// τ² retail DB: records, validation from db.json form, model_dump in pydantic field-declaration order,
// and a copy-on-write store so clone() stays cheap on the 1000-order DB.

import { PyFloat, pyJsonDumps, type PyDict } from '../../python';
import { sha256Hex } from '../../sha256';
import { dictEntries, isPyDict, pyTypeName } from '../py';
import type { Tau2Store } from '../toolkit';

// ---------- db.json form (what a generator writes; also accepted with Maps / PyFloat from parsePyJson) ----------

export interface RetailVariantJson { item_id: string; options: Record<string, string>; available: boolean; price: number }
export interface RetailProductJson { name: string; product_id: string; variants: Record<string, RetailVariantJson> }
export interface RetailAddressJson { address1: string; address2: string; city: string; country: string; state: string; zip: string }
export type RetailPaymentMethodJson =
  | { source: 'credit_card'; id: string; brand: string; last_four: string }
  | { source: 'paypal'; id: string }
  | { source: 'gift_card'; id: string; balance: number };
export interface RetailUserJson {
  user_id: string;
  name: { first_name: string; last_name: string };
  address: RetailAddressJson;
  email: string;
  payment_methods: Record<string, RetailPaymentMethodJson>;
  orders: string[];
}
export interface RetailOrderItemJson { name: string; product_id: string; item_id: string; price: number; options: Record<string, string> }
export interface RetailOrderPaymentJson { transaction_type: 'payment' | 'refund'; amount: number; payment_method_id: string }
export type RetailOrderStatus =
  | 'processed' | 'pending' | 'pending (item modified)' | 'delivered' | 'cancelled' | 'exchange requested' | 'return requested';
export interface RetailOrderJson {
  order_id: string;
  user_id: string;
  address: RetailAddressJson;
  items: RetailOrderItemJson[];
  status: RetailOrderStatus;
  fulfillments: { tracking_id: string[]; item_ids: string[] }[];
  payment_history: RetailOrderPaymentJson[];
  cancel_reason?: 'no longer needed' | 'ordered by mistake' | null;
  exchange_items?: string[] | null;
  exchange_new_items?: string[] | null;
  exchange_payment_method_id?: string | null;
  exchange_price_difference?: number | null;
  return_items?: string[] | null;
  return_payment_method_id?: string | null;
}
export interface RetailDBJson {
  products: Record<string, RetailProductJson>;
  users: Record<string, RetailUserJson>;
  orders: Record<string, RetailOrderJson>;
}

// ---------- in-memory records ----------
// Dicts are Maps (db.json has integer-like keys whose order Python keeps). Float fields hold plain
// numbers and are written as floats, except exchange_price_difference, which τ² can set to the int 0.

export type StrMap = Map<string, string>;
export interface Variant { item_id: string; options: StrMap; available: boolean; price: number }
export interface Product { name: string; product_id: string; variants: Map<string, Variant> }
export interface UserAddress { address1: string; address2: string; city: string; country: string; state: string; zip: string }
export type PaymentMethod =
  | { source: 'credit_card'; id: string; brand: string; last_four: string }
  | { source: 'paypal'; id: string }
  | { source: 'gift_card'; id: string; balance: number };
export interface User {
  user_id: string;
  name: { first_name: string; last_name: string };
  address: UserAddress;
  email: string;
  payment_methods: Map<string, PaymentMethod>;
  orders: string[];
}
export interface OrderItem { name: string; product_id: string; item_id: string; price: number; options: StrMap }
export interface OrderPayment { transaction_type: string; amount: number; payment_method_id: string }
export interface Order {
  order_id: string;
  user_id: string;
  address: UserAddress;
  items: OrderItem[];
  status: string;
  fulfillments: { tracking_id: string[]; item_ids: string[] }[];
  payment_history: OrderPayment[];
  cancel_reason: string | null;
  exchange_items: unknown[] | null;
  exchange_new_items: unknown[] | null;
  exchange_payment_method_id: string | null;
  /** PyFloat for a float; a plain number here is a Python int. */
  exchange_price_difference: PyFloat | number | null;
  return_items: unknown[] | null;
  return_payment_method_id: string | null;
}

// ---------- validation (model_validate) ----------

export class RetailDataError extends Error {}

type Path = string;
const fail = (path: Path, what: string, v: unknown): never => {
  throw new RetailDataError(`${path}: expected ${what}, got ${pyTypeName(v)}`);
};
const str = (v: unknown, p: Path): string => (typeof v === 'string' ? v : fail(p, 'str', v));
const optStr = (v: unknown, p: Path): string | null => (v === undefined || v === null ? null : str(v, p));
const num = (v: unknown, p: Path): number => {
  if (v instanceof PyFloat) return v.value;
  if (typeof v === 'number') return v;
  return fail(p, 'float', v);
};
const bool = (v: unknown, p: Path): boolean => (typeof v === 'boolean' ? v : fail(p, 'bool', v));
const list = (v: unknown, p: Path): unknown[] => (Array.isArray(v) ? v : fail(p, 'list', v));
const strList = (v: unknown, p: Path): string[] => list(v, p).map((x, i) => str(x, `${p}[${i}]`));
const optStrList = (v: unknown, p: Path): string[] | null => (v === undefined || v === null ? null : strList(v, p));
const get = (o: unknown, k: string): unknown => (o instanceof Map ? o.get(k) : (o as Record<string, unknown>)[k]);
const dict = (v: unknown, p: Path): [string, unknown][] => {
  if (!isPyDict(v)) return fail(p, 'dict', v);
  return dictEntries(v).map(([k, x]) => [String(k), x]);
};
const obj = (v: unknown, p: Path): unknown => (isPyDict(v) ? v : fail(p, 'object', v));
const literal = <T extends string>(v: unknown, allowed: readonly T[], p: Path): T =>
  (typeof v === 'string' && (allowed as readonly string[]).includes(v) ? (v as T) : fail(p, allowed.join('|'), v));

const STATUSES = ['processed', 'pending', 'pending (item modified)', 'delivered', 'cancelled', 'exchange requested', 'return requested'] as const;

function strMap(v: unknown, p: Path): StrMap {
  return new Map(dict(v, p).map(([k, x]) => [k, str(x, `${p}.${k}`)]));
}

function address(v: unknown, p: Path): UserAddress {
  obj(v, p);
  return {
    address1: str(get(v, 'address1'), `${p}.address1`), address2: str(get(v, 'address2'), `${p}.address2`),
    city: str(get(v, 'city'), `${p}.city`), country: str(get(v, 'country'), `${p}.country`),
    state: str(get(v, 'state'), `${p}.state`), zip: str(get(v, 'zip'), `${p}.zip`),
  };
}

function paymentMethod(v: unknown, p: Path): PaymentMethod {
  obj(v, p);
  const source = literal(get(v, 'source'), ['credit_card', 'paypal', 'gift_card'] as const, `${p}.source`);
  const id = str(get(v, 'id'), `${p}.id`);
  if (source === 'credit_card') return { source, id, brand: str(get(v, 'brand'), `${p}.brand`), last_four: str(get(v, 'last_four'), `${p}.last_four`) };
  if (source === 'gift_card') return { source, id, balance: num(get(v, 'balance'), `${p}.balance`) };
  return { source, id };
}

function order(v: unknown, p: Path): Order {
  obj(v, p);
  const epd = get(v, 'exchange_price_difference');
  return {
    order_id: str(get(v, 'order_id'), `${p}.order_id`),
    user_id: str(get(v, 'user_id'), `${p}.user_id`),
    address: address(get(v, 'address'), `${p}.address`),
    items: list(get(v, 'items'), `${p}.items`).map((it, i) => {
      const q = `${p}.items[${i}]`;
      obj(it, q);
      return {
        name: str(get(it, 'name'), `${q}.name`), product_id: str(get(it, 'product_id'), `${q}.product_id`),
        item_id: str(get(it, 'item_id'), `${q}.item_id`), price: num(get(it, 'price'), `${q}.price`),
        options: strMap(get(it, 'options'), `${q}.options`),
      };
    }),
    status: literal(get(v, 'status'), STATUSES, `${p}.status`),
    fulfillments: list(get(v, 'fulfillments'), `${p}.fulfillments`).map((f, i) => ({
      tracking_id: strList(get(obj(f, `${p}.fulfillments[${i}]`), 'tracking_id'), `${p}.fulfillments[${i}].tracking_id`),
      item_ids: strList(get(f, 'item_ids'), `${p}.fulfillments[${i}].item_ids`),
    })),
    payment_history: list(get(v, 'payment_history'), `${p}.payment_history`).map((x, i) => {
      const q = `${p}.payment_history[${i}]`;
      obj(x, q);
      return {
        transaction_type: literal(get(x, 'transaction_type'), ['payment', 'refund'] as const, `${q}.transaction_type`),
        amount: num(get(x, 'amount'), `${q}.amount`),
        payment_method_id: str(get(x, 'payment_method_id'), `${q}.payment_method_id`),
      };
    }),
    cancel_reason: get(v, 'cancel_reason') == null ? null
      : literal(get(v, 'cancel_reason'), ['no longer needed', 'ordered by mistake'] as const, `${p}.cancel_reason`),
    exchange_items: optStrList(get(v, 'exchange_items'), `${p}.exchange_items`),
    exchange_new_items: optStrList(get(v, 'exchange_new_items'), `${p}.exchange_new_items`),
    exchange_payment_method_id: optStr(get(v, 'exchange_payment_method_id'), `${p}.exchange_payment_method_id`),
    exchange_price_difference: epd == null ? null : new PyFloat(num(epd, `${p}.exchange_price_difference`)),
    return_items: optStrList(get(v, 'return_items'), `${p}.return_items`),
    return_payment_method_id: optStr(get(v, 'return_payment_method_id'), `${p}.return_payment_method_id`),
  };
}

/** RetailDB.model_validate on db.json-shaped data (plain objects or ordered Maps). Throws RetailDataError. */
export function retailStoreFromJson(data: RetailDBJson | unknown): RetailStore {
  obj(data, 'db');
  for (const [k] of dict(data, 'db')) {
    if (!['products', 'users', 'orders'].includes(k)) throw new RetailDataError(`db.${k}: extra field not permitted`);
  }
  const products = new Map<string, Product>();
  for (const [k, v] of dict(get(data, 'products'), 'products')) {
    const p = `products.${k}`;
    obj(v, p);
    const variants = new Map<string, Variant>();
    for (const [vk, vv] of dict(get(v, 'variants'), `${p}.variants`)) {
      const q = `${p}.variants.${vk}`;
      obj(vv, q);
      variants.set(vk, {
        item_id: str(get(vv, 'item_id'), `${q}.item_id`), options: strMap(get(vv, 'options'), `${q}.options`),
        available: bool(get(vv, 'available'), `${q}.available`), price: num(get(vv, 'price'), `${q}.price`),
      });
    }
    products.set(k, { name: str(get(v, 'name'), `${p}.name`), product_id: str(get(v, 'product_id'), `${p}.product_id`), variants });
  }
  const users = new Map<string, User>();
  for (const [k, v] of dict(get(data, 'users'), 'users')) {
    const p = `users.${k}`;
    obj(v, p);
    const name = obj(get(v, 'name'), `${p}.name`);
    users.set(k, {
      user_id: str(get(v, 'user_id'), `${p}.user_id`),
      name: { first_name: str(get(name, 'first_name'), `${p}.name.first_name`), last_name: str(get(name, 'last_name'), `${p}.name.last_name`) },
      address: address(get(v, 'address'), `${p}.address`),
      email: str(get(v, 'email'), `${p}.email`),
      payment_methods: new Map(dict(get(v, 'payment_methods'), `${p}.payment_methods`)
        .map(([pk, pv]) => [pk, paymentMethod(pv, `${p}.payment_methods.${pk}`)])),
      orders: strList(get(v, 'orders'), `${p}.orders`),
    });
  }
  const orders = new Map<string, Order>();
  for (const [k, v] of dict(get(data, 'orders'), 'orders')) orders.set(k, order(v, `orders.${k}`));
  return new RetailStore(products, users, orders);
}

// ---------- model_dump (field declaration order) ----------

const f = (x: number) => new PyFloat(x);
const mapDump = <V>(m: Map<string, V>, d: (v: V) => unknown) => new Map([...m].map(([k, v]) => [k, d(v)]));
const opts = (o: unknown) => (o instanceof Map ? new Map(o) : o);

export const dumpAddress = (a: UserAddress): PyDict =>
  ({ address1: a.address1, address2: a.address2, city: a.city, country: a.country, state: a.state, zip: a.zip });

export const dumpVariant = (v: Variant): PyDict =>
  ({ item_id: v.item_id, options: opts(v.options), available: v.available, price: f(v.price) });

export const dumpProduct = (p: Product): PyDict =>
  ({ name: p.name, product_id: p.product_id, variants: mapDump(p.variants, dumpVariant) });

export function dumpPaymentMethod(pm: PaymentMethod): PyDict {
  if (pm.source === 'credit_card') return { source: pm.source, id: pm.id, brand: pm.brand, last_four: pm.last_four };
  if (pm.source === 'gift_card') return { source: pm.source, id: pm.id, balance: f(pm.balance) };
  return { source: pm.source, id: pm.id };
}

export const dumpUser = (u: User): PyDict => ({
  user_id: u.user_id, name: { first_name: u.name.first_name, last_name: u.name.last_name },
  address: dumpAddress(u.address), email: u.email,
  payment_methods: mapDump(u.payment_methods, dumpPaymentMethod), orders: [...u.orders],
});

export const dumpOrder = (o: Order): PyDict => ({
  order_id: o.order_id,
  user_id: o.user_id,
  address: dumpAddress(o.address),
  items: o.items.map((i) => ({ name: i.name, product_id: i.product_id, item_id: i.item_id, price: f(i.price), options: opts(i.options) })),
  status: o.status,
  fulfillments: o.fulfillments.map((x) => ({ tracking_id: [...x.tracking_id], item_ids: [...x.item_ids] })),
  payment_history: o.payment_history.map((x) => ({ transaction_type: x.transaction_type, amount: f(x.amount), payment_method_id: x.payment_method_id })),
  cancel_reason: o.cancel_reason,
  exchange_items: o.exchange_items && [...o.exchange_items],
  exchange_new_items: o.exchange_new_items && [...o.exchange_new_items],
  exchange_payment_method_id: o.exchange_payment_method_id,
  exchange_price_difference: o.exchange_price_difference,
  return_items: o.return_items && [...o.return_items],
  return_payment_method_id: o.return_payment_method_id,
});

// ---------- copies ----------

const copyAddress = (a: UserAddress): UserAddress => ({ ...a });
const copyUser = (u: User): User => ({
  ...u, name: { ...u.name }, address: copyAddress(u.address),
  payment_methods: new Map([...u.payment_methods].map(([k, v]) => [k, { ...v }])), orders: [...u.orders],
});
const copyOrder = (o: Order): Order => ({
  ...o,
  address: copyAddress(o.address),
  items: o.items.map((i) => ({ ...i, options: new Map(i.options) })),
  fulfillments: o.fulfillments.map((x) => ({ tracking_id: [...x.tracking_id], item_ids: [...x.item_ids] })),
  payment_history: o.payment_history.map((x) => ({ ...x })),
  exchange_items: o.exchange_items && [...o.exchange_items],
  exchange_new_items: o.exchange_new_items && [...o.exchange_new_items],
  return_items: o.return_items && [...o.return_items],
});

// Sorted-key JSON of one record, keyed by object identity. Records are only mutated after
// forWrite(), which drops the entry, so a cached text is always current.
const sortedJsonCache = new WeakMap<object, string>();
function sortedJson(rec: object, dump: () => unknown): string {
  let s = sortedJsonCache.get(rec);
  if (s === undefined) {
    s = pyJsonDumps(dump(), { sortKeys: true });
    sortedJsonCache.set(rec, s);
  }
  return s;
}

function sortedMapJson<V extends object>(m: Map<string, V>, dump: (v: V) => unknown): string {
  const keys = [...m.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return '{' + keys.map((k) => `${pyJsonDumps(k)}: ${sortedJson(m.get(k)!, () => dump(m.get(k)!))}`).join(', ') + '}';
}

export class RetailStore implements Tau2Store<RetailStore> {
  // Records this store may mutate in place. Everything else may be shared with clones.
  private owned = new WeakSet<object>();
  // Valid until the next forWrite(); read-only episodes and fresh clones never rehash.
  private hashCache: string | undefined;

  constructor(
    public products: Map<string, Product>,
    public users: Map<string, User>,
    public orders: Map<string, Order>,
  ) {}

  clone(): RetailStore {
    // Both sides lose ownership: from now on either one copies a record before changing it.
    this.owned = new WeakSet();
    const c = new RetailStore(new Map(this.products), new Map(this.users), new Map(this.orders));
    c.hashCache = this.hashCache;
    return c;
  }

  orderForWrite(id: string): Order {
    let o = this.orders.get(id)!;
    if (!this.owned.has(o)) {
      o = copyOrder(o);
      this.orders.set(id, o);
      this.owned.add(o);
    }
    sortedJsonCache.delete(o);
    this.hashCache = undefined;
    return o;
  }

  userForWrite(id: string): User {
    let u = this.users.get(id)!;
    if (!this.owned.has(u)) {
      u = copyUser(u);
      this.users.set(id, u);
      this.owned.add(u);
    }
    sortedJsonCache.delete(u);
    this.hashCache = undefined;
    return u;
  }

  dump(): PyDict {
    return new Map<string, unknown>([
      ['products', mapDump(this.products, dumpProduct)],
      ['users', mapDump(this.users, dumpUser)],
      ['orders', mapDump(this.orders, dumpOrder)],
    ]);
  }

  /** Same text as json.dumps(model_dump(), sort_keys=True), built from cached per-record pieces. */
  sortedJson(): string {
    return `{"orders": ${sortedMapJson(this.orders, dumpOrder)}, "products": ${sortedMapJson(this.products, dumpProduct)}, `
      + `"users": ${sortedMapJson(this.users, dumpUser)}}`;
  }

  hash(): string {
    this.hashCache ??= sha256Hex(this.sortedJson());
    return this.hashCache;
  }
}
