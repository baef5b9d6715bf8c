// Every tool of VitaBench's delivery and in-store toolkits plus the shared ToolKitBase ones, in the
// reference's check order with its messages. There is no argument validation: a tool is called as
// method(**arguments) and whatever Python would do with a wrong type is reproduced for the values
// JSON can carry. Assertions come back as plain text (error=false); other exceptions as "Error: …".

import { PyFloat, pyFloatRepr, pyJsonDumps, pyRepr, pyStr, pyTruthy, pyTypeName } from '../python';
import { sha256Hex } from '../sha256';
import { bindKwargs, dictGet, PyException, pyEquals, pyIter, pyRound, typeError, valueError, type ParamSpec } from '../tau2/py';
import {
  Location, ShopProduct, StoreProduct, reprBook, reprOrder, reprProduct, reprReservation, reprStore, reprWeather, strOrder, strShop, strStore,
  type BookInfo, type Order, type Product, type Registries, type ReservationInfo, type Shop, type Store, type VitaDB,
} from './data_model';
import { extractPartial, rerank, thefuzzRatio } from './fuzz';
import { checkTimeFormat, DATE_FMT, DATETIME_FMT, formatDateTime, fromEpoch, strptime, timegm } from './pytime';

/** A Python AssertionError: the @is_tool wrapper returns its message as a normal result. */
class Assertion extends Error {}

function check(cond: boolean, message: () => string): void {
  if (!cond) throw new Assertion(message());
}

export type ToolKind = 'read' | 'write' | 'generic';

/** A Python float return value; to_json_str turns it into a quoted string. */
export class FloatResult {
  constructor(public readonly value: number) {}
}

type ToolResult = string | FloatResult | number[];

export interface VitaToolContext {
  db: VitaDB;
  reg: Registries;
  /** Read-only table date → holiday name (holidays.China under LANG=C.UTF-8). */
  holidays: ReadonlyMap<string, string>;
  /** Next order-id clock value (the fixtures' pinned clock): consumed once per id. */
  nextTimestamp(): number;
  /** Clock values consumed so far, in order (assignOrderId appends). */
  timestamps: number[];
}

interface ToolDef {
  name: string;
  owner: 'DeliveryTools' | 'InStoreTools' | 'ToolKitBase';
  kind: ToolKind;
  params: ParamSpec[];
  run(c: VitaToolContext, a: Record<string, unknown>): ToolResult;
}

const req = (...names: string[]): ParamSpec[] => names.map((name) => ({ name, required: true }));
const opt = (name: string, dflt: unknown): ParamSpec => ({ name, required: false, default: dflt });

// ---------- Python semantics used by the tools ----------

const num = (v: unknown): number | undefined =>
  v instanceof PyFloat ? v.value : typeof v === 'number' ? v : typeof v === 'boolean' ? Number(v) : undefined;

/** a > b / a >= b / a <= b with Python's TypeError for unordered types (b is a number here). */
function cmp(op: '>' | '>=' | '<=', a: unknown, b: unknown): boolean {
  const x = num(a), y = num(b);
  if (x === undefined || y === undefined) throw typeError(`'${op}' not supported between instances of '${pyTypeName(a)}' and '${pyTypeName(b)}'`);
  return op === '>' ? x > y : op === '>=' ? x >= y : x <= y;
}

function pyLen(v: unknown): number {
  if (typeof v === 'string') return [...v].length;
  if (Array.isArray(v)) return v.length;
  if (v instanceof Map) return v.size;
  if (typeof v === 'object' && v !== null && !(v instanceof PyFloat)) return Object.keys(v).length;
  throw typeError(`object of type '${pyTypeName(v)}' has no len()`);
}

/** "".join(x) */
function pyJoin(v: unknown): string {
  if (v === null || v === undefined || typeof v === 'number' || typeof v === 'boolean' || v instanceof PyFloat) throw typeError('can only join an iterable');
  const items = pyIter(v);
  items.forEach((x, i) => {
    if (typeof x !== 'string') throw typeError(`sequence item ${i}: expected str instance, ${pyTypeName(x)} found`);
  });
  return (items as string[]).join('');
}

/** The rapidfuzz processor rejects anything but a str. */
function fuzzQuery(v: unknown): string {
  if (typeof v !== 'string') throw typeError('sentence must be a String');
  return v;
}

/** math.radians(x) */
function radians(v: unknown): number {
  const x = num(v);
  if (x === undefined) throw typeError(`must be real number, not ${pyTypeName(v)}`);
  return x * (Math.PI / 180);
}

/** x * y for the numeric kinds a tool multiplies (price * count). */
function mul(a: number, b: unknown): number {
  const y = num(b);
  if (y === undefined) throw typeError(`can't multiply sequence by non-int of type 'float'`);
  return a * y;
}

const str = pyStr;
const nowOf = (c: VitaToolContext): string => {
  if (c.db.time === null || c.db.time.length === 0) throw new PyException('RuntimeError', 'the task has no time; the reference would read the wall clock');
  return c.db.time;
};

