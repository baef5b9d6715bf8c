// BFCL's TradingBot (brokerage account, orders, watch list) ported to TypeScript with the same results
// and state. long_context=True needs BFCL's long_context.py extension data, which is not ported.

import { pyStr } from '../../python';
import { registerBackend } from '../backend';
import {
  DATETIME_MAX, DATETIME_MIN, NaiveDateTime, compareDateTime, naiveToSeconds, secondsToNaive, strftime, strptime,
} from '../datetime';
import { PyRandom } from '../pyrandom';
import {
  F, MethodSpec, PyBackend, PyMap, cfg, configMap, dictGet, dictHas, getItem, opt, pyAbs, pyAdd, pyCmp, pyEq,
  pyFloatOf, pyFormatFixed, pyIn, pyIntOf, pyIter, pyKey, pyMul, pySub, pyTruthy, pyTypeName, req, seedOf, setItem, strMethod, toPy, typeError,
} from '../pyops';

const CURRENT_TIME: NaiveDateTime = { year: 2024, month: 9, day: 1, hour: 10, minute: 30, second: 0 };
const DEFAULT_SEED = 1053520;

const stock = (price: number, change: number, volume: number, ma5: number, ma20: number): PyMap =>
  new Map<string, unknown>([['price', F(price)], ['percent_change', F(change)], ['volume', F(volume)],
    ['MA(5)', F(ma5)], ['MA(20)', F(ma20)]]);

function defaultOrders(): PyMap {
  const order = (id: number, type: string, symbol: string, price: number, amount: number, status: string): PyMap =>
    new Map<string, unknown>([['id', id], ['order_type', type], ['symbol', symbol], ['price', F(price)],
      ['amount', amount], ['status', status]]);
  return new Map([[12345, order(12345, 'Buy', 'AAPL', 210.65, 10, 'Completed')],
    [12446, order(12446, 'Sell', 'GOOG', 2840.56, 5, 'Pending')]]);
}

function defaultStocks(): PyMap {
  return new Map([
    ['AAPL', stock(227.16, 0.17, 2.552, 227.11, 227.09)],
    ['GOOG', stock(2840.34, 0.24, 1.123, 2835.67, 2842.15)],
    ['TSLA', stock(667.92, -0.12, 1.654, 671.15, 668.2)],
    ['MSFT', stock(310.23, 0.09, 3.234, 309.88, 310.11)],
    ['NVDA', stock(220.34, 0.34, 1.234, 220.45, 220.67)],
    ['ALPH', stock(1320.45, -0.08, 1.567, 1321.12, 1325.78)],
    ['OMEG', stock(457.23, 0.12, 2.345, 456.78, 458.12)],
    ['QUAS', stock(725.89, -0.03, 1.789, 726.45, 728.0)],
    ['NEPT', stock(88.34, 0.19, 0.654, 88.21, 88.67)],
    ['SYNX', stock(345.67, 0.11, 2.112, 345.34, 346.12)],
    ['ZETA', stock(22.09, -0.05, 0.789, 22.12, 22.34)],
  ]);
}

const SYMBOLS: [string, string][] = [
  ['Apple', 'AAPL'], ['Google', 'GOOG'], ['Tesla', 'TSLA'], ['Microsoft', 'MSFT'], ['Nvidia', 'NVDA'],
  ['Zeta Corp', 'ZETA'], ['Alpha Tech', 'ALPH'], ['Omega Industries', 'OMEG'], ['Quasar Ltd.', 'QUAS'],
  ['Neptune Systems', 'NEPT'], ['Synex Solutions', 'SYNX'], ['Amazon', 'AMZN'], ['Gorilla', 'GORI'],
];

const err = (msg: string): PyMap => new Map([['error', msg]]);

export class TradingBot extends PyBackend<TradingBot> {
  readonly className = 'TradingBot';
  orders: PyMap = new Map();
  account_info: unknown = new Map();
  authenticated: unknown = false;
  market_status: unknown = 'Closed';
  order_counter: unknown = 12446;
  stocks: unknown = new Map();
  watch_list: unknown = [];
  transaction_history: unknown = [];
  long_context = false;
  rng = new PyRandom(DEFAULT_SEED);

