// The slice of Python's datetime the BFCL backends touch: strptime for date / date-time formats (with
// _strptime's exact regexes and error texts), strftime for a few directives, and naive date-time values
// that compare like datetime objects. Naive values are kept as UTC fields so results never depend on
// the host time zone.

import { pyStrRepr } from '../python';
import { BfclPyError } from './backend';
import { pyTypeName } from './pyops';

export interface NaiveDateTime { year: number; month: number; day: number; hour: number; minute: number; second: number }

// CPython 3.11 _strptime.TimeRE patterns for the directives the backends use.
const DIRECTIVES: Record<string, string> = {
  Y: '(\\d\\d\\d\\d)',
  m: '(1[0-2]|0[1-9]|[1-9])',
  d: '(3[01]|[12]\\d|0[1-9]|[1-9]| [1-9])',
  H: '(2[0-3]|[0-1]\\d|\\d)',
  M: '([0-5]\\d|\\d)',
  S: '(6[0-1]|[0-5]\\d|\\d)',
};

const compiled = new Map<string, { re: RegExp; fields: string[] }>();

function compile(format: string): { re: RegExp; fields: string[] } {
  const hit = compiled.get(format);
  if (hit) return hit;
  const fields: string[] = [];
  let src = '';
  for (let i = 0; i < format.length; i++) {
    const c = format[i];
    if (c === '%' && i + 1 < format.length) {
      const d = format[++i];
      if (d === '%') { src += '%'; continue; }
      const pat = DIRECTIVES[d];
      if (!pat) throw new Error(`strptime directive %${d} is not ported`);
      fields.push(d);
      src += pat;
    } else if (/\s/.test(c)) {
      while (i + 1 < format.length && /\s/.test(format[i + 1])) i++;
      src += '\\s+';
    } else {
      src += c.replace(/[\\^$.*+?()[\]{}|-]/g, '\\$&');
    }
  }
  const out = { re: new RegExp('^' + src, 'i'), fields };
  compiled.set(format, out);
  return out;
}

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function daysInMonth(year: number, month: number): number {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return month === 2 && leap ? 29 : MONTH_DAYS[month - 1];
}

/** datetime.strptime(s, format); raises ValueError/TypeError with Python's messages. */
export function strptime(s: unknown, format: string): NaiveDateTime {
  if (typeof s !== 'string') throw new BfclPyError('TypeError', `strptime() argument 1 must be str, not ${s === null || s === undefined ? 'None' : pyTypeName(s)}`);
  const { re, fields } = compile(format);
  const m = re.exec(s);
  if (!m) throw new BfclPyError('ValueError', `time data ${pyStrRepr(s)} does not match format ${pyStrRepr(format)}`);
  if (m[0].length !== s.length) throw new BfclPyError('ValueError', `unconverted data remains: ${s.slice(m[0].length)}`);
  const dt: NaiveDateTime = { year: 1900, month: 1, day: 1, hour: 0, minute: 0, second: 0 };
  fields.forEach((f, i) => {
    const v = Number(m[i + 1].trim());
    if (f === 'Y') dt.year = v;
    else if (f === 'm') dt.month = v;
    else if (f === 'd') dt.day = v;
    else if (f === 'H') dt.hour = v;
    else if (f === 'M') dt.minute = v;
    else if (f === 'S') dt.second = v;
  });
  if (dt.year < 1) throw new BfclPyError('ValueError', `year ${dt.year} is out of range`);
  if (dt.day > daysInMonth(dt.year, dt.month)) throw new BfclPyError('ValueError', 'day is out of range for month');
  if (dt.second > 59) throw new BfclPyError('ValueError', 'second must be in 0..59');
  return dt;
}

export function compareDateTime(a: NaiveDateTime, b: NaiveDateTime): number {
  const ka = [a.year, a.month, a.day, a.hour, a.minute, a.second];
  const kb = [b.year, b.month, b.day, b.hour, b.minute, b.second];
  for (let i = 0; i < ka.length; i++) if (ka[i] !== kb[i]) return ka[i] < kb[i] ? -1 : 1;
  return 0;
}

export const DATETIME_MIN: NaiveDateTime = { year: 1, month: 1, day: 1, hour: 0, minute: 0, second: 0 };
export const DATETIME_MAX: NaiveDateTime = { year: 9999, month: 12, day: 31, hour: 23, minute: 59, second: 59 };

/** Seconds since the epoch of a naive date-time read as UTC. */
export function naiveToSeconds(d: NaiveDateTime): number {
  return Date.UTC(d.year, d.month - 1, d.day, d.hour, d.minute, d.second) / 1000;
}

export function secondsToNaive(sec: number): NaiveDateTime {
  const t = new Date(sec * 1000);
  return { year: t.getUTCFullYear(), month: t.getUTCMonth() + 1, day: t.getUTCDate(),
    hour: t.getUTCHours(), minute: t.getUTCMinutes(), second: t.getUTCSeconds() };
}

const pad = (n: number, w = 2): string => String(n).padStart(w, '0');

/** datetime.strftime for %Y %m %d %H %M %S %I %p %%. */
export function strftime(d: NaiveDateTime, format: string): string {
  return format.replace(/%([YmdHMSIp%])/g, (_, c: string) => {
    switch (c) {
      case 'Y': return pad(d.year, 4);
      case 'm': return pad(d.month);
      case 'd': return pad(d.day);
      case 'H': return pad(d.hour);
      case 'M': return pad(d.minute);
      case 'S': return pad(d.second);
      case 'I': return pad(d.hour % 12 === 0 ? 12 : d.hour % 12);
      case 'p': return d.hour < 12 ? 'AM' : 'PM';
      default: return '%';
    }
  });
}

/** datetime.today()'s date in the host's local time, as Python reports it. */
export function localToday(): { year: number; month: number; day: number } {
  const t = new Date();
  return { year: t.getFullYear(), month: t.getMonth() + 1, day: t.getDate() };
}