function assignOrderId(c: VitaToolContext, hashInput: string, prefix: string): string {
  const ts = c.nextTimestamp();
  c.timestamps.push(ts);
  return prefix + sha256Hex(hashInput + pyFloatRepr(ts)).slice(0, 10);
}

// ---------- lookups ----------

function getStore(c: VitaToolContext, id: unknown): Store {
  const s = dictGet(c.db.stores, id);
  if (!s) throw valueError(`Store ${str(id)} not found`);
  return s;
}

function getStoreProduct(c: VitaToolContext, id: unknown): StoreProduct {
  const p = dictGet(c.reg.products, id);
  if (!p) throw valueError(`${str(id)} not found`);
  if (!(p instanceof StoreProduct)) throw valueError(`${str(id)} is not a delivery product`);
  return p;
}

function getShop(c: VitaToolContext, id: unknown): Shop {
  const s = dictGet(c.db.shops, id);
  if (!s) throw valueError(`Shop ${str(id)} does not exist`);
  return s;
}

function getShopProduct(c: VitaToolContext, id: unknown): ShopProduct {
  const p = dictGet(c.reg.products, id);
  if (!p) throw valueError(`Product ${str(id)} does not exist`);
  if (!(p instanceof ShopProduct)) throw valueError(`Product ${str(id)} is not an instore scenario product`);
  return p;
}

const orders = (c: VitaToolContext): Map<string, Order> => {
  if (c.db.orders === null) throw typeError("argument of type 'NoneType' is not iterable");
  return c.db.orders;
};

function getOrderOfType(c: VitaToolContext, id: unknown, type: 'delivery' | 'instore'): Order {
  // _get_*_order(None) returns the list of all orders; the caller then fails on list attributes.
  if (id === null || id === undefined) throw new PyException('AttributeError', "'list' object has no attribute 'status'");
  const o = dictGet(orders(c), id);
  if (!o) throw valueError(`Order ${str(id)} not found`);
  if (o.order_type !== type) throw valueError(`Order ${str(id)} is not ${type === 'delivery' ? 'a delivery' : 'an instore'} order`);
  return o;
}

function getBook(c: VitaToolContext, id: unknown): BookInfo {
  const b = dictGet(c.db.books, id);
  if (!b) throw valueError(`BookInfo ${str(id)} not found`);
  return b;
}

function getReservation(c: VitaToolContext, id: unknown): ReservationInfo {
  const r = dictGet(c.db.reservations, id);
  if (!r) throw valueError(`ReservationInfo ${str(id)} not found`);
  return r;
}

const checkUser = (c: VitaToolContext, userId: unknown) => userId === c.db.user_id;

function assertUser(c: VitaToolContext, userId: unknown): void {
  check(pyTruthy(userId), () => 'User ID cannot be empty');
  check(checkUser(c, userId), () => 'User ID does not match');
}

/** pydantic int field (lax): ints, bools and integral floats pass; anything else fails validation. */
function intField(model: string, field: string, v: unknown): number {
  if (typeof v === 'boolean') return Number(v);
  const x = num(v);
  if (x !== undefined && Number.isInteger(x)) return x;
  const shown = pyRepr(v);
  const [type, msg] = x !== undefined
    ? ['int_from_float', 'Input should be a valid integer, got a number with a fractional part']
    : typeof v === 'string' ? ['int_parsing', 'Input should be a valid integer, unable to parse string as an integer'] : ['int_type', 'Input should be a valid integer'];
  throw new PyException('ValidationError', `1 validation error for ${model}\n${field}\n  ${msg} [type=${type}, input_value=${shown}, input_type=${pyTypeName(v)}]\n    For further information visit https://errors.pydantic.dev/2.13/v/${type}`);
}

function strField(model: string, field: string, v: unknown, optional: boolean): void {
  if (typeof v === 'string' || (optional && (v === null || v === undefined))) return;
  throw new PyException('ValidationError', `1 validation error for ${model}\n${field}\n  Input should be a valid string [type=string_type, input_value=${pyRepr(v)}, input_type=${pyTypeName(v)}]\n    For further information visit https://errors.pydantic.dev/2.13/v/string_type`);
}

// ---------- generic tools (ToolKitBase) ----------

function distance(l1: unknown, a1: unknown, l2: unknown, a2: unknown): number {
  if (pyEquals(l1, l2) && pyEquals(a1, a2)) return 0;
  const [lon1, lat1, lon2, lat2] = [radians(l1), radians(a1), radians(l2), radians(a2)];
  const sdlat = Math.sin((lat2 - lat1) / 2), sdlon = Math.sin((lon2 - lon1) / 2);
  const a = sdlat * sdlat + Math.cos(lat1) * Math.cos(lat2) * sdlon * sdlon;
  return pyRound(6371000 * (2 * Math.asin(Math.sqrt(a))), 0);
}

