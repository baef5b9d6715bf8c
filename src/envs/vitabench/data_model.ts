// VitaBench's delivery and in-store databases as the reference's pydantic models hold them: field
// coercion (floats always print with a fraction, ints stay ints), unknown keys dropped, the custom
// __repr__/__str__ texts tools return, model_dump() for the canonical hash, and the per-thread
// instance registries (Location by address, products by id) that building a DB fills and tools read.

import { PyFloat, pyFloatRepr, pyJsonDumps, pyRepr, pyStr } from '../python';
import { sha256Hex } from '../sha256';

export class VitaDataError extends Error {}

export type VitaDomain = 'delivery' | 'instore';

export class Location {
  constructor(public address: string, public longitude: number, public latitude: number) {}
}

export class StoreProduct {
  readonly kind = 'delivery' as const;
  constructor(
    public product_id: string, public price: number, public quantity: unknown, public name: string,
    public store_id: string, public store_name: string, public attributes: string, public tags: string[],
  ) {}
}

export class ShopProduct {
  readonly kind = 'instore' as const;
  constructor(
    public product_id: string, public price: number, public quantity: unknown, public name: string,
    public shop_id: string, public tags: string[],
  ) {}
}

export type Product = StoreProduct | ShopProduct;

export interface Store {
  store_id: string; name: string; score: number; location: Location; tags: string[]; products: StoreProduct[];
}

export interface Shop {
  store_id: string; shop_id: string; shop_name: string; score: number; location: Location; tags: string[];
  enable_book: boolean; book_price: number; enable_reservation: boolean; products: ShopProduct[];
}

export const ORDER_TYPES = ['delivery', 'instore', 'hotel', 'attraction', 'flight', 'train'] as const;
export const ORDER_STATUSES = ['unpaid', 'paid', 'unconsumed', 'consumed', 'processed', 'in-progress', 'delivered', 'cancelled'] as const;
export const INSTORE_STATUSES = ['unpaid', 'paid', 'unconsumed', 'consumed', 'cancelled'] as const;

/** Fields assigned by tools without validation (note, status) keep whatever Python value they got. */
export interface Order {
  order_id: string; order_type: string; user_id: string; store_id: string; note: unknown;
  location: Location | null; dispatch_time: string | null; shipping_time: number | null; delivery_time: string | null;
  total_price: number; create_time: string; update_time: string; status: string;
  /** Raw task values (dicts) for loaded orders, Product objects for orders a tool created. */
  products: unknown[];
}

export interface BookInfo {
  book_id: string; shop_id: string; book_time: string; update_time: string; customer_id: string;
  customer_count: unknown; book_price: number; status: string;
}

export interface ReservationInfo {
  reservation_id: string; shop_id: string; reservation_time: string; update_time: string; customer_id: string;
  customer_count: unknown; status: string;
}

export interface Weather { city: string; category: string; datetime: string; temperature: [number, number]; humidity: number }

export interface VitaDB {
  domain: VitaDomain;
  time: string | null;
  user_id: string | null;
  weather: Weather[] | null;
  location: Location[] | null;
  user_historical_behaviors: unknown;
  orders: Map<string, Order> | null;
  stores: Map<string, Store>;
  shops: Map<string, Shop>;
  books: Map<string, BookInfo>;
  reservations: Map<string, ReservationInfo>;
}

/** The reference's per-thread instance registries, in registration order (re-registering keeps the slot). */
export interface Registries {
  locations: Map<string, Location>;
  products: Map<string, Product>;
}

export const newRegistries = (): Registries => ({ locations: new Map(), products: new Map() });

// ---------- validation of task data (pydantic lax mode, for the shapes the data has) ----------

const get = (o: unknown, k: string): unknown => (o instanceof Map ? o.get(k) : (o as Record<string, unknown>)?.[k]);
const has = (o: unknown, k: string): boolean => (o instanceof Map ? o.has(k) : Object.prototype.hasOwnProperty.call(o, k));
const entriesOf = (o: unknown): [string, unknown][] => (o instanceof Map ? [...o.entries()].map(([k, v]) => [String(k), v]) : Object.entries(o as object));
const isObj = (v: unknown): boolean => v instanceof Map || (typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof PyFloat));

