// BFCL's TravelAPI (travel booking, cards, insurance) ported to TypeScript with the same results and
// state. long_context=True needs BFCL's long_context.py extension data, which is not ported.

import { PyFloat, pyRepr, pyStr } from '../../python';
import { BfclPyError, registerBackend } from '../backend';
import { localToday, strptime } from '../datetime';
import { PyRandom } from '../pyrandom';
import {
  MethodSpec, PyBackend, PyMap, cfg, configMap, dictGet, dictHas, getItem, opt, pyAdd, pyCmp, pyEq,
  pyFloatOf, pyIn, pyIter, pyKey, pyMul, pyRound, pySub, pyTrueDiv, req, seedOf, setItem, strMethod, toPy, valueError,
} from '../pyops';

const DEFAULT_SEED = 141053;

// Base fares in BFCL's dict order: FROM-TO:usd.
const ROUTE_TEXT = [
  'SFO-LAX:200 SFO-JFK:500 SFO-ORD:400 SFO-BOS:450 SFO-RMS:300 SFO-SBK:350 SFO-MPC:370 SFO-SVP:320 SFO-SHD:330 SFO-SSV:340',
  'SFO-OKD:360 SFO-WLB:310 SFO-CRH:380 SFO-ATV:390 SFO-PHV:420 SFO-GFD:430 SFO-CIA:700 LAX-SFO:100 LAX-JFK:600 LAX-ORD:500',
  'LAX-BOS:550 LAX-RMS:310 LAX-SBK:320 LAX-MPC:330 LAX-SVP:340 LAX-SHD:350 LAX-SSV:360 LAX-OKD:370 LAX-WLB:380 LAX-CRH:390',
  'LAX-ATV:400 LAX-PHV:410 LAX-GFD:420 LAX-HND:430 JFK-ORD:300 JFK-BOS:250 JFK-RMS:450 JFK-SBK:460 JFK-MPC:470 JFK-SVP:480',
  'JFK-SHD:490 JFK-SSV:500 JFK-OKD:510 JFK-WLB:520 JFK-CRH:530 JFK-ATV:540 JFK-PHV:550 JFK-GFD:560 JFK-LAX:570 JFK-HND:800',
  'JFK-PVG:950 JFK-PEK:1000 ORD-LAX:180 ORD-BOS:200 ORD-RMS:350 ORD-SBK:360 ORD-MPC:370 ORD-SVP:380 ORD-SHD:390 ORD-SSV:400',
  'ORD-OKD:410 ORD-WLB:420 ORD-CRH:430 ORD-ATV:440 ORD-PHV:450 ORD-GFD:460 BOS-RMS:400 BOS-SBK:410 BOS-MPC:420 BOS-SVP:430',
  'BOS-SHD:440 BOS-SSV:450 BOS-OKD:460 BOS-WLB:470 BOS-CRH:480 BOS-ATV:490 BOS-PHV:500 BOS-GFD:510 RMS-BOS:200 RMS-JFK:210',
  'RMS-SBK:220 RMS-MPC:230 RMS-SVP:240 RMS-SHD:250 RMS-SSV:260 RMS-OKD:270 RMS-WLB:280 RMS-CRH:290 RMS-ATV:300 RMS-PHV:310',
  'RMS-GFD:320 RMS-LAX:330 SBK-MPC:200 SBK-SVP:210 SBK-SHD:220 SBK-SSV:230 SBK-OKD:240 SBK-WLB:250 SBK-CRH:260 SBK-ATV:270',
  'SBK-PHV:280 SBK-GFD:290 MPC-SVP:210 MPC-SHD:220 MPC-SSV:230 MPC-OKD:240 MPC-WLB:250 MPC-CRH:260 MPC-ATV:270 MPC-PHV:280',
  'MPC-GFD:290 SVP-SHD:230 SVP-SSV:240 SVP-OKD:250 SVP-WLB:260 SVP-CRH:270 SVP-ATV:280 SVP-PHV:290 SVP-GFD:300 SHD-SSV:220',
  'SHD-OKD:230 SHD-WLB:240 SHD-CRH:250 SHD-ATV:260 SHD-PHV:270 SHD-GFD:280 SSV-OKD:240 SSV-WLB:250 SSV-CRH:260 SSV-ATV:270',
  'SSV-PHV:280 SSV-GFD:290 OKD-WLB:230 OKD-CRH:240 OKD-ATV:250 OKD-PHV:260 OKD-GFD:270 WLB-CRH:250 WLB-ATV:260 WLB-PHV:270',
  'WLB-GFD:280 CRH-ATV:240 CRH-PHV:250 CRH-GFD:260 CRH-SFO:270 CRH-RMS:280 CRH-HKG:290 CRH-JFK:300 ATV-PHV:230 ATV-GFD:240',
  'PHV-GFD:220 LHR-CDG:100 OKD-LAX:220',
].join(' ');