function addressToLngLat(c: VitaToolContext, address: unknown): [number, number] {
  const q = fuzzQuery(address);
  const keys = [...c.reg.locations.keys()];
  const best = rerank(q, keys.map((k) => [k, k]))[0];
  if (!best) throw new PyException('IndexError', 'list index out of range');
  if (best.score < 30 || thefuzzRatio(q, best.id) < 20) throw valueError(`Longitude and latitude not found for address ${q}`);
  const l = c.reg.locations.get(best.id)!;
  return [l.longitude, l.latitude];
}

const HOLIDAYS_BY_YEAR: Record<string, [string, string][]> = {
  2025: [["New Year's Day", '2025-01-01'], ['Start of Autumn', '2025-08-07'], ["Women's Day", '2025-03-08'], ['Laba Festival', '2025-01-07'],
    ['Dragon Head Festival', '2025-03-01'], ['Party Founding Day', '2025-07-01'], ['Qingming Festival', '2025-04-04'], ['Double Ninth Festival', '2025-10-29'],
    ['Dragon Boat Festival', '2025-05-31'], ["Mother's Day", '2025-05-11'], ['Lantern Festival', '2025-02-15'], ['Labor Day', '2025-05-01'],
    ['Qixi Festival', '2025-08-29'], ['Winter Solstice', '2025-12-21'], ['Christmas Day', '2025-12-25'], ['National Day', '2025-10-01'], ['Mid-Autumn Festival', '2025-10-06']],
  2024: [['Double Ninth Festival', '2024-10-11'], ['Qixi Festival', '2024-08-10'], ["Valentine's Day", '2024-02-14'], ['Qingming Festival', '2024-04-04'],
    ['Dragon Boat Festival', '2024-06-10'], ['Lantern Festival', '2024-02-24'], ['Mid-Autumn Festival', '2024-09-17']],
  2023: [['National Day', '2023-10-01'], ['Dragon Boat Festival', '2023-06-22'], ['Mid-Autumn Festival', '2023-09-29'], ['Qingming Festival', '2023-04-05'],
    ['Double Ninth Festival', '2023-10-23'], ["Father's Day", '2023-06-18']],
};

function nearby(c: VitaToolContext, lon: unknown, lat: unknown, range: unknown): string {
  const out: string[] = [];
  for (const st of c.db.domain === 'delivery' ? c.db.stores.values() : []) {
    if (cmp('<=', new PyFloat(distance(lon, lat, st.location.longitude, st.location.latitude)), range)) out.push(strStore(st));
  }
  for (const sh of c.db.domain === 'instore' ? c.db.shops.values() : []) {
    if (cmp('<=', new PyFloat(distance(lon, lat, sh.location.longitude, sh.location.latitude)), range)) out.push(strShop(sh));
  }
  return out.length ? out.join('\n') : 'No search results found';
}