function fail(loc: string, what: string): never {
  throw new VitaDataError(`${loc}: ${what}`);
}

function reqStr(o: unknown, k: string, loc: string): string {
  const v = get(o, k);
  if (typeof v !== 'string') fail(`${loc}.${k}`, 'expected a string');
  return v;
}

function optStr(o: unknown, k: string, loc: string, dflt: string | null): string | null {
  if (!has(o, k)) return dflt;
  const v = get(o, k);
  if (v === null) return null;
  if (typeof v !== 'string') fail(`${loc}.${k}`, 'expected a string or null');
  return v;
}

export function floatOf(v: unknown, loc: string): number {
  if (v instanceof PyFloat) return v.value;
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  return fail(loc, 'expected a number');
}

function intOf(v: unknown, loc: string): number {
  const n = v instanceof PyFloat ? v.value : v;
  if (typeof n === 'number' && Number.isInteger(n)) return n;
  if (typeof n === 'boolean') return Number(n);
  return fail(loc, 'expected an integer');
}

function boolOf(v: unknown, loc: string): boolean {
  if (typeof v === 'boolean') return v;
  if (v === 0 || v === 1) return v === 1;
  return fail(loc, 'expected a boolean');
}

function strList(v: unknown, loc: string): string[] {
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) fail(loc, 'expected a list of strings');
  return [...v];
}

function location(v: unknown, loc: string, reg: Registries): Location {
  if (!isObj(v)) fail(loc, 'expected an object');
  const l = new Location(reqStr(v, 'address', loc), floatOf(get(v, 'longitude'), `${loc}.longitude`), floatOf(get(v, 'latitude'), `${loc}.latitude`));
  reg.locations.set(l.address, l);
  return l;
}

function storeProduct(v: unknown, loc: string, reg: Registries): StoreProduct {
  const attrs = get(v, 'attributes');
  let attributes: string;
  if (typeof attrs === 'string') attributes = attrs;
  else if (Array.isArray(attrs) && attrs.every((x) => typeof x === 'string')) attributes = attrs.join(', ');
  else fail(`${loc}.attributes`, 'expected a string or a list of strings');
  const p = new StoreProduct(
    has(v, 'product_id') ? reqStr(v, 'product_id', loc) : '', has(v, 'price') ? floatOf(get(v, 'price'), `${loc}.price`) : 0,
    has(v, 'quantity') && get(v, 'quantity') !== null ? intOf(get(v, 'quantity'), `${loc}.quantity`) : has(v, 'quantity') ? null : 0,
    reqStr(v, 'name', loc), reqStr(v, 'store_id', loc), reqStr(v, 'store_name', loc), attributes, strList(get(v, 'tags'), `${loc}.tags`),
  );
  reg.products.set(p.product_id, p);
  return p;
}

function shopProduct(v: unknown, loc: string, reg: Registries): ShopProduct {
  const p = new ShopProduct(
    has(v, 'product_id') ? reqStr(v, 'product_id', loc) : '', has(v, 'price') ? floatOf(get(v, 'price'), `${loc}.price`) : 0,
    has(v, 'quantity') && get(v, 'quantity') !== null ? intOf(get(v, 'quantity'), `${loc}.quantity`) : has(v, 'quantity') ? null : 0,
    reqStr(v, 'name', loc), reqStr(v, 'shop_id', loc), strList(get(v, 'tags'), `${loc}.tags`),
  );
  reg.products.set(p.product_id, p);
  return p;
}

function literal(v: unknown, allowed: readonly string[], loc: string): string {
  if (typeof v !== 'string' || !allowed.includes(v)) fail(loc, `expected one of ${allowed.join(', ')}`);
  return v;
}