const BASE_COSTS: Map<string, number> = new Map(ROUTE_TEXT.split(' ').map((item) => {
  const [pair, cost] = item.split(':');
  return [pair.replace('-', '|'), Number(cost)];
}));

const AIRPORTS = ['RMS', 'SBK', 'MPC', 'SVP', 'SHD', 'CDG', 'LHR', 'SSV', 'OKD', 'WLB', 'PEK', 'HND', 'HKG', 'CIA',
  'CRH', 'ATV', 'PHV', 'GFD', 'SFO', 'LAX', 'JFK', 'ORD', 'BOS'];

const CITY_AIRPORTS: Map<string, string> = new Map([
  ['Rivermist', 'RMS'], ['Stonebrook', 'SBK'], ['Maplecrest', 'MPC'], ['Silverpine', 'SVP'], ['Shadowridge', 'SHD'],
  ['London', 'LHR'], ['Paris', 'CDG'], ['Sunset Valley', 'SSV'], ['Oakendale', 'OKD'], ['Willowbend', 'WLB'],
  ['Crescent Hollow', 'CRH'], ['Autumnville', 'ATV'], ['Pinehaven', 'PHV'], ['Greenfield', 'GFD'],
  ['San Francisco', 'SFO'], ['Los Angeles', 'LAX'], ['New York', 'JFK'], ['Chicago', 'ORD'], ['Boston', 'BOS'],
  ['Beijing', 'PEK'], ['Hong Kong', 'HKG'], ['Rome', 'CIA'], ['Tokyo', 'HND'],
]);

const EXCHANGE_RATES: [string, string, number | PyFloat][] = [
  ['USD', 'RMB', 7], ['USD', 'EUR', new PyFloat(0.8)], ['USD', 'JPY', 110], ['USD', 'GBP', new PyFloat(0.7)],
  ['USD', 'CAD', new PyFloat(1.3)], ['USD', 'AUD', new PyFloat(1.4)], ['USD', 'INR', 70], ['USD', 'RUB', 60],
  ['USD', 'BRL', new PyFloat(3.8)], ['USD', 'MXN', 20],
];

const TRAVEL_CLASSES = ['economy', 'business', 'first'];

export type Clock = () => { year: number; month: number; day: number };

export class TravelAPI extends PyBackend<TravelAPI> {
  readonly className = 'TravelAPI';

  /**
   * @param today datetime.today() for verify_traveler_information. Per instance (and carried by clone()) so a
   *   run that pins the date, e.g. to replay a fixture recorded on a known day, cannot change any other run.
   */
  constructor(readonly today: Clock = localToday) { super(); }

  credit_card_list: PyMap = new Map();
  booking_record: PyMap = new Map();
  access_token: unknown = null;
  token_type: unknown = null;
  token_expires_in: unknown = null;
  token_scope: unknown = null;
  user_first_name: unknown = null;
  user_last_name: unknown = null;
  budget_limit: unknown = null;
  long_context = false;
  rng = new PyRandom(DEFAULT_SEED);
  flightCostLookup: PyMap = new Map();