const GENERIC: ToolDef[] = [
  {
    name: 'longitude_latitude_to_distance', owner: 'ToolKitBase', kind: 'generic', params: req('longitude1', 'latitude1', 'longitude2', 'latitude2'),
    run: (_c, a) => new FloatResult(distance(a.longitude1, a.latitude1, a.longitude2, a.latitude2)),
  },
  {
    name: 'weather', owner: 'ToolKitBase', kind: 'generic', params: req('address', 'date_start', 'date_end'),
    run: (c, a) => {
      check(checkTimeFormat(a.date_start, DATE_FMT), () => `Invalid date_start format. Expected yyyy-mm-dd, got: ${str(a.date_start)}`);
      check(checkTimeFormat(a.date_end, DATE_FMT), () => `Invalid date_end format. Expected yyyy-mm-dd, got: ${str(a.date_end)}`);
      if (c.db.weather === null) throw typeError("'NoneType' object is not iterable");
      const cities = [...new Set(c.db.weather.map((w) => w.city))];
      const best = rerank(fuzzQuery(a.address), cities.map((x) => [x, x]))[0];
      if (!best) throw new PyException('IndexError', 'list index out of range');
      if (best.score < 50) throw valueError(`Weather information not found for ${str(a.address)}`);
      const start = timegm(strptime(a.date_start, DATE_FMT)), end = timegm(strptime(a.date_end, DATE_FMT));
      const hits = c.db.weather.filter((w) => {
        if (w.city !== best.id) return false;
        const t = timegm(strptime(w.datetime, DATE_FMT));
        return start <= t && t <= end;
      });
      if (!hits.length) return `No weather information found for ${best.id} between ${str(a.date_start)} and ${str(a.date_end)}`;
      return hits.sort((x, y) => (x.datetime < y.datetime ? -1 : x.datetime > y.datetime ? 1 : 0)).map(reprWeather).join('\n');
    },
  },
  { name: 'address_to_longitude_latitude', owner: 'ToolKitBase', kind: 'generic', params: req('address'), run: (c, a) => addressToLngLat(c, a.address) },
  {
    name: 'get_date_holiday_info', owner: 'ToolKitBase', kind: 'generic', params: req('date'),
    run: (c, a) => {
      check(checkTimeFormat(a.date, DATE_FMT), () => `Date format error, should be yyyy-mm-dd, actual: ${str(a.date)}`);
      const t = strptime(a.date, DATE_FMT);
      const key = `${String(t.y).padStart(4, '0')}-${String(t.mo).padStart(2, '0')}-${String(t.d).padStart(2, '0')}`;
      return c.holidays.get(key) ?? `Date ${str(a.date)} is not a holiday`;
    },
  },
  {
    name: 'get_holiday_date', owner: 'ToolKitBase', kind: 'generic', params: req('year', 'holiday_name'),
    run: (_c, a) => {
      if (Array.isArray(a.year) || (typeof a.year === 'object' && a.year !== null && !(a.year instanceof PyFloat))) throw typeError(`unhashable type: '${pyTypeName(a.year)}'`);
      const table = typeof a.year === 'string' && Object.prototype.hasOwnProperty.call(HOLIDAYS_BY_YEAR, a.year) ? HOLIDAYS_BY_YEAR[a.year] : undefined;
      if (!table) return `Holiday data for year ${str(a.year)} not found`;
      const best = extractPartial(fuzzQuery(a.holiday_name), table.map(([n]) => n))[0];
      if (best && best.score >= 80) return table[best.index][1];
      return `Holiday named '${str(a.holiday_name)}' not found in year ${str(a.year)}`;
    },
  },
  { name: 'get_user_historical_behaviors', owner: 'ToolKitBase', kind: 'read', params: [], run: (c) => pyRepr(c.db.user_historical_behaviors) },
  {
    name: 'get_user_all_orders', owner: 'ToolKitBase', kind: 'read', params: [],
    run: (c) => (c.db.orders === null ? 'User currently has no order information' : [...c.db.orders.values()].map(reprOrder).join('\n')),
  },
  { name: 'get_nearby', owner: 'ToolKitBase', kind: 'read', params: req('longitude', 'latitude', 'range'), run: (c, a) => nearby(c, a.longitude, a.latitude, a.range) },
];

// ---------- delivery ----------

function createDeliveryOrder(c: VitaToolContext, a: Record<string, unknown>): string {
  assertUser(c, a.user_id);
  check(dictGet(c.db.stores, a.store_id) !== undefined, () => `Store ${str(a.store_id)} not found`);
  for (const id of pyIter(a.product_ids)) getStoreProduct(c, id);
  check(!pyEquals(a.address, ''), () => `Location ${str(a.address)} is empty`);
  const lenOk = pyLen(a.product_ids) === pyLen(a.product_cnts);
  check(lenOk && pyIter(a.product_cnts).map((n) => cmp('>', n, 0)).every(Boolean), () => `product_cnts ${str(a.product_cnts)} list is invalid`);
  check(pyTruthy(a.dispatch_time) && checkTimeFormat(a.dispatch_time), () => `dispatch_time ${str(a.dispatch_time)} time format is invalid, yyyy-mm-dd HH:MM:SS required`);
  const dispatch = strptime(a.dispatch_time, DATETIME_FMT);
  const now = nowOf(c);
  check(timegm(dispatch) >= timegm(strptime(now, DATETIME_FMT)), () => `dispatch_time ${str(a.dispatch_time)} must be in the future`);
  const products = pyIter(a.product_ids).map((id) => getStoreProduct(c, id));
  const cnts = pyIter(a.product_cnts);
  const store = getStore(c, a.store_id);
  const [lon, lat] = addressToLngLat(c, a.address);
  const dist = distance(lon, lat, store.location.longitude, store.location.latitude);
  const shipping = pyRound(25 + Math.trunc(dist) * 0.00651, 0);
  const delivery = formatDateTime(fromEpoch(timegm(dispatch) + shipping * 60));
  const total = products.reduce((acc, p, i) => acc + mul(p.price, cnts[i]), 0);
  const attrs = a.attributes === null || a.attributes === undefined ? [] : a.attributes;
  let given: unknown[];
  if (typeof attrs === 'string') given = [...attrs];
  else if (Array.isArray(attrs)) given = attrs;
  else throw typeError(`'${pyTypeName(attrs)}' object is not subscriptable`);
  const attributeList: unknown[] = products.map((_, i) => (i < given.length && pyTruthy(given[i]) ? given[i] : ''));
  const copies = products.map((p, i) => {
    const quantity = intField('StoreProduct', 'quantity', cnts[i]);
    const at = attributeList[i];
    let attributes: string;
    if (typeof at === 'string') attributes = at;
    else if (Array.isArray(at) && at.every((x) => typeof x === 'string')) attributes = at.join(', ');
    else throw new PyException('ValidationError', `1 validation error for StoreProduct\nattributes\n  Input should be a valid string [type=string_type, input_value=${pyRepr(at)}, input_type=${pyTypeName(at)}]`);
    const copy = new StoreProduct(p.product_id, p.price, quantity, p.name, p.store_id, p.store_name, attributes, [...p.tags]);
    c.reg.products.set(copy.product_id, copy);
    return copy;
  });
  const orderId = assignOrderId(c, `#DELIVERY#${a.user_id as string}`, 'OT');
  const address = a.address as string;
  const location = new Location(address, lon, lat);
  c.reg.locations.set(address, location);
  strField('Order', 'note', a.note, true);
  const order: Order = {
    order_id: orderId, order_type: 'delivery', user_id: a.user_id as string, store_id: a.store_id as string, note: a.note ?? null,
    location, dispatch_time: a.dispatch_time as string, shipping_time: shipping, delivery_time: delivery, total_price: total,
    create_time: now, update_time: now, status: 'unpaid', products: copies,
  };
  if (orders(c).has(orderId)) return 'Order already exists';
  orders(c).set(orderId, order);
  return reprOrder(order);
}