function order(v: unknown, loc: string, reg: Registries): Order {
  if (!isObj(v)) fail(loc, 'expected an object');
  const o: Order = {
    order_id: reqStr(v, 'order_id', loc),
    order_type: literal(get(v, 'order_type'), ORDER_TYPES, `${loc}.order_type`),
    user_id: reqStr(v, 'user_id', loc),
    store_id: reqStr(v, 'store_id', loc),
    note: optStr(v, 'note', loc, ''),
    location: has(v, 'location') && get(v, 'location') !== null ? location(get(v, 'location'), `${loc}.location`, reg) : null,
    dispatch_time: optStr(v, 'dispatch_time', loc, ''),
    shipping_time: !has(v, 'shipping_time') ? 0 : get(v, 'shipping_time') === null ? null : floatOf(get(v, 'shipping_time'), `${loc}.shipping_time`),
    delivery_time: optStr(v, 'delivery_time', loc, ''),
    total_price: has(v, 'total_price') ? floatOf(get(v, 'total_price'), `${loc}.total_price`) : 0,
    create_time: optStr(v, 'create_time', loc, '') ?? fail(`${loc}.create_time`, 'expected a string'),
    update_time: optStr(v, 'update_time', loc, '') ?? fail(`${loc}.update_time`, 'expected a string'),
    status: has(v, 'status') ? literal(get(v, 'status'), ORDER_STATUSES, `${loc}.status`) : 'unpaid',
    products: has(v, 'products') ? (Array.isArray(get(v, 'products')) ? [...(get(v, 'products') as unknown[])] : fail(`${loc}.products`, 'expected a list')) : [],
  };
  if (!o.update_time && o.create_time) o.update_time = o.create_time;
  return o;
}

function dictOf<T>(v: unknown, loc: string, each: (x: unknown, loc: string) => T): Map<string, T> {
  if (!isObj(v)) fail(loc, 'expected an object');
  return new Map(entriesOf(v).map(([k, x]) => [k, each(x, `${loc}.${k}`)]));
}

const DELIVERY_KEYS = ['stores', 'orders', 'time', 'user_id', 'weather', 'location', 'user_historical_behaviors'];
const INSTORE_KEYS = ['shops', 'orders', 'reservations', 'books', 'time', 'user_id', 'weather', 'location', 'user_historical_behaviors'];