  loadScenario(config: unknown, longContext: boolean): void {
    if (longContext) throw new Error('TravelAPI: long_context=True is not ported');
    const s = configMap(config);
    this.rng = new PyRandom(seedOf(cfg(s, 'random_seed', DEFAULT_SEED)));
    this.credit_card_list = cfg(s, 'credit_card_list', new Map()) as PyMap;
    this.booking_record = cfg(s, 'booking_record', new Map()) as PyMap;
    this.access_token = cfg(s, 'access_token', null);
    this.token_type = cfg(s, 'token_type', null);
    this.token_expires_in = cfg(s, 'token_expires_in', null);
    this.token_scope = cfg(s, 'token_scope', null);
    this.user_first_name = cfg(s, 'user_first_name', null);
    this.user_last_name = cfg(s, 'user_last_name', null);
    this.budget_limit = cfg(s, 'budget_limit', null);
    this.long_context = longContext;
  }

  state(): unknown {
    return toPy({
      credit_card_list: this.credit_card_list, booking_record: this.booking_record, access_token: this.access_token,
      token_type: this.token_type, token_expires_in: this.token_expires_in, token_scope: this.token_scope,
      user_first_name: this.user_first_name, user_last_name: this.user_last_name, budget_limit: this.budget_limit,
      long_context: this.long_context,
    });
  }

  clone(): TravelAPI {
    const c = new TravelAPI(this.today);
    c.credit_card_list = toPy(this.credit_card_list) as PyMap;
    c.booking_record = toPy(this.booking_record) as PyMap;
    c.access_token = this.access_token;
    c.token_type = this.token_type;
    c.token_expires_in = this.token_expires_in;
    c.token_scope = this.token_scope;
    c.user_first_name = this.user_first_name;
    c.user_last_name = this.user_last_name;
    c.budget_limit = this.budget_limit;
    c.long_context = this.long_context;
    c.rng = this.rng.clone();
    c.flightCostLookup = toPy(this.flightCostLookup) as PyMap;
    return c;
  }

  tokenExpired(): boolean {
    return pyEq(this.token_expires_in, 0);
  }

  badToken(accessToken: unknown): boolean {
    return !pyEq(accessToken, this.access_token);
  }

  /** get_flight_cost: raises ValueError for an unknown route or class, as BFCL does. */
  flightCost(travelFrom: unknown, travelTo: unknown, travelDate: unknown, travelClass: unknown): PyMap {
    pyKey(travelFrom);
    pyKey(travelTo);
    const pairKey = typeof travelFrom === 'string' && typeof travelTo === 'string' ? `${travelFrom}|${travelTo}` : null;
    const base = pairKey !== null ? BASE_COSTS.get(pairKey) : undefined;
    if (base === undefined) throw valueError('No available route for the given airports.');
    const factor = travelClass === 'economy' ? 1 : travelClass === 'business' ? 2 : travelClass === 'first' ? 5 : 0;
    if (!factor) throw valueError('Invalid travel class. Options are: economy, business, first.');
    let digitSum = 0;
    for (const ch of pyIter(travelDate)) {
      const c = strMethod(ch, 'isdigit');
      if (/^[0-9]$/.test(c)) digitSum += Number(c);
    }
    const multiplier = digitSum % 2 === 0 ? 2 : 1;
    const cost = new PyFloat(base * factor * multiplier);
    const key = `${pyStr(travelFrom)}|${pyStr(travelTo)}|${pyStr(travelClass)}|${pyStr(travelDate)}`;
    this.flightCostLookup = new Map([[key, new Map([['cost', cost]])]]);
    return new Map([['travel_cost_list', [cost]]]);
  }

  protected table(): Record<string, MethodSpec<TravelAPI>> {
    return METHODS;
  }
}

const fail = (flag: string, error: string): PyMap => new Map<string, unknown>([[flag, false], ['error', error]]);
const err = (msg: string): PyMap => new Map([['error', msg]]);