  loadScenario(config: unknown, longContext: boolean): void {
    if (longContext) throw new Error('TradingBot: long_context=True is not ported');
    const s = configMap(config);
    const orders = cfg(s, 'orders', defaultOrders());
    if (!(orders instanceof Map)) throw new Error('TradingBot: orders must be a dict');
    // Digit-string keys become ints; anything else (the stray "order_type" key in many configs) stays.
    this.orders = new Map([...orders.entries()].map(([k, v]) =>
      [typeof k === 'string' && /^[0-9]+$/.test(k) ? Number(k) : k, v]));
    this.account_info = cfg(s, 'account_info', new Map<string, unknown>([['account_id', 12345], ['balance', F(10000)],
      ['binding_card', 1974202140965533]]));
    this.authenticated = cfg(s, 'authenticated', false);
    this.market_status = cfg(s, 'market_status', 'Closed');
    this.order_counter = cfg(s, 'order_counter', 12446);
    this.stocks = cfg(s, 'stocks', defaultStocks());
    this.watch_list = cfg(s, 'watch_list', ['NVDA']);
    this.transaction_history = cfg(s, 'transaction_history', []);
    this.long_context = longContext;
    this.rng = new PyRandom(seedOf(cfg(s, 'random_seed', DEFAULT_SEED)));
  }

  state(): unknown {
    return toPy({
      orders: this.orders, account_info: this.account_info, authenticated: this.authenticated,
      market_status: this.market_status, order_counter: this.order_counter, stocks: this.stocks,
      watch_list: this.watch_list, transaction_history: this.transaction_history, long_context: this.long_context,
    });
  }

  clone(): TradingBot {
    const c = new TradingBot();
    c.orders = toPy(this.orders) as PyMap;
    c.account_info = toPy(this.account_info);
    c.authenticated = this.authenticated;
    c.market_status = this.market_status;
    c.order_counter = this.order_counter;
    c.stocks = toPy(this.stocks);
    c.watch_list = toPy(this.watch_list);
    c.transaction_history = toPy(this.transaction_history);
    c.long_context = this.long_context;
    c.rng = this.rng.clone();
    return c;
  }

  /**
   * Python converts CURRENT_TIME to a local epoch, draws an offset of up to a day, and converts back with
   * the same local zone, so the text is CURRENT_TIME plus the offset in any zone; computing it in UTC
   * gives that result without depending on the host's zone.
   */
  transactionTimestamp(): string {
    const start = naiveToSeconds(CURRENT_TIME);
    const ts = this.rng.randint(start, start + 86400);
    return strftime(secondsToNaive(ts), '%Y-%m-%d %H:%M:%S');
  }

  protected table(): Record<string, MethodSpec<TradingBot>> {
    return METHODS;
  }
}