/** get_environment(db=task.environment): keep the domain's keys, default the dicts, model_validate. */
export function buildDb(domain: VitaDomain, environment: unknown, reg: Registries): VitaDB {
  if (!isObj(environment)) fail('environment', 'expected an object');
  const keys = domain === 'delivery' ? DELIVERY_KEYS : INSTORE_KEYS;
  const env = new Map(entriesOf(environment).filter(([k]) => keys.includes(k)));
  const field = (k: string, dflt: unknown) => (env.has(k) ? env.get(k) : dflt);
  // Field order matters: validation registers locations and products in this order.
  const time = field('time', null);
  const userId = field('user_id', null);
  if (time !== null && typeof time !== 'string') fail('environment.time', 'expected a string');
  if (userId !== null && typeof userId !== 'string') fail('environment.user_id', 'expected a string');
  const w = field('weather', null);
  const weather = w === null ? null : Array.isArray(w) ? w.map((x, i) => {
    const loc = `environment.weather[${i}]`;
    const t = get(x, 'temperature');
    if (!Array.isArray(t) || t.length !== 2) fail(`${loc}.temperature`, 'expected two numbers');
    return { city: reqStr(x, 'city', loc), category: reqStr(x, 'category', loc), datetime: reqStr(x, 'datetime', loc), temperature: [floatOf(t[0], loc), floatOf(t[1], loc)] as [number, number], humidity: floatOf(get(x, 'humidity'), `${loc}.humidity`) };
  }) : fail('environment.weather', 'expected a list');
  const l = field('location', null);
  const locations = l === null ? null : Array.isArray(l) ? l.map((x, i) => location(x, `environment.location[${i}]`, reg)) : fail('environment.location', 'expected a list');
  const uhb = field('user_historical_behaviors', {});
  if (uhb !== null && !isObj(uhb)) fail('environment.user_historical_behaviors', 'expected an object');
  const o = field('orders', {});
  const orders = o === null ? null : dictOf(o, 'environment.orders', (x, loc) => order(x, loc, reg));
  const db: VitaDB = {
    domain, time, user_id: userId, weather, location: locations, user_historical_behaviors: uhb, orders,
    stores: new Map(), shops: new Map(), books: new Map(), reservations: new Map(),
  };
  if (domain === 'delivery') {
    db.stores = dictOf(field('stores', {}), 'environment.stores', (x, loc) => {
      if (!isObj(x)) fail(loc, 'expected an object');
      const storeId = has(x, 'store_id') ? reqStr(x, 'store_id', loc) : '';
      const name = reqStr(x, 'name', loc);
      const score = floatOf(get(x, 'score'), `${loc}.score`);
      const loc2 = location(get(x, 'location'), `${loc}.location`, reg);
      const tags = strList(get(x, 'tags'), `${loc}.tags`);
      const ps = get(x, 'products');
      if (!Array.isArray(ps)) fail(`${loc}.products`, 'expected a list');
      return { store_id: storeId, name, score, location: loc2, tags, products: ps.map((p, i) => storeProduct(p, `${loc}.products[${i}]`, reg)) };
    });
  } else {
    db.shops = dictOf(field('shops', {}), 'environment.shops', (x, loc) => {
      if (!isObj(x)) fail(loc, 'expected an object');
      const shopId = reqStr(x, 'shop_id', loc);
      const shopName = reqStr(x, 'shop_name', loc);
      const score = floatOf(get(x, 'score'), `${loc}.score`);
      const loc2 = location(get(x, 'location'), `${loc}.location`, reg);
      const tags = strList(get(x, 'tags'), `${loc}.tags`);
      const enableBook = boolOf(get(x, 'enable_book'), `${loc}.enable_book`);
      const bookPrice = floatOf(get(x, 'book_price'), `${loc}.book_price`);
      const enableReservation = boolOf(get(x, 'enable_reservation'), `${loc}.enable_reservation`);
      const ps = get(x, 'products');
      if (!Array.isArray(ps)) fail(`${loc}.products`, 'expected a list');
      const products = ps.map((p, i) => shopProduct(p, `${loc}.products[${i}]`, reg));
      // model_post_init re-registers the shop's own products (a no-op for order, kept for the object).
      for (const p of products) reg.products.set(p.product_id, p);
      return { store_id: shopId, shop_id: shopId, shop_name: shopName, score, location: loc2, tags, enable_book: enableBook, book_price: bookPrice, enable_reservation: enableReservation, products };
    });
    db.books = dictOf(field('books', {}), 'environment.books', (x, loc) => ({
      book_id: reqStr(x, 'book_id', loc), shop_id: reqStr(x, 'shop_id', loc), book_time: reqStr(x, 'book_time', loc),
      update_time: reqStr(x, 'update_time', loc), customer_id: reqStr(x, 'customer_id', loc),
      customer_count: intOf(get(x, 'customer_count'), `${loc}.customer_count`), book_price: floatOf(get(x, 'book_price'), `${loc}.book_price`),
      status: literal(get(x, 'status'), INSTORE_STATUSES, `${loc}.status`),
    }));
    db.reservations = dictOf(field('reservations', {}), 'environment.reservations', (x, loc) => ({
      reservation_id: reqStr(x, 'reservation_id', loc), shop_id: reqStr(x, 'shop_id', loc), reservation_time: reqStr(x, 'reservation_time', loc),
      update_time: reqStr(x, 'update_time', loc), customer_id: reqStr(x, 'customer_id', loc),
      customer_count: intOf(get(x, 'customer_count'), `${loc}.customer_count`), status: literal(get(x, 'status'), INSTORE_STATUSES, `${loc}.status`),
    }));
  }
  return db;
}

// ---------- __repr__ / __str__ texts ----------

const f = pyFloatRepr;
const s = pyStr;

export const reprLocation = (l: Location) => `${l.address} longitude:${f(l.longitude)},latitude:${f(l.latitude)}`;

