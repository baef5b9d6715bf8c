// A small generated retail database in τ²-bench's db.json shape (products with variants, users with
// payment methods, orders keyed by '#W…' ids with payment history). Kept tiny on purpose: 3–4 products,
// 2–3 users, a handful of orders, short ids, so a tool result is a few hundred characters.

import { Rng } from '../rng';

export interface RAddress { address1: string; address2: string; city: string; country: string; state: string; zip: string }
export interface RVariant { item_id: string; options: Record<string, string>; available: boolean; price: number }
export interface RProduct { name: string; product_id: string; variants: Record<string, RVariant> }
export type RPaymentMethod =
  | { source: 'credit_card'; id: string; brand: string; last_four: string }
  | { source: 'paypal'; id: string }
  | { source: 'gift_card'; id: string; balance: number };
export interface RUser {
  user_id: string;
  name: { first_name: string; last_name: string };
  address: RAddress;
  email: string;
  payment_methods: Record<string, RPaymentMethod>;
  orders: string[];
}
export interface ROrderItem { name: string; product_id: string; item_id: string; price: number; options: Record<string, string> }
export interface RPayment { transaction_type: 'payment' | 'refund'; amount: number; payment_method_id: string }
export interface ROrder {
  order_id: string;
  user_id: string;
  address: RAddress;
  items: ROrderItem[];
  fulfillments: { tracking_id: string[]; item_ids: string[] }[];
  status: string;
  payment_history: RPayment[];
  cancel_reason?: string;
}
export interface RetailDb { products: Record<string, RProduct>; users: Record<string, RUser>; orders: Record<string, ROrder> }

const CATALOG: { name: string; options: Record<string, string[]>; base: [number, number] }[] = [
  { name: 'T-Shirt', options: { color: ['red', 'blue', 'black', 'white'], size: ['S', 'M', 'L'] }, base: [12, 30] },
  { name: 'Water Bottle', options: { capacity: ['500ml', '750ml', '1000ml'], color: ['green', 'black', 'blue'] }, base: [15, 40] },
  { name: 'Desk Lamp', options: { color: ['white', 'black', 'silver'], power: ['USB', 'battery', 'AC'] }, base: [25, 90] },
  { name: 'Backpack', options: { color: ['grey', 'navy', 'black'], size: ['small', 'large'] }, base: [40, 120] },
  { name: 'Headphones', options: { type: ['over-ear', 'in-ear'], color: ['black', 'white', 'red'] }, base: [50, 200] },
  { name: 'Sneakers', options: { size: ['8', '9', '10', '11'], color: ['white', 'black', 'red'] }, base: [60, 140] },
  { name: 'Coffee Maker', options: { capacity: ['4 cups', '8 cups', '12 cups'], color: ['black', 'steel'] }, base: [45, 160] },
  { name: 'Yoga Mat', options: { thickness: ['4mm', '6mm', '8mm'], color: ['purple', 'blue', 'green'] }, base: [20, 60] },
  { name: 'Notebook', options: { pages: ['100', '200'], cover: ['hard', 'soft'] }, base: [5, 18] },
  { name: 'Smart Watch', options: { color: ['black', 'silver', 'gold'], band: ['silicone', 'leather'] }, base: [120, 350] },
];

const FIRST = ['Ana', 'Ben', 'Chloe', 'Diego', 'Emma', 'Farid', 'Grace', 'Hugo', 'Ines', 'Jamal', 'Kira', 'Leo', 'Mia', 'Noah', 'Olga', 'Priya', 'Raj', 'Sara', 'Tom', 'Yuki'];
const LAST = ['Lee', 'Khan', 'Silva', 'Novak', 'Brown', 'Garcia', 'Ito', 'Moreau', 'Rossi', 'Smith', 'Wong', 'Patel', 'Berg', 'Costa', 'Diaz'];
const STREETS = ['Oak', 'Pine', 'Maple', 'Cedar', 'Elm', 'Lake', 'Hill', 'River', 'Park', 'Main'];
const CITIES: [string, string][] = [['Austin', 'TX'], ['Denver', 'CO'], ['Seattle', 'WA'], ['Boston', 'MA'], ['Phoenix', 'AZ'], ['Portland', 'OR'], ['Chicago', 'IL'], ['Atlanta', 'GA']];
/** Every first and last name a generated user can have (identifier scrambling replaces them). */
export const PERSON_NAMES: readonly string[] = [...FIRST, ...LAST];
const BRANDS = ['visa', 'mastercard', 'amex'];

/** Money with cents that never end in 0, so JSON, Python repr and '$x.yz' all print the same digits. */
export function money(rng: Rng, lo: number, hi: number): number {
  let cents = rng.int(1, 99);
  if (cents % 10 === 0) cents += 1;
  return rng.int(lo, hi) + cents / 100;
}

export const round2 = (x: number): number => Math.round(x * 100) / 100;

/** How a float prints in a τ² tool result (Python repr): 12.5 -> '12.5', 40 -> '40.0'. */
export function pyMoney(x: number): string {
  const r = round2(x);
  return Number.isInteger(r) ? r.toFixed(1) : String(r);
}

