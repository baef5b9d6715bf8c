// The slice of Python's datetime that VitaBench's tools touch: strptime with "%Y-%m-%d %H:%M:%S" or
// "%Y-%m-%d" (CPython's _strptime regexes: one-digit fields, a space in the format matching any
// whitespace run, whole-string match, calendar validation), strftime of the same, weekday, timegm.

import { PyException } from '../tau2/py';

export interface PyDateTime { y: number; mo: number; d: number; h: number; mi: number; s: number }

const FIELD = {
  Y: '(\\d\\d\\d\\d)',
  m: '(1[0-2]|0[1-9]|[1-9])',
  d: '(3[01]|[12]\\d|0[1-9]|[1-9]| [1-9])',
  H: '(2[0-3]|[0-1]\\d|\\d)',
  M: '([0-5]\\d|\\d)',
  S: '(6[0-1]|[0-5]\\d|\\d)',
} as const;

export const DATETIME_FMT = '%Y-%m-%d %H:%M:%S';
export const DATE_FMT = '%Y-%m-%d';

const compiled = new Map<string, { re: RegExp; keys: string[] }>();

function compile(fmt: string): { re: RegExp; keys: string[] } {
  const hit = compiled.get(fmt);
  if (hit) return hit;
  const keys: string[] = [];
  let src = '';
  for (let i = 0; i < fmt.length; i++) {
    const c = fmt[i];
    if (c === '%') {
      const k = fmt[++i] as keyof typeof FIELD;
      keys.push(k);
      src += FIELD[k];
    } else if (/\s/.test(c)) {
      while (i + 1 < fmt.length && /\s/.test(fmt[i + 1])) i++;
      src += '\\s+';
    } else src += c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  }
  const out = { re: new RegExp(`^${src}`, 'i'), keys };
  compiled.set(fmt, out);
  return out;
}

const daysIn = (y: number, m: number) => [31, (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1];

/** datetime.strptime(text, fmt) for the two formats above; throws ValueError/TypeError like CPython. */
export function strptime(text: unknown, fmt: string): PyDateTime {
  if (typeof text !== 'string') {
    const t = text === null || text === undefined ? 'NoneType' : Array.isArray(text) ? 'list' : typeof text === 'number' ? (Number.isInteger(text) ? 'int' : 'float') : typeof text === 'boolean' ? 'bool' : typeof text === 'object' && text && 'value' in text ? 'float' : 'dict';
    throw new PyException('TypeError', `strptime() argument 1 must be str, not ${t}`);
  }
  const { re, keys } = compile(fmt);
  const m = re.exec(text);
  if (!m) throw new PyException('ValueError', `time data ${JSON.stringify(text)} does not match format '${fmt}'`);
  if (m[0].length !== text.length) throw new PyException('ValueError', `unconverted data remains: ${text.slice(m[0].length)}`);
  const v: Record<string, number> = { Y: 1900, m: 1, d: 1, H: 0, M: 0, S: 0 };
  keys.forEach((k, i) => { v[k] = Number(m[i + 1].trim()); });
  if (v.d > daysIn(v.Y, v.m)) throw new PyException('ValueError', 'day is out of range for month');
  if (v.S > 59) throw new PyException('ValueError', 'second must be in 0..59');
  return { y: v.Y, mo: v.m, d: v.d, h: v.H, mi: v.M, s: v.S };
}

/** vita.utils.check_time_format: strptime succeeds (a ValueError means False; other errors propagate). */
export function checkTimeFormat(text: unknown, fmt = DATETIME_FMT): boolean {
  try {
    strptime(text, fmt);
    return true;
  } catch (e) {
    if (e instanceof PyException && e.pyType === 'ValueError') return false;
    throw e;
  }
}

/** Seconds since the epoch, reading the fields as UTC (calendar.timegm). */
export function timegm(t: PyDateTime): number {
  return Date.UTC(t.y, t.mo - 1, t.d, t.h, t.mi, t.s) / 1000;
}

export function fromEpoch(sec: number): PyDateTime {
  const d = new Date(sec * 1000);
  return { y: d.getUTCFullYear(), mo: d.getUTCMonth() + 1, d: d.getUTCDate(), h: d.getUTCHours(), mi: d.getUTCMinutes(), s: d.getUTCSeconds() };
}

const p2 = (n: number) => String(n).padStart(2, '0');

export function formatDateTime(t: PyDateTime): string {
  return `${String(t.y).padStart(4, '0')}-${p2(t.mo)}-${p2(t.d)} ${p2(t.h)}:${p2(t.mi)}:${p2(t.s)}`;
}

export function compareDateTime(a: PyDateTime, b: PyDateTime): number {
  return timegm(a) - timegm(b);
}

const WEEKDAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];

/** vita.utils.get_weekday(date) in English (date in "%Y-%m-%d %H:%M:%S"). */
export function weekdayName(text: string): string {
  const t = strptime(text, DATETIME_FMT);
  const js = new Date(Date.UTC(t.y, t.mo - 1, t.d)).getUTCDay(); // 0 = Sunday
  return WEEKDAYS[(js + 6) % 7];
}