export function reprProduct(p: Product): string {
  if (p.kind === 'delivery') {
    return `StoreProduct(store_name=${p.store_name}, store_id=${p.store_id}, product_name=${p.name}, product_id=${p.product_id}, `
      + `attributes=${p.attributes}, quantity=${s(p.quantity)}, price=${f(p.price)}, tags=${pyRepr(p.tags)})`;
  }
  return `ShopProduct(shop_id=${p.shop_id}, product_id=${p.product_id}, name=${p.name}, price=${f(p.price)}, quantity=${s(p.quantity)}, tags=${pyRepr(p.tags)})`;
}

/** repr() of a value inside a list repr: model objects use their own __repr__. */
export function reprValue(v: unknown): string {
  if (v instanceof StoreProduct || v instanceof ShopProduct) return reprProduct(v);
  if (Array.isArray(v)) return `[${v.map(reprValue).join(', ')}]`;
  return pyRepr(v);
}

export const strStore = (x: Store) => `Store(name=${x.name}, store_id=${x.store_id}, score=${f(x.score)}, location=${reprLocation(x.location)}, tags=${pyRepr(x.tags)})`;

export const reprStore = (x: Store) => `Store(name=${x.name}, store_id=${x.store_id}, score=${f(x.score)}, location=${reprLocation(x.location)}, tags=${pyRepr(x.tags)}), `
  + `products=${x.products.map(reprProduct).join('\n')}`;

export const strShop = (x: Shop) => `Shop(shop_name=${x.shop_name}, shop_id=${x.shop_id}, score=${f(x.score)}, location=${reprLocation(x.location)}, `
  + `tags=${pyRepr(x.tags)}, enable_book=${pyRepr(x.enable_book)}, book_price=${f(x.book_price)}, enable_reservation=${pyRepr(x.enable_reservation)})`;

const ID_FIELD: Record<string, string> = { delivery: 'store_id', instore: 'shop_id', hotel: 'hotel_id', attraction: 'attraction_id', flight: 'flight_id', train: 'train_id' };

const optS = (v: unknown) => s(v ?? null);
const optF = (v: number | null) => (v === null ? 'None' : f(v));

export function strOrder(o: Order): string {
  return `Order(order_id:${o.order_id}, order_type:${o.order_type}, user_id:${o.user_id}, ${ID_FIELD[o.order_type]}:${o.store_id}, `
    + `total_price:${f(o.total_price)}, create_time:${o.create_time}, update_time:${o.update_time}, status:${s(o.status)}, `;
}

export function reprOrder(o: Order): string {
  const head = `Order(order_id:${o.order_id}, order_type:${o.order_type}, user_id:${o.user_id}, ${ID_FIELD[o.order_type]}:${o.store_id}, `;
  const products = `products:${reprValue(o.products)})`;
  if (o.order_type === 'delivery') {
    return `${head}dispatch_time:${optS(o.dispatch_time)}, shipping_time:${optF(o.shipping_time)}, delivery_time:${optS(o.delivery_time)}, `
      + `total_price:${f(o.total_price)}, create_time:${o.create_time}, update_time:${o.update_time}, note:${optS(o.note)}, status:${s(o.status)}, ${products}`;
  }
  return `${head}total_price:${f(o.total_price)}, create_time:${o.create_time}, update_time:${o.update_time}, status:${s(o.status)}, ${products}`;
}

// The reference's BookInfo/ReservationInfo reprs have no space after the first comma and no closing paren.
export const reprBook = (b: BookInfo) => `BookInfo(book_id=${b.book_id},shop_id=${b.shop_id}, book_time=${b.book_time}, customer_id=${b.customer_id}, `
  + `customer_count=${s(b.customer_count)}, book_price=${f(b.book_price)}, status=${s(b.status)}`;

export const reprReservation = (r: ReservationInfo) => `ReservationInfo(reservation_id=${r.reservation_id},shop_id=${r.shop_id}, reservation_time=${r.reservation_time}, `
  + `customer_id=${r.customer_id}, customer_count=${s(r.customer_count)}, status=${s(r.status)}`;

export const reprWeather = (w: Weather) => `city: ${w.city}, weather: ${w.category}, datetime: ${w.datetime}, temperature: ${f(w.temperature[0])}~${f(w.temperature[1])}, humidity: ${f(w.humidity)}`;