const METHODS: Record<string, MethodSpec<TravelAPI>> = {
  authenticate_travel: {
    params: [req('client_id'), req('client_secret'), req('refresh_token'), req('grant_type'), req('user_first_name'),
      req('user_last_name')],
    fn(this: TravelAPI, _id: unknown, _secret: unknown, _refresh: unknown, grantType: unknown, first: unknown, last: unknown) {
      this.token_expires_in = 2;
      this.access_token = String(this.rng.randint(100000, 999999));
      this.token_type = 'Bearer';
      this.token_scope = grantType;
      this.user_first_name = first;
      this.user_last_name = last;
      return new Map<string, unknown>([['expires_in', 2], ['access_token', this.access_token], ['token_type', 'Bearer'],
        ['scope', grantType]]);
    },
  },
  travel_get_login_status: {
    params: [],
    fn(this: TravelAPI) {
      const out = this.token_expires_in === null || pyEq(this.token_expires_in, 0);
      return new Map([['status', !out]]);
    },
  },
  get_budget_fiscal_year: {
    params: [opt('lastModifiedAfter', null), opt('includeRemoved', null)],
    fn() {
      return new Map([['budget_fiscal_year', '2018']]);
    },
  },
  register_credit_card: {
    params: [req('access_token'), req('card_number'), req('expiration_date'), req('cardholder_name'),
      req('card_verification_number')],
    fn(this: TravelAPI, token: unknown, cardNumber: unknown, expiration: unknown, holder: unknown, cvv: unknown) {
      if (this.token_expires_in === null) return err('Token not initialized');
      if (this.tokenExpired()) return err('Token expired');
      if (this.badToken(token)) return err('Invalid access token');
      // BFCL checks the card number against the card ids.
      if (dictHas(this.credit_card_list, cardNumber)) return err('Card already registered');
      const cardId = String(this.rng.randint(100000000000, 999999999999));
      const card = new Map<string, unknown>([['card_number', cardNumber], ['expiration_date', expiration],
        ['cardholder_name', holder], ['card_verification_number', cvv]]);
      card.set('balance', this.rng.randint(10000, 99999));
      this.credit_card_list.set(cardId, card);
      return new Map([['card_id', cardId]]);
    },
  },
  get_flight_cost: {
    params: [req('travel_from'), req('travel_to'), req('travel_date'), req('travel_class')],
    fn(this: TravelAPI, from: unknown, to: unknown, date: unknown, cls: unknown) {
      return this.flightCost(from, to, date, cls);
    },
  },
  get_credit_card_balance: {
    params: [req('access_token'), req('card_id')],
    fn(this: TravelAPI, token: unknown, cardId: unknown) {
      if (this.tokenExpired()) return err('Token expired');
      if (this.badToken(token)) return err('Invalid access token');
      if (!dictHas(this.credit_card_list, cardId)) {
        return err(`Card not registered. Here are a list of card_id's: ${pyRepr([...this.credit_card_list.keys()])}`);
      }
      return new Map([['card_balance', getItem(getItem(this.credit_card_list, cardId), 'balance')]]);
    },
  },
  book_flight: {
    params: [req('access_token'), req('card_id'), req('travel_date'), req('travel_from'), req('travel_to'),
      req('travel_class')],
    fn(this: TravelAPI, token: unknown, cardId: unknown, date: unknown, from: unknown, to: unknown, cls: unknown) {
      const no = (e: string): PyMap => fail('booking_status', e);
      if (this.tokenExpired()) return no('Token expired');
      if (this.badToken(token)) return no('Invalid access token');
      if (!dictHas(this.credit_card_list, cardId)) return no('Card not registered');
      const card = getItem(this.credit_card_list, cardId);
      if (!pyIn('balance', card)) return no('Balance not found');
      if (!pyIn(from, AIRPORTS)) return no(`Invalid departure airport code: ${pyStr(from)}`);
      if (!pyIn(to, AIRPORTS)) return no(`Invalid destination airport code: ${pyStr(to)}`);
      try {
        strptime(date, '%Y-%m-%d');
      } catch (e) {
        if (e instanceof BfclPyError && e.pyType === 'ValueError') return no('Invalid date format. Use YYYY-MM-DD.');
        throw e;
      }
      pyKey(cls);
      if (!TRAVEL_CLASSES.includes(cls as string)) {
        // Python prints a set here, whose order follows string hashing; list order is the stand-in.
        return no(`Invalid travel class. Must be one of {${TRAVEL_CLASSES.map((c) => pyRepr(c)).join(', ')}}`);
      }
      let travelCost: unknown;
      try {
        this.flightCost(from, to, date, cls);
        const key = `${pyStr(from)}|${pyStr(to)}|${pyStr(cls)}|${pyStr(date)}`;
        const entry = dictGet(this.flightCostLookup, key, null);
        if (entry === null) return no('No available route for the given parameters');
        travelCost = getItem(entry, 'cost');
      } catch (e) {
        if (e instanceof BfclPyError && e.pyType === 'ValueError') return no(e.message);
        throw e;
      }
      if (pyCmp('<', getItem(card, 'balance'), travelCost)) return no('Insufficient funds');
      if (this.budget_limit !== null && pyCmp('<', getItem(card, 'balance'), this.budget_limit)) {
        return no('Balance is less than budget limit');
      }
      setItem(card, 'balance', pySub(getItem(card, 'balance'), travelCost));
      const bookingId = String(this.rng.randint(1000000, 9999999));
      const transactionId = String(this.rng.randint(10000000, 99999999));
      this.booking_record.set(bookingId, new Map<string, unknown>([['card_id', cardId], ['travel_date', date],
        ['travel_from', from], ['travel_to', to], ['travel_class', cls], ['travel_cost', travelCost],
        ['transaction_id', transactionId]]));
      return new Map<string, unknown>([['booking_id', bookingId], ['transaction_id', transactionId],
        ['booking_status', true], ['booking_history', new Map()]]);
    },
  },
  retrieve_invoice: {
    params: [req('access_token'), opt('booking_id', null), opt('insurance_id', null)],
    fn(this: TravelAPI, token: unknown, bookingId: unknown) {
      if (this.tokenExpired()) return err('Token expired');
      if (this.badToken(token)) return err('Invalid access token');
      if (!dictHas(this.booking_record, bookingId)) return err('Booking not found');
      const b = getItem(this.booking_record, bookingId);
      const invoice = new Map<string, unknown>([['booking_id', bookingId]]);
      for (const k of ['travel_date', 'travel_from', 'travel_to', 'travel_class', 'travel_cost', 'transaction_id']) {
        invoice.set(k, getItem(b, k));
      }
      return new Map([['invoice', invoice]]);
    },
  },
  get_booking_history: {
    params: [req('access_token')],
    fn(this: TravelAPI, token: unknown) {
      if (this.tokenExpired()) return err('Token expired');
      if (this.badToken(token)) return err('Invalid access token');
      return new Map([['booking_history', toPy(this.booking_record)]]);
    },
  },
  list_all_airports: {
    params: [],
    fn() {
      return [...AIRPORTS];
    },
  },
  cancel_booking: {
    params: [req('access_token'), req('booking_id')],
    fn(this: TravelAPI, token: unknown, bookingId: unknown) {
      const no = (e: string): PyMap => fail('cancel_status', e);
      if (this.tokenExpired()) return no('Token expired');
      if (this.badToken(token)) return no('Invalid access token');
      if (!dictHas(this.booking_record, bookingId)) return no('Booking not found');
      const b = getItem(this.booking_record, bookingId);
      const card = getItem(this.credit_card_list, getItem(b, 'card_id'));
      const cost = getItem(b, 'travel_cost');
      setItem(card, 'balance', pyAdd(getItem(card, 'balance'), cost));
      this.booking_record.delete(pyKey(bookingId));
      return new Map([['cancel_status', true]]);
    },
  },
  compute_exchange_rate: {
    params: [req('base_currency'), req('target_currency'), req('value')],
    fn(base: unknown, target: unknown, value: unknown) {
      for (const [from, to, rate] of EXCHANGE_RATES) {
        if (pyEq(base, from) && pyEq(target, to)) return new Map([['exchanged_value', pyFloatOf(pyMul(value, rate))]]);
        if (pyEq(base, to) && pyEq(target, from)) return new Map([['exchanged_value', pyRound(pyTrueDiv(value, rate), 2)]]);
      }
      throw valueError('No available exchange rate for the given currencies.');
    },
  },
  verify_traveler_information: {
    params: [req('first_name'), req('last_name'), req('date_of_birth'), req('passport_number')],
    fn(this: TravelAPI, first: unknown, last: unknown, dob: unknown, passport: unknown) {
      if (!pyEq(this.user_first_name, first) || !pyEq(this.user_last_name, last)) {
        return new Map<string, unknown>([['verification_status', false], ['verification_failure',
          `Cannot book flight information for another user.Expected ${pyStr(this.user_first_name)} ${pyStr(this.user_last_name)}, got ${pyStr(first)} ${pyStr(last)}`]]);
      }
      let age: number;
      try {
        const birth = strptime(dob, '%Y-%m-%d');
        const today = this.today();
        const before = today.month < birth.month || (today.month === birth.month && today.day < birth.day);
        age = today.year - birth.year - (before ? 1 : 0);
      } catch (e) {
        if (e instanceof BfclPyError && e.pyType === 'ValueError') {
          return new Map<string, unknown>([['verification_status', false],
            ['verification_failure', 'Invalid date of birth format. Please use YYYY-MM-DD.']]);
        }
        throw e;
      }
      if (age < 18) {
        return new Map<string, unknown>([['verification_status', false],
          ['verification_failure', 'Traveler must be at least 18 years old.']]);
      }
      if (!strMethod(passport, 'startswith').startsWith('US')) {
        return new Map<string, unknown>([['verification_status', false],
          ['verification_failure', 'Passport must be issued by the United States.']]);
      }
      return new Map([['verification_status', true]]);
    },
  },
  set_budget_limit: {
    params: [req('access_token'), req('budget_limit')],
    fn(this: TravelAPI, token: unknown, limit: unknown) {
      if (this.tokenExpired()) return err('Token expired');
      if (this.badToken(token)) return err('Invalid access token');
      const value = pyFloatOf(limit);
      this.budget_limit = value;
      return new Map([['budget_limit', value]]);
    },
  },
  get_nearest_airport_by_city: {
    params: [req('location')],
    fn(location: unknown) {
      pyKey(location);
      return new Map([['nearest_airport', (typeof location === 'string' && CITY_AIRPORTS.get(location)) || 'Unknown']]);
    },
  },
  purchase_insurance: {
    params: [req('access_token'), req('insurance_type'), req('booking_id'), req('insurance_cost'), req('card_id')],
    fn(this: TravelAPI, token: unknown, _type: unknown, bookingId: unknown, cost: unknown, cardId: unknown) {
      const no = (e: string): PyMap => fail('insurance_status', e);
      if (this.tokenExpired()) return no('Token expired');
      if (this.badToken(token)) return no('Invalid access token');
      if (this.budget_limit !== null && pyCmp('<', this.budget_limit, cost)) return no('Exceeded budget limit');
      if (!dictHas(this.booking_record, bookingId)) return no('Booking not found');
      if (!dictHas(this.credit_card_list, cardId)) return no('Credit card not registered');
      const card = getItem(this.credit_card_list, cardId);
      setItem(card, 'balance', pySub(getItem(card, 'balance'), cost));
      return new Map<string, unknown>([['insurance_id', String(this.rng.randint(100000000, 999999999))],
        ['insurance_status', true]]);
    },
  },
  contact_customer_support: {
    params: [req('booking_id'), req('message')],
    fn(this: TravelAPI, bookingId: unknown) {
      if (!dictHas(this.booking_record, bookingId)) return err('Booking not found');
      return new Map([['customer_support_message',
        'Thank you for contacting customer support. Your message has been received and we will get back to you shortly.']]);
    },
  },
  get_all_credit_cards: {
    params: [],
    fn(this: TravelAPI) {
      return new Map([['credit_card_list', this.credit_card_list]]);
    },
  },
};

registerBackend('TravelAPI', () => new TravelAPI());