const DELIVERY: ToolDef[] = [
  {
    name: 'delivery_distance_to_time', owner: 'DeliveryTools', kind: 'generic', params: req('distance'),
    run: (_c, a) => {
      const d = a.distance;
      check(typeof d === 'number' || typeof d === 'boolean' || d instanceof PyFloat, () => `distance value type should be float or int, but get <class '${pyTypeName(d)}'>`);
      const x = num(d)!;
      if (!Number.isFinite(x)) throw new PyException(Number.isNaN(x) ? 'ValueError' : 'OverflowError', Number.isNaN(x) ? 'cannot convert float NaN to integer' : 'cannot convert float infinity to integer');
      return new FloatResult(pyRound(25 + Math.trunc(x) * 0.00651, 0));
    },
  },
  { name: 'get_delivery_store_info', owner: 'DeliveryTools', kind: 'read', params: req('store_id'), run: (c, a) => reprStore(getStore(c, a.store_id)) },
  { name: 'get_delivery_product_info', owner: 'DeliveryTools', kind: 'read', params: req('product_id'), run: (c, a) => reprProduct(getStoreProduct(c, a.product_id)) },
  {
    name: 'delivery_store_search_recommand', owner: 'DeliveryTools', kind: 'read', params: req('keywords'),
    run: (c, a) => {
      const q = pyJoin(a.keywords);
      const docs: [string, string][] = [...c.db.stores.values()].map((st) => [st.store_id, st.name + st.tags.join(',')]);
      return rerank(q, docs).slice(0, 100).map((r) => strStore(getStore(c, r.id))).join('\n');
    },
  },
  {
    name: 'delivery_product_search_recommand', owner: 'DeliveryTools', kind: 'read', params: req('keywords'),
    run: (c, a) => {
      const q = pyJoin(a.keywords);
      const docs: [string, string][] = [];
      for (const p of c.reg.products.values()) if (p instanceof StoreProduct) docs.push([p.product_id, `${p.store_name} ${p.name} ${pyRepr(p.tags)}`]);
      return rerank(q, docs).slice(0, 100).map((r) => reprProduct(getStoreProduct(c, r.id))).join('\n');
    },
  },
  {
    name: 'create_delivery_order', owner: 'DeliveryTools', kind: 'write',
    params: [...req('user_id', 'store_id', 'product_ids', 'product_cnts', 'address', 'dispatch_time'), opt('attributes', null), opt('note', '')],
    run: createDeliveryOrder,
  },
  {
    name: 'pay_delivery_order', owner: 'DeliveryTools', kind: 'write', params: req('order_id'),
    run: (c, a) => {
      const o = getOrderOfType(c, a.order_id, 'delivery');
      if (o.status !== 'unpaid') return 'Order is not in `unpaid` status.';
      o.status = 'paid';
      return 'Payment successful';
    },
  },
  { name: 'get_delivery_order_status', owner: 'DeliveryTools', kind: 'read', params: req('order_id'), run: (c, a) => getOrderOfType(c, a.order_id, 'delivery').status },
  {
    name: 'cancel_delivery_order', owner: 'DeliveryTools', kind: 'write', params: req('order_id'),
    run: (c, a) => {
      const o = getOrderOfType(c, a.order_id, 'delivery');
      check(o.status !== 'cancelled', () => `Order ${str(a.order_id)} is already cancelled`);
      o.status = 'cancelled';
      return `Order ${o.order_id} has been cancelled.`;
    },
  },
  {
    name: 'modify_delivery_order', owner: 'DeliveryTools', kind: 'write', params: req('order_id', 'note'),
    run: (c, a) => {
      const o = getOrderOfType(c, a.order_id, 'delivery');
      o.note = a.note;
      return `Order ${o.order_id} has been modified.`;
    },
  },
  {
    name: 'search_delivery_orders', owner: 'DeliveryTools', kind: 'read', params: [...req('user_id'), opt('status', 'unpaid')],
    run: (c, a) => {
      assertUser(c, a.user_id);
      const hits = [...orders(c).values()].filter((o) => o.order_type === 'delivery' && o.status === a.status && o.user_id === a.user_id);
      return hits.length ? hits.map(strOrder).join('\n') : 'No delivery orders available';
    },
  },
  {
    name: 'get_delivery_order_detail', owner: 'DeliveryTools', kind: 'read', params: req('order_id'),
    run: (c, a) => {
      check(pyTruthy(a.order_id), () => 'Order ID cannot be empty');
      return reprOrder(getOrderOfType(c, a.order_id, 'delivery'));
    },
  },
];