// ---------- model_dump() and the canonical hash ----------

const F = (x: number) => new PyFloat(x);
const optFD = (x: number | null) => (x === null ? null : F(x));

export const dumpLocation = (l: Location) => ({ address: l.address, longitude: F(l.longitude), latitude: F(l.latitude) });

export function dumpProduct(p: Product): Record<string, unknown> {
  if (p.kind === 'delivery') {
    return { product_id: p.product_id, price: F(p.price), quantity: p.quantity, name: p.name, store_id: p.store_id, store_name: p.store_name, attributes: p.attributes, tags: [...p.tags] };
  }
  return { product_id: p.product_id, price: F(p.price), quantity: p.quantity, name: p.name, shop_id: p.shop_id, tags: [...p.tags] };
}

const dumpAny = (v: unknown): unknown => (v instanceof StoreProduct || v instanceof ShopProduct ? dumpProduct(v) : Array.isArray(v) ? v.map(dumpAny) : v);

export function dumpOrder(o: Order): Record<string, unknown> {
  return {
    order_id: o.order_id, order_type: o.order_type, user_id: o.user_id, store_id: o.store_id, note: o.note,
    location: o.location ? dumpLocation(o.location) : null, dispatch_time: o.dispatch_time, shipping_time: optFD(o.shipping_time),
    delivery_time: o.delivery_time, total_price: F(o.total_price), create_time: o.create_time, update_time: o.update_time,
    status: o.status, products: o.products.map(dumpAny),
  };
}

export const dumpBook = (b: BookInfo) => ({ book_id: b.book_id, shop_id: b.shop_id, book_time: b.book_time, update_time: b.update_time, customer_id: b.customer_id, customer_count: b.customer_count, book_price: F(b.book_price), status: b.status });
export const dumpReservation = (r: ReservationInfo) => ({ reservation_id: r.reservation_id, shop_id: r.shop_id, reservation_time: r.reservation_time, update_time: r.update_time, customer_id: r.customer_id, customer_count: r.customer_count, status: r.status });

const mapDump = <T>(m: Map<string, T>, each: (x: T) => unknown) => new Map([...m.entries()].map(([k, v]) => [k, each(v)]));

export function dumpDb(db: VitaDB): Map<string, unknown> {
  const out = new Map<string, unknown>([
    ['time', db.time], ['user_id', db.user_id],
    ['weather', db.weather === null ? null : db.weather.map((w) => ({ city: w.city, category: w.category, datetime: w.datetime, temperature: [F(w.temperature[0]), F(w.temperature[1])], humidity: F(w.humidity) }))],
    ['location', db.location === null ? null : db.location.map(dumpLocation)],
    ['user_historical_behaviors', db.user_historical_behaviors],
    ['orders', db.orders === null ? null : mapDump(db.orders, dumpOrder)],
  ]);
  if (db.domain === 'delivery') {
    out.set('stores', mapDump(db.stores, (x) => ({ store_id: x.store_id, name: x.name, score: F(x.score), location: dumpLocation(x.location), tags: [...x.tags], products: x.products.map(dumpProduct) })));
  } else {
    out.set('shops', mapDump(db.shops, (x) => ({
      store_id: x.store_id, shop_id: x.shop_id, shop_name: x.shop_name, score: F(x.score), location: dumpLocation(x.location), tags: [...x.tags],
      enable_book: x.enable_book, book_price: F(x.book_price), enable_reservation: x.enable_reservation, products: x.products.map(dumpProduct),
    })));
    out.set('books', mapDump(db.books, dumpBook));
    out.set('reservations', mapDump(db.reservations, dumpReservation));
  }
  return out;
}

/** json.dumps(db.model_dump(), sort_keys=True, default=str, ensure_ascii=False). */
export const canonicalJson = (db: VitaDB): string => pyJsonDumps(dumpDb(db), { sortKeys: true, ensureAscii: false });

export const dbHash = (db: VitaDB): string => sha256Hex(canonicalJson(db));