export function genAddress(rng: Rng): RAddress {
  const [city, state] = rng.pick(CITIES);
  return {
    address1: `${rng.int(10, 999)} ${rng.pick(STREETS)} ${rng.pick(['St', 'Ave', 'Rd'])}`,
    address2: rng.chance(0.3) ? `Apt ${rng.int(1, 30)}` : '',
    city, country: 'USA', state, zip: String(rng.int(10000, 99999)),
  };
}

export interface DbOptions { products: number; users: number; ordersPerUser: [number, number] }

/** A unique short id from a generator, retrying on collision. */
function uniq(used: Set<string>, make: () => string): string {
  for (;;) { const s = make(); if (!used.has(s)) { used.add(s); return s; } }
}

export function generateDb(rng: Rng, o: DbOptions): RetailDb {
  const used = new Set<string>();
  const products: Record<string, RProduct> = Object.create(null);
  for (const tpl of rng.sample(CATALOG, o.products)) {
    const product_id = uniq(used, () => String(rng.int(1000, 9999)));
    const keys = Object.keys(tpl.options);
    const nVariants = rng.int(2, 3);
    const combos = new Set<string>();
    const variants: Record<string, RVariant> = Object.create(null);
    const base = rng.int(tpl.base[0], tpl.base[1]);
    while (Object.keys(variants).length < nVariants) {
      const options: Record<string, string> = Object.create(null);
      for (const k of keys) options[k] = rng.pick(tpl.options[k]);
      const key = JSON.stringify(options);
      if (combos.has(key)) continue;
      combos.add(key);
      const item_id = uniq(used, () => String(rng.int(100000, 999999)));
      variants[item_id] = { item_id, options, available: rng.chance(0.75), price: money(rng, base, base + 15) };
    }
    products[product_id] = { name: tpl.name, product_id, variants };
  }

  const users: Record<string, RUser> = Object.create(null);
  const orders: Record<string, ROrder> = Object.create(null);
  const names = new Set<string>();
  const productList = Object.values(products);
  for (let u = 0; u < o.users; u++) {
    let first = '', last = '';
    do { first = rng.pick(FIRST); last = rng.pick(LAST); } while (names.has(first + last));
    names.add(first + last);
    const user_id = uniq(used, () => `${first}_${last}_${rng.int(100, 999)}`.toLowerCase());
    const payment_methods: Record<string, RPaymentMethod> = Object.create(null);
    const addPm = (pm: RPaymentMethod) => { payment_methods[pm.id] = pm; };
    if (rng.chance(0.7)) {
      addPm({ source: 'credit_card', id: uniq(used, () => `credit_card_${rng.digits(4)}`), brand: rng.pick(BRANDS), last_four: rng.digits(4) });
    } else {
      addPm({ source: 'paypal', id: uniq(used, () => `paypal_${rng.digits(4)}`) });
    }
    // a second card or PayPal for some users: refunds to it are against policy unless it paid the order
    if (rng.chance(0.35)) {
      if ('paypal' === Object.values(payment_methods)[0].source) {
        addPm({ source: 'credit_card', id: uniq(used, () => `credit_card_${rng.digits(4)}`), brand: rng.pick(BRANDS), last_four: rng.digits(4) });
      } else addPm({ source: 'paypal', id: uniq(used, () => `paypal_${rng.digits(4)}`) });
    }
    if (rng.chance(0.6)) addPm({ source: 'gift_card', id: uniq(used, () => `gift_card_${rng.digits(4)}`), balance: money(rng, 0, 150) });
    const user: RUser = {
      user_id, name: { first_name: first, last_name: last }, address: genAddress(rng),
      email: `${first}.${last}${rng.int(1, 99)}@example.com`.toLowerCase(), payment_methods, orders: [],
    };
    users[user_id] = user;

    const nOrders = rng.int(o.ordersPerUser[0], o.ordersPerUser[1]);
    for (let k = 0; k < nOrders; k++) {
      const order_id = uniq(used, () => `#W${rng.digits(4)}`);
      const items: ROrderItem[] = rng.sample(productList, rng.chance(0.75) ? 1 : 2).map((p) => {
        const v = rng.pick(Object.values(p.variants));
        return { name: p.name, product_id: p.product_id, item_id: v.item_id, price: v.price, options: { ...v.options } };
      });
      const status = rng.weighted<string>([['pending', 5], ['delivered', 4], ['cancelled', 1]]);
      const pm = rng.pick(Object.keys(payment_methods));
      const amount = round2(items.reduce((a, it) => a + it.price, 0));
      const order: ROrder = {
        order_id, user_id, address: { ...user.address }, items,
        fulfillments: status === 'delivered' ? [{ tracking_id: [rng.digits(8)], item_ids: items.map((i) => i.item_id) }] : [],
        status,
        payment_history: [{ transaction_type: 'payment', amount, payment_method_id: pm }],
      };
      if (status === 'cancelled') {
        order.payment_history.push({ transaction_type: 'refund', amount, payment_method_id: pm });
        order.cancel_reason = rng.pick(['no longer needed', 'ordered by mistake']);
      }
      orders[order_id] = order;
      user.orders.push(order_id);
    }
  }
  return { products, users, orders };
}
