/**
 * The `Retry-After` field of RFC 9110 (section 10.2.3): either delay-seconds (`120`) or an HTTP-date
 * in any of its three forms (section 5.6.7) — IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), the
 * obsolete RFC 850 form (`Sunday, 06-Nov-94 08:49:37 GMT`) and ANSI C's asctime form
 * (`Sun Nov  6 08:49:37 1994`). The grammar is matched exactly (HTTP-date is case-sensitive); the
 * day name is not checked against the date, in the robustness the RFC encourages for timestamps.
 * @module
 */
import { MAX_DELAY_MS } from './backoff.js';

const DAY = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const DAY_LONG = '(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)';
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'] as const;
const MONTH = `(${MONTHS.join('|')})`;
const TIME = '(\\d{2}):(\\d{2}):(\\d{2})';

const DELAY_SECONDS = /^\d+$/;
const IMF_FIXDATE = new RegExp(`^${DAY}, (\\d{2}) ${MONTH} (\\d{4}) ${TIME} GMT$`);
const RFC850_DATE = new RegExp(`^${DAY_LONG}, (\\d{2})-${MONTH}-(\\d{2}) ${TIME} GMT$`);
const ASCTIME_DATE = new RegExp(`^${DAY} ${MONTH} ( \\d|\\d{2}) ${TIME} (\\d{4})$`);

function monthIndex(name: string | undefined): number {
  return MONTHS.indexOf(name as (typeof MONTHS)[number]);
}

/** Builds a UTC time from parts, or undefined when any part is out of range (31 Feb, 25:00:00…). */
function utc(
  year: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
  second: number,
): number | undefined {
  // second 60 is a leap second, which RFC 9110 allows in the grammar; it reads as the next second.
  if (month < 0 || hour > 23 || minute > 59 || second > 60 || day < 1) return undefined;
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const daysInMonth = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month] ?? 0;
  if (day > daysInMonth) return undefined;
  const time = new Date(0);
  time.setUTCFullYear(year, month, day);
  time.setUTCHours(hour, minute, second, 0);
  return time.getTime();
}

/**
 * RFC 9110: a two-digit year that appears to be more than 50 years in the future is the most recent
 * past year with the same last two digits.
 */
function rfc850Year(twoDigits: number, now: number): number {
  const current = new Date(now).getUTCFullYear();
  let year = current - (current % 100) + twoDigits;
  if (year > current + 50) year -= 100;
  return year;
}

/** Parses an HTTP-date (all three forms) into epoch milliseconds, or undefined if it is not one. */
export function parseHttpDate(value: string, now: number = Date.now()): number | undefined {
  let m = IMF_FIXDATE.exec(value);
  if (m) {
    return utc(Number(m[3]), monthIndex(m[2]), Number(m[1]), Number(m[4]), Number(m[5]), Number(m[6]));
  }
  m = RFC850_DATE.exec(value);
  if (m) {
    const year = rfc850Year(Number(m[3]), now);
    return utc(year, monthIndex(m[2]), Number(m[1]), Number(m[4]), Number(m[5]), Number(m[6]));
  }
  m = ASCTIME_DATE.exec(value);
  if (m) {
    return utc(Number(m[6]), monthIndex(m[1]), Number((m[2] ?? '').trim()), Number(m[3]), Number(m[4]), Number(m[5]));
  }
  return undefined;
}

/**
 * Parses a `Retry-After` value into a wait in milliseconds, measured from `now` (epoch ms): delay
 * seconds × 1000, or the time until the date (0 for a date in the past). Returns undefined for a value
 * that matches neither form, so that the caller falls back on its own backoff. The result is always a
 * finite number in [0, {@link MAX_DELAY_MS}].
 *
 * @example
 * ```ts
 * parseRetryAfter('120'); // 120000
 * parseRetryAfter('Sun, 06 Nov 1994 08:49:37 GMT'); // 0: that date has passed
 * parseRetryAfter('soon'); // undefined
 * ```
 */
export function parseRetryAfter(value: string, now: number = Date.now()): number | undefined {
  // Field values arrive without surrounding whitespace from fetch; other sources may keep it (OWS).
  const text = value.trim();
  if (DELAY_SECONDS.test(text)) {
    const ms = Number(text) * 1000;
    return Math.min(MAX_DELAY_MS, ms);
  }
  const date = parseHttpDate(text, now);
  if (date === undefined || !Number.isFinite(now)) return undefined;
  return Math.min(MAX_DELAY_MS, Math.max(0, date - now));
}