const METHODS: Record<string, MethodSpec<TradingBot>> = {
  get_current_time: {
    params: [],
    fn() {
      return new Map([['current_time', strftime(CURRENT_TIME, '%I:%M %p')]]);
    },
  },
  get_symbol_by_name: {
    params: [req('name')],
    fn(name: unknown) {
      pyKey(name);
      const hit = SYMBOLS.find(([n]) => n === name);
      return new Map([['symbol', hit ? hit[1] : 'Stock not found']]);
    },
  },
  get_stock_info: {
    params: [req('symbol')],
    fn(this: TradingBot, symbol: unknown) {
      if (!pyIn(symbol, this.stocks)) return err(`Stock with symbol '${pyStr(symbol)}' not found.`);
      return getItem(this.stocks, symbol);
    },
  },
  get_order_details: {
    params: [req('order_id')],
    fn(this: TradingBot, orderId: unknown) {
      if (!dictHas(this.orders, orderId)) {
        // BFCL's text has no space before "Here is".
        return err(`Order with ID ${pyStr(orderId)} not found.Here is the list of orders_id: ${pyStr([...this.orders.keys()])}`);
      }
      return getItem(this.orders, orderId);
    },
  },
  cancel_order: {
    params: [req('order_id')],
    fn(this: TradingBot, orderId: unknown) {
      if (!dictHas(this.orders, orderId)) return err(`Order with ID ${pyStr(orderId)} not found.`);
      const order = getItem(this.orders, orderId);
      if (pyEq(getItem(order, 'status'), 'Completed')) {
        return err(`Can't cancel order ${pyStr(orderId)}. Order is already completed.`);
      }
      setItem(order, 'status', 'Cancelled');
      return new Map<string, unknown>([['order_id', orderId], ['status', 'Cancelled']]);
    },
  },
  place_order: {
    params: [req('order_type'), req('symbol'), req('price'), req('amount')],
    fn(this: TradingBot, orderType: unknown, symbol: unknown, price: unknown, amount: unknown) {
      if (!pyTruthy(this.authenticated)) return err('User not authenticated. Please log in to place an order.');
      if (!pyIn(symbol, this.stocks)) return err(`Invalid stock symbol: ${pyStr(symbol)}`);
      if (pyCmp('<=', price, 0) || pyCmp('<=', amount, 0)) return err('Price and amount must be positive values.');
      if (strMethod(orderType, 'lower').toLowerCase() === 'buy') {
        const totalCost = pyMul(pyFloatOf(price), pyIntOf(amount));
        const balance = dictGet(this.account_info, 'balance', 0);
        if (pyCmp('>', totalCost, balance)) {
          return err(`Insufficient funds: required $${pyFormatFixed(totalCost, 2)} but only $${pyFormatFixed(dictGet(this.account_info, 'balance', 0), 2)} available.`);
        }
      }
      const fprice = pyFloatOf(price);
      const orderId = this.order_counter;
      setItem(this.orders, orderId, new Map<string, unknown>([['id', orderId], ['order_type', orderType],
        ['symbol', symbol], ['price', fprice], ['amount', amount], ['status', 'Open']]));
      this.order_counter = pyAdd(this.order_counter, 1);
      return new Map<string, unknown>([['order_id', orderId], ['order_type', orderType], ['status', 'Pending'],
        ['price', fprice], ['amount', amount]]);
    },
  },
  withdraw_funds: {
    params: [req('amount')],
    fn(this: TradingBot, amount: unknown) {
      if (!pyTruthy(this.authenticated)) return err('User not authenticated. Please log in to make a transaction.');
      if (!pyEq(this.market_status, 'Open')) return err('Market is closed. Transactions are not allowed.');
      if (pyCmp('<=', amount, 0)) return err('Transaction amount must be positive.');
      if (pyCmp('>', amount, getItem(this.account_info, 'balance'))) return err('Insufficient funds for withdrawal.');
      setItem(this.account_info, 'balance', pySub(getItem(this.account_info, 'balance'), amount));
      appendTransaction(this, 'withdrawal', amount);
      return new Map<string, unknown>([['status', 'Withdrawal successful'],
        ['new_balance', getItem(this.account_info, 'balance')]]);
    },
  },
  get_account_info: {
    params: [],
    fn(this: TradingBot) {
      if (!pyTruthy(this.authenticated)) return err('User not authenticated. Please log in to view account information.');
      return this.account_info;
    },
  },
  trading_login: {
    params: [req('username'), req('password')],
    fn(this: TradingBot) {
      if (pyTruthy(this.authenticated)) return new Map([['status', 'Already logged in']]);
      this.authenticated = true;
      return new Map([['status', 'Logged in successfully']]);
    },
  },
  trading_get_login_status: {
    params: [],
    fn(this: TradingBot) {
      return new Map([['status', pyTruthy(this.authenticated)]]);
    },
  },
  trading_logout: {
    params: [],
    fn(this: TradingBot) {
      if (!pyTruthy(this.authenticated)) return new Map([['status', 'No user is currently logged in']]);
      this.authenticated = false;
      return new Map([['status', 'Logged out successfully']]);
    },
  },
  fund_account: {
    params: [req('amount')],
    fn(this: TradingBot, amount: unknown) {
      if (!pyTruthy(this.authenticated)) return err('User not authenticated. Please log in to fund the account.');
      if (pyCmp('<=', amount, 0)) return err('Funding amount must be positive.');
      setItem(this.account_info, 'balance', pyAdd(getItem(this.account_info, 'balance'), amount));
      appendTransaction(this, 'deposit', amount);
      return new Map<string, unknown>([['status', 'Account funded successfully'],
        ['new_balance', getItem(this.account_info, 'balance')]]);
    },
  },
  remove_stock_from_watchlist: {
    params: [req('symbol')],
    fn(this: TradingBot, symbol: unknown) {
      if (!pyTruthy(this.authenticated)) return err('User not authenticated. Please log in to modify the watchlist.');
      if (!pyIn(symbol, this.watch_list)) return err(`Stock ${pyStr(symbol)} not found in watchlist.`);
      const list = this.watch_list as unknown[];
      list.splice(list.findIndex((x) => pyEq(x, symbol)), 1);
      return new Map([['status', `Stock ${pyStr(symbol)} removed from watchlist successfully.`]]);
    },
  },
  get_watchlist: {
    params: [],
    fn(this: TradingBot) {
      if (!pyTruthy(this.authenticated)) return ['Error: User not authenticated. Please log in to view the watchlist.'];
      return new Map([['watchlist', this.watch_list]]);
    },
  },
  get_order_history: {
    params: [],
    fn(this: TradingBot) {
      if (!pyTruthy(this.authenticated)) return [err('User not authenticated. Please log in to view order history.')];
      return new Map([['history', [...this.orders.keys()]]]);
    },
  },
  get_transaction_history: {
    params: [opt('start_date', null), opt('end_date', null)],
    fn(this: TradingBot, startDate: unknown, endDate: unknown) {
      if (!pyTruthy(this.authenticated)) {
        return [err('User not authenticated. Please log in to view transaction history.')];
      }
      const start = pyTruthy(startDate) ? strptime(startDate, '%Y-%m-%d') : DATETIME_MIN;
      const end = pyTruthy(endDate) ? strptime(endDate, '%Y-%m-%d') : DATETIME_MAX;
      const filtered = pyIter(this.transaction_history).filter((t) => {
        const at = strptime(getItem(t, 'timestamp'), '%Y-%m-%d %H:%M:%S');
        return compareDateTime(start, at) <= 0 && compareDateTime(at, end) <= 0;
      });
      return new Map([['transaction_history', filtered]]);
    },
  },
  get_available_stocks: {
    params: [req('sector')],
    fn(sector: unknown) {
      pyKey(sector);
      const list = sector === 'Technology' ? ['AAPL', 'GOOG', 'MSFT', 'NVDA'] : sector === 'Automobile' ? ['TSLA', 'F', 'GM'] : [];
      return new Map([['stock_list', list]]);
    },
  },
  filter_stocks_by_price: {
    params: [req('stocks'), req('min_price'), req('max_price')],
    fn(this: TradingBot, stocks: unknown, minPrice: unknown, maxPrice: unknown) {
      const priceOf = (sym: unknown): unknown => dictGet(dictGet(this.stocks, sym, new Map()), 'price', 0);
      const out = pyIter(stocks).filter((sym) => pyCmp('>=', priceOf(sym), minPrice) && pyCmp('<=', priceOf(sym), maxPrice));
      return new Map([['filtered_stocks', out]]);
    },
  },
  add_to_watchlist: {
    params: [req('stock')],
    fn(this: TradingBot, stockSym: unknown) {
      if (!pyIn(stockSym, this.watch_list) && pyIn(stockSym, this.stocks)) (this.watch_list as unknown[]).push(stockSym);
      return new Map([['watchlist', this.watch_list]]);
    },
  },
  notify_price_change: {
    params: [req('stocks'), req('threshold')],
    fn(this: TradingBot, stocks: unknown, threshold: unknown) {
      const changed = pyIter(stocks).filter((sym) =>
        pyIn(sym, this.stocks) && pyCmp('>=', pyAbs(getItem(getItem(this.stocks, sym), 'percent_change')), threshold));
      if (changed.length) {
        return new Map([['notification', `Stocks ${joinStrings(changed)} have significant price changes.`]]);
      }
      return new Map([['notification', 'No significant price changes in the selected stocks.']]);
    },
  },
};

function appendTransaction(bot: TradingBot, type: string, amount: unknown): void {
  const entry = new Map<string, unknown>([['type', type], ['amount', amount], ['timestamp', bot.transactionTimestamp()]]);
  (bot.transaction_history as unknown[]).push(entry);
}

/** ', '.join(items), which only accepts str items. */
function joinStrings(items: unknown[]): string {
  const bad = items.findIndex((x) => typeof x !== 'string');
  if (bad >= 0) throw typeError(`sequence item ${bad}: expected str instance, ${pyTypeName(items[bad])} found`);
  return items.join(', ');
}

registerBackend('TradingBot', () => new TradingBot());