// ---------- in-store ----------

function userRecords<T extends { customer_id: string }>(records: Iterable<T>, userId: unknown): T[] {
  return [...records].filter((r) => r.customer_id === userId);
}

const INSTORE: ToolDef[] = [
  {
    name: 'instore_shop_search_recommend', owner: 'InStoreTools', kind: 'read', params: req('keywords'),
    run: (c, a) => {
      const q = pyJoin(a.keywords);
      const docs: [string, string][] = [...c.db.shops.values()].map((sh) => [sh.shop_id, `${sh.shop_name},${sh.tags.join(',')}`]);
      return rerank(q, docs).slice(0, 1000).map((r) => strShop(getShop(c, r.id))).join('\n');
    },
  },
  {
    name: 'instore_product_search_recommend', owner: 'InStoreTools', kind: 'read', params: req('keywords'),
    run: (c, a) => {
      const q = pyJoin(a.keywords);
      const docs: [string, string][] = [];
      for (const [id, p] of c.reg.products) if (p instanceof ShopProduct) docs.push([id, `${p.name},${p.tags.join(',')}`]);
      return rerank(q, docs).slice(0, 1000).map((r) => reprProduct(getShopProduct(c, r.id))).join('\n');
    },
  },
  {
    name: 'create_instore_product_order', owner: 'InStoreTools', kind: 'write', params: [...req('user_id', 'shop_id', 'product_id'), opt('quantity', 1)],
    run: (c, a) => {
      assertUser(c, a.user_id);
      check(dictGet(c.db.shops, a.shop_id) !== undefined, () => 'Shop does not exist');
      check(getShop(c, a.shop_id).products.some((p) => pyEquals(a.product_id, p.product_id) && typeof a.product_id === 'string'), () => 'Product does not exist');
      check(cmp('>', a.quantity, 0), () => 'Quantity must be greater than 0');
      const product = getShopProduct(c, a.product_id);
      product.quantity = a.quantity;
      const now = nowOf(c);
      const order: Order = {
        order_id: assignOrderId(c, '#INSTORE#', 'OI'), order_type: 'instore', user_id: a.user_id as string, store_id: a.shop_id as string,
        note: '', location: null, dispatch_time: '', shipping_time: 0, delivery_time: '', total_price: num(a.quantity)! * product.price,
        create_time: now, update_time: now, status: 'unpaid', products: [product],
      };
      if (orders(c).has(order.order_id)) return 'Order already exists';
      orders(c).set(order.order_id, order);
      return reprOrder(order);
    },
  },
  {
    name: 'pay_instore_order', owner: 'InStoreTools', kind: 'write', params: req('order_id'),
    run: (c, a) => {
      check(pyTruthy(a.order_id), () => 'Order ID cannot be empty');
      const o = getOrderOfType(c, a.order_id, 'instore');
      if (o.status !== 'unpaid') return `Order ${str(a.order_id)} is not in \`unpaid\` status.`;
      o.status = 'paid';
      o.update_time = nowOf(c);
      return 'Payment successful';
    },
  },
  {
    name: 'instore_cancel_order', owner: 'InStoreTools', kind: 'write', params: req('order_id'),
    run: (c, a) => {
      check(pyTruthy(a.order_id), () => 'Order ID cannot be empty');
      const o = getOrderOfType(c, a.order_id, 'instore');
      if (o.status === 'cancelled') return `Order ${o.order_id} is already cancelled.`;
      o.status = 'cancelled';
      o.update_time = nowOf(c);
      return `Order ${o.order_id} is cancelled.`;
    },
  },
  {
    name: 'instore_book', owner: 'InStoreTools', kind: 'write', params: [...req('user_id', 'shop_id', 'time'), opt('customer_count', 1)],
    run: (c, a) => {
      assertUser(c, a.user_id);
      check(dictGet(c.db.shops, a.shop_id) !== undefined, () => 'Shop does not exist');
      check(cmp('>', a.customer_count, 0), () => 'Number of customers for table booking must be greater than 0');
      check(pyTruthy(a.time), () => 'Table booking time cannot be empty');
      check(checkTimeFormat(a.time, DATETIME_FMT), () => 'Table booking time format is incorrect, correct format is %Y-%m-%d %H:%M:%S');
      const shop = getShop(c, a.shop_id);
      check(shop.enable_book, () => 'Shop does not support table booking');
      const book: BookInfo = {
        book_id: assignOrderId(c, '#INSTORE_BOOK#', 'OI'), shop_id: shop.shop_id, book_time: a.time as string, update_time: nowOf(c),
        customer_id: a.user_id as string, customer_count: intField('BookInfo', 'customer_count', a.customer_count), book_price: shop.book_price,
        status: shop.book_price > 0 ? 'unpaid' : 'paid',
      };
      if (c.db.books.has(book.book_id)) return 'BookInfo already exists';
      c.db.books.set(book.book_id, book);
      return reprBook(book);
    },
  },
  {
    name: 'pay_instore_book', owner: 'InStoreTools', kind: 'write', params: req('book_id'),
    run: (c, a) => {
      check(pyTruthy(a.book_id), () => 'Booking ID cannot be empty');
      const b = getBook(c, a.book_id);
      if (b.status !== 'unpaid') return `BookInfo ${b.book_id} is not in \`unpaid\` status.`;
      b.status = 'paid';
      b.update_time = nowOf(c);
      return 'Payment successful';
    },
  },
  {
    name: 'instore_cancel_book', owner: 'InStoreTools', kind: 'write', params: req('book_id'),
    run: (c, a) => {
      check(pyTruthy(a.book_id), () => 'Booking ID cannot be empty');
      const b = getBook(c, a.book_id);
      if (b.status === 'cancelled') return `BookInfo ${b.book_id} is already cancelled.`;
      b.status = 'cancelled';
      b.update_time = nowOf(c);
      return `BookInfo ${b.book_id} is cancelled.`;
    },
  },
  {
    name: 'instore_reservation', owner: 'InStoreTools', kind: 'write', params: [...req('user_id', 'shop_id', 'time'), opt('customer_count', 1)],
    run: (c, a) => {
      assertUser(c, a.user_id);
      check(dictGet(c.db.shops, a.shop_id) !== undefined, () => 'Shop does not exist');
      check(checkTimeFormat(a.time, DATETIME_FMT), () => 'Reservation time format is incorrect, correct format is %Y-%m-%d %H:%M:%S');
      check(cmp('>', a.customer_count, 0), () => 'Number of customers for reservation must be greater than 0');
      const r: ReservationInfo = {
        reservation_id: assignOrderId(c, '#INSTORE_RESV#', 'OI'), shop_id: a.shop_id as string, reservation_time: a.time as string,
        customer_id: a.user_id as string, customer_count: intField('ReservationInfo', 'customer_count', a.customer_count), status: 'unconsumed', update_time: nowOf(c),
      };
      if (c.db.reservations.has(r.reservation_id)) return 'ReservationInfo already exists';
      c.db.reservations.set(r.reservation_id, r);
      return reprReservation(r);
    },
  },
  {
    name: 'instore_modify_reservation', owner: 'InStoreTools', kind: 'write', params: [...req('reservation_id', 'time'), opt('customer_count', 0)],
    run: (c, a) => {
      check(pyTruthy(a.reservation_id), () => 'Reservation ID cannot be empty');
      const r = getReservation(c, a.reservation_id);
      if (r.status === 'consumed' || r.status === 'cancelled') return `ReservationInfo ${r.reservation_id} is already ${r.status}.`;
      check(cmp('>=', a.customer_count, 0), () => 'Number of customers for reservation must be greater than or equal to 0');
      check(pyTruthy(a.time), () => 'Reservation time cannot be empty');
      check(checkTimeFormat(a.time, DATETIME_FMT), () => 'Reservation time format is incorrect, correct format is %Y-%m-%d %H:%M:%S');
      r.reservation_time = a.time as string;
      r.customer_count = a.customer_count;
      r.update_time = nowOf(c);
      return reprReservation(r);
    },
  },
  {
    name: 'instore_cancel_reservation', owner: 'InStoreTools', kind: 'write', params: req('reservation_id'),
    run: (c, a) => {
      check(pyTruthy(a.reservation_id), () => 'Reservation ID cannot be empty');
      const r = getReservation(c, a.reservation_id);
      if (r.status === 'cancelled') return `ReservationInfo ${r.reservation_id} is already cancelled.`;
      r.status = 'cancelled';
      r.update_time = nowOf(c);
      return `ReservationInfo ${r.reservation_id} is cancelled.`;
    },
  },
  {
    name: 'get_instore_orders', owner: 'InStoreTools', kind: 'read', params: req('user_id'),
    run: (c, a) => {
      assertUser(c, a.user_id);
      const hits = [...orders(c).values()].filter((o) => o.order_type === 'instore' && o.user_id === a.user_id);
      return hits.length ? hits.map(reprOrder).join('\n') : `User ${str(a.user_id)} has no order information.`;
    },
  },
  {
    name: 'get_instore_reservations', owner: 'InStoreTools', kind: 'read', params: req('user_id'),
    run: (c, a) => {
      assertUser(c, a.user_id);
      const hits = userRecords(c.db.reservations.values(), a.user_id);
      return hits.length ? hits.map(reprReservation).join('\n') : `User ${str(a.user_id)} has no reservation information.`;
    },
  },
  {
    name: 'get_instore_books', owner: 'InStoreTools', kind: 'read', params: req('user_id'),
    run: (c, a) => {
      assertUser(c, a.user_id);
      const hits = userRecords(c.db.books.values(), a.user_id);
      return hits.length ? hits.map(reprBook).join('\n') : `User ${str(a.user_id)} has no book information.`;
    },
  },
  {
    name: 'search_instore_book', owner: 'InStoreTools', kind: 'read', params: [...req('user_id'), opt('book_id', null)],
    run: (c, a) => {
      assertUser(c, a.user_id);
      if (a.book_id === null || a.book_id === undefined) {
        const hits = userRecords(c.db.books.values(), a.user_id);
        return hits.length ? hits.map(reprBook).join('\n') : `User ${str(a.user_id)} has no book information.`;
      }
      const b = getBook(c, a.book_id);
      return b.customer_id !== a.user_id ? `BookInfo ${str(a.book_id)} is not belong to user ${str(a.user_id)}.` : reprBook(b);
    },
  },
  {
    name: 'search_instore_reservation', owner: 'InStoreTools', kind: 'read', params: [...req('user_id'), opt('reservation_id', null)],
    run: (c, a) => {
      assertUser(c, a.user_id);
      if (a.reservation_id === null || a.reservation_id === undefined) {
        const hits = userRecords(c.db.reservations.values(), a.user_id);
        return hits.length ? hits.map(reprReservation).join('\n') : `User ${str(a.user_id)} has no reservation information.`;
      }
      const r = getReservation(c, a.reservation_id);
      return r.customer_id !== a.user_id ? `ReservationInfo ${str(a.reservation_id)} is not belong to user ${str(a.user_id)}.` : reprReservation(r);
    },
  },
];

/** The toolkit's tools by name: the domain class's first, then ToolKitBase's. */
export function toolkit(domain: 'delivery' | 'instore'): Map<string, ToolDef> {
  return new Map([...(domain === 'delivery' ? DELIVERY : INSTORE), ...GENERIC].map((t) => [t.name, t]));
}

export interface VitaToolMessage { id: string; name: string; role: 'tool'; content: string; requestor: 'assistant' | 'user'; error: boolean }

/** Environment.to_json_str: str as is, a float as json.dumps(str(x)), a list of floats as a JSON list of str. */
function toJsonStr(r: ToolResult): string {
  if (typeof r === 'string') return r;
  if (r instanceof FloatResult) return pyJsonDumps(pyStr(new PyFloat(r.value)), { ensureAscii: false });
  return pyJsonDumps(r.map((x) => pyStr(new PyFloat(x))), { ensureAscii: false });
}

export type CallOutcome = 'ok' | 'assertion' | 'exception';

/** Environment.get_response for one tool call. */
export function callTool(
  tools: Map<string, ToolDef>, c: VitaToolContext, call: { id: string; name: string; arguments: unknown; requestor?: 'assistant' | 'user' },
): { message: VitaToolMessage; outcome: CallOutcome; exceptionType: string | null } {
  const reply = (content: string, error: boolean, outcome: CallOutcome, exceptionType: string | null) => ({
    message: { id: call.id, name: call.name, role: 'tool' as const, content, requestor: call.requestor ?? 'assistant', error }, outcome, exceptionType,
  });
  const tool = tools.get(call.name);
  if (!tool) return reply(`Error: Tool '${call.name}' not found.`, true, 'exception', 'ValueError');
  const qualname = `${tool.owner}.${tool.name}`;
  const bound = bindKwargs(qualname, tool.params, call.arguments);
  if (!bound.ok) return reply(`Error: ${bound.message}`, true, 'exception', 'TypeError');
  try {
    return reply(toJsonStr(tool.run(c, bound.args)), false, 'ok', null);
  } catch (e) {
    if (e instanceof Assertion) return reply(e.message, false, 'assertion', 'AssertionError');
    if (e instanceof PyException) return reply(`Error: ${e.message}`, true, 'exception', e.pyType);
    throw e;
  }
}

export const toolKinds = (domain: 'delivery' | 'instore'): Map<string, ToolKind> => new Map([...toolkit(domain)].map(([n, t]) => [n, t.kind]));

/** The pinned order-id clock of the fixtures: the k-th id uses timegm(db.time as UTC) + 0.5 + k. */
export function pinnedClock(dbTime: string | null): () => number {
  const base = dbTime ? timegm(strptime(dbTime, DATETIME_FMT)) + 0.5 : 0.5;
  let k = 0;
  return () => base + k++;
}

export type { Product };
